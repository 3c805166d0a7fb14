#!/usr/bin/env node
// ort_bench.mjs — ONNX Runtime (onnxruntime-node 1.30.0) latency of a model on a
// constant float32 input, for docs/BENCHMARKS.md next to `paddle`'s own numbers.
//
//   node scripts/ref/ort_bench.mjs model.onnx input_name 1x3x640x640 threads N
//
// Prints {"model", "threads", "shape", "median_ms", "min_ms"} after one warm-up run.
import fs from 'node:fs';
import path from 'node:path';
import { loadOrt } from '../lib/cache.mjs';


const [model, name, shape, threads, n] = process.argv.slice(2);
if (!n) {
  console.error('usage: node ort_bench.mjs model.onnx input_name 1x3x640x640 threads N');
  process.exit(2);
}
const ort = loadOrt();
const dims = shape.split('x').map(Number);
const data = new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(0.1);
const session = await ort.InferenceSession.create(model, {
  intraOpNumThreads: Number(threads), interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
});
const feeds = { [name]: new ort.Tensor('float32', data, dims) };
await session.run(feeds);
const ms = [];
for (let i = 0; i < Number(n); i++) {
  const t0 = process.hrtime.bigint();
  await session.run(feeds);
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
ms.sort((a, b) => a - b);
const median = ms.length % 2 ? ms[(ms.length - 1) / 2] : (ms[ms.length / 2 - 1] + ms[ms.length / 2]) / 2;
console.log(JSON.stringify({ model: path.basename(model), threads: Number(threads), shape, median_ms: median, min_ms: ms[0] }));
