#!/usr/bin/env bash
# fetch_fortunes.sh [DIR] — the Debian fortune-cookie packages of eleven
# languages, for language identification (`paddle nlp dataset fortunes`).
# Each package is fetched with `apt-get download` and only its fortune text
# files are unpacked (dpkg-deb -x into a temporary folder, then copied; the
# .dat indexes, .u8 links and the Italian top-level links are left out) into
# DIR/<lang>/<file> (default DIR: ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/fortunes,
# about 11 MB). Prints DIR. Idempotent: nothing is done when DIR/.complete exists.
#
#   lang  package        files
#   en    fortunes       the top-level files (art, computers, ..., zippy)
#   de    fortunes-de    de/*
#   es    fortunes-es    es/*.fortunes (not the offensive off/)
#   it    fortunes-it    it/*
#   pl    fortunes-pl    pl/*
#   ru    fortunes-ru    ru/*
#   cs    fortunes-cs    cs/* except klasik-sk (Slovak)
#   zh    fortunes-zh    chinese, tang300, song100
#   pt    fortunes-br    brasil
#   bg    fortunes-bg    bg/*
#   eo    fortunes-eo    eo/proverbaro
set -euo pipefail
DIR="${1:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/fortunes}"
if [[ -f "$DIR/.complete" ]]; then
  echo "$DIR"
  exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DIR"

# take PKG LANG SUBDIR [find-args...]: copy the regular text files of the
# package's usr/share/games/fortunes/SUBDIR (not recursing) into DIR/LANG.
take() {
  local pkg="$1" lang="$2" sub="$3"
  shift 3
  echo "fetch_fortunes: $pkg -> $DIR/$lang" >&2
  (cd "$TMP" && apt-get download "$pkg" >/dev/null)
  local x="$TMP/x-$pkg"
  mkdir -p "$x"
  dpkg-deb -x "$TMP"/"$pkg"_*.deb "$x"
  local src="$x/usr/share/games/fortunes/$sub"
  mkdir -p "$DIR/$lang"
  find "$src" -maxdepth 1 -type f ! -name '*.dat' ! -name '*.u8' "$@" -exec cp {} "$DIR/$lang/" \;
  rm -rf "$x" "$TMP"/"$pkg"_*.deb
  [[ -n "$(ls -A "$DIR/$lang")" ]] || { echo "fetch_fortunes: no files from $pkg" >&2; exit 1; }
}

take fortunes en .
take fortunes-de de de
take fortunes-es es es -name '*.fortunes'
take fortunes-it it it
take fortunes-pl pl pl
take fortunes-ru ru ru
take fortunes-cs cs cs ! -name 'klasik-sk'
take fortunes-zh zh . \( -name chinese -o -name tang300 -o -name song100 \)
take fortunes-br pt . -name brasil
take fortunes-bg bg bg
take fortunes-eo eo eo -name proverbaro
touch "$DIR/.complete"
echo "$DIR"
