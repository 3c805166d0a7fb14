#!/usr/bin/env bash
# ppocrv4_latency.sh [ROUNDS] — PP-OCRv4 det/rec/cls latency of paddle's runtime next to ONNX
# Runtime (onnxruntime-node 1.30), same inputs, same threads, interleaved case by case in one run.
# Needs: bin/paddle (make build), scripts/fetch_ppocrv4.sh, scripts/ref/setup_ort.sh (inputs: scripts/bench/randnpy.py, no NumPy)
# (/usr/bin/python3). Prints a markdown table (medians over rounds of per-round medians).
# LEVELS="avx2 avx512" runs paddle once per kernel level (PADDLE_CPU_KERNELS), a column each;
# BASE=path/to/paddle adds a column for another build at the first level (a "before");
# RUNS sets the runs per measurement (default 10). MODELS=DIR and CASES="name:file:shape ..." time
# other files (e.g. the int8 QDQ files of `paddle model quantize`, which ONNX Runtime runs too).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${1:-3}"; RUNS="${RUNS:-10}"; LEVELS="${LEVELS:-}"; BASE="${BASE:-}"
M="${MODELS:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2/package/assets}"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
cases="${CASES:-det_640:ch_PP-OCRv4_det_infer.onnx:1,3,640,640 det_960:ch_PP-OCRv4_det_infer.onnx:1,3,960,960 rec_b1_320:ch_PP-OCRv4_rec_infer.onnx:1,3,48,320 rec_b6_320:ch_PP-OCRv4_rec_infer.onnx:6,3,48,320 cls_b6_192:ch_ppocr_mobile_v2.0_cls_infer.onnx:6,3,48,192}"
for c in $cases; do
  IFS=: read -r name model shape <<<"$c"
  python3 scripts/bench/randnpy.py "$T/$name.npy" "$shape"
done
cols=""; [ -n "$BASE" ] && cols="before_${LEVELS%% *}"
for l in ${LEVELS:-default}; do cols="$cols $l"; done
echo "case,threads,round,col,ms" > "$T/raw.csv"
pbench() { # binary level model input threads
  local env=(); [ "$2" != default ] && env=(PADDLE_CPU_KERNELS="$2")
  env "${env[@]}" "$1" model run "$M/$3" --input "x=$4" --output "$T/out" --bench $RUNS --threads "$5" --format json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])'
}
for r in $(seq "$ROUNDS"); do
  for c in $cases; do
    IFS=: read -r name model shape <<<"$c"
    for th in 1 2; do
      for col in $cols; do
        case $col in
          before_*) p=$(pbench "$BASE" "${col#before_}" "$model" "$T/$name.npy" $th) ;;
          *) p=$(pbench ./bin/paddle "$col" "$model" "$T/$name.npy" $th) ;;
        esac
        echo "$name,$th,$r,$col,$p" >> "$T/raw.csv"
      done
      o=$(node scripts/bench/ort_latency.mjs "$M/$model" "$T/$name.npy" $th $RUNS | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')
      echo "$name,$th,$r,ort,$o" >> "$T/raw.csv"
    done
  done
done
/usr/bin/python3 - "$T/raw.csv" <<'PY'
import csv, statistics, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
g = collections.defaultdict(lambda: collections.defaultdict(list))
cols = []
for r in rows:
    g[(r['case'], r['threads'])][r['col']].append(float(r['ms']))
    if r['col'] != 'ort' and r['col'] not in cols:
        cols.append(r['col'])
name = lambda c: 'paddle' if c == 'default' else f'paddle `{c}`'
print('| case | threads | ' + ' | '.join(f'{name(c)} ms' for c in cols) + ' | ONNX Runtime ms | ' + ' | '.join(f'{name(c)} / ORT' for c in cols) + ' |')
print('|---|---|' + '---|' * (2 * len(cols) + 1))
for (case, th), v in g.items():
    med = {c: statistics.median(x) for c, x in v.items()}
    print(f'| {case} | {th} | ' + ' | '.join(f'{med[c]:.1f}' for c in cols) + f" | {med['ort']:.1f} | " + ' | '.join(f"{med[c]/med['ort']:.2f}×" for c in cols) + ' |')
PY
