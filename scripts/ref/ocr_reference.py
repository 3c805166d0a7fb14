#!/usr/bin/python3
"""ocr_reference.py [MODELS_DIR] [OUT_DIR] — golden values for `paddle ocr predict`.

Runs the PP-OCRv4 system the way PaddleOCR 2.x's tools/infer/predict_system.py does it
(DetResizeForTest, NormalizeImage, DBPostProcess, filter_tag_det_res, sorted_boxes,
get_rotate_crop_image, TextClassifier, TextRecognizer, CTCLabelDecode, drop_score) on
OpenCV, pyclipper, shapely and numpy (Debian python3-opencv 4.6, python3-pyclipper,
python3-shapely, python3-numpy; run with /usr/bin/python3), with the networks run by
ONNX Runtime through scripts/ref/ort_run.mjs (onnxruntime-node 1.30.0, 1 thread,
scripts/ref/setup_ort.sh installs it) on .npy files. Written from PaddleOCR's documented
behaviour (ANCHORS.md §c), not copied from it.

MODELS_DIR holds the ppocrv4 files (default: the paddle model store's ppocrv4 folder,
else scripts/fetch_ppocrv4.sh's folder). OUT_DIR defaults to kits/ocr/testdata/golden.

Each case (image × profile × angle classifier × det on/off) is written to
OUT_DIR/<case>.json with
  "results": the system's output with the real ONNX Runtime outputs (the golden the Go
             test compares a real runtime against: boxes ±1 px, identical text), and
  "replay":  the same pipeline run again with the detector's map quantised to u8/255 and
             the classifier/recogniser outputs recorded: for every model call the sha256
             of its float32 input (so the Go side can check its pre-processing bit for
             bit) and what to answer (the u8 map, zlib+base64; per step argmax and max
             probability; the classifier's probabilities), the dictionary entries those
             argmax values use, and the results of that run.
"""
import base64
import glob
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib

from paddle_cache import cache_dir

import cv2
import numpy as np
import pyclipper
from shapely.geometry import Polygon

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_RUN = os.path.join(ROOT, "scripts", "ref", "ort_run.mjs")
DET = "ch_PP-OCRv4_det_infer.onnx"
REC = "ch_PP-OCRv4_rec_infer.onnx"
CLS = "ch_ppocr_mobile_v2.0_cls_infer.onnx"
KEYS = "ppocr_keys_v1.txt"

PROFILES = {
    "v2": dict(limit=960, limit_type="max", max_side=None, drop=0.5),
    "v3": dict(limit=64, limit_type="min", max_side=4000, drop=0.0),
}


# ---------------------------------------------------------------- ONNX Runtime

class Ort:
    def __init__(self, models):
        self.models = models
        self.tmp = tempfile.mkdtemp(prefix="ocr_ref_")
        self.n = 0

    def __call__(self, name, x):
        self.n += 1
        d = os.path.join(self.tmp, str(self.n))
        os.makedirs(d)
        np.save(os.path.join(d, "x.npy"), np.ascontiguousarray(x, dtype=np.float32))
        subprocess.run(["node", ORT_RUN, "--threads", "1", os.path.join(self.models, name),
                        os.path.join(d, "out"), "x=" + os.path.join(d, "x.npy")],
                       check=True, stdout=subprocess.DEVNULL)
        outs = glob.glob(os.path.join(d, "out", "*.npy"))
        assert len(outs) == 1, outs
        return np.load(outs[0])


def sha(x):
    return hashlib.sha256(np.ascontiguousarray(x, dtype=np.float32).tobytes()).hexdigest()


