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

# ---------------------------------------------------------------- nn
def sd(m, prefix=""):
    """state dict (params and buffers) in torch names, as {name: tensor json}"""
    return {prefix + k: t2j(v) for k, v in m.state_dict().items()}


def mha_sd(m, prefix=""):
    """nn.MultiheadAttention's weights in q_proj/k_proj/v_proj/out_proj form"""
    e = m.embed_dim
    w, b = m.in_proj_weight, m.in_proj_bias
    out = {}
    for i, n in enumerate(["q_proj", "k_proj", "v_proj"]):
        out[prefix + n + ".weight"] = t2j(w[i * e:(i + 1) * e])
        out[prefix + n + ".bias"] = t2j(b[i * e:(i + 1) * e])
    out[prefix + "out_proj.weight"] = t2j(m.out_proj.weight)
    out[prefix + "out_proj.bias"] = t2j(m.out_proj.bias)
    return out


def grads(named):
    return {k: t2j(v.grad) for k, v in named}


def rnn_refs():
    res = {}
    for kind, cls in [("lstm", torch.nn.LSTM), ("gru", torch.nn.GRU)]:
        torch.manual_seed(1)
        m = cls(input_size=3, hidden_size=4, num_layers=2, bidirectional=True, batch_first=True)
        x = torch.randn(2, 5, 3, requires_grad=True)
        h0 = torch.randn(4, 2, 4)
        if kind == "lstm":
            c0 = torch.randn(4, 2, 4)
            y, (hn, cn) = m(x, (h0, c0))
        else:
            c0 = None
            y, hn = m(x, h0)
            cn = None
        up = torch.randn_like(y)
        loss = (y * up).sum() + hn.sum()
        loss.backward()
        case = {"params": sd(m), "x": t2j(x), "h0": t2j(h0), "y": t2j(y), "hn": t2j(hn), "up": t2j(up),
                "dx": t2j(x.grad), "grads": grads(m.named_parameters())}
        if c0 is not None:
            case["c0"], case["cn"] = t2j(c0), t2j(cn)
        res[kind] = case

        # variable lengths through a packed sequence (batch-first, unsorted lengths)
        lengths = torch.tensor([3, 5])
        x2 = x.detach().clone().requires_grad_(True)
        m.zero_grad()
        packed = torch.nn.utils.rnn.pack_padded_sequence(x2, lengths, batch_first=True, enforce_sorted=False)
        if kind == "lstm":
            yp, (hn, cn) = m(packed, (h0, c0))
        else:
            yp, hn = m(packed, h0)
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(yp, batch_first=True, total_length=5)
        loss = (y * up).sum() + hn.sum()
        loss.backward()
        case = dict(case, lengths=lengths.tolist(), y=t2j(y), hn=t2j(hn), dx=t2j(x2.grad),
                    grads=grads(m.named_parameters()))
        if kind == "lstm":
            case["cn"] = t2j(cn)
        res[kind + "_len"] = case
    dump("nn", "rnn_torch", res)


def attention_refs():
    torch.manual_seed(2)
    n, l, e, h = 2, 4, 8, 2
    m = torch.nn.MultiheadAttention(e, h, batch_first=True)
    q = torch.randn(n, l, e, requires_grad=True)
    kv = torch.randn(n, 5, e)
    pad = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
    y, w = m(q, kv, kv, key_padding_mask=pad)
    causal = torch.triu(torch.ones(l, l, dtype=torch.bool), diagonal=1)
    y2, w2 = m(q, q, q, attn_mask=causal)
    loss = y.sum() + (y2 * y2).sum()
    loss.backward()
    res = {"mha": {"params": mha_sd(m), "q": t2j(q), "kv": t2j(kv), "pad": t2j(pad.double()),
                   "y_pad": t2j(y), "w_pad": t2j(w), "y_causal": t2j(y2), "w_causal": t2j(w2),
                   "dq": t2j(q.grad)}}
    for name, first in [("enc_post", False), ("enc_pre", True)]:
        torch.manual_seed(3)
        layer = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0,
                                                 activation="gelu" if first else "relu",
                                                 batch_first=True, norm_first=first)
        x = torch.randn(2, 4, 8)
        pad = torch.tensor([[False, False, False, True], [False] * 4])
        y = layer(x, src_key_padding_mask=pad)
        p = {k: v for k, v in sd(layer).items() if not k.startswith("self_attn.")}
        p.update(mha_sd(layer.self_attn, "self_attn."))
        res[name] = {"params": p, "x": t2j(x), "pad": t2j(pad.double()), "y": t2j(y)}
    dump("nn", "attention_torch", res)


