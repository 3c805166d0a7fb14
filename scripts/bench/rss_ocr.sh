#!/usr/bin/env bash
# rss_ocr.sh [N] [SIZES] — peak RSS of one long-running OCR process over images of many sizes
# (issue 24's memory goals). Needs bin/paddle (make build) and the ppocrv4 models in the store.
#
# 1. `ocr predict`: N small synthetic text images (`paddle ocr synth --det`, lines of English
#    in the Go fonts; 1–4 lines here) in SIZES sizes from 48×32 to 256×128 (small, so that 10,000 run in minutes;
#    about as many detector input shapes, and far more recogniser widths), the sizes interleaved
#    (image i has size i mod SIZES, so the first SIZES images already meet every size; at most 20
#    distinct images per size, repeated in turn after that, to keep the set quick to make); one
#    `ocr predict -` process reads them all; at image 100, 1000, ..., N its RSS, its peak RSS over
#    the last 100 images and its peak since the start (scripts/bench/rss_ocr.py).
# 2. `serve ocr`: the same images posted one after another over loopback to one server.
# 3. The 40-page folder: 40 pages of 40 sizes from 600×800 to 2480×3508 (A4 at 300 dpi), up to
#    30 lines each, in one `ocr predict` process; peak RSS from /usr/bin/time -v.
# Environment: SKIP=predict,serve,pages leaves parts out; KEEP=DIR keeps the images in DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-10000}"; S="${2:-100}"
P="$PWD/bin/paddle"
if [ -n "${KEEP:-}" ]; then T="$KEEP"; mkdir -p "$T"; else T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT; fi
skip() { [[ ",${SKIP:-}," == *",$1,"* ]]; }

if ! skip predict || ! skip serve; then
  per=$(( (N + S - 1) / S )); (( per > 20 )) && per=20  # at most 20 distinct images per size, then repeated
  for ((i = 0; i < S; i++)); do
    w=$(( 48 + (i * 97) % 209 )); h=$(( 32 + (i * 61) % 97 ))
    lines=$(( h / 32 )); (( lines < 1 )) && lines=1
    [ -f "$T/s$i/det_gt.txt" ] || "$P" ocr synth --det --output "$T/s$i" --charset en --fonts go --count "$per" \
      --page-width "$w" --page-height "$h" --max-lines "$lines" --min-size 14 --max-size 24 --max-len 20 \
      --image-format png --seed "$((i + 1))" --clean >/dev/null 2>&1
  done
  python3 - "$T" "$N" "$S" > "$T/list" <<'PY'
import sys
t, n, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per = min((n + s - 1) // s, 20)
for i in range(n):
    print(f'{t}/s{i % s}/images/{i // s % per:06d}.png')
PY
  cps=100; for c in 1000 2500 5000 7500 10000 20000; do (( c <= N )) && cps="$cps,$c"; done
  (( N > 100 )) && [[ ",$cps," != *",$N,"* ]] && cps="$cps,$N"
  skip predict || python3 scripts/bench/rss_ocr.py predict "$P" "$T/list" "$cps" -- --offline
  skip serve || python3 scripts/bench/rss_ocr.py serve "$P" "$T/list" "$cps" -- --offline
fi

if ! skip pages; then
  for ((i = 0; i < 40; i++)); do
    w=$(( 600 + i * 1880 / 39 )); h=$(( 800 + i * 2708 / 39 ))
    [ -f "$T/p$i/det_gt.txt" ] || "$P" ocr synth --det --output "$T/p$i" --charset en --fonts go --count 1 \
      --page-width "$w" --page-height "$h" --max-lines 30 --min-size 20 --max-size 48 --max-len 40 \
      --image-format png --seed "$((i + 101))" >/dev/null 2>&1
    mkdir -p "$T/pages"; cp "$T/p$i/images/000000.png" "$T/pages/page$(printf %02d "$i").png"
  done
  /usr/bin/time -v "$P" ocr predict "$T/pages" --format jsonl --offline > "$T/pages.jsonl" 2> "$T/pages.time"
  python3 - "$T" <<'PY'
import json, re, sys
t = sys.argv[1]
tm = open(f'{t}/pages.time').read()
rows = [json.loads(l) for l in open(f'{t}/pages.jsonl')]
hwm = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', tm).group(1)) / 1024
wall = re.search(r'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)', tm).group(1)
print(json.dumps({'mode': 'pages', 'images': len(rows), 'lines': sum(len(r.get('results', [])) for r in rows),
                  'peak_rss_mb': round(hwm, 1), 'wall': wall}))
PY
fi
