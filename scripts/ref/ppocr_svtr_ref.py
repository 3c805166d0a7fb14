#!/usr/bin/python3
"""PaddleOCR's SVTRNet (rec_svtrnet.yml): a .pdparams in PaddleOCR's names and a NumPy forward.

PaddlePaddle cannot be installed here. This script is written from PaddleOCR's sources
(ppocr/modeling/backbones/rec_svtrnet.py, release 2.6 and later, unchanged in these parts):
PatchEmbed (mode pope, sub_num 2: two ConvBNLayer = Conv2D 3x3 stride 2 pad 1 *with* bias +
BatchNorm2D + GELU; the input must be img_size), pos_embed (1, H/4*W/4, embed_dim[0]) added to the
tokens, Block (prenorm false: x + mixer(norm1(x)), then + mlp(norm2(x)); LayerNorm epsilon 1e-6;
Mlp fc1, exact GELU, fc2), Attention (qkv Linear dim -> 3 dim with bias, reshape (0, -1, 3,
heads, head_dim), transpose (2, 0, 3, 1, 4), q scaled by head_dim^-0.5, softmax(q k^T + mask),
proj; the Local mask: ones over (H*W, H+hk-1, W+wk-1), zero on [h:h+hk, w:w+wk] for query (h,
w), cropped [hk//2:H+hk//2, wk//2:W+wk//2], 1 -> -inf), ConvMixer (Conv2D dim -> dim, kernel
local_mixer, padding k//2, groups num_heads, bias), SubSample types Conv (Conv2D 3x3 stride (2, 1)
pad 1 with bias, then nn.LayerNorm(out) with Paddle's default epsilon 1e-5), the final norm
(epsilon 1e-6), AdaptiveAvgPool2D([1, out_char_num]) (bins [floor(i W/n), ceil((i+1) W/n))),
last_conv 1x1 without bias, Hardswish, Dropout(last_drop, mode downscale_in_infer): x (1 - p) in
eval; necks/rnn.py (SequenceEncoder reshape: Im2Seq squeezes the height of 1 to (N, W, C)) and
heads/rec_ctc_head.py (CTCHead fc, weight stored (in, out); the logits before the softmax are
compared). Attention.mask is a plain tensor attribute, a non-persistable buffer that paddle.save
leaves out. The state dict lists a layer's own parameters before its sublayers', so pos_embed
comes first. It never reads the Go code it checks.

    ppocr_svtr_ref.py            writes kits/ocr/rectrain/testdata/paddleocr/ (the committed fixture)
    ppocr_svtr_ref.py DIR NAME   writes DIR/NAME.pdparams and DIR/NAME_logits.npy for CONFIGS[NAME]

The .pdparams is a protocol-4 pickle of {name: ndarray} plus "StructuredToParameterName@@", the
layout of paddle.save (see pdparams_ref.py); the logits are (N, T, classes), float32.
"""
import math
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pp_liteseg_ref import bn, conv2d, test_input  # noqa: E402

TINY = dict(img_size=(32, 100), embed=[64, 128, 256], depth=[3, 6, 3], heads=[2, 4, 8],
            mixer=["Local"] * 6 + ["Global"] * 6, local=[(7, 11)] * 3, out_channels=192, out_char=25)
CONFIGS = {
    # The committed fixture: PaddleOCR's structure at small widths, on 32x64 lines (8x16 patches,
    # so the 7x11 Local window masks), a ConvMixer among the blocks, out_char_num 10 (uneven
    # adaptive-pool bins over the 16 columns), 37 classes, batch 2.
    "svtr_small": dict(img_size=(32, 64), embed=[16, 24, 32], depth=[2, 2, 2], heads=[2, 2, 4],
                       mixer=["Local", "Conv", "Local", "Global", "Global", "Global"], local=[(7, 11)] * 3,
                       out_channels=24, out_char=10, classes=37, input=(2, 3, 32, 64), seed=25),
    # rec_svtrnet.yml's SVTR-Tiny as PaddleOCR ships it (written at test time, about 16 MB).
    "svtr_tiny": dict(TINY, classes=37, input=(1, 3, 32, 100), seed=1),
}


