#!/usr/bin/python3
"""Reference Kaldi features for core/audio/kaldi, from torchaudio.compliance.kaldi.

Run with Debian's python (python3-torchaudio, python3-torch, python3-numpy):

    /usr/bin/python3 scripts/ref/kaldi_features.py [CACHE]

CACHE defaults to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}; scripts/setup.sh puts the real recordings
there (data/speech/...). The 44.1 kHz clip is core/audio/testdata/cards001_44k.wav, made with
`sox -D pocketsphinx/cards/001.wav -r 44100 -b 16 cards001_44k.wav` (no native 44.1 kHz WAV is
reachable here).

Each case runs torchaudio on the int16-valued samples (as Kaldi reads them, not scaled to
[-1, 1]) twice: in float64 and in float32. The Go test accepts a cell when
|go - ref64| <= k * |ref32 - ref64| (or a tiny absolute bound), and wants floor cells exactly.

Writes core/audio/testdata/kaldi_ref.npz (compressed; arrays "<case>.f64", "<case>.f32", "<case>.frames")
and kaldi_ref.json (the cases: clip, kind, options, which frames were kept), plus the float32
mel banks, DCT matrices and lifters torchaudio used (the Go test checks its own against them and
also runs the feature pipeline on torchaudio's, so a last-bit difference in a float32 log cannot
hide or fake a pipeline error), and
torchaudio.functional.melscale_fbanks / transforms.Spectrogram values for the STFT and mel code.
"""
import hashlib
import json
import os
import sys
import wave

# torch's SIMD float32 log/cos (SLEEF) differ from libm in the last bit now and then, and
# torchaudio builds its mel banks and DCT in float32: pin the portable kernels (libm), so the
# reference does not depend on this machine's CPU.
os.environ["ATEN_CPU_CAPABILITY"] = "default"

import numpy as np
import torch
import torchaudio
import torchaudio.compliance.kaldi as K
import torchaudio.functional as F

from paddle_cache import cache_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "core", "audio", "testdata")

CACHE = sys.argv[1] if len(sys.argv) > 1 else cache_dir()
SPEECH = os.path.join(CACHE, "data", "speech")

# name -> (path relative to CACHE/data/speech or "testdata:<file>", format, rate)
CLIPS = {
    "hts1a_8k": ("codec2/wav/hts1a.wav", "wav", 8000),
    "librivox_16k": ("pocketsphinx/librivox/sense_and_sensibility_01_austen_64kb-0880.wav", "wav", 16000),
    "goforward_16k_raw": ("pocketsphinx/goforward.raw", "s16le", 16000),
    "cards_44k": ("testdata:cards001_44k.wav", "wav", 44100),
    "frontleft_48k": ("alsa/Front_Left.wav", "wav", 48000),
}


def load(name):
    rel, fmt, rate = CLIPS[name]
    path = os.path.join(OUT, rel[9:]) if rel.startswith("testdata:") else os.path.join(SPEECH, rel)
    if fmt == "wav":
        with wave.open(path, "rb") as w:
            assert w.getsampwidth() == 2 and w.getnchannels() == 1 and w.getframerate() == rate, path
            data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    else:
        data = np.fromfile(path, dtype="<i2")
    return data.astype(np.float64), hashlib.sha256(data.astype("<i2").tobytes()).hexdigest()


def run(kind, x, rate, opts, dtype):
    w = torch.tensor(x, dtype=dtype).unsqueeze(0)
    fn = {"fbank": K.fbank, "mfcc": K.mfcc, "spectrogram": K.spectrogram}[kind]
    return fn(w, sample_frequency=float(rate), dither=0.0, **opts).numpy()


