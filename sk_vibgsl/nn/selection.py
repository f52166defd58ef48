r"""Per-node top-``k`` selection of learned edges, with ties.

Which of its candidate partners each node keeps (``structure_k``), on the
dense path (:func:`top_k_pairs`, on ``B × N × N`` logits) and as the
building block of the sparse one
(:func:`~sk_vibgsl.nn.sparse_structure.top_k_all_pairs`,
:func:`~sk_vibgsl.nn.sparse_structure.top_k_candidates`). The selection is
a function of the scores alone:

- **Ties.** Among equal scores the lower index wins (``"lowest"``), or the
  first index after the node going round its graph (``"cyclic"``,
  :func:`tie_start`), never what a ``topk`` kernel happens to return.
- **Rounding.** Alike nodes have equal logits in exact arithmetic, but a
  matrix product may round entries of one row differently (MKL's ``bmm``
  on an AMD EPYC rounds the last columns of :math:`Z Z^\top` apart by one
  unit in the last place). Scores within a tolerance :math:`\tau_u`
  (:func:`tie_tolerance`) of the row's ``k``-th largest count as tied with
  it, so such rounding changes neither which partners a node keeps nor the
  tie rule's degree cap.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = [
    "TIE_RULES",
    "check_ties",
    "tie_start",
    "tie_tolerance",
    "top_k_lowest",
    "top_k_mask",
    "top_k_pairs",
]

TIE_RULES = ("lowest", "cyclic")
"""How a top-``k`` selection breaks ties between equal scores (:func:`tie_start`)."""

MAX_K_BY_MAXIMA = 3
"""Up to this ``k``, :func:`top_k_mask` finds each row's ``k``-th largest
entry by ``k - 1`` row maxima, each removed, and one more maximum
(``_kth_largest``), instead of a ``topk``: on CPU (one thread, the
score blocks of an IMDB-BINARY epoch) 0.55× ``topk``'s time at ``k = 2``,
level at 4, slower beyond."""


def check_ties(ties: str) -> None:
    """``ValueError`` naming ``ties`` unless it is one of :data:`TIE_RULES`."""
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {TIE_RULES}, got {ties!r}.")


def tie_start(rows: Tensor, ties: str) -> Tensor | None:
    r"""Where each row's tie order starts: ``None`` for ``"lowest"``, the
    row's own index plus one for ``"cyclic"``.

    With start :math:`s_u = u + 1`, :func:`top_k_lowest` gives equal scores
    to the columns in the order :math:`(v - u - 1) \bmod N`: the nodes after
    :math:`u`, then those before it. In a set of :math:`m` nodes that all
    score alike, each then selects the ``k`` that follow it (wrapping round),
    so each node is selected by ``k`` others: degree at most :math:`2k`
    instead of the :math:`m - 1` that the lowest-index rule gives the set's
    first node. Any :math:`N` at least the graph's size gives the same order
    among its nodes, so padded batches and flat (PyG) numberings agree.

    Parameters
    ----------
    rows : Tensor of long
        Row (node) indices, shaped to broadcast against the scores' leading
        dimensions with a trailing 1.
    ties : {"lowest", "cyclic"}
    """
    check_ties(ties)
    return None if ties == "lowest" else rows + 1


def tie_tolerance(
    norms: Tensor, largest: Tensor, bias: Tensor | None, width: int
) -> Tensor:
    r"""How far apart two scores of a row may be and still count as tied.

    .. math::
        \tau_u = (d + 2)\, \varepsilon \left(\lVert \hat z_u \rVert
        \max_{v \in g(u)} \lVert \hat z_v \rVert + |b|\right)

    with :math:`d` the embedding width, :math:`\varepsilon` the dtype's
    machine epsilon and :math:`g(u)` the graph of node :math:`u`. A float
    inner product of length :math:`d` is within :math:`\gamma_d
    \lVert \hat z_u \rVert \lVert \hat z_v \rVert` of the exact one
    (:math:`\gamma_d \approx d \varepsilon / 2`, Higham, *Accuracy and
    Stability of Numerical Algorithms*, §3.1), whatever the order of
    summation, and adding :math:`b` rounds once more: two computations of
    the same logit :math:`\ell_{uv} = \hat z_u \cdot \hat z_v + b` differ by
    at most :math:`\tau_u`. Scores of distinct partners closer than that are
    equal to the precision they were computed at; the selection treats them
    as tied and breaks the tie by position. A matrix product that rounds
    below its dtype's precision (TF32 or bf16 modes,
    :func:`torch.set_float32_matmul_precision`) can exceed this bound.

    Parameters
    ----------
    norms : Tensor
        :math:`\lVert \hat z_u \rVert` per node (any shape).
    largest : Tensor
        :math:`\max_{v \in g(u)} \lVert \hat z_v \rVert`, broadcastable to ``norms``.
    bias : Tensor or None
        The scalar logit bias :math:`b` (cosine score), ``None`` for 0.
    width : int
        :math:`d`.

    Returns
    -------
    Tensor
        :math:`\tau`, shaped like ``norms`` broadcast with ``largest``; no gradient.
    """
    tol = norms.detach() * largest.detach()
    if bias is not None:
        tol = tol + bias.detach().abs()
    return tol * ((width + 2) * torch.finfo(tol.dtype).eps)


def top_k_lowest(
    scores: Tensor, k: int, start: Tensor | None = None, tol: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    r"""Each row's ``k`` largest entries, ties going to the lower index.

    With :math:`t_u` the row's ``k``-th largest entry and tolerance
    :math:`\tau_u` (0 unless ``tol`` is given), row :math:`u` keeps every
    entry above :math:`t_u + \tau_u` and, of the entries tied with
    :math:`t_u` (:math:`T_u = \{v : |s_{uv} - t_u| \le \tau_u\}`), the
    :math:`k - a_u` with the lowest indices, :math:`a_u = |\{w : s_{uw} >
    t_u + \tau_u\}|`:

    .. math::
        M_{uv} = [s_{uv} > t_u + \tau_u] \lor \left([v \in T_u] \land
        |\{w \le v : w \in T_u\}| \le k - a_u\right)

    :meth:`torch.Tensor.topk` leaves the choice among equal entries to the
    implementation (it differs between kernels and block sizes); this rule
    makes the selection a function of the scores alone, and with
    :math:`\tau` (:func:`tie_tolerance`) one that rounding of the scores
    does not change. Where no row has a ``(k+1)``-th entry tied with its
    ``k``-th it is one ``topk``; otherwise the tied picks are the first
    indices of :math:`T_u`, read off a running count of the entries at or
    above :math:`t_u - \tau_u`: one comparison and one cumulative sum over
    the scores, no second ``topk``.

    With ``start`` :math:`c_u`, "lower index" is read going round from
    :math:`c_u`: ties go to the smallest :math:`(v - c_u) \bmod N`
    (``start`` 0 is the plain rule; see :func:`tie_start`).

    Parameters
    ----------
    scores : Tensor of shape (..., N)
        No NaN; ``-inf`` entries are ordinary (lowest) values.
    k : int
        ``1 ≤ k ≤ N``.
    start : Tensor of long, optional
        :math:`c_u`, broadcastable to ``scores.shape[:-1] + (1,)``.
    tol : Tensor, optional
        :math:`\tau_u \ge 0`, broadcastable to ``scores.shape[:-1] + (1,)``;
        ``None`` ties only equal entries.

    Returns
    -------
    values, indices : Tensor of shape (..., k)
        The kept entries and their indices, in no specified order within a
        row (``values`` is ``scores`` gathered at ``indices``).
    """
    n = scores.shape[-1]
    val, idx = scores.topk(min(k + 1, n), dim=-1)
    if k == n:
        return val, idx
    kth = val[..., k - 1 : k]
    lo, hi = (kth, kth) if tol is None else (kth - tol, kth + tol)
    tie = val[..., k : k + 1] >= lo  # a (k+1)-th entry tied with the k-th
    val, idx = val[..., :k], idx[..., :k]
    if not bool(tie.any()):
        return val, idx
    # sorted descending: the `above` entries above t_u + tau_u come first
    above = (val > hi).sum(-1, keepdim=True)
    picks = _first_in_band(scores, lo, hi, k, start)
    j = torch.arange(k, device=scores.device)
    from_tied = picks.gather(-1, (j - above).clamp_(min=0))
    idx = torch.where(j < above, idx, from_tied)
    return scores.gather(-1, idx), idx


def _first_in_band(scores: Tensor, lo: Tensor, hi: Tensor, k: int, start: Tensor | None) -> Tensor:
    r"""Each row's tied entries :math:`T_u = \{v : lo_u \le s_{uv} \le hi_u\}`
    in position order (from ``start``, see :func:`top_k_lowest`), as the
    first ``k - a_u`` of a ``k``-wide index tensor (:math:`a_u` the entries
    above :math:`hi_u`; the slots after them are unspecified).

    The first ``k`` positions of :math:`S_u = \{v : s_{uv} \ge lo_u\}`
    (:math:`T_u` and the :math:`a_u` entries above it) hold at least
    ``k - a_u`` of :math:`T_u`'s first entries, in order. They are found
    without sorting the row: the running count :math:`m_{uv} = |S_u \cap
    [0, v]|` is non-decreasing, so the ``j``-th position of :math:`S_u` is
    the first ``v`` with :math:`m_{uv} \ge j` (a binary search), and going
    round from the start :math:`c_u` it is the ``(b_u + j)``-th, wrapping to
    the start of the row after :math:`|S_u|`, with :math:`b_u = |S_u \cap
    [0, c_u)|`.
    Two passes over the scores (the comparison and the count, in int16
    where the row is short enough) instead of a ``topk`` of the tied
    positions: on the score blocks of a REDDIT-BINARY epoch (CPU, one
    thread) :func:`top_k_lowest` takes about 0.6 of its former time, for the
    same indices (``docs/user_guide/scaling.md``).
    """
    n = scores.shape[-1]
    lead = scores.shape[:-1]
    in_band = scores >= lo
    dtype = _count_dtype(n + k)  # the targets below reach n + k
    count = in_band.reshape(-1, n).cumsum(-1, dtype=dtype)
    target = torch.arange(1, k + 1, device=scores.device, dtype=dtype).expand(len(count), k)
    if start is not None:
        first, before = _count_before(count, start.expand(*lead, 1).reshape(-1, 1))
        after = count[:, -1:] - before  # |S_u| from the start to the row's end
        target = torch.where(target <= after, target + before, target - after)
    cols = torch.searchsorted(count, target.contiguous()).clamp_(max=n - 1).view(*lead, k)
    # the picks of S_u in order; the tied ones (<= hi) first, still in order
    tied = scores.gather(-1, cols) <= hi
    order = torch.where(tied, 0, k) + torch.arange(k, device=scores.device)
    return cols.gather(-1, order.argsort(-1))


def top_k_mask(
    scores: Tensor, k: int, start: Tensor | None = None, tol: Tensor | None = None
) -> Tensor:
    r"""Each row's ``k`` largest entries as a mask, ties going to the lower index.

    The mask :math:`M` of :func:`top_k_lowest`'s rule (its formula), the
    same selection as :func:`~sk_vibgsl.nn.sparse_structure.top_k_candidates`
    (a stable sort) and :func:`~sk_vibgsl.nn.sparse_structure.top_k_all_pairs`
    make, computed from the row's ``k``-th largest entry :math:`t_u` alone:

    .. math::
        M_{uv} = A_{uv} \lor \left(T_{uv} \land
        \textstyle\sum_{w \preceq v} T_{uw} \le k - \sum_w A_{uw}\right),
        \quad A_{uv} = [s_{uv} > t_u + \tau_u], \quad
        T_{uv} = [t_u - \tau_u \le s_{uv} \le t_u + \tau_u]

    with :math:`\preceq` the position order (from ``start``, see
    :func:`top_k_lowest`). Fewer than ``k`` entries lie above
    :math:`t_u + \tau_u` and at least ``k`` at or above :math:`t_u`, so each
    row keeps exactly ``k``. The work is one search for :math:`t_u`
    (``_kth_largest``), then comparisons and one running count over the
    scores: no sort, no gather of the tied entries, the same passes whether
    or not a row has ties (alike nodes tie in most rows of a degree-featured
    batch, and rounding puts others within :math:`\tau_u`).

    Parameters
    ----------
    scores, k, start, tol
        As for :func:`top_k_lowest`.

    Returns
    -------
    Tensor of shape (..., N), bool, exactly ``k`` entries per row.
    """
    n = scores.shape[-1]
    if k >= n:
        return torch.ones_like(scores, dtype=torch.bool)
    kth = _kth_largest(scores, k)
    lo, hi = (kth, kth) if tol is None else (kth - tol, kth + tol)
    above = scores > hi
    tied = (scores >= lo).logical_xor_(above)  # lo <= s <= hi, as hi >= lo
    wanted = k - above.sum(-1, keepdim=True)
    return above.logical_or_(tied.logical_and_(_running_count(tied, start) <= wanted))


def _kth_largest(scores: Tensor, k: int) -> Tensor:
    """Each row's ``k``-th largest entry (counting equal entries apart), ``(..., 1)``."""
    if k > MAX_K_BY_MAXIMA:
        return scores.topk(k, dim=-1).values[..., -1:]
    rest = scores.clone() if k > 1 else scores
    for _ in range(k - 1):
        rest.scatter_(-1, rest.max(-1, keepdim=True).indices, float("-inf"))
    return rest.amax(-1, keepdim=True)