class Replay:
    """Model wrappers that record each call (input digest, answer) for the Go test."""

    def __init__(self, ort):
        self.ort = ort
        self.calls = []

    def det(self, x):
        y = self.ort(DET, x)
        q = np.clip(np.round(y[0, 0] * 255), 0, 255).astype(np.uint8)
        self.calls.append({"model": "det", "input_sha256": sha(x), "input_shape": list(x.shape),
                           "input_sum": float(x.astype(np.float64).sum()),
                           "map_u8": base64.b64encode(zlib.compress(q.tobytes(), 9)).decode()})
        return (q.astype(np.float32) / np.float32(255))[None, None]

    def rec(self, x):
        y = self.ort(REC, x)
        idx, p = y.argmax(axis=2), y.max(axis=2)
        self.calls.append({"model": "rec", "input_sha256": sha(x), "input_shape": list(x.shape),
                           "input_sum": float(x.astype(np.float64).sum()),
                           "classes": int(y.shape[2]), "argmax": idx.tolist(),
                           "maxprob": [[float(v) for v in row] for row in p]})
        out = np.zeros_like(y)
        n, t = np.indices(idx.shape)
        out[n, t, idx] = p
        return out

    def cls(self, x):
        y = self.ort(CLS, x)
        self.calls.append({"model": "cls", "input_sha256": sha(x), "input_shape": list(x.shape),
                           "input_sum": float(x.astype(np.float64).sum()),
                           "probs": [[float(v) for v in row] for row in y]})
        return y


# ---------------------------------------------------------------- detection

def det_preprocess(img, prof):
    src_h, src_w = img.shape[:2]
    if src_h + src_w < 64:
        pad = np.zeros((max(32, src_h), max(32, src_w), img.shape[2]), np.uint8)
        pad[:src_h, :src_w] = img
        img = pad
    h, w = img.shape[:2]
    L = prof["limit"]
    ratio = 1.0
    if prof["limit_type"] == "max":
        if max(h, w) > L:
            ratio = float(L) / h if h > w else float(L) / w
    else:
        if min(h, w) < L:
            ratio = float(L) / h if h < w else float(L) / w
    rh, rw = int(h * ratio), int(w * ratio)
    if prof["max_side"] and max(rh, rw) > prof["max_side"]:
        r = float(prof["max_side"]) / max(rh, rw)
        rh, rw = int(rh * r), int(rw * r)
    rh = max(int(round(rh / 32) * 32), 32)
    rw = max(int(round(rw / 32) * 32), 32)
    img = cv2.resize(img, (rw, rh))
    scale = np.float32(1.0 / 255.0)
    mean = np.array([0.485, 0.456, 0.406]).reshape((1, 1, 3)).astype("float32")
    std = np.array([0.229, 0.224, 0.225]).reshape((1, 1, 3)).astype("float32")
    x = (img.astype("float32") * scale - mean) / std
    return x.transpose((2, 0, 1))[None].copy(), (src_h, src_w)


def mini_boxes(contour):
    rect = cv2.minAreaRect(contour)
    pts = sorted(list(cv2.boxPoints(rect)), key=lambda p: p[0])
    a, d = (0, 1) if pts[1][1] > pts[0][1] else (1, 0)
    b, c = (2, 3) if pts[3][1] > pts[2][1] else (3, 2)
    return [pts[a], pts[b], pts[c], pts[d]], min(rect[1])


def box_score_fast(pred, box):
    h, w = pred.shape[:2]
    box = box.copy()
    xmin = np.clip(np.floor(box[:, 0].min()).astype("int32"), 0, w - 1)
    xmax = np.clip(np.ceil(box[:, 0].max()).astype("int32"), 0, w - 1)
    ymin = np.clip(np.floor(box[:, 1].min()).astype("int32"), 0, h - 1)
    ymax = np.clip(np.ceil(box[:, 1].max()).astype("int32"), 0, h - 1)
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), dtype=np.uint8)
    box[:, 0] = box[:, 0] - xmin
    box[:, 1] = box[:, 1] - ymin
    cv2.fillPoly(mask, box.reshape(1, -1, 2).astype("int32"), 1)
    return cv2.mean(pred[ymin:ymax + 1, xmin:xmax + 1], mask)[0]


def unclip(box, ratio):
    poly = Polygon(box)
    dist = poly.area * ratio / poly.length
    off = pyclipper.PyclipperOffset()
    off.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    return off.Execute(dist)


