"""The IB-graph generator: feature masking and structure learning.

Sun et al., "Graph Structure Learning with Variational Information
Bottleneck", AAAI 2022, §3 "Step-1: Generate IB-Graph".
"""

from __future__ import annotations

import math
from functools import partial

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._feature_product import feature_product
from .selection import (  # noqa: F401 (the selection's names, re-exported from here too)
    TIE_RULES,
    check_ties,
    tie_start,
    tie_tolerance,
    top_k_lowest,
    top_k_mask,
    top_k_pairs,
)

__all__ = [
    "EDGE_SCORES",
    "FeatureMask",
    "StructureLearner",
    "candidate_pairs",
    "concrete_bernoulli",
    "edge_density",
    "edge_kl_to_prior",
    "threshold_adjacency",
]

EDGE_SCORES = ("inner", "cosine")


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

    def project(
        self, x: Tensor, mask: Tensor, weights: list[Tensor], listed: Tensor | None = None
    ) -> list[Tensor]:
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
        listed : sparse Tensor of shape (B·N, d), optional
            ``x`` as a sparse matrix, its padded nodes' rows empty
            (``sk_vibgsl.nn._feature_product.batch_feature_matrix``):
            multiplied instead of the real rows of ``x``, which is not read.

        Returns
        -------
        list of Tensor of shape (B, N, out_k)
        """
        b, n, d = x.shape
        flat_mask = mask.reshape(-1)
        real = flat_mask.nonzero().squeeze(1)
        m = self.mask
        w = torch.cat(weights, 0)
        width = w.shape[0]
        if listed is None:  # the real rows' products, put in place after
            product = partial(feature_product, x.reshape(-1, d).index_select(0, real))
        else:  # every row's product: padded rows are empty, zeroed after
            product = partial(feature_product, x, listed=listed)
        if self.training:
            # the draw of forward(): a random real node for every (padded) row;
            # the row of `both` it picks: among the real rows, or among all rows
            r = torch.randint(len(real), (b * n,), device=x.device)
            drawn = r.index_select(0, real) if listed is None else real.index_select(0, r)
            both = product(torch.cat([w * m, w * (1 - m)], 0))
            out = both[:, :width] + both[:, width:].index_select(0, drawn)
        else:
            out = product(w * m) + self.mean @ (w * (1 - m)).T
        if listed is None:
            out = out.new_zeros((b * n, width)).index_copy(0, real, out)
        else:
            out = out.mul_(flat_mask.unsqueeze(-1))
        return list(out.view(b, n, width).split([wk.shape[0] for wk in weights], -1))


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


def candidate_pairs(mask: Tensor, adj: Tensor | None = None, hops: int | None = None) -> Tensor:
    r"""The node pairs a learned edge may join, ``B × N × N`` booleans.

    Pairs of distinct real nodes; with ``hops = h``, only those joined by a
    path of at most ``h`` observed edges:

    .. math::
        C_{uv} = [u \ne v] \, [\mathrm{mask}_u \, \mathrm{mask}_v] \,
        \left[\left((A_{obs} > 0) + I\right)^h_{uv} > 0\right]

    Parameters
    ----------
    mask : Tensor of shape (B, N), bool
    adj : Tensor of shape (B, N, N), optional
        Observed adjacency; needed when ``hops`` is given.
    hops : int, optional
        Neighbourhood radius ``h``; ``None`` allows every pair.
    """
    n = mask.shape[-1]
    pairs = mask.unsqueeze(-1) & mask.unsqueeze(-2)
    pairs = pairs & ~torch.eye(n, dtype=torch.bool, device=mask.device)
    if hops is None:
        return pairs
    if adj is None:
        raise ValueError("candidate_hops needs the observed adjacency `adj`.")
    step = (adj != 0).to(adj.dtype if adj.is_floating_point() else torch.float32)
    step = step + torch.eye(n, dtype=step.dtype, device=step.device)
    reach = step
    for _ in range(hops - 1):
        reach = torch.bmm(reach, step).clamp_(max=1.0)
    return pairs & (reach > 0)


def degree_scales(degree: Tensor, norm: str) -> tuple[Tensor, Tensor | None]:
    r"""Per-node factors of the learned graph's normalisation (``ib_graph_norm``).

    Edge :math:`(i, j)` of weight :math:`a_{ij}` becomes
    :math:`\ell_i\, a_{ij}\, r_j`: ``"row"``, :math:`\ell = 1/d`, no :math:`r`
    (:math:`D^{-1} A`); ``"sym"``, :math:`\ell = r = d^{-1/2}`
    (:math:`D^{-1/2} A D^{-1/2}`). The degrees are clamped at the dtype's
    smallest normal number, so a node without learned edges keeps a zero row and
    finite gradients; shared by the dense and the sparse path.

    Parameters
    ----------
    degree : Tensor
        Weighted learned degrees :math:`d` (any shape).
    norm : {"row", "sym"}

    Returns
    -------
    (Tensor, Tensor or None)
        :math:`\ell` and :math:`r` (``None`` for ``"row"``), shaped like ``degree``.
    """
    degree = degree.clamp(min=torch.finfo(degree.dtype).tiny)
    if norm == "row":
        return degree.reciprocal(), None
    scale = degree.rsqrt()
    return scale, scale


def edge_kl_to_prior(logits: Tensor, candidates: Tensor, prior: float) -> Tensor:
    r"""Per-graph mean KL divergence of the edge distribution to a Bernoulli prior.

    .. math::
        \mathrm{KL}_A = \frac{1}{|C|} \sum_{(u, v) \in C}
        \pi_{uv} \log\frac{\pi_{uv}}{r} + (1 - \pi_{uv}) \log\frac{1 - \pi_{uv}}{1 - r},
        \qquad \pi_{uv} = \sigma(\ell_{uv})

    the compression term of the structure (Miao et al., GSAT, ICML 2022):
    it pulls every candidate edge's probability towards the prior ``r``.
    With :math:`\log \pi = \ell - \mathrm{softplus}(\ell)` and
    :math:`\log (1 - \pi) = -\mathrm{softplus}(\ell)` each term is

    .. math::
        \pi_{uv} (\ell_{uv} - c) - \mathrm{softplus}(\ell_{uv}) - \log(1 - r),
        \qquad c = \log\tfrac{r}{1 - r},

    finite for any logit, and its gradient has the closed form
    :math:`\partial \mathrm{KL}_A / \partial \ell_{uv} = \pi_{uv}(1 - \pi_{uv})
    (\ell_{uv} - c) / |C|` on candidate pairs (0 elsewhere), which the backward
    pass applies in one step instead of differentiating each operation. A graph
    without candidate pairs has 0.

    Parameters
    ----------
    logits : Tensor of shape (B, N, N)
    candidates : Tensor of shape (B, N, N), bool
    prior : float
        :math:`r \in (0, 1)`.

    Returns
    -------
    Tensor of shape (B,)
    """
    return _EdgeKL.apply(logits, candidates, float(prior))


def _edge_kl_parts(
    logits: Tensor, candidates: Tensor | None, prior: float, with_grad: bool,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor | None, Tensor]:
    r""":func:`edge_kl_to_prior`'s value, its gradient times :math:`|C|`
    (``None`` unless ``with_grad``) and :math:`|C|` (clamped at 1).

    ``candidates=None`` means every pair of distinct real nodes of ``mask``
    (:func:`candidate_pairs` of ``mask``) without forming those ``B × N × N``
    booleans: the sum runs as one product with the node mask. Per entry,
    :math:`\mathrm{softplus}(\ell) - \pi (\ell - c)` is minus the KL term
    less :math:`-\log(1 - r)`, which is added per graph; :math:`\ell - c`
    serves the value and the gradient.
    """
    c = math.log(prior) - math.log1p(-prior)
    p = torch.sigmoid(logits)
    shifted = logits - c
    e = F.softplus(logits).addcmul_(p, shifted, value=-1)
    if candidates is None:
        node = mask.to(logits.dtype)
        e.diagonal(dim1=-2, dim2=-1).zero_()
        total = torch.bmm(e, node.unsqueeze(-1)).squeeze(-1).mul_(node).sum(-1)
        n = node.sum(-1)
        pairs = n * (n - 1)
    else:
        total = e.mul_(candidates).sum((-1, -2))
        pairs = candidates.sum((-1, -2)).to(logits.dtype)
    del e
    count = pairs.clamp(min=1.0)
    # a graph without candidate pairs has 0, not -log(1 - r)
    out = total.div_(count).neg_().sub_(pairs.clamp(max=1.0).mul_(math.log1p(-prior)))
    grad = None
    if with_grad:  # pi (1 - pi) (l - c) on candidates
        grad = _on_pairs_(p.addcmul_(p, p, value=-1).mul_(shifted), candidates, mask)
    return out, grad, count


def _on_pairs_(t: Tensor, pairs: Tensor | None, mask: Tensor) -> Tensor:
    """Zero ``t`` (``B × N × N``, in place) outside ``pairs`` (booleans), or,
    when ``None``, outside the pairs of distinct real nodes of ``mask``
    (:func:`candidate_pairs` of ``mask``) without forming them."""
    if pairs is not None:
        return t.mul_(pairs)
    node = mask.to(t.dtype)
    t.mul_(node.unsqueeze(-1)).mul_(node.unsqueeze(-2))
    t.diagonal(dim1=-2, dim2=-1).zero_()
    return t


class _EdgeKL(torch.autograd.Function):
    """:func:`edge_kl_to_prior` with its closed-form gradient."""

    @staticmethod
    def forward(ctx, logits: Tensor, candidates: Tensor, prior: float):
        out, grad, count = _edge_kl_parts(logits, candidates, prior, ctx.needs_input_grad[0])
        if grad is not None:
            ctx.save_for_backward(grad, count)
        return out

    @staticmethod
    def backward(ctx, grad_out: Tensor):
        grad, count = ctx.saved_tensors
        return grad * (grad_out / count)[:, None, None], None, None


def edge_density(adj: Tensor, mask: Tensor) -> Tensor:
    r"""Per-graph share of node pairs joined by an edge of non-zero weight.

    .. math::
        \rho = \frac{|\{u < v : A_{uv} \ne 0\}|}{n (n - 1) / 2}

    over the ``n`` real nodes (0 for a graph of one node); self-loops are
    not counted. Returns a tensor of shape ``(B,)``.
    """
    n = mask.sum(-1).to(torch.float64)
    # |sign(A)| is 1 exactly where A != 0: a float pass, about 8x faster on
    # CPU than summing the boolean `A != 0`. Row sums stay exact in float32
    # (n < 2**24); the total is taken in float64.
    row_counts = adj.detach().sign().abs_().sum(-1, dtype=torch.float32)
    nonzero = row_counts.sum(-1, dtype=torch.float64)
    nonzero = nonzero - (adj.diagonal(dim1=-2, dim2=-1) != 0).sum(-1)
    return (nonzero / (n * (n - 1)).clamp(min=1.0)).to(adj.dtype)


class StructureLearner(nn.Module):
    r"""Learned edge probabilities and a sampled weighted IB-graph.

    .. math::
        Z(u) = \mathrm{MLP}(X_{IB}(u)), \qquad
        \pi_{uv} = \sigma(\ell_{uv}), \qquad
        \ell_{uv} = \begin{cases}
            Z(u) Z(v)^\top & \text{``inner'' (the paper)} \\
            s \cos(Z(u), Z(v)) + b & \text{``cosine''}
        \end{cases}

    with a learnable scale :math:`s = \mathrm{softplus}(\rho)` (initially 5)
    and bias :math:`b` (initially 0) for the cosine score, whose logits stay
    in :math:`[b - s, b + s]` instead of saturating (IDGL; GSLB).

    In training, :math:`A_{IB}` is a concrete (relaxed Bernoulli) sample with
    temperature ``t``; in evaluation it is :math:`\pi` itself, the sample's
    expectation as ``t → 0``. Either way entries below ``a_0`` are masked off,
    the diagonal and padded nodes are zero, and the result is symmetric.
    Candidate pairs can be restricted to the ``h``-hop neighbourhood of the
    observed graph (:func:`candidate_pairs`), and, with ``k``, to each
    node's ``k`` highest-scoring candidates (:func:`top_k_pairs`, chosen on
    the noise-free logits, so training and evaluation keep the same pairs).

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
    score : {"inner", "cosine"}, default="inner"
        Edge logit :math:`\ell_{uv}`.
    k : int, optional
        Per-node top-``k`` sparsification; ``None`` keeps every candidate.
    ties : {"lowest", "cyclic"}, default="lowest"
        Which of equal scores the top-``k`` keeps (:func:`top_k_pairs`).
    """

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        temperature: float = 0.1,
        threshold: float = 0.1,
        score: str = "inner",
        k: int | None = None,
        ties: str = "lowest",
    ) -> None:
        super().__init__()
        if score not in EDGE_SCORES:
            raise ValueError(f"score must be one of {EDGE_SCORES}, got {score!r}.")
        if k is not None and k < 1:
            raise ValueError(f"k must be None or an int >= 1, got {k!r}.")
        check_ties(ties)
        self.temperature = temperature
        self.threshold = threshold
        self.score = score
        self.k = k
        self.ties = ties
        self.lin1 = nn.Linear(in_channels, hidden_channels)
        self.lin2 = nn.Linear(hidden_channels, hidden_channels)
        if score == "cosine":
            self.scale_raw = nn.Parameter(torch.empty(()))
            self.bias = nn.Parameter(torch.empty(()))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()
        if self.score == "cosine":
            nn.init.constant_(self.scale_raw, 4.993)  # softplus^-1(5)
            nn.init.zeros_(self.bias)

    def _embedding(self, h: Tensor) -> tuple[Tensor, Tensor | None]:
        """``(Z', b)`` with :math:`\\ell = Z' Z'^\\top + b` from the first layer's
        pre-activation ``h`` (without its bias)."""
        z = self.lin2(F.relu(h + self.lin1.bias))
        if self.score == "inner":
            return z, None
        scale = F.softplus(self.scale_raw)
        return F.normalize(z, dim=-1, eps=1e-12) * scale.sqrt(), self.bias

    def edge_logits(self, x: Tensor) -> Tensor:
        """Return :math:`\\ell = \\log\\frac{\\pi}{1-\\pi}`, shape ``B × N × N``."""
        return self.logits_from_projection(x @ self.lin1.weight.T)

    def logits_from_projection(self, h: Tensor) -> Tensor:
        """:meth:`edge_logits` from ``h = x @ lin1.weight.T``."""
        z, bias = self._embedding(h)
        logits = z @ z.transpose(-1, -2)
        return logits if bias is None else logits + bias

    def forward(self, x: Tensor, mask: Tensor, candidates: Tensor | None = None) -> Tensor:
        """Return the weighted IB adjacency ``B × N × N`` of masked features ``x``."""
        return self.from_projection(x @ self.lin1.weight.T, mask, candidates)

    def from_projection(self, h: Tensor, mask: Tensor, candidates: Tensor | None = None) -> Tensor:
        """:meth:`forward` from ``h = x @ lin1.weight.T`` (without the bias),
        as given by :meth:`FeatureMask.project`. ``candidates`` (``B × N × N``
        booleans, :func:`candidate_pairs`) restricts the pairs; ``None``
        allows every pair of distinct real nodes."""
        z, bias = self._embedding(h)
        return _SampledAdjacency.apply(
            z, bias, mask, candidates, self.k,
            self.temperature if self.training else None, self.threshold, self.ties,
        )

    def from_projection_with_kl(
        self, h: Tensor, mask: Tensor, candidates: Tensor | None, prior: float
    ) -> tuple[Tensor, Tensor]:
        """:meth:`from_projection` and :func:`edge_kl_to_prior` of the same
        logits (over ``candidates``, or every pair of distinct real nodes when
        ``None``) in one pass: the logits are computed once, and the two
        gradients meet before the one product with :math:`Z`."""
        z, bias = self._embedding(h)
        return _SampledAdjacency.apply(
            z, bias, mask, candidates, self.k,
            self.temperature if self.training else None, self.threshold, self.ties, prior,
        )


def _dense_tie_tolerance(z: Tensor, bias: Tensor | None, mask: Tensor) -> Tensor:
    """:func:`~sk_vibgsl.nn.tie_tolerance` of a padded batch, ``B × N × 1``."""
    norms = torch.linalg.vector_norm(z.detach(), dim=-1)
    largest = norms.masked_fill(~mask, 0.0).amax(-1, keepdim=True)
    return tie_tolerance(norms, largest, bias, z.shape[-1]).unsqueeze(-1)


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

    The logits are :math:`\ell = Z Z^\top + b` (``bias`` ``b`` a scalar
    tensor, or ``None`` for 0). With ``candidates`` or ``k``, pairs outside
    the candidates or the top-``k`` selection (:func:`top_k_pairs`, logits
    within :func:`~sk_vibgsl.nn.tie_tolerance` of each other tied)
    are zero as well. With a ``prior`` :math:`r`, it returns ``(A, KL)``,
    ``KL`` the :func:`edge_kl_to_prior` of the same (noise-free) logits over
    the candidates, and keeps that term's closed-form gradient
    :math:`\pi (1 - \pi)(\ell - c)` (one more ``B × N × N`` tensor), which
    backward adds to the sample's before the product with :math:`Z`.
    """

    @staticmethod
    def forward(ctx, z: Tensor, bias: Tensor | None, mask: Tensor, candidates: Tensor | None,
                k: int | None, temperature: float | None, threshold: float,
                ties: str = "lowest", prior: float | None = None):
        a = torch.bmm(z, z.transpose(-1, -2))
        if bias is not None:
            a.add_(bias)
        pairs = candidates  # built once for the top-k and the KL when not given
        if pairs is None and k is not None:
            pairs = candidate_pairs(mask)
        kl = kl_saved = None
        if prior is not None:  # pairs None: every pair of real nodes, from the mask
            kl, kl_grad, kl_count = _edge_kl_parts(
                a, pairs, prior, ctx.needs_input_grad[0] or ctx.needs_input_grad[1], mask
            )
            kl_saved = () if kl_grad is None else (kl_grad, kl_count)
        keep = candidates
        if k is not None:
            keep = top_k_pairs(a, k, pairs, ties, _dense_tie_tolerance(z, bias, mask))
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
        _on_pairs_(a, keep, mask)
        ctx.save_for_backward(z, a, *(kl_saved or ()))
        ctx.temperature = temperature
        ctx.has_bias = bias is not None
        return a if prior is None else (a, kl)

    @staticmethod
    def backward(ctx, grad: Tensor, grad_kl: Tensor | None = None):
        z, a, *kl_saved = ctx.saved_tensors
        g = torch.addcmul(a, a, a, value=-1).mul_(grad)  # σ' = a(1 - a); 0 where dropped
        t = ctx.temperature
        if kl_saved:  # the edge KL's closed-form gradient joins the sample's (1/t first)
            kl_grad, kl_count = kl_saved
            if t is not None:
                g.div_(t)
            g.addcmul_(kl_grad, (grad_kl / kl_count)[:, None, None])
            t = None
        grad_z = torch.baddbmm(torch.bmm(g, z), g.transpose(-1, -2), z)
        grad_bias = g.sum().reshape(()) if ctx.has_bias else None
        if t is not None:
            grad_z.div_(t)  # the 1/t of the sample, on the small side
            if grad_bias is not None:
                grad_bias = grad_bias / t
        return grad_z, grad_bias, None, None, None, None, None, None, None
