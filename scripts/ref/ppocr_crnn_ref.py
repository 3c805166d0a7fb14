#!/usr/bin/python3
"""PaddleOCR's CRNN (rec_mv3_none_bilstm_ctc.yml): a .pdparams in PaddleOCR's names and a NumPy forward.

PaddlePaddle cannot be installed here. This script is written from PaddleOCR's sources (release
2.x, unchanged in these parts since 2021): ppocr/modeling/backbones/rec_mobilenet_v3.py
(MobileNetV3: conv1, blocks, conv2, a 2x2 max pool; the rec strides: the large model's first
block takes large_stride[0] on both sides, the other strided blocks (s, 1)),
backbones/det_mobilenet_v3.py (ConvBNLayer = Conv2D without bias + nn.BatchNorm, ResidualUnit
with expand_conv, bottleneck_conv, mid_se, linear_conv and a shortcut when stride 1 and in ==
out, SEModule with F.hardsigmoid(slope=0.2, offset=0.5), make_divisible), necks/rnn.py
(SequenceEncoder: Im2Seq squeezes the height of 1 to (N, W, C); EncoderWithRNN is
nn.LSTM(in, hidden, direction="bidirectional", num_layers=2)), heads/rec_ctc_head.py (CTCHead:
nn.Linear fc, weight stored (in, out); softmax only at inference, so the logits before it are
compared) and from Paddle's python/paddle/nn/layer/rnn.py (LSTMCell: gates = x W_ih^T + b_ih +
h W_hh^T + b_hh split into i, f, g, o; c = f c + i tanh(g); h = o tanh(c). RNNBase is a LayerList
of BiRNN(cell_fw, cell_bw) layers and re-exposes the same parameters as weight_ih_l<k>,
weight_hh_l<k>, bias_ih_l<k>, bias_hh_l<k> (+ _reverse), so its state_dict holds each LSTM
tensor twice: the flat names first (the layer's own parameters), then <k>.cell_fw|cell_bw.*).
It never reads the Go code it checks.

    ppocr_crnn_ref.py            writes kits/ocr/rectrain/testdata/paddleocr/ (the committed fixture)
    ppocr_crnn_ref.py DIR NAME   writes DIR/NAME.pdparams and DIR/NAME_logits.npy for CONFIGS[NAME]

The .pdparams is a protocol-4 pickle of {name: ndarray} plus "StructuredToParameterName@@", the
layout of paddle.save (see pdparams_ref.py); the logits are (N, T, classes), float32.
"""
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdparams_ref import make_divisible  # noqa: E402  (PaddleOCR's make_divisible)
from pp_liteseg_ref import bn, conv2d, test_input  # noqa: E402

CONFIGS = {
    # The committed fixture: the small model at scale 0.35 with small_stride [1, 2, 2, 2] (as
    # PaddleOCR's ch_ppocr_mobile_v2.0 rec config sets it for 32-pixel lines), hidden 16, two 32x64
    # lines (batch 2), 37 classes (blank + the default 0-9a-z).
    "mv3_small_h16": dict(model_name="small", scale=0.35, hidden=16, classes=37, input=(2, 3, 32, 64),
                          small_stride=[1, 2, 2, 2], seed=25),
    # The large model (large_stride[0] = 2 on both sides, so 64-pixel lines), written at test time:
    # scale 0.35, hidden 8.
    "mv3_large_h8": dict(model_name="large", scale=0.35, hidden=8, classes=37, input=(1, 3, 64, 40),
                         large_stride=[2, 2, 2, 2], seed=26),
    # rec_mv3_none_bilstm_ctc.yml as PaddleOCR ships it: large, scale 0.5, hidden 96, its 36
    # lower-case letters and digits + blank (written at test time, about 9 MB).
    "mv3_large_h96": dict(model_name="large", scale=0.5, hidden=96, classes=37, input=(1, 3, 32, 100), seed=1),
}

LARGE = [  # k, exp, c, se, act, stride index (None: 1)
    (3, 16, 16, False, "relu", 0), (3, 64, 24, False, "relu", 1), (3, 72, 24, False, "relu", None),
    (5, 72, 40, True, "relu", 2), (5, 120, 40, True, "relu", None), (5, 120, 40, True, "relu", None),
    (3, 240, 80, False, "hardswish", None), (3, 200, 80, False, "hardswish", None),
    (3, 184, 80, False, "hardswish", None), (3, 184, 80, False, "hardswish", None),
    (3, 480, 112, True, "hardswish", None), (3, 672, 112, True, "hardswish", None),
    (5, 672, 160, True, "hardswish", 3), (5, 960, 160, True, "hardswish", None), (5, 960, 160, True, "hardswish", None),
]
SMALL = [
    (3, 16, 16, True, "relu", 0), (3, 72, 24, False, "relu", 1), (3, 88, 24, False, "relu", None),
    (5, 96, 40, True, "hardswish", 2), (5, 240, 40, True, "hardswish", None), (5, 240, 40, True, "hardswish", None),
    (5, 120, 48, True, "hardswish", None), (5, 144, 48, True, "hardswish", None),
    (5, 288, 96, True, "hardswish", 3), (5, 576, 96, True, "hardswish", None), (5, 576, 96, True, "hardswish", None),
]


