#!/usr/bin/python3
"""Write core/pdmodel/testdata/tiny_pir/inference.json: scripts/ref/pdmodel_ref.py's `tiny` network
as a Paddle 3 PIR program, laid out as paddle/fluid/pir/serialize_deserialize writes it
(ir_serialize.cc, schema.h, serialize_utils.h, schema.cc of Paddle 3.0):

- {"base_code": {"magic": "pir", "version": N, "trainable": false}, "program": {"regions": [...]}}
- a region {"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": [...]}]}
- an op {"#": "<dialect id>.<name>", "I": [{"%": id}], "O": [{"%": id, "TT": type}], "A": [attrs]}
  with dialect ids builtin 0, pd_op 1 (GetCompressOpName); value ids count from 1 in op order
- a parameter {"#": "p", "O": {"%": id, "TT": type}, "A": [is_distributed, is_parameter,
  need_clip, name], "DA": [], "QA": []} (WriteParameterOP)
- a type {"#": "1.t_dtensor", "D": [{"#": "0.t_f32"}, dims, "NCHW", [], 0]}
- an attribute {"N": name, "AT": {"#": "<dialect id>.a_<kind>", "D": data}}: builtin a_bool,
  a_i32, a_i64, a_f32, a_f64, a_str, a_array; pd_op a_intarray, a_dtype, a_place, a_scalar

Operands follow the signatures of paddle/phi/ops/yaml/ops.yaml (conv2d(input, filter, ...),
batch_norm(x, mean, variance, scale, bias, ...), pool2d(x, IntArray kernel_size, ...),
scale(x, Scalar scale, ...), reshape(x, IntArray shape)); an IntArray or Scalar operand is
the result of a pd_op.full_int_array / pd_op.full op, as Paddle 3 writes mutable attributes,
and a Conv2D layer's bias is reshaped to (1, C, 1, 1) and added (NumPy broadcasting, no axis).
The weights are tiny's inference.pdiparams (the same parameter names, saved sorted by name).
Run from the repository root after pdmodel_ref.py tiny:
    /usr/bin/python3 scripts/ref/pir_ref.py

`pir_ref.py fused OUT_DIR` writes pd_op.fused_conv2d_add_act and pd_op.fc (what Paddle 3's
conv2d_add_act_fuse_pass and fc_fuse_pass write) with its NumPy forward pass (x.npy, out.npy).

`pir_ref.py rnn` (after pdmodel_ref.py rnn) writes core/pdmodel/testdata/rnn_pir: pdmodel_ref.py's
rnn program as Paddle 3 writes it, pd_op.rnn(x, pre_state, weight_list, sequence_length,
dropout_state_in) with the lists from builtin.combine and the state vector unpacked by
builtin.split (ops.yaml: outputs out, dropout_state_out, state[], reserve), with rnn's weights;
the GRU's zero initial state is fed (g0) instead of built. Its outputs are rnn's NumPy ones.

`pir_ref.py ppocr MODEL.onnx OUT_DIR` translates a paddle2onnx PP-OCR det or cls model back
into the pd_op operators of a Paddle 3 program, as pdmodel_ref.py's ppocr does into Paddle 2
operators (a PP-OCRv4 rec's reshape to a shape with run-time parts takes a builtin.combine of
int32 values, pd_op.full for the constant ones, as Paddle 3's reshape(x, [Value, ...]) builds it), and writes OUT_DIR/inference.json and inference.pdiparams (python3-onnx needed).
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

from ppocr_onnx import paddle_params, patterns

SRC = "core/pdmodel/testdata/tiny"
OUT = "core/pdmodel/testdata/tiny_pir"


def dtensor(dims, elem="0.t_f32"):
    return {"#": "1.t_dtensor", "D": [{"#": elem}, list(dims), "NCHW", [], 0]}


def a(name, kind, data):
    return {"N": name, "AT": {"#": kind, "D": data}}


def i32s(name, v):
    return a(name, "0.a_array", [{"#": "0.a_i32", "D": x} for x in v])


class Prog:
    def __init__(self):
        self.ops, self.next = [], 1

    def value(self, dims, elem="0.t_f32"):
        v = {"%": self.next, "TT": dtensor(dims, elem)}
        self.next += 1
        return v

    def op(self, name, ins, outs, attrs, elem="0.t_f32"):
        res = [self.value(d, elem) if d is not None else {"%": 0, "TT": {"#": "NULL"}} for d in outs]
        self.ops.append({"#": "1." + name, "I": [{"%": i} for i in ins], "O": res, "A": attrs})
        return [r["%"] for r in res]

    def combine(self, ins):
        v = {"%": self.next, "TT": {"#": "0.t_vec", "D": []}}
        self.next += 1
        self.ops.append({"#": "0.combine", "I": [{"%": i} for i in ins], "O": [v], "A": []})
        return v["%"]

    def param(self, name, shape, elem="0.t_f32"):
        v = self.value(shape, elem)
        self.ops.append({"#": "p", "O": v, "A": [0, 1, 0, name], "DA": [], "QA": []})
        return v["%"]

    def int_array(self, v):
        return self.op("full_int_array", [], [[len(v)]],
                       [a("value", "0.a_array", [{"#": "0.a_i64", "D": x} for x in v]),
                        a("dtype", "1.a_dtype", "int64"), a("place", "1.a_place", [0, 0, ""])])[0]

    def full(self, value, dtype="float32"):
        return self.op("full", [], [[1]], [a("shape", "1.a_intarray", [1]), a("value", "0.a_f64", value),
                                            a("dtype", "1.a_dtype", dtype), a("place", "1.a_place", [0, 0, ""])])[0]

    def save(self, out_dir, params):
        prog = {"base_code": {"magic": "pir", "trainable": False, "version": 1},
                "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": self.ops}]}]}}
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "inference.json"), "w") as f:
            json.dump(prog, f)
        with open(os.path.join(out_dir, "inference.pdiparams"), "wb") as f:
            for name in sorted(params):  # pir_io.save_vars_pir sorts by name
                write_tensor(f, params[name])


PD_DTYPES = {np.dtype("float32"): 5, np.dtype("int64"): 3, np.dtype("int32"): 2}
ELEM = {np.dtype("float32"): "0.t_f32", np.dtype("int64"): "0.t_i64", np.dtype("int32"): "0.t_i32"}


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def write_tensor(f, arr):
    """save_combine's stream for one dense tensor; the TensorDesc (data_type = 1, dims = 2) is
    written by hand on the protobuf wire format."""
    arr = np.ascontiguousarray(arr)
    desc = b"\x08" + varint(PD_DTYPES[arr.dtype])
    for d in arr.shape:
        desc += b"\x10" + varint(d & (2 ** 64 - 1))
    f.write(struct.pack("<I", 0) + struct.pack("<Q", 0) + struct.pack("<I", 0))
    f.write(struct.pack("<i", len(desc)) + desc)
    f.write(arr.astype(arr.dtype.newbyteorder("<")).tobytes())


def ppocr(model, out_dir):
    import onnx
    from onnx import numpy_helper, shape_inference
    m = shape_inference.infer_shapes(onnx.load(model))
    g = m.graph
    const = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    dims = {}
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        dims[vi.name] = [d.dim_value if d.HasField("dim_value") else -1 for d in vi.type.tensor_type.shape.dim]
    skip, fused = patterns(g, const)
    pnames = paddle_params(g)
    p = Prog()
    ids, params = {}, {}

    def val(name):
        if name in ids:
            return ids[name]
        v = const[name]
        if v.dtype == np.float64:
            v = v.astype(np.float32)
        if v.ndim == 0:
            v = v.reshape(1)
        params[name] = v
        ids[name] = p.param(name, list(v.shape), ELEM[v.dtype])
        return ids[name]

    def scalar(name):
        v = const.get(name)
        return float(v.reshape(-1)[0]) if v is not None and v.size == 1 else None

    def d(name, rank=4):
        return dims.get(name) or [-1] * rank

    for vi in g.input:
        if vi.name not in const:
            ids[vi.name] = p.op("data", [], [d(vi.name)], [
                a("name", "0.a_str", vi.name), a("shape", "1.a_intarray", d(vi.name)),
                a("dtype", "1.a_dtype", "float32"), a("place", "1.a_place", [0, 0, ""])])[0]
    def int_item(name):
        """A reshape shape item: a value, or a constant as the pd_op.full Paddle 3 writes."""
        if name in ids or name not in const:
            return val(name)
        ids[name] = p.op("full", [], [[1]], [a("shape", "1.a_intarray", [1]),
                                             a("value", "0.a_f64", float(const[name].reshape(-1)[0])),
                                             a("dtype", "1.a_dtype", "int32"), a("place", "1.a_place", [0, 0, ""])],
                         "0.t_i32")[0]
        return ids[name]

    for k, n in enumerate(g.node):
        if k in skip:
            continue
        at = {x.name: onnx.helper.get_attribute_value(x) for x in n.attribute}
        i, o, t = list(n.input), list(n.output), n.op_type
        f = fused.get(k)
        if f and f[0] in ("hard_swish", "swish"):
            ids[o[0]] = p.op(f[0].replace("_", ""), [val(f[1])], [d(o[0])], [])[0]
        elif f and f[0] == "layer_norm":
            ids[o[0]] = p.op("layer_norm", [val(f[1]), val(f[2]), val(f[3])], [d(o[0], 3), [-1], [-1]],
                             [a("epsilon", "0.a_f32", f[4]), a("begin_norm_axis", "0.a_i32", -1)])[0]
        elif f and f[0] == "flatten":
            ids[o[0]] = p.op("flatten", [val(f[1])], [[-1] * (f[2] + 1), None],
                             [a("start_axis", "0.a_i32", f[2]), a("stop_axis", "0.a_i32", -1)])[0]
        elif f and f[0] == "reshape_list":
            ids[o[0]] = p.op("reshape", [val(f[1]), p.combine([int_item(x) for x in f[2]])],
                             [[-1] * len(f[2]), None], [])[0]
        elif f and f[0] == "slice_decrease":
            ids[o[0]] = p.op("slice", [val(f[1]), p.int_array(f[3]), p.int_array(f[4])], [[-1] * 3], [
                a("axes", "0.a_array", [{"#": "0.a_i64", "D": x} for x in f[2]]),
                a("infer_flags", "0.a_array", [{"#": "0.a_i64", "D": 1}]),
                a("decrease_axis", "0.a_array", [{"#": "0.a_i64", "D": x} for x in f[2]])])[0]
        elif t == "Transpose":
            ids[o[0]] = p.op("transpose", [val(i[0])], [[-1] * len(at["perm"]), None], [i32s("perm", at["perm"])])[0]
        elif t == "Squeeze":
            ids[o[0]] = p.op("squeeze", [val(i[0]), p.int_array(at["axes"])], [[-1] * 3, None], [])[0]
        elif t == "AveragePool":
            pads = at.get("pads", [0, 0, 0, 0])
            ids[o[0]] = p.op("pool2d", [val(i[0]), p.int_array(at["kernel_shape"])], [d(o[0])], [
                i32s("strides", at.get("strides", [1, 1])), i32s("paddings", [pads[0], pads[2], pads[1], pads[3]]),
                a("ceil_mode", "0.a_bool", bool(at.get("ceil_mode", 0))),
                a("exclusive", "0.a_bool", not at.get("count_include_pad", 0)), a("data_format", "0.a_str", "NCHW"),
                a("pooling_type", "0.a_str", "avg"), a("global_pooling", "0.a_bool", False),
                a("adaptive", "0.a_bool", False), a("padding_algorithm", "0.a_str", "EXPLICIT")])[0]
        elif t == "Constant":
            const[o[0]] = numpy_helper.to_array(at["value"])
        elif t in ("Conv", "ConvTranspose"):
            w = const[i[1]]
            pads = at.get("pads", [0, 0, 0, 0])
            attrs = [i32s("strides", at.get("strides", [1, 1])),
                     i32s("paddings", [pads[0], pads[2], pads[1], pads[3]])]
            groups = at.get("group", 1)
            if t == "ConvTranspose":
                attrs += [i32s("output_padding", at.get("output_padding", [])),
                          a("padding_algorithm", "0.a_str", "EXPLICIT"), a("groups", "0.a_i32", groups),
                          i32s("dilations", at.get("dilations", [1, 1])), a("data_format", "0.a_str", "NCHW")]
                y = p.op("conv2d_transpose", [val(i[0]), val(i[1]), p.int_array([])], [d(o[0])], attrs)[0]
            else:
                attrs += [a("padding_algorithm", "0.a_str", "EXPLICIT"), i32s("dilations", at.get("dilations", [1, 1])),
                          a("groups", "0.a_i32", groups), a("data_format", "0.a_str", "NCHW")]
                typ = "depthwise_conv2d" if groups > 1 and groups == w.shape[0] and w.shape[1] == 1 else "conv2d"
                y = p.op(typ, [val(i[0]), val(i[1])], [d(o[0])], attrs)[0]
            if len(i) > 2:
                c = const[i[2]].shape[0]
                b = p.op("reshape", [val(i[2]), p.int_array([1, c, 1, 1])], [[1, c, 1, 1]], [])[0]
                y = p.op("add", [y, b], [d(o[0])], [])[0]
            ids[o[0]] = y
        elif t == "BatchNormalization":
            ids[o[0]] = p.op("batch_norm_", [val(i[0]), val(i[3]), val(i[4]), val(i[1]), val(i[2])],
                             [d(o[0]), [-1], [-1], [-1], [-1], None],
                             [a("is_test", "0.a_bool", True), a("momentum", "0.a_f32", 0.9),
                              a("epsilon", "0.a_f32", float(at.get("epsilon", 1e-5))),
                              a("data_layout", "0.a_str", "NCHW"), a("use_global_stats", "0.a_bool", False),
                              a("trainable_statistics", "0.a_bool", False)])[0]
        elif t in ("Add", "Sub", "Mul", "Div"):
            x, y = i
            c = scalar(y) if y not in pnames else None
            if c is not None and x not in const:
                sc, b = {"Add": (1.0, c), "Sub": (1.0, -c), "Mul": (c, 0.0), "Div": (1.0 / c, 0.0)}[t]
                ids[o[0]] = p.op("scale", [val(x), p.full(sc)], [d(o[0])],
                                 [a("bias", "0.a_f32", b), a("bias_after_scale", "0.a_bool", True)])[0]
            else:
                typ = {"Add": "add", "Sub": "subtract", "Mul": "multiply", "Div": "divide"}[t]
                ids[o[0]] = p.op(typ, [val(x), val(y)], [d(o[0])], [])[0]
        elif t == "Clip":
            lo, hi = (scalar(i[1]), scalar(i[2])) if len(i) == 3 else (at["min"], at["max"])
            if lo == 0 and hi == 6:
                ids[o[0]] = p.op("relu6", [val(i[0])], [d(o[0])], [])[0]
            else:
                ids[o[0]] = p.op("clip", [val(i[0]), p.full(lo), p.full(hi)], [d(o[0])], [])[0]
        elif t in ("Relu", "Sigmoid"):
            ids[o[0]] = p.op(t.lower(), [val(i[0])], [d(o[0])], [])[0]
        elif t == "HardSigmoid":
            ids[o[0]] = p.op("hardsigmoid", [val(i[0])], [d(o[0])],
                             [a("slope", "0.a_f32", at["alpha"]), a("offset", "0.a_f32", at["beta"])])[0]
        elif t in ("GlobalAveragePool", "MaxPool"):
            glob = t == "GlobalAveragePool"
            pads = at.get("pads", [0, 0, 0, 0])
            k = [1, 1] if glob else at["kernel_shape"]
            ids[o[0]] = p.op("pool2d", [val(i[0]), p.int_array(k)], [d(o[0])], [
                i32s("strides", at.get("strides", [1, 1])), i32s("paddings", [pads[0], pads[2], pads[1], pads[3]]),
                a("ceil_mode", "0.a_bool", bool(at.get("ceil_mode", 0))), a("exclusive", "0.a_bool", True),
                a("data_format", "0.a_str", "NCHW"), a("pooling_type", "0.a_str", "avg" if glob else "max"),
                a("global_pooling", "0.a_bool", glob), a("adaptive", "0.a_bool", False),
                a("padding_algorithm", "0.a_str", "EXPLICIT")])[0]
        elif t == "Resize":
            assert at.get("mode") == b"nearest" and at.get("coordinate_transformation_mode") == b"asymmetric", at
            sc = const[i[2]]
            ids[o[0]] = p.op("nearest_interp", [val(i[0]), 0, 0, 0], [d(o[0])], [
                a("data_layout", "0.a_str", "NCHW"), a("out_d", "0.a_i32", -1), a("out_h", "0.a_i32", -1),
                a("out_w", "0.a_i32", -1),
                a("scale", "0.a_array", [{"#": "0.a_f32", "D": float(sc[2])}, {"#": "0.a_f32", "D": float(sc[3])}]),
                a("interp_method", "0.a_str", "nearest"), a("align_corners", "0.a_bool", False),
                a("align_mode", "0.a_i32", 1)])[0]
        elif t == "Concat":
            ids[o[0]] = p.op("concat", [p.combine([val(x) for x in i]), p.full(at["axis"], "int64")], [d(o[0])], [])[0]
        elif t == "Shape":
            ids[o[0]] = p.op("shape", [val(i[0])], [[4]], [], "0.t_i32")[0]
        elif t == "Cast":
            if i[0] in const:
                const[o[0]] = const[i[0]].astype({6: np.int32, 7: np.int64, 1: np.float32}[at["to"]])
            else:
                to = {6: ("int32", "0.t_i32"), 7: ("int64", "0.t_i64"), 1: ("float32", "0.t_f32")}[at["to"]]
                ids[o[0]] = p.op("cast", [val(i[0])], [d(o[0], 1)], [a("dtype", "1.a_dtype", to[0])], to[1])[0]
        elif t == "Slice":
            ids[o[0]] = p.op("slice", [val(i[0]), p.int_array(at["starts"]), p.int_array(at["ends"])], [[-1]], [
                a("axes", "0.a_array", [{"#": "0.a_i64", "D": x} for x in at["axes"]]),
                a("infer_flags", "0.a_array", [{"#": "0.a_i64", "D": 1}]),
                a("decrease_axis", "0.a_array", [])], "0.t_i32")[0]
        elif t == "Reshape":
            sh = p.int_array([int(x) for x in const[i[1]]]) if i[1] in const else val(i[1])
            ids[o[0]] = p.op("reshape", [val(i[0]), sh], [d(o[0], 2), None], [])[0]
        elif t == "MatMul":
            ids[o[0]] = p.op("matmul", [val(i[0]), val(i[1])], [d(o[0])],
                             [a("transpose_x", "0.a_bool", False), a("transpose_y", "0.a_bool", False)])[0]
        elif t == "Softmax":
            ids[o[0]] = p.op("softmax", [val(i[0])], [d(o[0])], [a("axis", "0.a_i32", at.get("axis", -1))])[0]
        else:
            raise SystemExit("ppocr: ONNX op %s is not translated" % t)
    for k, vi in enumerate(g.output):
        p.op("fetch", [ids[vi.name]], [d(vi.name)], [a("name", "0.a_str", vi.name), a("col", "0.a_i32", k)])
    p.save(out_dir, params)


def fused(out_dir):
    """pd_op.fused_conv2d_add_act (bias, residual, relu) and pd_op.fc (relu), the operators Paddle 3's
    conv2d_add_act_fuse_pass and fc_fuse_pass write, with the NumPy forward pass: OUT_DIR/inference.json,
    inference.pdiparams, x.npy, out.npy."""
    rng = np.random.default_rng(3025)
    f32 = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    W = {"cw": f32(4, 4, 3, 3), "cb": f32(4), "fw": f32(64, 6), "fb": f32(6)}
    p = Prog()
    w = {n: p.param(n, list(v.shape)) for n, v in sorted(W.items())}
    x = p.op("data", [], [[-1, 4, 4, 4]], [a("name", "0.a_str", "x"), a("shape", "1.a_intarray", [-1, 4, 4, 4]),
                                             a("dtype", "1.a_dtype", "float32"), a("place", "1.a_place", [0, 0, ""])])[0]
    c = p.op("fused_conv2d_add_act", [x, w["cw"], w["cb"], x], [[-1, 4, 4, 4], None],
             conv_attrs(1, 1, 1) + [a("activation", "0.a_str", "relu"), i32s("split_channels", []),
                                    a("exhaustive_search", "0.a_bool", False), a("workspace_size_MB", "0.a_i32", 32),
                                    a("fuse_alpha", "0.a_f32", 0.0)])[0]
    fl = p.op("flatten", [c], [[-1, 64]], [a("start_axis", "0.a_i32", 1), a("stop_axis", "0.a_i32", -1)])[0]
    y = p.op("fc", [fl, w["fw"], w["fb"]], [[-1, 6]], [a("in_num_col_dims", "0.a_i32", 1),
                                                      a("activation_type", "0.a_str", "relu"),
                                                      a("padding_weights", "0.a_bool", False)])[0]
    p.op("fetch", [y], [[-1, 6]], [a("name", "0.a_str", "out"), a("col", "0.a_i32", 0)])
    p.save(out_dir, W)
    P = {k: v.astype(np.float64) for k, v in W.items()}
    xv = rng.uniform(-1, 1, (2, 4, 4, 4)).astype(np.float32)
    x64 = xv.astype(np.float64)
    xp = np.pad(x64, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cv = np.zeros((2, 4, 4, 4))
    for i in range(4):
        for j in range(4):
            cv[:, :, i, j] = np.einsum("nchw,ochw->no", xp[:, :, i:i + 3, j:j + 3], P["cw"])
    cv = np.maximum(cv + P["cb"].reshape(1, 4, 1, 1) + x64, 0)
    out = np.maximum(cv.reshape(2, 64) @ P["fw"] + P["fb"], 0)
    np.save(os.path.join(out_dir, "x.npy"), xv)
    np.save(os.path.join(out_dir, "out.npy"), out.astype(np.float32))


def rnn():
    """pdmodel_ref.py rnn's program (2-layer bidirectional LSTM into a 2-layer bidirectional GRU,
    N=any, T=5, C=3, H=4) in pd_op operators, its weights copied from testdata/rnn."""
    T, C, H, L, D = 5, 3, 4, 2, 2
    src, out = "core/pdmodel/testdata/rnn", "core/pdmodel/testdata/rnn_pir"
    p = Prog()
    shapes = {}
    for mode, G, in_size in (("lstm", 4, C), ("gru", 3, D * H)):
        for l in range(L):
            for d in range(D):
                pre = "%s_l%d_d%d_" % (mode, l, d)
                shapes[pre + "w_ih"] = [G * H, in_size if l == 0 else D * H]
                shapes[pre + "w_hh"] = [G * H, H]
                shapes[pre + "b_ih"] = [G * H]
                shapes[pre + "b_hh"] = [G * H]
    w = {n: p.param(n, shapes[n]) for n in sorted(shapes)}

    def data(name, dims):
        return p.op("data", [], [dims], [a("name", "0.a_str", name), a("shape", "1.a_intarray", dims),
                                          a("dtype", "1.a_dtype", "float32"), a("place", "1.a_place", [0, 0, ""])])[0]

    x, h0, c0, g0 = data("x", [-1, T, C]), data("h0", [L * D, -1, H]), data("c0", [L * D, -1, H]), data("g0", [L * D, -1, H])
    tm = p.op("transpose", [x], [[T, -1, C]], [i32s("perm", [1, 0, 2])])[0]

    def rnn_op(mode, inp, in_size, states):
        names = ["%s_l%d_d%d_" % (mode.lower(), l, d) for l in range(L) for d in range(D)]
        wl = p.combine([w[n + k] for n in names for k in ("w_ih", "w_hh")] + [w[n + k] for n in names for k in ("b_ih", "b_hh")])
        pre = p.combine(states)
        o = p.value([T, -1, D * H])
        vec = {"%": p.next, "TT": {"#": "0.t_vec", "D": [dtensor([L * D, -1, H]) for _ in states]}}
        p.next += 1
        p.ops.append({"#": "1.rnn", "I": [{"%": inp}, {"%": pre}, {"%": wl}, {"%": 0}, {"%": 0}],
                      "O": [o, {"%": 0, "TT": {"#": "NULL"}}, vec, {"%": 0, "TT": {"#": "NULL"}}],
                      "A": [a("dropout_prob", "0.a_f32", 0.0), a("is_bidirec", "0.a_bool", True),
                            a("input_size", "0.a_i32", in_size), a("hidden_size", "0.a_i32", H),
                            a("num_layers", "0.a_i32", L), a("mode", "0.a_str", mode), a("seed", "0.a_i32", 0),
                            a("is_test", "0.a_bool", True)]})
        parts = [p.value([L * D, -1, H]) for _ in states]
        p.ops.append({"#": "0.split", "I": [{"%": vec["%"]}], "O": parts, "A": []})
        return o["%"], [v["%"] for v in parts]

    lo, (lh, lc) = rnn_op("LSTM", tm, C, [h0, c0])
    go, (gh,) = rnn_op("GRU", lo, D * H, [g0])
    y = p.op("transpose", [go], [[-1, T, D * H]], [i32s("perm", [1, 0, 2])])[0]
    for col, (v, n) in enumerate(((y, "out"), (lh, "lstm_h"), (lc, "lstm_c"), (gh, "gru_h"))):
        p.op("fetch", [v], [[-1]], [a("name", "0.a_str", n), a("col", "0.a_i32", col)])
    prog = {"base_code": {"magic": "pir", "trainable": False, "version": 1},
            "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": p.ops}]}]}}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "inference.json"), "w") as f:
        json.dump(prog, f)
    shutil.copyfile(os.path.join(src, "inference.pdiparams"), os.path.join(out, "inference.pdiparams"))


def conv_attrs(stride, pad, groups):
    return [i32s("strides", [stride, stride]), i32s("paddings", [pad, pad]),
            a("padding_algorithm", "0.a_str", "EXPLICIT"), i32s("dilations", [1, 1]),
            a("groups", "0.a_i32", groups), a("data_format", "0.a_str", "NCHW")]


def pool_attrs(kind, adaptive, stride):
    return [i32s("strides", [stride, stride]), i32s("paddings", [0, 0]), a("ceil_mode", "0.a_bool", False),
            a("exclusive", "0.a_bool", True), a("data_format", "0.a_str", "NCHW"),
            a("pooling_type", "0.a_str", kind), a("global_pooling", "0.a_bool", False),
            a("adaptive", "0.a_bool", adaptive), a("padding_algorithm", "0.a_str", "EXPLICIT")]


def main():
    p = Prog()
    w = {n: p.param(n, s) for n, s in (
        ("bn1_mean", [4]), ("bn1_offset", [4]), ("bn1_scale", [4]), ("bn1_variance", [4]),
        ("conv1_weights", [4, 3, 3, 3]), ("dw_weights", [4, 1, 3, 3]), ("fc_bias", [5]),
        ("fc_weights", [16, 5]), ("se_bias", [4]), ("se_weights", [4, 4, 1, 1]))}
    x = p.op("data", [], [[-1, 3, 8, 8]], [a("name", "0.a_str", "x"), a("shape", "1.a_intarray", [-1, 3, 8, 8]),
                                             a("dtype", "1.a_dtype", "float32"), a("place", "1.a_place", [0, 0, ""])])[0]
    c1 = p.op("conv2d", [x, w["conv1_weights"]], [[-1, 4, 8, 8]], conv_attrs(1, 1, 1))[0]
    b1 = p.op("batch_norm_", [c1, w["bn1_mean"], w["bn1_variance"], w["bn1_scale"], w["bn1_offset"]],
              [[-1, 4, 8, 8], [4], [4], [4], [4], None],
              [a("is_test", "0.a_bool", True), a("momentum", "0.a_f32", 0.9), a("epsilon", "0.a_f32", 1e-5),
               a("data_layout", "0.a_str", "NCHW"), a("use_global_stats", "0.a_bool", False),
               a("trainable_statistics", "0.a_bool", False)])[0]
    r1 = p.op("relu_", [b1], [[-1, 4, 8, 8]], [])[0]
    d1 = p.op("depthwise_conv2d", [r1, w["dw_weights"]], [[-1, 4, 4, 4]], conv_attrs(2, 1, 4))[0]
    h1 = p.op("hardswish", [d1], [[-1, 4, 4, 4]], [])[0]
    k1 = p.int_array([1, 1])
    g1 = p.op("pool2d", [h1, k1], [[-1, 4, 1, 1]], pool_attrs("avg", True, 1))[0]
    s1 = p.op("conv2d", [g1, w["se_weights"]], [[-1, 4, 1, 1]], conv_attrs(1, 0, 1))[0]
    sh = p.int_array([1, 4, 1, 1])
    bs = p.op("reshape", [w["se_bias"], sh], [[1, 4, 1, 1]], [])[0]
    s2 = p.op("add", [s1, bs], [[-1, 4, 1, 1]], [])[0]
    s3 = p.op("hardsigmoid", [s2], [[-1, 4, 1, 1]], [a("slope", "0.a_f32", 0.2), a("offset", "0.a_f32", 0.5)])[0]
    m1 = p.op("multiply", [h1, s3], [[-1, 4, 4, 4]], [])[0]
    k2 = p.int_array([2, 2])
    q1 = p.op("pool2d", [m1, k2], [[-1, 4, 2, 2]], pool_attrs("max", False, 2))[0]
    fl = p.op("flatten", [q1], [[-1, 16]], [a("start_axis", "0.a_i32", 1), a("stop_axis", "0.a_i32", -1)])[0]
    f1 = p.op("matmul", [fl, w["fc_weights"]], [[-1, 5]],
              [a("transpose_x", "0.a_bool", False), a("transpose_y", "0.a_bool", False)])[0]
    f2 = p.op("add", [f1, w["fc_bias"]], [[-1, 5]], [])[0]
    sc = p.full(2.0)
    f3 = p.op("scale", [f2, sc], [[-1, 5]], [a("bias", "0.a_f32", 0.5), a("bias_after_scale", "0.a_bool", True)])[0]
    y = p.op("softmax", [f3], [[-1, 5]], [a("axis", "0.a_i32", -1)])[0]
    p.op("fetch", [y], [[-1, 5]], [a("name", "0.a_str", "fetch_name_0"), a("col", "0.a_i32", 0)])
    prog = {"base_code": {"magic": "pir", "trainable": False, "version": 1},
            "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": p.ops}]}]}}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "inference.json"), "w") as f:
        json.dump(prog, f, indent=1)
    shutil.copyfile(os.path.join(SRC, "inference.pdiparams"), os.path.join(OUT, "inference.pdiparams"))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "ppocr":
        ppocr(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2 and sys.argv[1] == "rnn":
        rnn()
    elif len(sys.argv) == 3 and sys.argv[1] == "fused":
        fused(sys.argv[2])
    else:
        main()
