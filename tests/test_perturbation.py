"""perturb_edges and EdgePerturber: counts, kinds, features, reproducibility, errors."""

from __future__ import annotations

import copy

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import torch
from sklearn.pipeline import make_pipeline
from torch_geometric.data import Data

from sk_vibgsl import DegreeFeatures, EdgePerturber, VIBGSLClassifier, perturb_edges
from sk_vibgsl._inputs import to_graph_set


def _random_adjacency(n: int, p: float, rng) -> np.ndarray:
    adj = np.triu((rng.random((n, n)) < p).astype(np.float32), 1)
    return adj + adj.T


def _pairs(n_graphs=8, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_graphs):
        n = int(rng.integers(8, 20))
        out.append((rng.normal(size=(n, 3)).astype(np.float32), _random_adjacency(n, 0.3, rng)))
    return out


def _edge_sets(graphs) -> list[set]:
    gs = to_graph_set(graphs)
    sets = []
    for i in range(len(gs)):
        _, ei, _ = gs.graph(i)
        sets.append({(int(u), int(v)) for u, v in ei.T if u < v})
    return sets


def _expected(m: int, frac: float) -> int:
    return int(np.floor(frac * m + 0.5))


@pytest.mark.parametrize("add, remove", [(0.25, 0.0), (0.0, 0.5), (0.75, 0.75), (0.5, 1.0)])
def test_edge_counts_change_by_the_asked_fraction(add, remove):
    graphs = _pairs()
    before = _edge_sets(graphs)
    after = _edge_sets(perturb_edges(graphs, add=add, remove=remove, random_state=0))
    for old, new in zip(before, after):
        m = len(old)
        assert len(old - new) == _expected(m, remove)
        assert len(new - old) == _expected(m, add)
        assert len(new) == m - _expected(m, remove) + _expected(m, add)


def test_rounding_is_half_up_and_addition_capped_at_the_complete_graph():
    # a path of 3 edges: 0.5 * 3 = 1.5 -> 2 removed
    path = (np.ones((4, 1)), nx.to_numpy_array(nx.path_graph(4)))
    [(_, adj)] = perturb_edges([path], remove=0.5, random_state=0)
    assert int(np.triu(adj, 1).sum()) == 1
    # 4 nodes, 3 edges: only 3 non-edges exist, asking for 6 adds 3
    [(_, adj)] = perturb_edges([path], add=2.0, random_state=0)
    assert int(np.triu(adj, 1).sum()) == 6


def test_node_features_untouched_and_input_not_mutated():
    graphs = _pairs()
    snapshot = copy.deepcopy(graphs)
    out = perturb_edges(graphs, add=0.5, remove=0.5, random_state=1)
    for (f0, a0), (f1, a1), (f2, _) in zip(snapshot, graphs, out):
        np.testing.assert_array_equal(f0, f1)
        np.testing.assert_array_equal(a0, a1)
        np.testing.assert_array_equal(f0, f2)


def test_reproducible_with_a_seed_and_different_otherwise():
    graphs = _pairs()
    a = _edge_sets(perturb_edges(graphs, add=0.5, remove=0.5, random_state=3))
    b = _edge_sets(perturb_edges(graphs, add=0.5, remove=0.5, random_state=3))
    c = _edge_sets(perturb_edges(graphs, add=0.5, remove=0.5, random_state=4))
    assert a == b
    assert a != c


def test_zero_fractions_keep_the_graph():
    graphs = _pairs()
    assert _edge_sets(perturb_edges(graphs, random_state=0)) == _edge_sets(graphs)


def test_kept_edges_keep_weights_new_edges_weigh_one():
    rng = np.random.default_rng(0)
    adj = _random_adjacency(12, 0.4, rng)
    weights = np.triu(rng.uniform(2, 3, size=adj.shape), 1)
    adj = adj * (weights + weights.T)
    [(_, new)] = perturb_edges([(np.ones((12, 1)), adj)], add=0.5, remove=0.5, random_state=0)
    kept = (adj > 0) & (new > 0)
    np.testing.assert_allclose(new[kept], adj[kept])
    assert np.all(new[(adj == 0) & (new > 0)] == 1.0)
    np.testing.assert_array_equal(new, new.T)


