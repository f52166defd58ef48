"""Graph-aware transformers for scikit-learn Pipelines.

They accept the same input kinds as :class:`~sk_vibgsl.VIBGSLClassifier`
and return the same kinds, with new node features: a PyG ``Data`` comes back
as a ``Data`` (a shallow copy, as PyG's transforms make: the new ``x`` is
its own, the edge tensors are shared with the input rather than copied, which
on COLLAB saves 375 MiB), a networkx graph as a networkx graph (a copy), a
``(features, adjacency)`` tuple as a tuple, a bare matrix as a matrix, and a
3-D array as a 3-D array. Edges are passed through untouched.
"""

from __future__ import annotations

import copy
import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._inputs import GraphSet, _as_sample_sequence, to_graph_set

__all__ = ["DegreeFeatures", "NodeFeatureTransformer", "RandomWalkFeatures"]


def _with_features(sample: Any, feats: np.ndarray, node_attr: str) -> Any:
    """Return ``sample`` of the same kind with node features ``feats``."""
    module = type(sample).__module__ or ""
    if module.startswith("torch_geometric"):
        out = copy.copy(sample)  # shares the edges; x is replaced
        out.x = torch.as_tensor(feats, dtype=torch.float32)
        return out
    if module.startswith("networkx"):
        out = sample.copy()
        for node, row in zip(sample.nodes, feats):
            out.nodes[node][node_attr] = row
        return out
    if isinstance(sample, tuple):
        return (feats, sample[1])
    return feats


def _rebuild(X: Any, samples, graphs: GraphSet, new_x: np.ndarray, node_attr: str):
    parts = np.split(new_x.astype(np.float32, copy=False), graphs.node_ptr[1:-1])
    if isinstance(X, (np.ndarray, torch.Tensor)) and getattr(X, "ndim", 0) == 3:
        return np.stack(parts)
    return [_with_features(s, f, node_attr) for s, f in zip(samples, parts)]


def _add_node_features(transformer, X, compute) -> Any:
    """``X`` with the node features ``compute(graphs)``, appended to the existing
    ones when ``transformer.append`` (whose width must then be the fitted one)."""
    samples = _as_sample_sequence(X)
    graphs = to_graph_set(samples, node_attr=transformer.node_attr)
    if transformer.append and graphs.n_features != transformer.n_features_in_:
        raise ValueError(
            f"X has {graphs.n_features} node features, but {type(transformer).__name__} was "
            f"fitted with {transformer.n_features_in_}."
        )
    new = compute(graphs)
    if transformer.append:
        new = np.hstack([graphs.x, new])
    return _rebuild(X, samples, graphs, new, transformer.node_attr)


def node_degrees(graphs: GraphSet) -> np.ndarray:
    """Number of distinct neighbours (self-loops excluded) of every node."""
    graph_of_edge = np.repeat(np.arange(len(graphs)), np.diff(graphs.edge_ptr))
    src, dst = graphs.edge_index
    keep = src != dst
    nodes = graphs.node_ptr[graph_of_edge[keep]] + src[keep]
    return np.bincount(nodes, minlength=len(graphs.x))


