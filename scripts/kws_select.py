# kws_select.py — the keyword spotter's selection rule, on the synthetic validation clips only:
# every checkpoint x test-time warp range x merge (mean, max, per-speaker group), with ensemble
# members added greedily by val top-1; rows ranked by val top-1, then val top-5, fewer models,
# fewer warps, mean before max before group. The real-word columns (kw: recorded keywords, tid:
# TIDIGITS) are printed beside, never used to rank. Input: $KWS_PROBS/<name>.{val,kw,tid}.jsonl,
# written by `paddle speech eval -o Global.save_probs=FILE -o Global.test_warps=[0.75,...,1.25]`
# (11 warps, docs/speech.md). Usage: KWS_PROBS=probs python3 scripts/kws_select.py [name,name,...]
# (SINGLES=1: one row per checkpoint and setting, no ensembles). Needs numpy (Debian python3-numpy: run with /usr/bin/python3).
import json, sys, os, numpy as np
D = os.environ.get('KWS_PROBS', 'probs')
def load(name, split):
    P, L, G = [], [], []
    for line in open(f'{D}/{name}.{split}.jsonl'):
        o = json.loads(line); P.append(o['probs']); L.append(o['label']); G.append(o.get('group', ''))
    return np.array(P, dtype=np.float64), np.array(L), G
W = [0.75,0.8,0.85,0.9,0.95,1,1.05,1.1,1.15,1.2,1.25]
RANGES = {'none': [5], '0.85-1.15': list(range(2, 9)), '0.8-1.2': list(range(1, 10)), '0.75-1.25': list(range(0, 11))}
names = [n for n in sys.argv[1].split(',')] if len(sys.argv) > 1 and sys.argv[1] else sorted({f.split('.')[0] for f in os.listdir(D) if f.endswith('.tid.jsonl')})
data = {n: {s: load(n, s) for s in ('val', 'kw', 'tid')} for n in names}
def rows(P, G, combine):  # P [clip][warp][class] already averaged over members, restricted to range -> [clip][class]
    if P.shape[1] == 1 or combine == 'mean':
        return P.mean(1)
    if combine == 'max':
        top = P.max(2); j = top.argmax(1); return P[np.arange(len(P)), j]
    logtop = np.log(np.maximum(P.max(2), 1e-30)); groups = {}
    for i, g in enumerate(G): groups.setdefault(g, []).append(i)
    out = np.zeros((len(P), P.shape[2]))
    for g, idx in groups.items():
        s = logtop[idx].sum(0); j = int(np.argmax(s)); out[idx] = P[idx, j]
    return out
def score(members, rng, combine, split, top5=False):
    idx = RANGES[rng]
    P = sum(data[m][split][0][:, idx] for m in members) / len(members)
    L, G = data[members[0]][split][1], data[members[0]][split][2]
    R = rows(P, G, combine)
    if top5:
        return int(sum(L[i] in np.argsort(-R[i], kind='stable')[:5] for i in range(len(L))))
    return int((R.argmax(1) == L).sum())
def row(members, rng, combine):
    v, k, t = (score(members, rng, combine, s) for s in ('val', 'kw', 'tid'))
    return v, k, t
settings = [('none', 'mean')] + [(r, c) for r in ('0.85-1.15', '0.8-1.2', '0.75-1.25') for c in ('mean', 'max', 'group')]
if os.environ.get('SINGLES'):
    for n in names:
        for r, c in settings:
            v, k, t = row([n], r, c); print(f'{n:8s} {r:10s} {c:6s} val={v} ({100*v/2733:.2f}) kw={k} tid={t} all={k+t}')
    sys.exit()
allrows = []
for r, c in settings:
    chosen, best = [], -1
    while True:
        cand = [(score(chosen + [n], r, c, 'val'), n) for n in names if n not in chosen]
        if not cand: break
        v, n = max(cand, key=lambda x: (x[0], -names.index(x[1])))
        if v <= best: break
        chosen.append(n); best = v
        vv, k, t = row(chosen, r, c)
        v5 = score(chosen, r, c, 'val', True)
        allrows.append((vv, v5, -len(chosen), -len(RANGES[r]), -['mean', 'max', 'group'].index(c), r, c, '+'.join(chosen), k, t))
        print(f'{r:10s} {c:6s} {"+".join(chosen):30s} val={vv} ({100*vv/2733:.2f}) top5={v5} kw={k} tid={t} all={k+t} ({100*(k+t)/132:.1f})', flush=True)
allrows.sort(key=lambda x: x[:5], reverse=True)
print('TOP by val:')
for x in allrows[:8]: print(x)
