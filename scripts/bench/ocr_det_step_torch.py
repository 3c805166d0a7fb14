#!/usr/bin/python3
"""ocr_det_step_torch.py — one detection training step in PyTorch (CPU), the
same DB network and step as scripts/bench/ocr_det_step
(configs/ocr/det_db_lcnet.yaml):

  backbone  PP-LCNet x0.25 (core/zoo): conv3x3/2 3->8 + BN + hardswish, then
            depthwise-separable blocks (dw kxk + BN + hardswish, SE on the last
            two, pw 1x1 + BN + hardswish) 8-8 | 8-16/2, 16-16 | 16-32/2, 32-32 |
            32-64/2, 5x 64-64 (5x5) | 64-128/2 (5x5, SE), 128-128 (5x5, SE);
            the stage outputs at strides 4, 8, 16, 32 (16, 32, 64, 128 channels)
  neck      DBFPN 48: 1x1 laterals (no bias), top-down nearest x2 and add,
            3x3 convs to 12 (no bias), upsampled to stride 4 and concatenated
  head      DBHead k 50: two branches of conv3x3 48->12 (no bias) + BN + ReLU,
            convT 2x2/2 12->12 + BN + ReLU, convT 2x2/2 12->1, sigmoid;
            binary = sigmoid(50 (P - T))
  loss      DBLoss: 5 x balanced BCE with OHEM 3:1 on P + 10 x masked L1 on T +
            dice on the binary map
  optimizer Adam lr 1e-3, gradient clip-norm 5

on a random batch (default 8 x 3x640x640, 8 random text boxes per image).
Prints one JSON line like the Go command.

  /usr/bin/python3 scripts/bench/ocr_det_step_torch.py --threads 2 --seconds 10
"""
import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

from steptime import time_steps


def conv_bn(cin, cout, k, stride=1, groups=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.Hardswish())


class SE(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.down, self.up = nn.Conv2d(c, c // 4, 1), nn.Conv2d(c // 4, c, 1)

    def forward(self, x):
        w = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.up(F.relu(self.down(w))))


class Block(nn.Module):
    def __init__(self, k, cin, cout, stride, se):
        super().__init__()
        self.dw = conv_bn(cin, cin, k, stride, cin)
        self.se = SE(cin) if se else nn.Identity()
        self.pw = conv_bn(cin, cout, 1)

    def forward(self, x):
        return self.pw(self.se(self.dw(x)))


STAGES = [[(3, 8, 8, 1, False)],
          [(3, 8, 16, 2, False), (3, 16, 16, 1, False)],
          [(3, 16, 32, 2, False), (3, 32, 32, 1, False)],
          [(3, 32, 64, 2, False)] + [(5, 64, 64, 1, False)] * 5,
          [(5, 64, 128, 2, True), (5, 128, 128, 1, True)]]


class PPLCNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 8, 3, 2)
        self.stages = nn.ModuleList(nn.Sequential(*[Block(*b) for b in s]) for s in STAGES)

    def forward(self, x):
        x, outs = self.stem(x), []
        for i, s in enumerate(self.stages):
            x = s(x)
            if i > 0:
                outs.append(x)
        return outs


class DBFPN(nn.Module):
    def __init__(self, cins=(16, 32, 64, 128), out=48):
        super().__init__()
        self.ins = nn.ModuleList(nn.Conv2d(c, out, 1, bias=False) for c in cins)
        self.outs = nn.ModuleList(nn.Conv2d(out, out // 4, 3, padding=1, bias=False) for _ in cins)

    def forward(self, xs):
        up = lambda x, s: F.interpolate(x, scale_factor=s, mode="nearest")
        in2, in3, in4, in5 = (c(x) for c, x in zip(self.ins, xs))
        out4 = in4 + up(in5, 2)
        out3 = in3 + up(out4, 2)
        out2 = in2 + up(out3, 2)
        p5 = up(self.outs[3](in5), 8)
        p4 = up(self.outs[2](out4), 4)
        p3 = up(self.outs[1](out3), 2)
        return torch.cat([p5, p4, p3, self.outs[0](out2)], 1)


def branch(c):
    q = c // 4
    return nn.Sequential(nn.Conv2d(c, q, 3, padding=1, bias=False), nn.BatchNorm2d(q), nn.ReLU(),
                         nn.ConvTranspose2d(q, q, 2, 2), nn.BatchNorm2d(q), nn.ReLU(),
                         nn.ConvTranspose2d(q, 1, 2, 2), nn.Sigmoid())


class DBNet(nn.Module):
    def __init__(self, k=50):
        super().__init__()
        self.backbone, self.neck = PPLCNet(), DBFPN()
        self.binarize, self.thresh, self.k = branch(48), branch(48), k

    def forward(self, x):
        f = self.neck(self.backbone(x))
        p, t = self.binarize(f), self.thresh(f)
        return torch.cat([p, t, torch.sigmoid(self.k * (p - t))], 1)


def db_loss(maps, gs, ms, gt, mt, eps=1e-6):
    p, t, b = maps[:, 0], maps[:, 1], maps[:, 2]
    pos, negm = gs * ms, (1 - gs) * ms
    npos = int(pos.sum())
    nneg = int(min(float(negm.sum()), npos * 3))
    bce = F.binary_cross_entropy(p.clamp(1e-7, 1 - 1e-7), gs, reduction="none")
    negl = (bce * negm).flatten()
    top = torch.topk(negl, nneg).values if nneg > 0 else negl[:0]
    ls = ((bce * pos).sum() + top.sum()) / (npos + nneg + eps)
    l1 = ((t - gt).abs() * mt).sum() / (mt.sum() + eps)
    inter = (b * gs * ms).sum()
    dice = 1 - 2 * inter / ((b * ms).sum() + (gs * ms).sum() + eps)
    return 5 * ls + 10 * l1 + dice


def random_labels(n, h, w, k, rng):
    gs, gt, mt = torch.zeros(n, h, w), torch.full((n, h, w), 0.3), torch.zeros(n, h, w)
    for i in range(n):
        for _ in range(k):
            bh = 16 + rng.random() * 32
            bw = min(bh * (3 + 9 * rng.random()), w - 2)
            x, y = rng.random() * (w - bw - 1), rng.random() * (h - bh - 1)
            d = int(bh * bw * 0.84 / (2 * (bh + bw)))
            x0, y0, x1, y1 = int(x), int(y), int(x + bw), int(y + bh)
            gs[i, y0 + d:y1 - d, x0 + d:x1 - d] = 1
            mt[i, max(y0 - d, 0):y1 + d, max(x0 - d, 0):x1 + d] = 1
            gt[i, y0:y1, x0:x1] = 0.7
    return gs, torch.ones(n, h, w), gt, mt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--size", type=int, default=640)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = DBNet()
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.rand(a.batch, 3, a.size, a.size) * 4 - 2
    labels = random_labels(a.batch, a.size, a.size, 8, random.Random(2))

    def step():
        opt.zero_grad()
        loss = db_loss(model(x), *labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5)
        opt.step()

    time_steps(step, a.seconds, {"impl": "torch " + torch.__version__, "threads": a.threads, "batch": a.batch, "size": a.size})


if __name__ == "__main__":
    main()
