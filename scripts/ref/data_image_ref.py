#!/usr/bin/python3
"""Golden images for core/data (run: /usr/bin/python3 scripts/ref/data_image_ref.py).

Resize: OpenCV cv2.resize(INTER_LINEAR) of small random uint8 images.
Colour: torchvision.transforms.functional adjust_brightness / adjust_contrast /
adjust_saturation on uint8 CHW tensors (Debian python3-torchvision).
All arrays are saved as .npy in HWC layout.
"""
import os
import numpy as np
import cv2
import torch
import torchvision.transforms.functional as F

out = os.path.join(os.path.dirname(__file__), "..", "..", "core", "data", "testdata")
os.makedirs(out, exist_ok=True)
rng = np.random.RandomState(0)
srcs = {
    "rgb": rng.randint(0, 256, size=(23, 31, 3), dtype=np.uint8),
    "even": rng.randint(0, 256, size=(24, 32, 3), dtype=np.uint8),
    "gray": rng.randint(0, 256, size=(9, 13), dtype=np.uint8),
}
for k, v in srcs.items():
    np.save(os.path.join(out, "src_%s.npy" % k), v)

cases = [("rgb", 15, 11), ("rgb", 50, 40), ("rgb", 8, 45), ("rgb", 31, 7),
         ("even", 16, 12), ("even", 64, 48), ("gray", 20, 5), ("gray", 3, 30)]
for name, w, h in cases:
    np.save(os.path.join(out, "resize_%s_%dx%d.npy" % (name, w, h)),
            cv2.resize(srcs[name], (w, h), interpolation=cv2.INTER_LINEAR))

chw = torch.from_numpy(srcs["rgb"]).permute(2, 0, 1).contiguous()
for f in [0.0, 0.5, 1.3, 2.0]:
    for fn in ["brightness", "contrast", "saturation"]:
        y = getattr(F, "adjust_" + fn)(chw, f)
        np.save(os.path.join(out, "%s_%.1f.npy" % (fn, f)), y.permute(1, 2, 0).numpy())
print("wrote", out)

# A lossless WebP (Go's x/image has a WebP decoder but no encoder) of a
# 5x4 pattern; the test knows the pixels: (x*50, y*60, (x+y)*20).
from PIL import Image
pat = np.zeros((4, 5, 3), dtype=np.uint8)
for y in range(4):
    for x in range(5):
        pat[y, x] = (x * 50, y * 60, (x + y) * 20)
Image.fromarray(pat).save(os.path.join(out, "pattern.webp"), lossless=True)
