#!/usr/bin/python3
"""Reference values for kits/ocr/dettrain (DB detection training).

Run with Debian's python3 (python3-pyclipper, python3-shapely, python3-opencv,
python3-numpy):  /usr/bin/python3 scripts/ref/ocr_det_ref.py
Writes kits/ocr/dettrain/testdata/det_ref.json:

  shrink:  random text quads; pyclipper's JT_ROUND offset by -D and +D with
           D = area*(1-r^2)/perimeter (shapely), r = 0.4, as MakeShrinkMap and
           MakeBorderMap call it.
  maps:    small pages; the DB label maps made step by step as PaddleOCR's
           MakeBorderMap / MakeShrinkMap describe them, with cv2.fillPoly and
           pyclipper doing the polygon work (this script's own loops, not
           PaddleOCR's code).
  metric:  random GT / detection sets with don't-care GTs; per image care
           counts and matches by the DetectionIoUEvaluator rules, shapely
           areas, and each pair's IoU.
"""
import json
import math
import os

import cv2
import numpy as np
import pyclipper
from shapely.geometry import Polygon

rng = np.random.default_rng(7)
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "kits", "ocr", "dettrain", "testdata", "det_ref.json")


def text_quad(cx, cy, w, h, angle, jitter):
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    pts = []
    for dx, dy in [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]:
        x = cx + dx * ca - dy * sa + rng.uniform(-jitter, jitter)
        y = cy + dx * sa + dy * ca + rng.uniform(-jitter, jitter)
        pts.append([round(x, 2), round(y, 2)])
    return pts


