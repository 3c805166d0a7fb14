#!/usr/bin/python3
"""trainbench_torch.py — the PyTorch side of scripts/bench/trainbench: one training step of
SmallCNN b64 and CRNN b32 exactly as ../shared/bench/scripts/torchbench/train.py builds them
(its model and step definitions are read from that file, not copied), timed by steptime
(wall and CPU time per step), one JSON line per model like trainbench's.

Usage: OMP_NUM_THREADS=T /usr/bin/python3 scripts/bench/trainbench_torch.py \\
           [--train-py PATH] [--threads T] [--seconds S] [--model smallcnn_b64|crnn_b32]

To hold PyTorch to the AVX2 level set all three switches: ATEN_CPU_CAPABILITY=avx2 (ATen's own
kernels), ONEDNN_MAX_CPU_ISA=AVX2 (oneDNN, which runs the convolutions and otherwise picks
AVX-512 whatever ATen's level is) and OPENBLAS_CORETYPE=Haswell (the BLAS under the LSTM and
linear layers)."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from steptime import time_steps  # noqa: E402

ap = argparse.ArgumentParser()
here = os.path.dirname(os.path.abspath(__file__))
ap.add_argument("--train-py", default=os.path.join(here, "../../../shared/bench/scripts/torchbench/train.py"),
                help="train.py of the shared bench scripts (default: ../shared next to the repository)")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--seconds", type=float, default=4)
ap.add_argument("--model", default="")
args = ap.parse_args()
torch.set_num_threads(args.threads)

src = open(args.train_py).read()
cut = src.find("\nmodels = setup()")
if cut < 0:
    sys.exit(f"trainbench_torch: {args.train_py}: no 'models = setup()' line to stop before")
ns = {"__name__": "train_defs"}
sys.argv = [args.train_py, str(args.threads)]
exec(compile(src[:cut], args.train_py, "exec"), ns)
for name, _, train_fn, _ in ns["setup"]():
    if name.startswith("transformer") or (args.model and name != args.model):
        continue
    time_steps(train_fn, args.seconds, {"impl": "torch", "model": name, "threads": args.threads}, warmup=3)
