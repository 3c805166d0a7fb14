#!/usr/bin/env bash
# finetune_ppocrv4_rec.sh — the PP-OCRv4 fine-tuning proof of issue 7 (docs/ocr.md,
# "Fine-tuning PP-OCRv4"): the stock PP-OCRv4 recogniser misreads random ASCII strings
# (serial numbers, passwords, code) set in a monospace font; fine-tune it on such lines
# (configs/ocr/rec_ppocrv4_finetune.yaml) and compare held-out line accuracy before and
# after, on the same style and, as a check for forgetting, on ordinary English lines.
#
#   style: random strings of 4-10 characters over PaddleOCR's en_dict (94 ASCII
#          characters), DejaVu Sans Mono (regular, bold, oblique, bold oblique)
#   held-out: new strings (another seed) in the same fonts; English fortune lines
#          in Liberation Sans/Serif (never used in fine-tuning)
#
# Usage: scripts/finetune_ppocrv4_rec.sh [WORK_DIR]  (default ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/rec_ft)
# Env: TRAIN_LINES (1600), EVAL_LINES (300), EPOCHS (1), THREADS (2), PADDLE (binary; default: make build).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${1:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/rec_ft}"
TRAIN_LINES="${TRAIN_LINES:-1600}"
EVAL_LINES="${EVAL_LINES:-300}"
EPOCHS="${EPOCHS:-1}"
THREADS="${THREADS:-2}"
mkdir -p "$WORK"
if [ -z "${PADDLE:-}" ]; then make build >/dev/null; PADDLE=bin/paddle; fi
P="$PADDLE"
D=/usr/share/fonts/truetype
MONO="$D/dejavu/DejaVuSansMono.ttf,$D/dejavu/DejaVuSansMono-Bold.ttf,$D/dejavu/DejaVuSansMono-Oblique.ttf,$D/dejavu/DejaVuSansMono-BoldOblique.ttf"
for f in ${MONO//,/ } "$D/liberation2" /usr/share/games/fortunes/literature; do
  [ -e "$f" ] || { echo "finetune: missing $f (apt-get install fonts-dejavu-core fonts-liberation2 fortunes)" >&2; exit 1; }
done
$P model pull ppocrv4 >/dev/null

F=/usr/share/games/fortunes
if [ ! -s "$WORK/corpus_eval.txt" ]; then
  ls "$F" | grep -v '\.\(dat\|u8\)$' | grep -v 'chinese\|tang300\|song100' | sed "s|^|$F/|" | xargs cat \
    | grep -v '^%$' | tr -s ' \t' ' ' | sed 's/^ *//' | grep -P '^[\x20-\x7e]+$' | awk 'NR % 10 == 0' > "$WORK/corpus_eval.txt"
fi
synth() { [ -s "$1/rec_gt.txt" ] || $P ocr synth --output "$@" --min-size 24 --max-size 40 --threads "$THREADS" >/dev/null; }
start=$(date +%s)
synth "$WORK/train" --charset en --min-len 4 --max-len 10 --fonts "$MONO" --count "$TRAIN_LINES" --seed 1
synth "$WORK/eval" --charset en --min-len 4 --max-len 10 --fonts "$MONO" --count "$EVAL_LINES" --seed 2
synth "$WORK/english" --corpus "$WORK/corpus_eval.txt" --charset en --max-len 12 --fonts "$D/liberation2" --count "$EVAL_LINES" --seed 3
echo "finetune: rendered in $(( $(date +%s) - start ))s" >&2

CFG=ocr/rec_ppocrv4_finetune.yaml
set_eval() { echo -o Eval.dataset.data_dir="$WORK/$1" -o "Eval.dataset.label_file_list=[$WORK/$1/rec_gt.txt]"; }
STOCK=ppocrv4:ch_PP-OCRv4_rec_infer.onnx
for s in eval english; do
  # shellcheck disable=SC2046
  echo "before, $s: $($P ocr eval -c $CFG --threads "$THREADS" --weights $STOCK $(set_eval $s))"
done
start=$(date +%s)
# shellcheck disable=SC2046
$P ocr train -c $CFG --threads "$THREADS" --output "$WORK/out" -o Global.epoch_num="$EPOCHS" \
  -o Train.dataset.data_dir="$WORK/train" -o "Train.dataset.label_file_list=[$WORK/train/rec_gt.txt]" $(set_eval eval) >&2
echo "finetune: trained in $(( $(date +%s) - start ))s" >&2
for s in eval english; do
  # shellcheck disable=SC2046
  echo "after, $s: $($P ocr eval -c $CFG --threads "$THREADS" --weights "$WORK/out/latest" $(set_eval $s))"
done
$P ocr export --weights "$WORK/out/latest" --output "$WORK/export" >/dev/null
head -3 "$WORK/eval/rec_gt.txt" >&2
$P ocr predict --det=false --rec-model "$WORK/export" $(head -3 "$WORK/eval/rec_gt.txt" | cut -f1 | sed "s|^|$WORK/eval/|")
