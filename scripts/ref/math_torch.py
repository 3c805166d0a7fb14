#!/usr/bin/python3
"""Reference values for the math, activation and reduction ops of core/op from PyTorch.

Run from the repository root:  /usr/bin/python3 scripts/ref/math_torch.py
(Debian python3-torch). It writes core/op/testdata/math_torch.json: for each
case the paddle op name and attributes, the float64 inputs, the outputs, a
fixed upstream gradient for each float output and the input gradients of
sum(output * upstream). Seeds are fixed, so reruns give the same file.
core/op/math_torch_test.go compares the Go kernels and VJPs within 1e-6.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
gen = torch.Generator().manual_seed(20261130)


def rnd(lo, hi, *shape):
    """uniform values rounded to 4 decimals (exact in the JSON)."""
    t = lo + (hi - lo) * torch.rand(tuple(shape), generator=gen)
    return torch.round(t * 1e4) / 1e4


def t2j(t):
    t = torch.as_tensor(t).detach()
    dt = {torch.float64: "float64", torch.int64: "int64", torch.bool: "bool"}[t.dtype]
    data = t.reshape(-1).to(torch.float64).tolist() if t.dtype == torch.bool else t.reshape(-1).tolist()
    return {"dtype": dt, "shape": list(t.shape), "data": data}


cases = []


def case(name, op, attrs, inputs, fn, grad=True):
    """fn maps the input tensors to a tuple of outputs."""
    ins = [x.clone().requires_grad_(grad and x.dtype == torch.float64) for x in inputs]
    outs = fn(*ins)
    if not isinstance(outs, tuple):
        outs = (outs,)
    c = {"name": name, "op": op, "attrs": attrs, "inputs": [t2j(x) for x in inputs],
         "outputs": [t2j(o) for o in outs]}
    if grad:
        ups = [rnd(-1, 1, *o.shape) if o.dtype == torch.float64 else None for o in outs]
        loss = sum((o * u).sum() for o, u in zip(outs, ups) if u is not None)
        gs = torch.autograd.grad(loss, [x for x in ins if x.requires_grad])
        it = iter(gs)
        c["upstream"] = [t2j(u) if u is not None else None for u in ups]
        c["grads"] = [t2j(next(it)) if x.requires_grad else None for x in ins]
    cases.append(c)


# elementwise math
x = rnd(-3, 3, 12)
pos = rnd(0.5, 3, 12)
case("sqrt", "sqrt", {}, [pos], torch.sqrt)
case("rsqrt", "rsqrt", {}, [pos], torch.rsqrt)
case("abs", "abs", {}, [x], torch.abs)
case("sign", "sign", {}, [torch.tensor([-2.5, -0.0, 0.0, 0.3, 7.0, -1e-3])], torch.sign, grad=False)
case("reciprocal", "reciprocal", {}, [pos], torch.reciprocal)
halves = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -2.7, -0.2, 0.49, 1.01, 3.99, 2.5001])
case("floor", "floor", {}, [halves], torch.floor, grad=False)
case("ceil", "ceil", {}, [halves], torch.ceil, grad=False)
case("round", "round", {}, [halves], torch.round, grad=False)
case("erf", "erf", {}, [x], torch.erf)
case("sin", "sin", {}, [x], torch.sin)
case("cos", "cos", {}, [x], torch.cos)
case("clip", "clip", {"min": -0.5, "max": 1.0}, [x], lambda t: torch.clamp(t, -0.5, 1.0))
cond = torch.tensor([[True], [False], [True]])
case("where", "where", {}, [cond, rnd(-1, 1, 3, 4), rnd(-1, 1, 4)], torch.where)

# activations
case("sigmoid", "sigmoid", {}, [x], torch.sigmoid)
case("tanh", "tanh", {}, [x], torch.tanh)
case("relu6", "relu6", {}, [rnd(-2, 8, 12)], F.relu6)
case("leaky_relu", "leaky_relu", {"alpha": 0.1}, [x], lambda t: F.leaky_relu(t, 0.1))
case("elu", "elu", {"alpha": 0.7}, [x], lambda t: F.elu(t, 0.7))
case("hardswish", "hardswish", {}, [rnd(-5, 5, 12)], F.hardswish)
# torch's hardsigmoid is Paddle's: slope 1/6, offset 0.5
case("hardsigmoid", "hardsigmoid", {"alpha": 1 / 6, "beta": 0.5}, [rnd(-5, 5, 12)], F.hardsigmoid)
case("softplus", "softplus", {"beta": 2.0, "threshold": 4.0}, [x], lambda t: F.softplus(t, 2.0, 4.0))
case("softplus_default", "softplus", {}, [x], F.softplus)
case("silu", "silu", {}, [x], F.silu)
case("gelu", "gelu", {"approximate": "none"}, [x], F.gelu)
case("gelu_tanh", "gelu", {"approximate": "tanh"}, [x], lambda t: F.gelu(t, approximate="tanh"))

# softmax
x3 = rnd(-3, 3, 2, 3, 4)
case("softmax_last", "softmax", {"axis": -1}, [x3], lambda t: F.softmax(t, -1))
case("softmax_mid", "softmax", {"axis": 1}, [x3], lambda t: F.softmax(t, 1))
case("log_softmax_last", "log_softmax", {"axis": -1}, [x3], lambda t: F.log_softmax(t, -1))
case("log_softmax_first", "log_softmax", {"axis": 0}, [x3], lambda t: F.log_softmax(t, 0))

# reductions (amax/amin split the gradient evenly among ties)
case("max", "max", {"axes": [0, 2], "keepdims": False}, [x3], lambda t: torch.amax(t, (0, 2)))
ties = torch.tensor([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.5, 2.0], [0.0, -4.0, 0.25, -4.0]])
case("max_ties", "max", {"axes": [1], "keepdims": True}, [ties], lambda t: torch.amax(t, 1, keepdim=True))
case("min_ties", "min", {"axes": [1], "keepdims": False}, [ties], lambda t: torch.amin(t, 1))
case("min_all", "min", {"keepdims": False}, [x3], torch.amin)
xz = x3.clone()
xz[0, 1, 2] = 0.0
case("prod", "prod", {"axes": [1], "keepdims": False}, [xz], lambda t: torch.prod(t, 1))
case("prod_all", "prod", {"keepdims": True}, [rnd(0.5, 1.5, 2, 3)], lambda t: torch.prod(t).reshape(1, 1))
case("reduce_l2", "reduce_l2", {"axes": [1, 2], "keepdims": True}, [x3],
     lambda t: torch.linalg.vector_norm(t, 2, (1, 2), keepdim=True))
case("reduce_l2_outer", "reduce_l2", {"axes": [0, 2], "keepdims": False}, [x3],
     lambda t: torch.linalg.vector_norm(t, 2, (0, 2)))
case("argmax", "argmax", {"axis": 1, "keepdims": False}, [ties], lambda t: torch.argmax(t, 1), grad=False)
case("argmin", "argmin", {"axis": 0, "keepdims": True}, [x3], lambda t: torch.argmin(t, 0, keepdim=True), grad=False)
case("topk_largest", "topk", {"k": 2, "axis": 1, "largest": True}, [x3],
     lambda t: tuple(torch.topk(t, 2, 1, largest=True, sorted=True)))
case("topk_smallest", "topk", {"k": 3, "axis": -1, "largest": False}, [x3],
     lambda t: tuple(torch.topk(t, 3, -1, largest=False, sorted=True)))
case("cumsum", "cumsum", {"axis": 1}, [x3], lambda t: torch.cumsum(t, 1))
case("cumsum_exclusive", "cumsum", {"axis": 2, "exclusive": True}, [x3],
     lambda t: torch.cumsum(t, 2) - t)
case("cumsum_reverse", "cumsum", {"axis": 0, "reverse": True}, [x3],
     lambda t: torch.flip(torch.cumsum(torch.flip(t, [0]), 0), [0]))
case("cumsum_exclusive_reverse", "cumsum", {"axis": -1, "exclusive": True, "reverse": True}, [x3],
     lambda t: torch.flip(torch.cumsum(torch.flip(t, [2]), 2), [2]) - t)

path = os.path.join(ROOT, "core", "op", "testdata", "math_torch.json")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print("wrote", os.path.relpath(path, ROOT), os.path.getsize(path), "bytes,", len(cases), "cases")