def blocks(cfg):
    """The ResidualUnits: (in, mid, out, k, (sh, sw), se, act), as MobileNetV3.__init__ builds them."""
    large = cfg["model_name"] == "large"
    table = LARGE if large else SMALL
    strides = cfg.get("large_stride", [1, 2, 2, 2]) if large else cfg.get("small_stride", [2, 2, 2, 2])
    s = cfg["scale"]
    inp, out = make_divisible(16 * s), []
    for k, exp, c, se, act, si in table:
        if si is None:
            st = (1, 1)
        elif large and si == 0:
            st = (strides[0], strides[0])  # an int stride in PaddleOCR's table
        else:
            st = (strides[si], 1)
        out.append((inp, make_divisible(s * exp), make_divisible(s * c), k, st, se, act))
        inp = make_divisible(s * c)
    return out, inp, make_divisible(s * (960 if large else 576))


def params(cfg, rng):
    """The state dict paddle.save writes, in Paddle's order, with random values."""
    items = []

    def conv(name, cin, cout, k, groups=1, bias=False):
        fan = cin // groups * k * k
        items.append((name + ".weight", (rng.standard_normal((cout, cin // groups, k, k)) * np.sqrt(2.0 / fan)).astype(np.float32)))
        if bias:
            items.append((name + ".bias", (0.1 * rng.standard_normal(cout)).astype(np.float32)))

    def convbn(name, cin, cout, k, groups=1):
        conv(name + ".conv", cin, cout, k, groups)
        items.append((name + ".bn.weight", (1 + 0.2 * rng.standard_normal(cout)).astype(np.float32)))
        items.append((name + ".bn.bias", (0.1 * rng.standard_normal(cout)).astype(np.float32)))
        items.append((name + ".bn._mean", (0.1 * rng.standard_normal(cout)).astype(np.float32)))
        items.append((name + ".bn._variance", rng.uniform(0.5, 1.5, cout).astype(np.float32)))

    units, last_in, out_ch = blocks(cfg)
    convbn("backbone.conv1", 3, units[0][0], 3)
    for i, (cin, mid, cout, k, _, se, _) in enumerate(units):
        pre = "backbone.blocks.%d" % i
        convbn(pre + ".expand_conv", cin, mid, 1)
        convbn(pre + ".bottleneck_conv", mid, mid, k, groups=mid)
        if se:
            conv(pre + ".mid_se.conv1", mid, mid // 4, 1, bias=True)
            conv(pre + ".mid_se.conv2", mid // 4, mid, 1, bias=True)
        convbn(pre + ".linear_conv", mid, cout, 1)
    convbn("backbone.conv2", last_in, out_ch, 1)

    h = cfg["hidden"]
    lstm, std = [], 1 / np.sqrt(h)  # LSTMCell's Uniform(-1/sqrt(H), 1/sqrt(H))
    for layer in range(2):
        cin = out_ch if layer == 0 else 2 * h
        for d in ("fw", "bw"):
            for n, shape in (("weight_ih", (4 * h, cin)), ("weight_hh", (4 * h, h)), ("bias_ih", (4 * h,)), ("bias_hh", (4 * h,))):
                lstm.append(((layer, d, n), rng.uniform(-std, std, shape).astype(np.float32)))
    pre = "neck.encoder.lstm."
    for (layer, d, n), v in lstm:  # RNNBase's own (re-exposed) parameters first
        items.append((pre + "%s_l%d%s" % (n, layer, "_reverse" if d == "bw" else ""), v))
    for (layer, d, n), v in lstm:  # then its sublayers' (the same arrays)
        items.append((pre + "%d.cell_%s.%s" % (layer, d, n), v))
    std = 1 / np.sqrt(2 * h)  # get_para_bias_attr's Uniform(-1/sqrt(in), 1/sqrt(in))
    items.append(("head.fc.weight", rng.uniform(-std, std, (2 * h, cfg["classes"])).astype(np.float32)))
    items.append(("head.fc.bias", rng.uniform(-std, std, cfg["classes"]).astype(np.float32)))
    return items


# --- NumPy forward (eval) ---

def hardswish(x):
    return x * np.clip(x + 3, 0, 6) / 6


def act(x, name):
    return np.maximum(x, 0) if name == "relu" else hardswish(x)


def convbnlayer(x, sd, name, stride=1, groups=1, a=None):
    w = sd[name + ".conv.weight"]
    y = bn(conv2d(x, w, stride=stride, pad=(w.shape[2] - 1) // 2, groups=groups), sd, name + ".bn")
    return act(y, a) if a else y


def maxpool2(x):
    n, c, h, w = x.shape
    oh, ow = h // 2, w // 2
    x = x[:, :, :2 * oh, :2 * ow].reshape(n, c, oh, 2, ow, 2)
    return x.max(axis=(3, 5))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_dir(x, sd, pre, reverse):
    """One direction of one layer over x (N, T, I): Paddle's LSTMCell step by step from zero states."""
    wi, wh = sd[pre + "weight_ih"].astype(np.float64), sd[pre + "weight_hh"].astype(np.float64)
    bi, bh = sd[pre + "bias_ih"].astype(np.float64), sd[pre + "bias_hh"].astype(np.float64)
    n, t, _ = x.shape
    hsz = wh.shape[1]
    h, c = np.zeros((n, hsz)), np.zeros((n, hsz))
    out = np.zeros((n, t, hsz))
    for s in (reversed(range(t)) if reverse else range(t)):
        g = x[:, s] @ wi.T + bi + h @ wh.T + bh
        i, f, gg, o = np.split(g, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(gg)
        h = sigmoid(o) * np.tanh(c)
        out[:, s] = h
    return out


def forward(sd, cfg, x):
    units, _, _ = blocks(cfg)
    x = convbnlayer(x.astype(np.float64), sd, "backbone.conv1", stride=2, a="hardswish")
    for i, (cin, mid, cout, k, st, se, a) in enumerate(units):
        pre = "backbone.blocks.%d" % i
        y = convbnlayer(x, sd, pre + ".expand_conv", a=a)
        y = convbnlayer(y, sd, pre + ".bottleneck_conv", stride=st, groups=mid, a=a)
        if se:
            s = y.mean(axis=(2, 3), keepdims=True)
            s = np.maximum(conv2d(s, sd[pre + ".mid_se.conv1.weight"], sd[pre + ".mid_se.conv1.bias"]), 0)
            s = conv2d(s, sd[pre + ".mid_se.conv2.weight"], sd[pre + ".mid_se.conv2.bias"])
            y = y * np.clip(0.2 * s + 0.5, 0, 1)
        y = convbnlayer(y, sd, pre + ".linear_conv")
        x = x + y if st == (1, 1) and cin == cout else y
    x = maxpool2(convbnlayer(x, sd, "backbone.conv2", a="hardswish"))
    assert x.shape[2] == 1, "Im2Seq needs a height of 1, got %d" % x.shape[2]
    seq = x[:, :, 0, :].transpose(0, 2, 1)  # Im2Seq: (N, W, C)
    for layer in range(2):
        pre = "neck.encoder.lstm.%d.cell_" % layer
        seq = np.concatenate([lstm_dir(seq, sd, pre + "fw.", False), lstm_dir(seq, sd, pre + "bw.", True)], axis=-1)
    return seq @ sd["head.fc.weight"].astype(np.float64) + sd["head.fc.bias"]


def write(cfg, pdparams, logits_npy):
    rng = np.random.RandomState(cfg["seed"])
    items = params(cfg, rng)
    sd = dict(items)
    logits = forward(sd, cfg, test_input(cfg["input"])).astype(np.float32)
    saved = {k: v.copy() for k, v in items}  # _build_saved_state_dict: each name its own .numpy()
    pnames, table = {}, {}
    for k, v in items:  # the same array under two names is one Paddle parameter
        table[k] = pnames.setdefault(id(v), "param_%d" % len(pnames))
    saved["StructuredToParameterName@@"] = table
    for path in (pdparams, logits_npy):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(pdparams, "wb") as f:
        pickle.Pickler(f, 4).dump(saved)
    np.save(logits_npy, logits)


if __name__ == "__main__":
    if len(sys.argv) == 3:
        d, name = sys.argv[1], sys.argv[2]
        write(CONFIGS[name], os.path.join(d, name + ".pdparams"), os.path.join(d, name + "_logits.npy"))
    else:
        d = "kits/ocr/rectrain/testdata/paddleocr"
        name = "mv3_small_h16"
        write(CONFIGS[name], os.path.join(d, "crnn_" + name + ".pdparams"), os.path.join(d, "crnn_" + name + "_logits.npy"))
