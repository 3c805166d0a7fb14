#!/usr/bin/env bash
# ppocrv4_golden.sh — ONNX Runtime outputs of the PP-OCRv4 det/rec/cls models on
# small fixed inputs, for core/runtime's tests (testdata/ppocrv4_*.npy).
#
# Inputs are not stored: element i (row-major) of every input is
#   float32(((i*7919) mod 1000)/500 - 1)
# which the Go test recomputes. Needs the models (scripts/fetch_ppocrv4.sh),
# onnxruntime-node (scripts/ref/setup_ort.sh) and Debian's python3-numpy.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ASSETS="${PPOCRV4_DIR:-${PADDLE_CACHE:-$HOME/.cache/paddle}/npm/ocr-models-1.4.2/package/assets}"
OUT="$ROOT/core/runtime/testdata"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$HERE/setup_ort.sh" >/dev/null 2>&1 || "$HERE/setup_ort.sh"

# name model shape
CASES="det_1x3x64x96 ch_PP-OCRv4_det_infer.onnx 1,3,64,96
det_1x3x96x128 ch_PP-OCRv4_det_infer.onnx 1,3,96,128
rec_2x3x48x64 ch_PP-OCRv4_rec_infer.onnx 2,3,48,64
cls_2x3x48x192 ch_ppocr_mobile_v2.0_cls_infer.onnx 2,3,48,192"

mkdir -p "$OUT"
while read -r name model shape; do
  /usr/bin/python3 - "$TMP/$name.in.npy" "$shape" <<'PY'
import sys, numpy as np
shape = tuple(int(s) for s in sys.argv[2].split(','))
i = np.arange(int(np.prod(shape)), dtype=np.int64)
x = (((i * 7919) % 1000) / 500.0 - 1.0).astype(np.float32).reshape(shape)
np.save(sys.argv[1], x)
PY
  node "$HERE/ort_run.mjs" --threads 1 "$ASSETS/$model" "$TMP/$name" "x=$TMP/$name.in.npy" >/dev/null
  out=("$TMP/$name"/*.npy)
  cp "${out[0]}" "$OUT/ppocrv4_$name.npy"
  echo "ppocrv4_golden: $OUT/ppocrv4_$name.npy" >&2
done <<< "$CASES"
