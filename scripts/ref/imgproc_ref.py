#!/usr/bin/python3
"""Reference values for core/imgproc (OpenCV 4.6, pyclipper 1.2.1, shapely 1.8, Debian bookworm).

Run with the Debian interpreter after
    apt-get install -y python3-opencv python3-pyclipper python3-shapely python3-numpy
from the repository root:
    /usr/bin/python3 scripts/ref/imgproc_ref.py
It writes core/imgproc/testdata/ref_*.json. Inputs are generated, never downloaded: binary
blob images are stored (packed bits); pixel data comes from a 64-bit LCG that the Go tests
reproduce (lcgBytes in the tests), so only outputs need storing.
"""
import base64
import hashlib
import json
import os
import zlib

import cv2
import numpy as np
import pyclipper
from shapely.geometry import Polygon

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "core", "imgproc", "testdata")
MASK64 = (1 << 64) - 1


def lcg_bytes(seed, n):
    """n pseudo-random bytes: state = state*A + C mod 2^64, byte = state >> 56."""
    s = seed & MASK64
    out = bytearray(n)
    for i in range(n):
        s = (s * 6364136223846793005 + 1442695040888963407) & MASK64
        out[i] = s >> 56
    return out


def lcg_image(seed, h, w, c):
    """Smooth-ish test image: gradient plus LCG noise, uint8 HWC."""
    noise = np.frombuffer(bytes(lcg_bytes(seed, h * w * c)), dtype=np.uint8).reshape(h, w, c)
    yy, xx = np.mgrid[0:h, 0:w]
    base = ((xx * 7 + yy * 3) % 256).astype(np.int32)[:, :, None]
    return ((base + noise.astype(np.int32) // 2) % 256).astype(np.uint8)


def lcg_pred(seed, h, w):
    b = np.frombuffer(bytes(lcg_bytes(seed, h * w)), dtype=np.uint8).reshape(h, w)
    return b.astype(np.float32) / np.float32(255)


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def write(name, obj):
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print(name, os.path.getsize(path))


def blob_image(rng, h, w):
    img = np.zeros((h, w), np.uint8)
    for _ in range(rng.integers(1, 9)):
        kind = rng.integers(0, 4)
        cx, cy = int(rng.integers(-3, w + 3)), int(rng.integers(-3, h + 3))
        if kind == 0:
            axes = (int(rng.integers(1, w // 3 + 2)), int(rng.integers(1, h // 3 + 2)))
            cv2.ellipse(img, (cx, cy), axes, float(rng.uniform(0, 180)), 0, 360, 1, -1)
        elif kind == 1:
            rect = ((float(cx), float(cy)), (float(rng.uniform(1, max(w / 2, 1.5))), float(rng.uniform(1, max(h / 3, 1.5)))),
                    float(rng.uniform(-90, 90)))
            cv2.fillPoly(img, [cv2.boxPoints(rect).astype(np.int32)], 1)
        elif kind == 2:
            cv2.circle(img, (cx, cy), int(rng.integers(1, 8)), 0, -1)  # holes
        else:
            pts = rng.integers(0, max(w, h), size=(int(rng.integers(3, 7)), 2)).astype(np.int32)
            cv2.fillPoly(img, [pts], 1)
    if rng.random() < 0.5:  # speckle noise: single pixels, thin lines
        noise = rng.random((h, w)) < 0.03
        img[noise] ^= 1
    return img


def contour_cases():
    rng = np.random.default_rng(1234)
    cases = []
    for i in range(60):
        h, w = int(rng.integers(1, 70)), int(rng.integers(1, 70))
        if i < 3:
            h, w = [(1, 1), (3, 3), (5, 7)][i]
        img = blob_image(rng, h, w)
        if i == 1:
            img[:] = 1
        if i == 2:
            img[:] = 0
            img[1:4, 2:5] = 1
        contours, _ = cv2.findContours(img * 255, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        cs = [c.reshape(-1, 2).tolist() for c in contours]
        rects = []
        for c in contours:
            (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
            bp = cv2.boxPoints(((cx, cy), (rw, rh), ang))
            rects.append({"rect": [cx, cy, rw, rh, ang], "box": bp.astype(np.float64).tolist()})
        dil = cv2.dilate(img, np.array([[1, 1], [1, 1]], np.uint8))
        cases.append({"h": h, "w": w, "bits": b64(np.packbits(img.reshape(-1))), "contours": cs,
                      "rects": rects, "dilated": b64(np.packbits(dil.reshape(-1)))})
    return cases


def contour_digest(contours):
    """sha256 over int32 LE: contour count, then per contour its length and x, y pairs."""
    parts = [np.int32([len(contours)])]
    for c in contours:
        c = c.reshape(-1, 2).astype(np.int32)
        parts.append(np.int32([len(c)]))
        parts.append(c.reshape(-1))
    return hashlib.sha256(b"".join(p.astype("<i4").tobytes() for p in parts)).hexdigest()


def big_contour_cases():
    """Large maps (nested rings, noise, 960x960 text-like blobs) compared by digest."""
    rng = np.random.default_rng(4321)
    cases = []
    for i, (h, w) in enumerate([(240, 320), (300, 300), (960, 960)]):
        img = np.zeros((h, w), np.uint8)
        for _ in range(60 if i < 2 else 600):
            cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
            if i == 0:  # nested rings
                for r in range(int(rng.integers(2, 30)), 0, -3):
                    cv2.circle(img, (cx, cy), r, int(r % 2), -1)
            elif i == 1:
                img[rng.random((h, w)) < 0.002] = 1
                cv2.ellipse(img, (cx, cy), (int(rng.integers(1, 30)), int(rng.integers(1, 12))),
                            float(rng.uniform(0, 180)), 0, 360, int(rng.integers(0, 2)), -1)
            else:
                rect = ((float(cx), float(cy)), (float(rng.uniform(8, 200)), float(rng.uniform(4, 30))),
                        float(rng.uniform(-10, 10)))
                cv2.fillPoly(img, [np.round(cv2.boxPoints(rect)).astype(np.int32)], 1)
        contours, _ = cv2.findContours(img, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        cases.append({"h": h, "w": w, "bits": base64.b64encode(zlib.compress(np.packbits(img.reshape(-1)).tobytes(), 9)).decode(),
                      "count": len(contours), "digest": contour_digest(contours)})
    return cases


def minarearect_cases():
    rng = np.random.default_rng(99)
    cases = []
    for i in range(300):
        n = int(rng.integers(1, 12))
        if i % 3 == 0:
            pts = rng.integers(0, 60, size=(n, 2)).astype(np.int32)
        elif i % 3 == 1:  # rotated rectangles' integer corners plus jitter
            rect = ((float(rng.uniform(10, 90)), float(rng.uniform(10, 90))),
                    (float(rng.uniform(1, 60)), float(rng.uniform(1, 20))), float(rng.uniform(-90, 90)))
            pts = np.round(cv2.boxPoints(rect)).astype(np.int32)
        else:
            pts = (rng.uniform(0, 100, size=(n, 2))).astype(np.float32)
        r = cv2.minAreaRect(pts)
        bp = cv2.boxPoints(r)
        cases.append({"pts": pts.astype(np.float64).tolist(), "int": bool(pts.dtype == np.int32),
                      "rect": [r[0][0], r[0][1], r[1][0], r[1][1], r[2]],
                      "box": bp.astype(np.float64).tolist()})
    return cases


def box_score_fast(bitmap, _box):
    # same steps as PaddleOCR DBPostProcess.box_score_fast
    h, w = bitmap.shape[:2]
    box = _box.copy()
    xmin = np.clip(np.floor(box[:, 0].min()).astype(int), 0, w - 1)
    xmax = np.clip(np.ceil(box[:, 0].max()).astype(int), 0, w - 1)
    ymin = np.clip(np.floor(box[:, 1].min()).astype(int), 0, h - 1)
    ymax = np.clip(np.ceil(box[:, 1].max()).astype(int), 0, h - 1)
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), dtype=np.uint8)
    box[:, 0] = box[:, 0] - xmin
    box[:, 1] = box[:, 1] - ymin
    cv2.fillPoly(mask, box.reshape(1, -1, 2).astype(np.int32), 1)
    return cv2.mean(bitmap[ymin:ymax + 1, xmin:xmax + 1], mask)[0], mask


def score_cases():
    rng = np.random.default_rng(7)
    cases = []
    for i in range(120):
        h, w = int(rng.integers(8, 64)), int(rng.integers(8, 64))
        seed = 1000 + i
        pred = lcg_pred(seed, h, w)
        rect = ((float(rng.uniform(-5, w + 5)), float(rng.uniform(-5, h + 5))),
                (float(rng.uniform(0.5, w)), float(rng.uniform(0.5, max(h / 2, 1)))), float(rng.uniform(0, 90)))
        box = cv2.boxPoints(rect)  # float32, like get_mini_boxes output
        score, mask = box_score_fast(pred, box)
        cases.append({"h": h, "w": w, "seed": seed, "box": box.astype(np.float64).tolist(),
                      "score": score, "mask_h": mask.shape[0], "mask_w": mask.shape[1],
                      "mask": b64(np.packbits(mask.reshape(-1)))})
    return cases


def fillpoly_cases():
    rng = np.random.default_rng(5)
    cases = []
    for i in range(80):
        h, w = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        n = int(rng.integers(3, 8))
        pts = rng.integers(-10, 50, size=(n, 2)).astype(np.int32)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, pts.reshape(1, -1, 2), 1)
        cases.append({"h": h, "w": w, "pts": pts.tolist(), "mask": b64(np.packbits(mask.reshape(-1)))})
    return cases


def unclip(box, unclip_ratio):
    poly = Polygon(box)
    distance = poly.area * unclip_ratio / poly.length
    offset = pyclipper.PyclipperOffset()
    offset.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    return distance, offset.Execute(distance)


def unclip_cases():
    rng = np.random.default_rng(11)
    cases = []
    for i in range(400):
        if i % 4 == 3:  # general (possibly concave) simple polygon, float coordinates
            n = int(rng.integers(3, 9))
            ang = np.sort(rng.uniform(0, 2 * np.pi, n))
            rad = rng.uniform(5, 40, n)
            box = np.stack([50 + rad * np.cos(ang), 50 + rad * np.sin(ang)], 1).astype(np.float32)
        else:
            rect = ((float(rng.uniform(0, 500)), float(rng.uniform(0, 500))),
                    (float(rng.uniform(1, 200)), float(rng.uniform(1, 40))), float(rng.uniform(0, 90)))
            if i % 4 == 2:
                rect = (rect[0], rect[1], float(rng.choice([0.0, 90.0])))
            box = np.array(cv2.boxPoints(rect))
        ratio = [1.5, 2.0, 1.5, 1.6][i % 4]
        if Polygon(box).length == 0:
            continue
        dist, out = unclip(box, ratio)
        cases.append({"index": i, "box": box.astype(np.float64).tolist(), "ratio": ratio, "distance": dist,
                      "out": out})
    return cases


def resize_cases():
    rng = np.random.default_rng(3)
    cases = []
    sizes = [((16, 16), (8, 8)), ((20, 30), (10, 15)), ((17, 33), (40, 61)), ((5, 7), (32, 32)),
             ((64, 48), (32, 48)), ((50, 50), (49, 51)), ((1, 9), (3, 5)), ((9, 1), (4, 7))]
    for i in range(40):
        if i < len(sizes):
            (h, w), (dh, dw) = sizes[i]
        else:
            h, w = int(rng.integers(1, 70)), int(rng.integers(1, 70))
            dh, dw = int(rng.integers(1, 90)), int(rng.integers(1, 90))
        c = [1, 3][i % 2]
        seed = 500 + i
        img = lcg_image(seed, h, w, c)
        out = cv2.resize(img if c == 3 else img[:, :, 0], (dw, dh))
        cases.append({"h": h, "w": w, "c": c, "seed": seed, "dh": dh, "dw": dw,
                      "out": b64(out), "sha": sha(out)})
    # PaddleOCR-sized cases: detection resize to multiples of 32, recognition to height 48
    for i, ((h, w), (dh, dw)) in enumerate([((480, 640), (480, 640)), ((1080, 1920), (544, 960)),
                                            ((1280, 1920), (640, 960)), ((37, 211), (48, 274)),
                                            ((700, 500), (704, 512))]):
        seed = 900 + i
        img = lcg_image(seed, h, w, 3)
        out = cv2.resize(img, (dw, dh))
        cases.append({"h": h, "w": w, "c": 3, "seed": seed, "dh": dh, "dw": dw, "sha": sha(out)})
    return cases


def warp_cases():
    rng = np.random.default_rng(21)
    cases = []
    for i in range(40):
        h, w = int(rng.integers(20, 120)), int(rng.integers(20, 160))
        seed = 700 + i
        img = lcg_image(seed, h, w, 3)
        rect = ((float(rng.uniform(0, w)), float(rng.uniform(0, h))),
                (float(rng.uniform(4, w)), float(rng.uniform(3, h / 2))), float(rng.uniform(0, 90)))
        pts = cv2.boxPoints(rect) + rng.uniform(-2, 2, size=(4, 2)).astype(np.float32)
        pts = pts.astype(np.float32)
        cw = int(max(np.linalg.norm(pts[0] - pts[1]), np.linalg.norm(pts[2] - pts[3])))
        ch = int(max(np.linalg.norm(pts[0] - pts[3]), np.linalg.norm(pts[1] - pts[2])))
        if cw < 1 or ch < 1:
            continue
        dst = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
        M = cv2.getPerspectiveTransform(pts, dst)
        out = cv2.warpPerspective(img, M, (cw, ch), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
        cases.append({"h": h, "w": w, "seed": seed, "pts": pts.astype(np.float64).tolist(), "cw": cw, "ch": ch,
                      "M": M.reshape(-1).tolist(), "out": b64(out), "sha": sha(out)})
    return cases


def order_points_clockwise(pts):
    # PaddleOCR TextDetector.order_points_clockwise (current upstream: sum / diff rule)
    rect = np.zeros((4, 2), dtype="float32")
    s = pts.sum(axis=1)
    rect[0] = pts[np.argmin(s)]
    rect[2] = pts[np.argmax(s)]
    rest = np.delete(pts, (np.argmin(s), np.argmax(s)), axis=0)
    diff = np.diff(np.array(rest), axis=1)
    rect[1] = rest[np.argmin(diff)]
    rect[3] = rest[np.argmax(diff)]
    return rect


def sorted_boxes(dt_boxes):
    # PaddleOCR sorted_boxes, current upstream (inner loop runs j = i .. 0)
    boxes = list(sorted(dt_boxes, key=lambda x: (x[0][1], x[0][0])))
    for i in range(len(boxes) - 1):
        for j in range(i, -1, -1):
            if abs(boxes[j + 1][0][1] - boxes[j][0][1]) < 10 and boxes[j + 1][0][0] < boxes[j][0][0]:
                boxes[j], boxes[j + 1] = boxes[j + 1], boxes[j]
            else:
                break
    return boxes


def rotate_crop(img, points):
    # PaddleOCR get_rotate_crop_image
    w = int(max(np.linalg.norm(points[0] - points[1]), np.linalg.norm(points[2] - points[3])))
    h = int(max(np.linalg.norm(points[0] - points[3]), np.linalg.norm(points[1] - points[2])))
    std = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    M = cv2.getPerspectiveTransform(points, std)
    out = cv2.warpPerspective(img, M, (w, h), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
    if out.shape[0] * 1.0 / out.shape[1] >= 1.5:
        out = np.rot90(out)
    return out


def box_cases():
    rng = np.random.default_rng(31)
    order, sortc, crops = [], [], []
    for i in range(200):
        pts = rng.integers(0, 60, size=(4, 2)).astype(np.int16)
        if i % 2:
            rect = ((float(rng.uniform(10, 50)), float(rng.uniform(10, 50))),
                    (float(rng.uniform(2, 40)), float(rng.uniform(2, 20))), float(rng.uniform(0, 90)))
            pts = np.round(cv2.boxPoints(rect)).astype(np.int16)
        order.append({"pts": pts.tolist(), "want": order_points_clockwise(pts).astype(np.float64).tolist()})
    for i in range(40):
        n = int(rng.integers(0, 12))
        tl = np.stack([rng.integers(0, 200, n), rng.integers(0, 25, n) * 4 + rng.integers(0, 3, n)], 1)
        boxes = [np.float32([t, t + [30, 0], t + [30, 12], t + [0, 12]]) for t in tl]
        for k, b in enumerate(boxes):
            b[0, 0] += k * 1e-3  # distinct keys so the order is unambiguous
        out = sorted_boxes(boxes)
        idx = [next(k for k, b in enumerate(boxes) if b is o) for o in out]
        sortc.append({"boxes": [b.astype(np.float64).tolist() for b in boxes], "want": idx})
    for i in range(30):
        h, w = int(rng.integers(20, 90)), int(rng.integers(20, 120))
        seed = 300 + i
        img = lcg_image(seed, h, w, 3)
        rect = ((float(rng.uniform(0, w)), float(rng.uniform(0, h))),
                (float(rng.uniform(4, w)), float(rng.uniform(3, h))), float(rng.uniform(0, 90)))
        pts = order_points_clockwise(np.round(cv2.boxPoints(rect)))
        pts = np.float32([[min(max(x, 0), w - 1), min(max(y, 0), h - 1)] for x, y in pts]).astype(np.int32)
        pts = pts.astype(np.float32)
        cw = int(max(np.linalg.norm(pts[0] - pts[1]), np.linalg.norm(pts[2] - pts[3])))
        ch = int(max(np.linalg.norm(pts[0] - pts[3]), np.linalg.norm(pts[1] - pts[2])))
        if cw == 0 or ch == 0:
            continue
        out = rotate_crop(img, pts)
        crops.append({"h": h, "w": w, "seed": seed, "pts": pts.astype(np.float64).tolist(),
                      "oh": out.shape[0], "ow": out.shape[1], "sha": sha(out)})
    return {"order": order, "sorted": sortc, "crops": crops}


def get_mini_boxes(contour):
    # PaddleOCR DBPostProcess.get_mini_boxes
    r = cv2.minAreaRect(contour)
    pts = sorted(list(cv2.boxPoints(r)), key=lambda x: x[0])
    i1, i4 = (0, 1) if pts[1][1] > pts[0][1] else (1, 0)
    i2, i3 = (2, 3) if pts[3][1] > pts[2][1] else (3, 2)
    return [pts[i1], pts[i2], pts[i3], pts[i4]], min(r[1])


def db_boxes(pred, bitmap, dest_w, dest_h, box_thresh=0.6, unclip_ratio=1.5, max_candidates=1000):
    # PaddleOCR DBPostProcess.boxes_from_bitmap, quad mode, score_mode "fast"
    height, width = bitmap.shape
    contours, _ = cv2.findContours((bitmap * 255).astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    boxes, scores = [], []
    for contour in contours[:max_candidates]:
        points, sside = get_mini_boxes(contour)
        if sside < 3:
            continue
        points = np.array(points)
        score = box_score_fast(pred, points.reshape(-1, 2))[0]
        if box_thresh > score:
            continue
        _, expanded = unclip(points, unclip_ratio)
        box, sside = get_mini_boxes(np.array(expanded).reshape(-1, 1, 2))
        if sside < 5:
            continue
        box = np.array(box)
        box[:, 0] = np.clip(np.round(box[:, 0] / width * dest_w), 0, dest_w)
        box[:, 1] = np.clip(np.round(box[:, 1] / height * dest_h), 0, dest_h)
        boxes.append(box.astype(np.int16).tolist())
        scores.append(score)
    return boxes, scores


def box_score_slow(bitmap, contour):
    # PaddleOCR DBPostProcess.box_score_slow
    h, w = bitmap.shape[:2]
    contour = np.reshape(contour.copy(), (-1, 2))
    xmin = np.clip(np.min(contour[:, 0]), 0, w - 1)
    xmax = np.clip(np.max(contour[:, 0]), 0, w - 1)
    ymin = np.clip(np.min(contour[:, 1]), 0, h - 1)
    ymax = np.clip(np.max(contour[:, 1]), 0, h - 1)
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), dtype=np.uint8)
    contour[:, 0] = contour[:, 0] - xmin
    contour[:, 1] = contour[:, 1] - ymin
    cv2.fillPoly(mask, contour.reshape(1, -1, 2).astype(np.int32), 1)
    return cv2.mean(bitmap[ymin:ymax + 1, xmin:xmax + 1], mask)[0]


def db_cases():
    """Synthetic DB probability maps: blurred, rotated text-line blobs quantised to u8/255."""
    rng = np.random.default_rng(77)
    cases = []
    for i in range(12):
        h, w = int(rng.integers(40, 200)), int(rng.integers(40, 240))
        canvas = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(2, 14))):
            rect = ((float(rng.uniform(0, w)), float(rng.uniform(0, h))),
                    (float(rng.uniform(6, w / 1.5)), float(rng.uniform(4, 20))), float(rng.uniform(-20, 20)))
            cv2.fillPoly(canvas, [np.round(cv2.boxPoints(rect)).astype(np.int32)], int(rng.integers(200, 256)))
        canvas = cv2.GaussianBlur(canvas, (3, 3), 0.8)
        pred = canvas.astype(np.float32) / np.float32(255)
        dest_w, dest_h = int(w * rng.uniform(1, 4)), int(h * rng.uniform(1, 4))
        boxes, scores = db_boxes(pred, pred > 0.3, dest_w, dest_h)
        contours, _ = cv2.findContours(((pred > 0.3) * 255).astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        slow = [box_score_slow(pred, c) for c in contours]
        cases.append({"h": h, "w": w, "dest_w": dest_w, "dest_h": dest_h,
                      "u8": base64.b64encode(zlib.compress(canvas.tobytes(), 9)).decode(),
                      "boxes": boxes, "scores": scores, "slow_scores": slow})
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    write("ref_contours.json", contour_cases())
    write("ref_contours_big.json", big_contour_cases())
    write("ref_minarearect.json", minarearect_cases())
    write("ref_fillpoly.json", fillpoly_cases())
    write("ref_boxscore.json", score_cases())
    write("ref_unclip.json", unclip_cases())
    write("ref_resize.json", resize_cases())
    write("ref_warp.json", warp_cases())
    write("ref_boxes.json", box_cases())
    write("ref_db.json", db_cases())


if __name__ == "__main__":
    main()
