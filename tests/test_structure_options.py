"""The structure options: cosine scores, top-k, k-hop candidates, edge KL, density."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
import torch
from conftest import dense_batch as _batch

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl.nn import (
    StructureLearner,
    VIBGSLModule,
    candidate_pairs,
    edge_density,
    edge_kl_to_prior,
    gcn_norm,
    top_k_lowest,
    top_k_mask,
    top_k_pairs,
)


def test_top_k_pairs_is_the_union_of_each_nodes_k_best_candidates():
    _, mask, adj = _batch()
    logits = torch.randn(2, 7, 7)  # distinct almost surely: no ties
    logits = logits + logits.transpose(-1, -2)
    for hops, k in itertools.product([None, 1, 2], [1, 2, 3, 10]):
        cand = candidate_pairs(mask, adj, hops)
        got = top_k_pairs(logits, k, cand)
        for b in range(2):
            chosen = set()
            for u in range(7):
                options = [v for v in range(7) if cand[b, u, v]]
                options.sort(key=lambda v: -logits[b, u, v].item())
                chosen |= {(u, v) for v in options[:k]} | {(v, u) for v in options[:k]}
            expected = {(u, v) for u in range(7) for v in range(7) if got[b, u, v]}
            assert expected == chosen, (hops, k, b)


def test_top_k_mask_keeps_k_per_row_and_gives_ties_to_the_lower_index():
    scores = torch.tensor([[3.0, 1.0, 2.0, 2.0, 2.0, -torch.inf],
                           [-torch.inf, -torch.inf, 0.5, -torch.inf, 0.5, 0.5],
                           [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    got = top_k_mask(scores, 3)
    assert got.tolist() == [[True, False, True, True, False, False],
                            [False, False, True, False, True, True],
                            [False, False, False, True, True, True]]
    assert top_k_mask(scores, 1)[1].tolist() == [False, False, True, False, False, False]
    # -inf entries fill a row with fewer than k finite ones, lowest index first
    assert top_k_mask(scores, 4)[1].tolist() == [True, False, True, False, True, True]
    g = torch.Generator().manual_seed(0)
    distinct = torch.randn(4, 9, 9, generator=g)  # no ties: the topk set
    for k in (1, 4, 9):
        want = torch.zeros_like(distinct, dtype=torch.bool).scatter_(
            -1, distinct.topk(k, -1).indices, True)
        assert torch.equal(top_k_mask(distinct, k), want)


def test_top_k_lowest_is_the_first_k_of_a_sort_by_score_then_index():
    # few distinct values and -inf: most rows tie at their k-th entry
    g = torch.Generator().manual_seed(1)
    for n in (1, 2, 5, 17):
        scores = torch.randint(0, 3, (3, 6, n), generator=g).float()
        scores[torch.rand(scores.shape, generator=g) < 0.2] = -torch.inf
        for k in range(1, n + 1):
            val, idx = top_k_lowest(scores, k)
            for row, v, i in zip(scores.view(-1, n), val.view(-1, k), idx.view(-1, k)):
                ranked = sorted(range(n), key=lambda c: (-float(row[c]), c))[:k]
                assert sorted(i.tolist()) == sorted(ranked)
                assert torch.equal(v, row[i])


def test_top_k_pairs_breaks_ties_by_the_lower_index():
    logits = torch.zeros(1, 5, 5)  # every pair scores the same
    got = top_k_pairs(logits, 1, candidate_pairs(torch.ones(1, 5, dtype=torch.bool)))
    # node 0 picks 1, nodes 1..4 pick 0
    want = torch.zeros(5, 5, dtype=torch.bool)
    want[0, 1:] = want[1:, 0] = True
    assert torch.equal(got[0], want)


def test_top_k_pairs_is_the_symmetrised_mask_within_the_candidates():
    # few distinct scores, so most rows tie at their k-th candidate, random
    # candidates, and padded nodes: rows with no or fewer than k candidates
    g = torch.Generator().manual_seed(3)
    for n, k in itertools.product((1, 3, 9, 20), (1, 2, 4, 8, 9)):
        sizes = torch.randint(1, n + 1, (6,), generator=g)
        mask = torch.arange(n) < sizes.unsqueeze(1)
        cand = candidate_pairs(mask) & (torch.rand(6, n, n, generator=g) < 0.7)
        cand = cand & cand.transpose(-1, -2)
        scores = torch.randint(0, 3, (6, n, n), generator=g).float()
        scores = scores + scores.transpose(-1, -2)
        got = top_k_pairs(scores, k, cand)
        by_mask = top_k_mask(scores.masked_fill(~cand, -torch.inf), min(k, n)) & cand
        assert torch.equal(got, by_mask | by_mask.transpose(-1, -2)), (n, k)


def test_top_k_lowest_with_a_start_counts_indices_round_from_it():
    g = torch.Generator().manual_seed(2)
    for n in (2, 5, 17):
        scores = torch.randint(0, 3, (3, n, n), generator=g).float()
        scores[torch.rand(scores.shape, generator=g) < 0.2] = -torch.inf
        start = torch.randint(0, n, (3, n, 1), generator=g)
        for k in range(1, n + 1):
            val, idx = top_k_lowest(scores, k, start)
            for row, c, v, i in zip(scores.view(-1, n), start.view(-1), val.view(-1, k),
                                    idx.view(-1, k)):
                ranked = sorted(range(n), key=lambda j: (-float(row[j]), (j - int(c)) % n))
                assert sorted(i.tolist()) == sorted(ranked[:k])
                assert torch.equal(v, row[i])
        # start 0 is the plain rule
        zero = torch.zeros(3, n, 1, dtype=torch.long)
        assert torch.equal(top_k_mask(scores, 1, zero), top_k_mask(scores, 1))


def test_cyclic_ties_pick_the_next_nodes_so_no_node_becomes_a_hub():
    n, k = 9, 2
    logits = torch.zeros(1, n, n)  # every pair scores the same
    everyone = candidate_pairs(torch.ones(1, n, dtype=torch.bool))
    lowest = top_k_pairs(logits, k, everyone)
    cyclic = top_k_pairs(logits, k, everyone, ties="cyclic")
    # lowest: every node picks 0 and 1 (1 picks 0 and 2): nodes 0 and 1 join everyone
    assert lowest[0].sum(-1).tolist() == [8, 8] + [2] * 7
    # cyclic: u picks u+1 and u+2 (mod 9): the ring with its second neighbours
    want = torch.zeros(n, n, dtype=torch.bool)
    for u in range(n):
        for step in (1, 2):
            want[u, (u + step) % n] = want[(u + step) % n, u] = True
    assert torch.equal(cyclic[0], want)
    assert cyclic[0].sum(-1).max() == 2 * k
    # distinct scores: the rule changes nothing
    distinct = torch.randn(2, 7, 7)
    distinct = distinct + distinct.transpose(-1, -2)
    _, mask, adj = _batch()
    cand = candidate_pairs(mask, adj, 2)
    assert torch.equal(top_k_pairs(distinct, 2, cand, "cyclic"), top_k_pairs(distinct, 2, cand))
    with pytest.raises(ValueError, match="ties"):
        top_k_pairs(logits, k, everyone, ties="random")


def test_structure_ties_cyclic_is_the_same_model_on_both_paths_and_caps_tied_degrees():
    # two graphs whose nodes repeat a few feature rows: ties everywhere
    g = torch.Generator().manual_seed(5)
    rows = torch.randn(3, 4, generator=g, dtype=torch.float64)
    x = torch.zeros(2, 16, 4, dtype=torch.float64)
    x[0] = rows[torch.arange(16) % 2]  # two sets of 8 alike nodes
    x[1, :9] = rows[torch.arange(9) % 3]
    mask = torch.zeros(2, 16, dtype=torch.bool)
    mask[0], mask[1, :9] = True, True
    out, graph = {}, {}
    for ties in ("lowest", "cyclic"):
        for path in ("dense", "sparse"):
            torch.manual_seed(0)
            m = VIBGSLModule(4, 2, edge_score="cosine", structure_k=2, structure_ties=ties,
                             edge_threshold=0.0, graph_path=path).double().eval()
            out[ties, path] = m(x, mask)[0]
        graph[ties] = m.ib_graph(x, mask)[1] > 0
    for ties in ("lowest", "cyclic"):
        assert torch.allclose(out[ties, "dense"], out[ties, "sparse"], atol=1e-10), ties
    assert not torch.allclose(out["lowest", "dense"], out["cyclic", "dense"])
    with pytest.raises(ValueError, match="structure_ties"):
        VIBGSLClassifier(structure_ties="first").fit(
            [(np.ones((3, 2)), np.ones((3, 3)))] * 4, [0, 1, 0, 1])
    # Alike nodes' logits may differ in the last bit (MKL rounds the last columns of Z Z^T
    # apart on an AMD EPYC); the tie tolerance makes the rule hold all the same.
    # each node is picked by at most k others within its tied set, and picks k itself
    assert graph["cyclic"].sum(-1).max() <= 2 * 2 < graph["lowest"].sum(-1).max()


def test_candidate_pairs_are_the_h_hop_neighbourhood():
    _, mask, adj = _batch(sizes=(7, 4))
    for hops in (1, 2, 3):
        cand = candidate_pairs(mask, adj, hops)
        for b, m in enumerate((7, 4)):
            a = adj[b, :m, :m].numpy() > 0
            # breadth-first distances
            dist = np.full((m, m), np.inf)
            for s in range(m):
                dist[s, s], frontier, d = 0, {s}, 0
                while frontier:
                    d += 1
                    frontier = {v for u in frontier for v in np.flatnonzero(a[u])
                                if dist[s, v] == np.inf}
                    for v in frontier:
                        dist[s, v] = d
            expected = (dist <= hops) & ~np.eye(m, dtype=bool)
            assert np.array_equal(cand[b, :m, :m].numpy(), expected)
            assert not cand[b, m:].any() and not cand[b, :, m:].any()
    everything = candidate_pairs(mask)
    assert everything[0].sum() == 7 * 6 and everything[1].sum() == 4 * 3
    with pytest.raises(ValueError, match="candidate_hops"):
        candidate_pairs(mask, None, 2)


def test_edge_kl_equals_its_closed_form():
    _, mask, adj = _batch()
    logits = torch.randn(2, 7, 7) * 4
    logits = logits + logits.transpose(-1, -2)
    cand = candidate_pairs(mask, adj, 2)
    r = 0.2
    got = edge_kl_to_prior(logits, cand, r)
    assert cand[0].any()
    for b in range(2):
        p = torch.sigmoid(logits[b][cand[b]]).double().numpy()
        kl = p * np.log(p / r) + (1 - p) * np.log((1 - p) / (1 - r))
        assert got[b].item() == pytest.approx(kl.mean() if len(p) else 0.0, rel=1e-5)
    # torch's own Bernoulli KL agrees, and extreme logits stay finite
    dist = torch.distributions
    ref = dist.kl_divergence(dist.Bernoulli(logits=logits[0][cand[0]]),
                             dist.Bernoulli(probs=torch.tensor(r))).mean()
    assert got[0].item() == pytest.approx(ref.item(), rel=1e-5)
    assert torch.isfinite(edge_kl_to_prior(torch.full((1, 3, 3), 200.0),
                                           torch.ones(1, 3, 3, dtype=torch.bool), r)).all()
    # no candidates: 0, not NaN
    assert edge_kl_to_prior(logits, torch.zeros_like(cand), r).eq(0).all()


def test_edge_kl_gradient_is_its_closed_form():
    # the backward pass applies pi (1 - pi) (l - c) / |C|; gradcheck compares it
    # with finite differences, and autograd through torch's own Bernoulli KL agrees
    _, mask, adj = _batch()
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(2, 7, 7, generator=g, dtype=torch.float64) * 3
    logits = (logits + logits.transpose(-1, -2)).requires_grad_()
    cand = candidate_pairs(mask, adj, 2)
    r = 0.05
    assert torch.autograd.gradcheck(lambda t: edge_kl_to_prior(t, cand, r), (logits,))
    weights = torch.tensor([0.7, -1.3], dtype=torch.float64)
    (edge_kl_to_prior(logits, cand, r) @ weights).backward()
    dist = torch.distributions
    ref = logits.detach().clone().requires_grad_()
    total = sum(
        weights[b] * dist.kl_divergence(dist.Bernoulli(logits=ref[b][cand[b]]),
                                        dist.Bernoulli(probs=torch.tensor(r))).mean()
        for b in range(2)
    )
    total.backward()
    torch.testing.assert_close(logits.grad, ref.grad)
    assert logits.grad[~cand].eq(0).all()


@pytest.mark.parametrize("score", ["inner", "cosine"])
@pytest.mark.parametrize("k", [None, 2])
@pytest.mark.parametrize("hops", [None, 2])
@pytest.mark.parametrize("training", [True, False])
def test_fused_edge_kl_is_the_separate_computation(score, k, hops, training):
    # from_projection_with_kl computes the logits once; its sample, its KL and
    # every gradient are those of from_projection and edge_kl_to_prior run apart
    x, mask, adj = _batch()
    cand = None if hops is None else candidate_pairs(mask, adj, hops)
    torch.manual_seed(0)
    learner = StructureLearner(5, 8, score=score, k=k, threshold=0.05).train(training)
    g = torch.Generator().manual_seed(2)
    weights = torch.randn(2, 7, 7, generator=g)
    kl_weights = torch.tensor([2.0, -0.5])
    results = []
    for fused in (False, True):
        learner.zero_grad()
        h = (x @ learner.lin1.weight.T).detach().requires_grad_()
        torch.manual_seed(3)  # the same concrete noise
        if fused:
            a, kl = learner.from_projection_with_kl(h, mask, cand, 0.1)
        else:
            a = learner.from_projection(h, mask, cand)
            every = cand if cand is not None else candidate_pairs(mask)
            kl = edge_kl_to_prior(learner.logits_from_projection(h), every, 0.1)
        ((a * weights).sum() + kl @ kl_weights).backward()
        grads = [h.grad] + [p.grad for p in learner.parameters() if p.grad is not None]
        results.append((a.detach(), kl.detach(), grads))
    (a0, kl0, g0), (a1, kl1, g1) = results
    assert torch.equal(a0, a1)
    torch.testing.assert_close(kl1, kl0)
    assert len(g0) == len(g1) == 2 + len(list(learner.lin2.parameters())) + (
        2 if score == "cosine" else 0)
    for got, expected in zip(g1, g0):
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-6)


def test_edge_density_counts_off_diagonal_pairs_of_real_nodes():
    adj = torch.zeros(2, 4, 4)
    adj[0, 0, 1] = adj[0, 1, 0] = 0.3
    adj[0, 2, 2] = 1.0  # a self-loop is not counted
    adj[1] = 1 - torch.eye(4)
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]], dtype=torch.bool)
    adj[1, 3] = adj[1, :, 3] = 0  # padded node
    got = edge_density(adj, mask)
    assert got.tolist() == pytest.approx([1 / 6, 1.0])
    assert edge_density(torch.zeros(1, 1, 1), torch.ones(1, 1, dtype=torch.bool)).item() == 0


@pytest.mark.parametrize("training", [True, False])
def test_top_k_learner_keeps_exactly_the_selected_pairs(training):
    x, mask, adj = _batch()
    learner = StructureLearner(5, 8, threshold=0.0, score="cosine", k=2).train(training)
    torch.manual_seed(1)
    a = learner(x, mask)
    selected = top_k_pairs(learner.edge_logits(x), 2, candidate_pairs(mask))
    assert torch.equal(a > 0, selected)
    assert torch.equal(a, a.transpose(-1, -2))


def test_top_k_with_k_at_least_n_minus_1_changes_nothing():
    x, mask, _ = _batch()
    learner = StructureLearner(5, 8, score="cosine").eval()
    full = learner(x, mask)
    learner.k = 6
    assert torch.equal(learner(x, mask), full)


def test_cosine_logits_are_bounded_by_the_scale_around_the_bias():
    x, _, _ = _batch()
    learner = StructureLearner(5, 8, score="cosine")
    logits = learner.edge_logits(x * 1e3)
    scale = torch.nn.functional.softplus(learner.scale_raw)
    assert scale.item() == pytest.approx(5.0, rel=1e-3)
    assert (logits.abs() <= scale + 1e-4).all()


@pytest.mark.parametrize(
    "options",
    [
        {"edge_score": "cosine"},
        {"edge_score": "cosine", "structure_k": 2},
        {"structure_k": 3, "candidate_hops": 2},
        {"edge_score": "cosine", "candidate_hops": 1, "edge_prior": 0.2},
        {"edge_prior": 0.1, "structure_mix": 0.5},
        {"ib_graph_norm": "row", "structure_mix": 0.5, "edge_score": "cosine"},
    ],
)
@pytest.mark.parametrize("kind", ["gcn", "gat", "gin"])
def test_gradients_reach_every_structure_parameter(kind, options):
    x, mask, adj = _batch()
    torch.manual_seed(0)
    # t = 1: at t = 0.1 a tiny graph's few kept samples can all saturate at
    # 0 or 1 (no gradient through σ), which says nothing about reachability
    model = VIBGSLModule(5, 2, hidden_dim=8, backbone=kind, edge_threshold=0.0,
                         temperature=1.0, **options)
    logits, kl, edge_kl, _ = model(x, mask, adj)
    (logits.sum() + kl.sum() + edge_kl.sum()).backward()
    for name, p in model.structure.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_cosine_bias_gradient_matches_autograd_of_the_unfused_computation():
    x, mask, _ = _batch()
    learner = StructureLearner(5, 8, threshold=0.0, score="cosine", k=3).eval()
    weight = torch.randn(2, 7, 7)
    a = learner(x, mask)
    (a * weight).sum().backward()
    fused = {n: p.grad.clone() for n, p in learner.named_parameters()}
    learner.zero_grad()
    logits = learner.edge_logits(x)
    keep = top_k_pairs(logits, 3, candidate_pairs(mask))
    (torch.sigmoid(logits) * keep * weight).sum().backward()
    for name, p in learner.named_parameters():
        torch.testing.assert_close(fused[name], p.grad, rtol=1e-4, atol=1e-5, msg=name)


@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_row_norm_divides_each_nodes_learned_weights_by_their_sum(lam):
    """ib_graph_norm="row": A = lam A_obs + (1 - lam) D^-1 A_IB, computed from the
    same learned A_IB as "none" (same weights, same noise-free evaluation)."""
    x, mask, adj = _batch()
    torch.manual_seed(0)
    plain = VIBGSLModule(5, 2, hidden_dim=8, structure_mix=lam, temperature=1.0).eval()
    torch.manual_seed(0)
    normed = VIBGSLModule(5, 2, hidden_dim=8, structure_mix=lam, temperature=1.0,
                          ib_graph_norm="row").eval()
    _, a_plain = plain.ib_graph(x, mask, adj)
    _, a_normed = normed.ib_graph(x, mask, adj)
    a_ib = (a_plain - lam * adj) / (1 - lam)
    row_sum = a_ib.sum(-1, keepdim=True)
    expected = lam * adj + (1 - lam) * torch.where(row_sum > 0, a_ib / row_sum, 0.0)
    torch.testing.assert_close(a_normed, expected)
    learned = (a_normed - lam * adj) / (1 - lam)
    sums = learned.sum(-1)[mask]
    assert sums.max() > 0.99
    assert torch.all((sums - 1).abs() < 1e-5) or torch.all(
        ((sums - 1).abs() < 1e-5) | (sums == 0)
    )
    # the forward uses that graph, and the density counts the same edges
    assert torch.equal(plain(x, mask, adj)[3], normed(x, mask, adj)[3])
    assert not torch.allclose(plain(x, mask, adj)[0], normed(x, mask, adj)[0])


@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_sym_norm_scales_each_learned_edge_by_both_ends_degrees(lam):
    """ib_graph_norm="sym": A = lam A_obs + (1 - lam) D^-1/2 A_IB D^-1/2, from the same
    learned A_IB as "none"; a hub keeps a larger row sum than its partners, but only
    about the square root of its degree."""
    x, mask, adj = _batch()
    torch.manual_seed(0)
    plain = VIBGSLModule(5, 2, hidden_dim=8, structure_mix=lam, temperature=1.0,
                         edge_score="cosine", structure_k=2).eval()
    torch.manual_seed(0)
    normed = VIBGSLModule(5, 2, hidden_dim=8, structure_mix=lam, temperature=1.0,
                          edge_score="cosine", structure_k=2, ib_graph_norm="sym").eval()
    _, a_plain = plain.ib_graph(x, mask, adj)
    _, a_normed = normed.ib_graph(x, mask, adj)
    a_ib = (a_plain - lam * adj) / (1 - lam)
    degree = a_ib.sum(-1)
    inv_sqrt = torch.where(degree > 0, degree.clamp(min=1e-30) ** -0.5, 0.0)
    expected = lam * adj + (1 - lam) * inv_sqrt[..., :, None] * a_ib * inv_sqrt[..., None, :]
    torch.testing.assert_close(a_normed, expected)
    learned = ((a_normed - lam * adj) / (1 - lam))[0]
    # a regular learned graph (every degree d) is A / d, as with "row"
    one = torch.ones(4, 4) - torch.eye(4)
    torch.testing.assert_close(normed._normalise(one), one / 3)
    star = torch.zeros(4, 4)
    star[0, 1:] = star[1:, 0] = 1.0  # node 0 a hub of degree 3, its partners of degree 1
    s = normed._normalise(star).sum(-1)
    torch.testing.assert_close(s, torch.tensor([3**0.5, 3**-0.5, 3**-0.5, 3**-0.5]))
    assert torch.allclose(learned, learned.T)
    assert torch.equal(plain(x, mask, adj)[3], normed(x, mask, adj)[3])
    assert not torch.allclose(plain(x, mask, adj)[0], normed(x, mask, adj)[0])


@pytest.mark.parametrize("norm", ["row", "sym"])
def test_normalised_learned_graph_keeps_gradients_finite_on_padding(norm):
    """Padded and isolated nodes have learned degree 0: the clamped degree must not turn
    their zero rows into inf or NaN in the backward pass."""
    torch.manual_seed(0)
    m = VIBGSLModule(5, 2, hidden_dim=8, backbone="gin", edge_score="cosine", structure_k=2,
                     observed_branch=True, ib_graph_norm=norm)
    with torch.no_grad():  # the gate away from its start at 0, so the learned channel counts
        m.branch_gate.fill_(0.5)
    x = torch.randn(2, 6, 5)
    mask = torch.tensor([[True] * 6, [True] * 3 + [False] * 3])
    x[~mask] = 0.0
    adj = torch.zeros(2, 6, 6)
    adj[0, 0, 1] = adj[0, 1, 0] = 1.0
    m(x, mask, adj)[0].sum().backward()
    grads = [p.grad for p in m.structure.parameters()]
    assert all(g is not None and torch.isfinite(g).all() for g in grads)
    assert any(g.abs().sum() > 0 for g in grads)


def test_module_refuses_bad_options():
    with pytest.raises(ValueError, match="candidate_hops"):
        VIBGSLModule(5, 2, candidate_hops=0)
    with pytest.raises(ValueError, match="edge_prior"):
        VIBGSLModule(5, 2, edge_prior=1.0)
    with pytest.raises(ValueError, match="score"):
        StructureLearner(5, 8, score="dot")
    with pytest.raises(ValueError, match="ib_graph_norm"):
        VIBGSLModule(5, 2, ib_graph_norm="col")
    x, mask, _ = _batch()
    with pytest.raises(ValueError, match="candidate_hops"):
        VIBGSLModule(5, 2, candidate_hops=2)(x, mask)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"edge_score": "dot"}, "edge_score"),
        ({"structure_k": 0}, "structure_k"),
        ({"structure_k": 2.5}, "structure_k"),
        ({"candidate_hops": -1}, "candidate_hops"),
        ({"edge_beta": -0.1}, "edge_beta"),
        ({"edge_prior": 0.0}, "edge_prior"),
        ({"edge_prior": 1.5}, "edge_prior"),
        ({"ib_graph_norm": "col"}, "ib_graph_norm"),
        ({"readout": "max"}, "readout"),
        ({"num_layers": 1}, "num_layers"),
        ({"num_layers": 3.0}, "num_layers"),
    ],
)
def test_estimator_names_the_bad_structure_option(graphs, params, match):
    X, y = graphs
    with pytest.raises(ValueError, match=match):
        VIBGSLClassifier(max_epochs=1, **params).fit(X, y)


def test_history_records_density_and_edge_kl_and_top_k_thins_the_graph(graphs):
    X, y = graphs
    dense = VIBGSLClassifier(max_epochs=2, random_state=0).fit(X, y)
    sparse = VIBGSLClassifier(max_epochs=2, random_state=0, edge_score="cosine",
                              structure_k=2, edge_beta=0.1).fit(X, y)
    for clf in (dense, sparse):
        assert len(clf.history[:, "train_density"]) == 2
        assert all(0 <= d <= 1 for d in clf.history[:, "train_density"])
    assert dense.history[:, "train_edge_kl"] == [0.0, 0.0]
    assert all(v > 0 for v in sparse.history[:, "train_edge_kl"])
    # the loss holds gamma * edge KL
    row = sparse.history[-1]
    assert row["train_loss"] == pytest.approx(
        row["train_ce"] + 1e-3 * row["train_kl"] + 0.1 * row["train_edge_kl"], rel=1e-4)
    for _, adj in sparse.ib_graphs(X[:10]):
        # the union of each node's k = 2 choices: at most 2 k n ordered entries
        assert (adj > 0).sum() <= 2 * 2 * len(adj)


def test_validation_density_is_recorded_with_a_split(graphs):
    from skorch.dataset import ValidSplit

    X, y = graphs
    clf = VIBGSLClassifier(max_epochs=2, random_state=0, structure_k=2,
                           train_split=ValidSplit(0.25, stratified=True, random_state=0)).fit(X, y)
    assert len(clf.history[:, "valid_density"]) == 2


def test_candidate_hops_gets_the_observed_graph_and_stays_inside_it(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(max_epochs=2, random_state=0, candidate_hops=1,
                           edge_threshold=0.0).fit(X, y)
    for (_, observed), (_, learned) in zip(X[:10], clf.ib_graphs(X[:10])):
        assert not ((learned > 0) & (observed == 0)).any()


def test_structure_options_are_reproducible_with_random_state(graphs):
    X, y = graphs
    params = dict(max_epochs=2, random_state=3, edge_score="cosine", structure_k=2,
                  candidate_hops=2, edge_beta=0.5)
    a = VIBGSLClassifier(**params).fit(X, y).predict_proba(X)
    b = VIBGSLClassifier(**params).fit(X, y).predict_proba(X)
    assert np.array_equal(a, b)


def test_learned_mix_is_a_trained_gate_starting_at_structure_mix(graphs):
    x, mask, adj = _batch()
    model = VIBGSLModule(5, 2, hidden_dim=8, structure_mix=0.3, learn_mix=True,
                         edge_threshold=0.0, temperature=1.0)
    assert model.mix.item() == pytest.approx(0.3)
    logits, kl, *_ = model(x, mask, adj)
    (logits.sum() + kl.sum()).backward()
    assert model.mix_logit.grad is not None and model.mix_logit.grad.abs() > 0
    # the graph the GNN sees is the gated mix
    model.eval()
    with torch.no_grad():
        _, a = model.ib_graph(x, mask, adj)
        learned = model.structure(model.feature_mask(x, mask), mask)
    torch.testing.assert_close(a, 0.3 * adj + 0.7 * learned)
    with pytest.raises(ValueError, match="learn_mix"):
        VIBGSLModule(5, 2, structure_mix=0.0, learn_mix=True)
    X, y = graphs
    with pytest.raises(ValueError, match="learn_mix"):
        VIBGSLClassifier(max_epochs=1, learn_mix=True).fit(X, y)
    clf = VIBGSLClassifier(max_epochs=3, structure_mix=0.5, learn_mix=True, random_state=0)
    clf.fit(X, y)
    assert 0 < clf.module_.mix.item() < 1 and clf.module_.mix.item() != 0.5


def _pooled(model, gnn, x, mask, adj):
    """The mean readout of ``gnn`` on ``(x, adj)`` over the real nodes."""
    return (gnn(x, adj, mask).sum(-2) / mask.sum(-1, keepdim=True)).detach()


@pytest.mark.parametrize("backbone", ["gcn", "gin", "gat"])
def test_observed_branch_adds_the_gated_learned_channel_to_the_observed_one(backbone):
    """R(f_obs(X_IB, A_obs)) + alpha R(f(X_IB, A)) gives (mu, sigma)."""
    x, mask, adj = _batch()
    torch.manual_seed(0)
    model = VIBGSLModule(5, 2, hidden_dim=8, ib_size=3, backbone=backbone,
                         observed_branch=True, structure_mix=0.2).eval()
    with torch.no_grad():
        model.branch_gate.fill_(0.7)
        mu, sigma, *_ = model.encode(x, mask, adj)
        x_ib, a = model.ib_graph(x, mask, adj)
    pooled = _pooled(model, model.observed_gnn, x_ib, mask, adj) + 0.7 * _pooled(
        model, model.gnn, x_ib, mask, a
    )
    torch.testing.assert_close(mu, pooled[:, :3])


def test_observed_branch_starts_as_the_gnn_on_the_observed_graph():
    """With the gate at its initial 0 the model is the observed-graph model
    (``structure_mix=1``) with the observed branch's weights."""
    x, mask, adj = _batch()
    torch.manual_seed(0)
    model = VIBGSLModule(5, 2, hidden_dim=8, observed_branch=True).eval()
    assert model.branch_gate.item() == 0.0
    plain = VIBGSLModule(5, 2, hidden_dim=8, structure_mix=1.0).eval()
    plain.gnn.load_state_dict(model.observed_gnn.state_dict())
    plain.classifier.load_state_dict(model.classifier.state_dict())
    plain.feature_mask.load_state_dict(model.feature_mask.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(model(x, mask, adj)[0], plain(x, mask, adj)[0])


@pytest.mark.parametrize(("branch", "backbone"), [(True, "gcn"), ("shared", "gcn"),
                                                 ("shared", "gin")])
def test_observed_branch_gradients_reach_the_gate_and_then_every_part(branch, backbone):
    """At the initial gate 0 only the gate and the observed-graph GNN (the one
    GNN for ``"shared"``) train; once the gate is away from 0, the structure
    learner and every GNN do."""
    x, mask, adj = _batch()
    torch.manual_seed(0)
    model = VIBGSLModule(5, 2, hidden_dim=8, backbone=backbone, observed_branch=branch,
                         temperature=1.0)
    observed = model.observed_gnn if branch is True else model.gnn
    model(x, mask, adj)[0].pow(2).sum().backward()
    assert model.branch_gate.grad.abs() > 0  # the gate leaves 0 ...
    assert all(p.grad.abs().sum() > 0 for p in observed.parameters())
    model.zero_grad()
    with torch.no_grad():
        model.branch_gate.fill_(0.5)  # ... and then the learned channel trains
    model(x, mask, adj)[0].pow(2).sum().backward()
    parts = [model.gnn, model.structure] + ([model.observed_gnn] if branch is True else [])
    for part in parts:
        for name, p in part.named_parameters():
            assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_observed_branch_is_refused_without_structure_learning_and_needs_adj(graphs):
    with pytest.raises(ValueError, match="observed_branch"):
        VIBGSLModule(5, 2, structure_mix=1.0, observed_branch=True)
    with pytest.raises(ValueError, match="observed_branch"):
        VIBGSLModule(5, 2, observed_branch=1)
    x, mask, _ = _batch()
    with pytest.raises(ValueError, match="observed_branch=True needs the observed adjacency"):
        VIBGSLModule(5, 2, observed_branch=True)(x, mask)
    X, y = graphs
    for bad in ({"structure_mix": 1.0, "observed_branch": True}, {"observed_branch": "yes"}):
        with pytest.raises(ValueError, match="observed_branch must be"):
            VIBGSLClassifier(max_epochs=1, **bad).fit(X, y)


def test_observed_branch_fits_and_learns_its_gate(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(max_epochs=3, observed_branch=True, random_state=0).fit(X, y)
    assert clf.module_.branch_gate.item() != 0.0
    assert clf.predict_proba(X).shape == (len(X), 2)
    # ib_graphs shows the learned graph the second branch sees (no observed part)
    _, learned = clf.ib_graphs(X[:1])[0]
    assert learned.shape == (len(X[0][0]),) * 2


def _shared_by_hand(model, x_ib, mask, adj, a, gate):
    """The shared branch's pooled output from the layer formulas, written out:
    GCN ``Â_obs H W + α A H W + b``, GIN ``MLP((1 + ε) H + A_obs H + α A H)``."""
    h = x_ib
    layers = model.gnn.layers
    for i, conv in enumerate(layers):
        if model.gnn.kind == "gcn":
            hw = conv.lin(h)
            h = gcn_norm(adj) @ hw + gate * (a @ hw) + conv.bias
        else:
            h = conv.mlp((1 + conv.eps) * h + adj @ h + gate * (a @ h))
        h = h * mask.unsqueeze(-1)
        if i < len(layers) - 1:
            h = torch.relu(h)
    return (h.sum(-2) / mask.sum(-1, keepdim=True)).detach()


@pytest.mark.parametrize("backbone", ["gcn", "gin"])
@pytest.mark.parametrize("num_layers", [2, 3])
def test_shared_branch_adds_gated_learned_messages_in_every_layer(backbone, num_layers):
    x, mask, adj = _batch()
    torch.manual_seed(0)
    model = VIBGSLModule(5, 2, hidden_dim=8, ib_size=3, backbone=backbone,
                         num_layers=num_layers, observed_branch="shared",
                         edge_score="cosine", structure_k=3).eval()
    assert model.observed_gnn is None  # one GNN
    with torch.no_grad():
        model.branch_gate.fill_(0.7)
        mu, *_ = model.encode(x, mask, adj)
        x_ib, a = model.ib_graph(x, mask, adj)
    torch.testing.assert_close(mu, _shared_by_hand(model, x_ib, mask, adj, a, 0.7)[:, :3])


@pytest.mark.parametrize("backbone", ["gcn", "gin"])
def test_shared_branch_starts_as_the_gnn_on_the_observed_graph(backbone):
    """At its initial gate 0 the model is the observed-graph model
    (``structure_mix=1``) with the same GNN, and it adds only the structure
    learner and the gate to that model's parameters."""
    x, mask, adj = _batch()
    torch.manual_seed(0)
    model = VIBGSLModule(5, 2, hidden_dim=8, backbone=backbone, observed_branch="shared").eval()
    assert model.branch_gate.item() == 0.0
    plain = VIBGSLModule(5, 2, hidden_dim=8, backbone=backbone, structure_mix=1.0).eval()
    plain.load_state_dict(
        {k: v for k, v in model.state_dict().items() if k in plain.state_dict()}
    )
    extra = sum(p.numel() for p in model.structure.parameters()) + 1
    n_params = sum(p.numel() for p in model.parameters())
    assert n_params == sum(p.numel() for p in plain.parameters()) + extra
    with torch.no_grad():
        torch.testing.assert_close(model(x, mask, adj)[0], plain(x, mask, adj)[0],
                                   rtol=0, atol=0)


@pytest.mark.parametrize("branch", [False, True])
def test_a_module_pickled_before_observed_branch_was_stored_loads_and_runs(branch):
    """Modules pickled before ``"shared"`` existed have no ``observed_branch``
    attribute, nor ``structure_input``: unpickled, they get the first back from the
    gate, read the features, and give the same output."""
    x, mask, adj = _batch()
    torch.manual_seed(0)
    model = VIBGSLModule(5, 2, hidden_dim=8, observed_branch=branch).eval()
    expected = model(x, mask, adj)[0]
    for name in ("observed_branch", "structure_input"):  # as pickled by older releases
        del model.__dict__[name]
    restored = pickle.loads(pickle.dumps(model))
    assert restored.observed_branch is branch
    assert restored.structure_input == "features"
    assert not restored.shares_branch
    torch.testing.assert_close(restored(x, mask, adj)[0], expected, rtol=0, atol=0)


def test_shared_branch_is_refused_with_gat_without_structure_learning_or_adj(graphs):
    with pytest.raises(ValueError, match="observed_branch='shared' needs a backbone"):
        VIBGSLModule(5, 2, backbone="gat", observed_branch="shared")
    with pytest.raises(ValueError, match="observed_branch must be"):
        VIBGSLModule(5, 2, structure_mix=1.0, observed_branch="shared")
    with pytest.raises(ValueError, match="observed_branch must be"):
        VIBGSLModule(5, 2, observed_branch="layer")
    x, mask, _ = _batch()
    with pytest.raises(ValueError, match="observed_branch='shared' needs the observed adj"):
        VIBGSLModule(5, 2, observed_branch="shared")(x, mask)
    X, y = graphs
    for bad in ({"structure_mix": 1.0, "observed_branch": "shared"},
                {"backbone": "gat", "observed_branch": "shared"}):
        with pytest.raises(ValueError, match="observed_branch must be"):
            VIBGSLClassifier(max_epochs=1, **bad).fit(X, y)


def test_shared_branch_fits_and_learns_its_gate(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(max_epochs=3, observed_branch="shared", edge_score="cosine",
                           structure_k=2, random_state=0).fit(X, y)
    assert clf.module_.observed_gnn is None
    assert clf.module_.branch_gate.item() != 0.0
    assert clf.predict_proba(X).shape == (len(X), 2)
    _, learned = clf.ib_graphs(X[:1])[0]
    assert learned.shape == (len(X[0][0]),) * 2


def _tied_batch(n=12, classes=2, n_features=4, seed=0):
    """One graph whose nodes fall into ``classes`` groups of identical features
    (each node has several tied partners), with a random observed graph."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, n_features, generator=g)
    x = centres[torch.arange(n) % classes].unsqueeze(0)
    a = torch.triu((torch.rand(n, n, generator=g) < 0.4).float(), 1)
    return x, torch.ones(1, n, dtype=torch.bool), (a + a.T).unsqueeze(0)


def _permuted(x, mask, adj, order):
    return x[:, order], mask[:, order], adj[:, order][:, :, order]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_top_k_ties_follow_node_order_but_observed_branch_predictions_do_not(seed):
    """Partners with identical features tie and are chosen by index, so
    relabelling the nodes changes the learned graph beyond the relabelling.
    With the learned graph in a channel of its own (``observed_branch``) the
    nodes it swaps are interchangeable there and the prediction stays the
    same; mixed with the observed graph (``structure_mix > 0``), where they
    are not, it changes."""
    x, mask, adj = _tied_batch(seed=seed)
    order = torch.randperm(x.shape[1], generator=torch.Generator().manual_seed(seed + 1))
    xp, maskp, adjp = _permuted(x, mask, adj, order)
    common = dict(hidden_dim=8, edge_score="cosine", structure_k=2, feature_mask=False)
    torch.manual_seed(seed)
    branch = VIBGSLModule(4, 2, observed_branch=True, **common).eval()
    with torch.no_grad():
        branch.branch_gate.fill_(1.0)  # the learned channel counts (it starts at 0)
        _, a = branch.ib_graph(x, mask, adj)
        _, ap = branch.ib_graph(xp, maskp, adjp)
        # the selection is not the relabelled one: the ties went to other nodes
        assert not torch.equal((a[:, order][:, :, order] != 0), ap != 0)
        assert torch.allclose(branch(x, mask, adj)[0], branch(xp, maskp, adjp)[0], atol=1e-5)
    torch.manual_seed(seed)
    mixed = VIBGSLModule(4, 2, structure_mix=0.5, **common).eval()
    with torch.no_grad():
        assert not torch.allclose(mixed(x, mask, adj)[0], mixed(xp, maskp, adjp)[0], atol=1e-5)
