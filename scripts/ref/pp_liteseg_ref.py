#!/usr/bin/python3
"""PaddleSeg's PP-LiteSeg with an STDC backbone: a .pdparams in PaddleSeg's names and a NumPy forward.

PaddlePaddle cannot be installed here. This script is written from PaddleSeg's sources (release/2.9,
the same since August 2022): paddleseg/models/pp_liteseg.py (PPLiteSeg, PPLiteSegHead,
PPContextModule, SegHead), paddleseg/models/backbones/stdcnet.py (STDCNet with CatBottleneck,
ConvBNRelu), paddleseg/models/layers/tensor_fusion.py (UAFM, UAFM_SpAtten, the default arm_type),
layers/tensor_fusion_helper.py (avg_max_reduce_channel) and layers/layer_libs.py (ConvBNReLU,
ConvBN: Conv2D + BatchNorm2D; nn.Conv2D has a bias unless bias_attr=False). It never reads the Go
code it checks.

- `params(cfg, rng)` lists the state dict paddle.save writes for the model, in Paddle's order (a
  layer's own parameters, then its buffers, then its sublayers): names, shapes and random values;
- `forward(sd, cfg, x)` runs the network in eval mode (BatchNorm with running statistics,
  epsilon 1e-5; only seg_heads[0]) as Paddle's kernels compute it: Conv2D, exclusive AvgPool2D,
  AdaptiveAvgPool2D (bin i of n over L covers floor(i L / n) .. ceil((i+1) L / n) - 1) and
  F.interpolate(mode="bilinear", align_corners=False, align_mode=0): source index
  (dst + 0.5) in / out - 0.5 clamped at 0, the right neighbour clamped at in - 1.

    pp_liteseg_ref.py            writes kits/seg/testdata/paddleseg/ (the committed fixture)
    pp_liteseg_ref.py DIR NAME   writes DIR/NAME.pdparams and DIR/NAME_logits.npy
                                 for the configuration NAME in CONFIGS (the tests' larger cases)

The .pdparams is a protocol-4 pickle of {name: ndarray} plus "StructuredToParameterName@@", the
layout of paddle.save (see pdparams_ref.py).
"""
import os
import pickle
import sys

import numpy as np

# Each configuration: PaddleSeg's STDCNet(base, layers, block_num) and PPLiteSeg's arguments.
CONFIGS = {
    # The committed fixture: STDC1's layers at base 8 (PaddleSeg's STDCNet class, narrower than
    # STDC1's base 64 so the file stays small), an 80x112 input (stride 32 gives 3x4, so the
    # 2- and 4-bin pools overlap and upsample), a `_scale` that is not 1.
    "stdc1_b8": dict(base=8, layers=[2, 2, 2], block_num=4, num_classes=3, arm_out_chs=[8, 12, 16],
                     seg_head_inter_chs=[8, 8, 12], cm_out_ch=16, cm_bin_sizes=[1, 2, 4],
                     input=(1, 3, 80, 112), scale=1.25, seed=25),
    # PaddleSeg's STDC1 and STDC2 as registered (base 64) with PP-LiteSeg's defaults.
    "stdc1": dict(base=64, layers=[2, 2, 2], block_num=4, num_classes=4, arm_out_chs=[64, 96, 128],
                  seg_head_inter_chs=[64, 64, 64], cm_out_ch=128, cm_bin_sizes=[1, 2, 4],
                  input=(1, 3, 64, 96), scale=1.0, seed=1),
    "stdc2": dict(base=64, layers=[4, 5, 3], block_num=4, num_classes=4, arm_out_chs=[32, 64, 128],
                  seg_head_inter_chs=[32, 64, 64], cm_out_ch=128, cm_bin_sizes=[1, 2, 4],
                  input=(1, 3, 128, 128), scale=1.0, seed=2),
}


