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
feature matrices.

*Tabular mode.* A table ``(n_samples, n_features)`` -- a 2-D numpy array or
torch tensor, a pandas DataFrame, a :mod:`scipy.sparse` matrix (densified:
every sample becomes ``n_features`` dense nodes anyway) or a list of 1-D
rows -- is read as one graph per row, see :func:`tabular_graph_set`. The
rule that tells a table from a list of graphs (:func:`is_tabular`): a list
whose first element is a 1-D row (a 1-D array, or a list/tuple of numbers)
is a table; a list whose first element is a 2-D matrix, a tuple
``(features, adjacency)``, a ``Data`` or a networkx graph is a list of
graphs.

Every sample is converted once into a :class:`GraphSet`:
all node features stacked in one array and all edges in one coalesced,
symmetric edge list. Every problem with the input is reported here, as a
``ValueError`` or ``TypeError`` that names the sample.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch

__all__ = ["GraphSet", "is_tabular", "tabular_graph_set", "to_graph_set"]


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
    return _as_float32(i, feats, "node features")


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _as_float32(i: int, values: np.ndarray, what: str) -> np.ndarray:
    """Cast numeric ``values`` to float32; complex or out-of-range values raise
    (NaN and inf pass through, for the callers to report)."""
    if np.iscomplexobj(values):
        raise TypeError(f"X[{i}]: {what} must be real numbers, got dtype {values.dtype}.")
    if values.dtype.kind == "f" and values.dtype.itemsize > 4:
        too_big = np.isfinite(values) & (np.abs(values) > _FLOAT32_MAX)
        if too_big.any():
            raise ValueError(
                f"X[{i}]: {what} hold {values[too_big][0]:.3g}, beyond the float32 range "
                f"(|value| <= {_FLOAT32_MAX:.3g}) the model computes in."
            )
    return values.astype(np.float32, copy=False)


def _weights(i: int, value: Any) -> np.ndarray:
    """Edge weights as a flat float32 array, with errors that name ``X[i]``."""
    try:
        weight = _to_numpy(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X[{i}]: edge weights could not be read as an array: {exc}") from None
    if not (np.issubdtype(weight.dtype, np.number) or weight.dtype == bool):
        raise TypeError(f"X[{i}]: edge weights must be numeric, got dtype {weight.dtype}.")
    return _as_float32(i, weight, "edge weights").reshape(-1)


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
        weight = _weights(i, weight)
        if len(weight) != edge_index.shape[1]:
            raise ValueError(
                f"X[{i}]: edge_weight has {len(weight)} entries for "
                f"{edge_index.shape[1]} edges."
            )
    return feats, (
        edge_index[0].astype(np.int64, copy=False),
        edge_index[1].astype(np.int64, copy=False),
        weight,
    )


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
    weight = _weights(i, [w for _, _, w in edges])
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
        src, dst, weight = coo.row, coo.col, _weights(i, coo.data)
    else:
        try:
            adj = _to_numpy(adj)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"X[{i}]: adjacency could not be read as an array: {exc}") from None
        if adj.shape != (n, n):
            raise ValueError(
                f"X[{i}]: adjacency has shape {adj.shape}, expected ({n}, {n}) "
                f"for {n} nodes."
            )
        if not (np.issubdtype(adj.dtype, np.number) or adj.dtype == bool):
            raise TypeError(f"X[{i}]: adjacency must be numeric, got {adj.dtype}.")
        src, dst = np.nonzero(adj)
        weight = _weights(i, adj[src, dst])
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


def _rank_error(ndim: int, shape: tuple) -> ValueError:
    hint = (
        " Reshape your data either using X.reshape(-1, 1) if your data has a "
        "single feature or X.reshape(1, -1) if it contains a single sample."
        if ndim == 1 else ""
    )
    return ValueError(
        f"X is a {ndim}-D array of shape {shape}: pass a 2-D table (n_samples, "
        "n_features), a list of graphs or a 3-D array (n_samples, n_nodes, "
        f"n_features) of feature matrices.{hint}"
    )


