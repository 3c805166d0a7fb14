#!/usr/bin/python3
"""ocr_rec_step_torch.py — one recognition training step in PyTorch (CPU), the
same CRNN and step as scripts/bench/ocr_rec_step (configs/ocr/rec_crnn_en.yaml):
MiniVGG (conv3x3 no-bias + BN + ReLU with 32, 48, 64, 96 channels, max pools
2x2, 2x2, 2x1, 2x1, height averaged away) + BiLSTM (hidden 64, 1 layer) +
linear to 96 classes, CTC (batch mean of per-line -log p, zero_infinity),
Adam lr 1e-3 with gradient clip-norm 5, on a random batch (default 64 x
3x48x320, labels of 5-20 classes). Prints one JSON line like the Go command.

  /usr/bin/python3 scripts/bench/ocr_rec_step_torch.py --threads 2 --seconds 10
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

from steptime import time_steps


class CRNN(nn.Module):
    def __init__(self, classes=96, channels=(32, 48, 64, 96), pools=((2, 2), (2, 2), (2, 1), (2, 1)), hidden=64):
        super().__init__()
        layers, cin = [], 3
        for c, p in zip(channels, pools):
            layers += [nn.Conv2d(cin, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(p, p)]
            cin = c
        self.backbone = nn.Sequential(*layers)
        self.lstm = nn.LSTM(cin, hidden, num_layers=1, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, x):  # x: (N, 3, H, W) -> logits (T, N, K)
        f = self.backbone(x).mean(2)  # (N, C, T)
        s = f.permute(2, 0, 1)  # (T, N, C)
        return self.fc(self.lstm(s)[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--height", type=int, default=48)
    ap.add_argument("--width", type=int, default=320)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = CRNN()
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.rand(a.batch, 3, a.height, a.width) * 2 - 1
    lens = torch.randint(5, 21, (a.batch,))
    targets = torch.randint(1, 96, (a.batch, 20))
    t_steps = a.width // 4
    in_lens = torch.full((a.batch,), t_steps, dtype=torch.long)

    def step():
        opt.zero_grad()
        logp = F.log_softmax(model(x), -1)
        loss = F.ctc_loss(logp, targets, in_lens, lens, reduction="none", zero_infinity=True).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5)
        opt.step()

    time_steps(step, a.seconds, {"impl": "torch " + torch.__version__, "threads": a.threads, "batch": a.batch})


if __name__ == "__main__":
    main()
