#!/usr/bin/env node
// ort_run.mjs — run an ONNX model with ONNX Runtime (onnxruntime-node 1.30.0) on
// NumPy .npy inputs and write every output as .npy; the reference for
// `paddle model run` and the imported-model tests.
//
//   node scripts/ref/ort_run.mjs [--threads N] [--opt all|extended|basic|disabled]
//        model.onnx out_dir name=input.npy [name=input.npy ...]
//
// Each output is written to out_dir/<name>.npy, with every character of the name
// outside [A-Za-z0-9._-] replaced by "_". A JSON summary (inputs, outputs with
// dtype and dims, run time) goes to stdout.
//
// onnxruntime-node is looked up in $ORT_NODE_DIR, then in
// ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ortnode-1.30.0 (scripts/lib/cache.mjs,
// the same lookup as core/hub.CacheDir); scripts/ref/setup_ort.sh installs it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOrt } from '../lib/cache.mjs';

// --- .npy (format versions 1.0, 2.0 and 3.0; C order only) ---

// dtype descr <-> onnxruntime tensor type and typed array.
const DTYPES = {
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<f2': ['float16', Uint16Array],
  '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array],
  '|i1': ['int8', Int8Array],
  '<u8': ['uint64', BigUint64Array],
  '<u4': ['uint32', Uint32Array],
  '<u2': ['uint16', Uint16Array],
  '|u1': ['uint8', Uint8Array],
  '|b1': ['bool', Uint8Array],
};
const DESCR = Object.fromEntries(Object.entries(DTYPES).map(([d, [t]]) => [t, d]));

// readNpy parses a .npy file into {type, dims, data}.
export function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(`${file}: not a .npy file`);
  }
  const major = buf[6];
  let hlen, hstart;
  if (major === 1) {
    hlen = buf.readUInt16LE(8);
    hstart = 10;
  } else if (major === 2 || major === 3) {
    hlen = buf.readUInt32LE(8);
    hstart = 12;
  } else {
    throw new Error(`${file}: unsupported .npy version ${major}`);
  }
  const header = buf.toString(major === 3 ? 'utf8' : 'latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shape === undefined) {
    throw new Error(`${file}: bad .npy header ${JSON.stringify(header)}`);
  }
  if (fortran === 'True') throw new Error(`${file}: fortran_order arrays are not supported`);
  const dt = DTYPES[descr === '<b1' ? '|b1' : descr];
  if (!dt) throw new Error(`${file}: unsupported dtype ${descr}`);
  const dims = shape.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const [type, Arr] = dt;
  const start = hstart + hlen;
  const bytes = count * Arr.BYTES_PER_ELEMENT;
  if (buf.length - start < bytes) {
    throw new Error(`${file}: ${buf.length - start} data bytes, want ${bytes}`);
  }
  // Copy into an aligned buffer: the payload need not be aligned in the file.
  const data = new Arr(count);
  new Uint8Array(data.buffer).set(buf.subarray(start, start + bytes));
  return { type, dims, data: type === 'bool' ? Uint8Array.from(data, (v) => (v ? 1 : 0)) : data };
}

// writeNpy writes a typed array with the given ORT type and dims as .npy v1.0.
export function writeNpy(file, type, dims, data) {
  const descr = DESCR[type];
  if (!descr) throw new Error(`${file}: cannot write tensor type ${type}`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const payload = type === 'bool' ? Uint8Array.from(data, (v) => (v ? 1 : 0)) : data;
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
    Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)]));
}

// --- onnxruntime-node ---


function usage(msg) {
  if (msg) console.error(`ort_run: ${msg}`);
  console.error('usage: node ort_run.mjs [--threads N] [--opt all|extended|basic|disabled] model.onnx out_dir name=input.npy ...');
  process.exit(2);
}

export function safeName(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

async function main(argv) {
  let threads = 1;
  let opt = 'all';
  const pos = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--threads' || a === '--opt') {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      const v = argv[++i];
      if (a === '--threads') threads = Number(v);
      else opt = v;
    } else if (a.startsWith('--threads=')) {
      threads = Number(a.slice(10));
    } else if (a.startsWith('--opt=')) {
      opt = a.slice(6);
    } else if (a === '-h' || a === '--help') {
      usage();
    } else {
      pos.push(a);
    }
  }
  if (!Number.isInteger(threads) || threads < 0) usage(`--threads: want a non-negative integer`);
  if (!['all', 'extended', 'basic', 'disabled'].includes(opt)) usage(`--opt ${opt}: want all, extended, basic or disabled`);
  if (pos.length < 2) usage('want model.onnx and out_dir');
  const [model, outDir, ...pairs] = pos;

  const ort = loadOrt();
  const feeds = {};
  const inputs = [];
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) usage(`input ${JSON.stringify(p)}: want name=file.npy`);
    const name = p.slice(0, eq);
    const file = p.slice(eq + 1);
    const { type, dims, data } = readNpy(file);
    feeds[name] = new ort.Tensor(type, data, dims);
    inputs.push({ name, file, type, dims });
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: opt,
  });
  const missing = session.inputNames.filter((n) => !(n in feeds));
  if (missing.length) usage(`missing inputs: ${missing.join(', ')} (model inputs: ${session.inputNames.join(', ')})`);

  const t0 = process.hrtime.bigint();
  const results = await session.run(feeds);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;

  fs.mkdirSync(outDir, { recursive: true });
  const outputs = [];
  for (const name of session.outputNames) {
    const t = results[name];
    const file = path.join(outDir, safeName(name) + '.npy');
    writeNpy(file, t.type, t.dims, t.data);
    outputs.push({ name, file, type: t.type, dims: t.dims });
  }
  console.log(JSON.stringify({ model, threads, opt, ort_version: ort.env.versions?.common, inputs, outputs, ms }));
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('ort_run.mjs')) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`ort_run: ${e.message}`);
    process.exit(1);
  });
}
