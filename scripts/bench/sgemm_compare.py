#!/usr/bin/env python3
"""Measures paddle's SGEMM (scripts/bench/gemmbench = `paddle bench gemm`)
and numpy/OpenBLAS side by side, interleaved by shape and round, 1 and 2
threads, and prints the markdown table of docs/BENCHMARKS.md (SGEMM).

usage (from the repository root):
  go build -o /tmp/gemmbench ./scripts/bench/gemmbench
  /usr/bin/python3 scripts/bench/sgemm_compare.py /tmp/gemmbench [rounds] [level]

numpy runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (OpenBLAS picks
its AVX-512 kernel) and OPENBLAS_NUM_THREADS = threads. With level avx2,
paddle runs with PADDLE_CPU_KERNELS=avx2 and OpenBLAS with
OPENBLAS_CORETYPE=Haswell (its AVX2 kernels); any other level is passed to
PADDLE_CPU_KERNELS alone. Per cell: GFLOP/s of
the median over rounds of each round's median call time; (best) from the
fastest call seen.
"""
import json
import os
import statistics
import subprocess
import sys

SHAPES = [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
          (64, 3136, 576), (256, 196, 2304), (32, 102400, 27)]
HERE = os.path.dirname(os.path.abspath(__file__))


LEVEL = sys.argv[3] if len(sys.argv) > 3 else ""


def run_paddle(binary, t, m, n, k):
    env = dict(os.environ)
    if LEVEL:
        env["PADDLE_CPU_KERNELS"] = LEVEL
    out = subprocess.run([binary, "--threads", str(t), "--format", "json", "gemm",
                          "--m", str(m), "--n", str(n), "--k", str(k)],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def run_numpy(t, m, n, k):
    env = dict(os.environ)
    for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(v, None)
    if LEVEL == "avx2":
        env["OPENBLAS_CORETYPE"] = "Haswell"
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(t)
    out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "sgemm_numpy.py"), str(t), f"{m}x{n}x{k}"],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    res = {}  # (impl, t, shape) -> list of (median_ms, min_ms)
    for r in range(rounds):
        for t in (1, 2):
            for s in SHAPES:
                for impl in ("paddle", "numpy"):
                    j = run_paddle(binary, t, *s) if impl == "paddle" else run_numpy(t, *s)
                    res.setdefault((impl, t, s), []).append((j["median_ms"], j["min_ms"]))
                    print(f"round {r} {impl} t={t} {s}: {j['gflops']:.1f} GFLOP/s", file=sys.stderr, flush=True)

    def gf(s, ms):
        return 2 * s[0] * s[1] * s[2] / (ms * 1e-3) / 1e9

    head = "| impl | threads | " + " | ".join("×".join(map(str, s)) for s in SHAPES) + " |"
    print(head)
    print("|" + "---|" * (2 + len(SHAPES)))
    for t in (1, 2):
        for impl in ("paddle", "numpy"):
            cells = []
            for s in SHAPES:
                v = res[(impl, t, s)]
                cells.append(f"{gf(s, statistics.median(x[0] for x in v)):.1f} ({gf(s, min(x[1] for x in v)):.1f})")
            print(f"| {impl} | {t} | " + " | ".join(cells) + " |")
    print()
    print("| ratio paddle/numpy | threads | " + " | ".join("×".join(map(str, s)) for s in SHAPES) + " |")
    print("|" + "---|" * (2 + len(SHAPES)))
    for t in (1, 2):
        med, best = [], []
        for s in SHAPES:
            p, n = res[("paddle", t, s)], res[("numpy", t, s)]
            med.append(statistics.median(x[0] for x in n) / statistics.median(x[0] for x in p))
            best.append(min(x[1] for x in n) / min(x[1] for x in p))
        print(f"| median (best) | {t} | " + " | ".join(f"{a:.2f} ({b:.2f})" for a, b in zip(med, best)) + " |")


if __name__ == "__main__":
    main()
