#!/usr/bin/env bash
# ocr_rec_step.sh — a recognition training step (batch 64, 3x48x320, the CRNN of
# configs/ocr/rec_crnn_en.yaml, Adam) in paddle next to PyTorch CPU running the same
# architecture and step (Debian python3-torch), at the same thread counts. Each prints
# one JSON line; the last line gives paddle's median over PyTorch's per thread count.
# Numbers mean something only on an otherwise idle machine.
#
# Usage: scripts/bench/ocr_rec_step.sh [THREADS...]   (default: 1 2)
# Env: SECONDS_PER (timed seconds per run, default 10), BATCH (64), WIDTH (320).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS="${SECONDS_PER:-10}"; BATCH="${BATCH:-64}"; WIDTH="${WIDTH:-320}"
[ $# -gt 0 ] || set -- 1 2
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "ocr_rec_step: needs python3-torch (apt-get install python3-torch)" >&2; exit 1; }
bin=$(mktemp -d)/ocr_rec_step
go build -o "$bin" ./scripts/bench/ocr_rec_step
for t in "$@"; do
  p=$("$bin" -threads "$t" -seconds "$SECS" -batch "$BATCH" -width "$WIDTH")
  q=$(/usr/bin/python3 scripts/bench/ocr_rec_step_torch.py --threads "$t" --seconds "$SECS" --batch "$BATCH" --width "$WIDTH")
  echo "$p"; echo "$q"
  /usr/bin/python3 -c 'import json,sys; p,q=(json.loads(s) for s in sys.argv[1:]); print(json.dumps({"threads": p["threads"], "paddle_over_torch": round(p["median_ms"]/q["median_ms"], 2)}))' "$p" "$q"
done
