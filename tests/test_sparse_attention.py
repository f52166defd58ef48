"""GAT attention over an edge list (sk_vibgsl/nn/_sparse_attention.py)."""

from __future__ import annotations

import pytest
import torch

from sk_vibgsl.nn import Backbone, VIBGSLModule, _sparse_attention
from sk_vibgsl.nn._attention import attention_log_weights, edge_attention
from sk_vibgsl.nn._sparse_attention import (
    AttentionEdges,
    attention_edges,
    sparse_edge_attention,
    use_sparse_attention,
)
from sk_vibgsl.nn.backbones import gat_attention_input


def _sparse_batch(seed: int = 0, b: int = 3, n: int = 40, f: int = 4, sizes=(40, 25, 9)):
    """Padded batch of weighted graphs with ~3 % density, an existing
    self-loop, a weight below the log clamp, and padded nodes."""
    g = torch.Generator().manual_seed(seed)
    adj = torch.zeros(b, n, n, dtype=torch.float64)
    mask = torch.zeros(b, n, dtype=torch.bool)
    for k, size in enumerate(sizes):
        w = torch.rand(size, size, generator=g, dtype=torch.float64)
        w = w * (torch.rand(size, size, generator=g, dtype=torch.float64) < 0.06)
        w = torch.triu(w, 1)
        adj[k, :size, :size] = w + w.T
        mask[k, :size] = True
    adj[0, 3, 3] = 0.4
    adj[1, 0, 1] = adj[1, 1, 0] = 1e-35
    dst = torch.randn(b, n, generator=g, dtype=torch.float64)
    src = torch.randn(b, n, generator=g, dtype=torch.float64)
    h = torch.randn(b, n, f, generator=g, dtype=torch.float64) * mask.unsqueeze(-1)
    return dst, src, h, adj, mask


def test_edge_list_attention_equals_dense_attention_in_value_and_gradient():
    dst, src, h, adj, _ = _sparse_batch()
    results = []
    for prep, fn in ((attention_log_weights, edge_attention),
                     (attention_edges, sparse_edge_attention)):
        args = [t.clone().requires_grad_() for t in (dst, src, h)]
        out = fn(args[0], args[1], prep(adj), args[2], 0.2)
        out.square().sum().backward()
        results.append((out.detach(), *(a.grad for a in args)))
    for dense, sparse in zip(*results):
        assert torch.allclose(sparse, dense, rtol=1e-10, atol=1e-12)
    assert results[0][1].abs().max() > 0  # gradients reach the scores


def test_edge_list_holds_the_edges_and_the_missing_self_loops():
    *_, adj, _ = _sparse_batch()
    edges = attention_edges(adj)
    n = adj.shape[1]
    expected = int((adj > 0).sum()) + int((adj.diagonal(dim1=-2, dim2=-1) == 0).sum())
    assert len(edges.row) == expected
    assert edges.n_nodes == adj.shape[0] * n
    assert torch.all(edges.row[1:] >= edges.row[:-1])  # grouped by receiving node
    log_w = attention_log_weights(adj)
    b, i, j = edges.row // n, edges.row % n, edges.col % n
    assert torch.equal(edges.log_w, log_w[b, i, j])


def test_edge_list_is_used_only_for_sparse_graphs_without_gradient():
    *_, adj, _ = _sparse_batch()
    assert adj.count_nonzero() <= _sparse_attention.SPARSE_DENSITY * adj.numel()
    assert use_sparse_attention(adj)
    assert isinstance(gat_attention_input(adj), AttentionEdges)
    # a graph with a gradient (the learned one) keeps the dense node
    assert not use_sparse_attention(adj.clone().requires_grad_())
    # so does a dense graph
    assert not use_sparse_attention(torch.ones(2, 10, 10))
    assert isinstance(gat_attention_input(torch.ones(2, 10, 10)), torch.Tensor)


@pytest.mark.parametrize("structure_mix", [1.0, 0.5])
def test_gat_model_is_the_same_with_and_without_the_edge_list(structure_mix, monkeypatch):
    # On the observed sparse graph (mix 1) the backbone takes the edge list;
    # a mixed graph has a gradient, so both runs are dense there.
    _, _, _, adj, mask = _sparse_batch(1)
    adj = adj.float()
    x = torch.randn(adj.shape[0], adj.shape[1], 5) * mask.unsqueeze(-1)
    torch.manual_seed(0)
    model = VIBGSLModule(5, 2, backbone="gat", structure_mix=structure_mix).eval()
    assert use_sparse_attention(adj)  # the observed graph alone would take the edge list
    outs = []
    for density in (_sparse_attention.SPARSE_DENSITY, 0.0):
        monkeypatch.setattr(_sparse_attention, "SPARSE_DENSITY", density)
        model.zero_grad()
        logits, kl, *_ = model(x, mask, adj)
        (logits.sum() + kl.sum()).backward()
        outs.append((logits.detach(), kl.detach(),
                     [p.grad.clone() for p in model.gnn.parameters()]))
    (l1, k1, g1), (l2, k2, g2) = outs
    assert torch.allclose(l1, l2, atol=1e-5) and torch.allclose(k1, k2, atol=1e-5)
    for a, b in zip(g1, g2):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-6)


def test_gat_backbone_padded_nodes_stay_zero_on_the_edge_list():
    _, _, _, adj, mask = _sparse_batch(2)
    net = Backbone("gat", 4, 8, 6).double()
    x = torch.randn(adj.shape[0], adj.shape[1], 4, dtype=torch.float64) * mask.unsqueeze(-1)
    assert isinstance(gat_attention_input(adj), AttentionEdges)
    out = net(x, adj, mask)
    assert torch.all(out[~mask] == 0)
    assert torch.isfinite(out).all()
