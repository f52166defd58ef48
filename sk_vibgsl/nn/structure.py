"""The IB-graph generator: feature masking and structure learning.

Sun et al., "Graph Structure Learning with Variational Information
Bottleneck", AAAI 2022, §3 "Step-1: Generate IB-Graph".
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

__all__ = [
    "FeatureMask",
    "StructureLearner",
    "concrete_bernoulli",
    "threshold_adjacency",
]


class FeatureMask(nn.Module):
    r"""Learnable feature mask with noise reparameterisation.

    .. math::
        X_{IB} = X_r + (X - X_r) \odot M, \qquad M = \sigma(\theta) \in (0, 1)^d

    In training, :math:`X_r` is drawn from the empirical distribution of the
    node features: each entry copies the features of a random real node of
    the batch. In evaluation, :math:`X_r` is replaced by its expectation,
    the mean node feature of the training data (buffer ``mean``), so the
    output is deterministic and independent of the batch.

    Parameters
    ----------
    in_channels : int
        Node feature width ``d``.
    init_logit : float, default=2.0
        Initial :math:`\theta`: masks start mostly open (:math:`M \approx 0.88`).
    """

    def __init__(self, in_channels: int, init_logit: float = 2.0) -> None:
        super().__init__()
        self.in_channels = in_channels
        self.init_logit = init_logit
        self.logits = nn.Parameter(torch.empty(in_channels))
        self.register_buffer("mean", torch.zeros(in_channels))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.constant_(self.logits, self.init_logit)

    @property
    def mask(self) -> Tensor:
        """The mask :math:`M = \\sigma(\\theta)`, shape ``(d,)``."""
        return torch.sigmoid(self.logits)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        """Mask ``x`` (``B × N × d``); padded nodes (``mask`` False) stay zero."""
        if self.training:
            flat = x.reshape(-1, x.shape[-1])
            real = mask.reshape(-1).nonzero().squeeze(1)
            pick = real[torch.randint(len(real), (len(flat),), device=x.device)]
            x_r = flat.index_select(0, pick).view_as(x)
        else:
            x_r = self.mean.expand_as(x)
        out = torch.lerp(x_r, x, self.mask.expand_as(x))
        return out * mask.unsqueeze(-1)

    def project(self, x: Tensor, mask: Tensor, weights: list[Tensor]) -> list[Tensor]:
        r"""``[X_IB @ W.T for W in weights]`` without forming :math:`X_{IB}`.

        The same draw as :meth:`forward` (one random-number call of the same
        size), and the same values up to float rounding: as
        :math:`X_{IB} = X_r \odot (1 - M) + X \odot M` and every ``W`` is
        linear, :math:`X_{IB} W^\top = X_r (W \odot (1-M))^\top + X (W \odot
        M)^\top`, and the rows of :math:`X_r` are rows of ``X``. So only the
        real nodes' rows of ``x`` are multiplied, once, by all the weights
        together, and no ``B × N × d`` tensor (nor its gradient) is formed —
        the main cost of a training step when ``d`` is large, as with one-hot
        degree features. Rows of padded nodes are zero.

        Parameters
        ----------
        x : Tensor of shape (B, N, d)
        mask : Tensor of shape (B, N), bool
        weights : list of Tensor of shape (out_k, d)

        Returns
        -------
        list of Tensor of shape (B, N, out_k)
        """
        b, n, d = x.shape
        flat_mask = mask.reshape(-1)
        real = flat_mask.nonzero().squeeze(1)
        x_real = x.reshape(-1, d).index_select(0, real)
        m = self.mask
        w = torch.cat(weights, 0)
        width = w.shape[0]
        if self.training:
            # the draw of forward(): a random real node for every (padded) row
            r = torch.randint(len(real), (b * n,), device=x.device)
            both = x_real @ torch.cat([w * m, w * (1 - m)], 0).T
            proj = both[:, :width] + both[:, width:].index_select(0, r.index_select(0, real))
        else:
            proj = x_real @ (w * m).T + self.mean @ (w * (1 - m)).T
        out = proj.new_zeros((b * n, width)).index_copy(0, real, proj).view(b, n, width)
        return list(out.split([wk.shape[0] for wk in weights], -1))


def concrete_bernoulli(logits: Tensor, temperature: float) -> Tensor:
    r"""Symmetric relaxed Bernoulli sample of an edge-logit matrix.

    .. math::
        a_{uv} = \sigma\!\left(\tfrac{1}{t}\left(\log\tfrac{\pi_{uv}}{1-\pi_{uv}}
        + \log\tfrac{\epsilon}{1-\epsilon}\right)\right),
        \quad \epsilon \sim U(0, 1)

    ``logits`` holds :math:`\log\frac{\pi}{1-\pi}` (shape ``B × N × N``,
    symmetric); one noise draw per unordered pair keeps the sample symmetric.
    """
    noise = torch.logit(torch.rand_like(logits), eps=1e-6).triu_(1)
    noise = noise + noise.transpose(-1, -2)
    return torch.sigmoid((logits + noise) / temperature)


def threshold_adjacency(adj: Tensor, threshold: float, keep: Tensor | None = None) -> Tensor:
    """Zero every entry below ``threshold`` (and outside ``keep``, a boolean
    mask, if given); kept entries keep their gradient."""
    kept = adj >= threshold
    if keep is not None:
        kept = kept & keep
    return torch.where(kept, adj, torch.zeros((), dtype=adj.dtype, device=adj.device))


class StructureLearner(nn.Module):
    r"""Learned edge probabilities and a sampled weighted IB-graph.

    .. math::
        Z(u) = \mathrm{MLP}(X_{IB}(u)), \qquad
        \pi_{uv} = \sigma\left(Z(u) Z(v)^\top\right)

    In training, :math:`A_{IB}` is a concrete (relaxed Bernoulli) sample with
    temperature ``t``; in evaluation it is :math:`\pi` itself, the sample's
    expectation as ``t → 0``. Either way entries below ``a_0`` are masked off,
    the diagonal and padded nodes are zero, and the result is symmetric.

    Parameters
    ----------
    in_channels : int
        Node feature width.
    hidden_channels : int
        Width of both MLP layers (the embedding ``Z``).
    temperature : float, default=0.1
        Concrete temperature ``t``.
    threshold : float, default=0.1
        Edge threshold ``a_0``.
    """

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        temperature: float = 0.1,
        threshold: float = 0.1,
    ) -> None:
        super().__init__()
        self.temperature = temperature
        self.threshold = threshold
        self.lin1 = nn.Linear(in_channels, hidden_channels)
        self.lin2 = nn.Linear(hidden_channels, hidden_channels)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()

    def edge_logits(self, x: Tensor) -> Tensor:
        """Return :math:`Z Z^\\top = \\log\\frac{\\pi}{1-\\pi}`, shape ``B × N × N``."""
        z = self.lin2(F.relu(self.lin1(x)))
        return z @ z.transpose(-1, -2)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        """Return the weighted IB adjacency ``B × N × N`` of masked features ``x``."""
        return self.from_projection(x @ self.lin1.weight.T, mask)

    def from_projection(self, h: Tensor, mask: Tensor) -> Tensor:
        """:meth:`forward` from ``h = x @ lin1.weight.T`` (without the bias),
        as given by :meth:`FeatureMask.project`."""
        z = self.lin2(F.relu(h + self.lin1.bias))
        return _SampledAdjacency.apply(
            z, mask, self.temperature if self.training else None, self.threshold
        )


class _SampledAdjacency(torch.autograd.Function):
    r"""``A = threshold(concrete(Z Zᵀ))`` (training) or ``threshold(σ(Z Zᵀ))``
    (evaluation) in one autograd node.

    The values, and the draw of random numbers, are those of
    :func:`concrete_bernoulli` followed by :func:`threshold_adjacency` with
    the pair mask (no diagonal, no padded node). The difference is memory:
    unrolled, autograd keeps about five ``B × N × N`` tensors per batch
    (logits, sample, masks, thresholded sample); here the ``B × N × N`` work
    is done in place and only ``Z`` and the output are kept, as the gradient needs
    nothing else: :math:`\partial a / \partial \ell = a (1 - a) / t` where
    an entry is kept, 0 where it is not (and ``a = 0`` there).
    """

    @staticmethod
    def forward(ctx, z: Tensor, mask: Tensor, temperature: float | None, threshold: float):
        a = torch.bmm(z, z.transpose(-1, -2))
        if temperature is not None:
            noise = torch.rand_like(a).logit_(eps=1e-6).triu_(1)
            a.add_(noise).add_(noise.transpose(-1, -2))  # == logits + (noise + noiseᵀ)
            del noise
            a.div_(temperature)
        a.sigmoid_()
        # a >= threshold (compared in a's dtype, as `adj >= threshold` does)
        # <=> a > the next smaller representable value: one in-place pass
        below = torch.tensor(threshold, dtype=a.dtype)
        below = torch.nextafter(below, torch.tensor(-torch.inf, dtype=a.dtype)).item()
        F.threshold(a, below, 0.0, inplace=True)
        node = mask.to(a.dtype)
        a.mul_(node.unsqueeze(-1)).mul_(node.unsqueeze(-2))
        a.diagonal(dim1=-2, dim2=-1).zero_()
        ctx.save_for_backward(z, a)
        ctx.temperature = temperature
        return a

    @staticmethod
    def backward(ctx, grad: Tensor):
        z, a = ctx.saved_tensors
        g = torch.addcmul(a, a, a, value=-1).mul_(grad)  # σ' = a(1 - a); 0 where dropped
        grad_z = torch.baddbmm(torch.bmm(g, z), g.transpose(-1, -2), z)
        if ctx.temperature is not None:
            grad_z.div_(ctx.temperature)  # the 1/t of the sample, on the small side
        return grad_z, None, None, None