def params(cfg, rng):
    """The state dict paddle.save writes, in Paddle's order, with random values."""
    items = []

    def add(name, shape, scale, base=0.0):
        items.append((name, (base + scale * rng.standard_normal(shape)).astype(np.float32)))

    def conv(name, cin, cout, k, groups=1, bias=True):
        kh, kw = k
        add(name + ".weight", (cout, cin // groups, kh, kw), math.sqrt(2.0 / (cin // groups * kh * kw)))
        if bias:
            add(name + ".bias", (cout,), 0.1)

    def linear(name, cin, cout):
        add(name + ".weight", (cin, cout), 1 / math.sqrt(cin))
        add(name + ".bias", (cout,), 0.1)

    def norm(name, c):
        add(name + ".weight", (c,), 0.2, 1.0)
        add(name + ".bias", (c,), 0.1)

    h, w = cfg["img_size"][0] // 4, cfg["img_size"][1] // 4
    e = cfg["embed"]
    add("backbone.pos_embed", (1, h * w, e[0]), 0.1)  # SVTRNet's own parameter: first
    for i, (cin, cout) in enumerate([(3, e[0] // 2), (e[0] // 2, e[0])]):
        pre = "backbone.patch_embed.proj.%d." % i
        conv(pre + "conv", cin, cout, (3, 3))
        norm(pre + "norm", cout)
        items.append((pre + "norm._mean", (0.1 * rng.standard_normal(cout)).astype(np.float32)))
        items.append((pre + "norm._variance", rng.uniform(0.5, 1.5, cout).astype(np.float32)))
    k = 0
    for s in range(3):
        d = e[s]
        for i in range(cfg["depth"][s]):
            pre = "backbone.blocks%d.%d." % (s + 1, i)
            norm(pre + "norm1", d)
            if cfg["mixer"][k] == "Conv":
                conv(pre + "mixer.local_mixer", d, d, cfg["local"][s], groups=cfg["heads"][s])
            else:
                linear(pre + "mixer.qkv", d, 3 * d)
                linear(pre + "mixer.proj", d, d)
            norm(pre + "norm2", d)
            linear(pre + "mlp.fc1", d, 4 * d)
            linear(pre + "mlp.fc2", 4 * d, d)
            k += 1
        if s < 2:
            conv("backbone.sub_sample%d.conv" % (s + 1), d, e[s + 1], (3, 3))
            norm("backbone.sub_sample%d.norm" % (s + 1), e[s + 1])
    conv("backbone.last_conv", e[2], cfg["out_channels"], (1, 1), bias=False)
    norm("backbone.norm", e[2])
    linear("head.fc", cfg["out_channels"], cfg["classes"])
    return items


# --- NumPy forward (eval) ---

def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def hardswish(x):
    return x * np.clip(x + 3, 0, 6) / 6


def layernorm(x, sd, name, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * sd[name + ".weight"] + sd[name + ".bias"]


def linear(x, sd, name):
    return x @ sd[name + ".weight"].astype(np.float64) + sd[name + ".bias"]


def local_mask(h, w, hk, wk):
    """Attention's Local mask, built as PaddleOCR builds it (padded window, cropped)."""
    mask = np.ones((h * w, h + hk - 1, w + wk - 1))
    for i in range(h):
        for j in range(w):
            mask[i * w + j, i:i + hk, j:j + wk] = 0.0
    mask = mask[:, hk // 2:h + hk // 2, wk // 2:w + wk // 2].reshape(h * w, h * w)
    return np.where(mask < 1, mask, -np.inf)


def attention(x, sd, pre, heads, mask):
    n, l, c = x.shape
    hd = c // heads
    qkv = linear(x, sd, pre + "qkv").reshape(n, l, 3, heads, hd).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0] * hd ** -0.5, qkv[1], qkv[2]
    a = q @ k.transpose(0, 1, 3, 2)
    if mask is not None:
        a = a + mask
    a = np.exp(a - a.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    return linear((a @ v).transpose(0, 2, 1, 3).reshape(n, l, c), sd, pre + "proj")


def to_image(x, h, w):
    return x.transpose(0, 2, 1).reshape(x.shape[0], x.shape[2], h, w)


def to_tokens(x):
    return x.reshape(x.shape[0], x.shape[1], -1).transpose(0, 2, 1)


def forward(sd, cfg, x):
    h, w = cfg["img_size"][0] // 4, cfg["img_size"][1] // 4
    assert x.shape[2:] == tuple(cfg["img_size"])
    x = x.astype(np.float64)
    for i in range(2):
        pre = "backbone.patch_embed.proj.%d." % i
        x = gelu(bn(conv2d(x, sd[pre + "conv.weight"], sd[pre + "conv.bias"], stride=2, pad=1), sd, pre + "norm"))
    t = to_tokens(x) + sd["backbone.pos_embed"]
    k = 0
    for s in range(3):
        for i in range(cfg["depth"][s]):
            pre = "backbone.blocks%d.%d." % (s + 1, i)
            u = layernorm(t, sd, pre + "norm1", 1e-6)
            kind, lk = cfg["mixer"][k], cfg["local"][s]
            if kind == "Conv":
                wt = sd[pre + "mixer.local_mixer.weight"]
                u = to_tokens(conv2d(to_image(u, h, w), wt, sd[pre + "mixer.local_mixer.bias"],
                                     pad=(lk[0] // 2, lk[1] // 2), groups=cfg["heads"][s]))
            else:
                u = attention(u, sd, pre + "mixer.", cfg["heads"][s], local_mask(h, w, *lk) if kind == "Local" else None)
            t = t + u
            u = layernorm(t, sd, pre + "norm2", 1e-6)
            t = t + linear(gelu(linear(u, sd, pre + "mlp.fc1")), sd, pre + "mlp.fc2")
            k += 1
        if s < 2:
            pre = "backbone.sub_sample%d." % (s + 1)
            y = conv2d(to_image(t, h, w), sd[pre + "conv.weight"], sd[pre + "conv.bias"], stride=(2, 1), pad=1)
            h = y.shape[2]
            t = layernorm(to_tokens(y), sd, pre + "norm", 1e-5)
    t = layernorm(t, sd, "backbone.norm", 1e-6)
    y = to_image(t, h, w)
    n_out = cfg["out_char"]
    pooled = np.zeros(y.shape[:2] + (1, n_out))
    for j in range(n_out):
        w0, w1 = (j * w) // n_out, -((-(j + 1) * w) // n_out)
        pooled[:, :, 0, j] = y[:, :, :, w0:w1].mean(axis=(2, 3))
    y = hardswish(conv2d(pooled, sd["backbone.last_conv.weight"])) * (1 - 0.1)
    seq = y[:, :, 0, :].transpose(0, 2, 1)  # Im2Seq: (N, W, C)
    return linear(seq, sd, "head.fc")


def write(cfg, pdparams, logits_npy):
    rng = np.random.RandomState(cfg["seed"])
    items = params(cfg, rng)
    sd = dict(items)
    logits = forward(sd, cfg, test_input(cfg["input"])).astype(np.float32)
    saved = {k: v.copy() for k, v in items}
    saved["StructuredToParameterName@@"] = {k: "param_%d" % i for i, (k, _) in enumerate(items)}
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
        write(CONFIGS["svtr_small"], os.path.join(d, "svtr_small.pdparams"), os.path.join(d, "svtr_small_logits.npy"))
