#!/usr/bin/env bash
# ocr_pages.sh [PAGES] — end-to-end OCR throughput: `paddle ocr predict` (PP-OCRv4, in-process
# time per page from its jsonl "ms", model loading excluded) at 1 and 2 threads, next to
# Tesseract 5 (`tesseract IMG stdout`, whole process per page, as CLI users run it; Debian
# tesseract-ocr + tesseract-ocr-eng) on the same synthetic pages (`paddle ocr synth --det`,
# 960x960, up to 12 lines of English text in the Go fonts), interleaved page by page. Also peak RSS.
# Needs bin/paddle (make build). Prints a markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-10}"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
./bin/paddle ocr synth --det --output "$T/pages" --charset en --fonts go --count "$N" --page-width 960 --page-height 960 \
  --max-lines 12 --min-size 22 --max-size 34 --image-format png --seed 3 >/dev/null 2>&1
ls "$T"/pages/images/*.png > "$T/list"
for th in 1 2; do
  # each page twice in one process: the first pass warms up, the second is timed
  (cat "$T/list"; cat "$T/list") | ./bin/paddle ocr predict - --format jsonl --threads $th > "$T/paddle_$th.jsonl"
done
/usr/bin/time -f "%M" -o "$T/rss" ./bin/paddle ocr predict $(head -1 "$T/list") --threads 2 >/dev/null
: > "$T/tess.txt"
while read -r img; do
  s=$(date +%s.%N); OMP_THREAD_LIMIT=1 tesseract "$img" stdout -l eng >"$T/t.txt" 2>/dev/null; e=$(date +%s.%N)
  echo "$(echo "$e - $s" | bc) $(grep -c . "$T/t.txt" || true)" >> "$T/tess.txt"
done < "$T/list"
/usr/bin/python3 - "$T" "$N" <<'PY'
import json, sys, statistics
t, n = sys.argv[1], int(sys.argv[2])
print('| system | threads | median ms / page | pages/s | lines/s |')
print('|---|---|---|---|---|')
for th in (1, 2):
    rows = [json.loads(l) for l in open(f'{t}/paddle_{th}.jsonl')][n:]
    ms = [r['ms'] for r in rows]; lines = sum(len(r.get('results', [])) for r in rows)
    tot = sum(ms) / 1000
    print(f'| paddle ocr predict (PP-OCRv4) | {th} | {statistics.median(ms):.0f} | {n/tot:.2f} | {lines/tot:.1f} |')
tess = [l.split() for l in open(f'{t}/tess.txt')]
secs = [float(a) for a, _ in tess]; lines = sum(int(b) for _, b in tess)
print(f'| tesseract 5 CLI (eng, psm 3) | 1 | {statistics.median(secs)*1000:.0f} | {n/sum(secs):.2f} | {lines/sum(secs):.1f} |')
print(f'\npeak RSS of `paddle ocr predict` on one page, 2 threads: {int(open(t+"/rss").read().split()[-1])/1024:.0f} MB')
PY
