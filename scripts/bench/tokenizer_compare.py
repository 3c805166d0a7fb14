#!/usr/bin/env python3
"""tokenizer_compare.py ASSETS [ROUNDS] [SECONDS]

Tokens/s of core/tokenizer (go test -bench EncodeBatch) next to the Hugging Face
library (scripts/bench/tokenizer_bench.mjs) on the golden sentences, per tokenizer
and thread count, interleaved (paddle, HF, paddle, HF, ...) for ROUNDS rounds so
both see the same machine load. Prints a markdown table: best round (median).
"""
import os, re, statistics, subprocess, sys, tempfile

assets = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
secs = sys.argv[3] if len(sys.argv) > 3 else "1"
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
names = ["qwen3", "gpt4o", "gemma3", "gpt2", "bert"]
threads = ["1", "2"]
exe = os.path.join(tempfile.mkdtemp(), "tok.test")
subprocess.run(["go", "test", "-c", "-o", exe, "./core/tokenizer/"], cwd=root, check=True)
env = dict(os.environ, PADDLE_NLP_ASSETS=assets)
res = {}
for r in range(rounds):
    for n in names:
        for t in threads:
            out = subprocess.run([exe, "-test.run", "^$", "-test.bench", f"EncodeBatch/{n}/threads={t}$",
                                  "-test.benchtime", secs + "s"], cwd=os.path.join(root, "core", "tokenizer"),
                                 env=env, capture_output=True, text=True, check=True).stdout
            m = re.search(r"([\d.]+) tokens/s", out)
            res.setdefault(("paddle", n, t), []).append(float(m.group(1)))
            out = subprocess.run(["node", "scripts/bench/tokenizer_bench.mjs", assets, secs, n, t], cwd=root,
                                 capture_output=True, text=True, check=True).stdout
            m = re.search(r"tokens/s (\d+)", out)
            res.setdefault(("hf", n, t), []).append(float(m.group(1)))
print("| impl | threads | " + " | ".join(names) + " |")
print("|---|---|" + "---|" * len(names))
for t in threads:
    for impl in ["paddle", "hf"]:
        cells = []
        for n in names:
            v = res[(impl, n, t)]
            cells.append(f"{max(v) / 1e3:.0f}k ({statistics.median(v) / 1e3:.0f}k)")
        print(f"| {'paddle' if impl == 'paddle' else 'HF tokenizers'} | {t} | " + " | ".join(cells) + " |")
