#!/usr/bin/python3
"""PaddleDetection's PicoDet (LCNet + LCPAN + PicoHeadV2): a .pdparams in its names and a NumPy forward.

PaddlePaddle cannot be installed here. This script is written from PaddleDetection's sources
(release/2.8, unchanged in develop as of October 2024): ppdet/modeling/backbones/lcnet.py (LCNet,
DepthwiseSeparable, ConvBNLayer, SEModule), necks/lc_pan.py (LCPAN), necks/csp_pan.py (ConvBNLayer,
Channel_T, DPModule), heads/pico_head.py (PicoFeat, PicoSE, PicoHeadV2), heads/gfl_head.py (GFLHead's
ScaleReg and Integral, which PicoHeadV2 inherits), layers.py (ConvNormLayer) and
configs/picodet/_base_/picodet_v2.yml with picodet_s_320_coco_lcnet.yml. It never reads the Go code
it checks.

- `params(cfg, rng)` lists the state dict paddle.save writes for the model, in Paddle's order (a
  layer's parameters, its persistable buffers, then its sublayers in registration order), random
  values; it includes what PicoHeadV2 saves but never runs: head_cls_list / head_reg_list (the
  same layers as head_cls<l> / head_reg<l>, registered twice), GFLHead's ScaleReg parameters
  p<log2 stride>_feat.scale_reg and Integral's buffer distribution_project.project;
- `forward(sd, cfg, x)` runs the network in eval mode (BatchNorm with running statistics, eps 1e-5)
  and returns, over all levels in order (each row-major), PicoHeadV2.forward_eval's class scores
  sqrt(sigmoid(cls) * sigmoid(align) + 1e-9), the raw box-distribution logits head_reg<l>, and the
  boxes its export_post_process decodes: anchor (x + cell_offset, y + cell_offset), softmax over
  reg_max + 1 bins times 0..reg_max (Integral), x1 = (ax - l) * stride, ..., before NMS.

    picodet_ref.py            writes kits/det/testdata/paddledet/ (the committed fixture)
    picodet_ref.py DIR NAME   writes DIR/NAME.pdparams and DIR/NAME_{scores,regs,boxes}.npy for CONFIGS[NAME]
"""
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pp_liteseg_ref import Params, bn, conv2d, test_input  # noqa: E402  (shared NumPy layers)

NET_CONFIG = [  # lcnet.py: blocks2..blocks6 of (k, in_c, out_c, stride, use_se)
    [(3, 16, 32, 1, False)],
    [(3, 32, 64, 2, False), (3, 64, 64, 1, False)],
    [(3, 64, 128, 2, False), (3, 128, 128, 1, False)],
    [(3, 128, 256, 2, False)] + [(5, 256, 256, 1, False)] * 5,
    [(5, 256, 512, 2, True), (5, 512, 512, 1, True)],
]

CONFIGS = {
    # The committed fixture: PicoDet-S's layout (num_features 4, num_convs 2, use_se, the alignment
    # head, reg_max 7) at LCNet scale 0.25 and 24 channels, 3 classes, a 64x96 input (the stride-64
    # level is 1x2).
    "s_tiny": dict(scale=0.25, out=24, num_convs=2, num_classes=3, reg_max=7, strides=[8, 16, 32, 64],
                   input=(1, 3, 64, 96), seed=25),
    # picodet_s_320_coco_lcnet as configured (LCNet 0.75, 96 channels, 80 classes) on 320x320.
    "s_320": dict(scale=0.75, out=96, num_convs=2, num_classes=80, reg_max=7, strides=[8, 16, 32, 64],
                  input=(1, 3, 320, 320), seed=3),
}


def make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def lcnet_blocks(scale):
    """(name, k, in, out, stride, se) of every DepthwiseSeparable of LCNet."""
    out = []
    for s, blocks in enumerate(NET_CONFIG, start=2):
        for j, (k, ci, co, st, se) in enumerate(blocks):
            out.append(("blocks%d.%d" % (s, j), k, make_divisible(ci * scale), make_divisible(co * scale), st, se))
    return out


