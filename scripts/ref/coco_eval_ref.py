#!/usr/bin/python3
"""Fixtures and reference values for core/metric/coco (COCO bbox eval, VOC mAP).

Usage:
    /usr/bin/python3 scripts/ref/coco_eval_ref.py fixtures   # write the fixture json files
    PYTHONPATH=<dir with pycocotools> /usr/bin/python3 scripts/ref/coco_eval_ref.py coco
    PYTHONPATH=<dir with PaddleDetection's ppdet/metrics/map_utils.py> /usr/bin/python3 scripts/ref/coco_eval_ref.py voc

`fixtures` writes core/metric/coco/testdata/<name>_gt.json and <name>_dt.json: random ground
truth and detections built to hit pycocotools' subtle rules (crowds that absorb detections,
GT `area` fields unlike w*h, areas exactly 1024 and 9216, boxes whose IoU is exactly a
threshold, score ties across images, more than 100 detections per image and category,
categories with no GT, images with no annotations, a GT annotation with id 0, detections of
unknown categories), plus voc_fixture.json.

`coco` runs the real pycocotools COCOeval (iouType "bbox") on each fixture and writes
<name>_ref.json: the 12 stats, the per-category AP (np.mean of precision[:, :, k, 0, -1] > -1,
as PaddleDetection's classwise table), the full recall array and, per (t, k, a, m), math.fsum of
precision over the 101 recall thresholds. pycocotools (cocodataset/cocoapi PythonAPI) is not
packaged for Debian: build it yourself outside the repository (it needs cython3, python3-numpy,
python3-matplotlib) and put it on PYTHONPATH. numpy >= 1.24 removed np.float, which its
accumulate() uses: this script sets np.float = float first (the alias it always was).

`voc` runs PaddleDetection's ppdet/metrics/map_utils.py DetectionMAP (numpy only; the module's
paddle / ppdet imports are stubbed here) on voc_fixture.json for map_type 11point and integral,
with and without evaluate_difficult, and computes the VOC2010 area from its precision/recall
lists with the same file's compute_ap; writes voc_ref.json.

Only the fixtures and the numbers are committed; no third-party code.
"""
import contextlib
import io
import json
import math
import os
import random
import sys
import types

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "core", "metric", "coco", "testdata")


def rbox(rng, size, lo, hi, img_w, img_h):
    """A random [x, y, w, h] box with sides in [lo, hi], rounded like COCO's (2 decimals) or to ints."""
    w = rng.uniform(lo, hi)
    h = rng.uniform(lo, hi) if rng.random() < 0.7 else w * rng.uniform(0.5, 2)
    w, h = min(w, img_w - 1), min(h, img_h - 1)
    x = rng.uniform(0, img_w - w)
    y = rng.uniform(0, img_h - h)
    if rng.random() < 0.3:
        return [float(round(x)), float(round(y)), float(max(1, round(w))), float(max(1, round(h)))]
    return [round(x, 2), round(y, 2), round(w, 2), round(h, 2)]


def jitter(rng, b, amount):
    x, y, w, h = b
    dx, dy = rng.gauss(0, amount) * w, rng.gauss(0, amount) * h
    sw, sh = math.exp(rng.gauss(0, amount)), math.exp(rng.gauss(0, amount))
    return [round(x + dx, 2), round(y + dy, 2), round(max(0.5, w * sw), 2), round(max(0.5, h * sh), 2)]


def score(rng):
    # ties across images: a third of the scores are on a coarse grid
    if rng.random() < 0.33:
        return round(rng.randint(1, 20) * 0.05, 2)
    return round(rng.random(), 6)


