#!/usr/bin/python3
"""PaddleOCR's STN_ON in front of SVTRNet (rec_svtrnet.yml): a .pdparams in PaddleOCR's names and a NumPy forward.

PaddlePaddle cannot be installed here. This script is written from PaddleOCR's sources
(ppocr/modeling/transforms/stn.py and tps_spatial_transformer.py, release 2.6 and later, from
ASTER): STN_ON resizes the image with F.interpolate(bilinear, align_corners=True) to
tps_inputsize and runs STN (stn_head): stn_convnet = six conv3x3_block (Conv2D 3x3 pad 1 with
bias, BatchNorm2D, ReLU) of 32, 64, 128, 256, 256, 256 channels with MaxPool2D(2, 2) between
them, flattened to (N, 2*256); stn_fc1 = Linear(512, 512) (weight stored (in, out)),
BatchNorm1D, ReLU; stn_fc2 = Linear(512, 2K) applied to 0.1 * that, sigmoid only with
stn_activation sigmoid, reshaped to (N, K, 2) control points (x, y). TPSSpatialTransformer: the
target control points (K/2 at linspace(mx, 1 - mx) along y = my, then along y = 1 - my), the
padded forward kernel [[U, 1, P], [1^T, 0, 0], [P^T, 0, 0]] with U = 0.5 d^2 log d^2 (0 at d =
0), its inverse; the target coordinates itertools.product(range(H), range(W)) as (x / (W - 1),
y / (H - 1)) with their [U, 1, x, y] rows; mapping = inverse @ concat(ctrl, zeros(3, 2)),
source = rows @ mapping, reshaped (N, H, W, 2), clipped to [0, 1], 2 g - 1, then
F.grid_sample(image, grid) with Paddle's defaults (bilinear, zeros padding, align_corners=True).
The kernel matrices are plain attributes, not persistables: only transform.stn_head.* is saved.
The rectified image goes through ppocr_svtr_ref.py's SVTRNet forward. It never reads the Go code
it checks.

    ppocr_stn_ref.py DIR NAME   writes DIR/NAME.pdparams and DIR/NAME_logits.npy for CONFIGS[NAME]

The STN's widths are fixed by PaddleOCR, so its tensors alone take about 7.5 MB: the fixture is
written at test time (kits/ocr/rectrain/stn_test.go), not committed.
"""
import itertools
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ppocr_svtr_ref as svtr  # noqa: E402
from pp_liteseg_ref import conv2d, test_input  # noqa: E402

CONFIGS = {
    # STN_ON as rec_svtrnet.yml sets it (tps_inputsize [32, 64], 20 points, margins 0.05) but
    # rectifying to svtr_small's 32x64, on two 48x160 images (an odd size: the resize and the
    # sampling both interpolate).
    "stn_svtr_small": dict(svtr.CONFIGS["svtr_small"], tps_in=(32, 64), tps_out=(32, 64), points=20,
                           margins=(0.05, 0.05), activation="none", input=(2, 3, 48, 160), seed=26),
}


def stn_params(cfg, rng):
    """transform.stn_head.* in Paddle's order, random values; stn_fc2 a small random weight on
    PaddleOCR's initial bias (the margin-0.01 points) plus noise, so the grid bends."""
    items = []
    pre = "transform.stn_head."

    def bn(name, c):
        items.append((name + ".weight", (1 + 0.2 * rng.standard_normal(c)).astype(np.float32)))
        items.append((name + ".bias", (0.1 * rng.standard_normal(c)).astype(np.float32)))
        items.append((name + "._mean", (0.1 * rng.standard_normal(c)).astype(np.float32)))
        items.append((name + "._variance", rng.uniform(0.5, 1.5, c).astype(np.float32)))

    cin = 3
    for i, c in enumerate([32, 64, 128, 256, 256, 256]):
        name = pre + "stn_convnet.%d." % (2 * i)
        items.append((name + "0.weight", (np.sqrt(2.0 / (9 * cin)) * rng.standard_normal((c, cin, 3, 3))).astype(np.float32)))
        items.append((name + "0.bias", (0.1 * rng.standard_normal(c)).astype(np.float32)))
        bn(name + "1", c)
        cin = c
    items.append((pre + "stn_fc1.0.weight", (rng.standard_normal((512, 512)) / np.sqrt(512)).astype(np.float32)))
    items.append((pre + "stn_fc1.0.bias", (0.1 * rng.standard_normal(512)).astype(np.float32)))
    bn(pre + "stn_fc1.1", 512)
    k = cfg["points"]
    items.append((pre + "stn_fc2.weight", (0.02 * rng.standard_normal((512, 2 * k))).astype(np.float32)))
    base = ctrl_points(k, (0.01, 0.01)).reshape(-1)
    items.append((pre + "stn_fc2.bias", (base + 0.02 * rng.standard_normal(2 * k)).astype(np.float32)))
    return items


