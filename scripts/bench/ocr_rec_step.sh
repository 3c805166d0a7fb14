#!/usr/bin/env bash
# ocr_rec_step.sh — a recognition training step (batch 64, 3x48x320, the CRNN of
# configs/ocr/rec_crnn_en.yaml, Adam) in paddle next to PyTorch CPU running the same
# architecture and step (Debian python3-torch), at the same thread counts. Runs are
# interleaved (paddle, PyTorch, paddle, ... for each thread count, RUNS times) so both
# see the same load; each run prints one JSON line with its median step; the last lines
# give, per thread count, the median over runs of each and paddle's over PyTorch's.
#
# Usage: scripts/bench/ocr_rec_step.sh [THREADS...]   (default: 1 2)
# Env: RUNS (3), SECONDS_PER (timed seconds per run, default 10; 0: 3 steps after 2
#      warm-up steps), BATCH (64), WIDTH (320).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS="${RUNS:-3}"; SECS="${SECONDS_PER:-10}"; BATCH="${BATCH:-64}"; WIDTH="${WIDTH:-320}"
[ $# -gt 0 ] || set -- 1 2
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "ocr_rec_step: needs python3-torch (apt-get install python3-torch)" >&2; exit 1; }
bin=$(mktemp -d)/ocr_rec_step
go build -o "$bin" ./scripts/bench/ocr_rec_step
log=$(mktemp)
for _ in $(seq "$RUNS"); do
  for t in "$@"; do
    "$bin" -threads "$t" -seconds "$SECS" -batch "$BATCH" -width "$WIDTH" | tee -a "$log"
    /usr/bin/python3 scripts/bench/ocr_rec_step_torch.py --threads "$t" --seconds "$SECS" --batch "$BATCH" --width "$WIDTH" | tee -a "$log"
  done
done
/usr/bin/python3 scripts/bench/ocr_step_summary.py < "$log"
