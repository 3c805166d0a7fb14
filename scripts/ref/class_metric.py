#!/usr/bin/python3
"""Golden classification metrics for kits/nlp (ClassMetric) from scikit-learn.

Run with Debian's python3 (python3-sklearn):
    /usr/bin/python3 scripts/ref/class_metric.py > core/metric/testdata/classes_sklearn.json
Three cases of seeded random labels over 5 classes: all classes present; class 4
never true; class 3 never predicted and class 4 neither true nor predicted.
"""
import json
import numpy as np
import sklearn
from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support

rng = np.random.default_rng(7)
cases = []
for name in ["all", "absent_true", "absent_both"]:
    y = rng.integers(0, 5, 200)
    p = np.where(rng.random(200) < 0.6, y, rng.integers(0, 5, 200))
    if name != "all":
        y[y == 4] = 0
    if name == "absent_both":
        p[p == 4] = 1
        p[p == 3] = 2
    pr, rc, f, s = precision_recall_fscore_support(y, p, labels=list(range(5)), zero_division=0)
    cases.append({
        "name": name, "truth": y.tolist(), "pred": p.tolist(),
        "accuracy": accuracy_score(y, p),
        "micro_f1": f1_score(y, p, labels=list(range(5)), average="micro", zero_division=0),
        "macro_f1": f1_score(y, p, labels=list(range(5)), average="macro", zero_division=0),
        "weighted_f1": f1_score(y, p, labels=list(range(5)), average="weighted", zero_division=0),
        "macro_precision": float(np.mean(pr)), "macro_recall": float(np.mean(rc)),
        "precision": pr.tolist(), "recall": rc.tolist(), "f1": f.tolist(), "support": s.tolist(),
    })
print(json.dumps({"sklearn": sklearn.__version__, "cases": cases}))
