"""Dense GCN, GAT and GIN layers on weighted adjacency, and the backbone that stacks them.

All layers take ``x`` of shape ``B × N × F``, a weighted adjacency ``adj`` of
shape ``B × N × N`` and a node ``mask`` of shape ``B × N``; padded nodes come
out as zeros. Edge weights enter the messages, so gradients reach whatever
produced ``adj`` (the structure learner).
"""

from __future__ import annotations

from numbers import Integral

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._attention import attention_log_weights, edge_attention
from ._sparse_attention import (
    AttentionEdges,
    attention_edges,
    sparse_edge_attention,
    use_sparse_attention,
)

__all__ = ["DenseGCNLayer", "DenseGATLayer", "DenseGINLayer", "Backbone", "gcn_norm"]

#: ``(alpha, a)``: a gate (a 0-d tensor) and a second graph whose messages each
#: layer adds, scaled by the gate (``Backbone.forward_projected``'s ``learned``).
Learned = tuple  # (Tensor, Tensor), or (Tensor, EdgeGraph) on the sparse path
#: The backbones whose layers accept ``learned``.
SHARED_BACKBONES = ("gcn", "gin")


def _fill_missing_self_loops(adj: Tensor) -> Tensor:
    """Add a self-loop of weight 1 to every node that has none (as PyG's
    ``add_remaining_self_loops``); existing self-loop weights are kept."""
    diag = adj.diagonal(dim1=-2, dim2=-1)
    return adj + torch.diag_embed((diag == 0).to(adj.dtype))


def gcn_norm(adj: Tensor) -> Tensor:
    r"""Symmetric GCN normalisation with self-loops.

    .. math::
        \hat{A} = \tilde{D}^{-1/2} (A + I) \tilde{D}^{-1/2},
        \qquad \tilde{D}_{ii} = \textstyle\sum_j (A + I)_{ij}

    where :math:`I` adds only the self-loops that are missing.
    """
    adj = _fill_missing_self_loops(adj)
    deg_inv_sqrt = adj.sum(-1).clamp(min=1e-12).pow(-0.5)
    return deg_inv_sqrt.unsqueeze(-1) * adj * deg_inv_sqrt.unsqueeze(-2)


def _gcn_propagation(adj: Tensor) -> tuple[Tensor, Tensor]:
    """``(D^{-1/2}, missing self-loops)`` of :func:`gcn_norm`, each ``B × N × 1``,
    without forming the ``B × N × N`` normalised matrix."""
    loops = (adj.diagonal(dim1=-2, dim2=-1) == 0).to(adj.dtype)
    deg_inv_sqrt = (adj.sum(-1) + loops).clamp(min=1e-12).pow(-0.5)
    return deg_inv_sqrt.unsqueeze(-1), loops.unsqueeze(-1)


def _gcn_propagate(h: Tensor, adj: Tensor, deg_inv_sqrt: Tensor, loops: Tensor) -> Tensor:
    r""":math:`\hat{A} h` of :func:`gcn_norm` as
    :math:`D^{-1/2} \left(A (D^{-1/2} h) + L D^{-1/2} h\right)`, ``L`` the
    missing self-loops: equal to ``gcn_norm(adj) @ h`` up to rounding, with
    one ``B × N × N`` product instead of five ``B × N × N`` tensors."""
    h = deg_inv_sqrt * h
    return deg_inv_sqrt * torch.baddbmm(loops * h, adj, h)


class DenseGCNLayer(nn.Module):
    r"""Graph convolution (Kipf & Welling, ICLR 2017) on a dense weighted graph.

    .. math::
        X' = \hat{A} X W + b

    with :math:`\hat{A}` from :func:`gcn_norm`, computed by the caller once
    per graph and shared by the layers. On the same weighted graph and
    weights it equals :class:`torch_geometric.nn.GCNConv`.
    """

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.empty(out_channels))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.xavier_uniform_(self.lin.weight)
        nn.init.zeros_(self.bias)

    def forward(self, x: Tensor, norm_adj: Tensor, mask: Tensor) -> Tensor:
        out = norm_adj @ self.lin(x) + self.bias
        return out * mask.unsqueeze(-1)

    @property
    def first_weight(self) -> Tensor:
        """Weight of the layer's first linear map of ``x``."""
        return self.lin.weight

    def forward_projected(
        self, h: Tensor, adj: Tensor, mask: Tensor, norm, learned: Learned | None = None
    ) -> Tensor:
        r"""The layer from ``h = x @ first_weight.T``, on the raw ``adj`` with
        ``norm = _gcn_propagation(adj)``; with ``learned = (alpha, a)``,
        :math:`\hat A h + \alpha\, a h + b` (:class:`Backbone`)."""
        out = _gcn_propagate(h, adj, *norm)
        if learned is not None:
            out = out + learned[0] * (learned[1] @ h)
        return (out + self.bias) * mask.unsqueeze(-1)