def test_data_kind_keeps_features_and_weight_and_drops_edge_attr():
    pair = _pairs(1)[0]
    src, dst = np.nonzero(pair[1])
    data = Data(x=torch.as_tensor(pair[0]),
                edge_index=torch.as_tensor(np.stack([src, dst])),
                edge_weight=torch.full((len(src),), 2.0),
                edge_attr=torch.ones(len(src), 4))
    [out] = perturb_edges([data], add=0.5, remove=0.25, random_state=0)
    assert isinstance(out, Data)
    assert torch.equal(out.x, data.x)
    assert out.edge_attr is None and data.edge_attr is not None
    assert out.edge_weight.shape[0] == out.edge_index.shape[1]
    m = len(src) // 2
    expected = m - _expected(m, 0.25) + _expected(m, 0.5)
    assert out.edge_index.shape[1] == 2 * expected
    assert data.edge_index.shape[1] == len(src)  # input untouched


def test_networkx_kind_keeps_node_labels_and_features():
    rng = np.random.default_rng(0)
    graph = nx.relabel_nodes(nx.gnp_random_graph(15, 0.3, seed=1), lambda k: f"n{k}")
    for node in graph.nodes:
        graph.nodes[node]["x"] = rng.normal(size=2)
    [out] = perturb_edges([graph], add=0.25, remove=0.25, random_state=0)
    assert isinstance(out, nx.Graph) and out is not graph
    assert list(out.nodes) == list(graph.nodes)
    for node in graph.nodes:
        np.testing.assert_array_equal(out.nodes[node]["x"], graph.nodes[node]["x"])
    m = graph.number_of_edges()
    assert out.number_of_edges() == m - _expected(m, 0.25) + _expected(m, 0.25)
    assert set(out.edges) != set(graph.edges)


def test_sparse_adjacency_keeps_its_format_and_self_loops_are_kept():
    feats, adj = _pairs(1)[0]
    adj = adj.copy()
    adj[0, 0] = 1.0
    [(f, new)] = perturb_edges([(feats, sp.csr_matrix(adj))], remove=1.0, random_state=0)
    assert sp.issparse(new) and new.format == "csr"
    assert f is feats
    dense = new.toarray()
    assert dense[0, 0] == 1.0 and np.count_nonzero(dense) == 1


def test_bare_matrices_have_no_edges_and_come_back_unchanged():
    mats = [np.ones((4, 2)), np.zeros((3, 2))]
    out = perturb_edges(mats, add=0.5, remove=0.5, random_state=0)
    assert all(a is b for a, b in zip(out, mats))
    cube = np.ones((3, 4, 2))
    assert perturb_edges(cube, add=1.0) is cube


@pytest.mark.parametrize(
    "kwargs, match",
    [({"remove": 1.5}, r"remove must be in \[0, 1\]"),
     ({"remove": -0.1}, r"remove must be in \[0, 1\]"),
     ({"add": -0.5}, "add must be >= 0"),
     ({"add": float("nan")}, "add must be >= 0")],
)
def test_bad_fractions_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        perturb_edges(_pairs(2), **kwargs)
    with pytest.raises(ValueError, match=match):
        EdgePerturber(**kwargs).fit(_pairs(2))


def test_bad_sample_is_named():
    graphs = _pairs(3)
    graphs[2] = (graphs[2][0], np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"X\[2\]"):
        perturb_edges(graphs, remove=0.5)


def test_large_graph_uses_rejection_sampling_with_exact_counts():
    n = 1500  # more than 1e6 node pairs
    src = np.arange(n - 1)
    data = Data(x=torch.ones(n, 1), edge_index=torch.as_tensor(np.stack([src, src + 1])))
    [out] = perturb_edges([data], add=0.5, random_state=0)
    edges = {tuple(sorted(e)) for e in out.edge_index.T.tolist()}
    assert len(edges) == (n - 1) + _expected(n - 1, 0.5)
    assert all(u != v for u, v in edges)


def test_edge_perturber_in_a_pipeline():
    graphs = _pairs(30)
    y = np.arange(30) % 2
    step = EdgePerturber(remove=0.5, random_state=0)
    assert _edge_sets(step.fit_transform(graphs)) == _edge_sets(
        perturb_edges(graphs, remove=0.5, random_state=0))
    model = make_pipeline(step, DegreeFeatures(), VIBGSLClassifier(max_epochs=1, random_state=0))
    assert model.fit(graphs, y).predict(graphs).shape == (30,)