def _as_sample_sequence(X: Any) -> Sequence:
    if isinstance(X, (np.ndarray, torch.Tensor)) and X.dtype != object:
        arr = _to_numpy(X)
        if arr.ndim == 3:
            return list(arr)
        raise _rank_error(arr.ndim, arr.shape)
    if isinstance(X, np.ndarray):
        if X.ndim != 1:
            raise ValueError(f"X is an object array of shape {X.shape}; expected 1-D.")
        return list(X)
    if isinstance(X, (list, tuple)):
        if len(X) and _is_scalar(X[0]):
            raise _rank_error(1, (len(X),))
        return X
    if _is_dataframe(X) or (hasattr(X, "__array__") and not hasattr(X, "__getitem__")):
        arr = np.asarray(X)
        if arr.dtype != object:
            return _as_sample_sequence(arr)
    sequence_like = hasattr(X, "__len__") and hasattr(X, "__getitem__")
    if sequence_like and not isinstance(X, (str, bytes, dict)):
        return [X[i] for i in range(len(X))]
    raise TypeError(
        f"X must be a sequence of graphs (list, tuple, 1-D object array) or a 3-D "
        f"array, got {type(X).__name__}."
    )


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, np.void)


def _is_row(value: Any) -> bool:
    """A 1-D array, or a non-empty list/tuple of numbers: one row of a table."""
    if isinstance(value, (np.ndarray, torch.Tensor)):
        return value.ndim == 1
    if isinstance(value, (list, tuple)):
        return len(value) > 0 and all(_is_scalar(v) for v in value)
    return False


def _is_dataframe(X: Any) -> bool:
    return (type(X).__module__ or "").startswith("pandas") and getattr(X, "ndim", 0) == 2


def is_tabular(X: Any) -> bool:
    """Whether ``X`` is a table ``(n_samples, n_features)`` rather than graphs.

    A table is a 2-D numpy array (any dtype) or torch tensor, a pandas
    DataFrame, a :mod:`scipy.sparse` matrix or array, any other object with
    ``__array__`` and no item access that converts to 2-D, or a list/tuple
    whose first element is a 1-D row (a 1-D array, or a list/tuple of
    numbers). A list whose first element is a 2-D matrix, a tuple
    ``(features, adjacency)``, a ``Data`` or a networkx graph is a list of
    graphs; so is a 3-D array.
    """
    if sp.issparse(X) or _is_dataframe(X):
        return True
    if isinstance(X, (np.ndarray, torch.Tensor)):
        return X.ndim == 2
    if isinstance(X, (list, tuple)):
        return len(X) > 0 and _is_row(X[0])
    if hasattr(X, "__array__") and not hasattr(X, "__getitem__"):
        return np.asarray(X).ndim == 2
    return False


def _as_table(X: Any) -> np.ndarray:
    """A checked float32 table from any tabular ``X`` (errors name the row)."""
    if sp.issparse(X):
        X = X.toarray()
    elif _is_dataframe(X):
        X = X.to_numpy()
    elif isinstance(X, (list, tuple)):
        bad = next((i for i, row in enumerate(X) if not _is_row(row)), None)
        if bad is not None:
            raise ValueError(
                f"X[{bad}] is not a 1-D row of numbers, but X[0] is: a list of 1-D rows "
                "is a table (n_samples, n_features); a list of graphs starts with a graph."
            )
        lengths = {len(row) for row in X}
        if len(lengths) > 1:
            first = len(X[0])
            bad = next(i for i, row in enumerate(X) if len(row) != first)
            raise ValueError(f"X[{bad}] has {len(X[bad])} features, but X[0] has {first}.")
    try:
        table = np.asarray(_to_numpy(X) if isinstance(X, torch.Tensor) else X)
        if table.dtype == object:
            table = table.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X could not be read as a numeric table: {exc}") from None
    if not (np.issubdtype(table.dtype, np.number) or table.dtype == bool):
        raise TypeError(f"X must be numeric, got dtype {table.dtype}.")
    if np.iscomplexobj(table):
        raise ValueError("Complex data not supported: X is complex.")
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise ValueError(f"X is empty: a table of shape {table.shape}.")
    table = table.astype(np.float32)
    bad_rows = ~np.isfinite(table).all(axis=1)
    if bad_rows.any():
        raise ValueError(f"X[{int(np.flatnonzero(bad_rows)[0])}] contains NaN or inf.")
    return table


