#!/usr/bin/env bash
# ppocrv4_latency.sh [ROUNDS] — PP-OCRv4 det/rec/cls latency of paddle's runtime next to ONNX
# Runtime (onnxruntime-node 1.30), same inputs, same threads, interleaved case by case in one run.
# Needs: bin/paddle (make build), scripts/fetch_ppocrv4.sh, scripts/ref/setup_ort.sh, numpy
# (/usr/bin/python3). Prints a markdown table (medians over rounds of per-round medians).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${1:-3}"; RUNS=10
M="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2/package/assets"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
cases="det_640:ch_PP-OCRv4_det_infer.onnx:1,3,640,640 det_960:ch_PP-OCRv4_det_infer.onnx:1,3,960,960 rec_b1_320:ch_PP-OCRv4_rec_infer.onnx:1,3,48,320 rec_b6_320:ch_PP-OCRv4_rec_infer.onnx:6,3,48,320 cls_b6_192:ch_ppocr_mobile_v2.0_cls_infer.onnx:6,3,48,192"
for c in $cases; do
  IFS=: read -r name model shape <<<"$c"
  /usr/bin/python3 -c "import numpy as np; np.save('$T/$name.npy', np.random.RandomState(7).uniform(-1,1,($shape)).astype('float32'))"
done
echo "case,threads,round,paddle_ms,ort_ms" > "$T/raw.csv"
for r in $(seq "$ROUNDS"); do
  for c in $cases; do
    IFS=: read -r name model shape <<<"$c"
    for th in 1 2; do
      p=$(./bin/paddle model run "$M/$model" --input "x=$T/$name.npy" --output "$T/out" --bench $RUNS --threads $th --format json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')
      o=$(node scripts/bench/ort_latency.mjs "$M/$model" "$T/$name.npy" $th $RUNS | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')
      echo "$name,$th,$r,$p,$o" >> "$T/raw.csv"
    done
  done
done
/usr/bin/python3 - "$T/raw.csv" <<'PY'
import csv, statistics, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
g = collections.defaultdict(lambda: ([], []))
for r in rows:
    g[(r['case'], r['threads'])][0].append(float(r['paddle_ms'])); g[(r['case'], r['threads'])][1].append(float(r['ort_ms']))
print('| case | threads | paddle ms | ONNX Runtime ms | paddle / ORT |')
print('|---|---|---|---|---|')
for (case, th), (p, o) in g.items():
    pm, om = statistics.median(p), statistics.median(o)
    print(f'| {case} | {th} | {pm:.1f} | {om:.1f} | {pm/om:.2f}× |')
PY
