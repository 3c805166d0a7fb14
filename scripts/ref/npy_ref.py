#!/usr/bin/python3
"""Write the golden .npy files core/io's tests read (run with Debian's
python3-numpy: /usr/bin/python3 scripts/ref/npy_ref.py).

Every array holds the same 2x3 pattern k = 0..5 so the Go test can rebuild
the expected values: floats (k-2)*1.5, signed ints k-2, uint8 k*50, bool k%2==0.
"""
import os
import numpy as np

out = os.path.join(os.path.dirname(__file__), "..", "..", "core", "io", "testdata")
os.makedirs(out, exist_ok=True)
k = np.arange(6).reshape(2, 3)
arrays = {
    "f4": ((k - 2) * 1.5).astype("<f4"),
    "f8": ((k - 2) * 1.5).astype("<f8"),
    "i8": (k - 2).astype("<i8"),
    "i4": (k - 2).astype("<i4"),
    "u1": (k * 50).astype("|u1"),
    "i1": (k - 2).astype("|i1"),
    "b1": (k % 2 == 0),
}
for name, a in arrays.items():
    np.save(os.path.join(out, "np_%s.npy" % name), a)

# Variants: Fortran order, big-endian, half precision, scalar, empty, 3-D.
np.save(os.path.join(out, "np_f4_fortran.npy"), np.asfortranarray(arrays["f4"]))
np.save(os.path.join(out, "np_f8_big.npy"), arrays["f8"].astype(">f8"))
np.save(os.path.join(out, "np_f2.npy"), arrays["f4"].astype("<f2"))
np.save(os.path.join(out, "np_scalar.npy"), np.array(3.25, dtype="<f8"))
np.save(os.path.join(out, "np_empty.npy"), np.zeros((0, 3), dtype="<f4"))
np.save(os.path.join(out, "np_i4_3d_fortran.npy"),
        np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4)))

# Format versions 2.0 and 3.0 through numpy's own writer.
from numpy.lib import format as npf
for ver in [(2, 0), (3, 0)]:
    with open(os.path.join(out, "np_f4_v%d.npy" % ver[0]), "wb") as f:
        npf.write_array(f, arrays["f4"], version=ver)
print("wrote", out)
