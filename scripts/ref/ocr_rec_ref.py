#!/usr/bin/python3
"""Reference values for kits/ocr/rectrain (run with /usr/bin/python3; needs
Debian python3-opencv, python3-numpy, python3-levenshtein):

- RecMetric as PaddleOCR's ppocr/metrics/rec_metric.py computes it (ignore_space
  True, is_filter False): acc = correct/(n+1e-5), norm_edit_dis =
  1 - sum(rapidfuzz Levenshtein.normalized_distance)/(n+1e-5). rapidfuzz is not
  packaged in Debian; its normalized_distance (unit weights) is documented as
  distance / max(len1, len2) (0 for two empty strings), computed here from
  python-Levenshtein's distance;
- PP-OCR's resize_norm_img / resize_norm_img_chinese on small images with cv2.resize.

Writes kits/ocr/rectrain/testdata/rec_ref.json.
"""
import json
import math
import os

import cv2
import numpy as np
import Levenshtein

PAIRS = [
    ("hello", "hello"), ("hel lo", "hello"), ("helo", "hello"), ("", "abc"), ("", ""),
    ("abcdef", "azced"), ("kitten", "sitting"), ("ÉLAN", "ELAN"), ("12 34", "1234"), ("x", "yz"),
]


def normalized_distance(a, b):
    n = max(len(a), len(b))
    return Levenshtein.distance(a, b) / n if n else 0.0


def rec_metric(pairs):
    correct, n, ned = 0, 0, 0.0
    for pred, target in pairs:
        pred, target = pred.replace(" ", ""), target.replace(" ", "")
        ned += normalized_distance(pred, target)
        correct += pred == target
        n += 1
    return {"acc": correct / (n + 1e-5), "norm_edit_dis": 1 - ned / (n + 1e-5),
            "per_pair": [normalized_distance(p.replace(" ", ""), t.replace(" ", "")) for p, t in pairs]}


def resize_norm(img, shape, eval_mode):
    c, h, w = shape
    ratio = img.shape[1] / float(img.shape[0])
    if eval_mode:
        w = int(h * max(w * 1.0 / h, ratio))
    rw = w if math.ceil(h * ratio) > w else int(math.ceil(h * ratio))
    r = cv2.resize(img, (rw, h)).astype("float32")
    r = r.transpose((2, 0, 1)) / 255
    r -= 0.5
    r /= 0.5
    out = np.zeros((c, h, w), dtype=np.float32)
    out[:, :, 0:rw] = r
    return out, min(1.0, float(rw / w))


def main():
    rng = np.random.default_rng(7)
    cases = []
    for (ih, iw), shape, ev in [((10, 29), [3, 8, 20], False), ((7, 45), [3, 8, 20], False),
                                ((7, 45), [3, 8, 20], True), ((15, 6), [3, 8, 20], False)]:
        img = rng.integers(0, 256, size=(ih, iw, 3), dtype=np.uint8)
        out, vr = resize_norm(img, shape, ev)
        cases.append({"h": ih, "w": iw, "pix": img.flatten().tolist(), "shape": shape, "eval_mode": ev,
                      "out_shape": list(out.shape), "out": [round(float(v), 6) for v in out.flatten()], "valid_ratio": vr})
    ref = {"pairs": PAIRS, "metric": rec_metric(PAIRS), "resize": cases}
    path = os.path.join(os.path.dirname(__file__), "../../kits/ocr/rectrain/testdata/rec_ref.json")
    with open(path, "w") as f:
        json.dump(ref, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
