"""Property-based tests of the input layer (``sk_vibgsl._inputs``).

Hypothesis draws lists of graphs of every kind — PyG ``Data``, networkx
(undirected, directed, multigraph), ``(features, dense or sparse adjacency)``,
bare matrices (numpy, torch, nested lists), mixed freely — with 1 to 50
nodes, random edges (self-loops, duplicates, one direction only), weights
from 1e-30 to 1e30 and features anywhere in the float32 range. Sometimes
one sample is corrupted. The contract:

* a corrupted sample gets our ``ValueError``/``TypeError`` naming ``X[i]``;
* anything else converts to a :class:`GraphSet` that keeps every graph's
  node count and features exactly and holds each graph's edges as
  documented — symmetrised, duplicates merged by their largest weight,
  self-loops kept, zero weights dropped — and the padded dense batch of
  the whole set reproduces the same features, masks and adjacencies.

The expected edges come from a plain-Python reference, not from the code
under test.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from torch_geometric.data import Data

from sk_vibgsl._batching import GraphDataset, densify_adjacency
from sk_vibgsl._inputs import to_graph_set

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

KINDS = ("pyg", "pyg_unweighted", "nx", "nx_directed", "nx_multi", "dense", "sparse",
         "bare_numpy", "bare_torch", "bare_list")

FAULTS = ("nan_feature", "inf_feature", "beyond_float32", "zero_nodes", "negative_weight",
          "nan_weight", "edge_out_of_range", "feature_width", "unsupported_type",
          "adjacency_shape", "ragged_adjacency", "string_features", "complex_features",
          "missing_node_attr", "string_weight", "float_edge_index", "weight_length",
          "one_d_features", "too_many_nodes")

# Values anywhere in the float32 range (subnormals and ±3.4e38 included) and
# a few named extremes.
VALUES = st.one_of(
    st.floats(width=32, allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [float(np.float32(v)) for v in (0.0, -0.0, 1e30, -1e30, 1e-30, 3.4e38, -3.4e38, 1e6)]
    ),
)
WEIGHTS = st.one_of(
    st.floats(min_value=float(np.float32(1e-30)), max_value=float(np.float32(1e30)), width=32),
    st.sampled_from([float(np.float32(v)) for v in (1.0, 0.0, 1e30, 1e-30)]),
)


@st.composite
def graph_samples(draw, n_features: int):
    """One valid sample: ``(kind, features, edge entries)`` plus the object."""
    n = draw(st.integers(1, 50))
    feats = draw(arrays(np.float32, (n, n_features), elements=VALUES))
    node = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(node, node, WEIGHTS), max_size=60))
    kind = draw(st.sampled_from(KINDS))
    return build(kind, feats, edges)


def build(kind: str, feats: np.ndarray, edges: list) -> tuple[object, list]:
    """The sample object of ``kind`` and the edge entries it stores.

    The entries are ``(u, v, w)`` as the object itself holds them (a
    networkx graph keeps the last weight of a repeated edge, a CSR matrix
    sums duplicates), so the reference sees what the user handed over.
    """
    n = len(feats)
    if kind.startswith("bare"):
        sample = {"bare_numpy": feats, "bare_torch": torch.from_numpy(feats.copy()),
                  "bare_list": feats.tolist()}[kind]
        return sample, []
    if kind.startswith("pyg"):
        ei = torch.tensor([[u for u, _, _ in edges], [v for _, v, _ in edges]],
                          dtype=torch.long).reshape(2, -1)
        if kind == "pyg_unweighted":
            return Data(x=torch.from_numpy(feats.copy()), edge_index=ei), [
                (u, v, 1.0) for u, v, _ in edges]
        w = torch.tensor([w for _, _, w in edges], dtype=torch.float32)
        return Data(x=torch.from_numpy(feats.copy()), edge_index=ei, edge_weight=w), edges
    if kind.startswith("nx"):
        graph = {"nx": nx.Graph, "nx_directed": nx.DiGraph, "nx_multi": nx.MultiGraph}[kind]()
        for k in range(n):  # labels that are not positions: insertion order counts
            graph.add_node(f"node{k}", x=feats[k])
        for u, v, w in edges:
            graph.add_edge(f"node{u}", f"node{v}", weight=w)
        stored = [(int(u[4:]), int(v[4:]), w) for u, v, w in graph.edges(data="weight")]
        return graph, stored
    if kind == "dense":
        adj = np.zeros((n, n), np.float32)
        for u, v, w in edges:
            adj[u, v] = max(adj[u, v], w)
        return (feats, adj), [(u, v, adj[u, v]) for u, v in zip(*np.nonzero(adj))]
    matrix = sp.coo_matrix(
        ([w for _, _, w in edges], ([u for u, _, _ in edges], [v for _, v, _ in edges])),
        shape=(n, n), dtype=np.float32,
    ).tocsr()
    coo = matrix.tocoo()
    return (feats, matrix), list(zip(coo.row, coo.col, coo.data))


def reference_edges(entries: list) -> dict[tuple[int, int], float]:
    """Symmetrised edges, largest weight of duplicates, zero weights dropped."""
    out: dict[tuple[int, int], float] = {}
    for u, v, w in entries:
        w = float(np.float32(w))
        if w == 0:
            continue
        for key in ((int(u), int(v)), (int(v), int(u))):
            out[key] = max(out.get(key, 0.0), w)
    return out


def corrupt(fault: str, feats: np.ndarray, i: int, largest: int):
    """A sample with one problem, and the ``max_nodes`` to convert with
    (``largest``: the largest node count of the other samples)."""
    n, f = feats.shape
    ring = (feats, np.roll(np.eye(n, dtype=np.float32), 1, axis=1))
    if fault in ("nan_feature", "inf_feature"):
        bad = feats.copy()
        bad[n // 2, f - 1] = np.nan if fault == "nan_feature" else -np.inf
        return (bad, ring[1]), None
    if fault == "beyond_float32":
        bad = feats.astype(np.float64)
        bad[0, 0] = 1e39
        return bad, None
    if fault == "zero_nodes":
        return Data(x=torch.zeros(0, f), edge_index=torch.zeros(2, 0, dtype=torch.long)), None
    if fault in ("negative_weight", "nan_weight"):
        adj = ring[1].copy()
        adj[0, 1 % n] = -2.0 if fault == "negative_weight" else np.nan
        return (feats, sp.csr_matrix(adj) if n % 2 else adj), None
    if fault == "edge_out_of_range":
        return Data(x=torch.from_numpy(feats), edge_index=torch.tensor([[0], [n]])), None
    if fault == "feature_width":
        return np.zeros((n, f + 1), np.float32), None
    if fault == "unsupported_type":
        return [{"x": feats}, "graph", None, 3.5][i % 4], None
    if fault == "adjacency_shape":
        return (feats, np.ones((n, n + 1), np.float32)), None
    if fault == "ragged_adjacency":
        return (feats, [[1.0] * (k + 1) for k in range(n)] + [[1.0]]), None
    if fault == "string_features":
        return feats.astype(str), None
    if fault == "complex_features":
        return feats.astype(np.complex64) * 1j, None
    if fault == "missing_node_attr":
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        return graph, None
    if fault == "string_weight":
        graph = nx.path_graph(max(n, 2))
        for k in graph.nodes:
            graph.nodes[k]["x"] = np.zeros(f, np.float32)
        graph.edges[0, 1]["weight"] = "heavy"
        return graph, None
    if fault == "float_edge_index":
        return Data(x=torch.from_numpy(feats), edge_index=torch.zeros(2, 1)), None
    if fault == "weight_length":
        return Data(x=torch.from_numpy(feats), edge_index=torch.zeros(2, 1, dtype=torch.long),
                    edge_weight=torch.ones(2)), None
    if fault == "one_d_features":
        return feats[:, 0].copy(), None
    assert fault == "too_many_nodes"
    return np.zeros((largest + 1, f), np.float32), largest


@st.composite
def graph_lists(draw):
    """``(X, samples, faulty index or None, fault, max_nodes)``."""
    n_features = draw(st.integers(1, 4))
    built = draw(st.lists(graph_samples(n_features), min_size=1, max_size=6))
    X = [sample for sample, _ in built]
    fault = draw(st.one_of(st.none(), st.sampled_from(FAULTS)))
    if fault is None:
        return X, built, None, None, None
    # X[0] sets the feature width, and a list starting with a 1-D row or a
    # scalar is a table: those faults go elsewhere.
    low = 1 if fault in ("feature_width", "one_d_features", "unsupported_type") else 0
    if low >= len(X):
        X.append(X[0])
    i = draw(st.integers(low, len(X) - 1))
    largest = max(len(_features_of(sample)) for sample in X)
    X[i], max_nodes = corrupt(fault, _features_of(X[i]), i, largest)
    return X, built, i, fault, max_nodes


@SETTINGS
@given(graph_lists())
def test_any_graph_list_converts_faithfully_or_names_the_bad_sample(case):
    X, built, bad, fault, max_nodes = case
    if bad is not None:
        with pytest.raises((ValueError, TypeError)) as info:
            to_graph_set(X, max_nodes=max_nodes)
        assert f"X[{bad}]" in str(info.value), (fault, str(info.value))
        return

    graphs = to_graph_set(X)
    assert len(graphs) == len(X)
    for i, (_, entries) in enumerate(built):
        feats, edge_index, edge_weight = graphs.graph(i)
        assert feats.dtype == np.float32
        np.testing.assert_array_equal(feats, _features_of(X[i]))
        got = {(int(u), int(v)): float(w) for (u, v), w in zip(edge_index.T, edge_weight)}
        assert len(got) == edge_index.shape[1], "duplicate edges survived"
        assert got == reference_edges(entries)

    batch, _ = GraphDataset(graphs, with_adjacency=True).__getitems__(list(range(len(graphs))))
    batch = densify_adjacency(batch)
    for b, n in enumerate(graphs.sizes):
        assert batch["mask"][b].sum() == n and not batch["mask"][b, n:].any()
        np.testing.assert_array_equal(batch["x"][b, :n].numpy(), graphs.graph(b)[0])
        assert not batch["x"][b, n:].any()
        np.testing.assert_array_equal(batch["adj"][b, :n, :n].numpy(), graphs.dense_adjacency(b))
        assert not batch["adj"][b, n:].any() and not batch["adj"][b, :, n:].any()


def _features_of(sample) -> np.ndarray:
    """The float32 feature matrix a valid sample was built from."""
    if isinstance(sample, tuple):
        sample = sample[0]
    elif isinstance(sample, Data):
        sample = sample.x
    elif isinstance(sample, nx.Graph):
        sample = [sample.nodes[k]["x"] for k in sample.nodes]
    if isinstance(sample, torch.Tensor):
        sample = sample.numpy()
    return np.asarray(sample, dtype=np.float32)


@SETTINGS
@given(
    arrays(np.float32, st.tuples(st.integers(1, 5), st.integers(1, 20), st.integers(1, 3)),
           elements=VALUES)
)
def test_three_d_array_is_bare_matrices(X):
    graphs = to_graph_set(X)
    assert list(graphs.sizes) == [X.shape[1]] * X.shape[0]
    np.testing.assert_array_equal(graphs.x, X.reshape(-1, X.shape[2]))
    assert graphs.edge_index.shape == (2, 0)


@SETTINGS
@given(st.integers(1, 60), st.integers(1, 60))
def test_max_nodes_refuses_exactly_the_graphs_above_it(n, max_nodes):
    X = [np.zeros((1, 1), np.float32), (np.ones((n, 1), np.float32), sp.eye(n, format="csr"))]
    if n > max_nodes:
        with pytest.raises(ValueError, match=rf"X\[1\] has {n} nodes, more than max_nodes"):
            to_graph_set(X, max_nodes=max_nodes)
    else:
        assert list(to_graph_set(X, max_nodes=max_nodes).sizes) == [1, n]
