"""Random structure noise: remove and add edges, as in the paper's Fig. 4.

:func:`perturb_edges` works on every input kind that
:class:`~sk_vibgsl.VIBGSLClassifier` accepts and returns the same kinds;
:class:`EdgePerturber` wraps it as a transformer for a ``Pipeline``.
"""

from __future__ import annotations

import copy
import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state

from ._inputs import _as_sample_sequence, is_tabular, to_graph_set

__all__ = ["EdgePerturber", "perturb_edges"]

# Graphs with at most this many node pairs draw new edges from the explicit
# list of non-edges; larger ones use rejection sampling (same distribution).
_EXPLICIT_PAIRS = 1_000_000


def _check_fraction(name: str, value: Any, upper: float | None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (upper is not None and value > upper):
        where = "in [0, 1]" if upper is not None else ">= 0"
        raise ValueError(f"{name} must be {where}, got {value}.")
    return value


def _n_changed(fraction: float, n_edges: int) -> int:
    """``fraction * n_edges`` rounded to the nearest integer, halves up."""
    return int(np.floor(fraction * n_edges + 0.5))


def _sample_non_edges(
    n: int, existing: np.ndarray, k: int, rng: np.random.RandomState
) -> np.ndarray:
    """``k`` distinct node pairs ``u < v`` (as ids ``u * n + v``) not in ``existing``."""
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    if n * (n - 1) // 2 <= _EXPLICIT_PAIRS:
        u, v = np.triu_indices(n, 1)
        candidates = np.setdiff1d(u.astype(np.int64) * n + v, existing, assume_unique=True)
        return np.sort(rng.choice(candidates, size=k, replace=False))
    taken = set(existing.tolist())
    chosen: list[int] = []
    while len(chosen) < k:
        u = rng.randint(0, n, size=2 * (k - len(chosen)))
        v = rng.randint(0, n, size=len(u))
        for a, b in zip(np.minimum(u, v).tolist(), np.maximum(u, v).tolist()):
            pair = a * n + b
            if a != b and pair not in taken:
                taken.add(pair)
                chosen.append(pair)
                if len(chosen) == k:
                    break
    return np.sort(np.asarray(chosen, dtype=np.int64))


def _perturb_one(
    n: int,
    edge_index: np.ndarray,
    edge_weight: np.ndarray,
    add: float,
    remove: float,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """New undirected edges of one graph.

    Returns ``(src, dst, weight, self_loops)``: each undirected edge once
    (``src < dst``), then the indices of nodes with a self-loop and their weights
    packed as ``self_loops = (node, weight)`` rows.
    """
    src, dst = edge_index
    upper = src < dst
    loops = src == dst
    pairs = src[upper] * n + dst[upper]
    weights = edge_weight[upper]
    m = len(pairs)
    n_remove = _n_changed(remove, m)
    n_add = min(_n_changed(add, m), n * (n - 1) // 2 - m)
    keep = np.sort(rng.choice(m, size=m - n_remove, replace=False)) if m else np.zeros(0, int)
    new = _sample_non_edges(n, pairs, n_add, rng)
    all_pairs = np.concatenate([pairs[keep], new])
    all_weights = np.concatenate([weights[keep], np.ones(len(new), np.float32)])
    loop_rows = np.stack([src[loops].astype(np.float64), edge_weight[loops]], axis=1)
    return all_pairs // n, all_pairs % n, all_weights.astype(np.float32), loop_rows


def _with_edges(sample: Any, n: int, src, dst, weight, loops: np.ndarray) -> Any:
    """Return ``sample`` of the same kind with the undirected edges ``src < dst``."""
    loop_nodes = loops[:, 0].astype(np.int64)
    loop_weights = loops[:, 1].astype(np.float32)
    module = type(sample).__module__ or ""
    if module.startswith("torch_geometric"):
        both_src = np.concatenate([src, dst, loop_nodes])
        both_dst = np.concatenate([dst, src, loop_nodes])
        both_w = np.concatenate([weight, weight, loop_weights])
        order = np.lexsort((both_dst, both_src))
        out = copy.copy(sample)  # shares x; the edge attributes are replaced
        out.edge_index = torch.as_tensor(np.stack([both_src, both_dst])[:, order])
        if getattr(sample, "edge_weight", None) is not None:
            out.edge_weight = torch.as_tensor(both_w[order])
        if getattr(sample, "edge_attr", None) is not None:
            out.edge_attr = None  # new edges have no attributes
        return out
    if module.startswith("networkx"):
        out = sample.copy()
        nodes = list(sample.nodes)
        out.remove_edges_from(list(out.edges))
        weighted = any("weight" in d for _, _, d in sample.edges(data=True))
        for a, b, w in zip(src.tolist(), dst.tolist(), weight.tolist()):
            attrs = {"weight": w} if weighted else {}
            out.add_edge(nodes[a], nodes[b], **attrs)
            if out.is_directed():
                out.add_edge(nodes[b], nodes[a], **attrs)
        for a, w in zip(loop_nodes.tolist(), loop_weights.tolist()):
            out.add_edge(nodes[a], nodes[a], **({"weight": w} if weighted else {}))
        return out
    if isinstance(sample, tuple):
        feats, adj = sample
        rows = np.concatenate([src, dst, loop_nodes])
        cols = np.concatenate([dst, src, loop_nodes])
        vals = np.concatenate([weight, weight, loop_weights])
        if sp.issparse(adj):
            new = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).asformat(adj.format)
            return (feats, new.astype(adj.dtype))
        dense = np.zeros((n, n), dtype=np.asarray(adj).dtype)
        dense[rows, cols] = vals
        return (feats, dense)
    return sample  # a bare feature matrix: no edges


def perturb_edges(
    graphs: Any,
    add: float = 0.0,
    remove: float = 0.0,
    random_state: Any = None,
    node_attr: str = "x",
) -> Any:
    r"""Randomly remove existing edges and add new ones, graph by graph.

    For a graph with :math:`m` undirected edges (self-loops are neither
    counted nor changed) and :math:`n` nodes, ``round(remove * m)`` edges
    chosen uniformly are removed and ``round(add * m)`` node pairs chosen
    uniformly among the pairs that are *not* edges of the input graph are
    added, so the result has

    .. math::
        m' = m - \operatorname{round}(r\,m) + \min\!\left(\operatorname{round}(a\,m),\;
        \tbinom{n}{2} - m\right)

    edges, where round takes the nearest integer with halves rounded up (the
    cap applies only to graphs that are nearly complete). Both counts are
    relative to the *input* edge count; removed edges are never re-added.
    This is the structure noise of the paper's Fig. 4 (Sun et al., 2022).

    Parameters
    ----------
    graphs : sequence of graphs or ndarray of shape (n_samples, n_nodes, n_features)
        Any input kind of :class:`~sk_vibgsl.VIBGSLClassifier`. Not modified.
    add : float, default=0.0
        Fraction of new edges, ``>= 0`` (may exceed 1).
    remove : float, default=0.0
        Fraction of existing edges to remove, in ``[0, 1]``.
    random_state : int, RandomState instance or None, default=None
        Seed of the choices; an int gives the same result on every call.
    node_attr : str, default="x"
        Feature attribute of networkx nodes.

    Returns
    -------
    list of graphs, or the input array
        The same kinds as the input, with the same node features (for networkx
        and ``Data`` copies, for tuples the same feature object). A ``Data``
        is returned with both directions of every edge, sorted; its
        ``edge_weight`` is kept when it had one, its ``edge_attr`` is dropped
        (new edges have none). An adjacency keeps its type (dense, or the
        same :mod:`scipy.sparse` format). Kept edges keep their weight,
        new edges get weight 1. Bare feature matrices, 3-D arrays and
        tables ``(n_samples, n_features)`` have no edges: they come back
        unchanged (the same objects), whatever ``add`` and ``remove``.

    Raises
    ------
    ValueError
        If ``remove`` is outside ``[0, 1]`` or ``add`` is negative, or a
        sample is invalid (the error names it, ``X[i]``).

    Examples
    --------
    >>> import numpy as np
    >>> from sk_vibgsl import perturb_edges
    >>> ring = (np.ones((6, 1)), np.roll(np.eye(6), 1, axis=1) + np.roll(np.eye(6), -1, axis=1))
    >>> [(_, adj)] = perturb_edges([ring], add=0.5, remove=0.5, random_state=0)
    >>> int(adj.sum() // 2)  # 6 - 3 + 3
    6
    """
    add = _check_fraction("add", add, None)
    remove = _check_fraction("remove", remove, 1.0)
    if is_tabular(graphs):
        return graphs
    if isinstance(graphs, (np.ndarray, torch.Tensor)) and graphs.dtype != object:
        _as_sample_sequence(graphs)  # the same shape checks as everywhere
        return graphs
    samples = _as_sample_sequence(graphs)
    graph_set = to_graph_set(samples, node_attr=node_attr)
    rng = check_random_state(random_state)
    out = []
    for i, sample in enumerate(samples):
        x, edge_index, edge_weight = graph_set.graph(i)
        src, dst, weight, loops = _perturb_one(len(x), edge_index, edge_weight, add, remove, rng)
        out.append(_with_edges(sample, len(x), src, dst, weight, loops))
    return out


class EdgePerturber(TransformerMixin, BaseEstimator):
    """Pipeline step that applies :func:`perturb_edges` in ``transform``.

    Stateless: ``fit`` learns nothing. With an int ``random_state`` the same
    input gets the same noise on every call; note that in a ``Pipeline`` the
    noise is applied to the graphs given to ``predict`` and ``score`` too.

    Parameters
    ----------
    add : float, default=0.0
        Fraction of new edges, ``>= 0``.
    remove : float, default=0.0
        Fraction of existing edges to remove, in ``[0, 1]``.
    random_state : int, RandomState instance or None, default=None
        Seed of the choices.
    node_attr : str, default="x"
        Feature attribute of networkx nodes.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
    >>> from sk_vibgsl.perturbation import EdgePerturber
    >>> model = make_pipeline(EdgePerturber(remove=0.25, random_state=0),
    ...                       DegreeFeatures(), VIBGSLClassifier())
    """

    def __init__(
        self,
        add: float = 0.0,
        remove: float = 0.0,
        random_state: Any = None,
        node_attr: str = "x",
    ) -> None:
        self.add = add
        self.remove = remove
        self.random_state = random_state
        self.node_attr = node_attr

    def fit(self, X, y=None):
        """Check ``add`` and ``remove``; nothing is learned. Returns ``self``."""
        _check_fraction("add", self.add, None)
        _check_fraction("remove", self.remove, 1.0)
        return self

    def transform(self, X):
        """:func:`perturb_edges` of ``X`` with this step's parameters."""
        return perturb_edges(
            X,
            add=self.add,
            remove=self.remove,
            random_state=self.random_state,
            node_attr=self.node_attr,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.requires_fit = False
        return tags