def offset(poly, dist):
    pco = pyclipper.PyclipperOffset()
    pco.AddPath([tuple(p) for p in poly], pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    return [[list(map(int, q)) for q in path] for path in pco.Execute(dist)]


def shrink_cases():
    cases = []
    for _ in range(200):
        w = rng.uniform(12, 300)
        h = rng.uniform(8, 60)
        poly = text_quad(rng.uniform(50, 500), rng.uniform(50, 500), w, h, rng.uniform(-12, 12), 0.1 * h)
        shape = Polygon(poly)
        d = shape.area * (1 - 0.4 ** 2) / shape.length
        cases.append({"poly": poly, "distance": d, "shrunk": offset(poly, -d), "padded": offset(poly, d)})
    return cases


def seg_dist(xs, ys, p1, p2):
    d1 = np.square(xs - p1[0]) + np.square(ys - p1[1])
    d2 = np.square(xs - p2[0]) + np.square(ys - p2[1])
    d = np.square(p1[0] - p2[0]) + np.square(p1[1] - p2[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = (d - d1 - d2) / (2 * np.sqrt(d1 * d2))
        sin2 = np.nan_to_num(1 - np.square(cos))
        res = np.sqrt(d1 * d2 * sin2 / d)
    near = cos < 0
    res[near] = np.sqrt(np.fmin(d1, d2))[near]
    return res


def border_map(polys, ignore, h, w, r=0.4, lo=0.3, hi=0.7):
    canvas = np.zeros((h, w), np.float32)
    mask = np.zeros((h, w), np.float32)
    for poly, ig in zip(polys, ignore):
        if ig:
            continue
        poly = np.array(poly, np.float64)
        shape = Polygon(poly)
        if shape.area <= 0:
            continue
        dist = shape.area * (1 - r * r) / shape.length
        padded = np.array(offset(poly.tolist(), dist)[0])
        cv2.fillPoly(mask, [padded.astype(np.int32)], 1.0)
        x0, x1 = padded[:, 0].min(), padded[:, 0].max()
        y0, y1 = padded[:, 1].min(), padded[:, 1].max()
        bw, bh = x1 - x0 + 1, y1 - y0 + 1
        q = poly - [x0, y0]
        xs = np.broadcast_to(np.arange(bw, dtype=np.float64).reshape(1, bw), (bh, bw))
        ys = np.broadcast_to(np.arange(bh, dtype=np.float64).reshape(bh, 1), (bh, bw))
        dm = np.ones((bh, bw), np.float64)
        for i in range(len(q)):
            dm = np.minimum(dm, np.clip(seg_dist(xs, ys, q[i], q[(i + 1) % len(q)]) / dist, 0, 1))
        for y in range(max(0, y0), min(h - 1, y1) + 1):
            for x in range(max(0, x0), min(w - 1, x1) + 1):
                canvas[y, x] = max(canvas[y, x], np.float32(1 - np.float32(dm[y - y0, x - x0])))
    return (canvas * np.float32(hi - lo) + np.float32(lo)), mask


def shrink_map(polys, ignore, h, w, r=0.4, min_size=8):
    polys = [np.array(p, np.float64) for p in polys]
    ignore = list(ignore)
    for i, p in enumerate(polys):
        p[:, 0] = np.clip(p[:, 0], 0, w - 1)
        p[:, 1] = np.clip(p[:, 1], 0, h - 1)
        area = sum(p[k][0] * p[k - 1][1] - p[k][1] * p[k - 1][0] for k in range(len(p))) / 2
        if abs(area) < 1:
            ignore[i] = True
        if area > 0:
            polys[i] = p[::-1]
    gt = np.zeros((h, w), np.float32)
    mask = np.ones((h, w), np.float32)
    for i, p in enumerate(polys):
        ph = p[:, 1].max() - p[:, 1].min()
        pw = p[:, 0].max() - p[:, 0].min()
        if ignore[i] or min(ph, pw) < min_size:
            cv2.fillPoly(mask, [p.astype(np.int32)], 0)
            ignore[i] = True
            continue
        shape = Polygon(p)
        shrunk = []
        for ratio in np.arange(r, 1, r):
            d = shape.area * (1 - ratio ** 2) / shape.length
            shrunk = offset(p.tolist(), -d)
            if len(shrunk) == 1:
                break
        if not shrunk:
            cv2.fillPoly(mask, [p.astype(np.int32)], 0)
            ignore[i] = True
            continue
        for s in shrunk:
            cv2.fillPoly(gt, [np.array(s, np.int32)], 1)
    return gt, mask, ignore


def map_cases():
    cases = []
    for k in range(3):
        h, w = 72, 96
        polys = [text_quad(rng.uniform(20, 76), rng.uniform(10, 62), rng.uniform(20, 60), rng.uniform(8, 20), rng.uniform(-10, 10), 1.5)
                 for _ in range(4)]
        polys.append(text_quad(rng.uniform(20, 76), rng.uniform(10, 62), 6, 5, 0, 0.5))  # under min_text_size
        polys.append(text_quad(90, 40, 30, 12, 5, 1))  # runs off the right edge
        ignore = [False, k == 1, False, False, False, False]
        canvas, tmask = border_map(polys, ignore, h, w)
        gt, smask, ig2 = shrink_map(polys, ignore, h, w)
        cases.append({"h": h, "w": w, "polys": polys, "ignore": ignore,
                      "thresh_map": [round(float(v), 6) for v in canvas.ravel()], "thresh_mask": tmask.ravel().astype(int).tolist(),
                      "shrink_map": gt.ravel().astype(int).tolist(), "shrink_mask": smask.ravel().astype(int).tolist(),
                      "ignore_after": ig2})
    return cases


def evaluate(gts, ignore, dets):
    gp = [p for p in gts if Polygon(p).is_valid and Polygon(p).is_simple]
    gi = [ig for p, ig in zip(gts, ignore) if Polygon(p).is_valid and Polygon(p).is_simple]
    dont = [i for i, ig in enumerate(gi) if ig]
    dp, ddont = [], []
    for p in dets:
        if not (Polygon(p).is_valid and Polygon(p).is_simple):
            continue
        dp.append(p)
        for i in dont:
            inter = Polygon(gp[i]).intersection(Polygon(p)).area
            a = Polygon(p).area
            if (0 if a == 0 else inter / a) > 0.5:
                ddont.append(len(dp) - 1)
                break
    matched = 0
    ious = []
    if gp and dp:
        gu, du = [0] * len(gp), [0] * len(dp)
        iou = [[Polygon(d).intersection(Polygon(g)).area / Polygon(d).union(Polygon(g)).area for d in dp] for g in gp]
        ious = iou
        for g in range(len(gp)):
            for d in range(len(dp)):
                if gu[g] == 0 and du[d] == 0 and g not in dont and d not in ddont and iou[g][d] > 0.5:
                    gu[g] = du[d] = 1
                    matched += 1
    return len(gp) - len(dont), len(dp) - len(ddont), matched, ious


def metric_cases():
    cases = []
    for _ in range(40):
        gts, ignore, dets = [], [], []
        for _ in range(rng.integers(0, 6)):
            gts.append(text_quad(rng.uniform(30, 300), rng.uniform(30, 300), rng.uniform(20, 120), rng.uniform(10, 30), rng.uniform(-8, 8), 3))
            ignore.append(bool(rng.uniform() < 0.2))
        for g in gts:
            if rng.uniform() < 0.8:  # a detection near each GT: IoU around the 0.5 line
                c = np.mean(np.array(g), axis=0)
                s = rng.uniform(0.6, 1.4)
                dets.append([[round(c[0] + (x - c[0]) * s + rng.uniform(-4, 4), 2), round(c[1] + (y - c[1]) * s + rng.uniform(-4, 4), 2)] for x, y in g])
        for _ in range(rng.integers(0, 3)):  # stray detections
            dets.append(text_quad(rng.uniform(30, 300), rng.uniform(30, 300), rng.uniform(20, 120), rng.uniform(10, 30), 0, 3))
        if rng.uniform() < 0.15:  # a self-crossing (invalid) detection
            dets.append([[0, 0], [40, 40], [40, 0], [0, 40]])
        gc, dc, m, ious = evaluate(gts, ignore, dets)
        cases.append({"gt": gts, "ignore": ignore, "det": dets, "gt_care": gc, "det_care": dc, "matched": m, "iou": ious})
    return cases


def loss_cases():
    """DBLoss on random maps (N=2, 8x8): BalanceLoss with BCE and OHEM 3:1,
    with PaddleOCR's DiceLoss setting, mask L1 and dice, alpha 5, beta 10."""
    cases = []
    eps = 1e-6
    for k in range(3):
        maps = rng.uniform(0.02, 0.98, (2, 3, 8, 8)).astype(np.float32)
        gs = (rng.uniform(size=(2, 8, 8)) < 0.15 + 0.1 * k).astype(np.float32)
        ms = (rng.uniform(size=(2, 8, 8)) < 0.9).astype(np.float32)
        gt = rng.uniform(0.3, 0.7, (2, 8, 8)).astype(np.float32)
        mt = (rng.uniform(size=(2, 8, 8)) < 0.5).astype(np.float32)
        p, t, b = (maps[:, i].astype(np.float64) for i in range(3))
        g, m = gs.astype(np.float64), ms.astype(np.float64)
        dice = lambda x: 1 - 2 * np.sum(x * g * m) / (np.sum(x * m) + np.sum(g * m) + eps)
        pos, neg = g * m, (1 - g) * m
        npos = int(pos.sum())
        nneg = int(min(neg.sum(), npos * 3))
        bce = -(g * np.log(p) + (1 - g) * np.log(1 - p))
        negl = np.sort((neg * bce).ravel())[::-1][:nneg]
        bal = (np.sum(pos * bce) + negl.sum()) / (npos + nneg + eps)
        dl = dice(p)
        bal_dice = (np.sum(pos * dl) + np.sort((neg * dl).ravel())[::-1][:nneg].sum()) / (npos + nneg + eps)
        l1 = np.sum(np.abs(t - gt) * mt) / (mt.sum() + eps)
        lb = dice(b)
        cases.append({"maps": maps.ravel().tolist(), "shrink_map": gs.ravel().tolist(), "shrink_mask": ms.ravel().tolist(),
                      "thresh_map": gt.ravel().tolist(), "thresh_mask": mt.ravel().tolist(),
                      "bce": {"loss_shrink_maps": 5 * bal, "loss_threshold_maps": 10 * l1, "loss_binary_maps": lb},
                      "dice": {"loss_shrink_maps": 5 * bal_dice, "loss_threshold_maps": 10 * l1, "loss_binary_maps": lb}})
    return cases


with open(OUT, "w") as f:
    json.dump({"shrink": shrink_cases(), "maps": map_cases(), "metric": metric_cases(), "loss": loss_cases()}, f)
print("wrote", os.path.normpath(OUT))
