#!/usr/bin/env bash
# ocr_det_step.sh — a detection training step (batch 8, 3x640x640, the DB network of
# configs/ocr/det_db_lcnet.yaml, Adam) in paddle next to PyTorch CPU running the same
# architecture and step (Debian python3-torch), at the same thread counts. Runs are
# interleaved (paddle, PyTorch, paddle, ... for each thread count, RUNS times) so both
# see the same load; each run prints one JSON line with its median step; the last lines
# give, per thread count, the median over runs of each and paddle's over PyTorch's.
#
# Usage: scripts/bench/ocr_det_step.sh [THREADS...]   (default: 1 2)
# Env: RUNS (3), SECONDS_PER (timed seconds per run, default 0: 3 steps after 2
#      warm-up steps), BATCH (8), SIZE (640).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS="${RUNS:-3}"; SECS="${SECONDS_PER:-0}"; BATCH="${BATCH:-8}"; SIZE="${SIZE:-640}"
[ $# -gt 0 ] || set -- 1 2
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "ocr_det_step: needs python3-torch (apt-get install python3-torch)" >&2; exit 1; }
bin=$(mktemp -d)/ocr_det_step
go build -o "$bin" ./scripts/bench/ocr_det_step
log=$(mktemp)
for _ in $(seq "$RUNS"); do
  for t in "$@"; do
    "$bin" -threads "$t" -seconds "$SECS" -batch "$BATCH" -size "$SIZE" | tee -a "$log"
    /usr/bin/python3 scripts/bench/ocr_det_step_torch.py --threads "$t" --seconds "$SECS" --batch "$BATCH" --size "$SIZE" | tee -a "$log"
  done
done
/usr/bin/python3 scripts/bench/ocr_step_summary.py < "$log"