def tabular_graph_set(table: np.ndarray) -> GraphSet:
    r"""One graph per row of a table: the features are the nodes.

    Sample :math:`i` of a table :math:`X \in \mathbb{R}^{n \times d}` becomes
    a graph with :math:`d` nodes and no observed edges. Node :math:`j`
    carries its value in its own slot and the one-hot identity of its feature,

    .. math::
        h_{ij} = \left[\, X_{ij}\, e_j \;\Vert\; e_j \,\right] \in \mathbb{R}^{2d},

    so a linear layer on :math:`h_{ij}` gives feature :math:`j` its own value
    weight and its own bias, the structure learner can tell features apart
    when it relates them, and the feature mask :math:`M` has one entry per
    feature's value (first :math:`d`) and per feature's identity (last
    :math:`d`).

    Parameters
    ----------
    table : array-like of shape (n_samples, n_features)
        Finite numeric values.

    Returns
    -------
    GraphSet
        ``n_samples`` graphs of ``n_features`` nodes each, node width
        ``2 * n_features``, no edges.
    """
    table = np.asarray(table, dtype=np.float32)
    n, d = table.shape
    eye = np.eye(d, dtype=np.float32)
    x = np.empty((n, d, 2 * d), dtype=np.float32)
    x[:, :, :d] = table[:, :, None] * eye
    x[:, :, d:] = eye
    node_ptr = np.arange(n + 1, dtype=np.int64) * d
    return GraphSet(
        x.reshape(n * d, 2 * d),
        node_ptr,
        np.zeros((2, 0), dtype=np.int64),
        np.zeros(0, dtype=np.float32),
        np.zeros(n + 1, dtype=np.int64),
    )


def _node_count(sample: Any) -> int | None:
    """The node count of a sample, read without converting it (None if unknown)."""
    module = type(sample).__module__ or ""
    if module.startswith("networkx"):
        return sample.number_of_nodes()
    if module.startswith("torch_geometric"):
        sample = getattr(sample, "x", None)
    elif isinstance(sample, tuple) and sample:
        sample = sample[0]
    shape = getattr(sample, "shape", None)
    if shape is None and isinstance(sample, list):
        return len(sample)
    return int(shape[0]) if shape is not None and len(shape) >= 1 else None


def _check_size(
    i: int, n_nodes: int | None, max_nodes: int | None, size_note: Callable[[int], str] | None
) -> None:
    if max_nodes is not None and n_nodes is not None and n_nodes > max_nodes:
        note = (
            size_note(n_nodes) if size_note is not None
            else f"the model builds dense {n_nodes} x {n_nodes} matrices per graph"
        )
        raise ValueError(
            f"X[{i}] has {n_nodes} nodes, more than max_nodes={max_nodes}: {note}. Raise "
            "max_nodes (None = no limit) if the memory is there."
        )


def _first_bad(ptr: np.ndarray, bad_rows: np.ndarray) -> int:
    """Index of the graph that owns the first True entry of ``bad_rows``."""
    row = int(np.flatnonzero(bad_rows)[0])
    return int(np.searchsorted(ptr, row, side="right") - 1)


def to_graph_set(
    X: Any,
    *,
    node_attr: str = "x",
    n_features: int | None = None,
    max_nodes: int | None = None,
    size_note: Callable[[int], str] | None = None,
) -> GraphSet:
    """Convert a sequence of samples into a :class:`GraphSet`.

    Parameters
    ----------
    X : sequence of samples or ndarray of shape (n_samples, n_nodes, n_features)
        The graphs; see the module docstring for the accepted kinds.
    node_attr : str, default="x"
        Node attribute holding the features of networkx graphs.
    n_features : int, optional
        Node feature width the samples must have (the one seen in ``fit``).
    max_nodes : int, optional
        Largest accepted node count of a graph, checked on each sample
        before it is converted (so before any ``N × N`` array is built
        from it); ``None`` accepts any size.
    size_note : callable, optional
        ``size_note(n_nodes)`` explains the refusal of a graph over
        ``max_nodes`` (e.g. the estimated memory of a step on it).

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
        negative or non-finite edge weights, complex values or values
        beyond the float32 range, a graph with more than ``max_nodes``
        nodes, or an unsupported sample type.

    Notes
    -----
    A table ``(n_samples, n_features)`` (see :func:`is_tabular`) goes to
    :func:`tabular_graph_set`; ``n_features`` is then its column count.
    """
    if is_tabular(X):
        table = _as_table(X)
        if n_features is not None and table.shape[1] != n_features:
            raise ValueError(
                f"X has {table.shape[1]} features, but the data seen in fit has {n_features}."
            )
        _check_size(0, table.shape[1], max_nodes, size_note)
        return tabular_graph_set(table)
    samples = _as_sample_sequence(X)
    if len(samples) == 0:
        raise ValueError("X is empty: at least one graph is needed.")
    feats_list: list[np.ndarray] = []
    edges = _EdgeChunks()
    for i, sample in enumerate(samples):
        _check_size(i, _node_count(sample), max_nodes, size_note)
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
        edges.add(len(feats), src, dst, weight)

    sizes = np.fromiter((len(f) for f in feats_list), np.int64, len(feats_list))
    node_ptr = np.concatenate([[0], np.cumsum(sizes)])
    x = np.concatenate(feats_list).astype(np.float32, copy=False)
    del feats_list
    bad_rows = ~np.isfinite(x).all(axis=1)
    if bad_rows.any():
        i = _first_bad(node_ptr, bad_rows)
        raise ValueError(f"X[{i}]: node features contain NaN or inf.")
    edge_index, weight, edge_ptr = edges.finish()
    return GraphSet(x, node_ptr, edge_index, weight, edge_ptr)


