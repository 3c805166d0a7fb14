#!/usr/bin/env python3
"""randnpy.py OUT.npy D0,D1,... — a float32 .npy of uniform [-1, 1) values (seed 7), written with the
standard library only, so the benchmark scripts run where NumPy is not installed (a fresh ARM
machine). Timing inputs only: the values differ from NumPy's RandomState(7)."""
import array
import random
import struct
import sys

out, dims = sys.argv[1], [int(v) for v in sys.argv[2].split(',')]
n = 1
for d in dims:
    n *= d
r = random.Random(7)
shape = '(' + ', '.join(map(str, dims)) + (',)' if len(dims) == 1 else ')')
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
header += ' ' * (63 - (10 + len(header)) % 64) + '\n'  # total header length a multiple of 64
data = array.array('f', (r.uniform(-1, 1) for _ in range(n)))
if sys.byteorder != 'little':
    data.byteswap()
with open(out, 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1'))
    f.write(data.tobytes())