class Params:
    """Collects (name, array) in order, drawing values from rng."""

    def __init__(self, rng):
        self.rng, self.items = rng, []

    def conv(self, name, cin, cout, k, groups=1, bias=False):
        fan = cin // groups * k * k
        self.items.append((name + ".weight", (self.rng.standard_normal((cout, cin // groups, k, k)) * np.sqrt(2.0 / fan)).astype(np.float32)))
        if bias:
            self.items.append((name + ".bias", (0.1 * self.rng.standard_normal(cout)).astype(np.float32)))

    def bn(self, name, c):
        r = self.rng
        self.items.append((name + ".weight", (1 + 0.2 * r.standard_normal(c)).astype(np.float32)))
        self.items.append((name + ".bias", (0.1 * r.standard_normal(c)).astype(np.float32)))
        self.items.append((name + "._mean", (0.1 * r.standard_normal(c)).astype(np.float32)))
        self.items.append((name + "._variance", r.uniform(0.5, 1.5, c).astype(np.float32)))

    def convbnrelu(self, name, cin, cout, k, bias=False):
        """layers.ConvBNReLU / ConvBN: _conv, _batch_norm."""
        self.conv(name + "._conv", cin, cout, k, bias=bias)
        self.bn(name + "._batch_norm", cout)


def stdc_widths(out, block_num):
    """CatBottleneck's conv_list output widths."""
    w = []
    for idx in range(block_num):
        if idx == 0:
            w.append(out // 2)
        elif idx == 1 and block_num == 2:
            w.append(out // 2)
        elif idx == 1:
            w.append(out // 4)
        elif idx < block_num - 1:
            w.append(out // 2 ** (idx + 1))
        else:
            w.append(out // 2 ** idx)
    return w


def stdc_blocks(cfg):
    """STDCNet._make_layers: (in, out, stride) of features[2:]."""
    base, out = cfg["base"], []
    for i, n in enumerate(cfg["layers"]):
        for j in range(n):
            if i == 0 and j == 0:
                out.append((base, base * 4, 2))
            elif j == 0:
                out.append((base * 2 ** (i + 1), base * 2 ** (i + 2), 2))
            else:
                out.append((base * 2 ** (i + 2), base * 2 ** (i + 2), 1))
    return out


def params(cfg, rng):
    p = Params(rng)
    base = cfg["base"]
    # backbone: STDCNet.features = [ConvBNRelu, ConvBNRelu, CatBottleneck...]
    for k, (cin, cout) in enumerate([(3, base // 2), (base // 2, base)]):
        p.conv("backbone.features.%d.conv" % k, cin, cout, 3)
        p.bn("backbone.features.%d.bn" % k, cout)
    for k, (cin, cout, stride) in enumerate(stdc_blocks(cfg), start=2):
        pre = "backbone.features.%d" % k
        if stride == 2:  # avd_layer = Sequential(depthwise Conv2D, BatchNorm2D); skip is a pool
            p.conv(pre + ".avd_layer.0", cout // 2, cout // 2, 3, groups=cout // 2)
            p.bn(pre + ".avd_layer.1", cout // 2)
        prev = cin
        for idx, w in enumerate(stdc_widths(cout, cfg["block_num"])):
            p.conv(pre + ".conv_list.%d.conv" % idx, prev, w, 1 if idx == 0 else 3)
            p.bn(pre + ".conv_list.%d.bn" % idx, w)
            prev = w
    chs = [base * 4, base * 8, base * 16]  # feat_channels[2:5]
    cm, arm = cfg["cm_out_ch"], cfg["arm_out_chs"]
    # ppseg_head.cm: PPContextModule, its ConvBNReLUs keep Conv2D's bias
    for i in range(len(cfg["cm_bin_sizes"])):
        p.convbnrelu("ppseg_head.cm.stages.%d.1" % i, chs[-1], cm, 1, bias=True)
    p.convbnrelu("ppseg_head.cm.conv_out", cm, cm, 3, bias=True)
    # ppseg_head.arm_list: UAFM_SpAtten (own parameter _scale first, then sublayers in creation order)
    for i in range(len(chs)):
        high = cm if i == len(chs) - 1 else arm[i + 1]
        pre = "ppseg_head.arm_list.%d" % i
        p.items.append((pre + "._scale", np.array([cfg["scale"]], dtype=np.float32)))
        p.convbnrelu(pre + ".conv_x", chs[i], high, 3)
        p.convbnrelu(pre + ".conv_out", high, arm[i], 3)
        p.convbnrelu(pre + ".conv_xy_atten.0", 4, 2, 3)
        p.convbnrelu(pre + ".conv_xy_atten.1", 2, 1, 3)
    for i, (cin, mid) in enumerate(zip(arm, cfg["seg_head_inter_chs"])):
        p.convbnrelu("seg_heads.%d.conv" % i, cin, mid, 3)
        p.conv("seg_heads.%d.conv_out" % i, mid, cfg["num_classes"], 1)
    return p.items


# --- NumPy forward (eval) ---

def conv2d(x, w, b=None, stride=1, pad=0, groups=1):
    """Paddle's Conv2D; stride and pad are ints or (height, width)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride if isinstance(stride, tuple) else (stride, stride)
    ph, pw = pad if isinstance(pad, tuple) else (pad, pad)
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh, ow = (h + 2 * ph - kh) // sh + 1, (wd + 2 * pw - kw) // sw + 1
    out = np.zeros((n, o, oh, ow), dtype=np.float64)
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def bn(x, sd, name, eps=1e-5):
    g, b = sd[name + ".weight"], sd[name + ".bias"]
    m, v = sd[name + "._mean"], sd[name + "._variance"]
    s = lambda a: a.astype(np.float64).reshape(1, -1, 1, 1)
    return (x - s(m)) / np.sqrt(s(v) + eps) * s(g) + s(b)


relu = lambda x: np.maximum(x, 0)


def avgpool3s2(x):
    """nn.AvgPool2D(3, 2, 1), exclusive (padding not counted)."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ones = np.pad(np.ones((h, w)), 1)
    oh, ow = (h - 1) // 2 + 1, (w - 1) // 2 + 1
    s, cnt = np.zeros((n, c, oh, ow)), np.zeros((oh, ow))
    for i in range(3):
        for j in range(3):
            s += xp[:, :, i:i + 2 * oh:2, j:j + 2 * ow:2]
            cnt += ones[i:i + 2 * oh:2, j:j + 2 * ow:2]
    return s / cnt


def adaptive_avg(x, size):
    n, c, h, w = x.shape
    out = np.zeros((n, c, size, size))
    for i in range(size):
        h0, h1 = (i * h) // size, -((-(i + 1) * h) // size)
        for j in range(size):
            w0, w1 = (j * w) // size, -((-(j + 1) * w) // size)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def interp_axis(in_n, out_n):
    """Indices and weights of Paddle's bilinear kernel (align_corners False, align_mode 0) on one axis."""
    ratio = in_n / out_n
    src = np.maximum((np.arange(out_n) + 0.5) * ratio - 0.5, 0)
    i0 = np.floor(src).astype(int)
    i1 = np.minimum(i0 + 1, in_n - 1)
    return i0, i1, src - i0


def bilinear(x, h, w):
    if x.shape[2:] == (h, w):
        return x
    y0, y1, ly = interp_axis(x.shape[2], h)
    x0, x1, lx = interp_axis(x.shape[3], w)
    ly, lx = ly.reshape(1, 1, -1, 1), lx.reshape(1, 1, 1, -1)
    top = x[:, :, y0][:, :, :, x0] * (1 - lx) + x[:, :, y0][:, :, :, x1] * lx
    bot = x[:, :, y1][:, :, :, x0] * (1 - lx) + x[:, :, y1][:, :, :, x1] * lx
    return top * (1 - ly) + bot * ly


def cbr(x, sd, name, pad, act=True):
    """layers.ConvBNReLU (act) / ConvBN."""
    y = bn(conv2d(x, sd[name + "._conv.weight"], sd.get(name + "._conv.bias"), pad=pad), sd, name + "._batch_norm")
    return relu(y) if act else y


def forward(sd, cfg, x):
    x = x.astype(np.float64)
    h, w = x.shape[2:]
    # STDCNet
    for k in range(2):
        x = relu(bn(conv2d(x, sd["backbone.features.%d.conv.weight" % k], stride=2, pad=1), sd, "backbone.features.%d.bn" % k))
    feats, k = [], 2
    for n in cfg["layers"]:
        for _ in range(n):
            pre = "backbone.features.%d" % k
            stride2 = (pre + ".avd_layer.0.weight") in sd
            nconv = cfg["block_num"]
            layer = lambda y, i: relu(bn(conv2d(y, sd[pre + ".conv_list.%d.conv.weight" % i], pad=0 if i == 0 else 1), sd, pre + ".conv_list.%d.bn" % i))
            out1 = layer(x, 0)
            outs, out = [], None
            for i in range(1, nconv):
                if i == 1:
                    if stride2:
                        wd = sd[pre + ".avd_layer.0.weight"]
                        a = bn(conv2d(out1, wd, stride=2, pad=1, groups=wd.shape[0]), sd, pre + ".avd_layer.1")
                        out = layer(a, i)
                    else:
                        out = layer(out1, i)
                else:
                    out = layer(out, i)
                outs.append(out)
            if stride2:
                out1 = avgpool3s2(out1)
            x = np.concatenate([out1] + outs, axis=1)
            k += 1
        feats.append(x)
    # PPContextModule
    top = feats[-1]
    th, tw = top.shape[2:]
    cm = None
    for i, size in enumerate(cfg["cm_bin_sizes"]):
        y = bilinear(cbr(adaptive_avg(top, size), sd, "ppseg_head.cm.stages.%d.1" % i, 0), th, tw)
        cm = y if cm is None else cm + y
    high = cbr(cm, sd, "ppseg_head.cm.conv_out", 1)
    # UAFM_SpAtten, top-down
    fused = [None] * len(feats)
    for i in reversed(range(len(feats))):
        pre = "ppseg_head.arm_list.%d" % i
        xl = cbr(feats[i], sd, pre + ".conv_x", 1)
        yu = bilinear(high, *xl.shape[2:])
        att = np.concatenate([xl.mean(1, keepdims=True), xl.max(1, keepdims=True),
                              yu.mean(1, keepdims=True), yu.max(1, keepdims=True)], axis=1)
        att = cbr(cbr(att, sd, pre + ".conv_xy_atten.0", 1), sd, pre + ".conv_xy_atten.1", 1, act=False)
        att = 1 / (1 + np.exp(-att))
        out = xl * att + yu * (sd[pre + "._scale"].astype(np.float64)[0] - att)
        high = cbr(out, sd, pre + ".conv_out", 1)
        fused[i] = high
    # eval: seg_heads[0] only, upsampled to the input
    y = cbr(fused[0], sd, "seg_heads.0.conv", 1)
    y = conv2d(y, sd["seg_heads.0.conv_out.weight"])
    return bilinear(y, h, w)


def test_input(shape):
    """The input image: sin(0.37 i) cos(0.011 i) over the elements (the Go test computes it too)."""
    i = np.arange(int(np.prod(shape)), dtype=np.float64)
    return (np.sin(0.37 * i) * np.cos(0.011 * i)).astype(np.float32).reshape(shape)


def write(cfg, pdparams, logits_npy):
    rng = np.random.RandomState(cfg["seed"])
    items = params(cfg, rng)
    sd = dict(items)
    x = test_input(cfg["input"])
    logits = forward(sd, cfg, x).astype(np.float32)
    saved = dict(items)
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
        d = "kits/seg/testdata/paddleseg"
        write(CONFIGS["stdc1_b8"], os.path.join(d, "pp_liteseg_stdc1_b8.pdparams"), os.path.join(d, "pp_liteseg_stdc1_b8_logits.npy"))
