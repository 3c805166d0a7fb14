"""steptime — the timing loop the PyTorch twins of the training-step benchmarks share
(ocr_det_step_torch.py, ocr_rec_step_torch.py): warm-up steps, then steps until at least
`seconds` have passed and at least 3 ran; prints one JSON line with the median and minimum."""
import json
import time


def time_steps(step, seconds, info, warmup=2):
    """Run step() warmup times, then time it; print info plus median_ms, min_ms, steps."""
    for _ in range(warmup):
        step()
    ms = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(ms) < 3:
        t0 = time.perf_counter()
        step()
        ms.append((time.perf_counter() - t0) * 1000)
    ms.sort()
    print(json.dumps(dict(info, median_ms=round(ms[len(ms) // 2], 3), min_ms=round(ms[0], 3), steps=len(ms))))