def gat_attention_input(adj: Tensor) -> Tensor | AttentionEdges:
    """What :class:`DenseGATLayer` attends over: the edge list of ``adj``
    where it is a sparse graph without gradient (same values, :math:`O(E)`
    work), else ``log Ã`` for the dense ``B × N × N`` computation."""
    if use_sparse_attention(adj):
        return attention_edges(adj)
    return attention_log_weights(adj)


class DenseGATLayer(nn.Module):
    r"""Single-head graph attention (Veličković et al., ICLR 2018) with edge weights.

    .. math::
        e_{ij} = \mathrm{LeakyReLU}\left(a_d^\top W x_i + a_s^\top W x_j\right),
        \qquad
        \alpha_{ij} = \frac{\tilde{A}_{ij} \exp(e_{ij})}
                           {\sum_k \tilde{A}_{ik} \exp(e_{ik})},
        \qquad
        x'_i = \sum_j \alpha_{ij} W x_j + b

    :math:`\tilde{A}` is the weighted adjacency with missing self-loops
    added: the edge weight scales the attention (a weight of 0 removes the
    edge), so it is differentiable in the weights.

    The ``B × N × N`` attention runs as one autograd node
    (``sk_vibgsl.nn._attention``); on a sparse graph that needs no gradient
    (the observed graph) on the CPU, over its edge list instead
    (``sk_vibgsl.nn._sparse_attention``), with the same values.
    """

    def __init__(self, in_channels: int, out_channels: int, negative_slope: float = 0.2) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.att_src = nn.Parameter(torch.empty(out_channels))
        self.att_dst = nn.Parameter(torch.empty(out_channels))
        self.bias = nn.Parameter(torch.empty(out_channels))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.xavier_uniform_(self.lin.weight)
        bound = (6.0 / (1 + self.att_src.numel())) ** 0.5
        nn.init.uniform_(self.att_src, -bound, bound)
        nn.init.uniform_(self.att_dst, -bound, bound)
        nn.init.zeros_(self.bias)

    @property
    def first_weight(self) -> Tensor:
        """Weight of the layer's first linear map of ``x``."""
        return self.lin.weight

    def forward(self, x: Tensor, adj: Tensor, mask: Tensor) -> Tensor:
        return self.forward_projected(self.lin(x), adj, mask, gat_attention_input(adj))

    def forward_projected(
        self, h: Tensor, adj: Tensor, mask: Tensor, graph: Tensor | AttentionEdges
    ) -> Tensor:
        """The layer from ``h = x @ first_weight.T``, with
        ``graph = gat_attention_input(adj)`` computed by the caller once for
        all the layers on ``adj``."""
        dst, src = h @ self.att_dst, h @ self.att_src
        if isinstance(graph, AttentionEdges):
            out = sparse_edge_attention(dst, src, graph, h, self.negative_slope)
        else:
            out = edge_attention(dst, src, graph, h, self.negative_slope)
        out = out + self.bias
        return out * mask.unsqueeze(-1)


