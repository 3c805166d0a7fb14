#!/usr/bin/env python3
"""Reference values for the seg kit's losses (kits/seg/loss.go).

Run with Debian's python3-torch:  /usr/bin/python3 scripts/ref/seg_losses_torch.py
Writes kits/seg/testdata/losses_torch.json: inputs, each loss and its
gradient with respect to the logits, in float64.

The losses follow PaddleSeg (paddleseg/models/losses, develop):
- CrossEntropyLoss(weight, ignore_index=255): per-pixel F.cross_entropy with
  class weights, then mean(loss*mask) / mean(mask*weight[label]) — the
  weighted mean torch's F.cross_entropy(weight=..., ignore_index=255) gives
  (PaddleSeg's EPS of 1e-8 in the denominator aside);
- OhemCrossEntropyLoss(thresh, min_kept): transcribed below;
- DiceLoss(smooth=1): softmax, one-hot labels, both masked, per image and
  class 1 - (2*I + smooth) / (card + smooth + 1e-8), mean over images, summed
  over classes (times weights) and divided by the class count.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(7)
N, C, H, W = 2, 3, 4, 5
IGN = 255
logits = (torch.randn(N, C, H, W, dtype=torch.float64) * 1.5)
labels = torch.randint(0, C, (N, H, W))
labels[0, 0, :3] = IGN
labels[1, 2, 1] = IGN
weight = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)


def grad_of(fn):
    x = logits.clone().requires_grad_(True)
    loss = fn(x)
    loss.backward()
    return loss.item(), x.grad.flatten().tolist()


def ce(x, w=None):
    return F.cross_entropy(x, labels, weight=w, ignore_index=IGN)


def ohem(x, thresh, min_kept):
    n, c, h, w = x.shape
    label = labels.reshape(-1).clone()
    valid = (label != IGN).long()
    num_valid = int(valid.sum())
    label = label * valid
    prob = F.softmax(x, dim=1).detach().permute(1, 0, 2, 3).reshape(c, -1)
    if min_kept < num_valid and num_valid > 0:
        prob = prob + (1 - valid)
        onehot = F.one_hot(label, c).T.double()
        prob = (prob * onehot).sum(0)
        threshold = thresh
        if min_kept > 0:
            index = prob.argsort()
            ti = index[min(len(index), min_kept) - 1]
            if prob[ti] > thresh:
                threshold = prob[ti].item()
            kept = (prob < threshold).long()
            label = label * kept
            valid = valid * kept
    label = label + (1 - valid) * IGN
    loss = F.cross_entropy(x, label.reshape(n, h, w), ignore_index=IGN, reduction='none').reshape(-1)
    mask = valid.double()
    return (loss * mask).mean() / (mask.mean() + 1e-8)


def dice(x, w=None, smooth=1.0):
    n, c = x.shape[:2]
    mask = labels != IGN
    lab = torch.where(mask, labels, torch.zeros_like(labels))
    onehot = F.one_hot(lab, c).permute(0, 3, 1, 2).double()
    p = F.softmax(x, dim=1)
    m = mask.unsqueeze(1).double()
    total = 0.0
    for i in range(c):
        pi = (p[:, i] * m[:, 0]).reshape(n, -1)
        yi = (onehot[:, i] * m[:, 0]).reshape(n, -1)
        inter = (pi * yi).sum(1)
        card = (pi + yi).sum(1)
        d = (1 - (2 * inter + smooth) / (card + smooth + 1e-8)).mean()
        if w is not None:
            d = d * w[i]
        total = total + d
    return total / c


cases = {
    "ce": grad_of(lambda x: ce(x)),
    "ce_weighted": grad_of(lambda x: ce(x, weight)),
    "ohem_t07_k10": grad_of(lambda x: ohem(x, 0.7, 10)),
    "ohem_t02_k30": grad_of(lambda x: ohem(x, 0.2, 30)),
    "ohem_all_kept": grad_of(lambda x: ohem(x, 0.7, 1000)),
    "dice": grad_of(lambda x: dice(x)),
    "dice_weighted": grad_of(lambda x: dice(x, weight)),
}
out = {
    "shape": [N, C, H, W],
    "logits": logits.flatten().tolist(),
    "labels": labels.flatten().tolist(),
    "weight": weight.tolist(),
    "cases": {k: {"loss": v[0], "grad": v[1]} for k, v in cases.items()},
}
path = os.path.join(os.path.dirname(__file__), "..", "..", "kits", "seg", "testdata", "losses_torch.json")
with open(path, "w") as f:
    json.dump(out, f)
print("wrote", os.path.normpath(path), {k: round(v[0], 6) for k, v in cases.items()})
