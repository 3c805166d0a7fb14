#!/usr/bin/env bash
# fetch_klettres.sh — real spoken English letter names from Debian's
# klettres-data (KDE KLettres, GPL-2+): the en and en_GB alphabets, 26 Ogg
# Vorbis clips each (two speakers), the real test set of the speech kit's
# letter-spotting variant (`paddle speech realwords --set letters`). Only
# those files are kept, in
#   ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/klettres/{en,en_GB}/alpha
# Uses the ordinary apt client (`apt-get download`, no install).
# Idempotent: nothing is fetched when the folder is complete. Prints the folder.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
DIR="$CACHE/data/klettres"
if [[ -f "$DIR/.complete" ]]; then
  echo "$DIR"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch_klettres: apt-get download klettres-data -> $DIR" >&2
(cd "$tmp" && { apt-get download -qq klettres-data >/dev/null 2>&1 || { apt-get update -qq && apt-get download -qq klettres-data >/dev/null; }; })
deb="$(ls "$tmp"/klettres-data_*.deb | head -n1)"
rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$DIR.tmp" --strip-components=4 --wildcards \
  './usr/share/klettres/en/alpha/*.ogg' './usr/share/klettres/en_GB/alpha/*.ogg'
n="$(find "$DIR.tmp" -name '*.ogg' | wc -l)"
[[ "$n" -eq 52 ]] || { echo "fetch_klettres: want 52 letter clips in $deb, found $n" >&2; exit 1; }
touch "$DIR.tmp/.complete"
rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
echo "fetch_klettres: $n .ogg files" >&2
echo "$DIR"
