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
"""
import json
import os
import shutil

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

    def op(self, name, ins, outs, attrs):
        res = [self.value(d) if d is not None else {"%": 0, "TT": {"#": "NULL"}} for d in outs]
        self.ops.append({"#": "1." + name, "I": [{"%": i} for i in ins], "O": res, "A": attrs})
        return [r["%"] for r in res]

    def param(self, name, shape):
        v = self.value(shape)
        self.ops.append({"#": "p", "O": v, "A": [0, 1, 0, name], "DA": [], "QA": []})
        return v["%"]

    def int_array(self, v):
        return self.op("full_int_array", [], [[len(v)]],
                       [a("value", "0.a_array", [{"#": "0.a_i64", "D": x} for x in v]),
                        a("dtype", "1.a_dtype", "int64"), a("place", "1.a_place", [0, 0, ""])])[0]

    def full(self, value):
        return self.op("full", [], [[1]], [a("shape", "1.a_intarray", [1]), a("value", "0.a_f64", value),
                                            a("dtype", "1.a_dtype", "float32"), a("place", "1.a_place", [0, 0, ""])])[0]


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
    main()
