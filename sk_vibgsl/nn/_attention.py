r"""The ``B × N × N`` part of :class:`~sk_vibgsl.nn.backbones.DenseGATLayer`.

.. math::
    \alpha_{ij} = \operatorname{softmax}_j\left(
        \mathrm{LeakyReLU}(d_i + s_j) + \log \tilde{A}_{ij}\right),
    \qquad
    \mathrm{out}_i = \textstyle\sum_j \alpha_{ij} h_j

with :math:`d = h a_d`, :math:`s = h a_s` and :math:`\log \tilde{A}` from
:func:`attention_log_weights` (``-inf`` off the edges).

Written out with tensor operations, autograd allocates about six fresh
``B × N × N`` tensors per layer and keeps two of them; on a CPU each fresh
tensor of that size costs more in page faults than the arithmetic on it.
:func:`edge_attention` does the same computation in one autograd node that
allocates two in the forward pass (both kept for the backward pass, as
before) and one or two in the backward pass, working in place otherwise;
:func:`attention_log_weights`, computed once for both layers, allocates one
each way.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

__all__ = ["attention_log_weights", "edge_attention"]

_TINY = 1e-30  # smaller positive weights count as this one


def attention_log_weights(adj: Tensor) -> Tensor:
    r""":math:`\log \tilde{A}`, ``-inf`` where :math:`\tilde{A} \le 0`.

    :math:`\tilde{A}` is ``adj`` (``B × N × N``) with a self-loop of weight 1
    added to every node that has none. The logarithm is taken only on the
    edges, so the gradient with respect to ``adj`` is finite everywhere:

    .. math::
        \frac{\partial L}{\partial A_{ij}} = \frac{1}{\tilde{A}_{ij}}
        \frac{\partial L}{\partial \log \tilde{A}_{ij}}
        \text{ on the edges}, \qquad 0 \text{ elsewhere}

    (weights below ``1e-30`` count as edges of weight ``1e-30``, with zero
    gradient). It depends on ``adj`` alone: a backbone computes it once for
    both of its layers.
    """
    return _LogWeights.apply(adj)


class _LogWeights(torch.autograd.Function):
    """:func:`attention_log_weights` with one ``B × N × N`` allocation each way."""

    @staticmethod
    def forward(ctx, adj: Tensor) -> Tensor:
        missing = adj.diagonal(dim1=-2, dim2=-1) == 0
        log_w = adj.clamp(min=_TINY).log_().masked_fill_(adj <= 0, -torch.inf)
        log_w.diagonal(dim1=-2, dim2=-1).masked_fill_(missing, 0.0)  # log 1
        ctx.save_for_backward(adj, missing)
        return log_w

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        adj, missing = ctx.saved_tensors
        grad_adj = torch.div(grad, adj).masked_fill_(adj < _TINY, 0.0)
        diag = grad_adj.diagonal(dim1=-2, dim2=-1)
        diag.copy_(torch.where(missing, grad.diagonal(dim1=-2, dim2=-1), diag))  # 1 / (0 + 1)
        return grad_adj


class _EdgeAttention(torch.autograd.Function):
    r"""``softmax(leaky_relu(d_i + s_j) + log_w_ij) @ h`` in one node.

    Backward, with :math:`g` the gradient of the output,
    :math:`G_{ij} = g_i \cdot h_j` and
    :math:`\sum_j \alpha_{ij} G_{ij} = g_i \cdot \mathrm{out}_i`:

    .. math::
        \frac{\partial L}{\partial z_{ij}}
            = \alpha_{ij}\left(G_{ij} - g_i \cdot \mathrm{out}_i\right),
        \qquad
        \frac{\partial L}{\partial h} = \alpha^\top g,

    where :math:`z` is the softmax input; :math:`\partial L / \partial \log \tilde{A}
    = \partial L / \partial z`, and :math:`\partial L / \partial d_i` and
    :math:`\partial L / \partial s_j` are the row and column sums of
    :math:`\partial L / \partial z` times the LeakyReLU slope (1 or
    ``negative_slope``) at :math:`d_i + s_j`.
    """

    @staticmethod
    def forward(ctx, dst: Tensor, src: Tensor, log_w: Tensor, h: Tensor, negative_slope: float):
        pre = dst.unsqueeze(-1) + src.unsqueeze(-2)
        alpha = F.leaky_relu(pre, negative_slope).add_(log_w)
        # the softmax kernel's out= variant, in place: rows are independent
        torch.ops.aten._softmax.out(alpha, -1, False, out=alpha)
        out = torch.bmm(alpha, h)
        ctx.save_for_backward(pre, alpha, h, out)
        ctx.negative_slope = negative_slope
        return out

    @staticmethod
    def backward(ctx, grad: Tensor):
        pre, alpha, h, out = ctx.saved_tensors
        grad_h = torch.bmm(alpha.transpose(-1, -2), grad) if ctx.needs_input_grad[3] else None
        if not any(ctx.needs_input_grad[:3]):
            return None, None, None, grad_h, None
        grad_z = torch.bmm(grad, h.transpose(-1, -2))
        grad_z.sub_((grad * out).sum(-1, keepdim=True)).mul_(alpha)
        grad_log_w = grad_z if ctx.needs_input_grad[2] else None
        # LeakyReLU's backward, in place unless grad_z is also returned
        grad_e = torch.ops.aten.leaky_relu_backward.grad_input(
            grad_z, pre, ctx.negative_slope, False,
            grad_input=grad_z if grad_log_w is None else torch.empty_like(grad_z),
        )
        grad_dst = grad_e.sum(-1) if ctx.needs_input_grad[0] else None
        grad_src = grad_e.sum(-2) if ctx.needs_input_grad[1] else None
        return grad_dst, grad_src, grad_log_w, grad_h, None


def edge_attention(
    dst: Tensor, src: Tensor, log_w: Tensor, h: Tensor, negative_slope: float = 0.2
) -> Tensor:
    r"""``softmax(leaky_relu(dst_i + src_j) + log_w_ij, dim=j) @ h``.

    Parameters
    ----------
    dst, src : Tensor of shape (B, N)
        Attention scores of the receiving and the sending node.
    log_w : Tensor of shape (B, N, N)
        :func:`attention_log_weights` of the adjacency; every row needs a
        finite entry (the self-loop guarantees one).
    h : Tensor of shape (B, N, F)
        Node features to aggregate.
    negative_slope : float, default=0.2
        LeakyReLU slope.

    Returns
    -------
    Tensor of shape (B, N, F)
    """
    return _EdgeAttention.apply(dst, src, log_w, h, negative_slope)
