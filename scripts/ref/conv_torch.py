#!/usr/bin/python3
"""Reference values for paddle's conv, pool, norm and resize ops, from PyTorch.

Run from the repository root with Debian's torch (python3-torch):

    /usr/bin/python3 scripts/ref/conv_torch.py

It writes core/op/testdata/conv_{conv,pool,norm,resize}.json. Each file holds
{"torch": version, "cases": [{"name", "op", "attrs", "inputs", "outputs"}]}
where inputs/outputs are {"shape", "data"} (row-major), "op" is the paddle op
name and "attrs" its attributes (ONNX conventions: pads are [top, left,
bottom, right]). Inputs are float32 values; torch computes in float64.
"""
import json
import os

import torch
import torch.nn.functional as F

OUT = "core/op/testdata"
gen = torch.Generator().manual_seed(20240611)


def rnd(*shape, lo=-1.0, hi=1.0):
    """float32-representable uniform values, as float64."""
    t = torch.rand(*shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo
    return t.float().double()


def arr(t):
    t = t.detach().double().contiguous()
    return {"shape": list(t.shape), "data": [float(v) for v in t.reshape(-1).tolist()]}


def case(name, op, attrs, inputs, outputs):
    return {"name": name, "op": op, "attrs": attrs,
            "inputs": [arr(t) for t in inputs], "outputs": [arr(t) for t in outputs]}


def onnx_pad(x, pads, value=0.0):
    """pads [t, l, b, r] applied explicitly (torch pads symmetrically only)."""
    t, l, b, r = pads
    return F.pad(x, (l, r, t, b), value=value)


def conv_cases():
    cs = []

    def conv(name, n, c, h, w, oc, kh, kw, stride=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), groups=1, bias=True):
        x, wt = rnd(n, c, h, w), rnd(oc, c // groups, kh, kw)
        b = rnd(oc) if bias else None
        y = F.conv2d(onnx_pad(x, pads), wt, b, stride=stride, dilation=dil, groups=groups)
        attrs = {"strides": list(stride), "pads": list(pads), "dilations": list(dil), "groups": groups}
        cs.append(case(name, "conv2d", attrs, [x, wt] + ([b] if bias else []), [y]))

    conv("3x3 pad1 bias", 2, 3, 6, 5, 4, 3, 3, pads=(1, 1, 1, 1))
    conv("stride2 asym pads", 2, 4, 7, 8, 3, 3, 3, stride=(2, 2), pads=(1, 0, 2, 1), bias=False)
    conv("dilation2", 1, 3, 9, 8, 2, 3, 3, pads=(2, 2, 2, 2), dil=(2, 2))
    conv("groups2", 2, 4, 5, 6, 6, 3, 3, pads=(1, 1, 1, 1), groups=2)
    conv("depthwise stride2", 2, 4, 7, 7, 4, 3, 3, stride=(2, 2), pads=(1, 1, 1, 1), groups=4)
    conv("depthwise x2 5x5", 1, 3, 8, 9, 6, 5, 5, pads=(2, 2, 2, 2), groups=3)
    conv("pointwise", 2, 5, 4, 3, 3, 1, 1, bias=False)

    def convT(name, n, c, h, w, ocg, kh, kw, stride=(1, 1), pad=(0, 0), outpad=(0, 0), dil=(1, 1), groups=1):
        x, wt, b = rnd(n, c, h, w), rnd(c, ocg, kh, kw), rnd(ocg * groups)
        y = F.conv_transpose2d(x, wt, b, stride=stride, padding=pad, output_padding=outpad, groups=groups, dilation=dil)
        attrs = {"strides": list(stride), "pads": [pad[0], pad[1], pad[0], pad[1]], "dilations": list(dil),
                 "groups": groups, "output_padding": list(outpad)}
        cs.append(case(name, "conv_transpose2d", attrs, [x, wt, b], [y]))

    convT("convT stride2 pad1 outpad1", 2, 3, 4, 3, 2, 3, 3, stride=(2, 2), pad=(1, 1), outpad=(1, 1))
    convT("convT groups2 dilation2", 1, 4, 3, 4, 3, 3, 2, dil=(2, 2), groups=2)
    convT("convT depthwise stride2", 1, 4, 5, 5, 1, 4, 4, stride=(2, 2), pad=(1, 1), groups=4)
    convT("convT 2x2 stride2", 2, 3, 3, 4, 2, 2, 2, stride=(2, 2))
    return cs


def pool_cases():
    cs = []

    def maxp(name, shape, k, s, p=(0, 0), dil=(1, 1), ceil=False):
        x = rnd(*shape)
        y = F.max_pool2d(x, k, s, p, dil, ceil_mode=ceil)
        cs.append(case(name, "max_pool2d", {"kernel_shape": list(k), "strides": list(s), "pads": [p[0], p[1], p[0], p[1]],
                                            "dilations": list(dil), "ceil_mode": ceil}, [x], [y]))

    def avgp(name, shape, k, s, p=(0, 0), ceil=False, incl=True):
        x = rnd(*shape)
        y = F.avg_pool2d(x, k, s, p, ceil_mode=ceil, count_include_pad=incl)
        cs.append(case(name, "avg_pool2d", {"kernel_shape": list(k), "strides": list(s), "pads": [p[0], p[1], p[0], p[1]],
                                            "ceil_mode": ceil, "count_include_pad": incl}, [x], [y]))

    maxp("max 3x3 s2 p1", (2, 3, 7, 6), (3, 3), (2, 2), (1, 1))
    maxp("max 3x3 s2 ceil", (1, 2, 8, 7), (3, 3), (2, 2), ceil=True)
    maxp("max 2x2 s1 dilation2", (1, 2, 6, 7), (2, 2), (1, 1), dil=(2, 2))
    maxp("max 2x3 s2x1 p1 ceil", (2, 2, 7, 5), (2, 3), (2, 1), (1, 1), ceil=True)
    avgp("avg 3x3 s2 p1 include", (2, 3, 7, 6), (3, 3), (2, 2), (1, 1), incl=True)
    avgp("avg 3x3 s2 p1 exclude", (2, 3, 7, 6), (3, 3), (2, 2), (1, 1), incl=False)
    avgp("avg 3x3 s2 p1 ceil include", (1, 2, 8, 8), (3, 3), (2, 2), (1, 1), ceil=True, incl=True)
    avgp("avg 2x2 s2 ceil exclude", (1, 2, 5, 7), (2, 2), (2, 2), ceil=True, incl=False)
    for shape, out in [((2, 3, 7, 5), (3, 2)), ((1, 2, 5, 5), (3, 3)), ((1, 2, 6, 4), (1, 1))]:
        x = rnd(*shape)
        cs.append(case("adaptive %dx%d to %dx%d" % (shape[2], shape[3], out[0], out[1]), "adaptive_avg_pool2d",
                       {"output_size": list(out)}, [x], [F.adaptive_avg_pool2d(x, out)]))
    x = rnd(2, 3, 4, 5)
    cs.append(case("global avg", "global_avg_pool", {}, [x], [x.mean(dim=(2, 3), keepdim=True)]))
    cs.append(case("global max", "global_max_pool", {}, [x], [x.amax(dim=(2, 3), keepdim=True)]))
    return cs


def norm_cases():
    cs = []
    x = rnd(2, 3, 4, 5, lo=-2, hi=3)
    sc, b, m, v = rnd(3, lo=0.5, hi=1.5), rnd(3), rnd(3), rnd(3, lo=0.5, hi=2)
    y = F.batch_norm(x, m, v, sc, b, training=False, eps=1e-5)
    cs.append(case("batch_norm eval", "batch_norm", {"epsilon": 1e-5}, [x, sc, b, m, v], [y]))

    x = rnd(4, 3, 3, 2, lo=-2, hi=3)
    y = F.batch_norm(x, torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64), sc, b, training=True, eps=1e-3)
    mean, var = x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), unbiased=False)
    cs.append(case("batch_norm train", "batch_norm_train", {"epsilon": 1e-3}, [x, sc, b], [y, mean, var]))

    x = rnd(3, 4, 6, lo=-2, hi=2)
    w1, b1 = rnd(6, lo=0.5, hi=1.5), rnd(6)
    cs.append(case("layer_norm last", "layer_norm", {"axis": -1, "epsilon": 1e-5}, [x, w1, b1],
                   [F.layer_norm(x, (6,), w1, b1, 1e-5)]))
    w2, b2 = rnd(4, 6, lo=0.5, hi=1.5), rnd(4, 6)
    cs.append(case("layer_norm last two", "layer_norm", {"axis": 1, "epsilon": 1e-6}, [x, w2, b2],
                   [F.layer_norm(x, (4, 6), w2, b2, 1e-6)]))

    x = rnd(2, 6, 3, 4, lo=-1, hi=3)
    wg, bg = rnd(6, lo=0.5, hi=1.5), rnd(6)
    cs.append(case("group_norm 3 groups", "group_norm", {"groups": 3, "epsilon": 1e-5}, [x, wg, bg],
                   [F.group_norm(x, 3, wg, bg, 1e-5)]))
    cs.append(case("instance_norm", "instance_norm", {"epsilon": 1e-5}, [x, wg, bg],
                   [F.instance_norm(x, weight=wg, bias=bg, eps=1e-5)]))
    return cs


