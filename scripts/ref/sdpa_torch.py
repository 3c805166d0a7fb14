#!/usr/bin/python3
"""Reference values for nn.ScaledDotProductAttention from PyTorch (Debian python3-torch).

Run from the repository root:  /usr/bin/python3 scripts/ref/sdpa_torch.py
Writes core/nn/testdata/sdpa_torch.json. torch 1.13 (Debian) has no
F.scaled_dot_product_attention, so the reference is its documented formula
written with torch ops:  softmax(q @ k^T * scale + mask) @ v, where a bool
mask is True for pairs that may NOT attend (nn.MultiheadAttention's
convention) and causal masks key j > query i. Each case stores the inputs,
the output, the weights, an upstream gradient R and dL/dq, dL/dk, dL/dv of
L = sum(out * R). Seeds are fixed, so reruns give the same file.
"""
import json
import math
import os

import torch

torch.set_default_dtype(torch.float64)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def t2j(t):
    t = torch.as_tensor(t).detach()
    return {"shape": list(t.shape), "data": t.reshape(-1).double().tolist()}


def sdpa(q, k, v, mask=None, causal=False, scale=None):
    d = q.shape[-1]
    scale = 1 / math.sqrt(d) if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    if causal:
        l, n = s.shape[-2], s.shape[-1]
        s = s.masked_fill(torch.ones(l, n, dtype=torch.bool).triu(1), float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            s = s.masked_fill(mask, float("-inf"))
        else:
            s = s + mask
    w = torch.softmax(s, -1)
    return w @ v, w


def case(name, qs, ks, vs, mask=None, causal=False, scale=None):
    q = torch.randn(*qs, requires_grad=True)
    k = torch.randn(*ks, requires_grad=True)
    v = torch.randn(*vs, requires_grad=True)
    y, w = sdpa(q, k, v, mask, causal, scale)
    r = torch.randn(*y.shape)
    (y * r).sum().backward()
    c = {"q": t2j(q), "k": t2j(k), "v": t2j(v), "y": t2j(y), "w": t2j(w), "r": t2j(r),
         "dq": t2j(q.grad), "dk": t2j(k.grad), "dv": t2j(v.grad), "causal": causal,
         "scale": scale or 0.0}
    if mask is not None:
        c["mask"] = t2j(mask)
        c["mask_bool"] = mask.dtype == torch.bool
    return name, c


def main():
    torch.manual_seed(11)
    res = {}
    # (N, H, L, D) with a key-padding bool mask broadcast from (N, 1, 1, S)
    pad = torch.tensor([False, False, False, True, True, False, False, False, False, False]).reshape(2, 1, 1, 5)
    for name, c in [
        case("pad_bool_4d", (2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6), mask=pad),
        case("causal_4d", (2, 2, 4, 4), (2, 2, 4, 4), (2, 2, 4, 3), causal=True),
        case("additive_3d", (3, 4, 5), (3, 6, 5), (3, 6, 2), mask=torch.randn(4, 6)),
        case("plain_scale", (2, 3, 8), (2, 7, 8), (2, 7, 8), scale=0.5),
    ]:
        res[name] = c
    path = os.path.join(ROOT, "core", "nn", "testdata", "sdpa_torch.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "cases": res}, f, separators=(",", ":"))
    print("wrote", os.path.relpath(path, ROOT), os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
