"""The whole VIB-GSL module: ``forward(x, adj, mask) -> (logits, kl)``."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from .backbones import Backbone
from .sparse_model import sparse_encode
from .structure import FeatureMask, StructureLearner
from .vib import gaussian_parameters, kl_to_standard_normal, reparameterize

__all__ = ["GRAPH_PATHS", "VIBGSLModule"]

GRAPH_PATHS = ("auto", "dense", "sparse")
SPARSE_MIN_NODES = 256
"""``graph_path="auto"`` runs a batch sparse from this many nodes (largest graph) on."""


class VIBGSLModule(nn.Module):
    r"""VIB-GSL (Sun et al., AAAI 2022) on padded dense batches.

    1. IB-graph: :math:`X_{IB}` from :class:`FeatureMask`, :math:`A_{IB}`
       from :class:`StructureLearner`, mixed with the observed structure as
       :math:`A = \lambda A_{obs} + (1 - \lambda) A_{IB}`.
    2. A two-layer GNN on :math:`(X_{IB}, A)` with output width ``2K``, mean
       pooled over real nodes, gives :math:`\mu, \sigma`.
    3. :math:`Z = \mu + \sigma \odot \varepsilon` (training) or :math:`\mu`
       (evaluation) feeds a two-layer MLP classifier :math:`q(Y \mid Z)`.

    Parameters
    ----------
    in_channels : int
        Node feature width.
    n_classes : int
        Number of classes.
    hidden_dim : int, default=16
        Width of the structure learner's embedding, the GNN hidden layer and
        the classifier's hidden layer.
    ib_size : int, default=16
        Bottleneck size ``K``.
    backbone : {"gcn", "gat", "gin"}, default="gcn"
        GNN layer type.
    temperature : float, default=0.1
        Concrete temperature ``t``.
    edge_threshold : float, default=0.1
        Edge threshold ``a_0``.
    feature_mask : bool, default=True
        Whether to learn the feature mask.
    structure_mix : float, default=0.0
        :math:`\lambda`: 0 uses only the learned graph (the paper), 1 only
        the observed graph (no structure learning).
    batch_norm : bool, default=False
        Batch-normalise each GIN layer's output (``backbone="gin"`` only; see
        :class:`~sk_vibgsl.nn.backbones.DenseGINLayer`).
    structure_k : int, optional
        Per-node top-``k`` of the learned edges; ``None`` keeps every pair.
    candidate_hops : int, optional
        Learned edges only between nodes within ``h`` observed hops.
    graph_path : {"auto", "dense", "sparse"}, default="auto"
        Where a batch runs. ``"dense"``: ``B × N × N`` tensors (fast on
        small graphs, :math:`O(N^2)` memory). ``"sparse"``: edge lists
        (:mod:`~sk_vibgsl.nn.sparse_model`), :math:`O(n k)` memory, and
        :math:`O(n k)` time with ``candidate_hops`` (:math:`O(n^2 d)`
        scoring without). ``"auto"``: sparse when the learned graph is
        sparsified (``structure_k`` or ``candidate_hops`` set, or no
        structure learning) and the batch's largest graph has at least
        ``SPARSE_MIN_NODES`` (256) nodes, dense otherwise.

    Returns (forward)
    -----------------
    logits : Tensor of shape (B, n_classes)
    kl : Tensor of shape (B,)
        Per-graph KL divergence to the standard normal prior.
    """

    def __init__(
        self,
        in_channels: int,
        n_classes: int,
        hidden_dim: int = 16,
        ib_size: int = 16,
        backbone: str = "gcn",
        temperature: float = 0.1,
        edge_threshold: float = 0.1,
        feature_mask: bool = True,
        structure_mix: float = 0.0,
        batch_norm: bool = False,
        structure_k: int | None = None,
        candidate_hops: int | None = None,
        graph_path: str = "auto",
    ) -> None:
        super().__init__()
        if graph_path not in GRAPH_PATHS:
            raise ValueError(f"graph_path must be one of {GRAPH_PATHS}, got {graph_path!r}.")
        self.ib_size = ib_size
        self.structure_mix = structure_mix
        self.structure_k = structure_k
        self.candidate_hops = candidate_hops
        self.graph_path = graph_path
        self.feature_mask = FeatureMask(in_channels) if feature_mask else None
        self.structure = (
            StructureLearner(in_channels, hidden_dim, temperature, edge_threshold)
            if structure_mix < 1
            else None
        )
        self.gnn = Backbone(backbone, in_channels, hidden_dim, 2 * ib_size, batch_norm)
        self.classifier = nn.Sequential(
            nn.Linear(ib_size, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, n_classes)
        )

    @property
    def uses_observed_graph(self) -> bool:
        return self.structure_mix > 0

    def ib_graph(self, x: Tensor, mask: Tensor, adj: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Return the IB-graph ``(X_IB, A)`` that the GNN sees.

        ``A`` already includes the observed structure when ``structure_mix > 0``.
        """
        x_ib = self.feature_mask(x, mask) if self.feature_mask is not None else x
        lam = self.structure_mix
        if lam > 0 and adj is None:
            raise ValueError("structure_mix > 0 needs the observed adjacency `adj`.")
        if self.structure is None:
            return x_ib, adj
        a_ib = self.structure(x_ib, mask)
        if lam > 0:
            a_ib = lam * adj + (1 - lam) * a_ib
        return x_ib, a_ib

    def uses_sparse_path(self, mask: Tensor) -> bool:
        """Whether a batch with node mask ``mask`` (``B × N``) runs on the
        sparse path (see ``graph_path``)."""
        if self.graph_path != "auto":
            return self.graph_path == "sparse"
        sparsified = (
            self.structure is None
            or self.structure_k is not None
            or self.candidate_hops is not None
        )
        return sparsified and mask.shape[-1] >= SPARSE_MIN_NODES

    def encode(self, x: Tensor, mask: Tensor, adj: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Return :math:`\\mu, \\sigma` of :math:`p(Z \\mid G)`, each ``(B, K)``."""
        # As gnn(*ib_graph(x, mask, adj), mask), but X_IB only ever enters
        # linear maps (the structure learner's first layer and the GNN's), so
        # the feature mask gives their outputs directly (FeatureMask.project).
        lam = self.structure_mix
        if lam > 0 and adj is None:
            raise ValueError("structure_mix > 0 needs the observed adjacency `adj`.")
        weights = [self.gnn.conv1.first_weight]
        if self.structure is not None:
            weights.append(self.structure.lin1.weight)
        if self.feature_mask is not None:
            projected = self.feature_mask.project(x, mask, weights)
        else:
            projected = list((x @ torch.cat(weights).T).split([len(w) for w in weights], -1))
        if self.structure is None:
            a = adj
        else:
            a = self.structure.from_projection(projected[1], mask)
            if lam > 0:
                a = lam * adj + (1 - lam) * a
        h = self.gnn.forward_projected(projected[0], a, mask)
        n_nodes = mask.sum(-1, keepdim=True).clamp(min=1).to(h.dtype)
        pooled = h.sum(-2) / n_nodes
        return gaussian_parameters(pooled, self.ib_size)

    def forward(
        self,
        x: Tensor,
        mask: Tensor,
        adj: Tensor | None = None,
        adj_index: Tensor | None = None,
        adj_weight: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        if adj_index is not None or self.uses_sparse_path(mask):
            pooled, _edge_kl, _density = sparse_encode(
                self, x, mask, adj, adj_index, adj_weight
            )
            mu, sigma = gaussian_parameters(pooled, self.ib_size)
        else:
            mu, sigma = self.encode(x, mask, adj)
        z = reparameterize(mu, sigma, sample=self.training)
        return self.classifier(z), kl_to_standard_normal(mu, sigma)

    @torch.no_grad()
    def set_feature_mean(self, mean: Tensor) -> None:
        """Set the expectation of the masking noise used in evaluation."""
        if self.feature_mask is not None:
            self.feature_mask.mean.copy_(mean)


