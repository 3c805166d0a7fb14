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

# Rotation: torchvision's rotate (bilinear, constant fill) about the image centre.
from torchvision.transforms import InterpolationMode
for ang in [17.0, -30.0, 90.0]:
    y = F.rotate(chw, ang, interpolation=InterpolationMode.BILINEAR, fill=[9.0])
    np.save(os.path.join(out, "rotate_%g.npy" % ang), y.permute(1, 2, 0).numpy())
    # Where all four bilinear neighbours lie inside the source: a white
    # image rotated with fill 0 stays exactly 255 there.
    ones = torch.full((1, 23, 31), 255, dtype=torch.uint8)
    m = F.rotate(ones, ang, interpolation=InterpolationMode.BILINEAR, fill=[0.0])
    np.save(os.path.join(out, "rotate_mask_%g.npy" % ang), (m[0] == 255).numpy())

# Decoding: JPEGs written by PIL with 4:4:4, 4:2:2 and 4:2:0 chroma
# subsampling and a PNG, read back by OpenCV (cv2.imread in colour, BGR, and
# in grayscale). Odd sizes and sharp colour edges exercise chroma upsampling.
yy, xx = np.mgrid[0:25, 0:33]
photo = np.stack([(xx * 8) % 256, (yy * 10) % 256, ((xx + yy) * 4) % 256], axis=-1).astype(np.uint8)
photo[5:14, 7:19] = (250, 20, 30)
photo[12:22, 21:30] = (10, 40, 240)
photo[::7, :] = (255, 255, 0)
Image.fromarray(photo).save(os.path.join(out, "photo.png"))
for sub, name in [(0, "444"), (1, "422"), (2, "420")]:
    Image.fromarray(photo).save(os.path.join(out, "photo_%s.jpg" % name), quality=90, subsampling=sub)
for name in ["photo.png", "photo_444.jpg", "photo_422.jpg", "photo_420.jpg"]:
    p = os.path.join(out, name)
    base = name.replace(".", "_")
    np.save(os.path.join(out, base + "_bgr.npy"), cv2.imread(p, cv2.IMREAD_COLOR))
    np.save(os.path.join(out, base + "_gray.npy"), cv2.imread(p, cv2.IMREAD_GRAYSCALE))

# EXIF orientation: the same 12x7 picture saved as JPEG with each EXIF
# Orientation 1..8; cv2.imread and cv2.imdecode both apply the tag.
pic = np.zeros((7, 12, 3), dtype=np.uint8)
pic[:, :] = (40, 40, 40)
pic[0:3, 0:4] = (250, 0, 0)      # red block top-left
pic[0:3, 8:12] = (0, 250, 0)     # green block top-right
pic[4:7, 0:4] = (0, 0, 250)      # blue block bottom-left
for o in range(1, 9):
    ex = Image.Exif()
    ex[0x0112] = o
    p = os.path.join(out, "exif_%d.jpg" % o)
    Image.fromarray(pic).save(p, quality=95, subsampling=0, exif=ex.tobytes())
    a = cv2.imread(p, cv2.IMREAD_COLOR)
    b = cv2.imdecode(np.fromfile(p, dtype=np.uint8), cv2.IMREAD_COLOR)
    assert (a == b).all(), "imread and imdecode disagree on orientation %d" % o
    np.save(os.path.join(out, "exif_%d_bgr.npy" % o), a)
