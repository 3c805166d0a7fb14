#!/usr/bin/python3
"""Reference values for core/metric/seg and `paddle seg eval` (PaddleSeg's metrics).

Usage (from the repository root, Debian python3-numpy and python3-pil):
    /usr/bin/python3 scripts/ref/seg_metrics_ref.py [path/to/paddleseg/utils/metrics.py]

Writes
  core/metric/seg/testdata/seg_ref.json   cases of prediction/label arrays (or raw areas) with
                                           the areas and every metric PaddleSeg reports
  kits/seg/testdata/eval/{pred,label}/*.png and kits/seg/testdata/eval_ref.json
                                           the same as PNG folders for the CLI test

The numbers come from a line-by-line numpy transcription of PaddleSeg's
paddleseg/utils/metrics.py (develop, last changed in e4a6ab6c, 2024-09-21): calculate_area,
mean_iou, class_measurement, kappa, dice. If the path of the real metrics.py is given (for
example `git show HEAD:paddleseg/utils/metrics.py` of a PaddleSeg checkout, kept outside this
repository), the script also runs the real functions, with `paddle` replaced by a tiny numpy
shim (only logical_and, sum, cast, stack, squeeze and Tensor.numpy are used), and stops if any
number differs from the transcription by even one ulp. Labels are read from the PNGs the way
PaddleSeg's Compose reads them: np.asarray(PIL.Image.open(path)) (palette PNGs give indices).

Seeds are fixed, so a rerun rewrites the same files. Only these numbers and fixtures are
committed; no PaddleSeg code.
"""
import importlib.util
import json
import os
import sys
import types

import numpy as np
from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
METRIC_OUT = os.path.join(ROOT, "core", "metric", "seg", "testdata")
KIT_OUT = os.path.join(ROOT, "kits", "seg", "testdata")


# ---- transcription of paddleseg/utils/metrics.py (numpy only) ----

def calculate_area(pred, label, num_classes, ignore_index=255):
    if pred.shape != label.shape:
        raise ValueError("shape mismatch")
    pred_area, label_area, intersect_area = [], [], []
    mask = label != ignore_index
    for i in range(num_classes):
        pred_i = np.logical_and(pred == i, mask)
        label_i = label == i
        intersect_i = np.logical_and(pred_i, label_i)
        pred_area.append(np.sum(pred_i.astype("int64")))
        label_area.append(np.sum(label_i.astype("int64")))
        intersect_area.append(np.sum(intersect_i.astype("int64")))
    return np.stack(intersect_area), np.stack(pred_area), np.stack(label_area)


def mean_iou(intersect_area, pred_area, label_area):
    union = pred_area + label_area - intersect_area
    class_iou = []
    for i in range(len(intersect_area)):
        if union[i] == 0:
            iou = 1
        else:
            iou = intersect_area[i] / union[i]
        class_iou.append(float(iou))
    return np.array(class_iou), np.mean(class_iou)


def dice(intersect_area, pred_area, label_area):
    union = pred_area + label_area
    class_dice = []
    for i in range(len(intersect_area)):
        if union[i] == 0:
            d = 0
        else:
            d = (2 * intersect_area[i]) / union[i]
        class_dice.append(float(d))
    return np.array(class_dice), np.mean(class_dice)


def class_measurement(intersect_area, pred_area, label_area):
    mean_acc = np.sum(intersect_area) / np.sum(pred_area)
    class_precision, class_recall = [], []
    for i in range(len(intersect_area)):
        precision = 0 if pred_area[i] == 0 else intersect_area[i] / pred_area[i]
        recall = 0 if label_area[i] == 0 else intersect_area[i] / label_area[i]
        class_precision.append(float(precision))
        class_recall.append(float(recall))
    return mean_acc, np.array(class_precision), np.array(class_recall)


def kappa(intersect_area, pred_area, label_area):
    intersect_area = intersect_area.astype(np.float64)
    pred_area = pred_area.astype(np.float64)
    label_area = label_area.astype(np.float64)
    total_area = np.sum(label_area)
    po = np.sum(intersect_area) / total_area
    pe = np.sum(pred_area * label_area) / (total_area * total_area)
    return (po - pe) / (1 - pe)


def metrics_from_areas(I, P, L):
    class_iou, miou = mean_iou(I, P, L)
    acc, prec, rec = class_measurement(I, P, L)
    k = kappa(I, P, L)
    class_dice, mdice = dice(I, P, L)
    return {
        "intersect": [int(v) for v in I], "pred_area": [int(v) for v in P],
        "label_area": [int(v) for v in L],
        "miou": float(miou), "class_iou": [float(v) for v in class_iou],
        "acc": float(acc), "class_precision": [float(v) for v in prec],
        "class_recall": [float(v) for v in rec], "kappa": float(k),
        "mdice": float(mdice), "class_dice": [float(v) for v in class_dice],
    }


