#!/usr/bin/env python3
"""rss_ocr.py — the memory of one long `paddle ocr predict` or `paddle serve ocr` process.

  rss_ocr.py predict PADDLE LIST [CHECKPOINTS] [-- EXTRA ARGS]
  rss_ocr.py serve   PADDLE LIST [CHECKPOINTS] [-- EXTRA ARGS]

LIST is a file of image paths, one a line. predict feeds them all to one `ocr predict - --format
jsonl` process and, each time its N-th output line arrives (N in CHECKPOINTS, comma-separated,
default 100,1000,2500,5000,7500,10000), reads the process's VmRSS and VmHWM (peak RSS) from
/proc/PID/status. serve starts one `serve ocr` on a free loopback port and posts the images to it
one after another over one keep-alive connection, sampling the server's process the same way after
the N-th answer.

Two peaks per checkpoint N: window_peak_mb, the peak RSS over the last 100 images (N-99..N; for the
first checkpoint, from the start with model loading), got by resetting the kernel's peak at image
N-100 (`echo 5 > /proc/PID/clear_refs`, Linux >= 4.0), and peak_mb, the peak since the start (the
largest of all readings). The window peak shows growth over the run (a leak, caches, fragmentation);
the peak since the start also keeps rising slowly as rarer inputs come (the largest working set
met so far). Prints one JSON object per checkpoint, then a summary: both peaks at the first and the
last checkpoint and their ratios. Standard library only; loopback only.
"""
import http.client, json, os, re, socket, subprocess, sys, tempfile, time

def mem(pid):
    st = open(f'/proc/{pid}/status').read()
    get = lambda k: int(re.search(rf'^{k}:\s+(\d+) kB', st, re.M).group(1)) / 1024
    return {'rss_mb': round(get('VmRSS'), 1), 'hwm_mb': round(get('VmHWM'), 1)}

def main():
    argv = sys.argv[1:]
    extra = []
    if '--' in argv:
        i = argv.index('--'); argv, extra = argv[:i], argv[i + 1:]
    mode, paddle, lst = argv[:3]
    cps = [int(x) for x in (argv[3] if len(argv) > 3 else '100,1000,2500,5000,7500,10000').split(',')]
    paths = [l.strip() for l in open(lst) if l.strip()]
    cps = [c for c in cps if c <= len(paths)]
    rows, t0, peak = [], time.time(), [0.0]
    resets = {c - 100 for c in cps if c > 100}
    def sample(n, pid):
        if n in cps:
            m = mem(pid)
            peak[0] = max(peak[0], m['hwm_mb'])
            r = {'mode': mode, 'images': n, 'seconds': round(time.time() - t0, 1), 'rss_mb': m['rss_mb'],
                 'window_peak_mb': m['hwm_mb'], 'peak_mb': peak[0]}
            rows.append(r); print(json.dumps(r), flush=True)
        if n in resets:  # the peak so far, then restart the kernel's peak for the next window
            peak[0] = max(peak[0], mem(pid)['hwm_mb'])
            with open(f'/proc/{pid}/clear_refs', 'w') as f:
                f.write('5')
    if mode == 'predict':
        # One image more than measured, so the process is still running (and its
        # /proc entry readable) when the last measured output arrives.
        feed = tempfile.TemporaryFile('w+')
        feed.write('\n'.join(paths + paths[:1]) + '\n'); feed.seek(0)
        p = subprocess.Popen([paddle, 'ocr', 'predict', '-', '--format', 'jsonl', *extra],
                             stdin=feed, stdout=subprocess.PIPE, text=True)
        n = 0
        for line in p.stdout:
            n += 1
            if n <= len(paths):
                sample(n, p.pid)
        if p.wait() != 0 or n != len(paths) + 1:
            sys.exit(f'rss_ocr: ocr predict exited {p.returncode} after {n} of {len(paths) + 1} outputs')
    else:
        s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
        p = subprocess.Popen([paddle, 'serve', 'ocr', '--addr', f'127.0.0.1:{port}', *extra],
                             stderr=subprocess.DEVNULL)
        try:
            for _ in range(600):
                try:
                    c = http.client.HTTPConnection('127.0.0.1', port, timeout=5); c.request('GET', '/healthz')
                    if c.getresponse().status == 200: break
                except OSError:
                    time.sleep(0.2)
            else:
                sys.exit('rss_ocr: the server did not come up')
            c = http.client.HTTPConnection('127.0.0.1', port, timeout=120)
            t0 = time.time()
            for n, path in enumerate(paths, 1):
                body = open(path, 'rb').read()
                ctype = 'image/png' if path.endswith('.png') else 'image/jpeg'
                c.request('POST', '/v1/ocr', body=body, headers={'Content-Type': ctype})
                r = c.getresponse(); r.read()
                if r.status != 200:
                    sys.exit(f'rss_ocr: {path}: HTTP {r.status}')
                sample(n, p.pid)
        finally:
            p.terminate(); p.wait()
    a, b = rows[0], rows[-1]
    print(json.dumps({'mode': mode, 'first': a['images'], 'last': b['images'],
                      'window_peak_first_mb': a['window_peak_mb'], 'window_peak_last_mb': b['window_peak_mb'],
                      'window_ratio': round(b['window_peak_mb'] / a['window_peak_mb'], 3),
                      'peak_first_mb': a['peak_mb'], 'peak_last_mb': b['peak_mb'],
                      'peak_ratio': round(b['peak_mb'] / a['peak_mb'], 3), 'seconds': b['seconds']}))

main()
