#!/usr/bin/env bash
# fetch_tuxpaint_text.sh — the stamp description texts (*.txt: the English
# line, then "<lang>.utf8=<translation>" lines) of Debian's
# tuxpaint-stamps-default: the transcripts of the spoken descriptions
# (<stamp>_desc[_<lang>].ogg) that scripts/fetch_tuxpaint_sounds.sh fetches,
# used as real training and test speech by the speech kit's recogniser
# (`paddle speech asr-data`). Only the *.txt files are kept, with their
# package paths, in
#   ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/tuxpaint-text
# Uses the ordinary apt client (`apt-get download`, no install).
# Idempotent: nothing is fetched when the folder is complete. Prints the folder.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
DIR="$CACHE/data/tuxpaint-text"
if [[ -f "$DIR/.complete" ]] && [[ -n "$(find "$DIR" -name '*.txt' -print -quit 2>/dev/null)" ]]; then
  echo "$DIR"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch_tuxpaint_text: apt-get download tuxpaint-stamps-default -> $DIR" >&2
(cd "$tmp" && { apt-get download -qq tuxpaint-stamps-default >/dev/null 2>&1 || { apt-get update -qq && apt-get download -qq tuxpaint-stamps-default >/dev/null; }; })
deb="$(ls "$tmp"/tuxpaint-stamps-default_*.deb | head -n1)"
rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$DIR.tmp" --wildcards '*/stamps/*.txt'
n="$(find "$DIR.tmp" -name '*.txt' | wc -l)"
[[ "$n" -gt 0 ]] || { echo "fetch_tuxpaint_text: no .txt files in $deb" >&2; exit 1; }
touch "$DIR.tmp/.complete"
rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
echo "fetch_tuxpaint_text: $n .txt files" >&2
echo "$DIR"
