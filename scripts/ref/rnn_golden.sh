#!/usr/bin/env bash
# rnn_golden.sh — ONNX Runtime outputs of paddle's exported bidirectional
# LSTM + GRU test model (core/runtime/rnn_test.go) at sequence lengths 3 and 7,
# written to core/runtime/testdata/rnn_T*_*.npy. The Go test itself writes the
# exported model and its inputs (PADDLE_RNN_DUMP); ONNX Runtime runs them.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$HERE/setup_ort.sh" >/dev/null 2>&1 || "$HERE/setup_ort.sh"
(cd "$ROOT" && PADDLE_RNN_DUMP="$TMP" go test ./core/runtime -run TestBiRNNExportMatchesORT -count=1 >/dev/null)
for T in 3 7; do
  node "$HERE/ort_run.mjs" --threads 1 "$TMP/birnn.onnx" "$TMP/out$T" "x=$TMP/T${T}_x.npy" "lens=$TMP/T${T}_lens.npy" >/dev/null
  for f in "$TMP/out$T"/*.npy; do cp "$f" "$ROOT/core/runtime/testdata/rnn_T${T}_$(basename "$f")"; done
done
echo "rnn_golden: core/runtime/testdata/rnn_T{3,7}_*.npy" >&2
