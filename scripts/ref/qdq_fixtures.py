#!/usr/bin/python3
"""qdq_fixtures.py — write small QDQ ONNX models, as ONNX Runtime's quantizer lays
them out, for the int8 tests (core/runtime/quant_test.go compares paddle's
outputs with ONNX Runtime's on them).

    /usr/bin/python3 scripts/ref/qdq_fixtures.py core/runtime/testdata

Needs Debian's python3-onnx and python3-numpy only. The weights are drawn
from a fixed seed, so the files are reproducible. Each model:

  qdq_convnet.onnx  x (1, 3, 20, 18) float
      QuantizeLinear/DequantizeLinear (uint8 activations, one scale each)
      → Conv 3×3 pad 1 (int8 per-channel weights, int32 bias through
        DequantizeLinear) → Relu → Q/DQ
      → Conv 3×3 stride 2 depthwise (group 8) → Clip(0, 6) → Q/DQ
      → Conv 1×1 → HardSwish (float output, not requantized)
      → GlobalAveragePool → Flatten → Q/DQ
      → Gemm transB=1 (per-channel on axis 0, float bias) → Q/DQ → y (1, 10)
  qdq_matmul.onnx   x (2, 5, 24) float
      → Q/DQ → MatMul (int8 weights per channel on axis 1) → Add bias → Sigmoid
      → Q/DQ → y (2, 5, 12)

The scales of the activations are fixed numbers chosen for the input range
[-2, 2]; each output's scale (the last DequantizeLinear) is in the model's
doc_string as "output_scale=<v>" for the test's tolerance.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(20240521)
OPSET = 14  # HardSwish


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def const(self, base, arr):
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def node(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def qdq(self, x, scale, zero):
        s = self.const("scale", np.array(scale, np.float32))
        z = self.const("zp", np.array(zero, np.uint8))
        return self.node("DequantizeLinear", [self.node("QuantizeLinear", [x, s, z]), s, z])

    def weight(self, shape, axis):
        """An int8 symmetric per-channel weight along axis, dequantized."""
        w = rng.normal(0, 1, shape).astype(np.float32)
        w /= np.sqrt(np.prod(shape) / shape[axis])
        red = tuple(i for i in range(len(shape)) if i != axis)
        scale = (np.abs(w).max(axis=red) / 127).astype(np.float32)
        bshape = [1] * len(shape)
        bshape[axis] = shape[axis]
        q = np.clip(np.round(w / scale.reshape(bshape)), -127, 127).astype(np.int8)
        return self.node("DequantizeLinear", [self.const("w", q), self.const("w_scale", scale),
                                              self.const("w_zp", np.zeros(shape[axis], np.int8))], axis=axis), scale

    def int32_bias(self, n, x_scale, w_scale):
        """A bias as ONNX Runtime's quantizer writes it: int32, scale x_scale·w_scale."""
        bs = (x_scale * w_scale).astype(np.float32)
        q = np.round(rng.uniform(-0.3, 0.3, n) / bs).astype(np.int32)
        return self.node("DequantizeLinear", [self.const("b", q), self.const("b_scale", bs),
                                              self.const("b_zp", np.zeros(n, np.int32))], axis=0)

    def model(self, name, inputs, output, out_shape, out_scale):
        self.nodes.append(helper.make_node("Identity", [output], ["y"], name="y"))
        g = helper.make_graph(self.nodes, name, inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="qdq_fixtures.py")
        m.ir_version = 8
        m.doc_string = f"output_scale={out_scale!r}"
        onnx.checker.check_model(m)
        return m


def convnet():
    b = Builder()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 20, 18])
    h = b.qdq("x", 0.016, 128)
    w, ws = b.weight((8, 3, 3, 3), 0)
    h = b.node("Conv", [h, w, b.int32_bias(8, np.float32(0.016), ws)], pads=[1, 1, 1, 1])
    h = b.qdq(b.node("Relu", [h]), 0.02, 0)
    w, ws = b.weight((8, 1, 3, 3), 0)
    h = b.node("Conv", [h, w, b.int32_bias(8, np.float32(0.02), ws)], pads=[1, 1, 1, 1], strides=[2, 2], group=8)
    h = b.node("Clip", [h, b.const("lo", np.array(0, np.float32)), b.const("hi", np.array(6, np.float32))])
    h = b.qdq(h, 6 / 255, 0)
    w, ws = b.weight((16, 8, 1, 1), 0)
    h = b.node("HardSwish", [b.node("Conv", [h, w, b.const("bf", rng.uniform(-0.2, 0.2, 16).astype(np.float32))])])
    h = b.node("Flatten", [b.node("GlobalAveragePool", [h])], axis=1)
    h = b.qdq(h, 0.004, 64)
    w, ws = b.weight((10, 16), 0)
    h = b.node("Gemm", [h, w, b.const("gb", rng.uniform(-0.1, 0.1, 10).astype(np.float32))], transB=1)
    out_scale = 0.002
    h = b.qdq(h, out_scale, 128)
    return b.model("qdq_convnet", [x], h, [1, 10], out_scale)


def matmul():
    b = Builder()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 24])
    h = b.qdq("x", 0.016, 128)
    w, ws = b.weight((24, 12), 1)
    h = b.node("MatMul", [h, w])
    h = b.node("Sigmoid", [b.node("Add", [h, b.const("bias", rng.uniform(-0.5, 0.5, 12).astype(np.float32))])])
    out_scale = 1 / 255
    h = b.qdq(h, out_scale, 0)
    return b.model("qdq_matmul", [x], h, [2, 5, 12], out_scale)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: qdq_fixtures.py OUT_DIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    for m in (convnet(), matmul()):
        path = os.path.join(sys.argv[1], m.graph.name + ".onnx")
        onnx.save(m, path)
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