def loss_refs():
    torch.manual_seed(4)
    res = {}
    logits = torch.randn(6, 5, requires_grad=True)
    labels = torch.tensor([0, 4, -100, 2, 2, 1])
    w = torch.tensor([1.0, 2.0, 0.5, 1.5, 3.0])
    cases = [("plain", {}), ("smooth", dict(label_smoothing=0.1)),
             ("weighted", dict(weight=w)), ("weighted_smooth", dict(weight=w, label_smoothing=0.2)),
             ("sum", dict(weight=w, label_smoothing=0.2, reduction="sum")),
             ("none", dict(weight=w, label_smoothing=0.2, reduction="none"))]
    ce = {"logits": t2j(logits), "labels": labels.tolist(), "weight": w.tolist(), "cases": {}}
    for name, kw in cases:
        logits.grad = None
        l = F.cross_entropy(logits, labels, **kw)
        l.sum().backward()
        kw = {k: (v.tolist() if torch.is_tensor(v) else v) for k, v in kw.items()}
        ce["cases"][name] = {"kw": kw, "loss": t2j(l), "grad": t2j(logits.grad)}
    # (N, C, d) layout with ignore_index
    lg = torch.randn(2, 3, 4, requires_grad=True)
    lb = torch.tensor([[0, 1, 2, -100], [2, 2, -100, 1]])
    l = F.cross_entropy(lg, lb, weight=torch.tensor([0.2, 1.0, 3.0]), label_smoothing=0.05)
    l.backward()
    ce["spatial"] = {"logits": t2j(lg), "labels": lb.reshape(-1).tolist(), "weight": [0.2, 1.0, 3.0],
                     "label_smoothing": 0.05, "loss": float(l), "grad": t2j(lg.grad)}
    res["cross_entropy"] = ce

    x = torch.randn(3, 4) * 3
    y = (torch.rand(3, 4) > 0.5).double()
    pw = torch.tensor([1.0, 2.0, 0.5, 3.0])
    res["bce"] = {"x": t2j(x), "y": t2j(y), "pos_weight": pw.tolist(),
                  "plain": float(F.binary_cross_entropy_with_logits(x, y)),
                  "pos": float(F.binary_cross_entropy_with_logits(x, y, pos_weight=pw))}
    # torchvision.ops.sigmoid_focal_loss, written out (torchvision is not packaged here)
    p = torch.sigmoid(x)
    ce_l = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    p_t = p * y + (1 - p) * (1 - y)
    a_t = 0.25 * y + 0.75 * (1 - y)
    res["focal"] = float((a_t * ce_l * (1 - p_t) ** 2).mean())
    a = torch.randn(10)
    b = torch.randn(10)
    res["smooth_l1"] = {"a": a.tolist(), "b": b.tolist(), "beta": 0.7,
                        "loss": float(F.smooth_l1_loss(a, b, beta=0.7)), "l1": float(F.l1_loss(a, b)),
                        "mse": float(F.mse_loss(a, b))}

    # CTC: log_softmax of random logits, padded targets, mean reduction
    t_, n_, c_ = 12, 3, 5
    logits = torch.randn(t_, n_, c_, requires_grad=True)
    lp = logits.log_softmax(2)
    lp.retain_grad()
    targets = torch.tensor([[1, 2, 2, 3], [4, 4, 0, 0], [1, 3, 2, 0]])
    il = torch.tensor([12, 9, 7])
    tl = torch.tensor([4, 2, 3])
    loss = F.ctc_loss(lp, targets, il, tl, blank=0, reduction="mean")
    loss.backward()
    per = F.ctc_loss(lp.detach(), targets, il, tl, blank=0, reduction="none")
    res["ctc"] = {"logits": t2j(logits), "targets": t2j(targets), "input_lengths": il.tolist(),
                  "target_lengths": tl.tolist(), "mean": float(loss), "none": per.tolist(),
                  "dlogits": t2j(logits.grad)}
    dump("nn", "loss_torch", res)


