#!/usr/bin/python3
"""Reference values for core/nn and core/optim from PyTorch (Debian python3-torch).

Run from the repository root:  /usr/bin/python3 scripts/ref/nn_torch.py
It writes small JSON files to core/nn/testdata and core/optim/testdata: the
inputs, the weights each layer used (PyTorch names and layouts) and the
outputs/gradients. Seeds are fixed, so reruns give the same files.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)  # references in float64; Go compares float32/float64
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def t2j(t):
    t = torch.as_tensor(t).detach()
    return {"shape": list(t.shape), "data": t.reshape(-1).tolist()}


def dump(pkg, name, obj):
    path = os.path.join(ROOT, "core", pkg, "testdata", name + ".json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print("wrote", os.path.relpath(path, ROOT), os.path.getsize(path), "bytes")


# ---------------------------------------------------------------- optim
def optim_refs():
    # a 2-element parameter; the gradient at each step is a·p + b (a fixed linear field)
    a = torch.tensor([0.5, 1.5])
    b = torch.tensor([0.3, -0.7])
    cases = {
        "sgd": (torch.optim.SGD, dict(lr=0.1)),
        "sgd_momentum": (torch.optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
        "sgd_nesterov": (torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
        "adam": (torch.optim.Adam, dict(lr=0.1, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1)),
        "adamw": (torch.optim.AdamW, dict(lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.1)),
        "rmsprop": (torch.optim.RMSprop, dict(lr=0.01, alpha=0.9, eps=1e-8)),
        "rmsprop_centered": (torch.optim.RMSprop, dict(lr=0.01, alpha=0.9, eps=1e-6, momentum=0.5,
                                                       centered=True, weight_decay=0.1)),
    }
    out = {"a": a.tolist(), "b": b.tolist(), "p0": [1.0, -2.0], "cases": {}}
    for name, (cls, kw) in cases.items():
        p = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        opt = cls([p], **kw)
        traj = []
        for _ in range(3):
            opt.zero_grad()
            p.grad = (a * p + b).detach()
            opt.step()
            traj.append(p.detach().tolist())
        kw = {k: (list(v) if isinstance(v, tuple) else v) for k, v in kw.items()}
        out["cases"][name] = {"options": kw, "trajectory": traj}
    # global-norm clipping of two gradients
    p1 = torch.nn.Parameter(torch.zeros(3))
    p2 = torch.nn.Parameter(torch.zeros(2, 2))
    p1.grad = torch.tensor([3.0, -4.0, 1.0])
    p2.grad = torch.tensor([[2.0, 0.5], [-1.0, 2.5]])
    norm = torch.nn.utils.clip_grad_norm_([p1, p2], 2.0)
    out["clip"] = {"max_norm": 2.0, "norm": float(norm), "g1": p1.grad.tolist(), "g2": p2.grad.reshape(-1).tolist()}
    # schedules
    sched = {}
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=50)
    lrs = []
    for _ in range(50):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        s.step()
    sched["onecycle"] = {"max_lr": 0.1, "total_steps": 50, "lr": lrs}
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20, eta_min=0.001)
    lrs = []
    for _ in range(21):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        s.step()
    sched["cosine"] = {"lr0": 0.1, "t_max": 20, "eta_min": 0.001, "lr": lrs}
    out["schedules"] = sched
    dump("optim", "optim_torch", out)


if __name__ == "__main__":
    torch.manual_seed(0)
    optim_refs()
