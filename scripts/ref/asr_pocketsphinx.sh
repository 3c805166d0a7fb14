#!/usr/bin/env bash
# asr_pocketsphinx.sh: the pocketsphinx baseline of the speech kit's ASR evaluation.
# Decodes the real pocketsphinx-testdata utterances (librivox/*.wav: 5 LibriVox
# sentences; cards/*.wav: 5 card names) with Debian pocketsphinx 0.8 + pocketsphinx-en-us
# (continuous HMM, the general en-us 3-gram LM and CMUdict; no test-specific grammar)
# and scores them with the standard corpus WER/CER (Levenshtein over words / characters,
# edits summed over utterances, divided by the reference length), as core/metric does.
# A reference only, never a runtime dependency. Run by hand (not in CI):
#   apt-get install -y pocketsphinx pocketsphinx-en-us
#   scripts/ref/asr_pocketsphinx.sh > docs/... (prints a TSV of hypotheses, then the rates)
set -euo pipefail
D="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/data/speech/pocketsphinx"
P=/usr/share/pocketsphinx/model/en-us
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
for set in librivox:transcription cards:cards.transcription; do
	sub="${set%%:*}"; tr="${set#*:}"
	sed -E 's/^ *(<s>)? *(.*[^ ]) *(<\/s>)? *\(([^)]*)\) *$/\4\t\2/; s/ *<\/s>//' "$D/$sub/$tr" | while IFS=$'\t' read -r id text; do
		hyp="$(pocketsphinx_continuous -infile "$D/$sub/$id.wav" -hmm "$P/en-us" -lm "$P/en-us.lm.bin" \
			-dict "$P/cmudict-en-us.dict" 2>/dev/null | tr '\n' ' ')"
		printf '%s\t%s\t%s\t%s\n' "$sub" "$id" "$text" "$hyp"
	done
done >"$TMP/hyp.tsv"
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
tot = {}
for line in open(sys.argv[1]):
    sub, _, ref, hyp = line.rstrip("\n").split("\t")
    r, h = norm(ref), norm(hyp)
    for key in (sub, "all"):
        t = tot.setdefault(key, [0, 0, 0, 0, 0])
        t[0] += lev(r.split(), h.split()); t[1] += len(r.split())
        t[2] += lev(r, h); t[3] += len(r); t[4] += 1
for key, (we, w, ce, c, n) in tot.items():
    print(f"{key}\tutterances={n}\twer={we/w:.4f} ({we}/{w})\tcer={ce/c:.4f} ({ce}/{c})")
PY
