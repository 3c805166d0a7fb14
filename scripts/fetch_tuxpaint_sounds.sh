#!/usr/bin/env bash
# fetch_tuxpaint_sounds.sh — the Ogg Vorbis sound effects and spoken stamp
# descriptions of Debian's tuxpaint-stamps-default (real recordings, many
# languages), for the Ogg Vorbis decoder's tests (core/audio/vorbis) and the
# speech kit. Only the *.ogg files are kept, with their package paths, in
#   ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/tuxpaint-sounds
# Uses the ordinary apt client (`apt-get download`, no install).
# Idempotent: nothing is fetched when the folder already holds .ogg files.
# Prints the folder.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
DIR="$CACHE/data/tuxpaint-sounds"
have() { [[ -f "$DIR/.complete" ]] && [[ -n "$(find "$DIR" -name '*.ogg' -print -quit 2>/dev/null)" ]]; }
if have; then
  echo "$DIR"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch_tuxpaint_sounds: apt-get download tuxpaint-stamps-default -> $DIR" >&2
(cd "$tmp" && apt-get download tuxpaint-stamps-default >/dev/null)
deb="$(ls "$tmp"/tuxpaint-stamps-default_*.deb | head -n1)"
rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$DIR.tmp" --wildcards '*.ogg'
n="$(find "$DIR.tmp" -name '*.ogg' | wc -l)"
[[ "$n" -gt 0 ]] || { echo "fetch_tuxpaint_sounds: no .ogg files in $deb" >&2; exit 1; }
touch "$DIR.tmp/.complete"
rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
echo "fetch_tuxpaint_sounds: $n .ogg files" >&2
echo "$DIR"
