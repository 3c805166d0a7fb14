#!/usr/bin/env bash
# train_det_db.sh — the long detection run of issue 7: a DB text detector
# (configs/ocr/det_db_lcnet.yaml) trained from synthetic 640-px pages on 2 cores,
# evaluated on pages rendered with fonts never used in training. Results go in
# docs/ocr.md (## DB detection training).
#
#   train fonts: DejaVu (Sans/Serif/Mono and their variants), GNU FreeFont, the Go fonts
#   test fonts: Liberation 2 (Sans, Serif, Mono; regular, bold, italic, bold italic)
#   validation fonts: Noto Sans/Serif CJK (regular, bold; their Latin glyphs), seen neither
#         in training nor in the test pages: the post-process thresholds are chosen there
#   text: windows of whole words (up to 25 characters) from the English fortune files,
#         every 10th line kept for the test/validation pages only; 1-8 lines per page;
#         training pages widen each line's word gaps by up to WORD_GAP space widths
#         (test and validation pages keep the fonts' own spacing)
#
# Steps: render; train EPOCHS x 250 steps (one cosine schedule; the test pages are
# evaluated with the config's post-process after every epoch: the learning curve);
# choose box_thresh x unclip_ratio on the validation pages (grid BOX_GRID x UNCLIP_GRID);
# evaluate the test pages once with that choice.
#
# Usage: scripts/train_det_db.sh [WORK_DIR]   (default: ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/det_db)
# Env: TRAIN_PAGES (default 2000), EVAL_PAGES (100), EPOCHS (5), THREADS (2), WORD_GAP (1),
#      BOX_GRID ("0.4 0.45 0.5 0.55 0.6"),
#      UNCLIP_GRID ("1.5 1.65 1.8"), EXTRA (more -o overrides),
#      TRAIN (1; 0: only choose the thresholds and test the model already in WORK/out).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${1:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/det_db}"
TRAIN_PAGES="${TRAIN_PAGES:-2000}"
EVAL_PAGES="${EVAL_PAGES:-100}"
EPOCHS="${EPOCHS:-5}"
BOX_GRID="${BOX_GRID:-0.4 0.45 0.5 0.55 0.6}"
UNCLIP_GRID="${UNCLIP_GRID:-1.5 1.65 1.8}"
THREADS="${THREADS:-2}"
WORD_GAP="${WORD_GAP:-1}"
mkdir -p "$WORK"

need=()
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
[ -d /usr/share/fonts/truetype/freefont ] || need+=(fonts-freefont-ttf)
[ -d /usr/share/fonts/truetype/liberation2 ] || need+=(fonts-liberation2)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need+=(fonts-noto-cjk)
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
  --max-len 25 --fonts "$D/dejavu,$D/freefont,go" --count "$TRAIN_PAGES" --seed 1 --threads "$THREADS" --word-gap "$WORD_GAP"
[ -s "$WORK/eval/det_gt.txt" ] || $P ocr synth --det --output "$WORK/eval" --corpus "$WORK/corpus_eval.txt" --charset en \
  --max-len 25 --fonts "$D/liberation2" --count "$EVAL_PAGES" --seed 2 --threads "$THREADS"
[ -s "$WORK/val/det_gt.txt" ] || $P ocr synth --det --output "$WORK/val" --corpus "$WORK/corpus_eval.txt" --charset en \
  --max-len 25 --fonts /usr/share/fonts/opentype/noto --count "$EVAL_PAGES" --seed 3 --threads "$THREADS"
synth=$(( $(date +%s) - start ))

start=$(date +%s)
on_test=(-o Eval.dataset.data_dir="$WORK/eval" -o "Eval.dataset.label_file_list=[$WORK/eval/det_gt.txt]")
on_val=(-o Eval.dataset.data_dir="$WORK/val" -o "Eval.dataset.label_file_list=[$WORK/val/det_gt.txt]")
if [ "${TRAIN:-1}" = 1 ]; then
  # the learning curve with PaddleOCR's box_thresh 0.6 / unclip_ratio 1.5, as in docs/ocr.md
  # shellcheck disable=SC2086
  $P ocr train -c ocr/det_db_lcnet.yaml --threads "$THREADS" --output "$WORK/out" \
    -o Global.epoch_num="$EPOCHS" -o Global.save_epoch_step=1 \
    -o PostProcess.box_thresh=0.6 -o PostProcess.unclip_ratio=1.5 \
    -o Train.dataset.data_dir="$WORK/train" -o "Train.dataset.label_file_list=[$WORK/train/det_gt.txt]" \
    "${on_test[@]}" ${EXTRA:-}
fi
train=$(( $(date +%s) - start ))

# post-process thresholds: the best hmean on the validation pages
best=-1; pick=""
for b in $BOX_GRID; do
  for u in $UNCLIP_GRID; do
    h=$($P ocr eval -c ocr/det_db_lcnet.yaml --threads "$THREADS" --weights "$WORK/out/latest" --format json \
      -o PostProcess.box_thresh="$b" -o PostProcess.unclip_ratio="$u" "${on_val[@]}" \
      | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["metrics"]["hmean"])')
    echo "validation: box_thresh $b unclip_ratio $u hmean $h" >&2
    if /usr/bin/python3 -c "import sys; sys.exit(0 if $h > $best else 1)"; then best=$h; pick="$b $u"; fi
  done
done
set -- $pick
echo "train_det_db: chose box_thresh $1 unclip_ratio $2 (validation hmean $best)" >&2
$P ocr eval -c ocr/det_db_lcnet.yaml --threads "$THREADS" --weights "$WORK/out/latest" \
  -o PostProcess.box_thresh="$1" -o PostProcess.unclip_ratio="$2" "${on_test[@]}"
echo "train_det_db: synth ${synth}s, train ${train}s (threads $THREADS)" >&2
