#!/usr/bin/python3
"""ocr_step_summary.py — reads the JSON lines of scripts/bench/ocr_{rec,det}_step.sh
(one per run: impl, threads, median_ms) from stdin and prints, per thread count, the
median over runs of paddle's and PyTorch's step times and paddle's over PyTorch's."""
import json
import statistics
import sys

runs = {}
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        impl = "paddle" if r["impl"] == "paddle" else "torch"
        runs.setdefault((r["threads"], impl), []).append(r["median_ms"])
for t in sorted({k[0] for k in runs}):
    p, q = runs.get((t, "paddle"), []), runs.get((t, "torch"), [])
    if p and q:
        mp, mq = statistics.median(p), statistics.median(q)
        print(json.dumps({"threads": t, "runs": min(len(p), len(q)), "paddle_ms": round(mp, 1), "torch_ms": round(mq, 1),
                          "paddle_over_torch": round(mp / mq, 2)}))
