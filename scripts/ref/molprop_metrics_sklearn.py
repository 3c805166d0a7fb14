#!/usr/bin/python3
"""Golden values for core/metric's molecule-property metrics (molprop.go).

Runs scikit-learn (Debian python3-sklearn) on small fixed cases, ties
included, and writes core/metric/testdata/molprop_sklearn.json:
roc_auc_score, average_precision_score, mean_squared_error (RMSE),
mean_absolute_error, r2_score.

    /usr/bin/python3 scripts/ref/molprop_metrics_sklearn.py
"""
import json
import os

import numpy as np
import sklearn
from sklearn.metrics import (average_precision_score, mean_absolute_error,
                             mean_squared_error, r2_score, roc_auc_score)

rng = np.random.default_rng(7)
cases = []
for n, levels in [(10, 0), (25, 4), (60, 0), (60, 3), (200, 7), (7, 2)]:
    y = rng.integers(0, 2, n)
    y[0], y[1] = 0, 1  # both classes present
    if levels:  # few distinct scores: many ties
        s = rng.integers(0, levels, n) / levels
    else:
        s = np.round(rng.normal(size=n) + 0.8 * y, 4)
    cases.append({"kind": "binary", "label": y.tolist(), "score": s.tolist(),
                  "roc_auc": roc_auc_score(y, s), "average_precision": average_precision_score(y, s)})
for n in [5, 40, 300]:
    y = np.round(rng.normal(6, 1.2, n), 3)
    p = np.round(y + rng.normal(0, 0.7, n), 3)
    cases.append({"kind": "regression", "label": y.tolist(), "pred": p.tolist(),
                  "rmse": float(np.sqrt(mean_squared_error(y, p))), "mae": mean_absolute_error(y, p),
                  "r2": r2_score(y, p)})

out = os.path.join(os.path.dirname(__file__), "../../core/metric/testdata/molprop_sklearn.json")
with open(out, "w") as f:
    json.dump({"sklearn": sklearn.__version__, "cases": cases}, f, indent=None)
    f.write("\n")
print("wrote", out, len(cases), "cases")
