"""Breast cancer as a table: held-out accuracy and the learned feature-interaction graphs.

Usage: python benchmarks/tabular_breast_cancer.py   (about a minute on 2 CPU cores)
"""

import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sk_vibgsl import VIBGSLClassifier

data = load_breast_cancer()
X_tr, X_te, y_tr, y_te = train_test_split(
    data.data, data.target, test_size=0.3, stratify=data.target, random_state=0)
t = time.time()
model = make_pipeline(StandardScaler(), VIBGSLClassifier(random_state=0)).fit(X_tr, y_tr)
print(f"held-out accuracy {model.score(X_te, y_te):.4f}  (fit {time.time() - t:.0f} s)")
scaler, clf = model[0], model[-1]
graphs = clf.ib_graphs(scaler.transform(X_te))          # per sample: (features, adjacency)
adj = np.stack([a for _, a in graphs])                  # (n_test, 30, 30)
edges = (adj > 0).sum((1, 2)) / 2
print("edges per sample (weight >= a0):", np.mean(edges).round(1), "of", 30 * 29 // 2)
mean = adj.mean(0)
iu = np.triu_indices(30, 1)
for k in np.argsort(-mean[iu])[:5]:
    a, b = iu[0][k], iu[1][k]
    print(f"  {data.feature_names[a]} -- {data.feature_names[b]}: {mean[a, b]:.3f}")
for c in (0, 1):
    m = adj[y_te == c]
    per_sample = np.mean((m > 0).sum((1, 2)) / 2)
    print(f"class {data.target_names[c]}: mean edge weight {m.mean():.3f}, "
          f"edges/sample {per_sample:.1f}")
