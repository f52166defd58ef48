r"""The dense layers of :class:`~sk_vibgsl.nn.Backbone`, run on an edge list.

Same parameters, same math, :math:`O(E)` work: a
:class:`~sk_vibgsl.nn.backbones.Backbone` runs either on a padded
``B × N × N`` adjacency (its own ``forward``) or, through
:func:`sparse_backbone`, on the concatenated real nodes of the batch
(``T × F``) and a weighted edge list. Edge ``(i, j)`` with weight
:math:`A_{ij}` carries a message from ``j`` to ``i`` (as ``A @ h``).

* GCN: :math:`\hat A h = D^{-1/2}(A + L) D^{-1/2} h`, ``L`` the missing
  self-loops (weight 1 where :math:`A_{ii} = 0`), :math:`D = \mathrm{diag}((A + L)\mathbf 1)`.
* GIN: :math:`(1 + \epsilon) h_i + \sum_j A_{ij} h_j`, then the MLP.
* GAT: :math:`\alpha_{ij} \propto \tilde A_{ij} \exp(e_{ij})` over the
  edges with :math:`A_{ij} > 0` and the missing self-loops.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from ._sparse_attention import AttentionEdges, sparse_edge_attention
from .backbones import (
    SHARED_BACKBONES,
    Backbone,
    DenseGATLayer,
    DenseGCNLayer,
    DenseGINLayer,
    run_layers,
)

__all__ = [
    "EdgeGraph", "coalesce_edges", "edge_graph", "mean_pool", "propagate", "sparse_backbone",
    "sum_pool",
]

_TINY = 1e-30  # as in _attention: smaller positive weights count as this one


class EdgeGraph(NamedTuple):
    """A coalesced weighted edge list over ``n_nodes`` concatenated nodes,
    sorted by ``row``, with the index structure of :math:`A` and :math:`A^\top`
    as CSR (for :func:`propagate`)."""

    row: Tensor  #: receiving node ``i``, sorted
    col: Tensor  #: sending node ``j``
    weight: Tensor  #: :math:`A_{ij}` (may carry a gradient)
    n_nodes: int
    crow: Tensor  #: CSR row offsets of ``row``
    t_perm: Tensor  #: edge order sorted by ``col`` (the transpose's rows)
    t_crow: Tensor  #: CSR row offsets of the transpose

    def loop_weight(self) -> Tensor:
        """:math:`A_{ii}` per node (0 where there is no self-loop)."""
        loop = self.row == self.col
        return self.weight.new_zeros(self.n_nodes).index_add(
            0, self.row[loop], self.weight[loop]
        )


def coalesce_edges(index: Tensor, weight: Tensor, n_nodes: int) -> tuple[Tensor, Tensor]:
    """Sum the weights of repeated ``(i, j)``; edges sorted by ``i`` then ``j``.
    Differentiable in ``weight``."""
    key = index[0] * n_nodes + index[1]
    unique, inverse = torch.unique(key, return_inverse=True)
    summed = weight.new_zeros(len(unique)).index_add(0, inverse, weight)
    return torch.stack([unique // n_nodes, unique % n_nodes]), summed


def _offsets(sorted_index: Tensor, n_nodes: int) -> Tensor:
    counts = torch.bincount(sorted_index, minlength=n_nodes)
    return torch.cat([counts.new_zeros(1), counts.cumsum(0)])


def edge_graph(index: Tensor, weight: Tensor, n_nodes: int, coalesced: bool = False) -> EdgeGraph:
    """:class:`EdgeGraph` of an edge list that may repeat edges (``coalesced``:
    it does not, and is only sorted)."""
    if coalesced:
        order = torch.argsort(index[0] * n_nodes + index[1])
        index, weight = index[:, order], weight.index_select(0, order)
    else:
        index, weight = coalesce_edges(index, weight, n_nodes)
    row, col = index
    t_perm = torch.argsort(col * n_nodes + row)
    return EdgeGraph(row, col, weight, n_nodes, _offsets(row, n_nodes), t_perm,
                     _offsets(col.index_select(0, t_perm), n_nodes))


class _Propagate(torch.autograd.Function):
    r""":math:`A h` with :math:`A` a CSR matrix of differentiable values.

    Backward: :math:`\partial L / \partial h = A^\top g` (a second CSR
    product) and :math:`\partial L / \partial A_{ij} = g_i \cdot h_j` on the edges.
    """

    @staticmethod
    def forward(ctx, weight: Tensor, h: Tensor, graph: EdgeGraph) -> Tensor:
        n = graph.n_nodes
        a = torch.sparse_csr_tensor(graph.crow, graph.col, weight, (n, n))
        ctx.save_for_backward(weight, h)
        ctx.graph = graph
        with torch.autocast(h.device.type, enabled=False):  # autocast would cast to bf16
            return a @ h

    @staticmethod
    def backward(ctx, grad: Tensor):
        weight, h = ctx.saved_tensors
        g = ctx.graph
        grad_w = grad_h = None
        if ctx.needs_input_grad[1]:
            n = g.n_nodes
            at = torch.sparse_csr_tensor(
                g.t_crow, g.row.index_select(0, g.t_perm), weight.index_select(0, g.t_perm),
                (n, n),
            )
            with torch.autocast(grad.device.type, enabled=False):
                grad_h = at @ grad
        if ctx.needs_input_grad[0]:
            grad_w = (grad.index_select(0, g.row) * h.index_select(0, g.col)).sum(-1)
        return grad_w, grad_h, None


def propagate(h: Tensor, graph: EdgeGraph, weight: Tensor | None = None) -> Tensor:
    r""":math:`\sum_j A_{ij} h_j` over the edges (weights ``weight``, by
    default the graph's), as sparse CSR products."""
    if h.shape[0] == 0 or len(graph.row) == 0:
        return h.new_zeros(h.shape)
    weight = graph.weight if weight is None else weight
    # CPU CSR products have no bfloat16/float16 kernel: those (autocast) run in float32
    dtype = torch.promote_types(torch.promote_types(h.dtype, weight.dtype), torch.float32)
    with warnings.catch_warnings():  # "sparse CSR support is in beta"
        warnings.simplefilter("ignore", UserWarning)
        out = _Propagate.apply(weight.to(dtype), h.to(dtype), graph)
    return out.to(h.dtype)


def _gcn_norm(graph: EdgeGraph) -> tuple[Tensor, Tensor]:
    """``(D^{-1/2}, missing self-loops)``, each ``(T, 1)``, as the dense
    ``_gcn_propagation``."""
    loops = (graph.loop_weight() == 0).to(graph.weight.dtype)
    deg = graph.weight.new_zeros(graph.n_nodes).index_add(0, graph.row, graph.weight) + loops
    return deg.clamp(min=1e-12).pow(-0.5).unsqueeze(-1), loops.unsqueeze(-1)


def _attention_edges(graph: EdgeGraph) -> AttentionEdges:
    r"""Edges with :math:`A_{ij} > 0` and the missing self-loops, with
    :math:`\log \tilde A_{ij}` (differentiable where :math:`A_{ij} \ge 10^{-30}`)."""
    missing = (graph.loop_weight() == 0).nonzero().squeeze(1)
    pos = graph.weight > 0
    row = torch.cat([graph.row[pos], missing])
    col = torch.cat([graph.col[pos], missing])
    log_w = torch.cat([graph.weight[pos].clamp(min=_TINY).log(), missing.new_zeros(
        len(missing), dtype=graph.weight.dtype)])
    return AttentionEdges(row, col, log_w, graph.n_nodes)


def _gcn_layer(layer: DenseGCNLayer, h: Tensor, graph: EdgeGraph, norm, learned=None) -> Tensor:
    deg_inv_sqrt, loops = norm
    scaled = deg_inv_sqrt * h
    out = deg_inv_sqrt * (loops * scaled + propagate(scaled, graph))
    if learned is not None:
        out = out + learned[0] * propagate(h, learned[1])
    return out + layer.bias


def _gat_layer(layer: DenseGATLayer, h: Tensor, graph: EdgeGraph, edges) -> Tensor:
    dst, src = h @ layer.att_dst, h @ layer.att_src
    return sparse_edge_attention(dst, src, edges, h, layer.negative_slope) + layer.bias


def _gin_layer(layer: DenseGINLayer, h: Tensor, graph: EdgeGraph, norm=None,
               learned=None) -> Tensor:
    agg = (1 + layer.eps) * h + propagate(h, graph)
    if learned is not None:
        agg = agg + learned[0] * propagate(h, learned[1])
    out = layer.mlp[2](layer.mlp[1](agg + layer.mlp[0].bias))
    if layer.norm is None:
        return out
    if layer.training and out.shape[0] < 2:  # as DenseGINLayer._normalise
        n = layer.norm
        return F.batch_norm(out, n.running_mean, n.running_var, n.weight, n.bias,
                            False, 0.0, n.eps)
    return layer.norm(out)


_SPARSE_LAYERS = {"gcn": _gcn_layer, "gat": _gat_layer, "gin": _gin_layer}


def sparse_backbone(
    backbone: Backbone, h: Tensor, graph: EdgeGraph,
    learned: tuple[Tensor, EdgeGraph] | None = None,
) -> Tensor:
    """:meth:`~sk_vibgsl.nn.Backbone.forward_projected` on concatenated nodes.

    Parameters
    ----------
    backbone : Backbone
        Its dense layers' parameters are used.
    h : Tensor of shape (T, hidden)
        ``x @ backbone.conv1.first_weight.T`` of the real nodes.
    graph : EdgeGraph
        The weighted graph the layers see (coalesced).
    learned : (Tensor, EdgeGraph) or None, default=None
        ``(alpha, a)``: a second graph each layer also aggregates over,
        scaled by the gate ``alpha`` (GCN and GIN; see
        :meth:`~sk_vibgsl.nn.Backbone.forward_projected`).

    Returns
    -------
    Tensor of shape (T, out_channels)
    """
    if learned is not None and backbone.kind not in SHARED_BACKBONES:
        raise ValueError(
            f"a second graph in every layer needs one of {SHARED_BACKBONES}, "
            f"got {backbone.kind!r}."
        )
    layer = _SPARSE_LAYERS[backbone.kind]
    if learned is not None:
        layer = partial(layer, learned=learned)
    if backbone.kind == "gcn":
        shared = _gcn_norm(graph)
    elif backbone.kind == "gat":
        shared = _attention_edges(graph)
    else:
        shared = None
    return run_layers(backbone.layers, h, lambda conv, h: layer(conv, h, graph, shared))


def sum_pool(h: Tensor, graph_of: Tensor, n_graphs: int) -> Tensor:
    """Sum of the node rows of each graph, ``(n_graphs, C)`` (0 for an empty graph)."""
    return h.new_zeros((n_graphs, h.shape[1])).index_add(0, graph_of, h)


def mean_pool(h: Tensor, graph_of: Tensor, n_graphs: int) -> Tensor:
    """Mean of the node rows of each graph, ``(n_graphs, C)`` (0 for an empty graph)."""
    total = sum_pool(h, graph_of, n_graphs)
    count = torch.bincount(graph_of, minlength=n_graphs).clamp(min=1).to(h.dtype)
    return total / count.unsqueeze(-1)