class DenseGINLayer(nn.Module):
    r"""Graph isomorphism layer (Xu et al., ICLR 2019) with weighted sums.

    .. math::
        x'_i = \mathrm{MLP}\left((1 + \epsilon) x_i + \textstyle\sum_j A_{ij} x_j\right)

    with a learnable :math:`\epsilon` and a two-layer ReLU MLP.

    With ``batch_norm=True`` the layer's output is batch-normalised over the
    real nodes of the batch, as in Xu et al.'s GIN (and the GIN of the
    authors' public code):

    .. math::
        x'_i = \mathrm{BN}\left(\mathrm{MLP}(\cdot)\right),
        \qquad
        \mathrm{BN}(h)_{ic} = \gamma_c \frac{h_{ic} - m_c}{\sqrt{v_c + 10^{-5}}} + \beta_c

    with :math:`m_c, v_c` the mean and variance of channel :math:`c` over the
    batch's real nodes in training (padded nodes never enter them) and the
    running averages in evaluation. It keeps the sum
    :math:`\sum_j A_{ij} x_j` at a fixed scale when a learned graph is dense
    and large (hundreds of neighbours per node).
    """

    def __init__(self, in_channels: int, out_channels: int, batch_norm: bool = False) -> None:
        super().__init__()
        self.eps = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(
            nn.Linear(in_channels, out_channels),
            nn.ReLU(),
            nn.Linear(out_channels, out_channels),
        )
        self.norm = nn.BatchNorm1d(out_channels) if batch_norm else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.zeros_(self.eps)
        for layer in self.mlp:
            if isinstance(layer, nn.Linear):
                layer.reset_parameters()
        if self.norm is not None:
            self.norm.reset_parameters()

    def _normalise(self, out: Tensor, mask: Tensor) -> Tensor:
        """Batch norm over the real nodes; padded rows stay zero."""
        if self.norm is None:
            return out
        real = mask.bool()
        h = out[real]
        if self.training and h.shape[0] < 2:
            # One real node has no variance: normalise with the running
            # statistics instead of failing (a batch of one 1-node graph).
            h = F.batch_norm(h, self.norm.running_mean, self.norm.running_var,
                             self.norm.weight, self.norm.bias, False, 0.0, self.norm.eps)
        else:
            h = self.norm(h)
        normed = out.new_zeros(out.shape, dtype=h.dtype)
        normed[real] = h
        return normed

    def forward(self, x: Tensor, adj: Tensor, mask: Tensor) -> Tensor:
        out = self._normalise(self.mlp((1 + self.eps) * x + adj @ x), mask)
        return out * mask.unsqueeze(-1)

    @property
    def first_weight(self) -> Tensor:
        """Weight of the layer's first linear map of ``x``."""
        return self.mlp[0].weight

    def forward_projected(
        self, h: Tensor, adj: Tensor, mask: Tensor, norm=None, learned: Learned | None = None
    ) -> Tensor:
        r"""The layer from ``h = x @ first_weight.T``: the MLP's first layer is
        linear, so it commutes with the aggregation. With ``learned = (alpha, a)``
        the MLP's input gains :math:`\alpha\, a h` (:class:`Backbone`)."""
        agg = torch.baddbmm((1 + self.eps) * h, adj, h)
        if learned is not None:
            agg = agg + learned[0] * (learned[1] @ h)
        h = agg + self.mlp[0].bias
        out = self._normalise(self.mlp[2](self.mlp[1](h)), mask)
        return out * mask.unsqueeze(-1)


_LAYERS = {"gcn": DenseGCNLayer, "gat": DenseGATLayer, "gin": DenseGINLayer}
BACKBONES = tuple(_LAYERS)


def check_num_layers(num_layers) -> None:
    """``ValueError`` naming ``num_layers`` unless it is an int >= 2."""
    if isinstance(num_layers, bool) or not isinstance(num_layers, Integral) or num_layers < 2:
        raise ValueError(f"num_layers must be an int >= 2, got {num_layers!r}.")


