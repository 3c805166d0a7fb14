#!/usr/bin/env bash
# train_det_db.sh — the long detection run of issue 7: a DB text detector
# (configs/ocr/det_db_lcnet.yaml) trained from synthetic 640-px pages on 2 cores,
# evaluated on pages rendered with fonts never used in training. Results go in
# docs/ocr.md (## DB detection training).
#
#   train fonts: DejaVu (Sans/Serif/Mono and their variants), GNU FreeFont, the Go fonts
#   held-out fonts: Liberation 2 (Sans, Serif, Mono; regular, bold, italic, bold italic)
#   text: windows of whole words (up to 25 characters) from the English fortune files,
#         every 10th line kept for the eval pages only; 1-8 lines per page
#
# Usage: scripts/train_det_db.sh [WORK_DIR]   (default: ${PADDLE_CACHE:-$HOME/.cache/paddle}/det_db)
# Env: TRAIN_PAGES (default 2000), EVAL_PAGES (100), THREADS (2), STAGE2 (1: also run stage 2),
#      EXTRA (more -o overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${1:-${PADDLE_CACHE:-$HOME/.cache/paddle}/det_db}"
TRAIN_PAGES="${TRAIN_PAGES:-2000}"
EVAL_PAGES="${EVAL_PAGES:-100}"
THREADS="${THREADS:-2}"
mkdir -p "$WORK"

need=()
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
[ -d /usr/share/fonts/truetype/freefont ] || need+=(fonts-freefont-ttf)
[ -d /usr/share/fonts/truetype/liberation2 ] || need+=(fonts-liberation2)
[ -f /usr/share/games/fortunes/literature ] || need+=(fortunes)
if [ ${#need[@]} -gt 0 ]; then
  echo "train_det_db: apt-get install ${need[*]}" >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

make build >/dev/null
P=bin/paddle

F=/usr/share/games/fortunes
if [ ! -s "$WORK/corpus_train.txt" ]; then
  ls "$F" | grep -v '\.\(dat\|u8\)$' | grep -v 'chinese\|tang300\|song100' | sed "s|^|$F/|" | xargs cat \
    | grep -v '^%$' | tr -s ' \t' ' ' | sed 's/^ *//' | grep -P '^[\x20-\x7e]+$' > "$WORK/corpus_all.txt"
  awk 'NR % 10 != 0' "$WORK/corpus_all.txt" > "$WORK/corpus_train.txt"
  awk 'NR % 10 == 0' "$WORK/corpus_all.txt" > "$WORK/corpus_eval.txt"
fi

D=/usr/share/fonts/truetype
start=$(date +%s)
[ -s "$WORK/train/det_gt.txt" ] || $P ocr synth --det --output "$WORK/train" --corpus "$WORK/corpus_train.txt" --charset en \
  --max-len 25 --fonts "$D/dejavu,$D/freefont,go" --count "$TRAIN_PAGES" --seed 1 --threads "$THREADS"
[ -s "$WORK/eval/det_gt.txt" ] || $P ocr synth --det --output "$WORK/eval" --corpus "$WORK/corpus_eval.txt" --charset en \
  --max-len 25 --fonts "$D/liberation2" --count "$EVAL_PAGES" --seed 2 --threads "$THREADS"
synth=$(( $(date +%s) - start ))

start=$(date +%s)
# shellcheck disable=SC2086
$P ocr train -c ocr/det_db_lcnet.yaml --threads "$THREADS" --output "$WORK/out" \
  -o Train.dataset.data_dir="$WORK/train" -o "Train.dataset.label_file_list=[$WORK/train/det_gt.txt]" \
  -o Eval.dataset.data_dir="$WORK/eval" -o "Eval.dataset.label_file_list=[$WORK/eval/det_gt.txt]" ${EXTRA:-}
if [ "${STAGE2:-1}" = 1 ]; then
  # stage 2 (docs/ocr.md): 500 more steps from stage 1's weights with a fresh cosine at 4e-3
  # shellcheck disable=SC2086
  $P ocr train -c ocr/det_db_lcnet.yaml --threads "$THREADS" --output "$WORK/out2" \
    -o Global.pretrained_model="$WORK/out/latest" -o Optimizer.lr.learning_rate=0.004 -o Global.seed=43 \
    -o Train.dataset.data_dir="$WORK/train" -o "Train.dataset.label_file_list=[$WORK/train/det_gt.txt]" \
    -o Eval.dataset.data_dir="$WORK/eval" -o "Eval.dataset.label_file_list=[$WORK/eval/det_gt.txt]" ${EXTRA:-}
  OUT="$WORK/out2"
else
  OUT="$WORK/out"
fi
train=$(( $(date +%s) - start ))
$P ocr eval -c ocr/det_db_lcnet.yaml --threads "$THREADS" --weights "$OUT/latest" \
  -o Eval.dataset.data_dir="$WORK/eval" -o "Eval.dataset.label_file_list=[$WORK/eval/det_gt.txt]"
echo "train_det_db: synth ${synth}s, train ${train}s (threads $THREADS)" >&2