# ---- the real metrics.py over a numpy shim of paddle ----

class _T(np.ndarray):
    def numpy(self):
        return np.asarray(self)


def _t(x):
    return np.asarray(x).view(_T)


def load_real(path):
    shim = types.ModuleType("paddle")
    shim.logical_and = lambda a, b: _t(np.logical_and(a, b))
    shim.sum = lambda x, *a, **k: _t(np.sum(x, *a, **k))
    shim.cast = lambda x, dt: _t(np.asarray(x).astype(dt))
    shim.stack = lambda xs, *a, **k: _t(np.stack([np.asarray(x) for x in xs], *a, **k))
    shim.squeeze = lambda x, axis: _t(np.squeeze(x, axis))
    nn = types.ModuleType("paddle.nn")
    nn.functional = types.ModuleType("paddle.nn.functional")
    shim.nn = nn
    sk = types.ModuleType("sklearn")
    sk.metrics = types.ModuleType("sklearn.metrics")
    sys.modules.update({"paddle": shim, "paddle.nn": nn, "paddle.nn.functional": nn.functional,
                        "sklearn": sk, "sklearn.metrics": sk.metrics})
    spec = importlib.util.spec_from_file_location("paddleseg_metrics", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_real(real, I, P, L, want, areas_only):
    """Runs the real functions and compares bit for bit with the transcription."""
    I, P, L = _t(I), _t(P), _t(L)
    class_iou, miou = real.mean_iou(I, P, L)
    acc, prec, rec = real.class_measurement(I, P, L)
    k = real.kappa(I, P, L)
    class_dice, mdice = real.dice(I, P, L)
    got = {"miou": float(miou), "class_iou": [float(v) for v in class_iou], "acc": float(acc),
           "class_precision": [float(v) for v in prec], "class_recall": [float(v) for v in rec],
           "kappa": float(k), "mdice": float(mdice), "class_dice": [float(v) for v in class_dice]}
    for key, v in got.items():
        if v != want[key]:
            sys.exit("real metrics.py differs from the transcription in %s: %r vs %r" % (key, v, want[key]))


def real_areas(real, pairs, C, ignore):
    I = P = L = None
    for pred, label in pairs:
        i, p, l = real.calculate_area(_t(pred[None, None]), _t(label[None, None]), C, ignore_index=ignore)
        i, p, l = np.asarray(i), np.asarray(p), np.asarray(l)
        I, P, L = (i, p, l) if I is None else (I + i, P + p, L + l)
    return I, P, L


# ---- fixtures ----

def blocks(rng, h, w, classes, n=6):
    """A label map of random rectangles of the given classes."""
    m = np.full((h, w), classes[0], dtype=np.uint8)
    for _ in range(n):
        y0, x0 = rng.integers(0, h), rng.integers(0, w)
        y1, x1 = rng.integers(y0 + 1, h + 1), rng.integers(x0 + 1, w + 1)
        m[y0:y1, x0:x1] = rng.choice(classes)
    return m


def noisy(rng, label, classes, p):
    """A prediction: the label with a fraction p of pixels replaced by random classes."""
    pred = label.copy()
    flip = rng.random(label.shape) < p
    pred[flip] = rng.choice(classes, size=int(flip.sum()))
    return pred


def image_case(rng, sizes, C, label_classes, pred_classes, ignore, p_ignore, p_noise):
    pairs = []
    for h, w in sizes:
        label = blocks(rng, h, w, label_classes)
        pred = noisy(rng, label, pred_classes, p_noise)
        pred[~np.isin(pred, pred_classes)] = rng.choice(pred_classes)
        ign = rng.random(label.shape) < p_ignore
        label[ign] = ignore
        # predictions on ignored pixels never count; put junk there (255, out of range)
        pred[ign & (rng.random(label.shape) < 0.5)] = 255
        pairs.append((pred, label))
    return pairs


def areas_of(pairs, C, ignore):
    I = P = L = 0
    for pred, label in pairs:
        i, p, l = calculate_area(pred.astype(np.int64), label.astype(np.int64), C, ignore)
        I, P, L = I + i, P + p, L + l
    return I, P, L


PALETTE = [v for c in range(256) for v in ((c * 67) % 256, (c * 151) % 256, (c * 29 + 90) % 256)]


def save_png(path, arr, palette):
    im = Image.fromarray(arr, mode="P" if palette else "L")
    if palette:
        im.putpalette(PALETTE)
    im.save(path)


def main():
    real = load_real(sys.argv[1]) if len(sys.argv) > 1 else None
    rng = np.random.default_rng(20261130)
    cases = []

    # 5 classes: labels use 0..2, class 3 only in predictions, class 4 nowhere (IoU 1, Dice 0)
    set5 = image_case(rng, [(9, 13), (12, 16), (20, 7), (11, 11)], 5, [0, 1, 2], [0, 1, 2, 3], 255, 0.1, 0.25)
    # 19 classes (numpy's 8-way pairwise mean), sparse classes, some empty
    c19 = image_case(rng, [(30, 40), (25, 33), (17, 29)], 19, [0, 1, 2, 5, 7, 11, 13, 18],
                     [0, 1, 2, 3, 5, 7, 11, 13, 18], 255, 0.05, 0.2)
    # ignore_index inside [0, C): PaddleSeg still counts label==0 in label_area[0]
    ign0 = image_case(rng, [(10, 10), (8, 12)], 3, [0, 1, 2], [0, 1, 2], 0, 0.0, 0.3)
    # no ignored pixels at all, two classes
    two = image_case(rng, [(6, 5)], 2, [0, 1], [0, 1], 255, 0.0, 0.2)
    for name, pairs, C, ignore in [("set5", set5, 5, 255), ("c19", c19, 19, 255),
                                   ("ignore0", ign0, 3, 0), ("two", two, 2, 255)]:
        I, P, L = areas_of(pairs, C, ignore)
        want = metrics_from_areas(I, P, L)
        if real is not None:
            rI, rP, rL = real_areas(real, pairs, C, ignore)
            if not (np.array_equal(rI, I) and np.array_equal(rP, P) and np.array_equal(rL, L)):
                sys.exit("real calculate_area differs in case " + name)
            check_real(real, I, P, L, want, False)
        cases.append({"name": name, "num_classes": C, "ignore_index": ignore,
                      "images": [{"h": int(p.shape[0]), "w": int(p.shape[1]),
                                  "pred": p.ravel().tolist(), "label": l.ravel().tolist()} for p, l in pairs],
                      "want": want})

    # raw areas: 150 classes (pairwise split above 128), counts whose products pass 2**53
    for name, C, scale in [("areas150", 150, 10**9), ("areas7", 7, 10**8)]:
        L = rng.integers(0, scale, size=C, dtype=np.int64)
        P = rng.integers(0, scale, size=C, dtype=np.int64)
        L[rng.random(C) < 0.1] = 0
        P[rng.random(C) < 0.1] = 0
        both = rng.random(C) < 0.05
        L[both], P[both] = 0, 0
        I = (np.minimum(L, P) * rng.random(C)).astype(np.int64)
        want = metrics_from_areas(I, P, L)
        if real is not None:
            check_real(real, I, P, L, want, True)
        cases.append({"name": name, "num_classes": C, "areas": True, "want": want})

    os.makedirs(METRIC_OUT, exist_ok=True)
    with open(os.path.join(METRIC_OUT, "seg_ref.json"), "w") as f:
        json.dump({"source": "paddleseg/utils/metrics.py e4a6ab6c" + (" (real, shimmed)" if real else " (transcribed)"),
                   "cases": cases}, f, separators=(",", ":"))
        f.write("\n")

    # CLI fixture: set5 as PNG folders. Labels 0, 1 gray, 2, 3 palette; predictions palette
    # (PaddleSeg's pseudo-colour output) except the first; one extra file on each side.
    pred_dir, label_dir = os.path.join(KIT_OUT, "eval", "pred"), os.path.join(KIT_OUT, "eval", "label")
    os.makedirs(pred_dir, exist_ok=True)
    os.makedirs(label_dir, exist_ok=True)
    read_back = []
    for k, (pred, label) in enumerate(set5):
        name = "img_%d.png" % k
        save_png(os.path.join(label_dir, name), label, k >= 2)
        save_png(os.path.join(pred_dir, name), pred, k >= 1)
        # read back as PaddleSeg does
        read_back.append((np.asarray(Image.open(os.path.join(pred_dir, name))).astype(np.int64),
                          np.asarray(Image.open(os.path.join(label_dir, name))).astype(np.int64)))
    save_png(os.path.join(pred_dir, "only_pred.png"), set5[0][0], True)
    save_png(os.path.join(label_dir, "only_label.png"), set5[0][1], False)
    I, P, L = areas_of(read_back, 5, 255)
    want = metrics_from_areas(I, P, L)
    if want != cases[0]["want"]:
        sys.exit("PNG round trip changed the set5 numbers")
    with open(os.path.join(KIT_OUT, "eval_ref.json"), "w") as f:
        json.dump(want, f, indent=1)
        f.write("\n")
    print("wrote", len(cases), "cases;", "checked against the real metrics.py" if real else "transcription only")


if __name__ == "__main__":
    main()