def random_set(name, seed, n_img, n_cat, empty_cats, many=False):
    rng = random.Random(seed)
    images = [{"id": 3 * i + 7, "file_name": "%06d.jpg" % i, "width": 640, "height": 480} for i in range(n_img)]
    cats = [{"id": 2 * k + 1, "name": "cat%d" % k, "supercategory": "thing"} for k in range(n_cat)]
    anns, dets = [], []
    aid = 1
    for im in images:
        if rng.random() < 0.1:
            # an image with no annotations: its detections are all FPs
            for _ in range(rng.randint(0, 5)):
                c = rng.choice(cats)["id"]
                dets.append({"image_id": im["id"], "category_id": c, "bbox": rbox(rng, 0, 4, 200, 640, 480), "score": score(rng)})
            continue
        for c in cats:
            if c["id"] in empty_cats or rng.random() < 0.4:
                continue
            n = rng.randint(1, 6)
            for _ in range(n):
                kind = rng.random()
                if kind < 0.35:
                    b = rbox(rng, 0, 2, 32, 640, 480)  # small
                elif kind < 0.7:
                    b = rbox(rng, 0, 32, 96, 640, 480)  # medium
                else:
                    b = rbox(rng, 0, 96, 400, 640, 480)  # large
                area = b[2] * b[3]
                r = rng.random()
                if r < 0.3:
                    area = round(area * rng.uniform(0.4, 1.0), 2)  # a segmentation-like area
                elif r < 0.35:
                    area = 1024.0  # exactly on the small/medium border
                elif r < 0.4:
                    area = 9216.0
                crowd = 1 if rng.random() < 0.06 else 0
                anns.append({"id": aid, "image_id": im["id"], "category_id": c["id"], "bbox": b,
                             "area": area, "iscrowd": crowd})
                aid += 1
                # detections of this object: none, one, or duplicates; crowds absorb several
                k = rng.choice([0, 1, 1, 1, 2, 3]) if not crowd else rng.randint(2, 6)
                for _ in range(k):
                    if crowd:
                        # small boxes inside the crowd region: intersection / detection area = 1
                        w, h = b[2] * rng.uniform(0.1, 0.4), b[3] * rng.uniform(0.1, 0.4)
                        db = [round(b[0] + rng.uniform(0, b[2] - w), 2), round(b[1] + rng.uniform(0, b[3] - h), 2), round(w, 2), round(h, 2)]
                    else:
                        db = jitter(rng, b, rng.choice([0.02, 0.05, 0.1, 0.2]))
                    dets.append({"image_id": im["id"], "category_id": c["id"], "bbox": db, "score": score(rng)})
            # false positives, sometimes a lot of them (more than maxDets=100)
            nfp = rng.randint(0, 4)
            if many and rng.random() < 0.15:
                nfp = rng.randint(101, 140)
            for _ in range(nfp):
                dets.append({"image_id": im["id"], "category_id": c["id"], "bbox": rbox(rng, 0, 2, 300, 640, 480), "score": score(rng)})
    # detections of a category id the GT does not have: dropped silently
    for _ in range(5):
        dets.append({"image_id": rng.choice(images)["id"], "category_id": 999, "bbox": rbox(rng, 0, 4, 100, 640, 480), "score": score(rng)})
    rng.shuffle(dets)
    return {"images": images, "annotations": anns, "categories": cats}, dets


