#!/usr/bin/env bash
# train_rec_en.sh — the long recognition run of issue 7: an English/number CRNN
# (configs/ocr/rec_crnn_en.yaml) trained from synthetic lines on 2 cores, evaluated
# on lines rendered with fonts never used in training. Results go in docs/ocr.md.
#
#   train fonts: DejaVu (Sans/Serif/Mono and their variants), GNU FreeFont, the Go fonts
#   held-out fonts: Liberation 2 (Sans, Serif, Mono; regular, bold, italic, bold italic)
#   text: windows of whole words (1–12 characters) from the English fortune files,
#         every 10th line kept for the eval set only
#
# Usage: scripts/train_rec_en.sh [WORK_DIR]   (default: ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/rec_en)
# Env: TRAIN_LINES (default 100000), EVAL_LINES (1000), THREADS (2), CONFIG (ocr/rec_crnn_en.yaml),
#      EXTRA (more -o overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${1:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/rec_en}"
TRAIN_LINES="${TRAIN_LINES:-100000}"
EVAL_LINES="${EVAL_LINES:-1000}"
THREADS="${THREADS:-2}"
CONFIG="${CONFIG:-ocr/rec_crnn_en.yaml}" # or ocr/rec_svtr_tiny_en.yaml
mkdir -p "$WORK"

need=()
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
[ -d /usr/share/fonts/truetype/freefont ] || need+=(fonts-freefont-ttf)
[ -d /usr/share/fonts/truetype/liberation2 ] || need+=(fonts-liberation2)
[ -f /usr/share/games/fortunes/literature ] || need+=(fortunes)
if [ ${#need[@]} -gt 0 ]; then
  echo "train_rec_en: apt-get install ${need[*]}" >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

make build >/dev/null
P=bin/paddle

F=/usr/share/games/fortunes
if [ ! -s "$WORK/corpus_train.txt" ]; then
  # English fortunes, printable ASCII only; every 10th line goes to the eval corpus
  ls "$F" | grep -v '\.\(dat\|u8\)$' | grep -v 'chinese\|tang300\|song100' | sed "s|^|$F/|" | xargs cat \
    | grep -v '^%$' | tr -s ' \t' ' ' | sed 's/^ *//' | grep -P '^[\x20-\x7e]+$' > "$WORK/corpus_all.txt"
  awk 'NR % 10 != 0' "$WORK/corpus_all.txt" > "$WORK/corpus_train.txt"
  awk 'NR % 10 == 0' "$WORK/corpus_all.txt" > "$WORK/corpus_eval.txt"
fi

D=/usr/share/fonts/truetype
start=$(date +%s)
[ -s "$WORK/train/rec_gt.txt" ] || $P ocr synth --output "$WORK/train" --corpus "$WORK/corpus_train.txt" --charset en \
  --max-len 12 --fonts "$D/dejavu,$D/freefont,go" --count "$TRAIN_LINES" --seed 1 --min-size 24 --max-size 40 --threads "$THREADS"
[ -s "$WORK/eval/rec_gt.txt" ] || $P ocr synth --output "$WORK/eval" --corpus "$WORK/corpus_eval.txt" --charset en \
  --max-len 12 --fonts "$D/liberation2" --count "$EVAL_LINES" --seed 2 --min-size 24 --max-size 40 --threads "$THREADS"
synth=$(( $(date +%s) - start ))

start=$(date +%s)
# shellcheck disable=SC2086
$P ocr train -c "$CONFIG" --threads "$THREADS" --output "$WORK/out" \
  -o Train.dataset.data_dir="$WORK/train" -o "Train.dataset.label_file_list=[$WORK/train/rec_gt.txt]" \
  -o Eval.dataset.data_dir="$WORK/eval" -o "Eval.dataset.label_file_list=[$WORK/eval/rec_gt.txt]" ${EXTRA:-}
train=$(( $(date +%s) - start ))
$P ocr eval -c "$CONFIG" --threads "$THREADS" --weights "$WORK/out/best" \
  -o Eval.dataset.data_dir="$WORK/eval" -o "Eval.dataset.label_file_list=[$WORK/eval/rec_gt.txt]"
echo "train_rec_en: synth ${synth}s, train ${train}s (threads $THREADS)" >&2
