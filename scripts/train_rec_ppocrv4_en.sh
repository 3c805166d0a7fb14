#!/usr/bin/env bash
# train_rec_ppocrv4_en.sh — the English recogniser of issue 23 (docs/ocr.md, "Languages"):
# PP-OCRv4's recogniser with a new CTC head over en_dict + space, fine-tuned on synthetic
# document-like English lines (configs/ocr/rec_ppocrv4_en.yaml).
#
#   train:  fortunes en without the dev categories, --doc 0.5 (prices, dates, e-mails, URLs,
#           phone numbers, codes, mixed case), 1-60 characters, 14-48 px, default augmentation,
#           fonts Roboto, Lato, Cantarell, Hack, Fira Code, Inconsolata, Noto Mono, EB Garamond,
#           Comic Neue, Linux Libertine (none of them in the dev or test sets)
#   eval:   scripts/ocr_heldout.sh's en-dev (DejaVu and Go fonts, fortunes computers/science/work/people)
#   test:   scripts/ocr_heldout.sh's en-test (Liberation, FreeFont, Carlito, Open Sans; Brown corpus)
#
# Usage: scripts/train_rec_ppocrv4_en.sh [WORK_DIR]   (default ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/rec_en)
# Env: METHOD (stage5, stage6, stage7: below; neck: stages 1-2, the neck and head trained on the frozen backbone's features,
# scripts/ocr_en_neck, written to kits/ocr/models/; stretch: stage 4, from the shipped model on lines
# read 1.3x wider and detector crops, written to WORK; full: the whole network with `ocr train`),
# TRAIN_LINES (8000), EPOCHS (neck 6, full 4), THREADS (2), PADDLE (binary; default bin/paddle),
# RESUME (full only, 1: continue from WORK_DIR/out/latest when it is there), LAST_BLOCK (neck only, 1: also
# stage 3, the backbone's last block trained with the neck and head; not shipped).
# Needs: fonts-roboto-unhinted fonts-lato fonts-cantarell fonts-hack fonts-firacode fonts-inconsolata
#        fonts-noto-mono fonts-ebgaramond fonts-comic-neue fonts-linuxlibertine, and scripts/ocr_heldout.sh's.
# Checkpoints: WORK_DIR/out/latest after every epoch and on SIGINT/SIGTERM; best by en-dev acc.
set -euo pipefail
cd "$(dirname "$0")/.."
C="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
WORK="${1:-$C/rec_en}"
TRAIN_LINES="${TRAIN_LINES:-8000}"
METHOD="${METHOD:-neck}"
EPOCHS="${EPOCHS:-$([ "$METHOD" = neck ] && echo 6 || echo 4)}"
THREADS="${THREADS:-2}"
P="${PADDLE:-bin/paddle}"
mkdir -p "$WORK"
T=/usr/share/fonts/truetype
O=/usr/share/fonts/opentype
FONTS="$T/roboto,$T/lato,$O/cantarell,$T/hack,$T/firacode,$T/inconsolata,$T/noto,$O/ebgaramond,$O/comic-neue,$O/linux-libertine"
FO="$C/data/fortunes/en"
if [ ! -s "$WORK/corpus_train.txt" ]; then
  ls "$FO" | grep -v -x -e computers -e science -e work -e people | sed "s|^|$FO/|" | xargs cat \
    | grep -v '^%$' | grep -P '^[\x20-\x7e]+$' | tr -s ' \t' ' ' | sed 's/^ *//' > "$WORK/corpus_train.txt"
fi
[ -s "$WORK/heldout/en-dev/rec_gt.txt" ] || PADDLE="$P" scripts/ocr_heldout.sh "$WORK/heldout" >/dev/null
[ -s "$WORK/train/rec_gt.txt" ] || $P ocr synth --output "$WORK/train" --corpus "$WORK/corpus_train.txt" --charset en \
  --doc 0.5 --min-len 1 --max-len 60 --min-size 14 --max-size 48 --fonts "$FONTS" --count "$TRAIN_LINES" --seed 23 --threads "$THREADS"
