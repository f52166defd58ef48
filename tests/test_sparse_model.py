"""The sparse path of VIBGSLModule (sk_vibgsl/nn/sparse_model.py,
sk_vibgsl/nn/sparse_backbones.py) against the dense path."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from conftest import make_graphs

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl.nn import VIBGSLModule
from sk_vibgsl.nn.backbones import Backbone
from sk_vibgsl.nn.sparse_backbones import edge_graph, mean_pool, sparse_backbone, sum_pool
from sk_vibgsl.nn.sparse_model import sparse_batch, sparse_encode
from sk_vibgsl.nn.vib import gaussian_parameters


def _padded(sizes=(7, 4, 6, 1), n=None, f=5, seed=0, p=0.4):
    g = torch.Generator().manual_seed(seed)
    n = n or max(sizes)
    b = len(sizes)
    mask = torch.arange(n) < torch.tensor(sizes).unsqueeze(1)
    x = torch.randn(b, n, f, generator=g, dtype=torch.float64) * mask.unsqueeze(-1)
    a = (torch.rand(b, n, n, generator=g) < p).double().triu(1)
    adj = (a + a.transpose(1, 2)) * mask.unsqueeze(-1) * mask.unsqueeze(-2)
    adj = adj * torch.rand(b, n, n, generator=g, dtype=torch.float64).add(0.5)
    adj = (adj + adj.transpose(1, 2)) / 2
    adj[0, 2, 2] = 0.7  # an observed self-loop
    return x, mask, adj


def _module(backbone="gcn", lam=0.0, **kw):
    torch.manual_seed(0)
    kw.setdefault("edge_threshold", 0.3)
    m = VIBGSLModule(5, 3, hidden_dim=8, ib_size=4, backbone=backbone, structure_mix=lam,
                     **kw).double()
    m.set_feature_mean(torch.randn(5, dtype=torch.float64))
    return m


def _encode_dense(m, x, mask, adj):
    return m.encode(x, mask, adj)


def _encode_sparse(m, x, mask, adj, **kw):
    pooled, _, _ = sparse_encode(m, x, mask, adj=adj, **kw)
    return gaussian_parameters(pooled, m.ib_size)


@pytest.mark.parametrize("backbone", ["gcn", "gat", "gin"])
@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
def test_sparse_path_equals_dense_path_with_k_at_least_n_minus_1(backbone, lam):
    x, mask, adj = _padded()
    m = _module(backbone, lam, structure_k=6).eval()
    dense = _encode_dense(m, x, mask, adj)
    sparse = _encode_sparse(m, x, mask, adj)
    params = [p for p in m.parameters() if p.requires_grad]
    g_dense = torch.autograd.grad(sum(t.pow(2).sum() for t in dense), params, allow_unused=True)
    g_sparse = torch.autograd.grad(sum(t.pow(2).sum() for t in sparse), params, allow_unused=True)
    for a, b in zip(dense, sparse):
        assert torch.allclose(a, b, atol=1e-10)
    for a, b in zip(g_dense, g_sparse):
        assert (a is None) == (b is None)
        if a is not None:
            assert torch.allclose(a, b, atol=1e-9)


def test_sparse_training_step_equals_dense_with_the_same_noise():
    x, mask, adj = _padded()
    m = _module("gcn", feature_mask=False, structure_k=10).train()
    torch.manual_seed(5)
    dense = _encode_dense(m, x, mask, adj)
    torch.manual_seed(5)
    full = torch.rand(mask.shape[0], mask.shape[1], mask.shape[1],
                      dtype=torch.float64).logit_(eps=1e-6)
    nodes = sparse_batch(mask)
    # the kept pairs, in the sparse path's order: every pair u < v of each graph
    pairs = []
    for g, (s, e) in enumerate(zip(nodes.ptr[:-1].tolist(), nodes.ptr[1:].tolist())):
        pairs += [(g, u, v) for u in range(e - s) for v in range(u + 1, e - s)]
    g, u, v = torch.tensor(pairs).T
    sparse = _encode_sparse(m, x, mask, adj, noise=full[g, u, v])
    for a, b in zip(dense, sparse):
        assert torch.allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("num_layers", [2, 3])
@pytest.mark.parametrize("backbone", ["gcn", "gat", "gin"])
def test_sparse_backbone_equals_dense_backbone_on_a_weighted_graph(backbone, num_layers):
    x, mask, adj = _padded(p=0.3)
    adj = adj.requires_grad_(True)
    torch.manual_seed(0)
    bb = Backbone(backbone, 5, 6, 4, batch_norm=backbone == "gin",
                  num_layers=num_layers).double()
    dense = bb(x, adj, mask)[mask]
    nodes = sparse_batch(mask)
    b, i, j = adj.detach().nonzero(as_tuple=True)
    base = nodes.ptr[b]
    graph = edge_graph(torch.stack([base + i, base + j]), adj[b, i, j], len(nodes.real))
    h = x.reshape(-1, 5)[nodes.real] @ bb.conv1.first_weight.T
    sparse = sparse_backbone(bb, h, graph)
    assert torch.allclose(dense, sparse, atol=1e-10)
    ga = torch.autograd.grad(dense.pow(2).sum(), adj)[0]
    gb = torch.autograd.grad(sparse.pow(2).sum(), adj)[0]
    edge = adj.detach() != 0  # the edge list has no gradient off its edges
    assert torch.allclose(ga[edge], gb[edge], atol=1e-9)
    assert not gb[~edge].any()


def test_mean_pool_averages_each_graph():
    h = torch.arange(10.0).view(5, 2)
    out = mean_pool(h, torch.tensor([0, 0, 2, 2, 2]), 3)
    assert out.tolist() == [[1.0, 2.0], [0.0, 0.0], [6.0, 7.0]]


def test_sum_pool_sums_each_graph():
    h = torch.arange(10.0).view(5, 2)
    out = sum_pool(h, torch.tensor([0, 0, 2, 2, 2]), 3)
    assert out.tolist() == [[2.0, 4.0], [0.0, 0.0], [18.0, 21.0]]


def test_sparse_path_is_padding_invariant_and_batch_independent():
    x, mask, adj = _padded()
    m = _module("gcn", 0.5, structure_k=2, graph_path="sparse").eval()
    logits = m(x, mask, adj)[0]
    x2, mask2, adj2 = (torch.nn.functional.pad(x, (0, 0, 0, 5)),
                       torch.nn.functional.pad(mask, (0, 5)),
                       torch.nn.functional.pad(adj, (0, 5, 0, 5)))
    assert torch.allclose(m(x2, mask2, adj2)[0], logits, atol=1e-12)
    for b in range(len(mask)):
        n = int(mask[b].sum())
        alone = m(x[b:b + 1, :n], mask[b:b + 1, :n], adj[b:b + 1, :n, :n])[0]
        assert torch.allclose(alone, logits[b:b + 1], atol=1e-12)


def test_edge_list_batch_equals_dense_adjacency_batch():
    x, mask, adj = _padded()
    m = _module("gat", 0.5, candidate_hops=2, structure_k=2, graph_path="sparse").eval()
    n = mask.shape[1]
    b, i, j = adj.nonzero(as_tuple=True)
    width = int(torch.bincount(b, minlength=len(mask)).max())
    index = torch.zeros(len(mask), width, dtype=torch.int32)
    weight = torch.zeros(len(mask), width, dtype=torch.float64)
    for g in range(len(mask)):
        sel = b == g
        index[g, :int(sel.sum())] = (i[sel] * n + j[sel]).int()
        weight[g, :int(sel.sum())] = adj[g, i[sel], j[sel]]
    got = m(x, mask, adj_index=index, adj_weight=weight)[0]
    assert torch.allclose(got, m(x, mask, adj)[0], atol=1e-12)


@pytest.mark.parametrize("kw", [{"structure_k": 2}, {"candidate_hops": 1, "structure_k": 1},
                                {"candidate_hops": 2}, {"edge_score": "cosine", "structure_k": 2}])
def test_every_structure_parameter_gets_a_gradient_on_the_sparse_path(kw):
    x, mask, adj = _padded(sizes=(12, 9), p=0.3)
    m = _module("gcn", edge_threshold=0.0, graph_path="sparse", **kw).train()
    logits, kl, _, _ = m(x, mask, adj)
    (logits.pow(2).sum() + kl.sum()).backward()
    for name, p in m.structure.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name
    assert m.feature_mask.logits.grad.abs().sum() > 0


def test_auto_path_picks_sparse_only_for_sparsified_large_batches():
    small = torch.ones(2, 20, dtype=torch.bool)
    medium = torch.ones(2, 100, dtype=torch.bool)
    large = torch.ones(1, 300, dtype=torch.bool)
    assert not _module().uses_sparse_path(large)
    assert not _module(structure_k=5).uses_sparse_path(small)
    assert not _module(structure_k=5).uses_sparse_path(medium)
    assert _module(structure_k=5).uses_sparse_path(large)
    assert _module(candidate_hops=1).uses_sparse_path(medium)
    assert not _module(candidate_hops=1).uses_sparse_path(small)
    assert _module("gcn", 1.0).uses_sparse_path(large)
    assert _module(graph_path="sparse").uses_sparse_path(small)
    assert not _module(structure_k=5, graph_path="dense").uses_sparse_path(large)
    with pytest.raises(ValueError, match="graph_path must be one of"):
        _module(graph_path="edges")


# --------------------------------------------------------------------------- #
# the estimator
# --------------------------------------------------------------------------- #
FAST = {"max_epochs": 2, "batch_size": 16, "random_state": 0}


def test_classifier_on_the_sparse_path_is_deterministic_and_predicts():
    X, y = make_graphs(40)
    kw = dict(graph_path="sparse", structure_k=2, candidate_hops=2, structure_mix=0.3, **FAST)
    a = VIBGSLClassifier(**kw).fit(X, y)
    b = VIBGSLClassifier(**kw).fit(X, y)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.predict(X).shape == (40,)
    graphs = a.ib_graphs(X[:3])
    assert all(sp.issparse(adj) and adj.shape == (len(f), len(f)) for f, adj in graphs)
    assert all((abs(adj - adj.T) > 1e-6).nnz == 0 for _, adj in graphs)


def test_classifier_ib_graphs_agree_between_paths_when_everything_is_kept():
    X, y = make_graphs(30)
    clf = VIBGSLClassifier(structure_k=20, graph_path="dense", **FAST).fit(X, y)
    dense = clf.ib_graphs(X[:5])
    clf.set_params(graph_path="sparse")
    clf.module_.graph_path = "sparse"
    sparse = clf.ib_graphs(X[:5])
    for (fd, ad), (fs, as_) in zip(dense, sparse):
        assert np.allclose(fd, fs)
        assert np.allclose(ad, as_.toarray(), atol=1e-6)


def test_max_nodes_auto_follows_the_path_and_states_the_memory():
    X, y = make_graphs(10)
    big = (np.zeros((12_000, 4), dtype=np.float32), np.zeros((0, 2), dtype=np.int64))
    with pytest.raises(ValueError, match=r"more than max_nodes=10000: .* GiB on the dense"):
        VIBGSLClassifier(**FAST).fit([*X, big], [*y, 0])
    huge = (np.zeros((1_200_000, 1)), )
    with pytest.raises(ValueError, match=r"more than max_nodes=1000000: .* GiB on the sparse"):
        VIBGSLClassifier(structure_k=4, **FAST).fit([huge[0]], [0])
    with pytest.raises(ValueError, match="graph_path must be one of"):
        VIBGSLClassifier(graph_path="x", **FAST).fit(X, y)
    with pytest.raises(ValueError, match="structure_k must be None or an int >= 1"):
        VIBGSLClassifier(structure_k=0, **FAST).fit(X, y)


def test_sparse_memory_estimate_counts_the_extra_layers():
    from sk_vibgsl._memory import SPARSE_BYTES_PER_EDGE, SPARSE_BYTES_PER_NODE_WIDTH, step_bytes

    kw = {"sparse": True, "n_features": 3, "hidden": 16, "k": 4}
    two = step_bytes(1000, **kw)
    assert two == 1000 * (SPARSE_BYTES_PER_EDGE * 8 + SPARSE_BYTES_PER_NODE_WIDTH * (3 + 64))
    assert step_bytes(1000, layers=2, **kw) == two
    assert step_bytes(1000, layers=4, **kw) > 1.9 * two
    assert step_bytes(1000, sparse=False, layers=4) == step_bytes(1000, sparse=False)


@pytest.mark.parametrize("kw", [
    {"edge_score": "cosine", "structure_k": 6},
    {"edge_score": "cosine", "structure_k": 2},  # graph 2: nodes 3 and 5 tie for node 0
    {"candidate_hops": 1, "structure_k": 6, "edge_prior": 0.2},
    {"candidate_hops": 2, "edge_prior": 0.3},
    {"structure_k": 2, "candidate_hops": 2},
    {"structure_k": 2},
    {"structure_mix": 0.4, "learn_mix": True, "structure_k": 3, "edge_prior": 0.1},
    {"structure_mix": 0.5, "ib_graph_norm": "row"},
    {"ib_graph_norm": "row", "structure_k": 2},
    {"ib_graph_norm": "row", "edge_score": "cosine", "structure_k": 6, "structure_mix": 0.3},
    {"ib_graph_norm": "sym", "structure_k": 2},
    {"ib_graph_norm": "sym", "edge_score": "cosine", "structure_k": 3, "observed_branch": True},
    {"readout": "sum", "structure_k": 2},
    {"readout": "sum", "candidate_hops": 1, "structure_mix": 0.5},
    {"num_layers": 3, "structure_k": 2},
    {"num_layers": 4, "candidate_hops": 1, "structure_mix": 0.5},
    {"observed_branch": True, "structure_k": 2, "gate": 0.6},
    {"observed_branch": True, "candidate_hops": 1, "structure_mix": 0.5, "readout": "sum",
     "gate": -1.3},
    {"observed_branch": "shared", "structure_k": 2, "gate": 0.6},
    {"observed_branch": "shared", "edge_score": "cosine", "structure_k": 3, "num_layers": 3,
     "ib_graph_norm": "sym", "gate": -0.8},
    {"observed_branch": "shared", "structure_k": 2, "backbone": "gin", "gate": 0.4},
    {"observed_branch": "shared", "candidate_hops": 1, "backbone": "gin", "readout": "sum",
     "gate": 1.1},
])
def test_sparse_path_equals_dense_path_with_the_structure_options(kw):
    """Top-k, candidates, cosine scores and the learned mix are the same
    mechanism on both paths; the edge KL agrees where the top-k keeps every
    candidate (k >= n - 1 or no k), the density always."""
    x, mask, adj = _padded()
    lam = kw.pop("structure_mix", 0.0)
    gate = kw.pop("gate", None)
    m = _module(kw.pop("backbone", "gcn"), lam, **kw).eval()
    if gate is not None:  # the observed branch's gate away from 0, so both branches count
        with torch.no_grad():
            m.branch_gate.fill_(gate)
    logits, kl, edge_kl, density = m(x, mask, adj)
    m.graph_path = "sparse"
    s_logits, s_kl, s_edge_kl, s_density = m(x, mask, adj)
    assert torch.allclose(s_logits, logits, atol=1e-10)
    assert torch.allclose(s_density, density, atol=1e-12)
    if kw.get("structure_k", 10) >= 6:
        assert torch.allclose(s_edge_kl, edge_kl, atol=1e-10)
    params = [p for p in m.parameters() if p.requires_grad]
    m.graph_path = "dense"
    g_dense = torch.autograd.grad(m(x, mask, adj)[0].pow(2).sum(), params, allow_unused=True)
    m.graph_path = "sparse"
    g_sparse = torch.autograd.grad(m(x, mask, adj)[0].pow(2).sum(), params, allow_unused=True)
    for a, b in zip(g_dense, g_sparse):
        if a is not None and b is not None:
            assert torch.allclose(a, b, atol=1e-9)
        else:
            assert (a is None or not a.any()) and (b is None or not b.any())


def test_observed_graph_density_on_the_sparse_path_without_structure_learning():
    x, mask, adj = _padded()
    m = _module("gcn", 1.0).eval()
    dense = m(x, mask, adj)[3]
    m.graph_path = "sparse"
    assert torch.allclose(m(x, mask, adj)[3], dense)


@pytest.mark.parametrize("backbone", ["gcn", "gat", "gin"])
def test_sparse_path_trains_under_bfloat16_autocast(backbone):
    X, y = make_graphs(20)
    clf = VIBGSLClassifier(precision="bf16", graph_path="sparse", structure_k=2,
                           backbone=backbone, **FAST).fit(X, y)
    assert np.isfinite(clf.history[-1, "train_loss"])
    assert clf.predict_proba(X).shape == (20, 2)
