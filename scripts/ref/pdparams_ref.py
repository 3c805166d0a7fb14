#!/usr/bin/python3
"""Write core/io/pdparams/testdata/: .pdparams/.pdopt files laid out as paddle.save writes them.

PaddlePaddle cannot be installed here, so this script reproduces, with Python's own pickle and
NumPy (Debian python3-numpy), the layout of paddle.framework.io.save as of Paddle 2.0-3.0:

- a state dict becomes a plain dict {structured name: numpy array} plus the entry
  "StructuredToParameterName@@": {structured name: parameter name} (_build_saved_state_dict);
- with protocol 2 or 3, an array of more than (2**30 - 1) // itemsize elements is flattened and
  cut into pieces "<key>@@.0", "<key>@@.1", ... of at most that many elements, the key removed,
  and "UnpackBigParamInfor@@": {key: {"OriginShape": shape, "slices": [piece names]}} added
  (_unpack_saved_dict). Real split arrays are gigabytes; the fixture lowers the limit to 8
  elements (SPLIT) so the same layout fits in a few hundred bytes;
- the dict is written by pickle.Pickler(f, protocol); a Tensor inside a non-state-dict object
  reduces to (tuple, ((name, ndarray),)), a LoDTensor to (eval, ("data", {"data": ndarray}))
  (_pickle_save's reduce_varbase and reduce_LoDTensor).

Values are arange-based so the Go test computes what it expects. It also writes
core/zoo/testdata/pplcnet_x0_25.pdparams: a PaddleClas PPLCNet (scale 0.25, class_expand 64,
10 classes) under PaddleClas's own parameter names, written from the structure of
ppcls/arch/backbone/model_zoo/pp_lcnet.py (conv1, blocks2..blocks6 of DepthwiseSeparable with
dw_conv / se.conv1 / se.conv2 / pw_conv, last_conv, fc; BatchNorm's _mean/_variance; Linear
weights stored (in, out)). Each tensor holds pattern(project name) (see lcnet_pattern), which
core/zoo's test also computes, so a wrong name map loads the wrong pattern. The same way it
writes core/zoo/testdata/resnet50_w2.pdparams (PaddleClas legendary_models/resnet.py ResNet50,
version vb, widths 2/64 of Paddle's: resnet_pdparams) and
kits/ocr/dettrain/testdata/db_pplcnet_x0_25.pdparams (PaddleOCR's DB over det_pp_lcnet.py,
DBFPN and DBHead: db_pdparams). Run from the repository root:
    /usr/bin/python3 scripts/ref/pdparams_ref.py
"""
import builtins
import math
import os
import re
import sys
import pickle

import numpy as np

OUT = "core/io/pdparams/testdata"
SPLIT = 8  # stands in for (2**30 - 1) // itemsize


def state_dict():
    """A small layer state dict in Paddle's naming (conv + bn + linear)."""
    return {
        "conv.weight": np.arange(2 * 1 * 3 * 3, dtype=np.float32).reshape(2, 1, 3, 3) / 10,
        "bn._mean": np.array([0.5, -0.5], dtype=np.float32),
        "bn._variance": np.array([1.0, 2.0], dtype=np.float32),
        "fc.weight": np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
        "fc.bias": np.arange(4, dtype=np.float64),
        "steps": np.array(7, dtype=np.int64),
        "mask": np.array([True, False, True]),
        "half": np.array([1.5, -2.0], dtype=np.float16),
    }


def build_saved_state_dict(sd):
    """paddle.framework.io._build_saved_state_dict: arrays + the name table."""
    names = {
        "conv.weight": "conv2d_0.w_0", "bn._mean": "batch_norm_0.w_1",
        "bn._variance": "batch_norm_0.w_2", "fc.weight": "linear_0.w_0", "fc.bias": "linear_0.b_0",
        "steps": "create_parameter_0.w_0", "mask": "create_parameter_1.w_0", "half": "create_parameter_2.w_0",
    }
    out = dict(sd)
    out["StructuredToParameterName@@"] = {k: names[k] for k in sd}
    return out


