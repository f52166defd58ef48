"""The whole VIB-GSL module: ``forward(x, mask, adj) -> (logits, kl, edge_kl, density)``."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from ._feature_product import feature_product, listed_features
from .backbones import SHARED_BACKBONES, Backbone
from .sparse_ann import TOP_K_SEARCHES
from .sparse_model import sparse_encode
from .structure import (
    FeatureMask,
    StructureLearner,
    candidate_pairs,
    degree_scales,
    edge_density,
)
from .vib import gaussian_parameters, kl_to_standard_normal, reparameterize

__all__ = ["GRAPH_PATHS", "READOUTS", "STRUCTURE_INPUTS", "VIBGSLModule"]

GRAPH_PATHS = ("auto", "dense", "sparse")
STRUCTURE_INPUTS = ("features", "observed")
IB_GRAPH_NORMS = ("none", "row", "sym")
READOUTS = ("mean", "sum")
SPARSE_MIN_NODES = {"hops": 64, "observed": 128, "all_pairs": 256}
"""``graph_path="auto"`` runs a batch sparse from this many nodes (its largest
graph) on: where the sparse path's training step (forward and backward) became
faster than the dense one on random graphs of mean degree 2.5, 16 features,
``B · N = 16384`` nodes per batch, 1 CPU thread (sparse/dense time at
``N = 32, 64, 128, 256, 512``): with ``candidate_hops=1, structure_k=8``
1.31, 0.78, 0.62, 0.25, 0.14; without structure learning 2.08, 1.23, 0.62,
0.67, 0.29; with all-pairs ``structure_k=8`` 2.28, 2.13, 1.88, 0.82, 0.49."""
SPARSE_MAX_CANDIDATE_SHARE = 16
"""With ``candidate_hops``, ``"auto"`` stays dense when the estimated
candidates per node exceed ``N / 16`` (sparse/dense step time at observed
density 0.02, 0.05, 0.1, 0.2: 0.61, 0.68, 1.56, 2.69 at ``N = 128``; 0.47,
0.84, 1.28, 2.55 at ``N = 256``; ``candidate_hops=1, structure_k=8``)."""


class VIBGSLModule(nn.Module):
    r"""VIB-GSL (Sun et al., AAAI 2022) on padded dense batches.

    1. IB-graph: :math:`X_{IB}` from :class:`FeatureMask`, :math:`A_{IB}`
       from :class:`StructureLearner`, mixed with the observed structure as
       :math:`A = \lambda A_{obs} + (1 - \lambda) A_{IB}`.
    2. A two-layer GNN on :math:`(X_{IB}, A)` with output width ``2K``,
       pooled over real nodes (mean or sum, ``readout``), gives
       :math:`\mu, \sigma`.
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
    edge_score : {"inner", "cosine"}, default="inner"
        Edge logit of the structure learner (:class:`StructureLearner`).
    structure_k : int, optional
        Per-node top-``k`` sparsification of the learned graph.
    structure_ties : {"lowest", "cyclic"}, default="lowest"
        Which of equal scores the top-``k`` keeps
        (:func:`~sk_vibgsl.nn.tie_start`).
    candidate_hops : int, optional
        Learned edges only between nodes within this many hops of the
        observed graph (:func:`candidate_pairs`); needs ``adj``.
    edge_prior : float, optional
        Prior edge probability ``r`` of the structure's KL term
        (:func:`edge_kl_to_prior`); ``None`` leaves it out (zeros).
    learn_mix : bool, default=False
        Learn :math:`\lambda = \sigma(\theta)` as a gate, :math:`\theta`
        starting at :math:`\mathrm{logit}(\lambda_0)` with
        :math:`\lambda_0` = ``structure_mix`` in :math:`(0, 1)`.
    graph_path : {"auto", "dense", "sparse"}, default="auto"
        Where a batch runs. ``"dense"``: ``B × N × N`` tensors (fast on
        small graphs, :math:`O(N^2)` memory). ``"sparse"``: edge lists
        (:mod:`sk_vibgsl.nn.sparse_model`), :math:`O(n k)` memory, and
        :math:`O(n k)` time with ``candidate_hops`` (:math:`O(n^2 d)`
        scoring without). ``"auto"``: sparse when the learned graph is
        sparsified (``structure_k`` or ``candidate_hops`` set, or no
        structure learning) and the batch's largest graph has at least
        ``SPARSE_MIN_NODES`` nodes (64 with ``candidate_hops``, 128 without
        structure learning, 256 for all-pairs top-``k``: where the sparse
        step was measured faster), dense otherwise. Both paths
        compute the same graph; on the sparse path the edge KL averages
        over the selected (top-``k``) candidate pairs instead of all
        candidates (:func:`~sk_vibgsl.nn.sparse_model.pair_edge_kl`).
    ib_graph_norm : {"none", "row", "sym"}, default="none"
        ``"row"`` divides each node's learned edge weights by their sum before
        the mix, :math:`A = \lambda A_{obs} + (1 - \lambda) D_{IB}^{-1} A_{IB}`
        with :math:`D_{IB} = \mathrm{diag}(A_{IB} \mathbf 1)` (a node without
        learned edges keeps a zero row): the learned graph then adds a
        weighted *mean* of a node's learned neighbours, bounded whatever its
        density, instead of a sum that grows with it (GIN sums its
        neighbours; GCN and GAT normalise on their own). ``"sym"`` scales
        each learned edge by both ends' weighted degrees,
        :math:`D_{IB}^{-1/2} A_{IB} D_{IB}^{-1/2}` (GCN's normalisation,
        without self-loops): a node of learned degree :math:`d` then
        receives about :math:`\sqrt d` times a neighbour's features instead
        of :math:`d` times (``"none"``) or once (``"row"``), so that a hub
        still stands out, at a bounded scale. ``"none"``: the weights as
        sampled (the paper).
    readout : {"mean", "sum"}, default="mean"
        How node outputs :math:`h_v` become the graph's :math:`(\mu, \sigma)`
        input: ``"mean"``, :math:`\frac{1}{|V|} \sum_{v \in V} h_v` (the
        paper, §4); ``"sum"``, :math:`\sum_{v \in V} h_v`, which keeps the
        graph's size (Xu et al., ICLR 2019: a sum readout is what makes GIN as
        discriminative as the WL test).
    num_layers : int, default=2
        Number of graph layers of the GNN (:class:`~sk_vibgsl.nn.Backbone`),
        at least 2 (the paper's backbone); each extra one is a
        ``hidden_dim``-wide layer that widens a node's receptive field by one
        hop, on the same graph.
    top_k_search : {"exact", "approx"}, default="exact"
        How the sparse path finds each node's ``structure_k`` best partners
        without ``candidate_hops``. ``"exact"``: every pair is scored
        (:func:`~sk_vibgsl.nn.sparse_structure.top_k_all_pairs`,
        :math:`O(n^2 d)` time). ``"approx"``: a hashing search over the
        embeddings (:func:`~sk_vibgsl.nn.sparse_ann.approx_top_k`,
        :math:`O(n \log n)` time; the best partners among those it scores).
        Needs ``structure_k``; refused with ``candidate_hops`` (whose
        candidates come from the observed graph) and with
        ``graph_path="dense"``. With ``graph_path="auto"``, batches that run
        dense (largest graph under ``SPARSE_MIN_NODES``) are selected
        exactly, which is faster there. The hashing directions are seeded
        by the buffer ``top_k_seed``, drawn from torch's global generator
        when the module is built.
    observed_branch : bool or "shared", default=False
        Add a second GNN of the same kind, :math:`f_{obs}`, that runs on the
        observed graph, and a scalar gate :math:`\alpha` (a parameter,
        initially 0); the pooled vector that gives :math:`(\mu, \sigma)` is

        .. math::
            R\left(f_{obs}(X_{IB}, A_{obs})\right)
            + \alpha\, R\left(f(X_{IB}, A)\right)

        with :math:`R` the readout and :math:`A` the IB-graph (mixed as
        above). The learned graph then adds a channel of its own instead of
        replacing or diluting the observed edges (as ``structure_mix`` does),
        and training starts from the GNN on the observed graph
        (:math:`\alpha = 0`, as ReZero starts its residual branches). Needs
        structure learning (``structure_mix < 1``) and ``adj``.

        ``"shared"``: the same gate, but no second GNN: every layer of the
        one GNN aggregates over the observed graph and, scaled by
        :math:`\alpha`, over the IB-graph :math:`A`, with the same weights
        (:meth:`~sk_vibgsl.nn.Backbone.forward_projected`),

        .. math::
            \text{GCN: } H' = \hat A_{obs} H W + \alpha\, A H W + b,
            \qquad
            \text{GIN: } H' = \mathrm{MLP}\left((1 + \epsilon) H
            + A_{obs} H + \alpha\, A H\right)

        with :math:`\hat A_{obs}` GCN's normalised observed graph and
        :math:`A` as above (``ib_graph_norm`` applies to it). At
        :math:`\alpha = 0` it is the GNN on the observed graph, as with
        ``True``; it costs one GNN instead of two, and the learned edges
        reach every layer instead of only the readout. GCN and GIN only.
    structure_input : {"features", "observed"}, default="features"
        What the structure learner embeds. ``"features"``: the node
        features, :math:`Z = \mathrm{MLP}(X_{IB})` (the paper).
        ``"observed"``: the first hidden layer of the observed-graph GNN,

        .. math::
            Z = \mathrm{MLP}\left(H^{(1)}_{obs}\right), \qquad
            H^{(1)}_{obs} = \mathrm{ReLU}\left(f_{obs,1}(X_{IB}, A_{obs})\right),

        so that nodes are scored by their features *and* their observed
        neighbourhoods (IDGL learns its graph from GNN embeddings in the same
        way): alike nodes in unlike places no longer tie. The GNN computes
        :math:`H^{(1)}_{obs}` once for both uses, and the structure
        learner's gradient reaches its first layer. Needs
        ``observed_branch=True``; runs on the dense path only (``"auto"``
        stays dense, ``graph_path="sparse"`` is refused).

    ``forward`` also takes ``feature_index`` and ``feature_value``
    (``B × E``, from the classifier's dataset, ``sk_vibgsl._batching.GraphDataset`` with
    ``sparse_features=True``): the batch's nonzero node features, which the
    first products then read instead of ``x`` on CPU
    (``sk_vibgsl.nn._feature_product.batch_feature_matrix``); the
    outputs are those of ``x`` alone (exactly so for one-hot rows, up to
    float rounding otherwise).

    Returns (forward)
    -----------------
    logits : Tensor of shape (B, n_classes)
    kl : Tensor of shape (B,)
        Per-graph KL divergence to the standard normal prior.
    edge_kl : Tensor of shape (B,)
        Per-graph KL divergence of the edge distribution to ``Ber(r)``
        (zeros without ``edge_prior`` or without structure learning).
    density : Tensor of shape (B,)
        Per-graph density of the learned graph :math:`A_{IB}`
        (:func:`edge_density`), or of the observed graph when structure
        learning is off.
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
        edge_score: str = "inner",
        structure_k: int | None = None,
        structure_ties: str = "lowest",
        candidate_hops: int | None = None,
        edge_prior: float | None = None,
        learn_mix: bool = False,
        graph_path: str = "auto",
        top_k_search: str = "exact",
        ib_graph_norm: str = "none",
        readout: str = "mean",
        num_layers: int = 2,
        observed_branch: bool | str = False,
        structure_input: str = "features",
    ) -> None:
        super().__init__()
        check_structure_input(structure_input, observed_branch, graph_path)
        self.structure_input = structure_input
        if not (isinstance(observed_branch, bool) or observed_branch == "shared") or (
            observed_branch and structure_mix >= 1
        ):
            raise ValueError(
                "observed_branch must be a bool or 'shared', True or 'shared' only with "
                f"structure learning (structure_mix < 1), got {observed_branch!r} with "
                f"structure_mix={structure_mix!r}."
            )
        if observed_branch == "shared" and backbone not in SHARED_BACKBONES:
            raise ValueError(
                f"observed_branch='shared' needs a backbone in {SHARED_BACKBONES}, "
                f"got {backbone!r}."
            )
        self.observed_branch = observed_branch
        if readout not in READOUTS:
            raise ValueError(f"readout must be one of {READOUTS}, got {readout!r}.")
        self.readout = readout
        if ib_graph_norm not in IB_GRAPH_NORMS:
            raise ValueError(
                f"ib_graph_norm must be one of {IB_GRAPH_NORMS}, got {ib_graph_norm!r}."
            )
        self.ib_graph_norm = ib_graph_norm
        if graph_path not in GRAPH_PATHS:
            raise ValueError(f"graph_path must be one of {GRAPH_PATHS}, got {graph_path!r}.")
        check_top_k_search(top_k_search, structure_k, candidate_hops, graph_path)
        if learn_mix and not 0 < structure_mix < 1:
            raise ValueError(
                "learn_mix=True needs structure_mix in (0, 1) to start from, "
                f"got {structure_mix!r}."
            )
        if candidate_hops is not None and candidate_hops < 1:
            raise ValueError(f"candidate_hops must be None or an int >= 1, got {candidate_hops!r}.")
        if edge_prior is not None and not 0 < edge_prior < 1:
            raise ValueError(f"edge_prior must be None or a float in (0, 1), got {edge_prior!r}.")
        self.ib_size = ib_size
        self.structure_mix = structure_mix
        self.candidate_hops = candidate_hops
        self.structure_k = structure_k
        self.graph_path = graph_path
        self.edge_prior = edge_prior
        self.mix_logit = (
            nn.Parameter(torch.logit(torch.tensor(float(structure_mix)))) if learn_mix else None
        )
        self.feature_mask = FeatureMask(in_channels) if feature_mask else None
        self.structure = (
            StructureLearner(
                in_channels if structure_input == "features" else hidden_dim, hidden_dim,
                temperature, edge_threshold, edge_score, structure_k, structure_ties,
            )
            if structure_mix < 1
            else None
        )
        self.gnn = Backbone(
            backbone, in_channels, hidden_dim, 2 * ib_size, batch_norm, num_layers
        )
        self.classifier = nn.Sequential(
            nn.Linear(ib_size, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, n_classes)
        )
        self.top_k_search = top_k_search
        if top_k_search == "approx":  # drawn last: the weights' draw is that of "exact"
            self.register_buffer("top_k_seed", torch.randint(2**31 - 1, ()))
        # drawn after everything else, so that the other weights are drawn as without it
        self.observed_gnn = (
            Backbone(backbone, in_channels, hidden_dim, 2 * ib_size, batch_norm, num_layers)
            if observed_branch is True
            else None
        )
        self.branch_gate = nn.Parameter(torch.zeros(())) if observed_branch else None

    def __setstate__(self, state: dict) -> None:
        """Unpickle; a module pickled before ``observed_branch`` was stored
        (only ``True`` or ``False`` then) gets it back from its gate, one
        pickled before ``structure_input`` reads the features."""
        super().__setstate__(state)
        if "observed_branch" not in self.__dict__:
            self.observed_branch = self.branch_gate is not None
        if "structure_input" not in self.__dict__:
            self.structure_input = "features"

    @property
    def shares_branch(self) -> bool:
        """Whether the learned graph enters every layer of the one GNN
        (``observed_branch="shared"``)."""
        return self.observed_branch == "shared"

    @property
    def reads_observed_hidden(self) -> bool:
        """Whether the structure learner reads the observed-graph GNN's first
        hidden layer (``structure_input="observed"``) instead of :math:`X_{IB}`."""
        return self.structure is not None and self.structure_input == "observed"

    @property
    def ann_seed(self) -> int:
        """Seed of the ``"approx"`` search's hashing directions (0 for ``"exact"``)."""
        return int(self.top_k_seed) if self.top_k_search == "approx" else 0

    @property
    def uses_observed_graph(self) -> bool:
        return (
            self.structure_mix > 0
            or self.branch_gate is not None
            or (self.structure is not None and self.candidate_hops is not None)
        )

    @property
    def mix(self) -> float | Tensor:
        r""":math:`\lambda`: ``structure_mix``, or the learned gate :math:`\sigma(\theta)`."""
        return self.structure_mix if self.mix_logit is None else torch.sigmoid(self.mix_logit)

    def _check_adj(self, adj: Tensor | None) -> None:
        if adj is None and self.structure_mix > 0:
            raise ValueError("structure_mix > 0 needs the observed adjacency `adj`.")
        if adj is None and self.branch_gate is not None:
            raise ValueError(
                f"observed_branch={self.observed_branch!r} needs the observed adjacency `adj`."
            )
        if adj is None and self.uses_observed_graph:
            raise ValueError("candidate_hops needs the observed adjacency `adj`.")

    def _candidates(self, mask: Tensor, adj: Tensor | None) -> Tensor | None:
        """Candidate pairs of the learned graph (``None``: every pair)."""
        if self.candidate_hops is None:
            return None  # every pair: the structure learner's own (fastest) default
        return candidate_pairs(mask, adj, self.candidate_hops)

    def ib_graph(
        self, x: Tensor, mask: Tensor, adj: Tensor | None = None,
        feature_index: Tensor | None = None, feature_value: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Return the IB-graph ``(X_IB, A)`` that the GNN sees.

        ``A`` already includes the observed structure when ``structure_mix > 0``.
        A batch's listed features (``feature_index``, ``feature_value``) are
        accepted and not needed: ``X_IB`` is formed from ``x``.
        """
        x_ib = self.feature_mask(x, mask) if self.feature_mask is not None else x
        lam = self.mix
        self._check_adj(adj)
        if self.structure is None:
            return x_ib, adj
        if self.reads_observed_hidden:
            obs = self.observed_gnn
            h1 = obs.first_hidden(
                x_ib @ obs.conv1.first_weight.T, adj, mask, obs.graph_norm(adj)
            )
            a_ib = self.structure(h1, mask, self._candidates(mask, adj))
        else:
            a_ib = self.structure(x_ib, mask, self._candidates(mask, adj))
        a_ib = self._normalise(a_ib)
        if self.structure_mix > 0:
            a_ib = lam * adj + (1 - lam) * a_ib
        return x_ib, a_ib

    def _normalise(self, a_ib: Tensor) -> Tensor:
        """:math:`D_{IB}^{-1} A_{IB}` with ``ib_graph_norm="row"``,
        :math:`D_{IB}^{-1/2} A_{IB} D_{IB}^{-1/2}` with ``"sym"`` (see the
        class); a node without learned edges keeps a zero row."""
        if self.ib_graph_norm == "none":
            return a_ib
        left, right = degree_scales(a_ib.sum(-1), self.ib_graph_norm)
        a_ib = a_ib * left.unsqueeze(-1)
        return a_ib if right is None else a_ib * right.unsqueeze(-2)

    def uses_sparse_path(
        self, mask: Tensor, n_edges: int | Callable[[], int | None] | None = None
    ) -> bool:
        r"""Whether a batch with node mask ``mask`` (``B × N``) and ``n_edges``
        observed (directed) edges runs on the sparse path (see ``graph_path``).

        ``n_edges`` may be a function returning the count: it is called only
        when the choice depends on it (``candidate_hops`` set), since
        counting a dense ``B × N × N`` adjacency costs about as much as a
        sigmoid over it, on every batch.

        With ``candidate_hops = h`` the candidates per node are about
        :math:`\min(N, \bar d^{\,h})` (:math:`\bar d` the mean observed
        degree); the batch stays dense when they exceed ``N / 16``, as on
        COLLAB, whose graphs join half of their node pairs: the sparse step
        was measured slower than the dense one from an observed density of
        about 0.06–0.08 (``h = 1``, ``k = 8``, ``N = 128`` and 256).
        """
        if self.graph_path != "auto":
            return self.graph_path == "sparse"
        if self.reads_observed_hidden:
            return False  # structure_input="observed" runs on the dense path only
        n = mask.shape[-1]
        if self.structure is None:
            kind = "observed"
        elif self.candidate_hops is not None:
            kind = "hops"
            if callable(n_edges):
                n_edges = n_edges()
            if n_edges is not None:
                degree = n_edges / max(int(mask.sum()), 1)
                if min(n, degree**self.candidate_hops) > n / SPARSE_MAX_CANDIDATE_SHARE:
                    return False
        elif self.structure_k is not None:
            kind = "all_pairs"
        else:
            return False  # every pair is kept: as many edges as dense entries
        return n >= SPARSE_MIN_NODES[kind]

    def project(self, x: Tensor, mask: Tensor, listed: Tensor | None = None) -> list[Tensor]:
        """``[X_IB @ W.T]`` for the GNN's first weight and, with structure
        learning, the structure learner's first weight, then with
        ``observed_branch`` the observed-graph GNN's (each ``B × N × out``),
        through :meth:`~sk_vibgsl.nn.FeatureMask.project` when the mask is learned.
        With ``structure_input="observed"`` the structure learner's is left
        out (it reads the observed-graph GNN's first hidden layer instead).
        ``listed``: ``x`` as a sparse ``(B·N) × d`` matrix
        (``sk_vibgsl.nn._feature_product.batch_feature_matrix``), read
        instead of ``x``."""
        weights = [self.gnn.conv1.first_weight]
        if self.structure is not None and not self.reads_observed_hidden:
            weights.append(self.structure.lin1.weight)
        if self.observed_gnn is not None:
            weights.append(self.observed_gnn.conv1.first_weight)
        if self.feature_mask is not None:
            return self.feature_mask.project(x, mask, weights, listed)
        w = torch.cat(weights)
        out = feature_product(x.reshape(-1, x.shape[-1]), w, listed).view(*x.shape[:-1], len(w))
        return list(out.split([len(wk) for wk in weights], -1))

    def encode(
        self, x: Tensor, mask: Tensor, adj: Tensor | None = None, listed: Tensor | None = None
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        r"""Return :math:`\mu, \sigma` of :math:`p(Z \mid G)`, each ``(B, K)``,
        and the per-graph edge KL and density (see the class's Returns);
        ``listed`` as in :meth:`project`."""
        # As gnn(*ib_graph(x, mask, adj), mask), but X_IB only ever enters
        # linear maps (the structure learner's first layer and the GNN's), so
        # the feature mask gives their outputs directly (FeatureMask.project).
        lam = self.mix
        self._check_adj(adj)
        projected = self.project(x, mask, listed)
        edge_kl = mask.new_zeros(mask.shape[0], dtype=projected[0].dtype)
        h_obs = None
        if self.reads_observed_hidden:  # the observed GNN's first layer, then the learner's
            obs, p_obs = self.observed_gnn, projected.pop()
            obs_norm = obs.graph_norm(adj)
            h1_obs = obs.first_hidden(p_obs, adj, mask, obs_norm)
            projected.append(h1_obs @ self.structure.lin1.weight.T)
            h_obs = obs.from_first_hidden(h1_obs, adj, mask, obs_norm)
        if self.structure is None:
            a = adj
            density = edge_density(adj, mask)
        else:
            candidates = self._candidates(mask, adj)
            if self.edge_prior is None:
                a = self.structure.from_projection(projected[1], mask, candidates)
            else:  # the edge KL of the same logits, in the same pass
                a, edge_kl = self.structure.from_projection_with_kl(
                    projected[1], mask, candidates, self.edge_prior
                )
            with torch.no_grad():
                density = edge_density(a, mask)
            a = self._normalise(a)
            if self.structure_mix > 0:
                a = lam * adj + (1 - lam) * a
        if self.shares_branch:
            h = self.gnn.forward_projected(projected[0], adj, mask, (self.branch_gate, a))
        else:
            h = self.gnn.forward_projected(projected[0], a, mask)
        pooled = self._pool(h, mask)
        if self.observed_gnn is not None:
            if h_obs is None:
                h_obs = self.observed_gnn.forward_projected(projected[2], adj, mask)
            pooled = self.with_observed_branch(pooled, self._pool(h_obs, mask))
        mu, sigma = gaussian_parameters(pooled, self.ib_size)
        return mu, sigma, edge_kl, density

    def _pool(self, h: Tensor, mask: Tensor) -> Tensor:
        """The readout over the real nodes of ``h`` (``B × N × C``; padded rows are 0)."""
        pooled = h.sum(-2)
        if self.readout == "mean":
            pooled = pooled / mask.sum(-1, keepdim=True).clamp(min=1).to(h.dtype)
        return pooled

    def with_observed_branch(self, pooled: Tensor, observed: Tensor) -> Tensor:
        r""":math:`R(f_{obs}) + \alpha R(f)` from the pooled outputs of the
        observed-graph GNN (``observed``) and of the IB-graph's (``pooled``)."""
        return observed + self.branch_gate * pooled

    def forward(
        self,
        x: Tensor,
        mask: Tensor,
        adj: Tensor | None = None,
        adj_index: Tensor | None = None,
        adj_weight: Tensor | None = None,
        feature_index: Tensor | None = None,
        feature_value: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        listed = listed_features(x, feature_index, feature_value)
        if adj_index is not None or self.uses_sparse_path(mask, lambda: _edge_count(adj)):
            pooled, edge_kl, density = sparse_encode(
                self, x, mask, adj, adj_index, adj_weight, listed=listed
            )
            mu, sigma = gaussian_parameters(pooled, self.ib_size)
        else:
            mu, sigma, edge_kl, density = self.encode(x, mask, adj, listed)
        z = reparameterize(mu, sigma, sample=self.training)
        return self.classifier(z), kl_to_standard_normal(mu, sigma), edge_kl, density

    @torch.no_grad()
    def set_feature_mean(self, mean: Tensor) -> None:
        """Set the expectation of the masking noise used in evaluation."""
        if self.feature_mask is not None:
            self.feature_mask.mean.copy_(mean)




def check_structure_input(
    structure_input: str, observed_branch: bool | str, graph_path: str
) -> None:
    """``ValueError`` naming ``structure_input`` for a bad value or combination."""
    if structure_input not in STRUCTURE_INPUTS:
        raise ValueError(
            f"structure_input must be one of {STRUCTURE_INPUTS}, got {structure_input!r}."
        )
    if structure_input == "observed" and observed_branch is not True:
        raise ValueError(
            "structure_input='observed' reads the first hidden layer of the GNN on the "
            f"observed graph: it needs observed_branch=True, got {observed_branch!r}."
        )
    if structure_input == "observed" and graph_path == "sparse":
        raise ValueError(
            "structure_input='observed' runs on the dense path only: it needs graph_path "
            "'auto' or 'dense', got 'sparse'."
        )


def check_top_k_search(
    top_k_search: str, structure_k: int | None, candidate_hops: int | None, graph_path: str
) -> None:
    """``ValueError`` naming ``top_k_search`` for a bad value or combination."""
    if top_k_search not in TOP_K_SEARCHES:
        raise ValueError(f"top_k_search must be one of {TOP_K_SEARCHES}, got {top_k_search!r}.")
    if top_k_search == "exact":
        return
    if structure_k is None:
        raise ValueError(
            "top_k_search='approx' needs structure_k (the k of the top-k it searches), got None."
        )
    if candidate_hops is not None:
        raise ValueError(
            "top_k_search='approx' searches all pairs; with candidate_hops the candidates come "
            "from the observed graph: use top_k_search='exact'."
        )
    if graph_path == "dense":
        raise ValueError(
            "top_k_search='approx' runs on the sparse path only: use graph_path='sparse' or "
            "'auto', or top_k_search='exact'."
        )


def _edge_count(adj: Tensor | None) -> int | None:
    return None if adj is None else int(torch.count_nonzero(adj))