[ -s "$WORK/en_PP-OCRv4_rec_init.onnx" ] || go run ./scripts/ocr_en_init -o "$WORK/en_PP-OCRv4_rec_init.onnx"
# stage 2's data: 6,000 more lines in 82 more faces (URW base35 without the symbol and script faces, TeX
# Gyre without Chorus, Latin Modern 10, Caladea, Roboto Slab; none in the dev or test sets); needs
# fonts-urw-base35 fonts-texgyre fonts-lmodern fonts-crosextra-caladea fonts-roboto-slab
make_train2() {
  local U=/usr/share/fonts/opentype/urw-base35 G=/usr/share/texmf/fonts/opentype/public/tex-gyre L=/usr/share/texmf/fonts/opentype/public/lm
  FONTS2=$( (ls $U/*.otf | grep -v -e D050000L -e StandardSymbols -e Z003; ls $G/*.otf | grep -v chorus
    ls $L/*.otf | grep -E "lmroman10|lmsans10|lmmono10"; ls $T/crosextra/Caladea-*; ls $O/roboto/slab/*.otf) | paste -sd,)
  [ -s "$WORK/train2/rec_gt.txt" ] || $P ocr synth --output "$WORK/train2" --corpus "$WORK/corpus_train.txt" --charset en \
    --doc 0.5 --min-len 1 --max-len 60 --min-size 14 --max-size 48 --fonts "$FONTS2" --count 6000 --seed 29 --threads "$THREADS"
}
# stage 5's data: 6,000 more lines, mostly document snippets (--doc 0.8), over paper textures and photos
# (mate-backgrounds, ukui-wallpapers: in no dev or test set), in 569 more faces (the Latin text fonts of 47 more
# Debian packages that x/image can read; none derived from the dev or test faces: Arkpandora and LinEx
# (Bitstream Vera, DejaVu's ancestor) and Uralic left out) and all the earlier training faces
STAGE5_PKGS="fonts-adf-accanthis fonts-adf-baskervald fonts-adf-berenis fonts-adf-gillius fonts-adf-ikarius
  fonts-adf-irianis fonts-adf-libris fonts-adf-mekanus fonts-adf-oldania fonts-adf-romande fonts-adf-switzera
  fonts-adf-tribun fonts-adf-universalis fonts-adf-verana fonts-allerta fonts-anonymous-pro fonts-averia-gwf
  fonts-averia-sans-gwf fonts-averia-serif-gwf fonts-b612 fonts-cabin fonts-cardo fonts-clear-sans fonts-cmu
  fonts-comfortaa fonts-courier-prime fonts-dosis fonts-elstob fonts-fanwood fonts-fantasque-sans fonts-gfs-didot
  fonts-gfs-neohellenic fonts-goudybookletter fonts-hermit fonts-inter fonts-jetbrains-mono fonts-junction fonts-jura
  fonts-karla fonts-league-mono fonts-league-spartan fonts-manrope fonts-monoid fonts-mononoki fonts-oldstandard
  fonts-opendin fonts-oxygen fonts-paratype fonts-play fonts-quattrocento fonts-quicksand fonts-sora fonts-tiresias
  fonts-tuffy fonts-vollkorn fonts-century-catalogue fonts-gfs-artemisia fonts-gfs-bodoni-classic fonts-millimetre
  fonts-routed-gothic mate-backgrounds ukui-wallpapers"
make_train3() {
  make_train2
  if [ ! -s "$WORK/faces5.txt" ]; then # every face x/image reads (a few .otf files it rejects)
    for p in $STAGE5_PKGS; do dpkg -L "$p"; done | grep -iE '\.(ttf|otf)$' | grep -v -i tamil | sort -u \
      | while read -r f; do
          if $P ocr synth --output "$WORK/probe" --charset en --fonts "$f" --count 2 --max-len 10 >/dev/null 2>&1; then echo "$f"; fi
        done > "$WORK/faces5.txt"
  fi
  make_doclines train3 37
}
# make_doclines DIR SEED: 6,000 stage 5 lines (document snippets over paper and photos, all training faces)
make_doclines() {
  [ -s "$WORK/$1/rec_gt.txt" ] || $P ocr synth --output "$WORK/$1" --corpus "$WORK/corpus_train.txt" --charset en \
    --doc 0.8 --min-len 1 --max-len 60 --min-size 14 --max-size 48 --paper 0.3 --photo 0.2 --backgrounds /usr/share/backgrounds \
    --fonts "$FONTS,$FONTS2,$(paste -sd, "$WORK/faces5.txt")" --count 6000 --seed "$2" --threads "$THREADS"
}
# neck INIT NAME TRAIN DEV EPOCHS LR: scripts/ocr_en_neck from INIT (the neck and head on the frozen backbone's
# cached features), writing WORK/NAME.onnx and WORK/NAME.safetensors (the best dev epoch)
neck() {
  go run ./scripts/ocr_en_neck -init "$1" -train "$3" -dev "$4" -epochs "$5" -evals 2 -lr "$6" \
    -threads "$THREADS" -cache "$WORK/feat" -o "$WORK/$2.onnx" -delta "$WORK/$2.safetensors"
}
if [ "$METHOD" = stage5 ]; then
  # stage 5: from the shipped stage 4 model, stage 4's data and stage 5's lines (make_train3), 1.3x wider;
  # dev adds doc-dev (document snippets) 1.3x wider
  make_train3
  [ -s "$WORK/en_stage4.onnx" ] || go run ./scripts/ocr_en_init -trained -o "$WORK/en_stage4.onnx"
  start=$(date +%s)
  neck "$WORK/en_stage4.onnx" en_stage5 \
    "$WORK/train/rec_gt.txt@1.3,$WORK/train2/rec_gt.txt@1.3,$WORK/traincrops/rec_gt.txt,$WORK/train3/rec_gt.txt@1.3" \
    "$WORK/heldout/en-dev/rec_gt.txt@1.3,$WORK/heldout/doc-dev/rec_gt.txt@1.3,$WORK/devcrops/rec_gt.txt" \
    "${EPOCHS_STAGE5:-3}" "${LR_STAGE5:-2e-4}"
  echo "train_rec_ppocrv4_en: stage 5 trained in $(( $(date +%s) - start ))s; copy $WORK/en_stage5.safetensors to kits/ocr/models/ if it is kept" >&2
  exit 0
fi
if [ "$METHOD" = stage6 ]; then
  # stage 6: from stage 5's model (WORK/en_stage5.onnx), 6,000 more stage 5 lines (seed 41), 2 epochs at 1e-4
  make_train3
  make_doclines train4 41
  start=$(date +%s)
  neck "$WORK/en_stage5.onnx" en_stage6 \
    "$WORK/train/rec_gt.txt@1.3,$WORK/train2/rec_gt.txt@1.3,$WORK/traincrops/rec_gt.txt,$WORK/train3/rec_gt.txt@1.3,$WORK/train4/rec_gt.txt@1.3" \
    "$WORK/heldout/en-dev/rec_gt.txt@1.3,$WORK/heldout/doc-dev/rec_gt.txt@1.3,$WORK/devcrops/rec_gt.txt" 2 1e-4
  echo "train_rec_ppocrv4_en: stage 6 trained in $(( $(date +%s) - start ))s" >&2
  exit 0
fi
if [ "$METHOD" = stage7 ]; then
  # stage 7: two CTC steps per feature column (docs/ocr.md, "Stage 7"): stage 5's weights
  # (WORK/en_stage5.safetensors) with the head repeated (ocr_en_init -upsample 2: reads exactly as stage 5),
  # then the neck and head on all five training sets, 2 epochs at 2e-4 and 2 more at 1e-4; dev adds two
  # larger sets in the dev fonts and text (doc-dev2: 2,000 lines --doc 0.7, seed 206; en-dev2: 1,000, seed 201)
  make_train3
  make_doclines train4 41
  D=/usr/share/fonts/truetype
  DEVF="$D/dejavu/DejaVuSans.ttf,$D/dejavu/DejaVuSerif.ttf,$D/dejavu/DejaVuSansMono.ttf,$D/dejavu/DejaVuSans-Bold.ttf,go"
  [ -s "$WORK/dev2/doc-dev2/rec_gt.txt" ] || $P ocr synth --output "$WORK/dev2/doc-dev2" --corpus "$WORK/heldout/text/en-dev.txt" \
    --charset en --doc 0.7 --max-len 40 --seed 206 --count 2000 --min-size 20 --max-size 40 --fonts "$DEVF" >/dev/null
  [ -s "$WORK/dev2/en-dev2/rec_gt.txt" ] || $P ocr synth --output "$WORK/dev2/en-dev2" --corpus "$WORK/heldout/text/en-dev.txt" \
    --charset en --max-len 40 --seed 201 --count 1000 --min-size 20 --max-size 40 --fonts "$DEVF" >/dev/null
  go run ./scripts/ocr_en_init -from "$WORK/en_stage5.safetensors" -upsample 2 -o "$WORK/en_up2_init.onnx"
  TR="$WORK/train/rec_gt.txt@1.3,$WORK/train2/rec_gt.txt@1.3,$WORK/traincrops/rec_gt.txt,$WORK/train3/rec_gt.txt@1.3,$WORK/train4/rec_gt.txt@1.3"
  DV="$WORK/heldout/en-dev/rec_gt.txt@1.3,$WORK/heldout/doc-dev/rec_gt.txt@1.3,$WORK/devcrops/rec_gt.txt,$WORK/dev2/doc-dev2/rec_gt.txt@1.3,$WORK/dev2/en-dev2/rec_gt.txt@1.3"
  start=$(date +%s)
  neck "$WORK/en_up2_init.onnx" en_up2 "$TR" "$DV" 2 2e-4
  neck "$WORK/en_up2.onnx" en_up2b "$TR" "$DV" 2 1e-4
  echo "train_rec_ppocrv4_en: stage 7 trained in $(( $(date +%s) - start ))s; copy $WORK/en_up2b.safetensors to kits/ocr/models/ if it is kept" >&2
  exit 0
fi
if [ "$METHOD" = stretch ]; then
  # stage 4 (docs/ocr.md, "Whole-image lines read 1.3x wider"): from the shipped model, the neck and head
  # train on features read as inference reads them: rendered lines 1.3x wider (`--det=false` reads whole
  # images at ocr.EnglishStretch) and crops cut by the stock detector from rendered pages at PP-OCRv4's
  # resize (scripts/ocr_det_crops), in the training fonts and text; dev: en-dev 1.3x wider and detector
  # crops of dev pages (en-dev's text and fonts); needs stage 2's fonts (make_train2)
  make_train2
  [ -s "$WORK/trainpages/det_gt.txt" ] || $P ocr synth --det --output "$WORK/trainpages" --count "${PAGES:-400}" \
    --corpus "$WORK/corpus_train.txt" --charset en --max-len 40 --min-size 16 --max-size 40 --page-width 960 \
    --page-height 960 --max-lines 12 --word-gap 0.5 --seed 31 --fonts "$FONTS,$FONTS2" --threads "$THREADS" >/dev/null
  D=/usr/share/fonts/truetype
  [ -s "$WORK/devpages/det_gt.txt" ] || $P ocr synth --det --output "$WORK/devpages" --count 30 \
    --corpus "$WORK/heldout/text/en-dev.txt" --charset en --max-len 40 --min-size 20 --max-size 36 --page-width 960 \
    --page-height 960 --max-lines 12 --seed 109 --threads "$THREADS" \
    --fonts "$D/dejavu/DejaVuSans.ttf,$D/dejavu/DejaVuSerif.ttf,$D/dejavu/DejaVuSansMono.ttf,$D/dejavu/DejaVuSans-Bold.ttf,go" >/dev/null
  for s in trainpages devpages; do
    [ -s "$WORK/${s%pages}crops/rec_gt.txt" ] || go run ./scripts/ocr_det_crops -gt "$WORK/$s/det_gt.txt" -o "$WORK/${s%pages}crops" -threads "$THREADS"
  done
  [ -s "$WORK/en_shipped.onnx" ] || go run ./scripts/ocr_en_init -trained -o "$WORK/en_shipped.onnx"
  start=$(date +%s)
  go run ./scripts/ocr_en_neck -init "$WORK/en_shipped.onnx" \
    -train "$WORK/train/rec_gt.txt@1.3,$WORK/train2/rec_gt.txt@1.3,$WORK/traincrops/rec_gt.txt" \
    -dev "$WORK/heldout/en-dev/rec_gt.txt@1.3,$WORK/devcrops/rec_gt.txt" -epochs "${EPOCHS_STRETCH:-3}" -evals 2 -lr 2e-4 \
    -threads "$THREADS" -cache "$WORK/feat" -o "$WORK/en_stretch.onnx" -delta "$WORK/en_stretch.safetensors"
  echo "train_rec_ppocrv4_en: stage 4 trained in $(( $(date +%s) - start ))s; copy $WORK/en_stretch.safetensors to kits/ocr/models/ if it is kept" >&2
  exit 0
fi
if [ "$METHOD" = neck ]; then
  start=$(date +%s)
  # stage 1: the 8,000 lines above, from the sliced head
  go run ./scripts/ocr_en_neck -init "$WORK/en_PP-OCRv4_rec_init.onnx" -train "$WORK/train/rec_gt.txt" \
    -dev "$WORK/heldout/en-dev/rec_gt.txt" -epochs "$EPOCHS" -threads "$THREADS" -cache "$WORK/feat" \
    -o "$WORK/en_neck.onnx" -delta "$WORK/en_neck.safetensors"
  # stage 2: both sets (make_train2), 3 epochs at 2e-4 from stage 1
  make_train2
  go run ./scripts/ocr_en_neck -init "$WORK/en_neck.onnx" -train "$WORK/train/rec_gt.txt,$WORK/train2/rec_gt.txt" \
    -dev "$WORK/heldout/en-dev/rec_gt.txt" -epochs 3 -lr 2e-4 -threads "$THREADS" -cache "$WORK/feat" \
    -o "$WORK/en_neck2.onnx" -delta kits/ocr/models/en_PP-OCRv4_rec_neck.safetensors
  if [ "${LAST_BLOCK:-0}" = 1 ]; then
    # stage 3 (tried, not shipped; docs/ocr.md): PP-LCNetV3's last block (conv2d_183/184: 5x5 depthwise and 1x1,
    # 480 channels, 0.24 M weights) trains too: split before it (p2o.Add.215, (N, 480, 3, W/4) features, kept
    # as float16: 3.6 GB cached for both sets), one epoch over both sets at 1e-4 from stage 2's model, then one
    # more at 5e-5 from that, en-dev scored 4 times an epoch; writes WORK/en_last{,2}.{onnx,safetensors}
    go run ./scripts/ocr_en_neck -init "$WORK/en_neck2.onnx" -split p2o.Add.215 -f16 \
      -train "$WORK/train/rec_gt.txt,$WORK/train2/rec_gt.txt" -dev "$WORK/heldout/en-dev/rec_gt.txt" -epochs 1 -evals 4 \
      -lr 1e-4 -threads "$THREADS" -cache "$WORK/feat" -o "$WORK/en_last.onnx" -delta "$WORK/en_last.safetensors"
    go run ./scripts/ocr_en_neck -init "$WORK/en_last.onnx" -split p2o.Add.215 -f16 \
      -train "$WORK/train/rec_gt.txt,$WORK/train2/rec_gt.txt" -dev "$WORK/heldout/en-dev/rec_gt.txt" -epochs 1 -evals 4 \
      -lr 5e-5 -threads "$THREADS" -cache "$WORK/feat" -o "$WORK/en_last2.onnx" -delta "$WORK/en_last2.safetensors"
  fi
  echo "train_rec_ppocrv4_en: trained in $(( $(date +%s) - start ))s; update the sha256 and size in kits/ocr/english.go and rebuild" >&2
  sha256sum kits/ocr/models/en_PP-OCRv4_rec_neck.safetensors; stat -c %s kits/ocr/models/en_PP-OCRv4_rec_neck.safetensors
  exit 0
fi
resume=()
if [ "${RESUME:-1}" = 1 ] && [ -d "$WORK/out/latest" ]; then resume=(--resume "$WORK/out/latest"); fi
start=$(date +%s)
$P ocr train -c ocr/rec_ppocrv4_en.yaml --threads "$THREADS" --output "$WORK/out" "${resume[@]}" \
  -o Architecture.Backbone.model_file="$WORK/en_PP-OCRv4_rec_init.onnx" -o Global.epoch_num="$EPOCHS" \
  -o Train.dataset.data_dir="$WORK/train" -o "Train.dataset.label_file_list=[$WORK/train/rec_gt.txt]" \
  -o Eval.dataset.data_dir="$WORK/heldout/en-dev" -o "Eval.dataset.label_file_list=[$WORK/heldout/en-dev/rec_gt.txt]"
echo "train_rec_ppocrv4_en: trained in $(( $(date +%s) - start ))s" >&2
$P ocr export --weights "$WORK/out/best" --output "$WORK/export" >/dev/null
for s in en-dev en-test; do
  echo "$s: $(cut -f1 "$WORK/heldout/$s/rec_gt.txt" | sed "s#^#$WORK/heldout/$s/#" \
    | $P ocr predict --det=false --format jsonl --rec-model "$WORK/export" --space-mode gaps - \
    | go run ./scripts/bench/ocrlines -gt "$WORK/heldout/$s/rec_gt.txt")"
done