def unpack_saved_dict(obj, protocol, limit):
    """paddle.framework.io._unpack_saved_dict with the element limit as a parameter."""
    if not 1 < protocol < 4:
        return obj
    info, parts = {}, {}
    for key, value in obj.items():
        if isinstance(value, np.ndarray) and value.size > limit:
            info[key] = {"OriginShape": value.shape, "slices": []}
            flat = value.flatten()
            for i in range(int(math.ceil(value.size * 1.0 / limit))):
                name = key + "@@." + str(i)
                info[key]["slices"].append(name)
                parts[name] = flat[i * limit:(i + 1) * limit]
    if info:
        for key, value in info.items():
            obj.pop(key)
            for part in value["slices"]:
                obj[part] = parts[part]
        obj["UnpackBigParamInfor@@"] = info
    return obj


class VarBase:
    """Stands in for a Paddle Tensor: it reduces as _pickle_save's reduce_varbase does."""

    def __init__(self, name, data):
        self.name, self.data = name, data

    def __reduce__(self):
        return (tuple, ((self.name, self.data),))


class LoDTensor:
    """Stands in for a LoDTensor: it reduces as _pickle_save's reduce_LoDTensor does."""

    def __init__(self, data):
        self.data = data

    def __reduce__(self):
        return (builtins.eval, ("data", {"data": self.data}))


