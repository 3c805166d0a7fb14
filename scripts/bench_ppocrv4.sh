#!/usr/bin/env bash
# bench_ppocrv4.sh [N] — PP-OCRv4 latency of paddle's runtime next to ONNX Runtime,
# measured in the same run on this machine, with 1 and 2 threads; prints the
# markdown table of docs/BENCHMARKS.md. Needs the models (scripts/fetch_ppocrv4.sh)
# and onnxruntime-node (scripts/ref/setup_ort.sh). paddle's numbers are Go
# benchmark means over N runs (default 5) after a warm-up; ORT's are medians.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
N="${1:-5}"
ASSETS="${PPOCRV4_DIR:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2/package/assets}"
"$HERE/ref/setup_ort.sh" >/dev/null 2>&1
echo "| model | input | threads | paddle ms | ONNX Runtime median ms | ratio |"
echo "|---|---|---|---|---|---|"
for t in 1 2; do
  out="$(cd "$ROOT" && PADDLE_BENCH_THREADS=$t go test ./core/runtime -run '^$' -bench PPOCRv4 -benchtime "${N}x" -count 1)"
  while read -r name model shape; do
    ns="$(echo "$out" | awk -v n="BenchmarkPPOCRv4/$name" '$1 ~ n {print $3; exit}')"
    ort="$(node "$HERE/ref/ort_bench.mjs" "$ASSETS/$model" x "$shape" "$t" "$N")"
    ortms="$(echo "$ort" | sed -E 's/.*"median_ms":([0-9.]+).*/\1/')"
    awk -v m="${name%%_*}" -v s="$shape" -v t="$t" -v ns="$ns" -v o="$ortms" \
      'BEGIN { p = ns / 1e6; printf "| %s | %s | %d | %.1f | %.1f | %.1f× |\n", m, s, t, p, o, p / o }'
  done <<'CASES'
det_1x3x640x640 ch_PP-OCRv4_det_infer.onnx 1x3x640x640
det_1x3x960x960 ch_PP-OCRv4_det_infer.onnx 1x3x960x960
rec_1x3x48x320 ch_PP-OCRv4_rec_infer.onnx 1x3x48x320
rec_6x3x48x320 ch_PP-OCRv4_rec_infer.onnx 6x3x48x320
cls_6x3x48x192 ch_ppocr_mobile_v2.0_cls_infer.onnx 6x3x48x192
CASES
done
