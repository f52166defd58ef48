"""``to_graph_set``: every input kind, the coalesced edge list, every input error."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import torch
from torch_geometric.data import Data

from sk_vibgsl import _inputs
from sk_vibgsl._inputs import GraphSet, to_graph_set

REPO = Path(__file__).resolve().parents[1]

X3 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32)
X4 = np.arange(8, dtype=np.float32).reshape(4, 2)


def _edges(gs: GraphSet, i: int) -> list[tuple[int, int, float]]:
    _, ei, w = gs.graph(i)
    return [(int(a), int(b), float(c)) for a, b, c in zip(ei[0], ei[1], w)]


def _check_invariants(gs: GraphSet) -> None:
    """Dtypes, offsets, and per-graph edge lists: local, sorted, unique, symmetric."""
    assert gs.x.dtype == np.float32
    assert gs.node_ptr.dtype == np.int64 and gs.edge_ptr.dtype == np.int64
    assert gs.edge_index.dtype == np.int64 and gs.edge_weight.dtype == np.float32
    assert gs.node_ptr[0] == 0 and gs.node_ptr[-1] == len(gs.x)
    assert gs.edge_ptr[0] == 0 and gs.edge_ptr[-1] == gs.edge_index.shape[1]
    assert len(gs.edge_ptr) == len(gs.node_ptr) == len(gs) + 1
    assert np.all(gs.edge_weight > 0)
    for i in range(len(gs)):
        x, ei, w = gs.graph(i)
        n = len(x)
        assert ei.size == 0 or (ei.min() >= 0 and ei.max() < n)
        pairs = list(zip(ei[0].tolist(), ei[1].tolist()))
        assert pairs == sorted(set(pairs)), "edges must be sorted and without duplicates"
        weights = dict(zip(pairs, w.tolist()))
        for (a, b), wt in weights.items():
            assert weights[(b, a)] == wt, "edge list must be symmetric"


# ---------------------------------------------------------------------------
# input kinds
# ---------------------------------------------------------------------------


def test_pyg_data_without_edge_weight():
    data = Data(x=torch.as_tensor(X3), edge_index=torch.tensor([[0, 1], [1, 2]]))
    gs = to_graph_set([data])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, X3)
    np.testing.assert_array_equal(gs.sizes, [3])
    np.testing.assert_array_equal(gs.node_ptr, [0, 3])
    np.testing.assert_array_equal(gs.edge_index, [[0, 1, 1, 2], [1, 0, 2, 1]])
    np.testing.assert_array_equal(gs.edge_weight, [1, 1, 1, 1])
    np.testing.assert_array_equal(gs.edge_ptr, [0, 4])


def test_pyg_data_with_edge_weight_duplicates_keep_max():
    data = Data(
        x=torch.as_tensor(X3),
        edge_index=torch.tensor([[0, 1, 0, 1], [1, 0, 1, 2]]),
        edge_weight=torch.tensor([1.0, 5.0, 2.0, 3.0]),
    )
    gs = to_graph_set([data])
    _check_invariants(gs)
    assert _edges(gs, 0) == [(0, 1, 5.0), (1, 0, 5.0), (1, 2, 3.0), (2, 1, 3.0)]
    expected = np.array([[0, 5, 0], [5, 0, 3], [0, 3, 0]], dtype=np.float32)
    np.testing.assert_array_equal(gs.dense_adjacency(0), expected)


def test_pyg_data_without_edge_index():
    gs = to_graph_set([Data(x=torch.as_tensor(X3))])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, X3)
    assert gs.edge_index.shape == (2, 0)
    assert gs.edge_weight.shape == (0,)
    np.testing.assert_array_equal(gs.edge_ptr, [0, 0])
    np.testing.assert_array_equal(gs.dense_adjacency(0), np.zeros((3, 3)))


def test_networkx_graph_with_default_attr_and_weights():
    g = nx.Graph()
    # node labels are not 0..n-1: local ids follow the node order
    for label, row in zip(["c", "a", "b"], X3):
        g.add_node(label, x=row)
    g.add_edge("c", "a", weight=2.5)
    g.add_edge("a", "b")  # unweighted edge: weight 1
    gs = to_graph_set([g])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, X3)
    assert _edges(gs, 0) == [(0, 1, 2.5), (1, 0, 2.5), (1, 2, 1.0), (2, 1, 1.0)]


def test_networkx_graph_with_custom_node_attr():
    g = nx.path_graph(3)
    for node in g.nodes:
        g.nodes[node]["feat"] = X3[node]
    gs = to_graph_set([g], node_attr="feat")
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, X3)
    np.testing.assert_array_equal(gs.dense_adjacency(0), nx.to_numpy_array(g))


def test_networkx_digraph_is_symmetrised_with_max_weight():
    g = nx.DiGraph()
    for node, row in enumerate(X3):
        g.add_node(node, x=row)
    g.add_edge(0, 1, weight=2.0)
    g.add_edge(1, 0, weight=5.0)
    g.add_edge(1, 2, weight=1.5)  # one direction only
    gs = to_graph_set([g])
    _check_invariants(gs)
    expected = np.array([[0, 5, 0], [5, 0, 1.5], [0, 1.5, 0]], dtype=np.float32)
    np.testing.assert_array_equal(gs.dense_adjacency(0), expected)
    assert gs.edge_index.shape == (2, 4)


def test_features_with_dense_adjacency():
    adj = np.array([[0, 2, 0, 0], [0, 0, 3, 0], [0, 1, 0, 0], [4, 0, 0, 0]], dtype=np.float64)
    gs = to_graph_set([(X4, adj)])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, X4)
    np.testing.assert_array_equal(gs.dense_adjacency(0), np.maximum(adj, adj.T))
    assert _edges(gs, 0) == [
        (0, 1, 2.0),
        (0, 3, 4.0),
        (1, 0, 2.0),
        (1, 2, 3.0),
        (2, 1, 3.0),
        (3, 0, 4.0),
    ]


def test_features_with_sparse_csr_adjacency():
    dense = np.array([[0, 0.5, 0], [0.5, 0, 2.0], [0, 2.0, 0]], dtype=np.float32)
    gs = to_graph_set([(X3, sp.csr_matrix(dense))])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, X3)
    np.testing.assert_array_equal(gs.dense_adjacency(0), dense)
    np.testing.assert_array_equal(gs.edge_index, [[0, 1, 1, 2], [1, 0, 2, 1]])
    np.testing.assert_array_equal(gs.edge_weight, [0.5, 0.5, 2.0, 2.0])


def test_bare_feature_matrix_has_no_edges():
    gs = to_graph_set([X4, X3])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, np.concatenate([X4, X3]))
    np.testing.assert_array_equal(gs.sizes, [4, 3])
    np.testing.assert_array_equal(gs.node_ptr, [0, 4, 7])
    np.testing.assert_array_equal(gs.edge_ptr, [0, 0, 0])
    assert gs.edge_index.shape == (2, 0)


def test_list_of_lists_feature_matrix():
    gs = to_graph_set([[[1, 2], [3, 4], [5, 6]]])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, X3)
    assert gs.x.dtype == np.float32
    np.testing.assert_array_equal(gs.sizes, [3])


def test_three_d_array_is_read_as_bare_matrices():
    X = np.arange(24, dtype=np.float64).reshape(2, 4, 3)
    gs = to_graph_set(X)
    _check_invariants(gs)
    assert len(gs) == 2
    np.testing.assert_array_equal(gs.x, X.reshape(8, 3))
    np.testing.assert_array_equal(gs.sizes, [4, 4])
    np.testing.assert_array_equal(gs.node_ptr, [0, 4, 8])
    assert gs.edge_index.shape == (2, 0)


def test_three_d_torch_tensor_is_read_as_bare_matrices():
    X = torch.arange(24, dtype=torch.float32).reshape(2, 4, 3)
    gs = to_graph_set(X)
    np.testing.assert_array_equal(gs.x, X.reshape(8, 3).numpy())
    np.testing.assert_array_equal(gs.sizes, [4, 4])


def test_torch_tensors_as_features_and_adjacency():
    feats = torch.as_tensor(X3, dtype=torch.float64).requires_grad_(True)
    adj = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    gs = to_graph_set([feats, (feats, adj)])
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.x, np.concatenate([X3, X3]))
    np.testing.assert_array_equal(gs.edge_ptr, [0, 0, 2])
    np.testing.assert_array_equal(gs.dense_adjacency(1), adj.numpy())


def test_mixed_kinds_and_sizes_in_one_list():
    rng = np.random.default_rng(0)
    feats = [rng.normal(size=(n, 2)).astype(np.float32) for n in (3, 5, 2, 4, 1)]
    adjs = []
    for f in feats:
        n = len(f)
        a = np.triu(rng.uniform(0.5, 2.0, (n, n)) * (rng.random((n, n)) < 0.6), 1)
        adjs.append((a + a.T).astype(np.float32))

    data = Data(
        x=torch.as_tensor(feats[0]),
        edge_index=torch.as_tensor(np.array(np.nonzero(adjs[0]))),
        edge_weight=torch.as_tensor(adjs[0][np.nonzero(adjs[0])]),
    )
    g = nx.from_numpy_array(adjs[1])
    for node in g.nodes:
        g.nodes[node]["x"] = feats[1][node]
    X = [data, g, (feats[2], adjs[2]), (feats[3], sp.csr_matrix(adjs[3])), feats[4]]
    gs = to_graph_set(X)
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.sizes, [3, 5, 2, 4, 1])
    np.testing.assert_array_equal(gs.node_ptr, [0, 3, 8, 10, 14, 15])
    np.testing.assert_array_equal(gs.x, np.concatenate(feats))
    n_edges = [int((a > 0).sum()) for a in adjs[:4]] + [0]
    np.testing.assert_array_equal(gs.edge_ptr, np.concatenate([[0], np.cumsum(n_edges)]))
    for i in range(5):
        np.testing.assert_array_equal(gs.graph(i)[0], feats[i])
        expected = adjs[i] if i < 4 else np.zeros((1, 1), np.float32)
        np.testing.assert_allclose(gs.dense_adjacency(i), expected, rtol=1e-6)


def test_one_d_object_array_of_samples():
    X = np.empty(3, dtype=object)
    X[0] = X3
    X[1] = (X4, np.eye(4))
    X[2] = Data(x=torch.as_tensor(X3))
    gs = to_graph_set(X)
    _check_invariants(gs)
    np.testing.assert_array_equal(gs.sizes, [3, 4, 3])
    np.testing.assert_array_equal(gs.x, np.concatenate([X3, X4, X3]))
    np.testing.assert_array_equal(gs.dense_adjacency(1), np.eye(4))


def test_self_loops_are_kept_once():
    adj = np.array([[3.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    gs = to_graph_set([(X3, adj)])
    _check_invariants(gs)
    assert _edges(gs, 0) == [(0, 0, 3.0), (0, 1, 1.0), (1, 0, 1.0), (2, 2, 2.0)]
    # the same through a directed edge list that names the loop twice
    data = Data(
        x=torch.as_tensor(X3),
        edge_index=torch.tensor([[1, 1], [1, 1]]),
        edge_weight=torch.tensor([0.5, 0.7]),
    )
    assert _edges(to_graph_set([data]), 0) == [(1, 1, pytest.approx(0.7))]


def test_zero_weight_entries_are_dropped():
    data = Data(
        x=torch.as_tensor(X3),
        edge_index=torch.tensor([[0, 1], [1, 2]]),
        edge_weight=torch.tensor([0.0, 2.0]),
    )
    assert _edges(to_graph_set([data]), 0) == [(1, 2, 2.0), (2, 1, 2.0)]
    # an explicitly stored zero of a sparse matrix
    adj = sp.csr_matrix((np.array([0.0, 1.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    assert adj.nnz == 2
    assert _edges(to_graph_set([(X3, adj)]), 0) == [(1, 2, 1.0), (2, 1, 1.0)]
    # a networkx edge with weight 0
    g = nx.path_graph(3)
    nx.set_node_attributes(g, {k: X3[k] for k in range(3)}, "x")
    g.edges[0, 1]["weight"] = 0.0
    assert _edges(to_graph_set([g]), 0) == [(1, 2, 1.0), (2, 1, 1.0)]


def _random_graphs(rng: np.random.Generator, n_graphs: int) -> list[Data]:
    """Directed, duplicated, zero- and self-weighted edges; some graphs edgeless."""
    graphs = []
    for _ in range(n_graphs):
        n = int(rng.integers(1, 9))
        m = int(rng.integers(0, 3 * n))
        weight = rng.choice([0.0, 0.5, 1.0, 2.0], size=m).astype(np.float32)
        graphs.append(
            Data(
                x=torch.as_tensor(rng.normal(size=(n, 3)), dtype=torch.float32),
                edge_index=torch.as_tensor(rng.integers(0, n, size=(2, m))),
                edge_weight=torch.as_tensor(weight),
            )
        )
    return graphs


@pytest.mark.parametrize("chunk", [1, 3, 17])
def test_chunked_coalescing_equals_one_step(monkeypatch, chunk):
    """Edges are coalesced a chunk of graphs at a time (to bound memory); the
    result must not depend on where the chunks fall."""
    graphs = _random_graphs(np.random.default_rng(chunk), 40)
    whole = to_graph_set(graphs)
    monkeypatch.setattr(_inputs, "_CHUNK_EDGES", chunk)
    parts = to_graph_set(graphs)
    _check_invariants(parts)
    for field in ("x", "node_ptr", "edge_index", "edge_weight", "edge_ptr"):
        np.testing.assert_array_equal(getattr(parts, field), getattr(whole, field))
    # and against a per-graph reference: symmetric, max weight, zeros dropped
    for i, g in enumerate(graphs):
        ref: dict[tuple[int, int], float] = {}
        for (u, v), w in zip(g.edge_index.T.tolist(), g.edge_weight.tolist()):
            if w > 0:
                for key in ((u, v), (v, u)):
                    ref[key] = max(ref.get(key, 0.0), w)
        assert _edges(parts, i) == [(u, v, w) for (u, v), w in sorted(ref.items())]


def test_chunked_coalescing_names_the_sample_with_a_bad_weight(monkeypatch):
    monkeypatch.setattr(_inputs, "_CHUNK_EDGES", 2)
    graphs = _random_graphs(np.random.default_rng(0), 30)
    graphs[23] = Data(
        x=torch.ones(3, 3),
        edge_index=torch.tensor([[0, 1], [1, 2]]),
        edge_weight=torch.tensor([1.0, -1.0]),
    )
    with pytest.raises(ValueError, match=r"^X\[23\]: negative edge weight"):
        to_graph_set(graphs)


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("X", [[], (), np.zeros((0, 3, 2)), np.empty(0, dtype=object)], ids=repr)
def test_error_empty_X(X):
    with pytest.raises(ValueError, match="X is empty"):
        to_graph_set(X)


@pytest.mark.parametrize(
    "empty",
    [
        Data(x=torch.zeros(0, 2)),
        nx.Graph(),
        (np.zeros((0, 2)), np.zeros((0, 0))),
        (np.zeros((0, 2)), sp.csr_matrix((0, 0))),
        np.zeros((0, 2)),
        torch.zeros(0, 2),
    ],
    ids=["pyg", "networkx", "pair", "pair-sparse", "bare", "bare-torch"],
)
def test_error_graph_with_zero_nodes(empty):
    with pytest.raises(ValueError, match=r"X\[1\]: the graph has 0 nodes"):
        to_graph_set([X3, empty])


def test_error_three_d_array_with_zero_nodes():
    with pytest.raises(ValueError, match=r"X\[0\]: the graph has 0 nodes"):
        to_graph_set(np.zeros((2, 0, 3)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_error_non_finite_features(bad):
    feats = X4.copy()
    feats[2, 1] = bad
    with pytest.raises(ValueError, match=r"X\[2\]: node features contain NaN or inf"):
        to_graph_set([X3, X3, feats, X3])


def test_error_non_finite_features_in_pyg_data():
    x = torch.as_tensor(X3).clone()
    x[0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"X\[1\]: node features contain NaN or inf"):
        to_graph_set([X3, Data(x=x)])


def test_error_n_features_differ_between_samples():
    with pytest.raises(ValueError, match=r"X\[2\] has 3 node features, but X\[0\] has 2"):
        to_graph_set([X3, X4, np.ones((2, 3))])


def test_error_n_features_differ_from_fit():
    with pytest.raises(
        ValueError, match=r"X\[0\] has 2 node features, but the data seen in fit has 3"
    ):
        to_graph_set([X3], n_features=3)
    # the matching width passes
    assert to_graph_set([X3], n_features=2).n_features == 2


@pytest.mark.parametrize(
    "adj",
    [np.zeros((3, 4)), np.zeros((4, 4)), np.zeros(3), sp.csr_matrix((3, 4)), sp.csr_matrix((4, 4))],
    ids=["dense-3x4", "dense-4x4", "dense-1d", "sparse-3x4", "sparse-4x4"],
)
def test_error_adjacency_not_square_n_by_n(adj):
    with pytest.raises(
        ValueError, match=r"X\[1\]: adjacency has shape .*, expected \(3, 3\) for 3 nodes"
    ):
        to_graph_set([X4, (X3, adj)])


@pytest.mark.parametrize(
    ("edge_index", "node"),
    [([[0, 1], [1, 3]], 3), ([[7, 1], [1, 0]], 7), ([[0, 1], [-1, 0]], -1)],
    ids=["too-large-dst", "too-large-src", "negative"],
)
def test_error_edge_index_out_of_range(edge_index, node):
    data = Data(x=torch.as_tensor(X3), edge_index=torch.tensor(edge_index))
    with pytest.raises(
        ValueError, match=rf"X\[1\]: edge index refers to node {node}, but the graph has 3 nodes"
    ):
        to_graph_set([X3, data])


def _weighted(weight) -> Data:
    return Data(
        x=torch.as_tensor(X3),
        edge_index=torch.tensor([[0, 1], [1, 2]]),
        edge_weight=torch.tensor(weight, dtype=torch.float32),
    )


def test_error_negative_edge_weight():
    with pytest.raises(ValueError, match=r"X\[1\]: negative edge weight -2\.0"):
        to_graph_set([X3, _weighted([1.0, -2.0])])
    adj = np.array([[0, -1, 0], [-1, 0, 0], [0, 0, 0]], dtype=np.float32)
    with pytest.raises(ValueError, match=r"X\[2\]: negative edge weight"):
        to_graph_set([X3, X3, (X3, adj)])
    with pytest.raises(ValueError, match=r"X\[0\]: negative edge weight"):
        to_graph_set([(X3, sp.csr_matrix(adj))])


@pytest.mark.parametrize("bad", [np.nan, np.inf], ids=["nan", "inf"])
def test_error_non_finite_edge_weight(bad):
    with pytest.raises(ValueError, match=r"X\[1\]: non-finite edge weight"):
        to_graph_set([X3, _weighted([1.0, bad])])
    adj = np.zeros((3, 3), dtype=np.float32)
    adj[0, 2] = bad
    with pytest.raises(ValueError, match=r"X\[1\]: non-finite edge weight"):
        to_graph_set([X3, (X3, adj)])


def test_error_edge_weight_length_mismatch():
    data = Data(
        x=torch.as_tensor(X3),
        edge_index=torch.tensor([[0, 1], [1, 2]]),
        edge_weight=torch.ones(3),
    )
    with pytest.raises(ValueError, match=r"X\[1\]: edge_weight has 3 entries for 2 edges"):
        to_graph_set([X3, data])


@pytest.mark.parametrize(
    ("sample", "name"),
    [("graph", "str"), ({"x": X3}, "dict"), (3.5, "float"), (None, "NoneType")],
    ids=["str", "dict", "float", "None"],
)
def test_error_unsupported_sample_type(sample, name):
    with pytest.raises(TypeError, match=rf"X\[1\] is of unsupported type {name}"):
        to_graph_set([X3, sample])


@pytest.mark.parametrize("X", ["graphs", {"a": X3}, 5], ids=["str", "dict", "int"])
def test_error_X_not_a_sequence(X):
    with pytest.raises(TypeError, match="X must be a sequence of graphs"):
        to_graph_set(X)


@pytest.mark.parametrize(
    "X", [np.zeros(5), [1.0, 2.0], np.zeros((2, 3, 4, 5))], ids=["1d", "1d-list", "4d"]
)
def test_error_numeric_array_of_wrong_rank_as_X(X):
    with pytest.raises(ValueError, match=rf"X is a {np.ndim(X)}-D array"):
        to_graph_set(X)


@pytest.mark.parametrize("X", [X3, torch.as_tensor(X3)], ids=["2d-numpy", "2d-torch"])
def test_two_d_array_is_a_table_of_feature_graphs(X):
    graphs = to_graph_set(X)
    assert len(graphs) == X3.shape[0] and set(graphs.sizes) == {X3.shape[1]}
    assert graphs.n_features == 2 * X3.shape[1] and graphs.edge_index.shape == (2, 0)


def test_error_two_d_object_array_as_X():
    X = np.empty((2, 2), dtype=object)  # None entries read as NaN, as sklearn does
    with pytest.raises(ValueError, match=r"X\[0\] contains NaN or inf"):
        to_graph_set(X)
    X = np.array([[1.0, 2.0], [3.0, "a"]], dtype=object)
    with pytest.raises(TypeError, match="X could not be read as a numeric table"):
        to_graph_set(X)


@pytest.mark.parametrize(
    "sample",
    [np.array([1.0, 2.0]), torch.tensor([1.0, 2.0]), (np.array([1.0, 2.0]), np.zeros((2, 2)))],
    ids=["numpy", "torch", "pair"],
)
def test_error_one_d_feature_vector_sample(sample):
    with pytest.raises(ValueError, match=r"X\[1\]: node features must be 2-D .*got shape \(2,\)"):
        to_graph_set([X3, sample])


def test_error_networkx_node_missing_attribute():
    g = nx.path_graph(3)
    g.nodes[0]["x"] = X3[0]
    g.nodes[1]["x"] = X3[1]
    with pytest.raises(ValueError, match=r"X\[1\]: node 2 has no feature attribute 'x'"):
        to_graph_set([X3, g])
    nx.set_node_attributes(g, {k: X3[k] for k in range(3)}, "x")
    with pytest.raises(ValueError, match=r"X\[0\]: node 0 has no feature attribute 'feat'"):
        to_graph_set([g], node_attr="feat")


def test_error_networkx_feature_lengths_differ():
    g = nx.path_graph(2)
    g.nodes[0]["x"] = np.ones(2)
    g.nodes[1]["x"] = np.ones(3)
    with pytest.raises(ValueError, match=r"X\[0\]: nodes carry feature vectors of different"):
        to_graph_set([g])


@pytest.mark.parametrize(
    "sample",
    [
        np.array([["a", "b"], ["c", "d"]]),
        [[1.0, "a"], [2.0, "b"]],
        np.array([[1.0, None]], dtype=object),
        (np.array([["a", "b"]]), np.zeros((1, 1))),
    ],
    ids=["str-array", "mixed-list", "object-array", "pair"],
)
def test_error_non_numeric_features(sample):
    with pytest.raises(TypeError, match=r"X\[1\]: node features must be numeric"):
        to_graph_set([X3, sample])


def test_error_non_numeric_networkx_features():
    g = nx.path_graph(2)
    nx.set_node_attributes(g, {0: ["a", "b"], 1: ["c", "d"]}, "x")
    with pytest.raises(TypeError, match=r"X\[1\]: node features must be numeric"):
        to_graph_set([X3, g])


def test_error_non_numeric_adjacency():
    adj = np.array([["a", "b"], ["c", "d"]])
    with pytest.raises(TypeError, match=r"X\[0\]: adjacency must be numeric"):
        to_graph_set([(X3[:2], adj)])


def test_error_tuple_sample_of_wrong_length():
    with pytest.raises(ValueError, match=r"X\[1\]: a tuple sample must be \(features, adjacency\)"):
        to_graph_set([X3, (X3, np.zeros((3, 3)), "extra")])


def test_error_pyg_data_without_features():
    data = Data(edge_index=torch.tensor([[0], [1]]), num_nodes=2)
    with pytest.raises(ValueError, match=r"X\[0\]: the Data object has no node features"):
        to_graph_set([data])


def test_error_pyg_edge_index_bad_shape_or_dtype():
    data = Data(x=torch.as_tensor(X3), edge_index=torch.tensor([[0, 1, 2]]))
    with pytest.raises(ValueError, match=r"X\[0\]: edge_index must have shape \(2, n_edges\)"):
        to_graph_set([data])
    data = Data(x=torch.as_tensor(X3), edge_index=torch.tensor([[0.0], [1.0]]))
    with pytest.raises(TypeError, match=r"X\[0\]: edge_index must hold integers"):
        to_graph_set([data])


# ---------------------------------------------------------------------------
# networkx is optional
# ---------------------------------------------------------------------------


def test_networkx_not_imported_for_array_inputs():
    # torch_geometric 2.8 does not import networkx on import (checked here
    # first), so the subprocess can check sys.modules directly.
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import torch_geometric\n"
        "print('PYG_IMPORTS_NETWORKX' if 'networkx' in sys.modules else 'PYG_CLEAN')\n"
        "import sk_vibgsl\n"
        "from sk_vibgsl._inputs import to_graph_set\n"
        "gs = to_graph_set([np.ones((3, 2)), (np.ones((4, 2)), np.eye(4))])\n"
        "assert len(gs) == 2\n"
        "print('NX_LOADED' if 'networkx' in sys.modules else 'NX_ABSENT')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr
    if "PYG_IMPORTS_NETWORKX" in proc.stdout:  # pragma: no cover - other PyG versions
        pytest.skip("torch_geometric itself imports networkx; see the source check below")
    assert "NX_ABSENT" in proc.stdout, proc.stdout


def test_inputs_module_has_no_top_level_networkx_import():
    # Holds whatever torch_geometric imports: _inputs never imports networkx
    # at all, it recognises networkx graphs by their type's module.
    source = inspect.getsource(_inputs)
    assert not re.search(r"^\s*(import networkx|from networkx)", source, flags=re.M)
