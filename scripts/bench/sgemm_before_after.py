#!/usr/bin/env python3
"""Measures two builds of paddle's SGEMM (scripts/bench/gemmbench) and
numpy/OpenBLAS side by side at 1 thread, interleaved by shape and round, and
prints a markdown table: before, after, OpenBLAS, after/before and
after/OpenBLAS (GFLOP/s of the median over rounds of each round's median
call; in brackets, of the fastest call).

usage (from the repository root):
  git stash / checkout the old code; go build -o /tmp/gemmbench_before ./scripts/bench/gemmbench
  go build -o /tmp/gemmbench_after ./scripts/bench/gemmbench
  /usr/bin/python3 scripts/bench/sgemm_before_after.py /tmp/gemmbench_before /tmp/gemmbench_after \\
      [rounds] [level] [MxNxK,...]

level and the OpenBLAS settings are those of sgemm_compare.py (avx2: paddle
with PADDLE_CPU_KERNELS=avx2, OpenBLAS with OPENBLAS_CORETYPE=Haswell); the
shapes are sgemm_compare.py's plus the extra MxNxK ones.
"""
import statistics
import sys

import sgemm_compare as sc


def main():
    before, after = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    sc.LEVEL = sys.argv[4] if len(sys.argv) > 4 else ""
    extra = sys.argv[5].split(",") if len(sys.argv) > 5 and sys.argv[5] else []
    shapes = sc.SHAPES + [tuple(int(v) for v in s.split("x")) for s in extra]
    impls = {"before": before, "after": after, "numpy": None}
    res = {}  # (impl, shape) -> list of (median_ms, min_ms)
    for _ in range(rounds):
        for s in shapes:
            for impl, binary in impls.items():
                j = sc.run_numpy(1, *s) if binary is None else sc.run_paddle(binary, 1, *s)
                res.setdefault((impl, s), []).append((j["median_ms"], j["min_ms"]))

    def gf(s, ms):
        return 2 * s[0] * s[1] * s[2] / (ms * 1e-3) / 1e9

    print("| shape | before | after | OpenBLAS | after / before | after / OpenBLAS |")
    print("|---|---|---|---|---|---|")
    for s in shapes:
        med = {i: statistics.median(x[0] for x in res[(i, s)]) for i in impls}
        best = {i: min(x[1] for x in res[(i, s)]) for i in impls}
        cells = [f"{gf(s, med[i]):.1f} ({gf(s, best[i]):.1f})" for i in impls]
        print(f"| {'×'.join(map(str, s))} | " + " | ".join(cells)
              + f" | {med['before'] / med['after']:.2f} ({best['before'] / best['after']:.2f})"
              + f" | {med['numpy'] / med['after']:.2f} ({best['numpy'] / best['after']:.2f}) |")


if __name__ == "__main__":
    main()
