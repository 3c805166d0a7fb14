#!/usr/bin/env bash
# asr_pocketsphinx_list.sh LIST: the pocketsphinx baseline on any manifest of the speech
# kit's recogniser (<audio><TAB><normalised text> lines, as `paddle speech asr-data` writes):
# each file is converted by sox to 16 kHz mono 16-bit WAV, decoded by Debian pocketsphinx
# 0.8 + pocketsphinx-en-us (general en-us 3-gram LM, CMUdict, no test grammar) and scored
# with the standard corpus WER/CER as scripts/ref/asr_pocketsphinx.sh does. English only
# (there is no other pocketsphinx model in Debian). A reference, run by hand:
#   apt-get install -y pocketsphinx pocketsphinx-en-us sox libsox-fmt-all
#   scripts/ref/asr_pocketsphinx_list.sh data/asr_real/tuxpaint_en_test.list
set -euo pipefail
LIST="$1"
P=/usr/share/pocketsphinx/model/en-us
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
while IFS=$'\t' read -r path text; do
	sox "$path" -r 16000 -c 1 -b 16 "$TMP/x.wav"
	hyp="$(pocketsphinx_continuous -infile "$TMP/x.wav" -hmm "$P/en-us" -lm "$P/en-us.lm.bin" \
		-dict "$P/cmudict-en-us.dict" 2>/dev/null | tr '\n' ' ')"
	printf 'list\t%s\t%s\t%s\n' "$path" "$text" "$hyp"
done <"$LIST" >"$TMP/hyp.tsv"
cat "$TMP/hyp.tsv"
/usr/bin/python3 - "$TMP/hyp.tsv" <<'PY'
import sys, re
def lev(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[-1]
def norm(s):
    s = re.sub(r"\(\d+\)", " ", s.lower())
    s = re.sub(r"[^a-z' ]", " ", s)
    return " ".join(w.strip("'") for w in s.split() if w.strip("'"))
we = w = ce = c = n = 0
for line in open(sys.argv[1]):
    _, _, ref, hyp = line.rstrip("\n").split("\t")
    r, h = norm(ref), norm(hyp)
    we += lev(r.split(), h.split()); w += len(r.split())
    ce += lev(r, h); c += len(r); n += 1
print(f"all\tutterances={n}\twer={we/w:.4f} ({we}/{w})\tcer={ce/c:.4f} ({ce}/{c})")
PY
