#!/usr/bin/env bash
# ppocrv4_golden.sh — ONNX Runtime outputs of the PP-OCRv4 det/rec/cls models on
# small fixed inputs, for core/runtime's tests (testdata/ppocrv4_*.npy).
#
# Inputs are not stored; the Go test recomputes them:
#   noise: element i (row-major) is float32(((i*7919) mod 1000)/500 - 1)
#   text:  a white page with dark text-like stripes, normalised like PP-OCR det:
#          v = 0.1 where (y//8)%3 == 1 and x%6 < 3 and W/8 < x < 7W/8, else 0.95;
#          channel c = float32((v - mean[c]) / std[c]), mean (0.485, 0.456, 0.406),
#          std (0.229, 0.224, 0.225) Needs the models (scripts/fetch_ppocrv4.sh),
# onnxruntime-node (scripts/ref/setup_ort.sh) and Debian's python3-numpy.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ASSETS="${PPOCRV4_DIR:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2/package/assets}"
OUT="$ROOT/core/runtime/testdata"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$HERE/setup_ort.sh" >/dev/null 2>&1 || "$HERE/setup_ort.sh"

# name model shape input
CASES="det_1x3x96x128 ch_PP-OCRv4_det_infer.onnx 1,3,96,128 text
det_1x3x160x160 ch_PP-OCRv4_det_infer.onnx 1,3,160,160 text
rec_2x3x48x64 ch_PP-OCRv4_rec_infer.onnx 2,3,48,64 noise
cls_2x3x48x192 ch_ppocr_mobile_v2.0_cls_infer.onnx 2,3,48,192 noise"

mkdir -p "$OUT"
rm -f "$OUT"/ppocrv4_*.npy
while read -r name model shape kind; do
  /usr/bin/python3 - "$TMP/$name.in.npy" "$shape" "$kind" <<'PY'
import sys, numpy as np
shape = tuple(int(s) for s in sys.argv[2].split(','))
if sys.argv[3] == 'noise':
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    x = (((i * 7919) % 1000) / 500.0 - 1.0).astype(np.float32).reshape(shape)
else:
    n, c, h, w = shape
    y, xx = np.meshgrid(np.arange(h), np.arange(w), indexing='ij')
    dark = ((y // 8) % 3 == 1) & (xx % 6 < 3) & (xx * 8 > w) & (xx * 8 < 7 * w)
    v = np.where(dark, 0.1, 0.95)
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    x = np.stack([((v - mean[k]) / std[k]).astype(np.float32) for k in range(c)])[None].repeat(n, 0)
np.save(sys.argv[1], x)
PY
  node "$HERE/ort_run.mjs" --threads 1 "$ASSETS/$model" "$TMP/$name" "x=$TMP/$name.in.npy" >/dev/null
  out=("$TMP/$name"/*.npy)
  cp "${out[0]}" "$OUT/ppocrv4_$name.npy"
  echo "ppocrv4_golden: $OUT/ppocrv4_$name.npy" >&2
done <<< "$CASES"