def db_postprocess(pred, src_w, src_h):
    height, width = pred.shape
    bitmap = pred > 0.3
    contours, _ = cv2.findContours((bitmap * 255).astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    boxes = []
    for contour in contours[:1000]:
        pts, sside = mini_boxes(contour)
        if sside < 3:
            continue
        pts = np.array(pts)
        score = box_score_fast(pred, pts.reshape(-1, 2))
        if 0.6 > score:
            continue
        grown = unclip(pts, 1.5)
        if len(grown) != 1:
            continue
        box, sside = mini_boxes(np.array(grown).reshape(-1, 1, 2))
        if sside < 5:
            continue
        box = np.array(box)
        box[:, 0] = np.clip(np.round(box[:, 0] / width * float(src_w)), 0, src_w)
        box[:, 1] = np.clip(np.round(box[:, 1] / height * float(src_h)), 0, src_h)
        boxes.append(box.astype("int32"))
    return boxes


def order_points_clockwise(pts):
    rect = np.zeros((4, 2), dtype="float32")
    s = pts.sum(axis=1)
    rect[0] = pts[np.argmin(s)]
    rect[2] = pts[np.argmax(s)]
    rest = np.delete(pts, (np.argmin(s), np.argmax(s)), axis=0)
    diff = np.diff(np.array(rest), axis=1)
    rect[1] = rest[np.argmin(diff)]
    rect[3] = rest[np.argmax(diff)]
    return rect


def filter_boxes(boxes, h, w):
    out = []
    for box in boxes:
        box = order_points_clockwise(box)
        for p in range(4):
            box[p, 0] = int(min(max(box[p, 0], 0), w - 1))
            box[p, 1] = int(min(max(box[p, 1], 0), h - 1))
        if int(np.linalg.norm(box[0] - box[1])) <= 3 or int(np.linalg.norm(box[0] - box[3])) <= 3:
            continue
        out.append(box)
    return np.array(out)


def sorted_boxes(dt_boxes):
    n = dt_boxes.shape[0]
    b = list(sorted(dt_boxes, key=lambda x: (x[0][1], x[0][0])))
    for i in range(n - 1):
        for j in range(i, -1, -1):
            if abs(b[j + 1][0][1] - b[j][0][1]) < 10 and b[j + 1][0][0] < b[j][0][0]:
                b[j], b[j + 1] = b[j + 1], b[j]
            else:
                break
    return b


def rotate_crop(img, pts):
    w = int(max(np.linalg.norm(pts[0] - pts[1]), np.linalg.norm(pts[2] - pts[3])))
    h = int(max(np.linalg.norm(pts[0] - pts[3]), np.linalg.norm(pts[1] - pts[2])))
    std = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(pts, std)
    dst = cv2.warpPerspective(img, m, (w, h), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
    if dst.shape[0] * 1.0 / dst.shape[1] >= 1.5:
        dst = np.rot90(dst)
    return dst


# ---------------------------------------------------------------- cls and rec

def resize_norm(img, img_w):
    h, w = img.shape[:2]
    ratio = w / float(h)
    rw = img_w if math.ceil(48 * ratio) > img_w else int(math.ceil(48 * ratio))
    r = cv2.resize(img, (rw, 48)).astype("float32")
    r = r.transpose((2, 0, 1)) / 255
    r -= 0.5
    r /= 0.5
    out = np.zeros((3, 48, img_w), dtype=np.float32)
    out[:, :, 0:rw] = r
    return out


def classify(run, imgs):
    imgs = list(imgs)
    idx = np.argsort(np.array([im.shape[1] / float(im.shape[0]) for im in imgs]))
    for beg in range(0, len(imgs), 6):
        end = min(len(imgs), beg + 6)
        x = np.stack([resize_norm(imgs[idx[k]], 192) for k in range(beg, end)])
        probs = run(x)
        for r, k in enumerate(range(beg, end)):
            label = int(probs[r].argmax())
            if label == 1 and probs[r, label] > 0.9:
                imgs[idx[k]] = cv2.rotate(imgs[idx[k]], 1)
    return imgs


def ctc_decode(y, chars):
    idx, prob = y.argmax(axis=2), y.max(axis=2)
    res = []
    for b in range(len(idx)):
        sel = np.ones(len(idx[b]), dtype=bool)
        sel[1:] = idx[b][1:] != idx[b][:-1]
        sel &= idx[b] != 0
        text = "".join(chars[i] for i in idx[b][sel])
        conf = prob[b][sel]
        if len(conf) == 0:
            conf = [0]
        res.append((text, float(np.mean(conf))))
    return res


def recognize(run, imgs, chars):
    idx = np.argsort(np.array([im.shape[1] / float(im.shape[0]) for im in imgs]))
    res = [("", 0.0)] * len(imgs)
    for beg in range(0, len(imgs), 6):
        end = min(len(imgs), beg + 6)
        ratio = 320 / 48
        for k in range(beg, end):
            h, w = imgs[idx[k]].shape[0:2]
            ratio = max(ratio, w * 1.0 / h)
        img_w = int(48 * ratio)
        x = np.stack([resize_norm(imgs[idx[k]], img_w) for k in range(beg, end)])
        for r, t in enumerate(ctc_decode(run(x), chars)):
            res[idx[beg + r]] = t
    return res


def system(img, prof, use_cls, use_det, det_run, rec_run, cls_run, chars):
    if not use_det:
        crops = [img]
        if use_cls:
            crops = classify(cls_run, crops)
        text, score = recognize(rec_run, crops, chars)[0]
        return [{"text": text, "score": score}]
    x, (src_h, src_w) = det_preprocess(img, prof)
    pred = det_run(x)[0, 0]
    boxes = filter_boxes(db_postprocess(pred, src_w, src_h), img.shape[0], img.shape[1])
    if len(boxes) == 0:
        return []
    boxes = sorted_boxes(boxes)
    crops = [rotate_crop(img, b.copy()) for b in boxes]
    if use_cls:
        crops = classify(cls_run, crops)
    out = []
    for b, (text, score) in zip(boxes, recognize(rec_run, crops, chars)):
        if score >= prof["drop"]:
            out.append({"text": text, "score": score, "points": np.array(b).astype(np.int32).tolist()})
    return out


def load_chars(path):
    chars = []
    with open(path, "rb") as f:
        for line in f.readlines():
            chars.append(line.decode("utf-8").strip("\n").strip("\r\n"))
    return ["blank"] + chars + [" "]


CASES = [
    # (image, profile, cls, det)
    ("sample_en", "v2", False, True), ("sample_en", "v3", False, True),
    ("mix_zh_en", "v2", False, True), ("mix_zh_en", "v3", False, True),
    ("rotated", "v2", False, True), ("rotated", "v2", True, True), ("rotated", "v3", True, True),
    ("photo", "v2", False, True), ("photo", "v2", True, True), ("photo", "v3", False, True),
    ("wide", "v2", False, True), ("wide", "v3", False, True),
    ("line", "v2", False, True), ("line", "v3", False, True),
    ("line", "v2", False, False), ("line", "v2", True, False),
    ("tiny", "v2", False, True), ("tiny", "v3", False, True),
]


def default_models():
    cache = cache_dir()
    for d in (os.path.join(cache, "models", "ppocrv4"),
              os.path.join(cache, "npm", "ocr-models-1.4.2", "package", "assets")):
        if os.path.exists(os.path.join(d, DET)):
            return d
    sys.exit("ocr_reference: no ppocrv4 models; run `paddle model pull ppocrv4` or scripts/fetch_ppocrv4.sh")


def main():
    models = sys.argv[1] if len(sys.argv) > 1 else default_models()
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "kits", "ocr", "testdata", "golden")
    os.makedirs(out, exist_ok=True)
    chars = load_chars(os.path.join(models, KEYS))
    ort = Ort(models)
    images = os.path.join(ROOT, "kits", "ocr", "testdata", "images")
    for name, prof_name, use_cls, use_det in CASES:
        img = cv2.imread(os.path.join(images, name + ".png"))
        prof = PROFILES[prof_name]
        case = f"{name}_{prof_name}" + ("_cls" if use_cls else "") + ("" if use_det else "_nodet")
        real = system(img, prof, use_cls, use_det,
                      lambda x: ort(DET, x), lambda x: ort(REC, x), lambda x: ort(CLS, x), chars)
        rp = Replay(ort)
        replayed = system(img, prof, use_cls, use_det, rp.det, rp.rec, rp.cls, chars)
        used = sorted({i for c in rp.calls if c["model"] == "rec" for row in c["argmax"] for i in row})
        doc = {"image": f"images/{name}.png", "profile": prof_name, "cls": use_cls, "det": use_det,
               "width": img.shape[1], "height": img.shape[0], "results": real,
               "replay": {"calls": rp.calls, "results": replayed,
                          "chars": {str(i): chars[i] for i in used}}}
        with open(os.path.join(out, case + ".json"), "w") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
        print(case, [r["text"] for r in real], file=sys.stderr)


if __name__ == "__main__":
    main()