def convbn(p, name, cin, cout, k, groups=1, norm="bn"):
    p.conv(name + ".conv", cin, cout, k, groups=groups)
    p.bn(name + "." + norm, cout)


def dws(p, name, cin, cout, k, se=False):
    """lcnet.py's DepthwiseSeparable: dw_conv, [se], pw_conv."""
    convbn(p, name + ".dw_conv", cin, cin, k, groups=cin)
    if se:
        p.conv(name + ".se.conv1", cin, cin // 4, 1, bias=True)
        p.conv(name + ".se.conv2", cin // 4, cin, 1, bias=True)
    convbn(p, name + ".pw_conv", cin, cout, 1)


def dpmodule(p, name, cin, cout, k):
    """csp_pan.py's DPModule: dwconv (groups = out), bn1, pwconv, bn2."""
    p.conv(name + ".dwconv", cin, cout, k, groups=cout)
    p.bn(name + ".bn1", cout)
    p.conv(name + ".pwconv", cout, cout, 1)
    p.bn(name + ".bn2", cout)


def levels_in(cfg):
    return [make_divisible(c * cfg["scale"]) for c in (128, 256, 512)]


def params(cfg, rng):
    p = Params(rng)
    c, k, nl = cfg["out"], 5, len(cfg["strides"])
    convbn(p, "backbone.conv1", 3, make_divisible(16 * cfg["scale"]), 3)
    for name, kk, ci, co, _, se in lcnet_blocks(cfg["scale"]):
        dws(p, "backbone." + name, ci, co, kk, se)
    for i, ci in enumerate(levels_in(cfg)):
        convbn(p, "neck.conv_t.convs.%d" % i, ci, c, 1)
    if nl == 4:
        dpmodule(p, "neck.first_top_conv", c, c, k)
        dpmodule(p, "neck.second_top_conv", c, c, k)
    for i in range(2):
        dws(p, "neck.top_down_blocks.%d.0" % i, 2 * c, 2 * c, k)
        dws(p, "neck.top_down_blocks.%d.1" % i, 2 * c, c, k)
    for i in range(2):
        dpmodule(p, "neck.downsamples.%d" % i, c, c, k)
    for i in range(2):
        dws(p, "neck.bottom_up_blocks.%d.0" % i, 2 * c, 2 * c, k)
        dws(p, "neck.bottom_up_blocks.%d.1" % i, 2 * c, c, k)
    # PicoFeat: the se LayerList is registered before the towers
    for l in range(nl):
        p.conv("head.conv_feat.se.%d.fc" % l, c, c, 1, bias=True)
        convbn(p, "head.conv_feat.se.%d.conv" % l, c, c, 1, norm="norm")
    for l in range(nl):
        for i in range(cfg["num_convs"]):
            convbn(p, "head.conv_feat.cls_conv_dw%d.%d" % (l, i), c, c, 5, groups=c, norm="norm")
            convbn(p, "head.conv_feat.cls_conv_pw%d.%d" % (l, i), c, c, 1, norm="norm")
    # GFLHead's leftovers: ScaleReg per level, Integral's project buffer
    for s in cfg["strides"]:
        p.items.append(("head.p%d_feat.scale_reg" % int(np.log2(s)), np.ones(1, np.float32)))
    r = cfg["reg_max"]
    p.items.append(("head.distribution_project.project", np.linspace(0, r, r + 1).astype(np.float32)))
    cls, reg, align = [], [], []
    for l in range(nl):
        wc = (0.1 * rng.standard_normal((cfg["num_classes"], c, 1, 1))).astype(np.float32)
        bc = (-1 + 0.5 * rng.standard_normal(cfg["num_classes"])).astype(np.float32)
        wr = (0.1 * rng.standard_normal((4 * (r + 1), c, 1, 1))).astype(np.float32)
        br = (0.5 * rng.standard_normal(4 * (r + 1))).astype(np.float32)
        cls.append((wc, bc))
        reg.append((wr, br))
    for l in range(nl):  # head_cls_list, then head_reg_list, then cls_align (LayerLists, in that order)
        p.items += [("head.head_cls_list.%d.weight" % l, cls[l][0]), ("head.head_cls_list.%d.bias" % l, cls[l][1])]
    for l in range(nl):
        p.items += [("head.head_reg_list.%d.weight" % l, reg[l][0]), ("head.head_reg_list.%d.bias" % l, reg[l][1])]
    for l in range(nl):
        dpmodule(p, "head.cls_align.%d" % l, c, 1, 5)
    for l in range(nl):  # then head_cls<l>, head_reg<l>: the same tensors
        p.items += [("head.head_cls%d.weight" % l, cls[l][0]), ("head.head_cls%d.bias" % l, cls[l][1])]
        p.items += [("head.head_reg%d.weight" % l, reg[l][0]), ("head.head_reg%d.bias" % l, reg[l][1])]
    return p.items


# --- NumPy forward (eval) ---
def hardswish(x):
    return x * np.clip(x + 3, 0, 6) / 6


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def cb(x, sd, name, stride=1, act=True, norm="bn"):
    """ConvBNLayer / ConvNormLayer (+ hard-swish): "same" padding (k - 1) // 2."""
    w = sd[name + ".conv.weight"]
    groups = x.shape[1] // w.shape[1]
    y = bn(conv2d(x, w, stride=stride, pad=(w.shape[2] - 1) // 2, groups=groups), sd, name + "." + norm)
    return hardswish(y) if act else y


def dws_fwd(x, sd, name, stride=1):
    x = cb(x, sd, name + ".dw_conv", stride)
    if name + ".se.conv1.weight" in sd:
        s = x.mean(axis=(2, 3), keepdims=True)
        s = np.maximum(conv2d(s, sd[name + ".se.conv1.weight"], sd[name + ".se.conv1.bias"]), 0)
        s = conv2d(s, sd[name + ".se.conv2.weight"], sd[name + ".se.conv2.bias"])
        x = x * np.clip(s / 6 + 0.5, 0, 1)  # nn.Hardsigmoid: slope 1/6, offset 0.5
    return cb(x, sd, name + ".pw_conv")


def dp_fwd(x, sd, name, stride=1, act_out=True):
    w = sd[name + ".dwconv.weight"]
    x = hardswish(bn(conv2d(x, w, stride=stride, pad=(w.shape[2] - 1) // 2, groups=w.shape[0]), sd, name + ".bn1"))
    x = bn(conv2d(x, sd[name + ".pwconv.weight"]), sd, name + ".bn2")
    return hardswish(x) if act_out else x


def up2(x):
    return x.repeat(2, axis=2).repeat(2, axis=3)  # nn.Upsample(scale_factor=2, mode="nearest")


def forward(sd, cfg, x):
    x = cb(x.astype(np.float64), sd, "backbone.conv1", 2)
    feats = []
    for name, _, _, _, st, _ in lcnet_blocks(cfg["scale"]):
        x = dws_fwd(x, sd, "backbone." + name, st)
        if name in ("blocks4.1", "blocks5.5", "blocks6.1"):  # feature_maps [3, 4, 5]
            feats.append(x)
    # LCPAN
    ins = [cb(f, sd, "neck.conv_t.convs.%d" % i) for i, f in enumerate(feats)]
    n = len(ins)
    inner = [ins[-1]]
    for idx in range(n - 1, 0, -1):
        y = np.concatenate([up2(inner[0]), ins[idx - 1]], axis=1)
        for j in range(2):
            y = dws_fwd(y, sd, "neck.top_down_blocks.%d.%d" % (n - 1 - idx, j))
        inner.insert(0, y)
    outs = [inner[0]]
    for idx in range(n - 1):
        y = np.concatenate([dp_fwd(outs[-1], sd, "neck.downsamples.%d" % idx, 2), inner[idx + 1]], axis=1)
        for j in range(2):
            y = dws_fwd(y, sd, "neck.bottom_up_blocks.%d.%d" % (idx, j))
        outs.append(y)
    if len(cfg["strides"]) == 4:
        outs.append(dp_fwd(ins[-1], sd, "neck.first_top_conv", 2) + dp_fwd(outs[-1], sd, "neck.second_top_conv", 2))
    # PicoHeadV2.forward_eval
    r = cfg["reg_max"]
    scores, regs, boxes = [], [], []
    for l, (f, s) in enumerate(zip(outs, cfg["strides"])):
        t = f
        for i in range(cfg["num_convs"]):
            t = cb(t, sd, "head.conv_feat.cls_conv_dw%d.%d" % (l, i), norm="norm")
            t = cb(t, sd, "head.conv_feat.cls_conv_pw%d.%d" % (l, i), norm="norm")
        pre = "head.conv_feat.se.%d" % l
        wgt = sigmoid(conv2d(t.mean(axis=(2, 3), keepdims=True), sd[pre + ".fc.weight"], sd[pre + ".fc.bias"]))
        se = cb(t * wgt, sd, pre + ".conv", norm="norm")
        logit = conv2d(se, sd["head.head_cls%d.weight" % l], sd["head.head_cls%d.bias" % l])
        reg = conv2d(se, sd["head.head_reg%d.weight" % l], sd["head.head_reg%d.bias" % l])
        align = dp_fwd(t, sd, "head.cls_align.%d" % l, act_out=False)
        score = np.sqrt(sigmoid(logit) * sigmoid(align) + 1e-9)
        _, k, h, w = score.shape
        scores.append(score.reshape(k, h * w).T)
        rg = reg.reshape(4 * (r + 1), h * w).T
        regs.append(rg)
        e = np.exp(rg.reshape(-1, 4, r + 1) - rg.reshape(-1, 4, r + 1).max(-1, keepdims=True))
        d = (e / e.sum(-1, keepdims=True)) @ np.arange(r + 1)
        yy, xx = np.meshgrid(np.arange(h) + 0.5, np.arange(w) + 0.5, indexing="ij")  # cell_offset 0.5
        ax, ay = xx.reshape(-1), yy.reshape(-1)
        boxes.append(np.stack([ax - d[:, 0], ay - d[:, 1], ax + d[:, 2], ay + d[:, 3]], axis=1) * s)
    return np.concatenate(scores), np.concatenate(regs), np.concatenate(boxes)


def write(cfg, pdparams, out):
    rng = np.random.RandomState(cfg["seed"])
    items = params(cfg, rng)
    sd = dict(items)
    scores, regs, boxes = forward(sd, cfg, test_input(cfg["input"]))
    saved = dict(items)
    saved["StructuredToParameterName@@"] = {k: "param_%d" % i for i, (k, _) in enumerate(items)}
    os.makedirs(os.path.dirname(pdparams) or ".", exist_ok=True)
    with open(pdparams, "wb") as f:
        pickle.Pickler(f, 4).dump(saved)
    for name, a in (("scores", scores), ("regs", regs), ("boxes", boxes)):
        np.save(out + "_" + name + ".npy", a.astype(np.float32))


if __name__ == "__main__":
    if len(sys.argv) == 3:
        d, name = sys.argv[1], sys.argv[2]
        write(CONFIGS[name], os.path.join(d, name + ".pdparams"), os.path.join(d, name))
    else:
        d = "kits/det/testdata/paddledet"
        write(CONFIGS["s_tiny"], os.path.join(d, "picodet_s_tiny.pdparams"), os.path.join(d, "picodet_s_tiny"))
