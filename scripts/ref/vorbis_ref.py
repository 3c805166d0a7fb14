#!/usr/bin/python3
"""Reference decodes for core/audio/vorbis: libvorbis's own float output.

For each .ogg given, decodes it with libvorbisfile (ov_open/ov_read_float,
through ctypes: no Python binding needed) and writes next to it
<name>.f32: little-endian float32, channel-major (all of channel 0, then
channel 1, ...), and <name>.json: {"rate", "channels", "frames"}.
These are the samples libvorbis hands to every player before any 16-bit
conversion (sox converts them to 16-bit, losing ~1.5e-5).

Usage: scripts/ref/vorbis_ref.py core/audio/testdata/vorbis/*.ogg
Run once here (Debian libvorbisfile3 1.3.7); the outputs are committed.

With --stats DIR OUT.json it instead summarises a sample of the Tux Paint
sounds under DIR (scripts/fetch_tuxpaint_sounds.sh: every 100th .ogg in
sorted path order, plus the two cut-off Malayalam descriptions): per file
its rate, channel count, frame count and per-channel RMS and peak, so the
Go test can check the decoder where sox is absent.
"""
import ctypes
import json
import struct
import sys

vf_lib = ctypes.CDLL("libvorbisfile.so.3")
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


class VorbisInfo(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int), ("channels", ctypes.c_int), ("rate", ctypes.c_long)]


vf_lib.ov_open.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_long]
vf_lib.ov_info.restype = ctypes.POINTER(VorbisInfo)
vf_lib.ov_info.argtypes = [ctypes.c_void_p, ctypes.c_int]
vf_lib.ov_read_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(ctypes.POINTER(ctypes.c_float))),
                                 ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
vf_lib.ov_read_float.restype = ctypes.c_long
vf_lib.ov_clear.argtypes = [ctypes.c_void_p]


def decode(path):
    vf = ctypes.create_string_buffer(8192)  # larger than sizeof(OggVorbis_File)
    fp = libc.fopen(path.encode(), b"rb")
    if not fp or vf_lib.ov_open(fp, vf, None, 0) != 0:
        raise SystemExit(f"{path}: ov_open failed")
    info = vf_lib.ov_info(vf, -1).contents
    ch, rate = info.channels, info.rate
    chans = [[] for _ in range(ch)]
    pcm = ctypes.POINTER(ctypes.POINTER(ctypes.c_float))()
    bs = ctypes.c_int()
    while True:
        n = vf_lib.ov_read_float(vf, ctypes.byref(pcm), 4096, ctypes.byref(bs))
        if n == 0:
            break
        if n < 0:
            raise SystemExit(f"{path}: ov_read_float error {n}")
        for c in range(ch):
            chans[c].extend(pcm[c][:n])
    vf_lib.ov_clear(vf)  # closes fp
    return rate, chans


def stats(root, out):
    import math
    import os
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in names if n.endswith(".ogg")]
    files.sort()
    pick = files[::100] + [f for f in files if f.endswith(("adeenia_desc_ml.ogg", "anthoorium_desc_ml.ogg"))]
    res = {}
    for f in pick:
        rate, chans = decode(f)
        res[os.path.relpath(f, root)] = {
            "rate": rate, "channels": len(chans), "frames": len(chans[0]),
            "rms": [math.sqrt(sum(x * x for x in c) / max(1, len(c))) for c in chans],
            "peak": [max((abs(x) for x in c), default=0) for c in chans],
        }
    with open(out, "w") as fh:
        json.dump(res, fh, indent=0, sort_keys=True)
        fh.write("\n")
    print(out, len(res), "files")


if len(sys.argv) == 4 and sys.argv[1] == "--stats":
    stats(sys.argv[2], sys.argv[3])
    sys.exit(0)

for path in sys.argv[1:]:
    rate, chans = decode(path)
    stem = path[: -len(".ogg")]
    with open(stem + ".f32", "wb") as f:
        for c in chans:
            f.write(struct.pack("<%df" % len(c), *c))
    with open(stem + ".json", "w") as f:
        json.dump({"rate": rate, "channels": len(chans), "frames": len(chans[0])}, f)
        f.write("\n")
    print(path, rate, len(chans), len(chans[0]))
