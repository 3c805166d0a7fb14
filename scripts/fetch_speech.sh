#!/usr/bin/env bash
# fetch_speech.sh — real speech recordings for the speech tests (core/audio, kits/speech): just the
# audio files of pocketsphinx-testdata (BSD, 16 kHz), alsa-utils (GPL, 48 kHz) and codec2-examples
# (LGPL, 8 kHz), into $CACHE/data/speech/{pocketsphinx,alsa,codec2}.
# Data goes to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}; scripts/setup.sh and
# `paddle dataset pull` run this script. Idempotent: nothing is fetched when the files are there.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
speech="$CACHE/data/speech"
if [ ! -s "$speech/codec2/wav/hts1a.wav" ] || [ ! -s "$speech/alsa/Front_Left.wav" ] || [ ! -s "$speech/pocketsphinx/librivox/sense_and_sensibility_01_austen_64kb-0880.wav" ]; then
  echo "fetch_speech: speech recordings (pocketsphinx-testdata, alsa-utils, codec2-examples)" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get download -qq pocketsphinx-testdata alsa-utils codec2-examples >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get download -qq pocketsphinx-testdata alsa-utils codec2-examples; })
  mkdir -p "$tmp/x" "$speech"
  for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$tmp/x"; done
  rm -rf "$speech.tmp" && mkdir -p "$speech.tmp/alsa" "$speech.tmp/codec2"
  cp -r "$tmp/x/usr/share/pocketsphinx/test/data" "$speech.tmp/pocketsphinx"
  cp "$tmp"/x/usr/share/sounds/alsa/*.wav "$speech.tmp/alsa/"
  cp -r "$tmp/x/usr/share/codec2/wav" "$tmp/x/usr/share/codec2/raw" "$speech.tmp/codec2/"
  rm -rf "$speech" && mv "$speech.tmp" "$speech"
  rm -rf "$tmp"
fi
