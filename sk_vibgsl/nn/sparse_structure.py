r"""The IB-graph as an edge list: :math:`O(n k)` memory instead of :math:`O(n^2)`.

The same graph as :class:`~sk_vibgsl.nn.structure.StructureLearner` with a
per-node top-``k`` (and optionally an ``h``-hop candidate set), for graphs
concatenated PyG-style: node ``t`` of the batch belongs to graph ``batch[t]``
and the nodes of graph ``g`` are ``ptr[g] : ptr[g + 1]``.

1. Selection (no gradient): node :math:`u` keeps the ``k`` candidates
   :math:`v` with the largest logits :math:`\ell_{uv}`, scored either over
   every pair of the graph in row blocks (:func:`top_k_all_pairs`, never an
   ``n × n`` tensor: :math:`O(n^2 d)` time, :math:`O(n \cdot \text{block})`
   memory) or over the edges of the ``h``-hop neighbourhood of the observed
   graph (:func:`hop_candidates`, :func:`top_k_candidates`: time and memory
   grow with the candidate count). The kept set is the union of the
   selections, made symmetric (:func:`union_pairs`).
2. Weights (with gradient): only the kept pairs' logits are recomputed,
   :math:`\ell_{uv} = \hat z_u \cdot \hat z_v + b`, and sampled as the dense
   path does (:func:`sample_pair_weights`): :math:`a_{uv} =
   \sigma((\ell_{uv} + g_{uv}) / t)` in training with one logistic noise
   :math:`g_{uv}` per unordered pair, :math:`\sigma(\ell_{uv})` in
   evaluation, and weights below :math:`a_0` dropped. Autograd on the
   gathered pairs gives the exact gradient in :math:`O(E d)`.

With ``k ≥ n - 1`` every pair is kept and the weights equal the dense
path's (same logits, same threshold; the training noise is a different draw
unless given).
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from .selection import check_ties, tie_start, tie_tolerance, top_k_lowest
from .sparse_ann import approx_top_k

__all__ = [
    "IBEdges",
    "block_elements_for",
    "hop_candidates",
    "ib_edges",
    "pair_logits",
    "sample_pair_weights",
    "top_k_all_pairs",
    "top_k_candidates",
    "union_pairs",
]

BLOCK_ELEMENTS = 1 << 22
"""Score entries held at once by :func:`top_k_all_pairs` on the CPU (16 MiB of float32)."""

BLOCK_ELEMENTS_CUDA = 1 << 24
"""Score entries held at once by :func:`top_k_all_pairs` on a GPU (64 MiB of float32).

