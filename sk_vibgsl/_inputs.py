"""Every accepted input kind, converted to one internal graph form.

A *sample* is one graph. ``X`` is a sequence of samples, each one of

* a :class:`torch_geometric.data.Data` with ``x``, ``edge_index`` and an
  optional ``edge_weight``;
* a :class:`networkx.Graph` whose nodes carry a feature vector under the
  attribute ``node_attr`` (networkx is imported only when such a sample
  arrives);
* a tuple ``(features, adjacency)``: ``features`` of shape
  ``(n_nodes, n_features)`` and ``adjacency`` a dense array or a
  :mod:`scipy.sparse` matrix of shape ``(n_nodes, n_nodes)``, possibly
  weighted;
* a bare feature matrix ``(n_nodes, n_features)`` with no edges at all.

A 3-D array ``(n_samples, n_nodes, n_features)`` is read as that many bare
feature matrices. Every sample is converted once into a :class:`GraphSet`:
all node features stacked in one array and all edges in one coalesced,
symmetric edge list. Every problem with the input is reported here, as a
``ValueError`` or ``TypeError`` that names the sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch

__all__ = ["GraphSet", "to_graph_set"]


@dataclass(frozen=True)
class GraphSet:
    """A list of graphs stored as flat arrays.

    Attributes
    ----------
    x : ndarray of shape (total_nodes, n_features), float32
        Node features of all graphs, graph after graph.
    node_ptr : ndarray of shape (n_graphs + 1,), int64
        Graph ``i`` owns rows ``node_ptr[i]:node_ptr[i + 1]`` of ``x``.
    edge_index : ndarray of shape (2, total_edges), int64
        Edges as local (per graph) node ids, both directions of every
        undirected edge, without duplicates, sorted by graph.
    edge_weight : ndarray of shape (total_edges,), float32
        Positive edge weights.
    edge_ptr : ndarray of shape (n_graphs + 1,), int64
        Graph ``i`` owns columns ``edge_ptr[i]:edge_ptr[i + 1]`` of
        ``edge_index``.
    """

    x: np.ndarray
    node_ptr: np.ndarray
    edge_index: np.ndarray
    edge_weight: np.ndarray
    edge_ptr: np.ndarray

    def __len__(self) -> int:
        return len(self.node_ptr) - 1

    @property
    def n_features(self) -> int:
        return int(self.x.shape[1])

    @property
    def sizes(self) -> np.ndarray:
        """Number of nodes of each graph."""
        return np.diff(self.node_ptr)

    def graph(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(x, edge_index, edge_weight)`` of graph ``i``."""
        nodes = slice(self.node_ptr[i], self.node_ptr[i + 1])
        edges = slice(self.edge_ptr[i], self.edge_ptr[i + 1])
        return self.x[nodes], self.edge_index[:, edges], self.edge_weight[edges]

    def dense_adjacency(self, i: int) -> np.ndarray:
        """Return the observed weighted adjacency of graph ``i``."""
        x, edge_index, edge_weight = self.graph(i)
        adj = np.zeros((len(x), len(x)), dtype=np.float32)
        adj[edge_index[0], edge_index[1]] = edge_weight
        return adj


def _to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _features(i: int, value: Any) -> np.ndarray:
    try:
        feats = _to_numpy(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"X[{i}]: node features could not be read as an array: {exc}"
        ) from None
    if feats.dtype == object or not (
        np.issubdtype(feats.dtype, np.number) or feats.dtype == bool
    ):
        raise TypeError(
            f"X[{i}]: node features must be numeric, got dtype {feats.dtype}."
        )
    if feats.ndim != 2:
        raise ValueError(
            f"X[{i}]: node features must be 2-D (n_nodes, n_features), "
            f"got shape {feats.shape}."
        )
    if feats.shape[0] == 0:
        raise ValueError(f"X[{i}]: the graph has 0 nodes.")
    return feats.astype(np.float32, copy=False)


_NO_EDGES = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))


def _from_pyg(i: int, data: Any) -> tuple[np.ndarray, tuple]:
    if getattr(data, "x", None) is None:
        raise ValueError(f"X[{i}]: the Data object has no node features `x`.")
    feats = _features(i, data.x)
    edge_index = getattr(data, "edge_index", None)
    if edge_index is None:
        return feats, _NO_EDGES
    edge_index = _to_numpy(edge_index)
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(
            f"X[{i}]: edge_index must have shape (2, n_edges), got {edge_index.shape}."
        )
    if not np.issubdtype(edge_index.dtype, np.integer):
        raise TypeError(f"X[{i}]: edge_index must hold integers, got {edge_index.dtype}.")
    weight = getattr(data, "edge_weight", None)
    if weight is None:
        weight = np.ones(edge_index.shape[1], np.float32)
    else:
        weight = _to_numpy(weight).astype(np.float32, copy=False).reshape(-1)
        if len(weight) != edge_index.shape[1]:
            raise ValueError(
                f"X[{i}]: edge_weight has {len(weight)} entries for "
                f"{edge_index.shape[1]} edges."
            )
    return feats, (edge_index[0].astype(np.int64), edge_index[1].astype(np.int64), weight)


