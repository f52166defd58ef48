"""``VIBGSLClassifier``: the skorch net, the scikit-learn contract and the loss."""

from __future__ import annotations

import inspect
import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data
from skorch import NeuralNetClassifier
from skorch.callbacks import EpochTimer, PassthroughScoring, PrintLog
from skorch.utils import to_tensor
from torch.utils.data import Subset

from ._batching import (
    GraphDataset,
    GraphLoader,
    _base_and_positions,
    densify_adjacency,
    observed_edge_count,
)
from ._inputs import GraphSet, is_tabular, tabular_graph_set, to_graph_set
from ._memory import describe_step_memory
from ._precision import autocast, check_precision
from ._threads import (
    check_torch_threads,
    limited_torch_threads,
    restore_torch_threads,
    set_torch_threads,
)
from .callbacks import FiniteLossGuard, ValidClassCount
from .nn.backbones import BACKBONES, SHARED_BACKBONES, check_num_layers
from .nn.model import (
    GRAPH_PATHS,
    IB_GRAPH_NORMS,
    READOUTS,
    VIBGSLModule,
    check_structure_input,
    check_top_k_search,
)
from .nn.selection import TIE_RULES
from .nn.sparse_model import sparse_ib_graph
from .nn.structure import EDGE_SCORES

__all__ = ["VIBGSLClassifier"]

# Module arguments that come from the data rather than from parameters.
_PLACEHOLDER_DIMS = {"in_channels": 1, "n_classes": 2}


