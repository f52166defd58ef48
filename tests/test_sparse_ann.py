"""Approximate all-pairs top-k (sk_vibgsl/nn/sparse_ann.py, ``top_k_search="approx"``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import sk_vibgsl.nn.sparse_structure as sparse_structure
from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl.nn import VIBGSLModule
from sk_vibgsl.nn.sparse_ann import ANN_WINDOW, ann_directions, approx_top_k, hash_windows
from sk_vibgsl.nn.sparse_structure import ib_edges, top_k_all_pairs


def _pairs(sel: torch.Tensor) -> set:
    return set(map(tuple, sel.T.tolist()))


def _clustered(n, d=16, clusters=20, seed=0, spread=3.0):
    """Gaussian clusters: centres of scale ``spread``, unit noise."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(clusters, d, generator=g) * spread
    return centres[torch.randint(clusters, (n,), generator=g)] + torch.randn(n, d, generator=g)


def _recall(z, ptr, k, **kw):
    exact = top_k_all_pairs(z, ptr, k)
    got = _pairs(approx_top_k(z, ptr, k, **kw))
    return sum(p in got for p in _pairs(exact)) / exact.shape[1]


def test_recall_on_clustered_embeddings_inner_product():
    # two graphs (4,000 and 1,500 nodes) of 16-d embeddings in 20 clusters, k = 8:
    # measured 0.996 with the defaults (window 16, 4 repetitions, 2 rounds)
    z = torch.cat([_clustered(4000, seed=0), _clustered(1500, seed=1)])
    ptr = torch.tensor([0, 4000, 5500])
    assert _recall(z, ptr, 8) >= 0.95


def test_recall_on_clustered_embeddings_cosine():
    # unit vectors (edge_score="cosine" embeds on a sphere), 1,000 nodes: measured 0.98
    z = F.normalize(_clustered(1000, seed=2), dim=1)
    assert _recall(z, torch.tensor([0, 1000]), 8) >= 0.9


def test_recall_grows_with_the_search_effort():
    # the search is not exact on a large structureless graph, and more work finds more
    z = torch.randn(3000, 16, generator=torch.Generator().manual_seed(3))
    ptr = torch.tensor([0, 3000])
    small = _recall(z, ptr, 8, repeats=1, rounds=0)
    large = _recall(z, ptr, 8, repeats=8, rounds=3)
    assert small < 0.6 and large > small + 0.2


@pytest.mark.parametrize("k", [1, 3, 8, 20])
def test_exact_when_every_graph_fits_in_the_window(k):
    g = torch.Generator().manual_seed(0)
    sizes = (9, 5, 1, 7, ANN_WINDOW, 2)
    z = torch.randn(sum(sizes), 6, generator=g, dtype=torch.float64)
    ptr = torch.tensor([0, *sizes]).cumsum(0)
    got = approx_top_k(z, ptr, k)
    assert _pairs(got) == _pairs(top_k_all_pairs(z, ptr, k))
    assert got.shape[1] == len(_pairs(got))  # each pair once


def test_windows_cover_small_graphs_and_stay_in_their_graph():
    sizes = torch.tensor([40, 3, 100])
    ptr = torch.cat([torch.zeros(1, dtype=torch.long), sizes.cumsum(0)])
    unit = F.normalize(torch.randn(int(sizes.sum()), 5), dim=1)
    graph = torch.repeat_interleave(torch.arange(3), sizes)
    for found in hash_windows(unit, ptr, window=8, repeats=2):
        assert found.shape == (len(unit), 8)
        ok = found >= 0
        assert (graph[found.clamp(min=0)] == graph.unsqueeze(1))[ok].all()
        assert ok[graph != 1].all() and ok[graph == 1].sum(1).eq(3).all()  # 3-node graph: all


def test_same_seed_same_selection_other_seed_other_directions():
    z = _clustered(2000, seed=4)
    ptr = torch.tensor([0, 2000])
    a = approx_top_k(z, ptr, 8, seed=7)
    assert torch.equal(a, approx_top_k(z, ptr, 8, seed=7))
    assert not torch.equal(ann_directions(7, 17, 6, 4), ann_directions(8, 17, 6, 4))
    assert _pairs(a) != _pairs(approx_top_k(torch.randn(2000, 16), ptr, 8, seed=7))


def test_a_graphs_selection_does_not_depend_on_the_batch():
    # a larger graph in the batch raises the bit count of the batch; the
    # 600-node graph keeps its own bits, directions and windows
    z1, z2, z3 = _clustered(600, seed=5), _clustered(2500, seed=6), _clustered(10, seed=7)
    alone = approx_top_k(z1, torch.tensor([0, 600]), 8, seed=3)
    batch = approx_top_k(torch.cat([z3, z1, z2]), torch.tensor([0, 10, 610, 3110]), 8, seed=3)
    mine = (batch[0] >= 10) & (batch[0] < 610)
    assert _pairs(batch[:, mine] - 10) == _pairs(alone)


