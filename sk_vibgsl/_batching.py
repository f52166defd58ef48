"""Size-bucketed, padded dense batches with node masks.

A batch of ``B`` graphs with at most ``N`` nodes is a dict

* ``x``    : ``B × N × F`` node features, zero on padded nodes;
* ``mask`` : ``B × N`` booleans, True on real nodes;
* the observed adjacency (only when the model uses the observed
  structure), in whichever of two forms takes fewer bytes:

  - ``adj_index``, ``adj_weight`` : ``B × E`` edge list: edge ``(i, j)`` of
    graph ``b`` as the position ``i · N + j`` in row ``b`` (int32 when
    ``N² < 2³¹``) and its weight, rows padded to the batch's largest edge
    count ``E`` with weight 0 at position 0 — sparse graphs;
  - ``adj`` : the dense ``B × N × N`` weighted adjacency — graphs dense
    enough that ``N²`` floats are fewer bytes than ``E`` (index, weight) pairs.
* with ``sparse_features=True`` and features that are mostly zeros
  (:func:`~sk_vibgsl.nn._feature_product.has_sparse_features`, e.g. one-hot
  degrees), also ``feature_index``, ``feature_value``: ``B × E`` the nonzero
  features of each graph, feature ``j`` of node ``i`` at position
  ``i · F + j``, rows padded with value 0 at position 0. The first products
  of the model read these instead of ``x``
  (:func:`~sk_vibgsl.nn._feature_product.batch_feature_matrix`), and ``x``
  is those values written into zeros: they are listed once per dataset, so
  no batch gathers or scans its ``B × N × F`` features.

:func:`densify_adjacency` turns an edge list into the dense ``adj`` where
the tensors are: the classifier calls it after moving the batch to its
device, so a GPU receives REDDIT-BINARY's edge list (35 MB per epoch)
instead of its dense adjacency (5 GB), and the host does not fill it.

The dense cost of a batch is ``B · N²``. Graphs of similar size are batched
together so that ``N`` stays close to every member's size: the total cost
then grows with ``Σ nᵢ²`` rather than ``batch_size · max(n)²``.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler, Subset

from ._inputs import GraphSet
from .nn._feature_product import has_sparse_features

__all__ = [
    "GraphDataset",
    "GraphLoader",
    "auto_max_pairs",
    "densify_adjacency",
    "observed_edge_count",
    "size_bucketed_batches",
]


class GraphDataset(Dataset):
    """Graphs (and optionally encoded labels) ready to be batched.

    Parameters
    ----------
    graphs : GraphSet
        The converted graphs.
    y : ndarray of shape (n_graphs,), optional
        Integer-encoded labels.
    with_adjacency : bool, default=True
        Whether batches carry the observed adjacency ``adj``.
    sparse_features : bool, default=False
        Whether batches list the nonzero node features (``feature_index``,
        ``feature_value``) when the features are mostly zeros
        (:func:`~sk_vibgsl.nn._feature_product.has_sparse_features`); the
        listing is made once, here. ``x`` is in every batch regardless.
    """

    def __init__(
        self, graphs: GraphSet, y: np.ndarray | None = None, with_adjacency: bool = True,
        sparse_features: bool = False,
    ) -> None:
        self.graphs = graphs
        self.y = None if y is None else torch.as_tensor(np.asarray(y), dtype=torch.long)
        self.with_adjacency = with_adjacency
        self.sizes = graphs.sizes
        self._x = torch.from_numpy(graphs.x)
        self._edge_index = torch.from_numpy(graphs.edge_index)
        self._edge_weight = torch.from_numpy(graphs.edge_weight)
        self._features = None  # (ptr, position, value): see _list_features
        if sparse_features and has_sparse_features(graphs.x):
            self._features = _list_features(graphs)

    @property
    def lists_features(self) -> bool:
        """Whether batches carry ``feature_index`` and ``feature_value``."""
        return self._features is not None

    def __len__(self) -> int:
        return len(self.graphs)

    def __getitem__(self, i: int):
        return self.__getitems__([i])

    def __getitems__(self, ids) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        """Build the padded batch of graphs ``ids`` in one vectorised step."""
        ids = np.asarray(ids, dtype=np.int64)
        g = self.graphs
        sizes = self.sizes[ids]
        b, n = len(ids), int(sizes.max())
        listing = None if self._features is None else self._listed_features(ids, n)
        if listing is None:
            rows, pos = _gather_ranges(g.node_ptr[ids], sizes)
            rows = torch.from_numpy(rows)
            # flat position (graph, node) -> graph * n + node, for index_copy_
            slots = torch.from_numpy(np.repeat(np.arange(b) * n, sizes) + pos)
            x = self._x.new_zeros((b, n, g.n_features))
            x.view(b * n, -1).index_copy_(0, slots, self._x.index_select(0, rows))
        else:  # the listed nonzeros written into zeros: no pass over the dense rows
            listed, flat, values = listing
            x = np.zeros(b * n * g.n_features, dtype=g.x.dtype)
            x[flat] = values
            x = torch.from_numpy(x).view(b, n, g.n_features)
        mask = torch.arange(n).unsqueeze(0) < torch.from_numpy(sizes).unsqueeze(1)
        batch = {"x": x, "mask": mask}
        if listing is not None:
            batch.update(listed)
        if self.with_adjacency:
            n_edges = g.edge_ptr[ids + 1] - g.edge_ptr[ids]
            cols, e_pos = _gather_ranges(g.edge_ptr[ids], n_edges)
            cols = torch.from_numpy(cols)
            width = int(n_edges.max(initial=0))
            ei = self._edge_index[:, cols]
            index_dtype = np.int32 if n * n <= np.iinfo(np.int32).max else np.int64
            list_bytes = b * width * (index_dtype().itemsize + self._edge_weight.element_size())
            if list_bytes < b * n * n * x.element_size():
                # row-padded (B, E): every value of a batch has B rows, as
                # skorch expects of a batch
                batch["adj_index"], batch["adj_weight"] = _row_padded(
                    n_edges, e_pos, width, (ei[0] * n + ei[1]).numpy().astype(index_dtype),
                    self._edge_weight[cols].numpy(),
                )
            else:
                graph_of_edge = torch.from_numpy(np.repeat(np.arange(b) * (n * n), n_edges))
                adj = x.new_zeros((b, n, n))
                adj.view(-1)[graph_of_edge + ei[0] * n + ei[1]] = self._edge_weight[cols]
                batch["adj"] = adj
        y = self.y[ids] if self.y is not None else torch.zeros(b, dtype=torch.long)
        return batch, y

    def _listed_features(
        self, ids: np.ndarray, n: int
    ) -> tuple[dict[str, torch.Tensor], np.ndarray, np.ndarray]:
        """``feature_index``/``feature_value`` (``B × E``) of graphs ``ids``
        padded to ``n`` nodes (see the module docstring), and each nonzero's
        flat position in the batch's ``B × N × F`` features with its value."""
        ptr, position, value = self._features
        b, d = len(ids), self.graphs.n_features
        counts = ptr[ids + 1] - ptr[ids]
        width = max(int(counts.max(initial=0)), 1)
        entries, within = _gather_ranges(ptr[ids], counts)
        index_dtype = np.int32 if n * d <= np.iinfo(np.int32).max else np.int64
        in_graph, nonzero = position[entries], value[entries]
        index, values = _row_padded(counts, within, width, in_graph.astype(index_dtype), nonzero)
        flat = np.repeat(np.arange(b, dtype=np.int64) * (n * d), counts) + in_graph
        return {"feature_index": index, "feature_value": values}, flat, nonzero


