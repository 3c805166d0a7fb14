"""steptime — the timing loop the PyTorch twins of the training-step benchmarks share
(ocr_det_step_torch.py, ocr_rec_step_torch.py): warm-up steps, then steps until at least
`seconds` have passed and at least 3 ran; prints one JSON line with the median and minimum of
the wall time (median_ms, min_ms) and of the process's CPU time per step (cpu_median_ms,
cpu_min_ms: what a loaded machine inflates less at one thread), as the Go side
(scripts/bench/internal/stepbench) does."""
import json
import time


def time_steps(step, seconds, info, warmup=2):
    """Run step() warmup times, then time it; print info plus median_ms, min_ms, steps, cpu_*_ms."""
    for _ in range(warmup):
        step()
    ms, cpu = [], []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(ms) < 3:
        c0, t0 = time.process_time(), time.perf_counter()
        step()
        ms.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    ms.sort()
    cpu.sort()
    print(json.dumps(dict(info, median_ms=round(ms[len(ms) // 2], 3), min_ms=round(ms[0], 3), steps=len(ms),
                          cpu_median_ms=round(cpu[len(cpu) // 2], 3), cpu_min_ms=round(cpu[0], 3))))