def test_ib_edges_approx_equals_exact_on_small_graphs_weights_and_gradients():
    sizes = (9, 5, 12)
    ptr = torch.tensor([0, *sizes]).cumsum(0)
    base = torch.randn(sum(sizes), 4, dtype=torch.float64)
    out = {}
    for search in ("exact", "approx"):
        z = base.clone().requires_grad_()
        edges = ib_edges(z, None, ptr, k=3, search=search, temperature=None, threshold=0.0)
        edges.weight.sum().backward()
        out[search] = (edges.row, edges.col, edges.weight.detach(), z.grad)
    for a, b in zip(out["exact"], out["approx"]):
        assert torch.equal(a, b)


def test_ib_edges_refuses_approx_without_k():
    z, ptr = torch.randn(5, 3), torch.tensor([0, 5])
    with pytest.raises(ValueError, match="structure_k"):
        ib_edges(z, None, ptr, k=None, search="approx")
    with pytest.raises(ValueError, match="search"):
        ib_edges(z, None, ptr, k=2, search="fast")


def _batch(n_graphs=3, n=60, f=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n_graphs, n, f, generator=g)
    mask = torch.ones(n_graphs, n, dtype=torch.bool)
    mask[1, 40:] = False
    return x, mask


def test_gradients_reach_the_structure_parameters():
    x, mask = _batch()
    module = VIBGSLModule(5, 2, structure_k=4, graph_path="sparse", top_k_search="approx")
    module.train()
    logits, *_ = module(x, mask)
    F.cross_entropy(logits, torch.tensor([0, 1, 0])).backward()
    for p in module.structure.parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0


def test_module_approx_draws_its_seed_after_the_weights_and_saves_it():
    torch.manual_seed(0)
    exact = VIBGSLModule(5, 2, structure_k=4)
    torch.manual_seed(0)
    approx = VIBGSLModule(5, 2, structure_k=4, top_k_search="approx")
    e, a = exact.state_dict(), approx.state_dict()
    assert set(a) - set(e) == {"top_k_seed"} and "top_k_seed" not in e
    assert all(torch.equal(e[name], a[name]) for name in e)
    fresh = VIBGSLModule(5, 2, structure_k=4, top_k_search="approx")
    assert fresh.ann_seed != approx.ann_seed
    fresh.load_state_dict(a)
    assert fresh.ann_seed == approx.ann_seed
    x, mask = _batch()
    fresh.eval(), approx.eval()
    assert torch.equal(fresh(x, mask)[0], approx(x, mask)[0])


@pytest.fixture
def approx_calls(monkeypatch) -> list:
    """Records each call of ``approx_top_k`` made through ``ib_edges``."""
    calls = []
    real = sparse_structure.approx_top_k
    monkeypatch.setattr(sparse_structure, "approx_top_k",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    return calls


def test_module_uses_the_approx_search_only_on_the_sparse_path(approx_calls):
    calls = approx_calls
    x, mask = _batch()
    VIBGSLModule(5, 2, structure_k=4, graph_path="auto", top_k_search="approx")(x, mask)
    assert not calls  # 60 nodes: "auto" runs dense, exactly
    VIBGSLModule(5, 2, structure_k=4, graph_path="sparse", top_k_search="approx")(x, mask)
    assert calls


def _feature_matrices(n_graphs=16, seed=0):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n_graphs):
        x = rng.normal(size=(int(rng.integers(30, 80)), 4)).astype(np.float32)
        x[:, 0] += 1.0 if i % 2 else -1.0
        X.append(x)
        y.append(i % 2)
    return X, np.array(y)


def test_estimator_fits_and_predicts_bare_feature_matrices(approx_calls):
    calls = approx_calls
    X, y = _feature_matrices()
    params = dict(structure_k=4, graph_path="sparse", top_k_search="approx", max_epochs=3,
                  batch_size=8, random_state=0, torch_threads=1)
    clf = VIBGSLClassifier(**params).fit(X, y)
    assert calls
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2) and np.isfinite(proba).all()
    again = VIBGSLClassifier(**params).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(proba, again)  # reproducible with random_state


def test_exact_is_the_default_and_unchanged():
    X, y = _feature_matrices(8)
    params = dict(structure_k=4, graph_path="sparse", max_epochs=2, batch_size=4,
                  random_state=0, torch_threads=1)
    default = VIBGSLClassifier(**params)
    assert default.top_k_search == "exact"
    a = default.fit(X, y).predict_proba(X)
    b = VIBGSLClassifier(top_k_search="exact", **params).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    assert "top_k_seed" not in default.module_.state_dict()


@pytest.mark.parametrize(
    "params, match",
    [
        ({"top_k_search": "fast", "structure_k": 4}, "top_k_search must be one of"),
        ({"top_k_search": "approx"}, "top_k_search='approx' needs structure_k"),
        ({"top_k_search": "approx", "structure_k": 4, "candidate_hops": 1},
         "top_k_search='approx' searches all pairs"),
        ({"top_k_search": "approx", "structure_k": 4, "graph_path": "dense"},
         "top_k_search='approx' runs on the sparse path only"),
    ],
)
def test_bad_values_are_refused_naming_the_parameter(params, match):
    X, y = _feature_matrices(4)
    with pytest.raises(ValueError, match=match):
        VIBGSLClassifier(max_epochs=1, **params).fit(X, y)
    with pytest.raises(ValueError, match=match):
        VIBGSLModule(4, 2, **params)
