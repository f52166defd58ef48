"""The top-k selection's tie tolerance: exact under last-bit rounding, on both paths."""

from __future__ import annotations

import pytest
import torch

from sk_vibgsl.nn import candidate_pairs, tie_start, tie_tolerance, top_k_lowest, top_k_mask
from sk_vibgsl.nn.selection import MAX_K_BY_MAXIMA, top_k_pairs
from sk_vibgsl.nn.sparse_structure import hop_candidates, top_k_all_pairs, top_k_candidates
from sk_vibgsl.nn.structure import _SampledAdjacency


def _ulps(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    """``x`` moved by ``steps`` units in the last place (element-wise, ``|steps| ≤ 3``)."""
    out = x.clone()
    for _ in range(3):
        up, down = steps > 0, steps < 0
        out = torch.where(up, torch.nextafter(out, torch.full_like(out, torch.inf)), out)
        out = torch.where(down, torch.nextafter(out, torch.full_like(out, -torch.inf)), out)
        steps = steps - up.long() + down.long()
    return out


def _reference(row: list[float], k: int, start: int, tol: float) -> set[int]:
    """The rule as written in top_k_lowest's docstring, one row in Python."""
    n = len(row)
    t = sorted(row, reverse=True)[k - 1]
    above = {v for v in range(n) if row[v] > t + tol}
    tied = sorted((v for v in range(n) if row[v] == t or abs(row[v] - t) <= tol),
                  key=lambda v: (v - start) % n)
    return above | set(tied[: k - len(above)])


def test_tie_tolerance_is_its_closed_form():
    norms = torch.tensor([1.0, 2.0, 0.5])
    largest = torch.tensor(3.0)
    eps = torch.finfo(torch.float32).eps
    got = tie_tolerance(norms, largest, torch.tensor(-1.5), width=16)
    assert torch.allclose(got, 18 * eps * (norms * 3.0 + 1.5))
    assert torch.allclose(tie_tolerance(norms, largest, None, 16), 18 * eps * norms * 3.0)
    # float64 scales with its own epsilon; no gradient flows through it
    z = torch.ones(2, dtype=torch.float64, requires_grad=True)
    tol = tie_tolerance(z, z.max(), None, 4)
    assert not tol.requires_grad
    assert tol[0].item() == pytest.approx(6 * torch.finfo(torch.float64).eps)


def test_tolerant_top_k_is_the_documented_rule():
    g = torch.Generator().manual_seed(0)
    # clusters of scores 1 apart, spread 1e-3 within a cluster: tol 0.01 ties a cluster
    centres = torch.randint(0, 4, (3, 5, 12), generator=g).double()
    scores = centres + 1e-3 * torch.rand(3, 5, 12, generator=g, dtype=torch.float64)
    scores[0, 0, :5] = -torch.inf  # -inf entries are ordinary (lowest) values
    tol = torch.full((3, 5, 1), 0.01, dtype=torch.float64)
    start = torch.randint(0, 12, (3, 5, 1), generator=g)
    for k in range(1, 13):
        val, idx = top_k_lowest(scores, k, start, tol)
        assert torch.equal(val, scores.gather(-1, idx))
        for row, c, i in zip(scores.view(-1, 12), start.view(-1), idx.view(-1, k)):
            assert set(i.tolist()) == _reference(row.tolist(), k, int(c), 0.01)
        assert torch.equal(top_k_mask(scores, k, start, tol).sum(-1), torch.full((3, 5), k))
    # without a tolerance the spread within a cluster decides, as before
    assert not torch.equal(top_k_mask(scores, 3, start, tol), top_k_mask(scores, 3, start))


@pytest.mark.parametrize("seed", range(4))
def test_top_k_lowest_matches_the_rule_on_random_rows(seed):
    # the tied picks come from a running count (_first_in_band): rows of many
    # ties, -inf entries, starts that wrap round (and beyond n), long rows
    g = torch.Generator().manual_seed(seed)
    for trial in range(150):
        n = int(torch.randint(1, 40 if trial % 5 else 400, (1,), generator=g))
        k = int(torch.randint(1, n + 1, (1,), generator=g))
        levels = [2, 3, 50][trial % 3]
        scores = torch.randint(0, levels, (2, 3, n), generator=g).double()
        scores += 1e-3 * torch.rand(2, 3, n, generator=g, dtype=torch.float64) * (trial % 2)
        scores[0, 0, : int(torch.randint(0, n + 1, (1,), generator=g))] = -torch.inf
        tol_value = [0.0, 0.01, 0.6][trial % 3]
        tol = torch.full((2, 3, 1), tol_value, dtype=torch.float64)
        start = torch.randint(0, n + 2, (2, 3, 1), generator=g)
        for c, t in ((None, tol), (start, tol), (start, None)):
            val, idx = top_k_lowest(scores, k, c, t)
            assert torch.equal(val, scores.gather(-1, idx))
            starts = torch.zeros(6, dtype=torch.long) if c is None else c.reshape(-1)
            for row, s, i in zip(scores.view(-1, n), starts, idx.view(-1, k)):
                want = _reference(row.tolist(), k, int(s) % n, 0.0 if t is None else tol_value)
                assert set(i.tolist()) == want, (seed, trial, n, k)
            # the mask, found from the k-th entry alone, keeps the same entries
            by_index = torch.zeros_like(scores, dtype=torch.bool).scatter_(-1, idx, True)
            assert torch.equal(top_k_mask(scores, k, c, t), by_index), (seed, trial, n, k)


def test_top_k_lowest_counts_in_int32_beyond_int16():
    # rows longer than int16 can count: the running count switches to int32
    n = torch.iinfo(torch.int16).max + 10
    scores = torch.zeros(2, n)
    scores[0, -5:] = 1.0  # four of five tied at the top, at the row's end
    scores[1, 7] = 2.0
    start = torch.tensor([[n - 3], [0]])
    _, idx = top_k_lowest(scores, 4, start)
    assert set(idx[0].tolist()) == {n - 3, n - 2, n - 1, n - 5}
    assert set(idx[1].tolist()) == {7, 0, 1, 2}
    mask = top_k_mask(scores, 4, start)
    assert mask[0].nonzero().view(-1).tolist() == [n - 5, n - 3, n - 2, n - 1]
    assert mask[1].nonzero().view(-1).tolist() == [0, 1, 2, 7]


@pytest.mark.parametrize("ties", ["lowest", "cyclic"])
def test_selection_is_exact_under_last_bit_rounding(ties):
    g = torch.Generator().manual_seed(1)
    n = 30
    # few distinct values: every row ties at its k-th entry, as alike nodes do
    exact = torch.randint(0, 3, (4, n, n), generator=g).float() * 0.75 + 4.0
    exact = exact.triu(1) + exact.triu(1).transpose(-1, -2)
    noisy = _ulps(exact, torch.randint(-3, 4, exact.shape, generator=g))
    tol = tie_tolerance(torch.full((4, n), 5.0), torch.tensor(5.0), None, 8).unsqueeze(-1)
    everyone = candidate_pairs(torch.ones(4, n, dtype=torch.bool))
    start = tie_start(torch.arange(n).unsqueeze(-1), ties)
    changed = False
    # k up to MAX_K_BY_MAXIMA finds the k-th entry by row maxima, beyond it by topk
    for k in (1, 2, MAX_K_BY_MAXIMA, MAX_K_BY_MAXIMA + 1, 8, 11):
        want = top_k_mask(exact.masked_fill(~everyone, -torch.inf), k, start)
        got = top_k_mask(noisy.masked_fill(~everyone, -torch.inf), k, start, tol)
        assert torch.equal(got, want), k
        # top_k_pairs keeps the same pairs with and without last-bit noise
        pairs = top_k_pairs(noisy, k, everyone, ties, tol)
        assert torch.equal(pairs, top_k_pairs(exact, k, everyone, ties)), k
        changed |= not torch.equal(top_k_pairs(noisy, k, everyone, ties),
                                   top_k_pairs(exact, k, everyone, ties))
    assert changed  # without the tolerance, last-bit noise does change the selection


def _alike_embeddings(g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two graphs (16 and 9 nodes) whose nodes repeat 2 or 3 embeddings, plus a copy
    with one coordinate of each row moved by up to 3 units in the last place."""
    rows = torch.randn(5, 8, generator=g)
    z = torch.cat([rows[torch.arange(16) % 2], rows[2 + torch.arange(9) % 3]])
    noisy = z.clone()
    col = torch.randint(0, 8, (25,), generator=g)
    noisy[torch.arange(25), col] = _ulps(z[torch.arange(25), col],
                                         torch.randint(-3, 4, (25,), generator=g))
    return z, noisy, torch.tensor([0, 16, 25])


def _pairs(selected: torch.Tensor) -> set[tuple[int, int]]:
    return set(map(tuple, selected.T.tolist()))


@pytest.mark.parametrize("ties", ["lowest", "cyclic"])
def test_sparse_selection_is_exact_under_last_bit_rounding(ties):
    z, noisy, ptr = _alike_embeddings(torch.Generator().manual_seed(2))
    edges = torch.tensor([[i, i + 1] for i in range(15)] + [[16 + i, 17 + i] for i in range(8)]).T
    cand = hop_candidates(edges, 25, 3)
    for k in (1, 2, 3):
        for block in (40, 1 << 22):
            assert _pairs(top_k_all_pairs(noisy, ptr, k, block, ties)) == _pairs(
                top_k_all_pairs(z, ptr, k, block, ties)), (k, block)
        assert _pairs(top_k_candidates(noisy, cand, k, ties, ptr=ptr)) == _pairs(
            top_k_candidates(z, cand, k, ties, ptr=ptr)), k
    # the hop-candidate selection is the dense rule over the candidates
    dense = torch.full((25, 25), -torch.inf)
    dense[cand[0], cand[1]] = (noisy[cand[0]] * noisy[cand[1]]).sum(-1)
    start = tie_start(torch.arange(25).unsqueeze(-1), ties)
    norms = noisy.norm(dim=-1)
    largest = torch.cat([norms[:16].max().expand(16), norms[16:].max().expand(9)])
    tol = tie_tolerance(norms, largest, None, 8).unsqueeze(-1)
    counts = torch.bincount(cand[0], minlength=25)
    for k in (1, 2, 3):
        mask = top_k_mask(dense, k, start, tol) & (dense > -torch.inf)
        want = {(u, v) for u, v in _pairs(mask.nonzero().T) if counts[u] > k}
        got = _pairs(top_k_candidates(noisy, cand, k, ties, ptr=ptr))
        assert {(u, v) for u, v in got if counts[u] > k} == want, k
        assert {(u, v) for u, v in got if counts[u] <= k} == {
            (u, v) for u, v in _pairs(cand) if counts[u] <= k}


@pytest.mark.parametrize("ties", ["lowest", "cyclic"])
def test_dense_ib_graph_keeps_the_same_pairs_under_last_bit_rounding(ties):
    z, noisy, _ = _alike_embeddings(torch.Generator().manual_seed(3))
    mask = torch.zeros(2, 16, dtype=torch.bool)
    mask[0], mask[1, :9] = True, True
    padded = torch.zeros(2, 2, 16, 8)
    for i, e in enumerate((z, noisy)):
        padded[i, 0], padded[i, 1, :9] = e[:16], e[16:]
    bias = torch.tensor(0.25)
    for k in (1, 2, 3, MAX_K_BY_MAXIMA + 1):
        want, got = (
            _SampledAdjacency.apply(padded[i], bias, mask, None, k, None, 0.0, ties) > 0
            for i in (0, 1)
        )
        assert torch.equal(got, want), k
        # and the cyclic rule still caps the degree within a set of alike nodes
        if ties == "cyclic":
            assert int(got.sum(-1).max()) <= 2 * k