class DegreeFeatures(TransformerMixin, BaseEstimator):
    r"""Node features from node degrees.

    The usual preprocessing of featureless social graphs (as in PyG's kernel
    benchmark, which VIB-GSL follows): a one-hot encoding of the degree when
    the largest degree seen in ``fit`` is below ``onehot_limit``, otherwise
    the standardised degree :math:`(d - \bar{d}) / s_d`.

    Parameters
    ----------
    mode : {"auto", "onehot", "normalized"}, default="auto"
        Encoding; ``"auto"`` picks one-hot below ``onehot_limit``.
    onehot_limit : int, default=1000
        Largest degree for which ``"auto"`` still uses one-hot.
    max_degree : int, optional
        Width of the one-hot encoding minus 1; default: the largest degree
        in ``fit``. Larger degrees at transform time go to the last column.
    append : bool, default=False
        Append to the existing features instead of replacing them.
    node_attr : str, default="x"
        Feature attribute of networkx nodes.

    Attributes
    ----------
    mode_ : {"onehot", "normalized"}
    max_degree_ : int
        Largest degree seen in ``fit`` (or ``max_degree``).
    mean_, scale_ : float
        Degree statistics for ``"normalized"``.
    n_features_in_ : int
        Node feature width seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_vibgsl import DegreeFeatures
    >>> path = (np.ones((3, 1)), np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    >>> [(x, adj)] = DegreeFeatures().fit_transform([path])
    >>> x  # one-hot degrees 1, 2, 1 (columns: degree 0, 1, 2)
    array([[0., 1., 0.],
           [0., 0., 1.],
           [0., 1., 0.]], dtype=float32)
    """

    def __init__(
        self,
        mode: str = "auto",
        onehot_limit: int = 1000,
        max_degree: int | None = None,
        append: bool = False,
        node_attr: str = "x",
    ) -> None:
        self.mode = mode
        self.onehot_limit = onehot_limit
        self.max_degree = max_degree
        self.append = append
        self.node_attr = node_attr

    def fit(self, X, y=None):
        """Learn the encoding (one-hot width or degree mean and scale) from
        the degrees of the graphs ``X``. Returns ``self``."""
        if self.mode not in ("auto", "onehot", "normalized"):
            raise ValueError(
                f"mode must be 'auto', 'onehot' or 'normalized', got {self.mode!r}."
            )
        graphs = to_graph_set(X, node_attr=self.node_attr)
        degrees = node_degrees(graphs)
        self.n_features_in_ = graphs.n_features
        self.max_degree_ = int(degrees.max()) if self.max_degree is None else int(self.max_degree)
        if self.mode == "auto":
            self.mode_ = "onehot" if self.max_degree_ < self.onehot_limit else "normalized"
        else:
            self.mode_ = self.mode
        self.mean_ = float(degrees.mean())
        self.scale_ = float(degrees.std()) or 1.0
        return self

    def _encode(self, degrees: np.ndarray) -> np.ndarray:
        if self.mode_ == "onehot":
            out = np.zeros((len(degrees), self.max_degree_ + 1), dtype=np.float32)
            out[np.arange(len(degrees)), np.minimum(degrees, self.max_degree_)] = 1
            return out
        return ((degrees - self.mean_) / self.scale_).astype(np.float32)[:, None]

    def transform(self, X):
        """The graphs ``X``, same kinds, with their degree features."""
        check_is_fitted(self, "mode_")
        return _add_node_features(self, X, lambda graphs: self._encode(node_degrees(graphs)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.requires_fit = True
        return tags


class NodeFeatureTransformer(TransformerMixin, BaseEstimator):
    """Apply a scikit-learn transformer to node features, graph by graph.

    The transformer (``StandardScaler``, ``PCA``, ...) is fitted on the
    node features of all training graphs stacked together, and applied to
    each graph's nodes.

    Parameters
    ----------
    transformer : scikit-learn transformer
        Cloned before fitting.
    node_attr : str, default="x"
        Feature attribute of networkx nodes.

    Attributes
    ----------
    transformer_ : scikit-learn transformer
        The fitted clone.
    n_features_in_ : int
        Node feature width seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sk_vibgsl import NodeFeatureTransformer
    >>> graphs = [np.array([[1.0], [3.0]]), np.array([[5.0], [7.0], [9.0]])]
    >>> scaled = NodeFeatureTransformer(StandardScaler()).fit_transform(graphs)
    >>> [g.shape for g in scaled]  # each graph keeps its nodes
    [(2, 1), (3, 1)]
    >>> x = np.concatenate(scaled).ravel()  # scaled over all 5 nodes together
    >>> round(float(x.mean()), 6), round(float(x.std()), 6)
    (0.0, 1.0)
    """

    def __init__(self, transformer, node_attr: str = "x") -> None:
        self.transformer = transformer
        self.node_attr = node_attr

    def fit(self, X, y=None):
        """Fit a clone of ``transformer`` on the stacked node features of the
        graphs ``X``. Returns ``self``."""
        graphs = to_graph_set(X, node_attr=self.node_attr)
        self.n_features_in_ = graphs.n_features
        self.transformer_ = clone(self.transformer).fit(graphs.x)
        return self

    def transform(self, X):
        """The graphs ``X``, same kinds, with each graph's node features
        transformed."""
        check_is_fitted(self, "transformer_")
        samples = _as_sample_sequence(X)
        graphs = to_graph_set(samples, node_attr=self.node_attr, n_features=self.n_features_in_)
        new = self.transformer_.transform(graphs.x)
        if hasattr(new, "toarray"):  # sparse output (OneHotEncoder, ...)
            new = new.toarray()
        new = np.asarray(new, dtype=np.float32)
        return _rebuild(X, samples, graphs, new, self.node_attr)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        return tags


def random_walk_returns(graphs: GraphSet, walk_length: int) -> np.ndarray:
    r"""Return probabilities of random walks, ``(n_nodes_total, walk_length)``.

    .. math::
        p_i = \left[(P)_{ii}, (P^2)_{ii}, \dots, (P^K)_{ii}\right],
        \qquad P = D^{-1} A

    with the (weighted) adjacency :math:`A` of each graph and
    :math:`D_{ii} = \sum_j A_{ij}` (a node without edges has zeros). Computed
    per graph as :math:`M \leftarrow P M` from :math:`M = I`: a sparse by
    dense product per step, :math:`O(K \cdot E \cdot n)` time and
    :math:`O(n^2)` memory for a graph of ``n`` nodes and ``E`` edges.
    """
    out = np.zeros((len(graphs.x), walk_length), dtype=np.float32)
    for g in range(len(graphs)):
        feats, edge_index, weight = graphs.graph(g)
        n = len(feats)
        if n == 0 or edge_index.shape[1] == 0:
            continue
        adj = sp.csr_matrix((weight.astype(np.float64), (edge_index[0], edge_index[1])),
                            shape=(n, n))
        deg = np.asarray(adj.sum(1)).ravel()
        inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg != 0)
        walk = sp.diags(inv) @ adj
        power = np.eye(n)
        start = graphs.node_ptr[g]
        for k in range(walk_length):
            power = walk @ power
            out[start:start + n, k] = np.diagonal(power)
    return out


class RandomWalkFeatures(TransformerMixin, BaseEstimator):
    r"""Random-walk positional encodings as node features.

    Dwivedi et al., "Graph Neural Networks with Learnable Structural and
    Positional Representations", ICLR 2022: node :math:`i` gets the
    probabilities that a random walk from it is back after
    :math:`1, \dots, K` steps,

    .. math::
        p_i = \left[(P)_{ii}, (P^2)_{ii}, \dots, (P^K)_{ii}\right],
        \qquad P = D^{-1} A

    (:func:`torch_geometric.transforms.AddRandomWalkPE` computes the same).
    Where the degree is the only node feature (social graphs), it tells the
    structure learner, which compares nodes by their features, how each node
    sits in its graph: triangles, cycles, bipartite parts. Stateless: ``fit``
    records the input width only.

    Parameters
    ----------
    walk_length : int, default=8
        :math:`K`, the number of features added.
    append : bool, default=True
        Append to the existing features instead of replacing them.
    node_attr : str, default="x"
        Feature attribute of networkx nodes.

    Attributes
    ----------
    n_features_in_ : int
        Node feature width seen in ``fit``.
    """

    def __init__(self, walk_length: int = 8, append: bool = True, node_attr: str = "x") -> None:
        self.walk_length = walk_length
        self.append = append
        self.node_attr = node_attr

    def fit(self, X, y=None):
        if not isinstance(self.walk_length, numbers.Integral) or self.walk_length < 1:
            raise ValueError(f"walk_length must be an int >= 1, got {self.walk_length!r}.")
        self.n_features_in_ = to_graph_set(X, node_attr=self.node_attr).n_features
        return self

    def transform(self, X):
        """The graphs ``X``, same kinds, with their random-walk features."""
        check_is_fitted(self, "n_features_in_")
        return _add_node_features(
            self, X, lambda graphs: random_walk_returns(graphs, self.walk_length)
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        return tags