def resize_cases():
    cs = []

    def interp(name, shape, attrs, **kw):
        x = rnd(*shape)
        cs.append(case(name, "resize", attrs, [x], [F.interpolate(x, **kw)]))

    interp("nearest x2 (PP-OCR det FPN)", (2, 3, 4, 5),
           {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor", "scales": [2.0, 2.0]},
           scale_factor=2, mode="nearest")
    interp("nearest to 7x9", (1, 2, 4, 5),
           {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor", "sizes": [7, 9]},
           size=(7, 9), mode="nearest")
    interp("nearest down to 3x2", (1, 2, 7, 5),
           {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor", "sizes": [3, 2]},
           size=(3, 2), mode="nearest")
    interp("bilinear x2", (2, 2, 3, 4),
           {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel", "scales": [2.0, 2.0]},
           scale_factor=2, mode="bilinear", align_corners=False)
    interp("bilinear to 7x3", (1, 2, 4, 5),
           {"mode": "linear", "coordinate_transformation_mode": "half_pixel", "sizes": [7, 3]},
           size=(7, 3), mode="bilinear", align_corners=False)
    interp("bilinear align_corners to 7x9", (1, 2, 4, 5),
           {"mode": "linear", "coordinate_transformation_mode": "align_corners", "sizes": [7, 9]},
           size=(7, 9), mode="bilinear", align_corners=True)
    interp("bilinear align_corners down to 3x2", (1, 2, 6, 5),
           {"mode": "linear", "coordinate_transformation_mode": "align_corners", "sizes": [3, 2]},
           size=(3, 2), mode="bilinear", align_corners=True)
    return cs


def main():
    os.makedirs(OUT, exist_ok=True)
    for fam, fn in [("conv", conv_cases), ("pool", pool_cases), ("norm", norm_cases), ("resize", resize_cases)]:
        path = os.path.join(OUT, "conv_%s.json" % fam)
        with open(path, "w") as f:
            json.dump({"torch": torch.__version__, "cases": fn()}, f, separators=(",", ":"))
        print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