def _from_networkx(i: int, graph: Any, node_attr: str) -> tuple[np.ndarray, tuple]:
    nodes = list(graph.nodes)
    if not nodes:
        raise ValueError(f"X[{i}]: the graph has 0 nodes.")
    rows = []
    for node in nodes:
        attrs = graph.nodes[node]
        if node_attr not in attrs:
            raise ValueError(
                f"X[{i}]: node {node!r} has no feature attribute {node_attr!r} "
                "(set `node_attr` to the attribute that holds the features)."
            )
        rows.append(np.atleast_1d(_to_numpy(attrs[node_attr])))
    try:
        feats = np.stack(rows)
    except ValueError:
        raise ValueError(
            f"X[{i}]: nodes carry feature vectors of different lengths."
        ) from None
    feats = _features(i, feats)
    position = {node: k for k, node in enumerate(nodes)}
    edges = list(graph.edges(data="weight", default=1.0))
    if not edges:
        return feats, _NO_EDGES
    src = np.fromiter((position[u] for u, _, _ in edges), np.int64, len(edges))
    dst = np.fromiter((position[v] for _, v, _ in edges), np.int64, len(edges))
    weight = np.fromiter((w for _, _, w in edges), np.float32, len(edges))
    return feats, (src, dst, weight)


def _from_pair(i: int, pair: tuple) -> tuple[np.ndarray, tuple]:
    if len(pair) != 2:
        raise ValueError(
            f"X[{i}]: a tuple sample must be (features, adjacency), got {len(pair)} items."
        )
    feats = _features(i, pair[0])
    n = feats.shape[0]
    adj = pair[1]
    if sp.issparse(adj):
        if adj.shape != (n, n):
            raise ValueError(
                f"X[{i}]: adjacency has shape {adj.shape}, expected ({n}, {n}) "
                f"for {n} nodes."
            )
        coo = sp.coo_matrix(adj)
        src, dst, weight = coo.row, coo.col, coo.data
    else:
        adj = _to_numpy(adj)
        if adj.shape != (n, n):
            raise ValueError(
                f"X[{i}]: adjacency has shape {adj.shape}, expected ({n}, {n}) "
                f"for {n} nodes."
            )
        if not (np.issubdtype(adj.dtype, np.number) or adj.dtype == bool):
            raise TypeError(f"X[{i}]: adjacency must be numeric, got {adj.dtype}.")
        src, dst = np.nonzero(adj)
        weight = adj[src, dst]
    return feats, (
        src.astype(np.int64),
        dst.astype(np.int64),
        np.asarray(weight, dtype=np.float32),
    )


def _convert_sample(i: int, sample: Any, node_attr: str) -> tuple[np.ndarray, tuple]:
    module = type(sample).__module__ or ""
    if module.startswith("torch_geometric"):
        return _from_pyg(i, sample)
    if module.startswith("networkx"):
        return _from_networkx(i, sample, node_attr)
    if isinstance(sample, tuple):
        return _from_pair(i, sample)
    if isinstance(sample, (np.ndarray, torch.Tensor, list)):
        return _features(i, sample), _NO_EDGES
    raise TypeError(
        f"X[{i}] is of unsupported type {type(sample).__name__}: expected a "
        "torch_geometric Data, a networkx graph, a tuple (features, adjacency) "
        "or a 2-D feature matrix."
    )


def _as_sample_sequence(X: Any) -> Sequence:
    if isinstance(X, (np.ndarray, torch.Tensor)) and X.dtype != object:
        arr = _to_numpy(X)
        if arr.ndim == 3:
            return list(arr)
        raise ValueError(
            f"X is a {arr.ndim}-D array of shape {arr.shape}: pass a list of graphs "
            "or a 3-D array (n_samples, n_nodes, n_features) of feature matrices."
        )
    if isinstance(X, np.ndarray):
        if X.ndim != 1:
            raise ValueError(f"X is an object array of shape {X.shape}; expected 1-D.")
        return list(X)
    if isinstance(X, (list, tuple)):
        return X
    sequence_like = hasattr(X, "__len__") and hasattr(X, "__getitem__")
    if sequence_like and not isinstance(X, (str, bytes, dict)):
        return [X[i] for i in range(len(X))]
    raise TypeError(
        f"X must be a sequence of graphs (list, tuple, 1-D object array) or a 3-D "
        f"array, got {type(X).__name__}."
    )


