#!/usr/bin/env bash
# fetch_asterisk.sh — real recorded English words from Debian's
# asterisk-core-sounds-en-wav (the Asterisk PBX prompts, one US English
# speaker, "Allison", 8 kHz 16-bit WAV; CC BY-SA 3.0): the digits zero..nine
# and "oh", the letter names a..z, and a few other words ("ten", "eleven",
# "twenty", "hundred", "hello"). They are laid out as one recorded speaker of
# `paddle speech synth --recorded DIR`, one file per word, named by the word:
#   ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/asterisk/allison/<word>.wav
# Every prompt is also kept with its transcript (asterisk-core-sounds-en's
# core-sounds-en.txt), for the recogniser (`paddle speech asr-data`):
#   .../data/asterisk/prompts/<name>.wav, .../data/asterisk/core-sounds-en.txt
# Real speech for training only: none of the real test words or sentences
# (pocketsphinx, TIDIGITS, alsa-utils, KLettres) is by this speaker.
# Uses the ordinary apt client (`apt-get download`, no install).
# Idempotent: nothing is fetched when the folder is complete. Prints the folder.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
DIR="$CACHE/data/asterisk"
if [[ -f "$DIR/.complete-v2" ]]; then
  echo "$DIR/allison"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pkg=asterisk-core-sounds-en-wav
txtpkg=asterisk-core-sounds-en # the transcripts
echo "fetch_asterisk: apt-get download $pkg $txtpkg -> $DIR" >&2
(cd "$tmp" && { apt-get download -qq "$pkg" "$txtpkg" >/dev/null 2>&1 || { apt-get update -qq && apt-get download -qq "$pkg" "$txtpkg" >/dev/null; }; })
deb="$(ls "$tmp"/${pkg}_*.deb | head -n1)"
txtdeb="$(ls "$tmp"/${txtpkg}_*.deb | head -n1)"
src="$tmp/x"
mkdir -p "$src"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$src" --strip-components=5 './usr/share/asterisk/sounds/en_US_f_Allison'
out="$DIR.tmp/allison"
rm -rf "$DIR.tmp" && mkdir -p "$out"
cp -r "$src/en_US_f_Allison" "$DIR.tmp/prompts"
dpkg-deb --fsys-tarfile "$txtdeb" | tar -xO ./usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz | gzip -dc > "$DIR.tmp/core-sounds-en.txt"
words=(zero one two three four five six seven eight nine)
for i in "${!words[@]}"; do cp "$src/en_US_f_Allison/digits/$i.wav" "$out/${words[$i]}.wav"; done
cp "$src/en_US_f_Allison/digits/oh.wav" "$out/oh.wav"
cp "$src/en_US_f_Allison/digits/10.wav" "$out/ten.wav"
cp "$src/en_US_f_Allison/digits/11.wav" "$out/eleven.wav"
cp "$src/en_US_f_Allison/digits/20.wav" "$out/twenty.wav"
cp "$src/en_US_f_Allison/digits/hundred.wav" "$out/hundred.wav"
cp "$src/en_US_f_Allison/hello.wav" "$out/hello.wav"
for l in {a..z}; do cp "$src/en_US_f_Allison/letters/$l.wav" "$out/$l.wav"; done
n="$(find "$out" -name '*.wav' | wc -l)"
[[ "$n" -eq 42 ]] || { echo "fetch_asterisk: want 42 word clips from $deb, found $n" >&2; exit 1; }
np="$(find "$DIR.tmp/prompts" -name '*.wav' | wc -l)"
[[ "$np" -ge 500 && -s "$DIR.tmp/core-sounds-en.txt" ]] || { echo "fetch_asterisk: want 500+ prompts and core-sounds-en.txt, found $np" >&2; exit 1; }
touch "$DIR.tmp/.complete-v2"
rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
echo "fetch_asterisk: $n words, $np prompts" >&2
echo "$DIR/allison"