def _running_count(flags: Tensor, start: Tensor | None) -> Tensor:
    r"""Per row, how many of ``flags`` are set at or before each position,
    positions counted from ``start`` going round the row (from 0 when
    ``None``): with :math:`m_{uv}` the plain count and :math:`b_u` the count
    before :math:`c_u`, :math:`m_{uv} - b_u` for :math:`v \ge c_u` and
    :math:`m_{uv} + m_{u,N-1} - b_u` for :math:`v < c_u`. In int16 where the
    row is short enough (``_count_dtype``)."""
    n = flags.shape[-1]
    count = flags.cumsum(-1, dtype=_count_dtype(n))
    if start is None:
        return count
    first, before = _count_before(count, start.expand(*flags.shape[:-1], 1))
    wrapped = torch.arange(n, device=flags.device) < first
    return torch.where(wrapped, count + (count[..., -1:] - before), count - before)


def top_k_pairs(
    logits: Tensor,
    k: int,
    candidates: Tensor,
    ties: str = "lowest",
    tol: Tensor | None = None,
) -> Tensor:
    r"""Per-node top-``k`` selection of candidate pairs, symmetrised by union.

    Node :math:`u` selects the (at most) ``k`` candidates :math:`v` with the
    largest logits :math:`\ell_{uv}`; a pair is kept when either end selected
    it:

    .. math::
        S_{uv} = [v \in \mathrm{top}_k(u)] \lor [u \in \mathrm{top}_k(v)]

    A node with fewer than ``k`` candidates selects them all. Among equal
    logits (within ``tol``, :func:`top_k_lowest`) the lower index wins
    (``ties="lowest"``), or the index that comes first after :math:`u` going
    round the graph's nodes (``ties="cyclic"``, :func:`tie_start`), as on the
    sparse path, so both paths select the same pairs when embeddings coincide.

    Parameters
    ----------
    logits : Tensor of shape (B, N, N)
        Edge scores; only their order within a row matters.
    k : int
        Neighbours selected per node.
    candidates : Tensor of shape (B, N, N), bool
        Pairs that may be selected (see
        :func:`~sk_vibgsl.nn.candidate_pairs`).
    ties : {"lowest", "cyclic"}, default="lowest"
        Which of equal logits a node selects.
    tol : Tensor of shape (B, N, 1), optional
        Tie tolerance :math:`\tau_u` (:func:`tie_tolerance`); ``None`` ties
        only equal logits.

    Returns
    -------
    Tensor of shape (B, N, N), bool, symmetric, within ``candidates``.
    """
    n = logits.shape[-1]
    k = min(k, n)
    scores = logits.detach().masked_fill(~candidates, float("-inf"))
    start = tie_start(torch.arange(n, device=logits.device).unsqueeze(-1), ties)
    selected = top_k_mask(scores, k, start, tol).logical_and_(candidates)
    return selected | selected.transpose(-1, -2)


def _count_before(count: Tensor, start: Tensor) -> tuple[Tensor, Tensor]:
    """``(c, b)``: the start ``c`` of each row taken modulo the row length,
    and the running ``count``'s value just before it (0 where ``c = 0``);
    ``start`` shaped as ``count`` but for a last dimension of 1."""
    first = torch.remainder(start, count.shape[-1])
    return first, torch.where(first > 0, count.gather(-1, (first - 1).clamp(min=0)), 0)


def _count_dtype(largest: int) -> torch.dtype:
    """int16 for running counts up to ``largest`` where it holds them (half
    int32's memory traffic), else int32."""
    return torch.int16 if largest <= torch.iinfo(torch.int16).max else torch.int32
