#!/usr/bin/env bash
# ocr_int8_accuracy.sh — PP-OCRv4 fp32 against `--precision int8` on the held-out sets of
# scripts/ocr_heldout.sh (none of them is used for calibration: the int8 models calibrate on
# pages and lines the binary renders itself, kits/ocr/int8.go), scored by scripts/bench/ocrlines:
# lines (--det=false) char accuracy / exact, pages end to end plus the detector's hmean.
# Usage: scripts/bench/ocr_int8_accuracy.sh HELDOUT [SETS...]  (default sets: all line sets and pages)
# Env: PADDLE (binary, default bin/paddle), LINES (lines per set, default all), EXTRA (more predict flags).
set -euo pipefail
cd "$(dirname "$0")/../.."
H="$1"; shift
SETS="${*:-en-test doc-test zh-test en-dev zh-dev en-pages zh-pages}"
P="${PADDLE:-bin/paddle}"
S=$(mktemp -d); trap 'rm -rf "$S"' EXIT
go build -o "$S/ocrlines" ./scripts/bench/ocrlines
printf '%-9s %-9s %s\n' set precision score
for set in $SETS; do
  d="$H/$set"; pages=false; gt="$d/rec_gt.txt"; det=--det=false
  if [ -s "$d/det_gt.txt" ]; then pages=true; gt="$d/det_gt.txt"; det=; fi
  head -n "${LINES:-100000}" "$gt" > "$S/gt.txt"
  cp "$S/gt.txt" "$d/.gt_subset.txt"
  for prec in fp32 int8; do
    cut -f1 "$S/gt.txt" | sed "s#^#$d/#" \
      | $P ocr predict $det --precision $prec --format jsonl ${EXTRA:-} - 2>"$S/err" \
      | "$S/ocrlines" -pages="$pages" -gt "$d/.gt_subset.txt" > "$S/r.json" || { cat "$S/err" >&2; exit 1; }
    printf '%-9s %-9s %s\n' "$set" "$prec" "$(cat "$S/r.json")"
  done
  rm -f "$d/.gt_subset.txt"
done