def _first_bad(ptr: np.ndarray, bad_rows: np.ndarray) -> int:
    """Index of the graph that owns the first True entry of ``bad_rows``."""
    row = int(np.flatnonzero(bad_rows)[0])
    return int(np.searchsorted(ptr, row, side="right") - 1)


def to_graph_set(X: Any, *, node_attr: str = "x", n_features: int | None = None) -> GraphSet:
    """Convert a sequence of samples into a :class:`GraphSet`.

    Parameters
    ----------
    X : sequence of samples or ndarray of shape (n_samples, n_nodes, n_features)
        The graphs; see the module docstring for the accepted kinds.
    node_attr : str, default="x"
        Node attribute holding the features of networkx graphs.
    n_features : int, optional
        Node feature width the samples must have (the one seen in ``fit``).

    Returns
    -------
    GraphSet
        Features, edges (symmetrised, duplicates merged by their largest
        weight, zero-weight entries dropped) and per-graph offsets.

    Raises
    ------
    ValueError, TypeError
        With the index of the offending sample: empty ``X``, a graph with
        0 nodes, NaN or infinite features, differing feature widths,
        an adjacency that is not ``(n, n)``, an edge index out of range,
        negative or non-finite edge weights, or an unsupported sample type.
    """
    samples = _as_sample_sequence(X)
    if len(samples) == 0:
        raise ValueError("X is empty: at least one graph is needed.")
    feats_list, src_list, dst_list, w_list = [], [], [], []
    for i, sample in enumerate(samples):
        feats, (src, dst, weight) = _convert_sample(i, sample, node_attr)
        expected = feats_list[0].shape[1] if feats_list else n_features
        if expected is not None and feats.shape[1] != expected:
            where = "X[0]" if feats_list else "the data seen in fit"
            raise ValueError(
                f"X[{i}] has {feats.shape[1]} node features, but {where} "
                f"has {expected}."
            )
        low = min(src.min(), dst.min()) if len(src) else 0
        high = max(src.max(), dst.max()) if len(src) else 0
        if low < 0 or high >= len(feats):
            bad = int(low) if low < 0 else int(high)
            raise ValueError(
                f"X[{i}]: edge index refers to node {bad}, but the graph has "
                f"{len(feats)} nodes."
            )
        feats_list.append(feats)
        src_list.append(src)
        dst_list.append(dst)
        w_list.append(weight)

    sizes = np.fromiter((len(f) for f in feats_list), np.int64, len(feats_list))
    node_ptr = np.concatenate([[0], np.cumsum(sizes)])
    x = np.concatenate(feats_list).astype(np.float32, copy=False)
    bad_rows = ~np.isfinite(x).all(axis=1)
    if bad_rows.any():
        i = _first_bad(node_ptr, bad_rows)
        raise ValueError(f"X[{i}]: node features contain NaN or inf.")

    n_edges = np.fromiter((len(s) for s in src_list), np.int64, len(src_list))
    edge_ptr = np.concatenate([[0], np.cumsum(n_edges)])
    offset = np.repeat(node_ptr[:-1], n_edges)
    src = np.concatenate(src_list) + offset
    dst = np.concatenate(dst_list) + offset
    weight = np.concatenate(w_list).astype(np.float32, copy=False)
    bad_edges = ~np.isfinite(weight) | (weight < 0)
    if bad_edges.any():
        i = _first_bad(edge_ptr, bad_edges)
        w = weight[np.flatnonzero(bad_edges)[0]]
        problem = "negative" if w < 0 else "non-finite"
        raise ValueError(f"X[{i}]: {problem} edge weight {w}; weights must be >= 0.")
    src, dst, weight = _coalesce_symmetric(src, dst, weight, int(node_ptr[-1]))
    graph_of_edge = np.searchsorted(node_ptr, src, side="right") - 1
    edge_ptr = np.searchsorted(graph_of_edge, np.arange(len(sizes) + 1))
    local = node_ptr[graph_of_edge]
    edge_index = np.stack([src - local, dst - local])
    return GraphSet(x, node_ptr, edge_index, weight, edge_ptr)


def _coalesce_symmetric(
    src: np.ndarray, dst: np.ndarray, weight: np.ndarray, n_nodes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetrise edges, keep the largest weight of duplicates, drop zeros.

    A directed edge ``u -> v`` becomes the undirected edge ``{u, v}``.
    The result is sorted by source then target node.
    """
    keep = weight > 0
    src, dst, weight = src[keep], dst[keep], weight[keep]
    src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    weight = np.concatenate([weight, weight])
    key = src * n_nodes + dst
    order = np.lexsort((-weight, key))
    key = key[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    order = order[first]
    return src[order], dst[order], weight[order]
