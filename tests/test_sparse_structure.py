"""The IB-graph as an edge list (sk_vibgsl/nn/sparse_structure.py)."""

from __future__ import annotations

import pytest
import torch

from sk_vibgsl.nn.sparse_structure import (
    hop_candidates,
    ib_edges,
    sample_pair_weights,
    top_k_all_pairs,
    top_k_candidates,
    union_pairs,
)
from sk_vibgsl.nn.structure import _SampledAdjacency


def _batch(sizes=(9, 5, 1, 7), d=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(sum(sizes), d, generator=g, dtype=torch.float64)
    ptr = torch.tensor([0, *sizes]).cumsum(0)
    return z, ptr


def _reference_top_k(z, ptr, k, allowed=None):
    """Directed selections by a dense per-graph topk, as a set."""
    out = set()
    for g in range(len(ptr) - 1):
        s, e = int(ptr[g]), int(ptr[g + 1])
        scores = z[s:e] @ z[s:e].T
        scores.fill_diagonal_(-torch.inf)
        if allowed is not None:
            scores[~allowed[s:e, s:e]] = -torch.inf
        if e - s < 2:
            continue
        val, idx = scores.topk(min(k, e - s - 1), -1)
        for u in range(e - s):
            out |= {(s + u, s + int(v)) for v, x in zip(idx[u], val[u]) if x > -torch.inf}
    return out


@pytest.mark.parametrize("k", [1, 3, 8, 50])
@pytest.mark.parametrize("block", [1, 7, 60, 1 << 22])  # 60: groups [9], [5, 1], [7]
def test_top_k_all_pairs_is_the_exact_per_node_top_k(k, block):
    z, ptr = _batch()
    got = top_k_all_pairs(z, ptr, k, block_elements=block)
    assert set(map(tuple, got.T.tolist())) == _reference_top_k(z, ptr, k)
    assert got.shape[1] == len(_reference_top_k(z, ptr, k))  # no duplicates


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("block", [1, 7, 60, 1 << 22])  # 60: groups [9], [5, 1], [7]
def test_top_k_all_pairs_gives_ties_to_the_lower_index(k, block):
    z, ptr = _batch(sizes=(9, 6))
    z[[2, 5, 7]] = z[4].clone()  # graph 0: four equal embeddings
    z[[11, 12, 13]] = z[10].clone()  # graph 1: four equal embeddings
    got = set(map(tuple, top_k_all_pairs(z, ptr, k, block_elements=block).T.tolist()))
    want = set()
    for g in range(2):
        s, e = int(ptr[g]), int(ptr[g + 1])
        for u in range(s, e):
            score = {v: float(z[u] @ z[v]) for v in range(s, e) if v != u}
            ranked = sorted(score, key=lambda v: (-score[v], v))  # lower index first
            want |= {(u, v) for v in ranked[:k]}
    assert got == want


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("block", [1, 7, 60, 1 << 22])
def test_top_k_all_pairs_cyclic_ties_take_the_next_nodes_round_the_graph(k, block):
    z, ptr = _batch(sizes=(9, 6))
    z[[2, 5, 7]] = z[4].clone()
    z[[11, 12, 13]] = z[10].clone()
    got = set(map(tuple, top_k_all_pairs(z, ptr, k, block, ties="cyclic").T.tolist()))
    want = set()
    for g in range(2):
        s, e = int(ptr[g]), int(ptr[g + 1])
        for u in range(s, e):
            score = {v: float(z[u] @ z[v]) for v in range(s, e) if v != u}
            ranked = sorted(score, key=lambda v: (-score[v], (v - u - 1) % (e - s)))
            want |= {(u, v) for v in ranked[:k]}
    assert got == want


@pytest.mark.parametrize("k", [1, 2, 5])
def test_top_k_candidates_cyclic_ties_match_the_all_pairs_rule(k):
    z, ptr = _batch(sizes=(9, 6))
    z[[2, 5, 7]] = z[4].clone()
    z[[11, 12, 13]] = z[10].clone()
    full = torch.zeros(15, 15, dtype=torch.bool)
    full[:9, :9] = full[9:, 9:] = True
    full.fill_diagonal_(False)
    cand = full.nonzero().T  # every pair of each graph, sorted by (u, v)
    for ties in ("lowest", "cyclic"):
        got = set(map(tuple, top_k_candidates(z, cand, k, ties).T.tolist()))
        want = set(map(tuple, top_k_all_pairs(z, ptr, k, ties=ties).T.tolist()))
        assert got == want, ties
    with pytest.raises(ValueError, match="ties"):
        top_k_candidates(z, cand, k, "random")


def _random_graph(n=30, p=0.08, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(n, n, generator=g) < p
    return a | a.T


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_hop_candidates_are_the_pairs_within_h_hops(hops):
    a = _random_graph()
    a.fill_diagonal_(True)  # self-loops are no candidates
    got = hop_candidates(a.nonzero().T, len(a), hops)
    reach = (a.double() + torch.eye(len(a))).matrix_power(hops) > 0
    reach.fill_diagonal_(False)
    assert torch.equal(got, reach.nonzero().T)


@pytest.mark.parametrize("k", [None, 1, 2, 5])
def test_top_k_candidates_is_the_exact_per_node_top_k_within_candidates(k):
    a = _random_graph(n=25, p=0.15)
    z, _ = _batch(sizes=(25,))
    cand = hop_candidates(a.nonzero().T, 25, 2)
    got = top_k_candidates(z, cand, k)
    allowed = torch.zeros(25, 25, dtype=torch.bool)
    allowed[cand[0], cand[1]] = True
    want = (set(map(tuple, cand.T.tolist())) if k is None
            else _reference_top_k(z, torch.tensor([0, 25]), k, allowed))
    assert set(map(tuple, got.T.tolist())) == want


def test_union_pairs_keeps_a_pair_selected_by_either_end_once():
    sel = torch.tensor([[0, 1, 2, 3, 3], [1, 0, 0, 3, 4]])
    assert union_pairs(sel, 5).tolist() == [[0, 0, 3], [1, 2, 4]]


def test_sample_pair_weights_threshold_and_gradient():
    logits = torch.tensor([-3.0, 0.0, 2.0], requires_grad=True)
    a = sample_pair_weights(logits, None, threshold=0.1)
    assert torch.allclose(a, torch.sigmoid(logits.detach()) * torch.tensor([0.0, 1, 1]))
    a.sum().backward()
    s = torch.sigmoid(logits.detach())
    assert torch.allclose(logits.grad, s * (1 - s) * torch.tensor([0.0, 1, 1]))
    logits.grad = None
    noise = torch.tensor([0.5, -0.2, 0.1])
    a = sample_pair_weights(logits, 0.5, 0.0, noise)
    assert torch.allclose(a, torch.sigmoid((logits + noise) / 0.5))
    a.sum().backward()
    assert torch.allclose(logits.grad, a * (1 - a) / 0.5)


def _padded(z, ptr):
    """``z`` padded to ``B × N × d`` and the node mask."""
    sizes = ptr.diff()
    b, n = len(sizes), int(sizes.max())
    mask = torch.arange(n) < sizes.unsqueeze(1)
    zp = z.new_zeros(b, n, z.shape[1])
    zp[mask] = z
    return zp, mask


@pytest.mark.parametrize("training", [False, True])
def test_ib_edges_with_k_at_least_n_minus_1_equal_the_dense_adjacency(training):
    z, ptr = _batch()
    z.requires_grad_(True)
    zp, mask = _padded(z, ptr)
    t = 0.5 if training else None
    torch.manual_seed(3)
    dense = _SampledAdjacency.apply(zp, None, mask, None, None, t, 0.3)
    noise = None
    if training:  # the dense path's draw, read at the kept pairs
        torch.manual_seed(3)
        full = torch.rand_like(dense).logit_(eps=1e-6).triu_(1)
    edges = ib_edges(z, None, ptr, k=100, temperature=t, threshold=0.3)
    if training:
        graph = torch.bucketize(edges.selected[0], ptr, right=True) - 1
        u, v = edges.selected - ptr[graph]
        noise = full[graph, u, v]
        edges = ib_edges(z, None, ptr, k=100, temperature=t, threshold=0.3, noise=noise)
    sparse = torch.zeros_like(dense)
    graph = torch.bucketize(edges.row, ptr, right=True) - 1
    u, v = edges.row - ptr[graph], edges.col - ptr[graph]
    sparse = sparse.index_put((graph, u, v), edges.weight).index_put((graph, v, u), edges.weight)
    assert torch.allclose(sparse, dense, atol=1e-10)
    w = torch.randn_like(dense)
    w = w + w.transpose(1, 2)
    g_dense = torch.autograd.grad((dense * w).sum(), z)[0]
    g_sparse = torch.autograd.grad((sparse * w).sum(), z)[0]
    assert torch.allclose(g_sparse, g_dense, atol=1e-10)


def test_ib_edges_keep_at_most_2k_edges_per_node_and_no_self_pairs():
    z, ptr = _batch(sizes=(60, 40))
    edges = ib_edges(z, None, ptr, k=3, threshold=0.0)
    assert (edges.row < edges.col).all()
    assert edges.selected.shape[1] <= 3 * len(z)
    graph_row = torch.bucketize(edges.row, ptr, right=True)
    assert torch.equal(graph_row, torch.bucketize(edges.col, ptr, right=True))


def test_top_k_all_pairs_block_defaults_by_device():
    """Without a block, the CPU's default is used there (the selection is that of any block)."""
    from sk_vibgsl.nn.sparse_structure import (
        BLOCK_ELEMENTS,
        BLOCK_ELEMENTS_CUDA,
        block_elements_for,
    )

    assert block_elements_for(torch.device("cpu")) == BLOCK_ELEMENTS
    assert block_elements_for(torch.device("cuda")) == BLOCK_ELEMENTS_CUDA > BLOCK_ELEMENTS
    z, ptr = _batch()
    for k in (1, 3):
        assert torch.equal(top_k_all_pairs(z, ptr, k), top_k_all_pairs(z, ptr, k, BLOCK_ELEMENTS))