def norm_refs():
    torch.manual_seed(5)
    res = {}
    bn = torch.nn.BatchNorm2d(3, momentum=0.2)
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.0, 0.5, 2.0]))
        bn.bias.copy_(torch.tensor([0.0, 0.1, -0.3]))
    x1 = torch.randn(2, 3, 2, 3, requires_grad=True)
    x2 = torch.randn(2, 3, 2, 3)
    bn.train()
    y1 = bn(x1)
    up = torch.randn_like(y1)
    (y1 * up).sum().backward()
    y2 = bn(x2)
    bn.eval()
    y3 = bn(x2)
    res["bn2d"] = {"weight": bn.weight.tolist(), "bias": bn.bias.tolist(), "momentum": 0.2,
                   "x1": t2j(x1), "x2": t2j(x2), "y1": t2j(y1), "up": t2j(up), "dx1": t2j(x1.grad),
                   "dweight": bn.weight.grad.tolist(), "y2": t2j(y2), "y3_eval": t2j(y3),
                   "running_mean": bn.running_mean.tolist(), "running_var": bn.running_var.tolist()}
    ln = torch.nn.LayerNorm([3, 4])
    with torch.no_grad():
        ln.weight.copy_(torch.randn(3, 4))
        ln.bias.copy_(torch.randn(3, 4))
    x = torch.randn(2, 3, 4)
    res["ln"] = {"params": sd(ln), "x": t2j(x), "y": t2j(ln(x))}
    gn = torch.nn.GroupNorm(2, 4)
    with torch.no_grad():
        gn.weight.copy_(torch.randn(4))
        gn.bias.copy_(torch.randn(4))
    x = torch.randn(2, 4, 3, 2)
    res["gn"] = {"params": sd(gn), "x": t2j(x), "y": t2j(gn(x))}
    dump("nn", "norm_torch", res)



def layer_refs():
    torch.manual_seed(6)
    res = {}
    x = torch.randn(2, 4, 7, 6)
    convs = {
        "conv_groups": (torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), x),
        "conv_depthwise": (torch.nn.Conv2d(4, 8, (3, 2), padding=(1, 0), dilation=(2, 1), groups=4), x),
        "conv_t": (torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), x),
        "conv1d": (torch.nn.Conv1d(4, 5, 3, stride=2, padding=2), torch.randn(2, 4, 9)),
    }
    for name, (m, xi) in convs.items():
        xi = xi.clone().requires_grad_(True)
        y = m(xi)
        up = torch.randn_like(y)
        (y * up).sum().backward()
        res[name] = {"params": sd(m), "x": t2j(xi), "y": t2j(y), "up": t2j(up), "dx": t2j(xi.grad),
                     "grads": grads(m.named_parameters())}
    pools = {
        "maxpool": torch.nn.MaxPool2d(3, stride=2, padding=1),
        "maxpool_ceil": torch.nn.MaxPool2d(2, ceil_mode=True),
        "avgpool": torch.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
        "avgpool_incl": torch.nn.AvgPool2d(3, stride=2, padding=1),
        "adaptive": torch.nn.AdaptiveAvgPool2d((2, 4)),
        "up_nearest": torch.nn.Upsample(scale_factor=2, mode="nearest"),
        "up_bilinear": torch.nn.Upsample(size=(5, 9), mode="bilinear", align_corners=False),
        "up_bilinear_ac": torch.nn.Upsample(scale_factor=1.5, mode="bilinear", align_corners=True),
    }
    xp = torch.randn(1, 2, 7, 6)
    for name, m in pools.items():
        res[name] = {"x": t2j(xp), "y": t2j(m(xp))}
    emb = torch.nn.Embedding(6, 3, padding_idx=2)
    ids = torch.tensor([[0, 2, 5], [2, 1, 1]])
    y = emb(ids)
    (y * torch.arange(18.0).reshape(2, 3, 3)).sum().backward()
    res["embedding"] = {"params": sd(emb), "ids": t2j(ids), "y": t2j(y), "dweight": t2j(emb.weight.grad)}
    dump("nn", "layers_torch", res)


if __name__ == "__main__":
    torch.manual_seed(0)
    optim_refs()
    rnn_refs()
    attention_refs()
    loss_refs()
    norm_refs()
    layer_refs()
