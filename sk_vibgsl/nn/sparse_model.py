r""":meth:`~sk_vibgsl.nn.VIBGSLModule.encode` on the sparse path: cost :math:`O(n k)` per graph.

The batch arrives padded as on the dense path (``x`` of shape ``B × N × F``,
``mask``, the observed edges as an edge list ``adj_index``/``adj_weight``
or a dense ``adj``): only ``x`` and the edge list are held, never a
``B × N × N`` tensor. The real nodes are concatenated (``T`` of them), the
IB-graph is built as an edge list (:func:`~sk_vibgsl.nn.sparse_structure.ib_edges`),
mixed with the observed edges, and the backbone's layers run on that list
(:func:`~sk_vibgsl.nn.sparse_backbones.sparse_backbone`). Padded nodes never
enter any computation, so a graph's output does not depend on the padding
or on the other graphs of the batch.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from ._feature_product import listed_features
from .sparse_backbones import edge_graph, mean_pool, sparse_backbone, sum_pool
from .sparse_structure import IBEdges, hop_candidates, ib_edges
from .structure import degree_scales

__all__ = ["SparseBatch", "observed_edges", "pair_edge_kl", "sparse_batch", "sparse_encode"]


class SparseBatch(NamedTuple):
    """The real nodes of a padded batch, concatenated."""

    real: Tensor  #: flat positions ``b * N + i`` of the real nodes, ``(T,)``
    ptr: Tensor  #: graph offsets, ``(B + 1,)``
    graph_of: Tensor  #: graph of each real node, ``(T,)``


def sparse_batch(mask: Tensor) -> SparseBatch:
    """Concatenation of the real nodes of ``mask`` (``B × N``, real nodes first)."""
    sizes = mask.sum(-1)
    ptr = torch.cat([sizes.new_zeros(1), sizes.cumsum(0)])
    graph_of = torch.repeat_interleave(torch.arange(len(sizes), device=mask.device), sizes)
    return SparseBatch(mask.reshape(-1).nonzero().squeeze(1), ptr, graph_of)


def observed_edges(
    batch: SparseBatch,
    n: int,
    adj: Tensor | None = None,
    adj_index: Tensor | None = None,
    adj_weight: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """The observed edges of the batch in the concatenated numbering.

    From the row-padded edge list of ``GraphDataset`` (``sk_vibgsl._batching``)
    (position ``i · N + j`` in row ``b``; weight-0 entries are padding and
    dropped) or from a dense ``adj`` (its non-zero entries). Returns
    ``(edge_index (2, E), weight (E,))``.
    """
    if adj_index is not None:
        b, pos = (adj_weight != 0).nonzero(as_tuple=True)
        flat = adj_index[b, pos].long()
        weight = adj_weight[b, pos]
        i, j = flat // n, flat % n
    elif adj is not None:
        b, i, j = adj.nonzero(as_tuple=True)
        weight = adj[b, i, j]
    else:
        empty = torch.empty(0, dtype=torch.long, device=batch.ptr.device)
        return torch.stack([empty, empty]), torch.empty(0, device=batch.ptr.device)
    base = batch.ptr[b]
    return torch.stack([base + i, base + j]), weight


def pair_edge_kl(
    logits: Tensor, graph_of_pair: Tensor, n_graphs: int, prior: float
) -> Tensor:
    r"""Per-graph mean over the given pairs of
    :math:`\mathrm{KL}(\mathrm{Ber}(\sigma(\ell)) \,\|\, \mathrm{Ber}(r))`.

    The sparse path's edge KL: the mean runs over the *selected* pairs
    (top-``k`` within the candidates), which are all the candidates when
    ``structure_k`` is ``None`` or at least ``n - 1``, and then equals the
    dense path's mean over all candidates. A graph without pairs has 0.
    """
    p = torch.sigmoid(logits)
    kl = p * (-F.softplus(-logits) - torch.log(torch.tensor(prior))) + (1 - p) * (
        -F.softplus(logits) - torch.log(torch.tensor(1.0 - prior))
    )
    total = kl.new_zeros(n_graphs).index_add(0, graph_of_pair, kl)
    count = torch.bincount(graph_of_pair, minlength=n_graphs).clamp(min=1).to(kl.dtype)
    return total / count


def ib_density(edges: IBEdges, batch: SparseBatch) -> Tensor:
    r"""Per-graph :math:`|\{u < v : a_{uv} > 0\}| / (n (n - 1) / 2)`."""
    n_graphs = len(batch.ptr) - 1
    kept = torch.bincount(batch.graph_of[edges.row], minlength=n_graphs).to(torch.float32)
    n = batch.ptr.diff().to(torch.float32)
    return kept / (n * (n - 1) / 2).clamp(min=1.0)


def observed_density(index: Tensor, weight: Tensor, batch: SparseBatch) -> Tensor:
    r"""Per-graph share of ordered pairs ``u ≠ v`` with a non-zero observed
    weight, as :func:`~sk_vibgsl.nn.structure.edge_density` counts them."""
    n_graphs = len(batch.ptr) - 1
    real = (index[0] != index[1]) & (weight != 0)
    count = torch.bincount(batch.graph_of[index[0, real]], minlength=n_graphs).to(torch.float32)
    n = batch.ptr.diff().to(torch.float32)
    return count / (n * (n - 1)).clamp(min=1.0)


def sparse_ib_graph(module, x: Tensor, mask: Tensor, adj=None, adj_index=None,
                    adj_weight=None, noise: Tensor | None = None, *,
                    listed: Tensor | None = None, feature_index: Tensor | None = None,
                    feature_value: Tensor | None = None):
    """The IB-graph on the sparse path: ``(batch, h, graph, edges, observed)``.

    ``h`` is the list of first projections of :math:`X_{IB}` on the real
    nodes (:meth:`~sk_vibgsl.nn.VIBGSLModule.project`; ``h[0]`` the GNN's),
    ``graph`` the coalesced mixed graph :math:`\\lambda A_{obs} + (1 - \\lambda) A_{IB}`
    (:class:`~sk_vibgsl.nn.sparse_backbones.EdgeGraph`), ``edges`` the
    :class:`~sk_vibgsl.nn.sparse_structure.IBEdges` (``None`` without
    structure learning), ``observed`` the observed ``(edge_index, weight)``.
    ``listed``, or a batch's ``feature_index`` and ``feature_value``: the
    nonzero features, read instead of ``x``
    (:meth:`~sk_vibgsl.nn.VIBGSLModule.project`).
    """
    if getattr(module, "reads_observed_hidden", False):
        raise ValueError(
            "structure_input='observed' runs on the dense path only: pass the dense `adj` "
            "(graph_path 'auto' or 'dense'), not an edge list."
        )
    lam = module.mix
    has_obs = adj is not None or adj_index is not None
    if module.structure_mix > 0 and not has_obs:
        raise ValueError("structure_mix > 0 needs the observed adjacency `adj`.")
    if module.branch_gate is not None and not has_obs:
        raise ValueError(
            f"observed_branch={module.observed_branch!r} needs the observed adjacency `adj`."
        )
    hops = module.candidate_hops
    if hops is not None and module.structure is not None and not has_obs:
        raise ValueError("candidate_hops needs the observed adjacency `adj`.")
    batch = sparse_batch(mask)
    n = mask.shape[1]
    if listed is None:
        listed = listed_features(x, feature_index, feature_value)
    projected = module.project(x, mask, listed)
    flat = [p.reshape(-1, p.shape[-1]).index_select(0, batch.real) for p in projected]
    t = len(batch.real)
    obs_index, obs_weight = observed_edges(batch, n, adj, adj_index, adj_weight)
    obs_weight = obs_weight.to(flat[0].dtype)
    edges = None
    if module.structure is None:
        index, weight = obs_index, obs_weight
    else:
        s = module.structure
        z, bias = s._embedding(flat[1])
        candidates = None if hops is None else hop_candidates(obs_index, t, hops)
        edges = ib_edges(
            z, bias, batch.ptr, k=s.k, candidates=candidates,
            temperature=s.temperature if module.training else None,
            threshold=s.threshold, noise=noise,
            search=module.top_k_search, seed=module.ann_seed, ties=s.ties,
        )
        index, weight = edges.directed()
        if module.ib_graph_norm != "none":  # D_IB^-1 A_IB or D_IB^-1/2 A_IB D_IB^-1/2
            degree = weight.new_zeros(t).index_add_(0, index[0], weight)
            left, right = degree_scales(degree, module.ib_graph_norm)
            weight = weight * left[index[0]]
            if right is not None:
                weight = weight * right[index[1]]
        if module.structure_mix > 0:
            index = torch.cat([obs_index, index], 1)
            weight = torch.cat([lam * obs_weight, (1 - lam) * weight])
    # the learned pairs alone are unique (u < v, both directions once)
    unique = edges is not None and module.structure_mix == 0
    graph = edge_graph(index, weight, t, coalesced=unique)
    return batch, flat, graph, edges, (obs_index, obs_weight)


def sparse_encode(module, x: Tensor, mask: Tensor, adj=None, adj_index=None,
                  adj_weight=None, noise: Tensor | None = None, *,
                  listed: Tensor | None = None):
    """``(pooled, edge_kl, density)`` of the sparse path: ``pooled`` is the
    GNN output per graph ``(B, 2K)``, its mean or sum over the nodes
    (``module.readout``); ``edge_kl`` and ``density`` are ``(B,)`` (zeros
    without structure learning)."""
    batch, h, graph, edges, observed = sparse_ib_graph(
        module, x, mask, adj, adj_index, adj_weight, noise, listed=listed
    )
    if module.shares_branch:  # one GNN: the observed graph, and the learned one gated
        obs_graph = edge_graph(*observed, len(batch.real), coalesced=False)
        out = sparse_backbone(module.gnn, h[0], obs_graph, (module.branch_gate, graph))
    else:
        out = sparse_backbone(module.gnn, h[0], graph)
    n_graphs = mask.shape[0]
    readout = mean_pool if module.readout == "mean" else sum_pool
    pooled = readout(out, batch.graph_of, n_graphs)
    if module.observed_gnn is not None:
        obs_graph = edge_graph(*observed, len(batch.real), coalesced=False)
        obs_out = sparse_backbone(module.observed_gnn, h[2], obs_graph)
        pooled = module.with_observed_branch(pooled, readout(obs_out, batch.graph_of, n_graphs))
    edge_kl = pooled.new_zeros(n_graphs)
    if edges is None:
        return pooled, edge_kl, observed_density(*observed, batch).to(pooled.dtype)
    if module.edge_prior is not None:
        edge_kl = pair_edge_kl(
            edges.logits, batch.graph_of[edges.selected[0]], n_graphs, module.edge_prior
        )
    return pooled, edge_kl, ib_density(edges, batch).to(pooled.dtype)
