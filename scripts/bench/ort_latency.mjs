// ort_latency.mjs MODEL.onnx INPUT.npy THREADS RUNS — ONNX Runtime (onnxruntime-node) latency of
// one model on one float32 .npy input, the way ../shared/bench measured it (sequential, graph
// optimisation "all", 2 warm-up runs). Prints {"median_ms": x, "min_ms": y}.
import fs from 'fs';
import { loadOrt } from '../lib/cache.mjs';
const ort = loadOrt();
const [model, npy, threads, runs] = process.argv.slice(2);

function readNpy(p) { // float32 C-order only
  const b = fs.readFileSync(p);
  const hlen = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + hlen);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').map(s => s.trim()).filter(Boolean).map(Number);
  const data = new Float32Array(b.buffer.slice(b.byteOffset + 10 + hlen, b.byteOffset + b.length));
  return new ort.Tensor('float32', data, shape);
}
const s = await ort.InferenceSession.create(model, { intraOpNumThreads: +threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
const feed = { [s.inputNames[0]]: readNpy(npy) };
for (let w = 0; w < 2; w++) await s.run(feed);
const ts = [];
for (let i = 0; i < +runs; i++) { const t0 = performance.now(); await s.run(feed); ts.push(performance.now() - t0); }
ts.sort((a, b) => a - b);
console.log(JSON.stringify({ median_ms: ts[Math.floor(ts.length / 2)], min_ms: ts[0] }));
