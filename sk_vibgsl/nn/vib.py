"""The variational bottleneck: μ, σ, reparameterisation and the KL term.

Sun et al., AAAI 2022, §3 "Step-2" and "Step-3"; Alemi et al., "Deep
Variational Information Bottleneck", ICLR 2017.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

__all__ = ["gaussian_parameters", "kl_to_standard_normal", "reparameterize"]

SIGMA_SHIFT = 5.0
SIGMA_FLOOR = 1e-6


def gaussian_parameters(h: Tensor, ib_size: int) -> tuple[Tensor, Tensor]:
    r"""Split a ``(B, 2K)`` graph embedding into :math:`\mu` and :math:`\sigma`.

    .. math::
        \mu = h_{1..K}, \qquad
        \sigma = \mathrm{softplus}(h_{K+1..2K} - 5) + 10^{-6}

    The shift of 5 starts training with a small :math:`\sigma` (as Alemi et
    al.); it is a constant, not ``K``, so :math:`\sigma` does not underflow to
    0 for large ``K``, and the floor keeps :math:`\log\sigma` finite.
    """
    mu = h[..., :ib_size]
    sigma = F.softplus(h[..., ib_size:] - SIGMA_SHIFT) + SIGMA_FLOOR
    return mu, sigma


def kl_to_standard_normal(mu: Tensor, sigma: Tensor) -> Tensor:
    r"""Per-sample :math:`\mathrm{KL}(\mathcal{N}(\mu, \sigma^2) \,\|\, \mathcal{N}(0, I))`.

    .. math::
        \mathrm{KL} = \frac{1}{2} \sum_{k=1}^{K}
        \left(\mu_k^2 + \sigma_k^2 - 1 - 2 \log \sigma_k\right) \ge 0

    Returns a tensor of shape ``(B,)``.
    """
    return 0.5 * (mu.pow(2) + sigma.pow(2) - 1.0 - 2.0 * torch.log(sigma)).sum(-1)


def reparameterize(mu: Tensor, sigma: Tensor, sample: bool) -> Tensor:
    r""":math:`Z = \mu + \sigma \odot \varepsilon`, :math:`\varepsilon \sim \mathcal{N}(0, I)`,
    when ``sample``; otherwise :math:`Z = \mu` (deterministic inference)."""
    if not sample:
        return mu
    return mu + sigma * torch.randn_like(sigma)
