#!/usr/bin/env python3
"""Times numpy (OpenBLAS) float32 matmul the way `paddle bench gemm` times
paddle: one warm-up call, then calls until >= min_time s and >= 5 calls;
prints one JSON line per shape with the median and min call time.

usage: OPENBLAS_NUM_THREADS=T python3 sgemm_numpy.py T MxNxK [ta tb] ...
"""
import json
import sys
import time

import numpy as np

threads = int(sys.argv[1])
for spec in sys.argv[2:]:
    parts = spec.split(":")
    m, n, k = map(int, parts[0].split("x"))
    ta = len(parts) > 1 and "ta" in parts[1]
    tb = len(parts) > 1 and "tb" in parts[1]
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(np.float32)
    opa = a.T if ta else a
    opb = b.T if tb else b
    c = np.empty((m, n), np.float32)
    np.matmul(opa, opb, out=c)
    times = []
    start = time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < 1.0:
        t = time.perf_counter()
        np.matmul(opa, opb, out=c)
        times.append(time.perf_counter() - t)
    times.sort()
    h = len(times) // 2
    med = times[h] if len(times) % 2 else (times[h - 1] + times[h]) / 2
    print(json.dumps({"op": "gemm", "m": m, "n": n, "k": k, "threads": threads,
                      "gflops": 2 * m * n * k / med / 1e9, "median_ms": med * 1e3,
                      "min_ms": times[0] * 1e3}), flush=True)
