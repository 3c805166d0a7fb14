"""torch conv2d in CPU time (user+sys of the process, getrusage), the peer of
scripts/bench/convcpu: same shapes (../shared/bench/CORE.md §3, N=8), one
warm-up call, then RUNS calls; prints one JSON line per case.
Usage: /usr/bin/python3 conv_cpu_torch.py THREADS RUNS CASE [backward]"""
import json, resource, sys, time
import torch
import torch.nn.functional as F

CASES = {  # Cin, Cout, H=W, k, stride, groups
    "conv3x3_64to64_56": (64, 64, 56, 3, 1, 1),
    "conv3x3s2_32to64_112": (32, 64, 112, 3, 2, 1),
    "dw3x3_128_56": (128, 128, 56, 3, 1, 128),
    "conv1x1_128to256_28": (128, 256, 28, 1, 1, 1),
}
threads, runs, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
bwd = len(sys.argv) > 4 and sys.argv[4] == "backward"
torch.set_num_threads(threads)
torch.manual_seed(0)
cin, cout, hw, k, s, g = CASES[name]
x = torch.randn(8, cin, hw, hw, requires_grad=bwd)
wt = torch.randn(cout, cin // g, k, k, requires_grad=bwd)


def call():
    if not bwd:
        with torch.no_grad():
            F.conv2d(x, wt, None, s, k // 2, 1, g)
        return
    y = F.conv2d(x, wt, None, s, k // 2, 1, g)
    y.backward(torch.ones_like(y))
    x.grad = None
    wt.grad = None


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


call()
c0, t0 = cpu(), time.perf_counter()
for _ in range(runs):
    call()
c1, t1 = cpu(), time.perf_counter()
print(json.dumps({"impl": "torch", "case": name, "threads": threads, "backward": bwd, "runs": runs,
                  "cpu_ms": (c1 - c0) * 1e3 / runs, "wall_ms": (t1 - t0) * 1e3 / runs}))