There a block's time is its dozens of kernel launches and three host synchronisations, not
its arithmetic: REDDIT-BINARY's batches of 100 graphs took 14 blocks of ``BLOCK_ELEMENTS``
each. On an H200 this block cut the learned channel's training epoch there by 19-27 % (GCN)
and 18-25 % (GIN, two runs) for 12-25 MiB more peak memory; larger blocks gained at most 6 %
more and held 1.5-2.5 times the memory (``benchmarks/results/speed_gpu_top_k_block``)."""


def block_elements_for(device: torch.device) -> int:
    """The default score block of :func:`top_k_all_pairs` on ``device``."""
    return BLOCK_ELEMENTS_CUDA if device.type == "cuda" else BLOCK_ELEMENTS


_CHUNK = 1 << 20  # candidate pairs scored at once by top_k_candidates
_FAR = -1e30  # score of a padded column in top_k_all_pairs


class IBEdges(NamedTuple):
    """The learned graph of a batch as unordered pairs ``u < v``."""

    row: Tensor  #: smaller node of each kept pair (flat batch numbering)
    col: Tensor  #: larger node
    weight: Tensor  #: :math:`a_{uv} > 0`, with gradient
    logits: Tensor  #: :math:`\ell_{uv}` of the pairs before the threshold
    selected: Tensor  #: ``(2, P)`` every selected pair, before the threshold

    def directed(self) -> tuple[Tensor, Tensor]:
        """``(edge_index, weight)`` with both directions of every pair."""
        index = torch.stack([torch.cat([self.row, self.col]), torch.cat([self.col, self.row])])
        return index, torch.cat([self.weight, self.weight])


def _graph_of(ptr: Tensor) -> Tensor:
    return torch.repeat_interleave(torch.arange(len(ptr) - 1, device=ptr.device), ptr.diff())


def _flat_tie_tolerance(z: Tensor, bias: Tensor | None, ptr: Tensor | None) -> Tensor:
    """:func:`~sk_vibgsl.nn.tie_tolerance` per node, shape ``(T,)``;
    ``ptr=None`` takes all nodes as one graph."""
    norms = torch.linalg.vector_norm(z.detach(), dim=-1)
    if ptr is None:
        return tie_tolerance(norms, norms.max(), bias, z.shape[1])
    graph = _graph_of(ptr)
    largest = norms.new_zeros(len(ptr) - 1).scatter_reduce_(0, graph, norms, "amax")
    return tie_tolerance(norms, largest[graph], bias, z.shape[1])


@torch.no_grad()
def top_k_all_pairs(
    z: Tensor,
    ptr: Tensor,
    k: int,
    block_elements: int | None = None,
    ties: str = "lowest",
    *,
    bias: Tensor | None = None,
) -> Tensor:
    r"""Each node's ``k`` best partners among all other nodes of its graph.

    .. math::
        \mathrm{top}_k(u) = \operatorname{arg\,top\text{-}k}_{v \ne u,\ g(v) = g(u)}
        \hat z_u \cdot \hat z_v

    Consecutive graphs are grouped while ``B' m²`` stays within
    ``block_elements`` (``m`` the group's largest size), padded to ``m`` and
    scored in blocks of ``B' × R × m`` entries (a graph larger than the block
    alone, ``R`` rows at a time): memory :math:`O(\text{block})`, time
    :math:`O(\sum_g n_g^2 d)` up to the padding within a group.
    Among equal scores (within the tie tolerance
    :func:`~sk_vibgsl.nn.tie_tolerance`) the lower index wins
    (:func:`~sk_vibgsl.nn.top_k_lowest`), or with ``ties="cyclic"`` the
    first after the node going round its graph
    (:func:`~sk_vibgsl.nn.tie_start`), as on the dense path
    (:func:`~sk_vibgsl.nn.top_k_pairs`).

    Parameters
    ----------
    z : Tensor of shape (T, d)
        Node embeddings (:math:`\hat z`; a constant bias does not change the order).
    ptr : Tensor of shape (B + 1,)
        Graph offsets.
    k : int
        Partners per node (fewer where a graph has fewer other nodes).
    block_elements : int, optional
        Score entries per block; by default ``BLOCK_ELEMENTS`` on the CPU and
        ``BLOCK_ELEMENTS_CUDA`` on a GPU (:func:`block_elements_for`). The
        selection does not depend on it.
    ties : {"lowest", "cyclic"}, default="lowest"
    bias : Tensor, optional
        The logit bias :math:`b`; it only widens the tie tolerance, as on
        the dense path, whose logits include it.

    Returns
    -------
    Tensor of shape (2, S), long
        Directed selections ``(u, v)``.
    """
    check_ties(ties)
    if block_elements is None:
        block_elements = block_elements_for(z.device)
    sizes = ptr.diff()
    b, n = len(sizes), int(sizes.max()) if len(sizes) else 0
    kk = min(k, n - 1)
    if kk < 1:
        return torch.empty((2, 0), dtype=torch.long, device=z.device)
    graph = _graph_of(ptr)
    local = torch.arange(len(z), device=z.device) - ptr[graph]
    d = z.shape[1]
    # Rows carry an extra coordinate 1, columns one of 0 (real node) or
    # _FAR (padding): padded columns score _FAR without a masking pass.
    query = z.new_zeros((b, n, d + 1))
    query[..., d] = 1.0
    query[graph, local, :d] = z.detach()
    key = z.new_full((b, n, d + 1), 0.0)
    key[..., d] = _FAR
    key[graph, local] = torch.cat([z.detach(), z.new_zeros(len(z), 1)], 1)
    key = key.transpose(1, 2)
    tol = z.new_zeros((b, n))
    tol[graph, local] = _flat_tie_tolerance(z, bias, ptr)
    out = []
    # One score buffer for all blocks: a fresh block per iteration, with the
    # small selections allocated between them, fragmented the heap (1.1 GB
    # retained after scoring one graph of 32,000 nodes in 16 MB blocks).
    buffer = z.new_empty(max(block_elements, n))
    host = sizes.tolist()
    g0 = 0
    while g0 < b:
        # consecutive graphs while the block holds them at the largest one's
        # size m, scored over m columns only (not the batch's N): a large
        # graph is its own block without padding
        m, g1 = host[g0], g0 + 1
        while g1 < b and (g1 - g0 + 1) * max(m, host[g1]) ** 2 <= block_elements:
            m, g1 = max(m, host[g1]), g1 + 1
        km = min(kk, m - 1)
        ng = sizes[g0:g1]
        rows_per_block = max(1, block_elements // ((g1 - g0) * m))
        for r0 in range(0, m if km >= 1 else 0, rows_per_block):
            r1 = min(m, r0 + rows_per_block)
            s = buffer[: (g1 - g0) * (r1 - r0) * m].view(g1 - g0, r1 - r0, m)
            torch.bmm(query[g0:g1, r0:r1], key[g0:g1, :, :m], out=s)  # (B', R, m)
            rows = torch.arange(r0, r1, device=z.device)
            s[:, rows - r0, rows] = -torch.inf  # no self-pairs
            start = tie_start(rows.view(1, -1, 1), ties)  # rows are local indices
            # ties broken as on the dense path
            val, idx = top_k_lowest(s, km, start, tol[g0:g1, r0:r1].unsqueeze(-1))
            ok = (val > _FAR / 2).logical_and_(rows.view(1, -1, 1) < ng.view(-1, 1, 1))
            gb, r, j = ok.nonzero(as_tuple=True)
            v = idx[gb, r, j]
            base = ptr[g0 + gb]
            out.append(torch.stack([base + r0 + r, base + v]))
        g0 = g1
    return torch.cat(out, 1) if out else torch.empty((2, 0), dtype=torch.long, device=z.device)


@torch.no_grad()
def hop_candidates(edge_index: Tensor, n_nodes: int, hops: int) -> Tensor:
    r"""Pairs of distinct nodes joined by a path of at most ``hops`` edges.

    .. math::
        C = \{(u, v) : u \ne v,\ \left((A > 0) + I\right)^h_{uv} > 0\}

    over the (symmetrised) observed edges; for ``h ≥ 2`` by joining the
    pairs reached so far with the edges (a sparse product), so time and
    memory grow with the size of the ``h``-hop neighbourhoods (large around
    hubs: a node of degree ``D`` puts :math:`D^2` pairs in its 2-hop set),
    not with :math:`n^2`.

    Parameters
    ----------
    edge_index : Tensor of shape (2, E)
        Observed edges (flat numbering; never across graphs).
    n_nodes : int
    hops : int
        ``h ≥ 1``.

    Returns
    -------
    Tensor of shape (2, C), long
        Both directions of every candidate pair, coalesced.
    """
    row, col = edge_index
    off = row != col
    step = torch.unique(torch.cat([row[off] * n_nodes + col[off], col[off] * n_nodes + row[off]]))
    s_row, s_col = step // n_nodes, step % n_nodes  # sorted by row
    rowptr = torch.cat([s_row.new_zeros(1), torch.bincount(s_row, minlength=n_nodes).cumsum(0)])
    pairs = step
    for _ in range(hops - 1):
        # extend every reachable (u, v) by each edge (v, w): a join on v
        u, v = pairs // n_nodes, pairs % n_nodes
        deg = rowptr[v + 1] - rowptr[v]
        src = torch.repeat_interleave(u, deg)
        first = torch.repeat_interleave(rowptr[v] - (deg.cumsum(0) - deg), deg)
        dst = s_col[first + torch.arange(len(src), device=src.device)]
        pairs = torch.unique(torch.cat([pairs, src * n_nodes + dst]))
        pairs = pairs[pairs // n_nodes != pairs % n_nodes]
    return torch.stack([pairs // n_nodes, pairs % n_nodes])


@torch.no_grad()
def top_k_candidates(
    z: Tensor,
    candidates: Tensor,
    k: int | None,
    ties: str = "lowest",
    *,
    bias: Tensor | None = None,
    ptr: Tensor | None = None,
) -> Tensor:
    r"""Each node's ``k`` best partners among its candidates.

    Scores :math:`\hat z_u \cdot \hat z_v` of every candidate ``(u, v)``
    (in chunks), then finds each node's ``k``-th largest score :math:`t_u`
    by one sort by score and one stable sort by ``u``
    (:math:`O(C d + C \log C)`), and keeps :func:`~sk_vibgsl.nn.top_k_lowest`'s
    selection: the candidates above :math:`t_u + \tau_u`, then of those tied
    with :math:`t_u` (within :math:`\tau_u`,
    :func:`~sk_vibgsl.nn.tie_tolerance`) the ones that come first:
    the lower ``v`` for candidates sorted by ``(u, v)`` (as
    :func:`hop_candidates` gives them); with ``ties="cyclic"`` the
    candidates are first put in the order :math:`(v - u - 1) \bmod T` (one
    more stable sort), the dense path's cyclic rule
    (:func:`~sk_vibgsl.nn.tie_start`).

    Parameters
    ----------
    z : Tensor of shape (T, d)
    candidates : Tensor of shape (2, C)
        Directed candidate pairs, e.g. :func:`hop_candidates`.
    k : int or None
        ``None`` keeps every candidate.
    ties : {"lowest", "cyclic"}, default="lowest"
    bias : Tensor, optional
        The logit bias :math:`b`; it only widens the tie tolerance.
    ptr : Tensor of shape (B + 1,), optional
        Graph offsets, for the tolerance's per-graph largest norm; ``None``
        takes the largest over all nodes.

    Returns
    -------
    Tensor of shape (2, S), long
    """
    check_ties(ties)
    if k is None or candidates.shape[1] == 0:
        return candidates
    z = z.detach()
    u, v = candidates
    counts = torch.bincount(u, minlength=len(z))
    if int(counts.max()) <= k:  # every node keeps all its candidates
        return candidates
    if ties == "cyclic":
        candidates = candidates[:, torch.remainder(v - u - 1, len(z)).argsort(stable=True)]
        u, v = candidates
    score = torch.cat([
        (z.index_select(0, u[s:s + _CHUNK]) * z.index_select(0, v[s:s + _CHUNK])).sum(-1)
        for s in range(0, len(u), _CHUNK)
    ])
    # t_u: the score ranked k-th among u's candidates (-inf where u has fewer than k)
    order = score.argsort(descending=True, stable=True)
    order = order[u[order].argsort(stable=True)]
    su = u[order]
    rank = torch.arange(len(su), device=z.device) - (torch.cumsum(counts, 0) - counts)[su]
    kth = score.new_full((len(z),), -torch.inf)
    at = rank == k - 1
    kth[su[at]] = score[order[at]]
    t, tau = kth[u], _flat_tie_tolerance(z, bias, ptr)[u]
    keep = score > t + tau
    tied = ((score >= t - tau) & (score <= t + tau)).nonzero().squeeze(1)  # candidate order
    # each tied candidate's rank among its node's tied ones, in candidate order
    tu = u[tied]
    by_node = tu.argsort(stable=True)
    tied_counts = torch.bincount(tu, minlength=len(z))
    tied_rank = torch.empty_like(tu)
    tied_rank[by_node] = (torch.arange(len(tu), device=z.device)
                          - (torch.cumsum(tied_counts, 0) - tied_counts)[tu[by_node]])
    room = k - torch.bincount(u[keep], minlength=len(z))  # k - a_u
    keep[tied] = tied_rank < room[tu]
    return candidates[:, keep]


def union_pairs(selected: Tensor, n_nodes: int) -> Tensor:
    r"""The unordered pairs ``u < v`` with :math:`v \in \mathrm{top}_k(u)` or
    :math:`u \in \mathrm{top}_k(v)`, sorted; shape ``(2, P)``."""
    u, v = selected
    lo, hi = torch.minimum(u, v), torch.maximum(u, v)
    key = torch.unique(lo[lo != hi] * n_nodes + hi[lo != hi])
    return torch.stack([key // n_nodes, key % n_nodes])


def pair_logits(z: Tensor, bias: Tensor | None, pairs: Tensor) -> Tensor:
    r""":math:`\ell_{uv} = \hat z_u \cdot \hat z_v + b` of the given pairs,
    with gradient (:math:`O(P d)`)."""
    logits = (z.index_select(0, pairs[0]) * z.index_select(0, pairs[1])).sum(-1)
    return logits if bias is None else logits + bias


def sample_pair_weights(
    logits: Tensor, temperature: float | None, threshold: float, noise: Tensor | None = None
) -> Tensor:
    r"""Concrete sample (training) or probability (evaluation) of each pair,
    zero below ``threshold``.

    .. math::
        a_{uv} = \sigma\!\left(\frac{\ell_{uv} + g_{uv}}{t}\right),\
        g_{uv} = \log\frac{U}{1 - U},\ U \sim U(0, 1)
        \quad\text{or}\quad a_{uv} = \sigma(\ell_{uv}),
        \qquad a_{uv} \leftarrow a_{uv} [a_{uv} \ge a_0]

    Parameters
    ----------
    logits : Tensor of shape (P,)
    temperature : float or None
        ``None``: evaluation (no noise).
    threshold : float
    noise : Tensor of shape (P,), optional
        The logistic noise :math:`g`; drawn (one per pair) when not given.
    """
    if temperature is not None:
        if noise is None:
            noise = torch.rand_like(logits).logit_(eps=1e-6)
        a = torch.sigmoid((logits + noise) / temperature)
    else:
        a = torch.sigmoid(logits)
    return torch.where(a >= threshold, a, torch.zeros((), dtype=a.dtype, device=a.device))


def ib_edges(
    z: Tensor,
    bias: Tensor | None,
    ptr: Tensor,
    *,
    k: int | None,
    candidates: Tensor | None = None,
    temperature: float | None = None,
    threshold: float = 0.1,
    noise: Tensor | None = None,
    block_elements: int | None = None,
    search: str = "exact",
    seed: int = 0,
    ties: str = "lowest",
) -> IBEdges:
    r"""The sparse IB-graph of a batch: selection, then weights.

    Parameters
    ----------
    z : Tensor of shape (T, d)
        :math:`\hat z` (the structure learner's embedding, scaled for the
        cosine score), with gradient.
    bias : Tensor or None
        Scalar logit bias :math:`b` (cosine score), or ``None``.
    ptr : Tensor of shape (B + 1,)
    k : int or None
        Per-node top-``k``; ``None`` keeps every candidate (with
        ``candidates=None``, every pair: :math:`O(n^2)`).
    candidates : Tensor of shape (2, C), optional
        :func:`hop_candidates`; ``None`` for all pairs of each graph.
    temperature : float or None
        Concrete temperature in training, ``None`` in evaluation.
    threshold : float, default=0.1
    noise : Tensor, optional
        Logistic noise per kept pair (in the order of the sorted pairs),
        for tests that share a draw with the dense path.
    block_elements : int, optional
        :func:`top_k_all_pairs`'s block (by default by device).
    search : {"exact", "approx"}, default="exact"
        All-pairs selection (``candidates=None`` with ``k`` given):
        :func:`top_k_all_pairs`, or the hashing search
        :func:`~sk_vibgsl.nn.sparse_ann.approx_top_k` (``"approx"`` needs ``k``;
        it has no effect with ``candidates``).
    seed : int, default=0
        Seed of the ``"approx"`` search's hashing directions.
    ties : {"lowest", "cyclic"}, default="lowest"
        Which of equal scores the exact selections keep
        (:func:`~sk_vibgsl.nn.tie_start`); the ``"approx"`` search keeps
        the ties it happens to find.

    Returns
    -------
    IBEdges
        The pairs with a non-zero weight.
    """
    n_nodes = len(z)
    if search not in ("exact", "approx"):
        raise ValueError(f"search must be 'exact' or 'approx', got {search!r}.")
    if search == "approx" and candidates is None:
        if k is None:
            raise ValueError("search='approx' needs k (structure_k): it searches for a top-k.")
        selected = approx_top_k(z, ptr, k, seed=seed)
    elif candidates is None:
        if k is None:
            sizes = ptr.diff()
            k_all = int(sizes.max()) - 1 if len(sizes) else 0
            selected = top_k_all_pairs(z, ptr, max(k_all, 1), block_elements, ties, bias=bias)
        else:
            selected = top_k_all_pairs(z, ptr, k, block_elements, ties, bias=bias)
    else:
        selected = top_k_candidates(z, candidates, k, ties, bias=bias, ptr=ptr)
    pairs = union_pairs(selected, n_nodes)
    logits = pair_logits(z, bias, pairs)
    weight = sample_pair_weights(logits, temperature, threshold, noise)
    kept = (weight > 0).nonzero().squeeze(1)
    kept_pairs = pairs.index_select(1, kept)
    return IBEdges(kept_pairs[0], kept_pairs[1], weight.index_select(0, kept), logits, pairs)