def _encode_labels(classes: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Position of each label of ``y`` in ``classes`` (any order)."""
    sorter = np.argsort(classes, kind="stable")
    codes = sorter[np.searchsorted(classes, y, sorter=sorter).clip(max=len(classes) - 1)]
    unknown = classes[codes] != y
    if unknown.any():
        raise ValueError(
            f"y contains {y[unknown][:1].tolist()[0]!r}, which is not in "
            f"classes={classes.tolist()}."
        )
    return codes


class VIBGSLClassifier(NeuralNetClassifier):
    r"""Graph classification with VIB-GSL structure learning.

    VIB-GSL (Sun et al., AAAI 2022) learns, for every input graph, a new
    task-relevant graph (the *IB-graph*) from the node features and
    classifies it with a GNN through a variational information bottleneck.

    ``X`` is a sequence of graphs — :class:`torch_geometric.data.Data`,
    :class:`networkx.Graph`, ``(features, adjacency)`` tuples or bare
    ``(n_nodes, n_features)`` feature matrices, mixed freely — or a 3-D array
    of equally sized feature matrices. All graphs share the node feature
    width; their sizes may differ.

    *Tabular mode:* a table ``(n_samples, n_features)`` — a 2-D array or
    tensor, a pandas DataFrame, a scipy sparse matrix (densified) or a list
    of 1-D rows — is read as one graph per sample whose nodes are the
    features: node ``j`` of sample ``i`` carries
    :math:`[X_{ij} e_j \Vert e_j]` (its value in its own slot and the
    one-hot identity of feature ``j``, width ``2 n_features``), with no
    observed edges. The learned IB-graph of a sample is then a
    feature-interaction graph: :meth:`ib_graphs` returns, per sample, a
    ``(n_features, n_features)`` adjacency whose entry ``(j, k)`` is the
    learned interaction weight of features ``j`` and ``k`` in that sample.
    A list whose first element is a 1-D row is a table; one whose first
    element is a 2-D matrix or any other graph kind is a list of graphs.

    Parameters
    ----------
    beta : float, default=1e-3
        Weight :math:`\beta` of the compression term (KL divergence).
    ib_size : int, default=16
        Bottleneck size ``K``.
    hidden_dim : int, default=16
        Width of the structure learner, the GNN hidden layers and the
        classifier's hidden layer.
    num_layers : int, default=2
        Number of graph layers of the GNN, at least 2 (the paper's). Each
        extra layer is ``hidden_dim`` wide and widens a node's receptive
        field by one hop; every layer sees the same (learned or mixed) graph.
        GIN sums its neighbours without normalising, and deeper than two
        layers it may not train without ``module__batch_norm=True``: on NCI1
        a four-layer GIN of width 64 stayed at chance for 300 epochs without
        it and reached 80 % with it (three layers trained either way,
        ``benchmarks/results/capacity_probe``); with three layers, width 64
        and ``readout="sum"`` it stayed at chance on IMDB-BINARY and
        IMDB-MULTI without it (``benchmarks/results/structure_study``).
    backbone : {"gcn", "gin", "gat"}, default="gcn"
        GNN layer type (GCN measured best of the three at the other defaults
        on IMDB-BINARY; see the README).
    temperature : float, default=0.1
        Temperature ``t`` of the concrete edge distribution.
    edge_threshold : float, default=0.1
        Learned edges with weight below ``a_0`` are masked off.
    feature_mask : bool, default=True
        Learn the feature mask :math:`M`.
    structure_mix : float, default=0.0
        :math:`\lambda \in [0, 1]`: the GNN runs on
        :math:`\lambda A_{obs} + (1 - \lambda) A_{IB}`. 0 is the paper's
        setting (the observed edges are not used at all); 1 turns structure
        learning off (a plain GNN with the bottleneck).
    edge_score : {"inner", "cosine"}, default="inner"
        Edge logit of the structure learner: ``"inner"``
        :math:`\ell_{uv} = Z(u) Z(v)^\top` (the paper), or ``"cosine"``
        :math:`\ell_{uv} = s \cos(Z(u), Z(v)) + b` with a learnable scale
        :math:`s > 0` and bias :math:`b`, whose logits cannot saturate.
    structure_k : int or None, default=None
        Keep only each node's ``k`` highest-scoring candidate pairs
        (symmetrised by union: a pair is kept when either end chose it), so the
        learned graph has at most ``k · n`` edges. ``None`` keeps every pair
        (the paper). Selection is on the noise-free scores, so training and
        inference keep the same pairs; the kept weights are still learned.
        Among equal scores the lower node index wins. Nodes with identical
        features score alike, and with one-hot node features (degree, atom
        type) two thirds or more of the nodes have at least 4 such partners
        (``benchmarks/results/structure_study/ties.md``), so which of them
        are kept follows the node numbering, and relabelling a graph's nodes
        can change its predicted probabilities: by up to 0.04 on NCI1, where
        1 % of the predicted labels changed, with ``structure_mix=0.5,
        edge_score="cosine", structure_k=4``; by up to 0.001 with
        ``candidate_hops=1``; by 0.004 on IMDB-MULTI even with
        ``structure_mix=0`` (``benchmarks/results/structure_study/node_order.md``).
        With ``observed_branch=True, edge_score="cosine", structure_k=4``
        no change beyond float rounding was measured on MUTAG, IMDB-BINARY,
        IMDB-MULTI and NCI1: swapping nodes with identical features leaves
        the learned graph's own channel unchanged.
    structure_ties : {"lowest", "cyclic"}, default="lowest"
        Which of equal scores ``structure_k`` keeps. ``"lowest"``: the lower
        node index, so in a set of :math:`m` nodes that score alike every
        node picks the set's first ``k`` and those become hubs of degree
        :math:`m - 1` (242 learned edges on one COLLAB graph at ``k = 4``).
        ``"cyclic"``: node :math:`u` takes its tied partners in the order
        :math:`(v - u - 1) \bmod n`, the nodes after it and then those
        before it, so each node of such a set is picked by ``k`` others and
        no node's learned degree from ties exceeds :math:`2k`. Scores within
        rounding error of each other count as equal
        (:func:`~sk_vibgsl.nn.tie_tolerance`), so a matrix product that rounds
        alike nodes' scores apart does not bypass the rule. Either rule is
        exact and the same on the dense and sparse paths; the
        ``top_k_search="approx"`` search keeps the ties it finds. The price:
        nodes of a tied set are no longer interchangeable (each sits at its own
        place on the ring, and a set smaller than ``k + 1`` picks into the
        next set by position), so relabelling a graph's nodes moves the
        predicted probabilities even with ``observed_branch=True``: by up to
        0.099 on NCI1 (2.2 % of the labels changed) and 0.005 on IMDB-BINARY
        (``benchmarks/results/structure_study/node_order.md``).
    candidate_hops : int or None, default=None
        Learned edges may only join nodes within this many hops of the
        observed graph (1: re-weight the observed edges; 2: also close
        triangles). ``None`` allows every pair (the paper). A graph without
        edges then has no learned edges either.
    edge_beta : float, default=0.0
        Weight :math:`\gamma` of the structure's compression term
        :math:`\mathrm{KL}(\mathrm{Ber}(\pi) \,\|\, \mathrm{Ber}(r))`,
        averaged over a graph's candidate pairs; 0 leaves it out (the paper).
        Larger values pull edge probabilities towards ``edge_prior`` and so,
        with ``edge_threshold`` above ``edge_prior``, thin the graph.
    edge_prior : float, default=0.1
        Prior edge probability :math:`r \in (0, 1)` of that term.
    learn_mix : bool, default=False
        Learn :math:`\lambda` as a gate :math:`\lambda = \sigma(\theta)`
        (one scalar :math:`\theta`, trained with the rest), starting at
        ``structure_mix``, which must then lie in :math:`(0, 1)`; the fitted
        value is ``module_.mix``.
    observed_branch : bool or "shared", default=False
        Give the learned graph a channel of its own beside the observed one:
        a second GNN of the same kind runs on the observed graph, and the
        pooled vector that gives :math:`(\mu, \sigma)` is
        :math:`R(f_{obs}(X_{IB}, A_{obs})) + \alpha\, R(f(X_{IB}, A))`,
        with :math:`R` the readout, :math:`A` the IB-graph (mixed by
        ``structure_mix``) and :math:`\alpha` a learned scalar starting at 0,
        so that training starts from the GNN on the observed graph. Unlike
        ``structure_mix``, the learned edges neither replace nor dilute the
        observed ones. Needs structure learning (``structure_mix < 1``); on
        a table (no edges) the observed branch sees no edges. The fitted gate
        is ``module_.branch_gate``.

        ``"shared"``: the same gate without the second GNN. Every layer of
        the one GNN aggregates over the observed graph and, scaled by
        :math:`\alpha`, over the IB-graph, with the same weights. With GCN
        that is :math:`H' = \hat A_{obs} H W + \alpha A H W + b`. With GIN it
        is :math:`H' = \mathrm{MLP}((1 + \epsilon) H + A_{obs} H + \alpha A H)`.
        Training again starts from the GNN on the observed graph. An epoch
        costs about one GNN instead of two. GCN and GIN only.
    structure_input : {"features", "observed"}, default="features"
        What the structure learner embeds: the node features
        :math:`X_{IB}` (the paper), or with ``"observed"`` the first hidden
        layer of the GNN on the observed graph,
        :math:`Z = \mathrm{MLP}(\mathrm{ReLU}(f_{obs,1}(X_{IB}, A_{obs})))`,
        so that nodes are compared by their features and their observed
        neighbourhoods (as IDGL learns its graph from GNN embeddings).
        Needs ``observed_branch=True``; dense path only (``graph_path`` "auto"
        or "dense").
    node_attr : str, default="x"
        Node attribute holding the features of networkx graphs.
    max_pairs : int, "auto" or None, default="auto"
        Largest padded node-pair count ``B · N²`` of a batch: it bounds the
        memory of a step on large graphs, and splits batches of the few
        largest graphs of a skewed dataset so they need little padding.
        ``"auto"`` is ``batch_size · (2 n̄)²`` (``n̄`` the mean graph size of
        the data at hand); ``None`` bounds batches by ``batch_size`` only.
    max_nodes : int, "auto" or None, default="auto"
        Largest accepted graph (node count). A larger graph is refused with a
        ``ValueError`` naming it and the estimated memory of a training step
        on it, when ``X`` is converted, before any large tensor exists.
        ``"auto"`` is what the path that large graphs take can hold:
        ``10_000`` on the dense path (a training step on one graph of ``N``
        nodes raised peak memory by 15–35 ``N²`` bytes on CPU, measured at
        ``N = 1000 … 3000`` with ``batch_size=1``: some 2–3 GB at
        ``N = 10 000``), ``1_000_000`` when large graphs run on the sparse
        path (``graph_path="sparse"``, or ``"auto"`` with ``structure_k`` or
        ``candidate_hops`` set), whose step grows linearly in ``N``.
        ``None`` accepts any size.
    graph_path : {"auto", "dense", "sparse"}, default="auto"
        How a batch is computed. ``"dense"``: padded ``B × N × N`` tensors,
        fastest on small graphs, :math:`O(N^2)` memory per graph.
        ``"sparse"``: the IB-graph as an edge list of the kept pairs and
        edge-list message passing (:mod:`sk_vibgsl.nn.sparse_model`):
        memory :math:`O(N k)`; time :math:`O(N k)` with ``candidate_hops``,
        :math:`O(N^2 d)` for the top-``k`` scoring of all pairs without it.
        ``"auto"`` runs a batch sparse when the learned graph is sparsified
        (``structure_k`` or ``candidate_hops`` set) or structure learning is
        off, and its largest graph has at least 64 (``candidate_hops``), 256
        (all-pairs ``structure_k``) or 128 (``structure_mix=1``) nodes, where
        the sparse step was measured faster; dense otherwise. Without sparsification
        the sparse path keeps all pairs (as much memory as dense).
    ib_graph_norm : {"none", "row", "sym"}, default="none"
        ``"row"`` divides each node's learned edge weights by their sum
        before the mix with the observed graph:
        :math:`A = \lambda A_{obs} + (1 - \lambda) D_{IB}^{-1} A_{IB}`,
        :math:`D_{IB} = \mathrm{diag}(A_{IB} \mathbf 1)`. The learned graph
        then contributes a weighted mean over a node's learned neighbours,
        bounded whatever its density, instead of a sum that grows with it:
        for ``backbone="gin"``, whose layers sum their neighbours, on the
        near-complete IB-graphs of the default learner. ``"sym"`` uses
        :math:`D_{IB}^{-1/2} A_{IB} D_{IB}^{-1/2}` instead (GCN's
        normalisation without self-loops): a node of learned degree
        :math:`d` gets about :math:`\sqrt d` times its neighbours' features
        rather than :math:`d` times or once, so a hub (see
        ``structure_ties``) stays visible to GIN at a bounded scale.
        ``"none"`` keeps the sampled weights (the paper).
    readout : {"mean", "sum"}, default="mean"
        How the GNN's node outputs :math:`h_v` pool into the graph vector
        that gives :math:`(\mu, \sigma)`: ``"mean"``,
        :math:`\frac{1}{|V|} \sum_{v \in V} h_v` (the paper); ``"sum"``,
        :math:`\sum_{v \in V} h_v`, which keeps the graph's size (the
        readout of Xu et al.'s GIN, ICLR 2019). See the user guide's
        structure study for what it changes on NCI1 and the social datasets.
    top_k_search : {"exact", "approx"}, default="exact"
        How the sparse path finds each node's ``structure_k`` best partners
        when every pair is a candidate (no ``candidate_hops``; the only
        choice for bare feature matrices and tables, which have no edges).
        ``"exact"`` scores all pairs: :math:`O(n^2 d)` time per graph.
        ``"approx"`` scores each node against a bounded set found by
        random-hyperplane hashing of the structure learner's embeddings
        :math:`\hat z` and propagated along close directions
        (:mod:`sk_vibgsl.nn.sparse_ann`): :math:`O(n \log n)` time, the
        best partners *among those scored* — exact for graphs of at most 16
        nodes, high recall when the embeddings are clustered, lower for
        structureless ones (see the user guide's "Scaling"). The weights,
        their gradient and the edge KL of the selected pairs are computed as
        with ``"exact"``; the selection has no gradient either way. Needs
        ``structure_k``; refused with ``candidate_hops`` and with
        ``graph_path="dense"``; with ``"auto"``, batches that run dense
        (graphs under 256 nodes) are selected exactly. The hashing is
        seeded once per fitted module from ``random_state`` (from torch's
        global generator without it) and saved with the parameters: the same
        model selects the same pairs in training, prediction and after
        loading.
    random_state : int, optional
        Seeds the weight initialisation, the batch order and (by seeding
        torch's global generator when ``fit`` starts) the training noise:
        fit and predict are then reproducible on CPU.
    torch_threads : int, optional
        torch's intra-op thread count during ``fit``/``partial_fit`` and
        ``predict_proba`` (and so ``predict``/``score``), restored afterwards
        (``torch.set_num_threads`` is process-wide). ``None`` leaves torch's
        setting alone: in joblib's default ``loky`` workers
        (``GridSearchCV(n_jobs=k)``) it is already ``cpu_count() // k``,
        because loky sets ``OMP_NUM_THREADS`` for each worker, and
        ``dask.distributed`` workers start with one thread.
    precision : {"32", "bf16"}, default="32"
        ``"bf16"`` runs the forward pass under bfloat16 autocast (matrix
        products in bfloat16, the loss in float32); on a GPU with bfloat16
        support (Ampere or newer) or on CPU.
    max_epochs : int, default=100
    lr : float, default=0.005
    batch_size : int, default=64
    optimizer : torch optimizer class, default=torch.optim.Adam
        Its arguments go as ``optimizer__*`` (``optimizer__weight_decay``
        defaults to 0).
    train_split : callable, default=None
        skorch's validation split, e.g. ``skorch.dataset.ValidSplit(5)``;
        ``None`` trains on all data.
    verbose : int, default=0
    **kwargs
        Any other skorch parameter (``callbacks``, ``device``,
        ``iterator_train__*``, ``module__*``, ...). Two of them are ours:
        ``module__batch_norm=True`` batch-normalises each GIN layer
        (:class:`~sk_vibgsl.nn.VIBGSLModule`), and
        ``iterator_train__bucket_by_size=False`` draws training batches of
        random composition instead of size buckets
        (the training ``GraphLoader``), which batch norm needs.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels seen in ``fit``.
    n_features_in_ : int
        Node feature width seen in ``fit``; in tabular mode, the number of
        columns of the table.
    n_node_features_ : int
        Node feature width of the module's input (``2 * n_features_in_`` in
        tabular mode, ``n_features_in_`` otherwise).
    tabular_ : bool
        Whether ``fit`` saw a table (then ``predict`` needs one too).
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names, when ``fit`` saw a DataFrame with string column names.
    module_ : VIBGSLModule
        The fitted torch module.
    feature_mask_ : ndarray of shape (``n_node_features_``,)
        The fitted feature mask :math:`M` (ones when ``feature_mask=False``).
    history_ : skorch History
        Per epoch ``train_loss``, ``train_ce``, ``train_kl``, ``train_edge_kl``
        and ``train_density`` (the mean density of the learned graph
        :math:`A_{IB}` over the epoch's graphs, kept edges over node pairs;
        of the observed graph when ``structure_mix=1``), and ``valid_*``
        with a validation split.

    Notes
    -----
    Training minimises

    .. math::
        \mathcal{L} = \mathrm{CE}\left(q(Y \mid Z), Y\right)
        + \beta\, \mathrm{KL}\left(\mathcal{N}(\mu, \sigma^2) \,\|\, \mathcal{N}(0, I)\right)
        + \gamma\, \mathrm{KL}\left(\mathrm{Ber}(\pi) \,\|\, \mathrm{Ber}(r)\right)

    averaged over the batch (the last term only with ``edge_beta`` = γ > 0).
    The learned edge weights enter message passing, so the structure
    learner is trained end to end. Inference is deterministic:
    :math:`Z = \mu`, the feature mask's expectation, and edge probabilities
    :math:`\pi` thresholded at ``a_0`` (within the same top-``k`` and
    candidate pairs as in training).

    References
    ----------
    Q. Sun, J. Li, H. Peng, J. Wu, X. Fu, C. Ji, P. S. Yu. *Graph Structure
    Learning with Variational Information Bottleneck.* AAAI 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_vibgsl import VIBGSLClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.normal(size=(int(rng.integers(3, 8)), 4)) for _ in range(40)]
    >>> y = np.array([int(x[:, 0].mean() > 0) for x in X])
    >>> clf = VIBGSLClassifier(max_epochs=5, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    def __init__(
        self,
        module=VIBGSLModule,
        *,
        beta: float = 1e-3,
        ib_size: int = 16,
        hidden_dim: int = 16,
        num_layers: int = 2,
        backbone: str = "gcn",
        temperature: float = 0.1,
        edge_threshold: float = 0.1,
        feature_mask: bool = True,
        structure_mix: float = 0.0,
        edge_score: str = "inner",
        structure_k: int | None = None,
        structure_ties: str = "lowest",
        candidate_hops: int | None = None,
        edge_beta: float = 0.0,
        edge_prior: float = 0.1,
        learn_mix: bool = False,
        observed_branch: bool = False,
        structure_input: str = "features",
        node_attr: str = "x",
        max_pairs: int | str | None = "auto",
        max_nodes: int | str | None = "auto",
        graph_path: str = "auto",
        top_k_search: str = "exact",
        ib_graph_norm: str = "none",
        readout: str = "mean",
        random_state: int | None = None,
        torch_threads: int | None = None,
        precision: str = "32",
        criterion=torch.nn.CrossEntropyLoss,
        optimizer=torch.optim.Adam,
        lr: float = 0.005,
        max_epochs: int = 100,
        batch_size: int = 64,
        train_split=None,
        iterator_train=GraphLoader,
        iterator_valid=GraphLoader,
        verbose: int = 0,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("iterator_train__shuffle", True)
        super().__init__(
            module,
            criterion=criterion,
            optimizer=optimizer,
            lr=lr,
            max_epochs=max_epochs,
            batch_size=batch_size,
            train_split=train_split,
            iterator_train=iterator_train,
            iterator_valid=iterator_valid,
            verbose=verbose,
            **kwargs,
        )
        self.beta = beta
        self.ib_size = ib_size
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.backbone = backbone
        self.temperature = temperature
        self.edge_threshold = edge_threshold
        self.feature_mask = feature_mask
        self.structure_mix = structure_mix
        self.edge_score = edge_score
        self.structure_k = structure_k
        self.structure_ties = structure_ties
        self.candidate_hops = candidate_hops
        self.edge_beta = edge_beta
        self.edge_prior = edge_prior
        self.learn_mix = learn_mix
        self.observed_branch = observed_branch
        self.structure_input = structure_input
        self.node_attr = node_attr
        self.max_pairs = max_pairs
        self.max_nodes = max_nodes
        self.graph_path = graph_path
        self.top_k_search = top_k_search
        self.ib_graph_norm = ib_graph_norm
        self.readout = readout
        self.random_state = random_state
        self.torch_threads = torch_threads
        self.precision = precision

    # ------------------------------------------------------------------ #
    # scikit-learn contract
    # ------------------------------------------------------------------ #
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = True
        tags.input_tags.three_d_array = True
        tags.input_tags.sparse = True  # densified: each sample has n_features nodes anyway
        tags.non_deterministic = self.random_state is None
        return tags

    def _get_param_names(self):
        """skorch's parameter names (every attribute not ending in ``_``),
        less private bookkeeping such as skorch's ``_params_to_validate``:
        ``get_params``, ``repr`` and ``clone`` see only real parameters."""
        return [name for name in super()._get_param_names() if not name.startswith("_")]

    def _validate_hyperparameters(self) -> None:
        def check(name, ok, what):
            if not ok:
                raise ValueError(f"{name} must be {what}, got {getattr(self, name)!r}.")

        real = (numbers.Real,)
        check("beta", isinstance(self.beta, real) and self.beta >= 0, "a float >= 0")
        for name in ("ib_size", "hidden_dim"):
            value = getattr(self, name)
            check(name, isinstance(value, numbers.Integral) and value >= 1, "an int >= 1")
        check_num_layers(self.num_layers)
        check("backbone", self.backbone in BACKBONES, f"one of {BACKBONES}")
        check(
            "temperature",
            isinstance(self.temperature, real) and self.temperature > 0,
            "a float > 0",
        )
        check(
            "edge_threshold",
            isinstance(self.edge_threshold, real) and 0 <= self.edge_threshold < 1,
            "a float in [0, 1)",
        )
        check(
            "structure_mix",
            isinstance(self.structure_mix, real) and 0 <= self.structure_mix <= 1,
            "a float in [0, 1]",
        )
        check("edge_score", self.edge_score in EDGE_SCORES, f"one of {EDGE_SCORES}")
        check("structure_ties", self.structure_ties in TIE_RULES, f"one of {TIE_RULES}")
        for name in ("structure_k", "candidate_hops"):
            value = getattr(self, name)
            check(
                name,
                value is None or (isinstance(value, numbers.Integral) and value >= 1),
                "None or an int >= 1",
            )
        check(
            "edge_beta", isinstance(self.edge_beta, real) and self.edge_beta >= 0, "a float >= 0"
        )
        check(
            "edge_prior",
            isinstance(self.edge_prior, real) and 0 < self.edge_prior < 1,
            "a float in (0, 1)",
        )
        check(
            "learn_mix",
            isinstance(self.learn_mix, bool | np.bool_)
            and (not self.learn_mix or 0 < self.structure_mix < 1),
            "a bool, True only with structure_mix in (0, 1)",
        )
        check(
            "observed_branch",
            (isinstance(self.observed_branch, bool | np.bool_) or self.observed_branch == "shared")
            and (not self.observed_branch or self.structure_mix < 1)
            and (self.observed_branch != "shared" or self.backbone in SHARED_BACKBONES),
            "a bool or 'shared', True or 'shared' only with structure_mix < 1 (structure "
            f"learning), 'shared' only with a backbone in {SHARED_BACKBONES}",
        )
        check(
            "max_pairs",
            self.max_pairs is None
            or self.max_pairs == "auto"
            or (isinstance(self.max_pairs, numbers.Integral) and self.max_pairs >= 1),
            "'auto', None or an int >= 1",
        )
        check(
            "max_nodes",
            self.max_nodes is None
            or self.max_nodes == "auto"
            or (isinstance(self.max_nodes, numbers.Integral) and self.max_nodes >= 1),
            "'auto', None or an int >= 1",
        )
        check("graph_path", self.graph_path in GRAPH_PATHS, f"one of {GRAPH_PATHS}")
        check_top_k_search(
            self.top_k_search, self.structure_k, self.candidate_hops, self.graph_path
        )
        check_structure_input(
            self.structure_input,
            self.observed_branch if isinstance(self.observed_branch, str)
            else bool(self.observed_branch),
            self.graph_path,
        )
        check("ib_graph_norm", self.ib_graph_norm in IB_GRAPH_NORMS, f"one of {IB_GRAPH_NORMS}")
        check("readout", self.readout in READOUTS, f"one of {READOUTS}")
        check_torch_threads(self.torch_threads)
        check_precision(self.precision)

    # ------------------------------------------------------------------ #
    # skorch hooks
    # ------------------------------------------------------------------ #
    @property
    def _default_callbacks(self):
        return [
            ("epoch_timer", EpochTimer()),
            ("train_loss", PassthroughScoring(name="train_loss", on_train=True)),
            ("train_ce", PassthroughScoring(name="train_ce", on_train=True)),
            ("train_kl", PassthroughScoring(name="train_kl", on_train=True)),
            ("train_edge_kl", PassthroughScoring(name="train_edge_kl", on_train=True)),
            ("train_density", PassthroughScoring(name="train_density", on_train=True)),
            ("valid_loss", PassthroughScoring(name="valid_loss")),
            ("valid_ce", PassthroughScoring(name="valid_ce")),
            ("valid_kl", PassthroughScoring(name="valid_kl")),
            ("valid_edge_kl", PassthroughScoring(name="valid_edge_kl")),
            ("valid_density", PassthroughScoring(name="valid_density")),
            ("valid_acc", PassthroughScoring(name="valid_acc", lower_is_better=False)),
            ("valid_classes", ValidClassCount()),
            ("finite_loss_guard", FiniteLossGuard()),
            ("print_log", PrintLog()),
        ]

    def _module_kwargs(self) -> dict[str, Any]:
        kwargs = {
            "in_channels": getattr(
                self, "n_node_features_", _PLACEHOLDER_DIMS["in_channels"]
            ),
            "n_classes": (
                len(self.classes_fit_) if hasattr(self, "classes_fit_")
                else _PLACEHOLDER_DIMS["n_classes"]
            ),
            "hidden_dim": self.hidden_dim,
            "num_layers": self.num_layers,
            "ib_size": self.ib_size,
            "backbone": self.backbone,
            "temperature": self.temperature,
            "edge_threshold": self.edge_threshold,
            "feature_mask": self.feature_mask,
            "structure_mix": self.structure_mix,
            "edge_score": self.edge_score,
            "structure_k": self.structure_k,
            "structure_ties": self.structure_ties,
            "candidate_hops": self.candidate_hops,
            "edge_prior": self.edge_prior if self.edge_beta > 0 else None,
            "learn_mix": self.learn_mix,
            "observed_branch": (
                self.observed_branch
                if isinstance(self.observed_branch, str)
                else bool(self.observed_branch)
            ),
            "structure_input": self.structure_input,
            "graph_path": self.graph_path,
            "top_k_search": self.top_k_search,
            "ib_graph_norm": self.ib_graph_norm,
            "readout": self.readout,
        }
        kwargs.update(self.get_params_for("module"))
        return kwargs

    def initialize_module(self):
        """Build the module from the estimator's parameters and the data's sizes.

        Before the first ``fit`` the data sizes are unknown; the module is
        rebuilt in :meth:`on_train_begin` once they are. To load saved
        parameters into a fresh net (``save_params``/``load_params``), give
        the sizes explicitly, as skorch requires of any module: ``classes``
        (the fitted ``classes_``) and ``module__in_channels`` (the fitted
        ``n_node_features_``); ``initialize()`` then builds the module to
        those sizes and the net predicts once ``load_params`` has run.
        """
        self._validate_hyperparameters()
        in_channels = self.get_params_for("module").get("in_channels")
        if not hasattr(self, "classes_fit_") and self.classes is not None and in_channels:
            self.classes_fit_ = np.asarray(self.classes)
            self.n_node_features_ = self.n_features_in_ = int(in_channels)
            self.tabular_ = False
        kwargs = self._module_kwargs()
        with torch.random.fork_rng(devices=[]):
            if self.random_state is not None:
                torch.manual_seed(self.random_state)
            self.module_ = self.module(**kwargs)
        self._module_spec_ = kwargs
        self._module_trained = False
        return self

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        """Convert the training data once and fit the module to its sizes.

        Sets ``classes_fit_``/``n_features_in_``/``n_node_features_``, rebuilds module and optimizer
        when the data's sizes differ from the current module's (always on the
        first fit), and sets the feature-mask noise mean from the data.
        """
        super().on_train_begin(net, X=X, y=y, **kwargs)
        if isinstance(X, GraphDataset | Subset):
            dataset = X
        else:
            dataset = self._fit_dataset(X, y)
        base, positions = _base_and_positions(dataset)
        if self._module_kwargs() != self._module_spec_:
            self.initialize_module()
            self.module_.to(self.device)
            self.initialize_optimizer()
        node_of = np.repeat(np.arange(len(base)), base.sizes)
        rows = np.isin(node_of, positions)
        mean = torch.as_tensor(base.graphs.x[rows].mean(0))
        self.module_.set_feature_mean(mean.to(self.device))
        if self.random_state is not None:
            torch.manual_seed(self.random_state + 1)
        self._train_cache = (X, dataset)
        self._module_trained = True
        # Limit torch's threads for the training loop; undone in on_train_end
        # (if a previous fit raised before restoring, keep its saved value).
        previous = set_torch_threads(self.torch_threads)
        if getattr(self, "_torch_threads_saved", None) is None:
            self._torch_threads_saved = previous

    def on_train_end(self, net, X=None, y=None, **kwargs):
        super().on_train_end(net, X=X, y=y, **kwargs)
        self._train_cache = None
        restore_torch_threads(getattr(self, "_torch_threads_saved", None))
        self._torch_threads_saved = None

    def get_params_for_optimizer(self, prefix, named_parameters):
        """skorch's optimizer arguments, with a one-kernel step unless given.

        PyTorch's optimizers loop over the parameters in Python on CPU
        (``foreach`` defaults to True on CUDA only). On CPU, Adam and AdamW
        get ``fused=True`` (``FUSED_OPTIMIZERS``): one kernel updates every
        parameter, about 3× faster than the multi-tensor step on the learned
        channel's twenty tensors, which makes an IMDB-BINARY training epoch
        0.05 (the default) to 0.07 (``LEARNED_CHANNEL_PARAMS``) of a plain
        PyG GCN epoch shorter (``benchmarks/results/speed_fused_adam``). Its
        values equal the per-tensor loop's up to float rounding (a few ulps a
        step), not bit for bit. Elsewhere (CUDA: not measured here), and for
        other optimizers with a ``foreach`` argument, ``foreach=True``: the
        per-tensor values, bit for bit, in a few multi-tensor calls.
        ``optimizer__fused`` or ``optimizer__foreach``, given, wins
        (``optimizer__fused=False`` gives that multi-tensor step, whose values
        are release 0.1.0's per-tensor loop's bit for bit); an optimizer
        without either argument is left as is.
        """
        groups, kwargs = super().get_params_for_optimizer(prefix, named_parameters)
        optimizer = getattr(self, prefix, None)
        if "foreach" in kwargs or kwargs.get("fused"):  # the user chose the step
            return groups, kwargs
        if "fused" not in kwargs and _fused_step(optimizer, self.device):
            kwargs["fused"] = True
        elif _accepts(optimizer, "foreach"):
            kwargs["foreach"] = True
        return groups, kwargs

    def infer(self, x, **fit_params):
        """skorch's forward step, after the batch is moved to the device
        (once, as a whole) and its observed edges are made a dense adjacency
        there; with ``precision="bf16"`` under bfloat16 autocast, its outputs
        cast back to float32 for the loss."""
        x = to_tensor(x, device=self.device)
        if not _on_sparse_path(self.module_, x):
            x = densify_adjacency(x)
        if self.precision == "32":
            return super().infer(x, **fit_params)
        device_type = next(self.module_.parameters()).device.type
        with autocast(self.precision, device_type):
            out = super().infer(x, **fit_params)
        if isinstance(out, tuple):
            return tuple(t.float() if torch.is_tensor(t) else t for t in out)
        return out.float()

    def _fit_dataset(self, X, y) -> GraphDataset:
        if y is None:
            raise ValueError(
                "y is required: VIBGSLClassifier requires y to be passed, but the target "
                "y is None."
            )
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {y.shape}.")
        check_classification_targets(y)
        shape = getattr(X, "shape", None)
        if shape is not None and len(shape) > 0:
            n_samples = shape[0]
        else:
            n_samples = len(X) if hasattr(X, "__len__") else None
        if n_samples is not None and n_samples != len(y):
            raise ValueError(f"X has {n_samples} samples but y has {len(y)}.")
        # Continuing training (warm_start, partial_fit) must not change sizes.
        warm = getattr(self, "_module_trained", False) and hasattr(self, "n_node_features_")
        graphs = self._graph_set(X, reset=not warm)
        if len(graphs) != len(y):
            raise ValueError(f"X has {len(graphs)} samples but y has {len(y)}.")
        if graphs.n_features == 0:
            raise ValueError(
                "The graphs have 0 node features: add features first, e.g. with "
                "sk_vibgsl.DegreeFeatures()."
            )
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(
                f"y has a single class ({classes[0]!r}): a classifier needs more than "
                "one class."
            )
        if self.classes is not None:
            classes = np.asarray(self.classes)
        if warm and not np.array_equal(classes, self.classes_fit_):
            raise ValueError(
                f"y has classes {classes.tolist()}, but the model being trained further was "
                f"fitted on {self.classes_fit_.tolist()}."
            )
        self.classes_fit_ = classes
        self.n_node_features_ = graphs.n_features
        if not self.tabular_:
            self.n_features_in_ = graphs.n_features
        encoded = _encode_labels(classes, y)
        return GraphDataset(graphs, encoded, with_adjacency=self._uses_observed_graph,
                            sparse_features=self._lists_features)

    @property
    def _lists_features(self) -> bool:
        """Whether batches list their nonzero node features (mostly-zero
        features such as one-hot degrees, :class:`~sk_vibgsl._batching.GraphDataset`):
        on CPU (or ``device=None``, where nothing is moved off it), for
        :class:`~sk_vibgsl.nn.VIBGSLModule` (a custom module gets ``x`` and
        ``mask`` as before). A listed batch that reaches another device is
        multiplied from ``x`` (:func:`~sk_vibgsl.nn._feature_product.listed_features`)."""
        module = self.module
        return (
            (self.device is None or torch.device(self.device).type == "cpu")
            and isinstance(module, type)
            and issubclass(module, VIBGSLModule)
        )

    @property
    def _uses_observed_graph(self) -> bool:
        """Whether batches must carry the observed adjacency."""
        return self.structure_mix > 0 or (
            self.structure_mix < 1
            and (self.candidate_hops is not None or bool(self.observed_branch))
        )

    def get_dataset(self, X, y=None):
        """Convert ``X`` (once per call of fit/predict) into a GraphDataset."""
        if isinstance(X, GraphDataset | Subset):
            return X
        cache = getattr(self, "_train_cache", None)
        if cache is not None and cache[0] is X:
            return cache[1]
        graphs = self._graph_set(X, reset=not hasattr(self, "n_node_features_"))
        return GraphDataset(graphs, None, with_adjacency=self._uses_observed_graph,
                            sparse_features=self._lists_features)

    def _graph_set(self, X, *, reset: bool) -> GraphSet:
        """Convert ``X``; a table goes through sklearn's ``validate_data``.

        ``reset`` (a new fit) records the input mode and sizes; otherwise
        ``X`` must have the mode and sizes seen in ``fit``.
        """
        tabular = is_tabular(X)
        if not reset and tabular != self.tabular_:
            if not tabular:  # the input's own errors first (e.g. a 1-D array)
                to_graph_set(X, node_attr=self.node_attr, max_nodes=self._max_nodes(),
                            size_note=self._size_note)
            seen = "a table" if self.tabular_ else "graphs"
            got = "a table" if tabular else "graphs"
            raise ValueError(
                f"X is {got}, but the model was fitted on {seen} (tabular mode is set by fit)."
            )
        if not tabular:
            if reset:
                self.tabular_ = False
                if hasattr(self, "feature_names_in_"):
                    del self.feature_names_in_
            width = None if reset else self.n_node_features_
            return to_graph_set(
                X, node_attr=self.node_attr, n_features=width, max_nodes=self._max_nodes(),
                size_note=self._size_note,
            )
        table = validate_data(
            self,
            X,
            reset=reset,
            accept_sparse=True,
            dtype=[np.float32, np.float64],
            ensure_all_finite=False,
        )
        if sp.issparse(table):
            table = table.toarray()
        bad_rows = ~np.isfinite(table).all(axis=1)
        if bad_rows.any():
            raise ValueError(f"X[{int(np.flatnonzero(bad_rows)[0])}] contains NaN or inf.")
        if reset:
            self.tabular_ = True
        max_nodes = self._max_nodes()
        if max_nodes is not None and table.shape[1] > max_nodes:
            raise ValueError(
                f"X has {table.shape[1]} columns, so every sample (X[0] first) would be a "
                f"graph of {table.shape[1]} nodes, more than max_nodes={max_nodes}: "
                f"{self._size_note(table.shape[1])}."
            )
        return tabular_graph_set(table)

    def _large_graphs_sparse(self) -> bool:
        """Whether a large graph runs on the sparse path (``graph_path``)."""
        if self.graph_path != "auto":
            return self.graph_path == "sparse"
        return (
            self.structure_mix >= 1
            or self.structure_k is not None
            or self.candidate_hops is not None
        )

    def _max_nodes(self) -> int | None:
        """``max_nodes`` with ``"auto"`` resolved for the path large graphs take."""
        if self.max_nodes != "auto":
            return self.max_nodes
        return 1_000_000 if self._large_graphs_sparse() else 10_000

    def _size_note(self, n_nodes: int) -> str:
        """Why a graph of ``n_nodes`` is refused: its estimated step memory."""
        sparse = self._large_graphs_sparse()
        note = describe_step_memory(
            n_nodes, sparse=sparse, n_features=getattr(self, "n_node_features_", 1),
            hidden=self.hidden_dim, k=self.structure_k, layers=self.num_layers,
        )
        if not sparse:
            note += " (structure_k or candidate_hops with graph_path='auto' use the sparse one)"
        return note

    def get_split_datasets(self, X, y=None, **fit_params):
        """Split as skorch does; the validation part is sorted by graph size
        so that evaluation batches (taken in order) need little padding."""
        dataset_train, dataset_valid = super().get_split_datasets(X, y, **fit_params)
        if dataset_valid is not None:
            base, positions = _base_and_positions(dataset_valid)
            order = np.argsort(base.sizes[positions], kind="stable")
            dataset_valid = Subset(base, positions[order].tolist())
        return dataset_train, dataset_valid

    def get_iterator(self, dataset, training=False):
        """skorch's iterator; a :class:`GraphLoader` also gets the pair budget
        ``max_pairs`` and, in training, a batch-order seed from ``random_state``."""
        prefix = "iterator_train" if training else "iterator_valid"
        iterator = getattr(self, prefix)
        kwargs = self.get_params_for(prefix)
        kwargs.setdefault("batch_size", self.batch_size)
        if kwargs["batch_size"] == -1:
            kwargs["batch_size"] = len(dataset)
        if isinstance(iterator, type) and issubclass(iterator, GraphLoader):
            kwargs.setdefault("max_pairs", self.max_pairs)
            if training and self.random_state is not None:
                kwargs.setdefault("seed", self.random_state)
            elif training:
                kwargs.setdefault("seed", int(torch.randint(2**31 - 1, ()).item()))
        return iterator(dataset, **kwargs)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        r""":math:`\mathrm{CE} + \beta\,\overline{\mathrm{KL}} + \gamma\,
        \overline{\mathrm{KL}_A}`; CE, both KL terms, the learned graph's
        density and accuracy are recorded per batch for the epoch history,
        and in validation the graphs predicted per class
        (``valid_class_counts``, summed into ``valid_classes`` by
        :class:`~sk_vibgsl.callbacks.ValidClassCount`).
        A zero weight leaves its term out (an infinite KL does not turn the
        loss into NaN). ``y_pred`` is the module's ``(logits, kl, edge_kl,
        density)``; a module returning only ``(logits, kl)`` works too."""
        logits, kl, *structure = y_pred
        y_true = y_true.to(logits.device)
        ce = self.criterion_(logits, y_true)
        kl = kl.mean()
        loss = ce + self.beta * kl if self.beta else ce
        prefix = "train" if training else "valid"
        if structure:
            edge_kl, density = (t.mean() for t in structure)
            if self.edge_beta:
                loss = loss + self.edge_beta * edge_kl
            self.history.record_batch(f"{prefix}_edge_kl", edge_kl.item())
            self.history.record_batch(f"{prefix}_density", density.item())
        self.history.record_batch(f"{prefix}_ce", ce.item())
        self.history.record_batch(f"{prefix}_kl", kl.item())
        if not training:
            predicted = logits.argmax(-1)
            acc = (predicted == y_true).float().mean().item()
            self.history.record_batch("valid_acc", acc)
            self.history.record_batch(  # graphs per predicted class: see ValidClassCount
                "valid_class_counts",
                torch.bincount(predicted, minlength=logits.shape[-1]).tolist())
        return loss

    # ------------------------------------------------------------------ #
    # prediction
    # ------------------------------------------------------------------ #
    def _sorted_view(self, X) -> tuple[Subset, np.ndarray]:
        """The dataset of X ordered by graph size, and the order used."""
        dataset = self.get_dataset(X)
        base, positions = _base_and_positions(dataset)
        order = np.argsort(base.sizes[positions], kind="stable")
        return Subset(base, positions[order].tolist()), order

    def _unsort(self, values: np.ndarray, order: np.ndarray) -> np.ndarray:
        out = np.empty_like(values)
        out[order] = values
        return out

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape ``(n_samples, n_classes)``, rows sum to 1.

        Deterministic: the same input gives the same output, whatever the
        batch composition.
        """
        check_is_fitted(self, "classes_fit_")
        view, order = self._sorted_view(X)
        with limited_torch_threads(self.torch_threads):
            proba = super().predict_proba(view)
        return self._unsort(proba, order)

    def predict(self, X) -> np.ndarray:
        """Predicted class labels (values of ``classes_``)."""
        return self.classes_[self.predict_proba(X).argmax(axis=1)]

    @property
    def classes_(self) -> np.ndarray:
        if self.classes is not None:
            return np.asarray(self.classes)
        check_is_fitted(self, "classes_fit_")
        return self.classes_fit_

    def check_data(self, X, y):
        """Labels are checked and encoded in :meth:`on_train_begin`."""

    @property
    def feature_mask_(self) -> np.ndarray:
        check_is_fitted(self, "classes_fit_")
        mask = self.module_.feature_mask
        if mask is None:
            return np.ones(self.n_node_features_, dtype=np.float32)
        return mask.mask.detach().cpu().numpy()

    def ib_graphs(self, X) -> list[tuple[np.ndarray, np.ndarray | sp.csr_array]]:
        """The IB-graph of each sample, as in inference (deterministic).

        Returns
        -------
        list of (features, adjacency)
            For each sample in input order: the masked node features
            ``(n_nodes, n_node_features_)`` and the learned weighted adjacency
            ``(n_nodes, n_nodes)`` that the GNN sees (including the observed
            part when ``structure_mix > 0``; with ``observed_branch=True`` the
            graph of the learned channel, beside which a second GNN sees the
            observed graph as given): a dense ndarray for graphs of
            batches on the dense path, a ``scipy.sparse.csr_array`` (same
            values, no explicit zeros) for those on the sparse path
            (``graph_path``). In tabular mode every sample
            has ``n_nodes = n_features_in_`` (node ``j`` is feature ``j``)
            and the adjacency is its learned feature-interaction graph.
        """
        check_is_fitted(self, "classes_fit_")
        view, order = self._sorted_view(X)
        loader = self.get_iterator(view, training=False)
        self.module_.eval()
        out: list[tuple[np.ndarray, np.ndarray]] = []
        with torch.no_grad():
            for batch, _ in loader:
                batch = to_tensor(batch, device=self.device)
                if _on_sparse_path(self.module_, batch):
                    out.extend(_sparse_ib_graphs(self.module_, batch))
                    continue
                batch = densify_adjacency(batch)
                x_ib, adj = self.module_.ib_graph(**batch)
                sizes = batch["mask"].sum(-1).tolist()
                for b, n in enumerate(sizes):
                    out.append(
                        (x_ib[b, :n].cpu().numpy(), adj[b, :n, :n].cpu().numpy())
                    )
        result: list = [None] * len(out)
        for k, pos in enumerate(order):
            result[pos] = out[k]
        return result



def _on_sparse_path(module, batch) -> bool:
    """Whether ``module`` runs this batch on the sparse path (a custom
    module without ``uses_sparse_path`` gets dense batches)."""
    uses = getattr(module, "uses_sparse_path", None)
    return bool(uses is not None and uses(batch["mask"], lambda: observed_edge_count(batch)))


def _sparse_ib_graphs(module, batch) -> list[tuple[np.ndarray, sp.csr_array]]:
    """Per graph of a batch on the sparse path: masked features and the
    mixed IB adjacency as a CSR array."""
    mask = batch["mask"]
    x_ib = module.feature_mask(batch["x"], mask) if module.feature_mask is not None else batch["x"]
    nodes, _, graph, _, _ = sparse_ib_graph(module, **batch)
    ptr = nodes.ptr.cpu().numpy()
    row, col = graph.row.cpu().numpy(), graph.col.cpu().numpy()
    weight = graph.weight.cpu().numpy()
    keep = weight != 0
    row, col, weight = row[keep], col[keep], weight[keep]
    graph_of = np.searchsorted(ptr, row, side="right") - 1
    out = []
    for b in range(len(ptr) - 1):
        n = int(ptr[b + 1] - ptr[b])
        sel = graph_of == b
        adj = sp.csr_array((weight[sel], (row[sel] - ptr[b], col[sel] - ptr[b])), shape=(n, n))
        out.append((x_ib[b, :n].cpu().numpy(), adj))
    return out


#: The optimizers whose fused step :meth:`VIBGSLClassifier.get_params_for_optimizer`
#: turns on by default on CPU (PyTorch has had the CPU kernels since 2.4; with
#: an older torch they keep ``foreach``).
FUSED_OPTIMIZERS = (torch.optim.Adam, torch.optim.AdamW)
_FUSED_ON_CPU = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 4)


def _fused_step(optimizer, device) -> bool:
    """Whether ``optimizer`` (a class) gets ``fused=True`` on ``device``."""
    kind = torch.device(device if device is not None else "cpu").type
    return (
        _FUSED_ON_CPU
        and isinstance(optimizer, type)
        and issubclass(optimizer, FUSED_OPTIMIZERS)
        and kind == "cpu"
        and _accepts(optimizer, "fused")
    )


def _accepts(callable_, name: str) -> bool:
    """Whether ``callable_`` takes a keyword argument ``name``."""
    try:
        return name in inspect.signature(callable_).parameters
    except (TypeError, ValueError):
        return False
