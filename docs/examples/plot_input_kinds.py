"""
One estimator, four input kinds
===============================

:class:`~sk_vibgsl.VIBGSLClassifier` takes a list of graphs of any of these kinds, mixed
freely: PyG ``Data``, networkx graphs, ``(features, adjacency)`` tuples and bare feature
matrices (:doc:`/user_guide/inputs`). Graph sizes may differ; all graphs share the node
feature width.
"""

# %%
import networkx as nx
import numpy as np
import scipy.sparse as sp
import torch
from torch_geometric.data import Data

from sk_vibgsl import VIBGSLClassifier

rng = np.random.default_rng(0)


def features(n, label):
    x = rng.normal(size=(n, 3)).astype(np.float32)
    x[:, 0] += 1.0 if label else -1.0  # the label shows in the first feature
    return x


def ring(n):
    src = np.arange(n)
    return np.stack([src, (src + 1) % n])


def as_data(n, label):
    return Data(x=torch.from_numpy(features(n, label)), edge_index=torch.from_numpy(ring(n)))


def as_networkx(n, label):
    g = nx.cycle_graph(n)
    for node, row in zip(g.nodes, features(n, label)):
        g.nodes[node]["x"] = row
    return g


def as_tuple(n, label):
    src, dst = ring(n)
    adj = sp.coo_matrix((np.ones(n), (src, dst)), shape=(n, n)).tocsr()
    return features(n, label), adj


def as_matrix(n, label):
    return features(n, label)


makers = [as_data, as_networkx, as_tuple, as_matrix]
y = rng.integers(0, 2, size=80)
X = [makers[i % 4](int(rng.integers(4, 10)), label) for i, label in enumerate(y)]
print(sorted({type(x).__name__ for x in X}))

# %%
# Fit and predict as with any scikit-learn classifier
# ---------------------------------------------------
clf = VIBGSLClassifier(max_epochs=15, random_state=0).fit(X[:60], y[:60])
print("accuracy on the last 20 graphs:", clf.score(X[60:], y[60:]))
print("classes:", clf.classes_, "node features:", clf.n_features_in_)

# %%
# String labels work too: ``classes_`` keeps them, ``predict`` returns them.
names = np.array(["negative", "positive"])[y]
clf = VIBGSLClassifier(max_epochs=3, random_state=0).fit(X, names)
print(clf.predict(X[:4]))