class Backbone(nn.Module):
    r"""A stack of ``num_layers`` graph layers with a ReLU between consecutive ones.

    .. math::
        H^{(1)} = \mathrm{ReLU}\left(f_1(X, A)\right), \quad \dots, \quad
        H^{(L)} = f_L\left(H^{(L-1)}, A\right)

    with :math:`f_1` from ``in_channels`` to ``hidden_channels``,
    :math:`f_2 \dots f_{L-1}` from ``hidden_channels`` to ``hidden_channels``
    and :math:`f_L` from ``hidden_channels`` to ``out_channels``; every
    layer sees the same weighted graph :math:`A`. Each extra layer widens a
    node's receptive field by one hop. The first and last layers are
    ``conv1`` and ``conv2`` whatever ``num_layers`` is (the two layers of the
    paper's backbone, ``num_layers=2``), the ones between them
    ``hidden_convs``.

    Parameters
    ----------
    kind : {"gcn", "gat", "gin"}
        The layer type.
    in_channels, hidden_channels, out_channels : int
        Widths of the input, the hidden layers and the output.
    batch_norm : bool, default=False
        Batch-normalise each GIN layer's output over the real nodes
        (:class:`DenseGINLayer`); ``kind="gin"`` only.
    num_layers : int, default=2
        Number of graph layers :math:`L \ge 2`.
    """

    def __init__(
        self,
        kind: str,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        batch_norm: bool = False,
        num_layers: int = 2,
    ) -> None:
        super().__init__()
        if kind not in _LAYERS:
            raise ValueError(f"backbone must be one of {BACKBONES}, got {kind!r}.")
        if batch_norm and kind != "gin":
            raise ValueError(f"batch_norm=True needs the 'gin' backbone, got {kind!r}.")
        check_num_layers(num_layers)
        self.kind = kind
        layer = _LAYERS[kind]
        extra = {"batch_norm": True} if batch_norm else {}
        # conv1 and conv2 are drawn first, so that num_layers=2 draws the
        # weights of the two-layer backbone exactly.
        self.conv1 = layer(in_channels, hidden_channels, **extra)
        self.conv2 = layer(hidden_channels, out_channels, **extra)
        self.hidden_convs = nn.ModuleList(
            layer(hidden_channels, hidden_channels, **extra) for _ in range(int(num_layers) - 2)
        )

    @property
    def layers(self) -> list[nn.Module]:
        """The graph layers in the order they run: ``conv1``, ``hidden_convs``, ``conv2``."""
        return [self.conv1, *self.hidden_convs, self.conv2]

    def forward(self, x: Tensor, adj: Tensor, mask: Tensor) -> Tensor:
        """Node embeddings ``B × N × out_channels``."""
        return self.forward_projected(x @ self.conv1.first_weight.T, adj, mask)

    def forward_projected(
        self, h: Tensor, adj: Tensor, mask: Tensor, learned: Learned | None = None
    ) -> Tensor:
        r""":meth:`forward` from ``h = x @ conv1.first_weight.T``.

        With ``learned = (alpha, a)`` (GCN and GIN), every layer also
        aggregates over a second graph ``a`` (``B × N × N``) with its own
        weights, scaled by the gate :math:`\alpha`:

        .. math::
            \text{GCN: } X' = \hat A X W + \alpha\, a X W + b, \qquad
            \text{GIN: } X' = \mathrm{MLP}\left((1 + \epsilon) X + A X
            + \alpha\, a X\right)

        (:math:`\hat A` of :func:`gcn_norm` on ``adj``; ``a`` enters as given).
        At :math:`\alpha = 0` the output is that without ``learned``.
        """
        if learned is not None and self.kind not in SHARED_BACKBONES:
            raise ValueError(
                f"a second graph in every layer needs one of {SHARED_BACKBONES}, "
                f"got {self.kind!r}."
            )
        norm = self.graph_norm(adj)
        extra = () if learned is None else (learned,)  # GAT's layers take no `learned`
        return run_layers(
            self.layers, h, lambda conv, h: conv.forward_projected(h, adj, mask, norm, *extra)
        )

    def graph_norm(self, adj: Tensor):
        """What the layers derive from ``adj`` alone, computed once for all of
        them: GCN's :math:`D^{-1/2}` and missing self-loops, GAT's attention
        input, nothing for GIN."""
        if self.kind == "gcn":
            return _gcn_propagation(adj)
        if self.kind == "gat":
            return gat_attention_input(adj)
        return None

    def first_hidden(self, h: Tensor, adj: Tensor, mask: Tensor, norm) -> Tensor:
        r""":math:`H^{(1)} = \mathrm{ReLU}(f_1(X, A))`, ``B × N × hidden``, from
        ``h = x @ conv1.first_weight.T`` and ``norm`` of :meth:`graph_norm`."""
        return F.relu(self.conv1.forward_projected(h, adj, mask, norm))

    def from_first_hidden(self, h1: Tensor, adj: Tensor, mask: Tensor, norm) -> Tensor:
        """The layers after the first, from :meth:`first_hidden`'s output:
        ``from_first_hidden(first_hidden(h, …), …)`` is ``forward_projected(h, …)``."""
        rest = self.layers[1:]
        return run_layers(
            rest, h1 @ rest[0].first_weight.T,
            lambda conv, h: conv.forward_projected(h, adj, mask, norm),
        )


def run_layers(layers, h: Tensor, apply) -> Tensor:
    """``apply(conv, h)`` for each layer on ``h`` projected by its first
    weight (the first layer's ``h`` comes projected), with a ReLU between
    consecutive layers: the loop shared by the dense and the sparse backbone."""
    last = len(layers) - 1
    for i, conv in enumerate(layers):
        if i:
            h = h @ conv.first_weight.T
        h = apply(conv, h)
        if i < last:
            h = F.relu(h)
    return h