def main():
    arrays, cases, clips = {}, [], {}
    audio = {}
    for name in CLIPS:
        x, digest = load(name)
        audio[name] = x
        clips[name] = {"path": CLIPS[name][0], "format": CLIPS[name][1], "rate": CLIPS[name][2],
                       "samples": len(x), "sha256_s16le": digest}

    def case(cname, clip, kind, opts, step=1, limit=None):
        x, rate = audio[clip], CLIPS[clip][2]
        r64 = run(kind, x, rate, opts, torch.float64)
        r32 = run(kind, x, rate, opts, torch.float32)
        frames = np.arange(0, r64.shape[0], step)
        if limit is not None:
            frames = frames[:limit]
        arrays[cname + ".f64"] = r64[frames].astype("<f8")
        arrays[cname + ".f32"] = r32[frames].astype("<f4")
        arrays[cname + ".frames"] = frames.astype("<i8")
        cases.append({"name": cname, "clip": clip, "kind": kind, "options": opts,
                      "num_frames": int(r64.shape[0])})

    # Defaults at every rate: fbank and mfcc on all frames, spectrogram on every 10th (20th) frame.
    for clip in CLIPS:
        case(clip + "/fbank", clip, "fbank", {})
        case(clip + "/mfcc", clip, "mfcc", {})
        case(clip + "/spectrogram", clip, "spectrogram", {}, step=10 if CLIPS[clip][2] <= 16000 else 20)

    # Option variants on the 16 kHz and 8 kHz clips (first 40 frames, except where an option
    # acts on the whole utterance).
    v = "librivox_16k"
    variants = [
        ("fbank", {"window_type": "hamming"}),
        ("fbank", {"window_type": "hanning"}),
        ("fbank", {"window_type": "rectangular"}),
        ("fbank", {"window_type": "blackman", "blackman_coeff": 0.42}),
        ("fbank", {"snip_edges": False}),
        ("fbank", {"use_energy": True}),
        ("fbank", {"use_energy": True, "htk_compat": True, "raw_energy": False}),
        ("fbank", {"use_energy": True, "energy_floor": 0.0}),
        ("fbank", {"use_log_fbank": False}),
        ("fbank", {"use_power": False}),
        ("fbank", {"num_mel_bins": 80, "low_freq": 60.0, "high_freq": -400.0}),
        ("fbank", {"num_mel_bins": 40, "high_freq": 7000.0, "round_to_power_of_two": False}),
        ("fbank", {"preemphasis_coefficient": 0.0, "remove_dc_offset": False}),
        ("fbank", {"frame_length": 20.0, "frame_shift": 5.0}),
        ("fbank", {"subtract_mean": True}),
        ("mfcc", {"use_energy": True}),
        ("mfcc", {"use_energy": True, "htk_compat": True}),
        ("mfcc", {"htk_compat": True}),
        ("mfcc", {"num_ceps": 20, "num_mel_bins": 40, "cepstral_lifter": 0.0}),
        ("mfcc", {"snip_edges": False, "window_type": "hamming", "subtract_mean": True}),
        ("spectrogram", {"energy_floor": 0.0, "raw_energy": False}),
        ("spectrogram", {"snip_edges": False, "round_to_power_of_two": False}),
    ]
    for i, (kind, opts) in enumerate(variants):
        case("%s/%s/v%02d" % (v, kind, i), v, kind, opts, limit=20 if kind == "spectrogram" else 40)
    case("hts1a_8k/fbank/snip", "hts1a_8k", "fbank", {"snip_edges": False, "num_mel_bins": 15}, limit=40)

    # The float32 mel banks, DCT matrices and lifters of every fbank/mfcc case.
    banks, dcts = [], []
    for c in cases:
        if c["kind"] == "spectrogram":
            continue
        o, rate = c["options"], float(CLIPS[c["clip"]][2])
        size = int(rate * o.get("frame_length", 25.0) * 0.001)
        pad = 1 << (size - 1).bit_length() if o.get("round_to_power_of_two", True) else size
        n, lo, hi = o.get("num_mel_bins", 23), o.get("low_freq", 20.0), o.get("high_freq", 0.0)
        key = "melbank/%d_%d_%g_%g_%g" % (n, pad, rate, lo, hi)
        if key not in arrays:
            b, _ = K.get_mel_banks(n, pad, rate, lo, hi, 100.0, -500.0, 1.0)
            arrays[key] = b.numpy().astype("<f4")
            banks.append({"name": key, "num_bins": n, "padded": pad, "rate": rate, "low_freq": lo, "high_freq": hi})
        if c["kind"] == "mfcc":
            nc, lift = o.get("num_ceps", 13), o.get("cepstral_lifter", 22.0)
            key = "dct/%d_%d" % (nc, n)
            if key not in arrays:
                arrays[key] = K._get_dct_matrix(nc, n).numpy().astype("<f4")
                dcts.append({"name": key, "num_ceps": nc, "num_mel_bins": n})
            key = "lifter/%d_%g" % (nc, lift)
            if key not in arrays and lift != 0:
                arrays[key] = K._get_lifter_coeffs(nc, lift).numpy().astype("<f4")
                dcts.append({"name": key, "num_ceps": nc, "cepstral_lifter": lift})

    # torchaudio.functional.melscale_fbanks (HTK and Slaney scales, with and without Slaney norm), float64.
    fb = []
    for (nf, lo, hi, nm, sr, norm, scale) in [(201, 0.0, 8000.0, 40, 16000, None, "htk"),
                                              (201, 0.0, 8000.0, 40, 16000, "slaney", "slaney"),
                                              (257, 20.0, 7600.0, 64, 16000, "slaney", "htk"),
                                              (513, 0.0, 24000.0, 64, 48000, None, "slaney")]:
        m = F.melscale_fbanks(nf, lo, hi, nm, sr, norm=norm, mel_scale=scale)
        key = "melscale/%d_%g_%g_%d_%d_%s_%s" % (nf, lo, hi, nm, sr, norm, scale)
        arrays[key] = m.numpy().astype("<f4")
        fb.append({"name": key, "n_freqs": nf, "f_min": lo, "f_max": hi, "n_mels": nm,
                   "sample_rate": sr, "norm": norm or "", "mel_scale": scale})

    # torchaudio.transforms.Spectrogram / MelSpectrogram on the first 0.5 s of the 16 kHz clip,
    # samples scaled to [-1, 1) (float64).
    xs = torch.tensor(audio["librivox_16k"][:8000] / 32768.0, dtype=torch.float64)
    stft = []
    for (nfft, hop, win, power, center) in [(400, 160, 400, 2.0, True), (512, 128, 400, 1.0, True),
                                            (256, 100, 256, 2.0, False)]:
        t = torchaudio.transforms.Spectrogram(n_fft=nfft, hop_length=hop, win_length=win, power=power,
                                              center=center, pad_mode="reflect", normalized=False,
                                              window_fn=torch.hann_window, wkwargs={"dtype": torch.float64})
        key = "stft/%d_%d_%d_%g_%s" % (nfft, hop, win, power, center)
        arrays[key] = t(xs).numpy().T[:20].astype("<f8")  # (frames, bins), first 20 frames
        stft.append({"name": key, "n_fft": nfft, "hop": hop, "win": win, "power": power, "center": center})
    mel = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=40,
                                               window_fn=torch.hann_window, wkwargs={"dtype": torch.float64},
                                               norm="slaney", mel_scale="slaney")
    mel = mel.to(torch.float64)
    arrays["melspec/400_160_40_slaney"] = mel(xs).numpy().T[:20].astype("<f8")

    np.savez_compressed(os.path.join(OUT, "kaldi_ref.npz"), **arrays)
    meta = {"torchaudio": torchaudio.__version__, "torch": torch.__version__, "clips": clips,
            "cases": cases, "melbanks": banks, "dcts": dcts, "melscale": fb, "stft": stft}
    with open(os.path.join(OUT, "kaldi_ref.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %d arrays, %.0f KB" % (len(arrays), os.path.getsize(os.path.join(OUT, "kaldi_ref.npz")) / 1024))


if __name__ == "__main__":
    main()
