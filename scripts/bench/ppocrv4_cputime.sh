#!/usr/bin/env bash
# ppocrv4_cputime.sh [ROUNDS] — PP-OCRv4 det/rec/cls CPU time per run (user+sys) of paddle's runtime
# next to ONNX Runtime at 1 thread, interleaved case by case: for a machine too loaded for wall-clock
# latency (ppocrv4_latency.sh), where a descheduled process's wall time says little. Per case and
# column: (CPU of a process that runs RUNS+1 times − CPU of one that runs once) / RUNS for paddle
# (`model run --bench RUNS` against a plain `model run`), (CPU of RUNS runs − CPU of 0) / RUNS for
# ONNX Runtime (scripts/bench/ort_latency.mjs). LEVELS and BASE as in ppocrv4_latency.sh; RUNS
# defaults to 5 (det, rec batch 6), 4×RUNS for the short rec batch 1 and cls (time(1) counts in
# 10 ms steps). Prints a markdown table of the medians over rounds.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${1:-3}"; RUNS="${RUNS:-5}"; LEVELS="${LEVELS:-}"; BASE="${BASE:-}"
M="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2/package/assets"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
cases="det_640:ch_PP-OCRv4_det_infer.onnx:1,3,640,640:1 det_960:ch_PP-OCRv4_det_infer.onnx:1,3,960,960:1 rec_b1_320:ch_PP-OCRv4_rec_infer.onnx:1,3,48,320:4 rec_b6_320:ch_PP-OCRv4_rec_infer.onnx:6,3,48,320:1 cls_b6_192:ch_ppocr_mobile_v2.0_cls_infer.onnx:6,3,48,192:4"
for c in $cases; do
  IFS=: read -r name model shape _ <<<"$c"
  python3 scripts/bench/randnpy.py "$T/$name.npy" "$shape"
done
cols=""; [ -n "$BASE" ] && cols="before_${LEVELS%% *}"
for l in ${LEVELS:-default}; do cols="$cols $l"; done
cpu() { /usr/bin/time -f "%U %S" -o "$T/time" "$@" >/dev/null; awk '{print $1 + $2}' "$T/time"; }
pcpu() { # binary level model input runs
  local env=(); [ "$2" != default ] && env=(PADDLE_CPU_KERNELS="$2")
  local one many
  one=$(cpu env "${env[@]}" "$1" model run "$M/$3" --input "x=$4" --output "$T/out" --threads 1)
  many=$(cpu env "${env[@]}" "$1" model run "$M/$3" --input "x=$4" --output "$T/out" --threads 1 --bench "$5")
  echo "($many - $one) * 1000 / $5" | bc -l
}
echo "case,round,col,ms" > "$T/raw.csv"
for r in $(seq "$ROUNDS"); do
  for c in $cases; do
    IFS=: read -r name model shape mult <<<"$c"
    n=$((RUNS * mult))
    for col in $cols; do
      case $col in
        before_*) p=$(pcpu "$BASE" "${col#before_}" "$model" "$T/$name.npy" $n) ;;
        *) p=$(pcpu ./bin/paddle "$col" "$model" "$T/$name.npy" $n) ;;
      esac
      echo "$name,$r,$col,$p" >> "$T/raw.csv"
    done
    zero=$(cpu node scripts/bench/ort_latency.mjs "$M/$model" "$T/$name.npy" 1 0)
    many=$(cpu node scripts/bench/ort_latency.mjs "$M/$model" "$T/$name.npy" 1 $n)
    echo "$name,$r,ort,$(echo "($many - $zero) * 1000 / $n" | bc -l)" >> "$T/raw.csv"
    tail -n $(( $(wc -w <<<"$cols") + 1 )) "$T/raw.csv" >&2
  done
done
/usr/bin/python3 - "$T/raw.csv" <<'PY'
import csv, statistics, sys, collections
g = collections.defaultdict(lambda: collections.defaultdict(list))
cols = []
for r in csv.DictReader(open(sys.argv[1])):
    g[r['case']][r['col']].append(float(r['ms']))
    if r['col'] != 'ort' and r['col'] not in cols:
        cols.append(r['col'])
name = lambda c: 'paddle' if c == 'default' else f'paddle `{c}`'
print('| case (1 thread, CPU ms per run) | ' + ' | '.join(name(c) for c in cols) + ' | ONNX Runtime | ' + ' | '.join(f'{name(c)} / ORT' for c in cols) + ' |')
print('|---|' + '---|' * (2 * len(cols) + 1))
for case, v in g.items():
    med = {c: statistics.median(x) for c, x in v.items()}
    print(f'| {case} | ' + ' | '.join(f'{med[c]:.1f}' for c in cols) + f" | {med['ort']:.1f} | " + ' | '.join(f"{med[c]/med['ort']:.2f}×" for c in cols) + ' |')
PY