def _list_features(graphs: GraphSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nonzero node features of every graph, listed once: ``(ptr,
    position, value)``, graph ``g``'s entries at ``ptr[g]:ptr[g + 1]``, in
    order of node then feature, feature ``j`` of its node ``i`` at position
    ``i · F + j``."""
    x = graphs.x
    node, col = np.nonzero(x)  # row-major: by node, then column
    graph_of_node = np.repeat(np.arange(len(graphs.sizes)), graphs.sizes)
    node_in_graph = np.arange(len(x)) - graphs.node_ptr[graph_of_node]
    ptr = np.zeros(len(graphs.sizes) + 1, dtype=np.int64)
    np.cumsum(np.bincount(graph_of_node[node], minlength=len(graphs.sizes)), out=ptr[1:])
    position = node_in_graph[node].astype(np.int64) * x.shape[1] + col
    return ptr, position, x[node, col]


def _gather_ranges(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The indices ``starts[k] + 0 … starts[k] + counts[k] - 1`` of consecutive
    ranges, and each index's position within its range."""
    offsets = np.cumsum(counts) - counts
    within = np.arange(int(counts.sum())) - np.repeat(offsets, counts)
    return np.repeat(starts, counts) + within, within


def _row_padded(
    counts: np.ndarray, within: np.ndarray, width: int, *columns: np.ndarray
) -> tuple[torch.Tensor, ...]:
    """Each of ``columns`` (the concatenated entries of ``len(counts)``
    graphs, entry ``k`` of graph ``g`` at position ``within``) as a
    ``B × width`` tensor, rows padded with zeros: every value of a batch has
    ``B`` rows, as skorch expects of a batch."""
    slots = np.repeat(np.arange(len(counts)) * width, counts) + within
    out = []
    for column in columns:
        padded = np.zeros(len(counts) * width, dtype=column.dtype)
        padded[slots] = column
        out.append(torch.from_numpy(padded).view(len(counts), width))
    return tuple(out)


def densify_adjacency(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Return ``batch`` with its edge list replaced by the dense adjacency.

    ``adj[b, i, j]`` is the weight of edge ``(i, j)`` of graph ``b``, zero
    elsewhere (padding included). The array is allocated on the device of
    ``adj_weight``; entries are summed in (``scatter_add_``), which is exact
    here since each real position occurs once and padding adds 0. A batch
    without an edge list (no observed graph, or already dense) is returned
    unchanged.

    Parameters
    ----------
    batch : dict of Tensor
        A batch of :class:`GraphDataset`, on any device.

    Returns
    -------
    dict of Tensor
        A new dict with ``adj`` of shape ``(B, N, N)`` instead of
        ``adj_index`` and ``adj_weight``.
    """
    if "adj_index" not in batch:
        return batch
    out = dict(batch)
    index, weight = out.pop("adj_index"), out.pop("adj_weight")
    b, n = out["mask"].shape
    adj = weight.new_zeros((b, n * n)).scatter_add_(1, index.long(), weight)
    out["adj"] = adj.view(b, n, n)
    return out


def observed_edge_count(batch: dict[str, torch.Tensor]) -> int | None:
    """Number of observed (directed) edges of a batch with non-zero weight,
    from its edge list or dense ``adj``; ``None`` without observed edges."""
    if "adj_weight" in batch:
        return int(torch.count_nonzero(batch["adj_weight"]))
    if "adj" in batch:
        return int(torch.count_nonzero(batch["adj"]))
    return None


def size_bucketed_batches(
    sizes: np.ndarray,
    batch_size: int,
    *,
    max_pairs: int | None = None,
    rng: np.random.Generator | None = None,
    size_jitter: float = 0.1,
    by_size: bool = True,
) -> list[np.ndarray]:
    """Group graph positions into batches of similar size.

    Parameters
    ----------
    sizes : ndarray of shape (n_graphs,)
        Number of nodes of each graph.
    batch_size : int
        Largest number of graphs in a batch.
    max_pairs : int, optional
        Largest padded pair count ``B · N²`` of a batch. A graph larger than
        the budget on its own still forms a batch of one.
    rng : numpy Generator, optional
        With a generator (training), graphs are sorted by their size times a
        random factor in ``exp(±size_jitter)``, so batches differ between
        epochs, and the batch order is shuffled. Without one (inference),
        positions are taken in the given order: sort the data by size first
        for small padding.
    size_jitter : float, default=0.1
        Relative size noise when shuffling.
    by_size : bool, default=True
        With ``False`` and a generator, graphs are taken in a uniformly random
        order instead, so every batch mixes small and large graphs (as batch
        normalisation needs: its statistics then do not depend on which size
        bucket a batch holds), at the price of more padding. ``max_pairs``
        still bounds every batch.

    Returns
    -------
    list of ndarray
        Positions (into ``sizes``) of each batch.
    """
    n = len(sizes)
    if rng is None:
        order = np.arange(n)
    elif not by_size:
        order = rng.permutation(n)
    else:
        key = sizes * np.exp(rng.uniform(-size_jitter, size_jitter, n))
        order = np.argsort(key, kind="stable")
    batches, start = [], 0
    while start < n:
        stop = min(start + batch_size, n)
        if max_pairs is not None:
            # largest prefix whose padded cost (count × running max²) fits
            running_max = np.maximum.accumulate(sizes[order[start:stop]]).astype(np.int64)
            cost = np.arange(1, stop - start + 1) * running_max**2
            stop = start + max(1, int(np.searchsorted(cost, max_pairs, side="right")))
        batches.append(order[start:stop])
        start = stop
    if rng is not None:
        batches = [batches[k] for k in rng.permutation(len(batches))]
    return batches


def auto_max_pairs(sizes: np.ndarray, batch_size: int) -> int:
    """Default pair budget: ``batch_size · (2 · mean size)²``."""
    return int(batch_size * (2 * float(np.mean(sizes))) ** 2) + 1


def _base_and_positions(dataset: Dataset) -> tuple[GraphDataset, np.ndarray]:
    """Resolve (possibly nested) ``Subset`` views down to the GraphDataset."""
    positions = None
    while isinstance(dataset, Subset):
        idx = np.asarray(dataset.indices, dtype=np.int64)
        positions = idx if positions is None else idx[positions]
        dataset = dataset.dataset
    if not isinstance(dataset, GraphDataset):
        raise TypeError(
            f"GraphLoader needs a GraphDataset (or a Subset of one), got "
            f"{type(dataset).__name__}."
        )
    if positions is None:
        positions = np.arange(len(dataset))
    return dataset, positions


class _BucketSampler(Sampler):
    def __init__(self, positions, sizes, batch_size, max_pairs, seed, shuffle, by_size=True):
        self.positions = positions
        self.sizes = sizes
        self.batch_size = batch_size
        self.max_pairs = max_pairs
        self.by_size = by_size
        self.rng = np.random.default_rng(seed) if shuffle else None

    def _batches(self, rng):
        return size_bucketed_batches(
            self.sizes, self.batch_size, max_pairs=self.max_pairs, rng=rng, by_size=self.by_size
        )

    def __iter__(self):
        for batch in self._batches(self.rng):
            yield self.positions[batch].tolist()

    def __len__(self) -> int:
        # With shuffling, the number of batches depends on the jittered size
        # order: count the next epoch's batches on a copy of the generator.
        rng = None if self.rng is None else copy.deepcopy(self.rng)
        return len(self._batches(rng))


class GraphLoader(DataLoader):
    """DataLoader over a :class:`GraphDataset` with size-bucketed batches.

    Parameters
    ----------
    dataset : GraphDataset or Subset of one
        The graphs.
    batch_size : int, default=32
        Largest number of graphs per batch.
    shuffle : bool, default=False
        Random, size-bucketed batches in random order (training). Without
        shuffling, graphs are batched in dataset order.
    max_pairs : int, "auto" or None, default="auto"
        Largest padded node-pair count ``B · N²`` per batch, which bounds
        the memory of one step independently of the batch size. ``"auto"``
        is ``batch_size · (2 n̄)²`` with ``n̄`` the mean graph size: batches
        of typical graphs stay whole, batches of the few large ones shrink,
        which removes most padding from size-skewed datasets.
    seed : int, optional
        Seed of the shuffling.
    bucket_by_size : bool, default=True
        With shuffling, batch graphs of similar size (little padding). With
        ``False``, batches are uniformly random subsets, each mixing small and
        large graphs: more padding, but batch statistics (batch normalisation,
        ``module__batch_norm=True``) that do not depend on graph size. Set it
        on the classifier as ``iterator_train__bucket_by_size=False``.
    **kwargs
        Passed to :class:`torch.utils.data.DataLoader` (``num_workers``,
        ``pin_memory``, ...).
    """

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int = 32,
        shuffle: bool = False,
        max_pairs: int | str | None = "auto",
        seed: int | None = None,
        bucket_by_size: bool = True,
        **kwargs,
    ) -> None:
        base, positions = _base_and_positions(dataset)
        if max_pairs == "auto":
            max_pairs = auto_max_pairs(base.sizes[positions], batch_size)
        sampler = _BucketSampler(
            positions, base.sizes[positions], batch_size, max_pairs, seed, shuffle,
            bucket_by_size,
        )
        super().__init__(base, batch_sampler=sampler, collate_fn=_identity, **kwargs)


def _identity(batch):
    return batch