_CHUNK_EDGES = 1 << 21  # raw edges coalesced per step: bounds the temporaries


class _EdgeChunks:
    """Coalesce the edges of consecutive graphs a chunk at a time.

    Graphs are independent, so the edges of a few graphs at a time (about
    ``_CHUNK_EDGES`` of them) are validated, symmetrised and deduplicated
    together; only the coalesced result of each chunk is kept. The
    temporaries of sorting stay bounded by the chunk, not by the dataset
    (in one step, COLLAB's 24.6 M edges peaked 3.4 GB above the start for a
    1.2 GB result; see ``benchmarks/memory_inputs.py``).
    """

    def __init__(self) -> None:
        self._n_graphs = 0  # graphs already coalesced
        self._pending: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
        self._pending_edges = 0
        self._index: list[np.ndarray] = []
        self._weight: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []

    def add(self, n_nodes: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray) -> None:
        self._pending.append((n_nodes, src, dst, weight))
        self._pending_edges += len(src)
        if self._pending_edges >= _CHUNK_EDGES:
            self._flush()

    def _flush(self) -> None:
        pending, first = self._pending, self._n_graphs
        if not pending:
            return
        self._pending, self._pending_edges = [], 0
        self._n_graphs += len(pending)
        sizes = np.fromiter((p[0] for p in pending), np.int64, len(pending))
        n_edges = np.fromiter((len(p[1]) for p in pending), np.int64, len(pending))
        node_ptr = np.concatenate([[0], np.cumsum(sizes)])
        offset = np.repeat(node_ptr[:-1], n_edges)
        src = np.concatenate([p[1] for p in pending]) + offset
        dst = np.concatenate([p[2] for p in pending]) + offset
        weight = np.concatenate([p[3] for p in pending]).astype(np.float32, copy=False)
        del pending, offset
        bad_edges = ~np.isfinite(weight) | (weight < 0)
        if bad_edges.any():
            edge_ptr = np.concatenate([[0], np.cumsum(n_edges)])
            i = first + _first_bad(edge_ptr, bad_edges)
            w = weight[np.flatnonzero(bad_edges)[0]]
            problem = "negative" if w < 0 else "non-finite"
            raise ValueError(f"X[{i}]: {problem} edge weight {w}; weights must be >= 0.")
        src, dst, weight = _coalesce_symmetric(src, dst, weight, int(node_ptr[-1]))
        graph_of_edge = np.searchsorted(node_ptr, src, side="right") - 1
        local = node_ptr[graph_of_edge]
        self._index.append(np.stack([src - local, dst - local]))
        self._weight.append(weight)
        self._counts.append(np.bincount(graph_of_edge, minlength=len(sizes)))

    def finish(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(edge_index, edge_weight, edge_ptr)`` of all graphs added."""
        self._flush()
        edge_index = np.concatenate(self._index, axis=1)
        self._index.clear()
        weight = np.concatenate(self._weight)
        counts = np.concatenate(self._counts)
        edge_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return edge_index, weight, edge_ptr


def _coalesce_symmetric(
    src: np.ndarray, dst: np.ndarray, weight: np.ndarray, n_nodes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetrise edges, keep the largest weight of duplicates, drop zeros.

    A directed edge ``u -> v`` becomes the undirected edge ``{u, v}``.
    The result is sorted by source then target node.
    """
    keep = weight > 0
    if not keep.all():
        src, dst, weight = src[keep], dst[keep], weight[keep]
    del keep
    key = np.concatenate([src * n_nodes + dst, dst * n_nodes + src])
    del src, dst
    order = np.argsort(key, kind="stable")
    key = key[order]
    weight = np.concatenate([weight, weight])[order]
    del order
    if not key.size:
        return key, key.copy(), weight
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    src, dst = np.divmod(key[starts], n_nodes)
    return src, dst, np.maximum.reduceat(weight, starts)
