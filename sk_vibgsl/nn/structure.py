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
        logits = self.edge_logits(x)
        if self.training:
            adj = concrete_bernoulli(logits, self.temperature)
        else:
            adj = torch.sigmoid(logits)
        pair_mask = mask.unsqueeze(-1) & mask.unsqueeze(-2)
        pair_mask = pair_mask & ~torch.eye(adj.shape[-1], dtype=torch.bool, device=adj.device)
        return threshold_adjacency(adj, self.threshold, keep=pair_mask)
