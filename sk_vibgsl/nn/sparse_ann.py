r"""Approximate all-pairs top-``k``: time :math:`O(n \log n)` per graph instead of :math:`O(n^2 d)`.

Without ``candidate_hops`` the sparse path's selection scores every pair of
a graph (:func:`~sk_vibgsl.nn.sparse_structure.top_k_all_pairs`). With
``top_k_search="approx"`` :func:`approx_top_k` scores each node against a
bounded number of candidates instead, found by hashing the (detached)
structure-learner embeddings :math:`\hat z`; it returns, like
:func:`~sk_vibgsl.nn.sparse_structure.top_k_all_pairs`, each node's ``k``
best partners by :math:`\hat z_u \cdot \hat z_v` — the best among the pairs
it scored. Everything after the selection (union, weights, their gradient,
the edge KL of the selected pairs) is unchanged.

Only the direction matters for a node's list: :math:`\mathrm{top}_k(u) =
\operatorname{arg\,top\text{-}k}_v\, \hat u \cdot \hat z_v` with
:math:`\hat u = \hat z_u / \lVert \hat z_u \rVert`, so nodes of close
directions have close lists (equal ones for equal directions). Hence:

1. **Angular buckets** (per repetition :math:`r = 1 \dots R`). :math:`b_g + 1`
   Gaussian directions :math:`w_1 \dots w_{b_g}, w_\ast` (shared by the
   batch): the code of node :math:`u` is the sign pattern
   :math:`([w_1 \cdot \hat u > 0], \dots, [w_{b_g} \cdot \hat u > 0])` read
   as a binary number (random-hyperplane LSH: two nodes at angle
   :math:`\theta` agree on a bit with probability :math:`1 - \theta / \pi`),
   with :math:`b_g = \lfloor \log_2(n_g / c) \rfloor` bits so that buckets
   hold about ``c`` nodes. The nodes of a graph are sorted by (code,
   :math:`w_\ast \cdot \hat u`); codes sharing a prefix are adjacent, so the
   order is the leaf order of a random-hyperplane tree. Each node takes the
   ``c`` nodes around its own position as candidates (fewer in a graph of
   fewer nodes): its bucket, capped at ``c`` by the second key, or, when the
   bucket is small, its neighbours in the tree.
2. **Two lists per node**, merged over the repetitions: the
   :math:`k_s = \max(k, 8)` candidates of largest cosine
   :math:`\hat u \cdot \hat v` (angular neighbours :math:`N(u)`) and the
   :math:`k_s` of largest score :math:`\hat z_u \cdot \hat z_v`
   (:math:`L(u)`).
3. **Propagation** (``rounds`` times, every node at once):

   .. math::
       L(u) \leftarrow \operatorname{top}_{k_s}\Big(L(u) \cup
       \bigcup_{w \in N(u)} L(w) \cup \bigcup_{v \in L(u)} L(v)\Big)

   by score: the lists of nodes of close direction, and the partners'
   partners (as in NN-descent, Dong et al., WWW 2011). ``L(u)`` only
   improves.

The result is each node's ``k`` best of :math:`L(u)`. A candidate list
always keeps its own best, so a graph of at most ``c`` nodes (all pairs in
every window) gets the exact top-``k``. Per node the search scores
:math:`O(R (c + k_s) + \text{rounds} \cdot k_s^2)` candidates and sorts
once per repetition: time :math:`O(n (R (d \log n + c d)
+ \text{rounds} \cdot k_s^2 d))` and memory :math:`O(n (c + k_s))` per graph
(rows are processed in chunks).

**Approximation.** A true partner missed by the buckets and by the
propagation is replaced by the best one found. Recall is high when the
embeddings are clustered (≥ 0.98 at 4,000 nodes in
``tests/test_sparse_ann.py``) and lower for structureless ones (Gaussian
:math:`\hat z` in 16 dimensions, where the ``k`` best partners of a node
are barely better than the rest); ``benchmarks/bench_scaling.py`` reports it
on the structure learner's embeddings of its synthetic graphs.

**Randomness.** The directions are drawn from a :class:`torch.Generator`
seeded with ``seed``, on the CPU (then moved to the embeddings' device):
the same seed gives the same directions on any device and in training and
evaluation, so the same embeddings give the same selection. The directions
are shared by the graphs of a batch and everything else is per graph (the
bits :math:`b_g`, the sorted order, the windows and lists of graph
:math:`g` use only its own nodes), so a graph's selection does not depend
on the other graphs of the batch. :class:`~sk_vibgsl.nn.VIBGSLModule`
draws its seed once, when it is built, from torch's global generator
(which the estimator seeds with ``random_state``) and keeps it in the
buffer ``top_k_seed``, saved with the parameters.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

__all__ = [
    "ANN_REPEATS",
    "ANN_ROUNDS",
    "ANN_WINDOW",
    "TOP_K_SEARCHES",
    "ann_directions",
    "approx_top_k",
    "hash_windows",
]

TOP_K_SEARCHES = ("exact", "approx")
"""Values of ``top_k_search``."""

ANN_WINDOW = 16
"""Candidates ``c`` taken around each node per repetition (the bucket cap)."""

ANN_REPEATS = 4
"""Repetitions ``R`` (independent sets of directions)."""

ANN_ROUNDS = 2
"""Propagation rounds."""

_LIST_MIN = 8  # k_s = max(k, 8): list length during the search
_ROWS = 2048  # rows of a candidate matrix scored at once

_MAX_BITS = 24  # at most 2**24 buckets per graph


def ann_directions(seed: int, dim: int, bits: int, repeats: int) -> Tensor:
    r"""The Gaussian directions, shape ``(repeats, dim, bits + 1)``, float32, CPU.

    Drawn from a :class:`torch.Generator` seeded with ``seed`` (the global
    generator is left alone). Column ``j < bits`` is :math:`w_{j+1}`, the
    last column :math:`w_\ast`. For a given ``seed`` and ``dim``, the first
    columns do not depend on ``bits``: the draw is made for
    24 bits and cut.
    """
    gen = torch.Generator().manual_seed(int(seed))
    w = torch.randn((repeats, dim, _MAX_BITS + 1), generator=gen)
    return torch.cat([w[..., :bits], w[..., _MAX_BITS:]], -1)




@torch.no_grad()
def hash_windows(
    unit: Tensor, ptr: Tensor, *, window: int = ANN_WINDOW, repeats: int = ANN_REPEATS,
    seed: int = 0,
) -> list[Tensor]:
    r"""Step 1: each node's window of ``c`` nodes in every repetition.

    Parameters
    ----------
    unit : Tensor of shape (T, d)
        Unit-norm directions :math:`\hat u` of the concatenated graphs.
    ptr : Tensor of shape (B + 1,)
        Graph offsets.
    window, repeats, seed
        ``c``, ``R`` and the seed of :func:`ann_directions`.

    Returns
    -------
    list of ``R`` Tensors of shape (T, c), long
        Node ids of the same graph (the node itself included); ``-1`` pads
        the rows of nodes in graphs of fewer than ``c`` nodes.
    """
    device, t, sizes = unit.device, len(unit), ptr.diff()
    graph = torch.repeat_interleave(torch.arange(len(sizes), device=device), sizes)
    bits_g = torch.floor(torch.log2(sizes.clamp(min=1).double() / window)).clamp(0, _MAX_BITS)
    bits = int(bits_g.max())
    place = torch.arange(bits, device=device)
    # bit j weighs 2^(bits-1-j) where the node's graph uses it: prefix order
    weight = torch.where(place < bits_g.long()[graph].unsqueeze(1), 2 ** (bits - 1 - place), 0)
    width = sizes.clamp(max=window)[graph]
    lo, hi = ptr[graph], ptr[graph + 1]
    offsets = torch.arange(window, device=device)
    out = []
    for w in ann_directions(seed, unit.shape[1], bits, repeats).to(device, unit.dtype):
        proj = unit @ w  # (T, bits + 1)
        code = ((proj[:, :bits] > 0).long() * weight).sum(1)
        rank = torch.empty(t, dtype=torch.long, device=device)
        rank[proj[:, bits].argsort(stable=True)] = torch.arange(t, device=device)
        # (graph, code, w_* · u) as one integer; graph g's nodes sort to ptr[g]:ptr[g+1]
        order = ((graph * (1 << bits) + code) * t + rank).argsort()
        pos = torch.empty_like(rank)
        pos[order] = torch.arange(t, device=device)
        start = torch.minimum(torch.maximum(pos - window // 2, lo), hi - width)
        idx = (start.unsqueeze(1) + offsets).clamp(max=t - 1)
        out.append(torch.where(offsets < width.unsqueeze(1), order[idx], -1))
    return out


def _best(vec: Tensor, cand: Tensor, k: int) -> Tensor:
    r"""Per row ``u`` the ``k`` candidates ``v`` of largest ``vec[u] · vec[v]``:
    ``cand`` is ``(T, m)`` node ids (``-1`` none; repeats and ``u`` itself
    are skipped); returns ``(T, k)``, best first, ``-1``-padded."""
    t = len(vec)
    cand = cand.sort(1).values
    bad = (cand < 0) | (cand == torch.arange(t, device=cand.device).unsqueeze(1))
    bad[:, 1:] |= cand[:, 1:] == cand[:, :-1]
    kk = min(k, cand.shape[1])
    out = cand.new_full((t, k), -1)
    for s in range(0, t, _ROWS):
        c = cand[s:s + _ROWS].clamp(min=0)
        other = vec.index_select(0, c.reshape(-1)).view(*c.shape, -1)
        score = torch.bmm(other, vec[s:s + _ROWS].unsqueeze(2)).squeeze(2)
        score.masked_fill_(bad[s:s + _ROWS], -torch.inf)
        val, i = score.topk(kk, 1)
        out[s:s + _ROWS, :kk] = torch.where(val > -torch.inf, c.gather(1, i), -1)
    return out


def _lists_of(lists: Tensor, of: Tensor) -> Tensor:
    """``(T, m · k_s)``: the lists of the nodes in ``of`` (``(T, m)``, -1 none)."""
    got = lists.index_select(0, of.clamp(min=0).reshape(-1)).view(len(of), -1, lists.shape[1])
    return torch.where((of >= 0).unsqueeze(2), got, -1).flatten(1)


@torch.no_grad()
def approx_top_k(
    z: Tensor,
    ptr: Tensor,
    k: int,
    *,
    window: int = ANN_WINDOW,
    repeats: int = ANN_REPEATS,
    rounds: int = ANN_ROUNDS,
    seed: int = 0,
) -> Tensor:
    r"""Each node's ``k`` best partners in its graph, searched approximately.

    The drop-in for :func:`~sk_vibgsl.nn.sparse_structure.top_k_all_pairs`
    with ``top_k_search="approx"``; see the module's description.

    Parameters
    ----------
    z : Tensor of shape (T, d)
        Node embeddings :math:`\hat z` (detached and cast to float32 here).
    ptr : Tensor of shape (B + 1,)
        Graph offsets: the nodes of graph ``g`` are ``ptr[g] : ptr[g + 1]``.
    k : int
        Partners per node (fewer where a graph has fewer other nodes).
    window : int, default=ANN_WINDOW
        ``c ≥ 2``: candidates per node and repetition; graphs of at most
        ``c`` nodes are searched exactly.
    repeats : int, default=ANN_REPEATS
        ``R ≥ 1``.
    rounds : int, default=ANN_ROUNDS
        Propagation rounds, ``≥ 0``.
    seed : int, default=0
        Seed of the hashing directions (:func:`ann_directions`).

    Returns
    -------
    Tensor of shape (2, S), long
        Directed selections ``(u, v)``, ``u ≠ v`` in the same graph.
    """
    if window < 2 or repeats < 1 or rounds < 0 or k < 1:
        raise ValueError(
            "approx_top_k needs window >= 2, repeats >= 1, rounds >= 0 and k >= 1, got "
            f"{window}, {repeats}, {rounds}, {k}."
        )
    sizes = ptr.diff()
    if len(z) == 0 or int(sizes.max()) < 2:
        return torch.empty((2, 0), dtype=torch.long, device=z.device)
    z = z.detach().float()
    unit = F.normalize(z, dim=1, eps=1e-12)
    ks = max(k, _LIST_MIN)
    near = scored = torch.empty((len(z), 0), dtype=torch.long, device=z.device)
    for found in hash_windows(unit, ptr, window=window, repeats=repeats, seed=seed):
        near = _best(unit, torch.cat([near, found], 1), ks)
        scored = _best(z, torch.cat([scored, found], 1), ks)
    for _ in range(rounds):
        pool = [scored, _lists_of(scored, near), _lists_of(scored, scored)]
        scored = _best(z, torch.cat(pool, 1), ks)
    scored = scored[:, :k]
    u, j = (scored >= 0).nonzero(as_tuple=True)
    return torch.stack([u, scored[u, j]])