def ctrl_points(k, margins):
    mx, my = margins
    xs = np.linspace(mx, 1.0 - mx, k // 2)
    top = np.stack([xs, np.ones(k // 2) * my], axis=1)
    bottom = np.stack([xs, np.ones(k // 2) * (1.0 - my)], axis=1)
    return np.concatenate([top, bottom], axis=0)


def partial_repr(p, c):
    d = ((p[:, None, :] - c[None, :, :]) ** 2).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = 0.5 * d * np.log(d)
    r[r != r] = 0
    return r


def resize_align_corners(x, oh, ow):
    """F.interpolate(bilinear, align_corners=True): source o (in - 1) / (out - 1)."""
    def axis(n_in, n_out):
        s = np.arange(n_out) * (n_in - 1) / (n_out - 1)
        i0 = np.minimum(np.floor(s).astype(int), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        return i0, i1, s - i0
    r0, r1, wr = axis(x.shape[2], oh)
    c0, c1, wc = axis(x.shape[3], ow)
    top = x[:, :, r0][:, :, :, c0] * (1 - wc) + x[:, :, r0][:, :, :, c1] * wc
    bot = x[:, :, r1][:, :, :, c0] * (1 - wc) + x[:, :, r1][:, :, :, c1] * wc
    return top * (1 - wr)[:, None] + bot * wr[:, None]


def maxpool2(x):
    n, c, h, w = x.shape
    return x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def grid_sample(x, grid):
    """F.grid_sample(bilinear, zeros, align_corners=True), as four masked gathers."""
    n, c, h, w = x.shape
    gx, gy = (grid[..., 0] + 1) / 2 * (w - 1), (grid[..., 1] + 1) / 2 * (h - 1)
    x0, y0 = np.floor(gx).astype(int), np.floor(gy).astype(int)
    out = np.zeros((n, c) + grid.shape[1:3])
    for dy in (0, 1):
        for dx in (0, 1):
            xi, yi = x0 + dx, y0 + dy
            wt = (1 - np.abs(gx - xi)) * (1 - np.abs(gy - yi))
            ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            xc, yc = np.clip(xi, 0, w - 1), np.clip(yi, 0, h - 1)
            for b in range(n):
                out[b] += x[b][:, yc[b], xc[b]] * (wt[b] * ok[b])[None]
    return out


def stn_forward(sd, cfg, x):
    pre = "transform.stn_head."
    y = resize_align_corners(x.astype(np.float64), *cfg["tps_in"])
    for i in range(6):
        if i:
            y = maxpool2(y)
        name = pre + "stn_convnet.%d." % (2 * i)
        y = np.maximum(svtr.bn(conv2d(y, sd[name + "0.weight"], sd[name + "0.bias"], pad=1), sd, name + "1"), 0)
    y = y.reshape(y.shape[0], -1)
    f = svtr.linear(y, sd, pre + "stn_fc1.0")
    g = lambda a: a.astype(np.float64).reshape(1, -1)
    bn1 = pre + "stn_fc1.1"
    f = (f - g(sd[bn1 + "._mean"])) / np.sqrt(g(sd[bn1 + "._variance"]) + 1e-5) * g(sd[bn1 + ".weight"]) + g(sd[bn1 + ".bias"])
    f = np.maximum(f, 0)
    ctrl = svtr.linear(0.1 * f, sd, pre + "stn_fc2")
    if cfg["activation"] == "sigmoid":
        ctrl = 1 / (1 + np.exp(-ctrl))
    k = cfg["points"]
    ctrl = ctrl.reshape(-1, k, 2)
    # TPSSpatialTransformer
    tgt = ctrl_points(k, cfg["margins"])
    kern = np.zeros((k + 3, k + 3))
    kern[:k, :k] = partial_repr(tgt, tgt)
    kern[:k, -3] = 1
    kern[-3, :k] = 1
    kern[:k, -2:] = tgt
    kern[-2:, :k] = tgt.T
    inv = np.linalg.inv(kern)
    th, tw = cfg["tps_out"]
    yx = np.array(list(itertools.product(range(th), range(tw))), dtype=np.float64)
    coord = np.concatenate([yx[:, 1:2] / (tw - 1), yx[:, 0:1] / (th - 1)], axis=1)
    rows = np.concatenate([partial_repr(coord, tgt), np.ones((th * tw, 1)), coord], axis=1)
    ypad = np.concatenate([ctrl, np.zeros((ctrl.shape[0], 3, 2))], axis=1)
    src = rows @ (inv @ ypad)
    grid = 2.0 * np.clip(src.reshape(-1, th, tw, 2), 0, 1) - 1.0
    return grid_sample(x.astype(np.float64), grid)


def write(cfg, pdparams, logits_npy):
    rng = np.random.RandomState(cfg["seed"])
    items = stn_params(cfg, rng) + svtr.params(cfg, rng)
    sd = dict(items)
    x = test_input(cfg["input"])
    rect = stn_forward(sd, cfg, x)
    logits = svtr.forward(sd, dict(cfg, img_size=cfg["tps_out"]), rect).astype(np.float32)
    saved = {k: v.copy() for k, v in items}
    saved["StructuredToParameterName@@"] = {k: "param_%d" % i for i, (k, _) in enumerate(items)}
    os.makedirs(os.path.dirname(pdparams) or ".", exist_ok=True)
    with open(pdparams, "wb") as f:
        pickle.Pickler(f, 4).dump(saved)
    np.save(logits_npy, logits)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    d, name = sys.argv[1], sys.argv[2]
    write(CONFIGS[name], os.path.join(d, name + ".pdparams"), os.path.join(d, name + "_logits.npy"))
