"""
A table as graphs of features
=============================

A plain table ``(n_samples, n_features)`` is read as one graph per row whose nodes are the
features (:doc:`/user_guide/tabular`). The learned IB-graph of a row is then a
feature-interaction graph. This example fits breast cancer for a few epochs and draws the
learned interactions of one sample.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sk_vibgsl import VIBGSLClassifier

data = load_breast_cancer()
X_tr, X_te, y_tr, y_te = train_test_split(
    data.data, data.target, test_size=0.3, stratify=data.target, random_state=0
)
model = make_pipeline(StandardScaler(), VIBGSLClassifier(max_epochs=10, random_state=0))
model.fit(X_tr, y_tr)
print(f"test accuracy after 10 epochs: {model.score(X_te, y_te):.3f}")

# %%
# One sample's learned feature graph
# ----------------------------------
# Entry ``(j, k)`` is the learned weight of the interaction of features ``j`` and ``k`` in
# this sample; 0 below ``edge_threshold``.
features, adjacency = model[-1].ib_graphs(model[0].transform(X_te[:1]))[0]
fig, ax = plt.subplots(figsize=(6.5, 5.5))
im = ax.imshow(adjacency, cmap="viridis", vmin=0, vmax=1)
ax.set_xticks(range(len(adjacency)), data.feature_names, rotation=90, fontsize=6)
ax.set_yticks(range(len(adjacency)), data.feature_names, fontsize=6)
ax.set_title("learned feature interactions, test sample 0")
fig.colorbar(im, ax=ax, shrink=0.8)
fig.tight_layout()

n_pairs = len(adjacency) * (len(adjacency) - 1) // 2
print(f"{np.count_nonzero(np.triu(adjacency, 1))} of {n_pairs} feature pairs carry an edge")
