#!/usr/bin/env bash
# ocr_heldout.sh — the held-out line sets of docs/ocr.md ("Languages"): rendered lines with known
# text for measuring recognisers, never used for training. Dev (choosing thresholds) and test
# (reported figures) differ in fonts, text sources and seeds:
#   en-dev:  fortunes en (computers, science, work, people) in DejaVu Sans/Serif/Mono and the Go fonts
#   en-test: Brown corpus (tags stripped) in Liberation, FreeFont, Carlito, Open Sans
#   zh-dev:  fortunes zh/chinese, even lines, in Droid Sans Fallback
#   zh-test: fortunes zh/chinese odd lines and tang300, in AR PL SungtiL GB
#   doc-dev, doc-test: like en-dev and en-test with --doc 0.7 (prices, dates, e-mails, URLs, codes...)
#   en-pages: N/10 pages (960x960, up to 12 lines) of en-test's text and fonts, det labels
#   zh-pages: N/10 pages like en-pages of zh-test's text and font
# Usage: scripts/ocr_heldout.sh [OUT] (default ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/ocr_heldout)
# Env: N (lines per set, 300), PADDLE (binary, default bin/paddle).
# Needs: fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-crosextra-carlito
#        fonts-open-sans fonts-droid-fallback fonts-arphic-gbsn00lp; the fortunes and brown data of scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
C="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
OUT="${1:-$C/ocr_heldout}"
N="${N:-300}"
P="${PADDLE:-bin/paddle}"
D=/usr/share/fonts/truetype
# the test fonts; Carlito by file: fonts-crosextra-caladea (a training font of
# scripts/train_rec_ppocrv4_en.sh) installs into the same folder
TEST_FONTS="$D/liberation2,$D/freefont,$(ls "$D"/crosextra/Carlito-* | paste -sd,),$D/open-sans"
FO="$C/data/fortunes"
mkdir -p "$OUT"
t="$OUT/text"
mkdir -p "$t"
# English dev: fortunes; test: Brown corpus sentences without their tags.
cat "$FO"/en/{computers,science,work,people} | grep -v '^%$' | grep -P '^[\x20-\x7e]+$' | sed 's/^ *//' > "$t/en-dev.txt"
cat "$C"/data/brown/c[a-r]?? | sed -E 's#([^ ]+)/[^ ]+#\1#g; s/``/"/g; s/'"''"'/"/g; s/ ([.,;:?!])/\1/g' \
  | tr -s ' \t' ' ' | sed 's/^ *//' | grep -P '^[\x20-\x7e]{8,}$' > "$t/en-test.txt"
# Chinese (mixed with Latin where the text has it): fortunes zh, colour codes stripped.
zh() { sed -E 's/\x1b\[[0-9;]*m//g' "$@" | grep -v '^%$' | tr -s ' \t' ' ' | sed 's/^ *//' | grep -P '[^\x00-\x7f]'; }
zh "$FO/zh/chinese" | awk 'NR % 2 == 0' > "$t/zh-dev.txt"
{ zh "$FO/zh/chinese" | awk 'NR % 2 == 1'; zh "$FO/zh/tang300"; } > "$t/zh-test.txt"
KEYS="$C/models/ppocrv4/ppocr_keys_v1.txt"
[ -s "$KEYS" ] || $P model pull ppocrv4 >/dev/null
synth() { [ -s "$1/rec_gt.txt" ] || $P ocr synth --output "$@" --count "$N" --min-size 20 --max-size 40 >/dev/null; }
synth "$OUT/en-dev" --corpus "$t/en-dev.txt" --charset en --max-len 40 --seed 101 \
  --fonts "$D/dejavu/DejaVuSans.ttf,$D/dejavu/DejaVuSerif.ttf,$D/dejavu/DejaVuSansMono.ttf,$D/dejavu/DejaVuSans-Bold.ttf,go"
synth "$OUT/en-test" --corpus "$t/en-test.txt" --charset en --max-len 40 --seed 102 \
  --fonts "$TEST_FONTS"
synth "$OUT/doc-dev" --corpus "$t/en-dev.txt" --charset en --doc 0.7 --max-len 40 --seed 106 \
  --fonts "$D/dejavu/DejaVuSans.ttf,$D/dejavu/DejaVuSerif.ttf,$D/dejavu/DejaVuSansMono.ttf,$D/dejavu/DejaVuSans-Bold.ttf,go"
synth "$OUT/doc-test" --corpus "$t/en-test.txt" --charset en --doc 0.7 --max-len 40 --seed 107 \
  --fonts "$TEST_FONTS"
synth "$OUT/zh-dev" --corpus "$t/zh-dev.txt" --charset "$KEYS" --max-len 25 --seed 103 --fonts "$D/droid/DroidSansFallbackFull.ttf"
synth "$OUT/zh-test" --corpus "$t/zh-test.txt" --charset "$KEYS" --max-len 25 --seed 104 --fonts "$D/arphic-gbsn00lp/gbsn00lp.ttf"
[ -s "$OUT/en-pages/det_gt.txt" ] || $P ocr synth --det --output "$OUT/en-pages" --count $((N / 10)) --corpus "$t/en-test.txt" \
  --charset en --max-len 40 --min-size 20 --max-size 36 --page-width 960 --page-height 960 --max-lines 12 --seed 105 \
  --fonts "$TEST_FONTS" >/dev/null
[ -s "$OUT/zh-pages/det_gt.txt" ] || $P ocr synth --det --output "$OUT/zh-pages" --count $((N / 10)) --corpus "$t/zh-test.txt" \
  --charset "$KEYS" --max-len 25 --min-size 20 --max-size 36 --page-width 960 --page-height 960 --max-lines 12 --seed 108 \
  --fonts "$D/arphic-gbsn00lp/gbsn00lp.ttf" >/dev/null
wc -l "$OUT"/*/rec_gt.txt "$OUT"/*-pages/det_gt.txt
