#!/usr/bin/env bash
# kws_real_words.sh: word boundaries of the real recordings the keyword
# spotter is evaluated on, from pocketsphinx (Debian pocketsphinx 0.8 +
# pocketsphinx-en-us) forced to each recording's known transcript with a
# one-sentence JSGF grammar. Writes kits/speech/real_words.tsv:
#   source<TAB>start_s<TAB>end_s<TAB>word
# source relative to $PADDLE_CACHE/data/speech. Run once by hand (not in CI):
#   apt-get install -y pocketsphinx pocketsphinx-en-us sox
#   scripts/ref/kws_real_words.sh
# Transcripts: cards/cards.transcription and goforward ("go forward ten
# meters") as pocketsphinx-testdata ships them; tidigits/dhd.2934z.raw from
# its TIDIGITS-style name (2 9 3 4 z); alsa-utils clips from their names.
# numbers.raw ships without a transcript: it is decoded with a free digit
# loop, and only the words the general-LM decode agrees with are kept
# (see NUMBERS below).
set -euo pipefail
D="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/speech"
P=/usr/share/pocketsphinx/model/en-us
OUT="$(cd "$(dirname "$0")/../.." && pwd)/kits/speech/real_words.tsv"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT

align() { # align SOURCE AUDIO16K TEXT
	local src="$1" wav="$2" text="$3"
	printf '#JSGF V1.0;\ngrammar one;\npublic <s> = %s ;\n' "$text" >"$TMP/g.gram"
	pocketsphinx_continuous -infile "$wav" -hmm "$P/en-us" -dict "$P/cmudict-en-us.dict" \
		-jsgf "$TMP/g.gram" -time yes 2>/dev/null |
		awk -v src="$src" 'NF==4 && $2 ~ /^[0-9.]+$/ && $1 !~ /^[<(]/ {printf "%s\t%s\t%s\t%s\n", src, $2, $3, $1}'
}

{
	printf 'source\tstart\tend\tword\n'
	while read -r line; do
		id="$(echo "$line" | sed -E 's/.*\((.*)\)$/\1/')"
		text="$(echo "$line" | sed -E 's/<s>(.*)<\/s>.*/\1/' | xargs)"
		align "pocketsphinx/cards/$id.wav" "$D/pocketsphinx/cards/$id.wav" "$text"
	done <"$D/pocketsphinx/cards/cards.transcription"
	sox -t raw -r 16000 -e signed -b 16 -c 1 "$D/pocketsphinx/goforward.raw" "$TMP/gf.wav"
	align pocketsphinx/goforward.raw "$TMP/gf.wav" "go forward ten meters"
	sox -t raw -r 16000 -e signed -b 16 -c 1 "$D/pocketsphinx/tidigits/dhd.2934z.raw" "$TMP/dhd.wav"
	align pocketsphinx/tidigits/dhd.2934z.raw "$TMP/dhd.wav" "two nine three four zero"
	for f in Front_Left Front_Right Front_Center Rear_Left Rear_Right Rear_Center Side_Left Side_Right; do
		sox "$D/alsa/$f.wav" -r 16000 -c 1 -b 16 "$TMP/a.wav"
		align "alsa/$f.wav" "$TMP/a.wav" "$(echo "$f" | tr 'A-Z_' 'a-z ')"
	done
	# NUMBERS: the digit-loop decode is "three three four oh six nine two two";
	# the general LM hears "thirty three four or six ninety two". The "oh"
	# (20 ms) and the first "two" (90 ms) are too short to trust and are
	# dropped; the others agree between the two decodes.
	sox -t raw -r 16000 -e signed -b 16 -c 1 "$D/pocketsphinx/numbers.raw" "$TMP/n.wav"
	printf '#JSGF V1.0;\ngrammar d;\npublic <s> = ( zero | oh | one | two | three | four | five | six | seven | eight | nine )+ ;\n' >"$TMP/d.gram"
	pocketsphinx_continuous -infile "$TMP/n.wav" -hmm "$P/en-us" -dict "$P/cmudict-en-us.dict" \
		-jsgf "$TMP/d.gram" -time yes 2>/dev/null |
		awk 'NF==4 && $2 ~ /^[0-9.]+$/ && $1 !~ /^[<(]/ && $3-$2 >= 0.15 {printf "pocketsphinx/numbers.raw\t%s\t%s\t%s\n", $2, $3, $1}'
	# TIDIGITS: 31 utterances of two speakers shipped only as Sphinx MFCC
	# features (*.mfc, 8 kHz front end) with tidigits.lsn transcripts; forced
	# to each transcript with pocketsphinx's own TIDIGITS model. Times are
	# frames/100 (the features are 100 frames/s).
	T="$D/pocketsphinx/tidigits"
	sed -E 's/ \(([^)]*)\)$/\t\1/' "$T/tidigits.lsn" | while IFS=$'\t' read -r text id; do
		printf '#JSGF V1.0;\ngrammar one;\npublic <s> = %s ;\n' "$text" >"$TMP/t.gram"
		echo "$id" >"$TMP/t.ctl"
		pocketsphinx_batch -hmm "$T/hmm" -jsgf "$TMP/t.gram" -dict "$T/lm/tidigits.dic" -ctl "$TMP/t.ctl" \
			-cepdir "$T" -cepext .mfc -hypseg "$TMP/t.seg" >/dev/null 2>&1
		# hypseg: id S . T . A . L . then (start_frame ascr lscr word)... end_frame
		awk -v src="pocketsphinx/tidigits/$id.mfc" '{
			n = 0
			for (i = 10; i + 3 <= NF; i += 4) { sf[n] = $i; w[n] = $(i+3); n++ }
			sf[n] = $NF
			for (k = 0; k < n; k++) if (w[k] !~ /^[<(]/) printf "%s\t%.2f\t%.2f\t%s\n", src, sf[k]/100, sf[k+1]/100, w[k]
		}' "$TMP/t.seg"
	done
} >"$OUT"
echo "wrote $OUT ($(($(wc -l <"$OUT") - 1)) words)" >&2
