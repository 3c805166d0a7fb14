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