class Evil:
    """A pickle that would run a shell command: the reader must refuse it."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


def dump(path, obj, protocol):
    with open(os.path.join(OUT, path), "wb") as f:
        pickle.Pickler(f, protocol).dump(obj)


def main():
    os.makedirs(OUT, exist_ok=True)
    for protocol in (2, 3, 4):
        obj = unpack_saved_dict(build_saved_state_dict(state_dict()), protocol, SPLIT)
        dump("layer_p%d.pdparams" % protocol, obj, protocol)
    # An optimizer state (AdamW-like) as paddle.save(opt.state_dict()) writes it.
    opt = {
        "linear_0.w_0_moment1_0": np.full((3, 4), 0.25, dtype=np.float32),
        "linear_0.w_0_beta1_pow_acc_0": np.array([0.81], dtype=np.float32),
        "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.001},
    }
    dump("adam.pdopt", build_saved_state_dict_opt(opt), 4)
    # A non-state-dict object: Tensors inside reduce to (name, ndarray) tuples, LoDTensors by eval.
    obj = {"model": {"w": VarBase("linear_1.w_0", np.ones((2, 2), dtype=np.float32))},
           "lod": LoDTensor(np.arange(3, dtype=np.int32)), "epoch": 5}
    dump("nested.pdparams", obj, 2)
    dump("evil.pdparams", {"w": Evil()}, 2)
    write_lcnet()


def make_divisible(v, divisor=8):
    n = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return n + divisor if n < 0.9 * v else n


LCNET = {  # PaddleClas NET_CONFIG: k, in, out, stride, se
    "blocks2": [[3, 16, 32, 1, False]],
    "blocks3": [[3, 32, 64, 2, False], [3, 64, 64, 1, False]],
    "blocks4": [[3, 64, 128, 2, False], [3, 128, 128, 1, False]],
    "blocks5": [[3, 128, 256, 2, False]] + [[5, 256, 256, 1, False]] * 5,
    "blocks6": [[5, 256, 512, 2, True], [5, 512, 512, 1, True]],
}


def lcnet_pattern(name, shape):
    """The value both sides give the tensor the project calls name (in the project's layout)."""
    off = 0.11 * sum(name.encode())
    v = 0.5 * np.sin(0.37 * np.arange(int(np.prod(shape)), dtype=np.float64) + off)
    if name.endswith("running_var"):
        v = 1 + np.abs(v)
    return v.astype(np.float32).reshape(shape)


def lcnet_pdparams(scale=0.25, class_expand=64, class_num=10, head=True):
    """(project name, Paddle name, project shape, transposed) for every tensor Paddle saves.
    Without head, PaddleOCR's det_pp_lcnet.py PPLCNet: the same layers up to blocks6."""
    out = []

    def convbn(proj, pd, cin, cout, k, groups):
        convbn_entries(out, proj, pd, cin, cout, k, groups)

    ch = lambda c: make_divisible(c * scale)
    convbn("stem", "conv1", 3, ch(16), 3, 1)
    i = 0
    for stage in ("blocks2", "blocks3", "blocks4", "blocks5", "blocks6"):
        for j, (k, cin, cout, _, se) in enumerate(LCNET[stage]):
            proj, pd = "blocks.%d" % i, "%s.%d" % (stage, j)
            convbn(proj + ".dw", pd + ".dw_conv", ch(cin), ch(cin), k, ch(cin))
            if se:
                c = ch(cin)
                out.append((proj + ".se.down.weight", pd + ".se.conv1.weight", (c // 4, c, 1, 1), False))
                out.append((proj + ".se.down.bias", pd + ".se.conv1.bias", (c // 4,), False))
                out.append((proj + ".se.up.weight", pd + ".se.conv2.weight", (c, c // 4, 1, 1), False))
                out.append((proj + ".se.up.bias", pd + ".se.conv2.bias", (c,), False))
            convbn(proj + ".pw", pd + ".pw_conv", ch(cin), ch(cout), 1, 1)
            i += 1
    if not head:
        return out
    out.append(("last_conv.weight", "last_conv.weight", (class_expand, ch(512), 1, 1), False))
    out.append(("fc.weight", "fc.weight", (class_num, class_expand), True))
    out.append(("fc.bias", "fc.bias", (class_num,), False))
    return out


def convbn_entries(out, proj, pd, cin, cout, k, groups=1):
    """A conv without bias and a Paddle BatchNorm (weight, bias, _mean, _variance)."""
    out.append((proj + ".conv.weight", pd + ".conv.weight", (cout, cin // groups, k, k), False))
    for a, b in (("weight", "weight"), ("bias", "bias"), ("running_mean", "_mean"), ("running_var", "_variance")):
        out.append((proj + ".bn." + a, pd + ".bn." + b, (cout,), False))


def resnet_pdparams(depth=50, width=2, class_num=10):
    """PaddleClas legendary_models/resnet.py, version "vb", with every width divided by 64/width:
    stem.0 (7x7 ConvBNLayer), blocks.<i> across the stages (conv0, conv1[, conv2], short on the
    first block of every stage, shortcut=False there), fc (in, out)."""
    cfg = {18: ("basic", [2, 2, 2, 2]), 34: ("basic", [3, 4, 6, 3]), 50: ("bottleneck", [3, 4, 6, 3])}
    kind, depths = cfg[depth]
    mult = 4 if kind == "bottleneck" else 1
    filters = [width, 2 * width, 4 * width, 8 * width]
    out = []
    convbn_entries(out, "stem", "stem.0", 3, width, 7)
    cin, i = width, 0
    for s, n in enumerate(depths):
        for b in range(n):
            proj, pd, f = "stages.%d.%d" % (s, b), "blocks.%d" % i, filters[s]
            if kind == "bottleneck":
                convbn_entries(out, proj + ".conv1", pd + ".conv0", cin, f, 1)
                convbn_entries(out, proj + ".conv2", pd + ".conv1", f, f, 3)
                convbn_entries(out, proj + ".conv3", pd + ".conv2", f, f * 4, 1)
            else:
                convbn_entries(out, proj + ".conv1", pd + ".conv0", cin, f, 3)
                convbn_entries(out, proj + ".conv2", pd + ".conv1", f, f, 3)
            if b == 0:
                convbn_entries(out, proj + ".short", pd + ".short", cin, f * mult, 1)
            cin, i = f * mult, i + 1
    out.append(("fc.weight", "fc.weight", (class_num, cin), True))
    out.append(("fc.bias", "fc.bias", (class_num,), False))
    return out


def db_pdparams(scale=0.25, neck=32):
    """PaddleOCR's DB (ppocr/modeling/architectures/base_model.py: backbone, neck, head) over
    det_pp_lcnet's PPLCNet: DBFPN (necks/db_fpn.py: in2_conv..in5_conv 1x1 and p2_conv..p5_conv
    3x3 to neck/4, no bias) and DBHead (heads/det_db_head.py: binarize and thresh Heads of conv1
    3x3 no bias, conv_bn1, conv2 Conv2DTranspose 2x2 with bias, conv_bn2, conv3 to 1 channel;
    a Conv2DTranspose weight is (in, out, kh, kw))."""
    out = [("backbone." + a, "backbone." + b, s, t) for a, b, s, t in lcnet_pdparams(scale, head=False)]
    feats = [make_divisible(LCNET[b][-1][2] * scale) for b in ("blocks3", "blocks4", "blocks5", "blocks6")]
    for i, c in zip((2, 3, 4, 5), feats):
        out.append(("neck.in%d_conv.weight" % i, "neck.in%d_conv.weight" % i, (neck, c, 1, 1), False))
    for i in (2, 3, 4, 5):
        out.append(("neck.p%d_conv.weight" % i, "neck.p%d_conv.weight" % i, (neck // 4, neck, 3, 3), False))
    q = neck // 4
    for br in ("binarize", "thresh"):
        h = "head." + br
        out.append((h + ".conv1.weight", h + ".conv1.weight", (q, neck, 3, 3), False))
        for bn in ("conv_bn1", "conv_bn2"):
            for a, b in (("weight", "weight"), ("bias", "bias"), ("running_mean", "_mean"), ("running_var", "_variance")):
                out.append((h + "." + bn + "." + a, h + "." + bn + "." + b, (q,), False))
        out.append((h + ".conv2.weight", h + ".conv2.weight", (q, q, 2, 2), False))
        out.append((h + ".conv2.bias", h + ".conv2.bias", (q,), False))
        out.append((h + ".conv3.weight", h + ".conv3.weight", (q, 1, 2, 2), False))
        out.append((h + ".conv3.bias", h + ".conv3.bias", (1,), False))
    return out


def write_patterned(path, entries):
    """Each Paddle-named tensor holds lcnet_pattern(project name), in Paddle's layout."""
    sd, names = {}, {}
    for n, (proj, pd, shape, transposed) in enumerate(entries):
        v = lcnet_pattern(proj, shape)
        sd[pd] = np.ascontiguousarray(v.T) if transposed else v
        names[pd] = "param_%d" % n
    sd["StructuredToParameterName@@"] = names
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        pickle.Pickler(f, 4).dump(sd)


def write_lcnet():
    write_patterned("core/zoo/testdata/pplcnet_x0_25.pdparams", lcnet_pdparams())
    write_patterned("core/zoo/testdata/resnet50_w2.pdparams", resnet_pdparams())
    write_patterned("core/zoo/testdata/resnet18_w2.pdparams", resnet_pdparams(depth=18))
    write_patterned("kits/ocr/dettrain/testdata/db_pplcnet_x0_25.pdparams", db_pdparams())


def build_saved_state_dict_opt(opt):
    """An optimizer's accumulators are named by their variable names, so the table maps each to itself."""
    out = dict(opt)
    out["StructuredToParameterName@@"] = {k: k for k, v in opt.items() if isinstance(v, np.ndarray)}
    return out


# ---------------------------------------------------------------- PP-OCRv4 rec (SVTR_LCNet)

# PaddleOCR's PPLCNetV3 NET_CONFIG_rec (ppocr/modeling/backbones/rec_lcnetv3.py): per stage, the
# blocks' (dw kernel, stride, use_se); channels come from the ONNX weights.
PPOCRV4_REC_STAGES = [
    [(3, 1, False)],
    [(3, 1, False), (3, 1, False)],
    [(3, (2, 1), False), (3, 1, False)],
    [(3, (1, 2), False), (5, 1, False), (5, 1, False), (5, 1, False), (5, 1, False)],
    [(5, (2, 1), True), (5, 1, True), (5, (2, 1), False), (5, 1, False)],
]


def ppocrv4_rec_names():
    """The structured names of PaddleOCR's PP-OCRv4 rec model (Backbone PPLCNetV3 scale 0.95, after
    LearnableRepLayer.rep(); Head MultiHead with CTCHead's svtr SequenceEncoder, depth 2, and fc), in
    the order the exported program uses them, with each rep layer's (kernel, stride) or None."""
    out = [("backbone.conv1.conv.weight", None)]
    out += [("backbone.conv1.bn." + s, None) for s in ("weight", "bias", "_mean", "_variance")]
    for st, blocks in enumerate(PPOCRV4_REC_STAGES):
        for j, (k, stride, se) in enumerate(blocks):
            pre = "backbone.blocks%d.%d." % (st + 2, j)
            layers = [("dw_conv", (k, stride))] + ([("se", None)] if se else []) + [("pw_conv", (1, 1))]
            for name, rep in layers:
                if name == "se":
                    out += [(pre + "se." + c, None) for c in ("conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias")]
                    continue
                for t in ("reparam_conv.weight", "reparam_conv.bias", "lab.scale", "lab.bias", "act.lab.scale", "act.lab.bias"):
                    out.append((pre + name + "." + t, rep if t == "reparam_conv.weight" else None))
    enc = "head.ctc_encoder.encoder."

    def convbn(c):
        return [(enc + c + ".conv.weight", None)] + [(enc + c + ".norm." + s, None) for s in ("weight", "bias", "_mean", "_variance")]
    out += convbn("conv1") + convbn("conv2")
    for b in range(2):
        for t in ("norm1", "mixer.qkv", "mixer.proj", "norm2", "mlp.fc1", "mlp.fc2"):
            out += [(enc + "svtr_block.%d.%s.%s" % (b, t, s), None) for s in ("weight", "bias")]
    out += [(enc + "norm.weight", None), (enc + "norm.bias", None)]
    out += convbn("conv3") + convbn("conv4") + convbn("conv1x1")
    out += [("head.ctc_head.fc.weight", None), ("head.ctc_head.fc.bias", None)]
    return out


def onnx_paddle_params(model):
    """The ONNX model's Paddle parameters (initializers and Constant nodes named <layer>.w_N / .b_N)
    in the order its nodes first use them."""
    import onnx
    from onnx import numpy_helper
    g = onnx.load(model).graph
    vals = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant":
            vals[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    order = []
    for n in g.node:
        for i in n.input:
            if i in vals and i not in order and re.search(r"\.(w|b)_\d+$", i) and not i.startswith("p2o."):
                order.append(i)
    return [vals[i].astype(np.float32) for i in order]


def fuse_bn(kernel, gamma, beta, mean, var, eps=1e-5):
    """LearnableRepLayer._fuse_bn_tensor."""
    std = np.sqrt(var.astype(np.float64) + eps)
    return kernel * (gamma / std).reshape(-1, 1, 1, 1), beta - mean * gamma / std


def unrep(pre, w, b, k, stride, rng, branches=4, eps=1e-5):
    """A LearnableRepLayer's training branches (conv_kxk.0..3, conv_1x1 when k > 1, identity when
    the shape is kept) whose rep() is (w, b): the others random, conv_kxk.3 takes the rest."""
    cout, cin_g = w.shape[0], w.shape[1]
    groups = cout if cin_g == 1 and cout > 1 else 1
    cin = cin_g * groups
    out = {}
    acc_w, acc_b = np.zeros(w.shape, np.float64), np.zeros(cout, np.float64)

    def bn(p, n):
        v = {"weight": rng.uniform(0.5, 1.5, n), "bias": rng.uniform(-0.2, 0.2, n),
             "_mean": rng.uniform(-0.2, 0.2, n), "_variance": rng.uniform(0.5, 2, n)}
        for s, x in v.items():
            out[p + s] = x.astype(np.float32)
        return [out[p + s].astype(np.float64) for s in ("weight", "bias", "_mean", "_variance")]

    for i in range(branches - 1):
        kw = rng.uniform(-0.3, 0.3, w.shape).astype(np.float32)
        out[pre + "conv_kxk.%d.conv.weight" % i] = kw
        fw, fb = fuse_bn(kw.astype(np.float64), *bn(pre + "conv_kxk.%d.bn." % i, cout), eps)
        acc_w, acc_b = acc_w + fw, acc_b + fb
    if k > 1:
        kw = rng.uniform(-0.3, 0.3, (cout, cin_g, 1, 1)).astype(np.float32)
        out[pre + "conv_1x1.conv.weight"] = kw
        fw, fb = fuse_bn(kw.astype(np.float64), *bn(pre + "conv_1x1.bn.", cout), eps)
        acc_w[:, :, k // 2, k // 2] += fw[:, :, 0, 0]
        acc_b += fb
    if cout == cin and stride in (1, (1, 1)):
        ident = np.zeros((cin, cin_g, k, k))
        for c in range(cin):
            ident[c, c % cin_g, k // 2, k // 2] = 1
        fw, fb = fuse_bn(ident, *bn(pre + "identity.", cin), eps)
        acc_w, acc_b = acc_w + fw, acc_b + fb
    last = pre + "conv_kxk.%d." % (branches - 1)
    out[last + "conv.weight"] = (w.astype(np.float64) - acc_w).astype(np.float32)
    out[last + "bn.weight"] = np.ones(cout, np.float32)
    out[last + "bn.bias"] = (b.astype(np.float64) - acc_b).astype(np.float32)
    out[last + "bn._mean"] = np.zeros(cout, np.float32)
    out[last + "bn._variance"] = np.full(cout, 1 - eps, np.float32)
    return out


def write_ppocrv4_rec(model, out_dir):
    """Two .pdparams of PaddleOCR's PP-OCRv4 rec with the ONNX model's weights: rec_repped (as the
    model is after rep(), the form its export uses) and rec_train (as training saves it: each rep
    layer's branches, which rep() folds into the ONNX weights; plus NRTR head tensors that only
    training uses)."""
    names, vals = ppocrv4_rec_names(), onnx_paddle_params(model)
    if len(names) != len(vals):
        raise SystemExit("ppocrv4_rec: %d names for %d ONNX parameters" % (len(names), len(vals)))
    repped, train = {}, {}
    rng = np.random.default_rng(25)
    for n, ((name, rep), v) in enumerate(zip(names, vals)):
        repped[name] = v
        if name.endswith("reparam_conv.bias"):
            continue
        if rep is None:
            train[name] = v
            continue
        pre = name[:-len("reparam_conv.weight")]
        train.update(unrep(pre, v, vals[n + 1], rep[0], rep[1], rng))
    train["head.before_gtc.1.fc.weight"] = rng.uniform(-1, 1, (480, 384)).astype(np.float32)
    train["head.gtc_head.tgt_word_prj.weight"] = rng.uniform(-1, 1, (384, 6627)).astype(np.float32)
    os.makedirs(out_dir, exist_ok=True)
    for file, sd in (("rec_repped.pdparams", repped), ("rec_train.pdparams", train)):
        sd = dict(sd)
        sd["StructuredToParameterName@@"] = {k: "param_%d" % i for i, k in enumerate(sd)}
        with open(os.path.join(out_dir, file), "wb") as f:
            pickle.Pickler(f, 4).dump(sd)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "ppocrv4_rec":
        write_ppocrv4_rec(sys.argv[2], sys.argv[3])
    else:
        main()