def edge_set():
    """Hand-made cases: IoUs exactly on thresholds, crowd absorption, id 0, borders."""
    images = [{"id": i, "file_name": "e%d.jpg" % i, "width": 200, "height": 200} for i in range(1, 7)]
    cats = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]
    anns, dets = [], []

    def gt(i, img, cat, b, area=None, crowd=0):
        anns.append({"id": i, "image_id": img, "category_id": cat, "bbox": b,
                     "area": b[2] * b[3] if area is None else area, "iscrowd": crowd})

    def dt(img, cat, b, s):
        dets.append({"image_id": img, "category_id": cat, "bbox": b, "score": s})

    # image 1: IoU exactly 0.5, 0.75, 0.85, 0.9 against 10x10 GTs (0.85 passes np.linspace's 0.85)
    for j, h in enumerate([5, 7.5, 8.5, 9]):
        gt(10 + j, 1, 1, [50 * j, 0, 10, 10])
        dt(1, 1, [50 * j, 0, 10, h], 0.9 - 0.1 * j)
    # image 2: a crowd absorbs 3 detections; a real GT next to it; one detection prefers the real GT
    gt(20, 2, 1, [0, 0, 100, 100], crowd=1)
    gt(21, 2, 1, [40, 40, 30, 30])
    dt(2, 1, [10, 10, 20, 20], 0.8)
    dt(2, 1, [60, 10, 20, 20], 0.8)
    dt(2, 1, [10, 60, 20, 20], 0.7)
    dt(2, 1, [41, 41, 30, 30], 0.6)
    # image 3: GT with id 0 (its match reads as unmatched), areas exactly 1024 and 9216
    gt(0, 3, 2, [0, 0, 32, 32])
    gt(30, 3, 2, [100, 100, 96, 96])
    gt(31, 3, 2, [50, 0, 32, 32], area=1024.0)
    dt(3, 2, [0, 0, 32, 32], 0.5)
    dt(3, 2, [100, 100, 96, 96], 0.5)
    dt(3, 2, [50, 0, 32, 32], 0.5)
    # image 4: no annotations; detections are false positives, one of category 3 (no GT anywhere)
    dt(4, 1, [0, 0, 50, 50], 0.95)
    dt(4, 3, [0, 0, 50, 50], 0.95)
    # image 5: equal IoU to two GTs (the later one wins), a GT outside the range still matched once
    gt(50, 5, 2, [0, 0, 20, 10])
    gt(51, 5, 2, [0, 10, 20, 10])
    dt(5, 2, [0, 5, 20, 10], 0.4)
    dt(5, 2, [0, 5, 20, 10], 0.4)
    # image 6: 20 GTs, 7 found (recall exactly 0.35 = 7/20, a recThrs trap), 3 FPs
    for j in range(20):
        gt(60 + j, 6, 1, [10 * (j % 10), 100 + 20 * (j // 10), 8, 8])
    for j in range(7):
        dt(6, 1, [10 * j, 100, 8, 8], 0.3)
    for j in range(3):
        dt(6, 1, [150, 150 + 5 * j, 4, 4], 0.35 - 0.01 * j)
    dt(6, 7, [0, 0, 1, 1], 0.1)  # unknown category
    return {"images": images, "annotations": anns, "categories": cats}, dets


FIXTURES = ["edge", "random_small", "random_many", "random_wide"]


def make_fixtures():
    os.makedirs(OUT, exist_ok=True)
    sets = {
        "edge": edge_set(),
        "random_small": random_set("random_small", 1, 12, 4, {7}),
        "random_many": random_set("random_many", 2, 16, 4, set(), many=True),
        "random_wide": random_set("random_wide", 3, 24, 22, {5, 17}),
    }
    for name, (gt, dt) in sets.items():
        with open(os.path.join(OUT, name + "_gt.json"), "w") as f:
            json.dump(gt, f, separators=(",", ":"))
        with open(os.path.join(OUT, name + "_dt.json"), "w") as f:
            json.dump(dt, f, separators=(",", ":"))
        print(name, len(gt["images"]), "images", len(gt["annotations"]), "gt", len(dt), "dt")
    make_voc_fixture()


def run_coco():
    import numpy as np
    np.float = float  # removed in numpy 1.24; pycocotools' accumulate still uses it
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval
    for name in FIXTURES:
        with contextlib.redirect_stdout(io.StringIO()) as log:
            gt = COCO(os.path.join(OUT, name + "_gt.json"))
            dt = gt.loadRes(os.path.join(OUT, name + "_dt.json"))
            ev = COCOeval(gt, dt, "bbox")
            ev.evaluate()
            ev.accumulate()
            ev.summarize()
        lines = [l for l in log.getvalue().splitlines() if l.startswith(" Average")]
        prec, rec = ev.eval["precision"], ev.eval["recall"]
        per_cat = []
        for k in range(len(ev.params.catIds)):
            p = prec[:, :, k, 0, -1]
            p = p[p > -1]
            per_cat.append(float(np.mean(p)) if p.size else -1.0)
        T, R, K, A, M = prec.shape
        psum = [math.fsum(prec[t, :, k, a, m]) for t in range(T) for k in range(K) for a in range(A) for m in range(M)]
        ref = {"stats": [float(s) for s in ev.stats], "summary": lines, "cat_ids": [int(c) for c in ev.params.catIds],
               "per_category_ap": per_cat, "recall": [float(v) for v in rec.ravel()], "precision_rsum": psum}
        with open(os.path.join(OUT, name + "_ref.json"), "w") as f:
            json.dump(ref, f, indent=0)
        print(name, ["%.6f" % s for s in ev.stats])


# ---------------------------------------------------------------- VOC

def make_voc_fixture():
    """Per image: GT boxes [x1,y1,x2,y2] with labels and difficult flags, detections with scores."""
    rng = random.Random(11)
    n_cls = 5
    images = []
    for i in range(30):
        gts, dts = [], []
        for _ in range(rng.randint(0, 6)):
            c = rng.randrange(n_cls - 1)  # class 4 never has GT
            x1, y1 = rng.randint(0, 300), rng.randint(0, 300)
            w, h = rng.randint(5, 150), rng.randint(5, 150)
            diff = 1 if rng.random() < 0.15 else 0
            gts.append({"box": [x1, y1, x1 + w, y1 + h], "label": c, "difficult": diff})
        for g in gts:
            for _ in range(rng.choice([0, 1, 1, 2])):
                b = g["box"]
                j = lambda v: round(v + rng.gauss(0, 6), 1)
                dts.append({"box": [j(b[0]), j(b[1]), j(b[2]), j(b[3])], "label": g["label"], "score": score(rng)})
        for _ in range(rng.randint(0, 3)):
            x1, y1 = rng.randint(0, 300), rng.randint(0, 300)
            dts.append({"box": [x1, y1, x1 + rng.randint(5, 100), y1 + rng.randint(5, 100)],
                        "label": rng.randrange(n_cls), "score": score(rng)})
        # the model's NMS output is sorted by score; ties keep their order
        dts.sort(key=lambda d: -d["score"])
        images.append({"gt": gts, "dt": dts})
    with open(os.path.join(OUT, "voc_fixture.json"), "w") as f:
        json.dump({"num_classes": n_cls, "images": images}, f, separators=(",", ":"))


def run_voc():
    import numpy as np
    # map_utils imports paddle, ppdet.modeling.{bbox,rbox}_utils and ppdet.utils.logger; it uses
    # none of them in DetectionMAP for [x1, y1, x2, y2] boxes, so stub them.
    import logging
    for m in ["paddle", "ppdet", "ppdet.modeling", "ppdet.modeling.bbox_utils", "ppdet.modeling.rbox_utils",
              "ppdet.utils", "ppdet.utils.logger"]:
        sys.modules[m] = types.ModuleType(m)
    sys.modules["ppdet.modeling.bbox_utils"].poly2rbox = None
    sys.modules["ppdet.modeling.rbox_utils"].poly2rbox_np = None
    sys.modules["ppdet.utils.logger"].setup_logger = logging.getLogger
    import map_utils
    with open(os.path.join(OUT, "voc_fixture.json")) as f:
        fx = json.load(f)
    n = fx["num_classes"]
    out = {}
    for mode in ["11point", "integral"]:
        for diff in [False, True]:
            m = map_utils.DetectionMAP(n, 0.5, mode, False, diff, {i: "c%d" % i for i in range(n)})
            for im in fx["images"]:
                gt_box = np.array([g["box"] for g in im["gt"]], dtype=np.float64).reshape(-1, 4)
                gt_label = np.array([g["label"] for g in im["gt"]]).reshape(-1, 1)
                difficult = np.array([g["difficult"] for g in im["gt"]]).reshape(-1, 1)
                bbox = np.array([d["box"] for d in im["dt"]], dtype=np.float64).reshape(-1, 4)
                sc = np.array([d["score"] for d in im["dt"]], dtype=np.float64)
                lab = np.array([d["label"] for d in im["dt"]])
                m.update(bbox, sc, lab, gt_box, gt_label, difficult)
            m.accumulate()
            key = "%s_difficult=%s" % (mode, diff)
            per = {}
            for c, (sp, cnt) in enumerate(zip(m.class_score_poss, m.class_gt_counts)):
                if cnt == 0:
                    continue
                if not sp:
                    per[str(c)] = {"ap": 0.0, "area": 0.0}
                    continue
                tp, fp = m._get_tp_fp_accum(sp)
                prec = [float(a) / (a + b) for a, b in zip(tp, fp)]
                rec = [float(a) / cnt for a in tp]
                per[str(c)] = {"area": float(map_utils.compute_ap(rec, prec))}
            out[key] = {"map": float(m.get_map()), "per_class": per}
            # per-class AP in the chosen mode, recomputed in class order (eval_results mislabels classes)
            aps = []
            for c, (sp, cnt) in enumerate(zip(m.class_score_poss, m.class_gt_counts)):
                if cnt == 0:
                    continue
                mm = map_utils.DetectionMAP(n, 0.5, mode, False, diff, {i: "c%d" % i for i in range(n)})
                mm.class_score_poss = [sp if j == c else [] for j in range(n)]
                mm.class_gt_counts = [cnt if j == c else 0 for j in range(n)]
                mm.accumulate()
                per[str(c)]["ap"] = float(mm.mAP)
            print(key, out[key]["map"])
    with open(os.path.join(OUT, "voc_ref.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "fixtures":
        make_fixtures()
    elif cmd == "coco":
        run_coco()
    elif cmd == "voc":
        run_voc()
    else:
        sys.exit(__doc__)
