#!/usr/bin/env python3
"""vad_segments_ref.py — silero-vad's get_speech_timestamps post-processing
(utils_vad.py, v5.1: threshold / neg_threshold hysteresis, min speech and
silence, max_speech_duration_s split on the longest silence, speech padding),
transcribed with plain Python floats (no torch), run on the per-window
probabilities of scripts/ref/silero_vad_ref.mjs: the reference for
core/audio/vad's Timestamps.

    vad_segments_ref.py probs.json > segments.json

probs.json is a JSON list of {name, model, rate, window, samples, probs}; the
output adds "cases": for each option set below, {options, segments} with
segments as [start, end] sample pairs.
"""
import json
import math
import sys

OPTION_SETS = [
    dict(threshold=0.5),
    dict(threshold=0.3),
    dict(threshold=0.7, min_silence_duration_ms=300, speech_pad_ms=60),
    dict(threshold=0.5, min_speech_duration_ms=100, min_silence_duration_ms=50, speech_pad_ms=100),
    dict(threshold=0.5, max_speech_duration_s=1.0),
    dict(threshold=0.5, max_speech_duration_s=0.6, min_silence_duration_ms=300),
    # durations of whole windows at both rates: the strict / non-strict comparisons matter
    dict(threshold=0.5, min_speech_duration_ms=64, min_silence_duration_ms=64, speech_pad_ms=32),
    dict(threshold=0.6, neg_threshold=0.2, min_speech_duration_ms=128, min_silence_duration_ms=32,
         speech_pad_ms=0, max_speech_duration_s=0.512),
]


def speech_timestamps(speech_probs, audio_length_samples, sampling_rate, threshold=0.5,
                      min_speech_duration_ms=250, max_speech_duration_s=math.inf,
                      min_silence_duration_ms=100, speech_pad_ms=30, neg_threshold=None,
                      min_silence_at_max_speech=98):
    window_size_samples = 512 if sampling_rate == 16000 else 256
    min_speech_samples = sampling_rate * min_speech_duration_ms / 1000
    speech_pad_samples = sampling_rate * speech_pad_ms / 1000
    max_speech_samples = sampling_rate * max_speech_duration_s - window_size_samples - 2 * speech_pad_samples
    min_silence_samples = sampling_rate * min_silence_duration_ms / 1000
    min_silence_samples_at_max_speech = sampling_rate * min_silence_at_max_speech / 1000

    triggered = False
    speeches = []
    current_speech = {}
    if neg_threshold is None:
        neg_threshold = max(threshold - 0.15, 0.01)
    temp_end = 0
    prev_end = next_start = 0
    possible_ends = []

    for i, speech_prob in enumerate(speech_probs):
        at = window_size_samples * i
        if speech_prob >= threshold and temp_end:
            sil_dur = at - temp_end
            if sil_dur > min_silence_samples_at_max_speech:
                possible_ends.append((temp_end, sil_dur))
            temp_end = 0
            if next_start < prev_end:
                next_start = at
        if speech_prob >= threshold and not triggered:
            triggered = True
            current_speech['start'] = at
            continue
        if triggered and at - current_speech['start'] > max_speech_samples:
            if possible_ends:
                prev_end, dur = max(possible_ends, key=lambda x: x[1])
                current_speech['end'] = prev_end
                speeches.append(current_speech)
                current_speech = {}
                next_start = prev_end + dur
                if next_start < prev_end + at:
                    current_speech['start'] = next_start
                else:
                    triggered = False
                possible_ends = [p for p in possible_ends if p[0] > next_start]
                prev_end = next_start = temp_end = 0
            else:
                current_speech['end'] = at
                speeches.append(current_speech)
                current_speech = {}
                prev_end = next_start = temp_end = 0
                triggered = False
                possible_ends = []
                continue
        if speech_prob < neg_threshold and triggered:
            if not temp_end:
                temp_end = at
            if at - temp_end < min_silence_samples:
                continue
            current_speech['end'] = temp_end
            if current_speech['end'] - current_speech['start'] > min_speech_samples:
                speeches.append(current_speech)
            current_speech = {}
            prev_end = next_start = temp_end = 0
            triggered = False
            possible_ends = []
            continue

    if current_speech and audio_length_samples - current_speech['start'] > min_speech_samples:
        current_speech['end'] = audio_length_samples
        speeches.append(current_speech)

    for i, speech in enumerate(speeches):
        if i == 0:
            speech['start'] = int(max(0, speech['start'] - speech_pad_samples))
        if i != len(speeches) - 1:
            silence_duration = speeches[i + 1]['start'] - speech['end']
            if silence_duration < 2 * speech_pad_samples:
                speech['end'] += int(silence_duration // 2)
                speeches[i + 1]['start'] = int(max(0, speeches[i + 1]['start'] - silence_duration // 2))
            else:
                speech['end'] = int(min(audio_length_samples, speech['end'] + speech_pad_samples))
                speeches[i + 1]['start'] = int(max(0, speeches[i + 1]['start'] - speech_pad_samples))
        else:
            speech['end'] = int(min(audio_length_samples, speech['end'] + speech_pad_samples))
    return [[s['start'], s['end']] for s in speeches]


def main():
    refs = json.load(open(sys.argv[1]))
    for r in refs:
        # probabilities as float32 values, which is what the Go side compares in float64
        r['cases'] = [dict(options=o, segments=speech_timestamps(r['probs'], r['samples'], r['rate'], **o))
                      for o in OPTION_SETS]
    json.dump(refs, sys.stdout, separators=(',', ':'))
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
