"""Reference values for paddle's movement/indexing ops (core/op/index_test.go).

Run with the Debian PyTorch:  /usr/bin/python3 scripts/ref/index_torch.py
Writes core/op/testdata/index_torch.json: per case the op name and attributes
as paddle's op registry takes them, the inputs, a random upstream gradient per
output, and PyTorch's outputs and input gradients (float64).
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
cases = []


def t(x):
    return {"dtype": str(x.dtype).replace("torch.", ""), "shape": list(x.shape),
            "data": x.detach().reshape(-1).tolist()}


def case(name, op, attrs, inputs, fn, grad_inputs):
    """fn(*inputs) -> output(s); grad_inputs: indices of inputs that get gradients."""
    ins = [x.clone().requires_grad_(i in grad_inputs) for i, x in enumerate(inputs)]
    outs = fn(*ins)
    if not isinstance(outs, tuple):
        outs = (outs,)
    ups = [torch.rand(o.shape, dtype=torch.float64) * 2 - 1 if o.dtype.is_floating_point else None for o in outs]
    loss = sum((o * u).sum() for o, u in zip(outs, ups) if u is not None)
    loss.backward()
    cases.append({
        "name": name, "op": op, "attrs": attrs,
        "inputs": [t(x) for x in inputs],
        "upstream": [t(u) if u is not None else None for u in ups],
        "outputs": [t(o) for o in outs],
        "grads": [t(x.grad) if i in grad_inputs else None for i, x in enumerate(ins)],
    })


def rnd(*shape):
    return torch.rand(shape, dtype=torch.float64) * 2 - 1


x4 = rnd(2, 3, 4, 5)
# torch pads the last axis first: (left, right, top, bottom); ONNX pads are begins then ends
case("pad_reflect", "pad", {"pads": [0, 0, 1, 2, 0, 0, 3, 1], "mode": "reflect"}, [x4],
     lambda x: F.pad(x, (2, 1, 1, 3), mode="reflect"), [0])
case("pad_replicate", "pad", {"pads": [0, 0, 4, 2, 0, 0, 1, 6], "mode": "edge"}, [x4],
     lambda x: F.pad(x, (2, 6, 4, 1), mode="replicate"), [0])
case("pad_circular", "pad", {"pads": [0, 0, 2, 1, 0, 0, 1, 3], "mode": "wrap"}, [x4],
     lambda x: F.pad(x, (1, 3, 2, 1), mode="circular"), [0])
case("pad_constant", "pad", {"pads": [1, 2, 0, 2, 0, 0, 1, 0], "mode": "constant", "value": 0.5}, [x4],
     lambda x: F.pad(x, (2, 0, 0, 1, 2, 0, 1, 0), value=0.5), [0])

x = rnd(4, 5, 3)
idx = torch.tensor([[1, -1, 0], [4, 2, -5]])
case("gather_axis1", "gather", {"axis": 1}, [x, idx], lambda a, i: a[:, i], [0])
case("gather_axis_last", "gather", {"axis": -1}, [x, torch.tensor([2, 2, 0, -2])],
     lambda a, i: a[..., i], [0])
case("index_select", "gather", {"axis": 0}, [x, torch.tensor([3, 0, 3, 1])],
     lambda a, i: torch.index_select(a, 0, i), [0])
ge_idx = torch.randint(0, 5, (3, 4, 3))
case("gather_elements", "gather_elements", {"axis": 1}, [x, ge_idx],
     lambda a, i: torch.gather(a, 1, i), [0])
sa_idx = torch.randint(0, 4, (3, 5, 2))
case("scatter_add", "scatter_add", {"axis": 0}, [x, sa_idx, rnd(3, 5, 2)],
     lambda a, i, s: torch.scatter_add(a, 0, i, s), [0, 2])

w = rnd(7, 4)
ids = torch.tensor([[0, 6, 3], [3, 3, 1]])
case("embedding", "embedding", {}, [ids, w], lambda i, ww: F.embedding(i, ww), [1])
wp = w.clone()
wp[3] = 0  # torch keeps the padding row's value; paddle outputs zeros: equal when that row is zero
case("embedding_padding", "embedding", {"padding_idx": 3}, [ids, wp],
     lambda i, ww: F.embedding(i, ww, padding_idx=3), [1])

data = rnd(9, 2, 3)
seg = torch.tensor([3, 0, 3, 1, 0, 0, 3, 1, 0])  # unsorted; segment 2 is empty
S = 4


def seg_reduce(reduce):
    def f(d, s):
        index = s.view(-1, 1, 1).expand_as(d)
        return torch.zeros(S, 2, 3, dtype=d.dtype).scatter_reduce(0, index, d, reduce=reduce, include_self=False)
    return f


case("segment_sum", "segment_sum", {"num_segments": S}, [data, seg],
     lambda d, s: torch.zeros(S, 2, 3, dtype=d.dtype).index_add(0, s, d), [0])
case("segment_mean", "segment_mean", {"num_segments": S}, [data, seg], seg_reduce("mean"), [0])
case("segment_max", "segment_max", {"num_segments": S}, [data, seg], seg_reduce("amax"), [0])
case("tile", "tile", {"repeats": [2, 1, 3]}, [rnd(2, 3, 2)], lambda a: a.repeat(2, 1, 3), [0])

out = os.path.join(os.path.dirname(__file__), "..", "..", "core", "op", "testdata", "index_torch.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f)
print("wrote", len(cases), "cases to", os.path.normpath(out))
