"""Padded dense batches, size-bucketed batching and the GraphLoader over subsets."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.utils.data import Subset

from sk_vibgsl._batching import (
    GraphDataset,
    GraphLoader,
    densify_adjacency,
    size_bucketed_batches,
)
from sk_vibgsl._inputs import to_graph_set
from sk_vibgsl.nn._feature_product import SPARSE_FEATURES, batch_feature_matrix

SIZES = [3, 7, 1, 5, 4, 2, 6, 3, 8, 5, 2, 4]


def _make_graph_set(sizes=SIZES, n_features: int = 3, seed: int = 0):
    """Graphs of the given sizes with weighted symmetric adjacencies (some self-loops)."""
    rng = np.random.default_rng(seed)
    X = []
    for n in sizes:
        feats = rng.normal(size=(n, n_features)).astype(np.float32)
        w = rng.uniform(0.5, 2.0, (n, n)) * (rng.random((n, n)) < 0.5)
        adj = np.triu(w)  # diagonal kept: self-loops
        X.append((feats, (adj + np.triu(adj, 1).T).astype(np.float32)))
    return to_graph_set(X), X


def _cost(sizes, batches) -> int:
    """Padded pair count Σ B · N_max² of a batching."""
    return int(sum(len(b) * int(sizes[b].max()) ** 2 for b in batches))


# ---------------------------------------------------------------------------
# GraphDataset
# ---------------------------------------------------------------------------


def test_batch_features_mask_and_padding():
    gs, X = _make_graph_set()
    y = np.arange(len(SIZES)) % 3
    ds = GraphDataset(gs, y)
    ids = [8, 2, 5, 1]
    batch, yb = ds.__getitems__(ids)
    n_max = max(SIZES[i] for i in ids)
    assert batch["x"].shape == (4, n_max, 3)
    assert batch["x"].dtype == torch.float32
    assert batch["mask"].shape == (4, n_max) and batch["mask"].dtype == torch.bool
    for row, i in enumerate(ids):
        n = SIZES[i]
        np.testing.assert_array_equal(batch["x"][row, :n].numpy(), X[i][0])
        assert torch.all(batch["x"][row, n:] == 0)
        np.testing.assert_array_equal(batch["mask"][row].numpy(), np.arange(n_max) < n)
    np.testing.assert_array_equal(yb.numpy(), y[ids])
    assert yb.dtype == torch.long


def _one_hot_graph_set(sizes=SIZES, d: int = 150, seed: int = 0):
    """Graphs of one-hot features (a few rows with a second value, one row and
    one whole graph all zeros), ring adjacencies."""
    rng = np.random.default_rng(seed)
    X = []
    for k, n in enumerate(sizes):
        feats = np.zeros((n, d), dtype=np.float32)
        feats[np.arange(n), rng.integers(0, d, n)] = 1.0
        if k % 4 == 1:
            feats[0, (feats[0].argmax() + 5) % d] = -0.75
            feats[n - 1] = 0.0
        if k == 5:
            feats[:] = 0.0
        adj = np.roll(np.eye(n, dtype=np.float32), 1, axis=1) if n > 1 else np.zeros((1, 1))
        X.append((feats, np.maximum(adj, adj.T).astype(np.float32)))
    return to_graph_set(X), X


@pytest.mark.parametrize("ids", [[8, 2, 5, 1], [5], [2], list(range(len(SIZES)))])
def test_listed_features_are_the_batch_features(ids):
    gs, X = _one_hot_graph_set()
    ds = GraphDataset(gs, sparse_features=True)
    assert ds.lists_features
    batch, _ = ds.__getitems__(ids)
    b, n, d = batch["x"].shape
    index, value = batch["feature_index"], batch["feature_value"]
    assert index.shape[0] == value.shape[0] == b and index.dtype == torch.int32
    # each row lists its graph's nonzeros in increasing position, then zeros
    for row, i in enumerate(ids):
        count = int(np.count_nonzero(X[i][0]))
        positions = index[row, :count].numpy()
        assert np.all(np.diff(positions) > 0)
        np.testing.assert_array_equal(
            value[row, :count].numpy(), X[i][0].reshape(-1)[np.flatnonzero(X[i][0])]
        )
        assert torch.all(value[row, count:] == 0) and torch.all(index[row, count:] == 0)
    listed = batch_feature_matrix(index, value, n, d)
    assert torch.equal(listed.to_dense(), batch["x"].reshape(b * n, d))
    # x itself is written from the list: the graphs' features, zeros elsewhere
    assert batch["x"].dtype == torch.float32
    for row, i in enumerate(ids):
        m = SIZES[i]
        np.testing.assert_array_equal(batch["x"][row, :m].numpy(), X[i][0])
        assert torch.all(batch["x"][row, m:] == 0)
    plain, _ = GraphDataset(gs).__getitems__(ids)
    assert torch.equal(plain["x"], batch["x"]) and torch.equal(plain["mask"], batch["mask"])


def test_features_are_listed_only_when_asked_and_mostly_zero():
    gs, _ = _one_hot_graph_set()
    assert not GraphDataset(gs).lists_features
    assert "feature_index" not in GraphDataset(gs).__getitems__([0, 1])[0]
    dense, _ = _make_graph_set(n_features=200)  # Gaussian features: all nonzero
    assert not GraphDataset(dense, sparse_features=True).lists_features
    narrow, _ = _one_hot_graph_set(d=SPARSE_FEATURES[0] - 1)  # too few columns
    assert not GraphDataset(narrow, sparse_features=True).lists_features
    batch, _ = GraphDataset(narrow, sparse_features=True).__getitems__([0, 1])
    assert set(batch) == {"x", "mask", "adj_index", "adj_weight"} or set(batch) == {
        "x", "mask", "adj"}


def test_batch_adjacency_is_padded_dense_adjacency():
    gs, X = _make_graph_set()
    ds = GraphDataset(gs, with_adjacency=True)
    ids = [0, 8, 4, 2, 6]
    batch = densify_adjacency(ds.__getitems__(ids)[0])
    assert set(batch) == {"x", "mask", "adj"}
    n_max = max(SIZES[i] for i in ids)
    assert batch["adj"].shape == (5, n_max, n_max)
    for row, i in enumerate(ids):
        n = SIZES[i]
        expected = np.zeros((n_max, n_max), np.float32)
        expected[:n, :n] = gs.dense_adjacency(i)
        np.testing.assert_array_equal(batch["adj"][row].numpy(), expected)
        # ... which is the (already symmetric) input adjacency
        np.testing.assert_array_equal(batch["adj"][row, :n, :n].numpy(), X[i][1])


def _cycles_and_cliques(sizes, clique: bool):
    """Weighted cycles (sparse: 2n of n² entries) or cliques (dense)."""
    out = []
    for k, n in enumerate(sizes):
        adj = np.zeros((n, n), np.float32)
        if clique:
            adj[:] = 1 + k
            np.fill_diagonal(adj, 0)
        else:
            nodes = np.arange(n)
            adj[nodes, (nodes + 1) % n] = adj[(nodes + 1) % n, nodes] = 1 + k
        out.append((np.ones((n, 2), np.float32), adj))
    return to_graph_set(out)


@pytest.mark.parametrize("clique", [False, True], ids=["sparse", "dense"])
def test_the_adjacency_travels_in_the_smaller_form(clique):
    """Sparse graphs: a (B, E) edge list with int32 positions (12 of 900
    pairs per 30-node cycle); dense graphs: the B x N x N adjacency itself."""
    sizes = [30, 25, 28]
    gs = _cycles_and_cliques(sizes, clique)
    batch, _ = GraphDataset(gs, with_adjacency=True).__getitems__([0, 1, 2])
    n_edges = [len(gs.graph(i)[2]) for i in range(3)]
    if clique:
        assert set(batch) == {"x", "mask", "adj"}
        assert densify_adjacency(batch) is batch
    else:
        assert set(batch) == {"x", "mask", "adj_index", "adj_weight"}
        assert batch["adj_index"].dtype == torch.int32
        # one row per graph: skorch sizes a batch by its values' first axis
        assert batch["adj_index"].shape == batch["adj_weight"].shape == (3, max(n_edges))
        assert [int((row > 0).sum()) for row in batch["adj_weight"]] == n_edges
        sparse_bytes = sum(v.numel() * v.element_size() for v in batch.values())
        batch = densify_adjacency(batch)
        dense_bytes = sum(v.numel() * v.element_size() for v in batch.values())
        assert sparse_bytes < dense_bytes / 3
    for b, n in enumerate(sizes):
        np.testing.assert_array_equal(batch["adj"][b, :n, :n].numpy(), gs.dense_adjacency(b))
        assert not batch["adj"][b, n:].any() and not batch["adj"][b, :, n:].any()


def test_batch_without_adjacency_has_no_adj_key():
    gs, _ = _make_graph_set()
    batch, _ = GraphDataset(gs, with_adjacency=False).__getitems__([0, 1, 2])
    assert set(batch) == {"x", "mask"}


def test_batch_without_labels_gives_zero_targets_and_getitem_is_a_batch_of_one():
    gs, X = _make_graph_set()
    ds = GraphDataset(gs)
    _, yb = ds.__getitems__([3, 4])
    np.testing.assert_array_equal(yb.numpy(), [0, 0])
    batch, _ = ds[1]
    assert batch["x"].shape == (1, SIZES[1], 3)
    np.testing.assert_array_equal(batch["x"][0].numpy(), X[1][0])
    assert len(ds) == len(SIZES)


def test_densify_adjacency_leaves_a_batch_without_edges_list_alone():
    gs, _ = _make_graph_set()
    batch, _ = GraphDataset(gs, with_adjacency=False).__getitems__([0, 1])
    assert densify_adjacency(batch) is batch


def test_batch_of_graphs_with_no_edges():
    gs = to_graph_set([np.ones((2, 1)), np.ones((4, 1))])
    batch = densify_adjacency(GraphDataset(gs).__getitems__([0, 1])[0])
    assert batch["adj"].shape == (2, 4, 4)
    assert torch.all(batch["adj"] == 0)
    np.testing.assert_array_equal(batch["mask"].sum(1).numpy(), [2, 4])


# ---------------------------------------------------------------------------
# size_bucketed_batches
# ---------------------------------------------------------------------------


def _skewed_sizes(n: int = 600, seed: int = 0) -> np.ndarray:
    """Log-normal sizes in 5..300: mostly small graphs and a long tail of large ones."""
    rng = np.random.default_rng(seed)
    return np.clip(np.round(np.exp(rng.normal(3.0, 0.9, n))), 5, 300).astype(np.int64)


def test_without_rng_keeps_order_and_chunking():
    sizes = np.array([5, 1, 9, 3, 3, 7, 2])
    batches = size_bucketed_batches(sizes, 3)
    assert [b.tolist() for b in batches] == [[0, 1, 2], [3, 4, 5], [6]]


@pytest.mark.parametrize("seed", [None, 0, 1])
@pytest.mark.parametrize("max_pairs", [None, 200_000])
def test_every_position_appears_exactly_once(seed, max_pairs):
    sizes = _skewed_sizes(257)
    rng = None if seed is None else np.random.default_rng(seed)
    batches = size_bucketed_batches(sizes, 16, max_pairs=max_pairs, rng=rng)
    flat = np.concatenate(batches)
    assert len(flat) == len(sizes)
    np.testing.assert_array_equal(np.sort(flat), np.arange(len(sizes)))
    assert all(1 <= len(b) <= 16 for b in batches)


def test_bucketing_reduces_padding_cost():
    sizes = _skewed_sizes()
    unsorted = size_bucketed_batches(sizes, 32)
    bucketed = size_bucketed_batches(sizes, 32, rng=np.random.default_rng(0))
    assert sizes.min() >= 5 and sizes.max() == 300
    ideal = int((sizes**2).sum())  # Σ nᵢ², no padding at all
    cost_unsorted, cost_bucketed = _cost(sizes, unsorted), _cost(sizes, bucketed)
    assert ideal <= cost_bucketed < cost_unsorted / 2, (ideal, cost_bucketed, cost_unsorted)


@pytest.mark.parametrize("seed", [None, 0])
def test_max_pairs_bounds_every_multi_graph_batch(seed):
    sizes = _skewed_sizes(400)
    max_pairs = 50_000  # below 300², so the largest graphs go alone
    rng = None if seed is None else np.random.default_rng(seed)
    batches = size_bucketed_batches(sizes, 64, max_pairs=max_pairs, rng=rng)
    for b in batches:
        assert len(b) == 1 or len(b) * int(sizes[b].max()) ** 2 <= max_pairs
    # the bound is what splits these batches, not batch_size alone
    assert len(batches) > -(-len(sizes) // 64)


@pytest.mark.parametrize("seed", [None, 0])
def test_graph_larger_than_budget_forms_batch_of_one(seed):
    sizes = np.array([3, 4, 100, 5, 2, 3, 4, 5])
    rng = None if seed is None else np.random.default_rng(seed)
    batches = size_bucketed_batches(sizes, 4, max_pairs=1000, rng=rng)
    big = [b for b in batches if 2 in b.tolist()]
    assert len(big) == 1 and big[0].tolist() == [2]
    for b in batches:
        assert len(b) == 1 or len(b) * int(sizes[b].max()) ** 2 <= 1000


def test_rng_seeds_change_batches_and_same_seed_repeats():
    sizes = _skewed_sizes(300)

    def compositions(seed):
        batches = size_bucketed_batches(sizes, 16, rng=np.random.default_rng(seed))
        return [b.tolist() for b in batches]

    assert compositions(0) == compositions(0)
    sets_0 = {frozenset(b) for b in compositions(0)}
    sets_1 = {frozenset(b) for b in compositions(1)}
    assert sets_0 != sets_1


def _size_spread(sizes, batches) -> float:
    """Mean over batches of the largest minus the smallest graph size."""
    return float(np.mean([sizes[b].max() - sizes[b].min() for b in batches]))


@pytest.mark.parametrize("max_pairs", [None, 200_000])
def test_unbucketed_batches_mix_sizes_cover_every_graph_and_keep_the_budget(max_pairs):
    sizes = _skewed_sizes(400)
    rng = np.random.default_rng(0)
    bucketed = size_bucketed_batches(sizes, 32, max_pairs=max_pairs, rng=rng)
    mixed = size_bucketed_batches(sizes, 32, max_pairs=max_pairs, rng=rng, by_size=False)
    np.testing.assert_array_equal(np.sort(np.concatenate(mixed)), np.arange(len(sizes)))
    # a random batch of 32 spans most of the 5..300 range, a size bucket a sliver
    assert _size_spread(sizes, mixed) > 3 * _size_spread(sizes, bucketed)
    for b in mixed:
        assert max_pairs is None or len(b) == 1 or len(b) * int(sizes[b].max()) ** 2 <= max_pairs


def test_unbucketed_batches_without_rng_keep_order():
    sizes = np.array([5, 1, 9, 3, 3, 7, 2])
    batches = size_bucketed_batches(sizes, 3, by_size=False)
    assert [b.tolist() for b in batches] == [[0, 1, 2], [3, 4, 5], [6]]


# ---------------------------------------------------------------------------
# GraphLoader
# ---------------------------------------------------------------------------


def _labelled_dataset(n: int = 40):
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 20, n).tolist()
    gs, _ = _make_graph_set(sizes, n_features=2)
    # y identifies the graph: label == position in the base dataset
    return GraphDataset(gs, np.arange(n)), np.asarray(sizes)


def _epoch(loader):
    ys, batches = [], []
    for batch, y in loader:
        ys.extend(y.tolist())
        batches.append((batch, y))
    return ys, batches


def _check_batches(batches, sizes):
    for batch, y in batches:
        np.testing.assert_array_equal(batch["mask"].sum(1).numpy(), sizes[y.numpy()])


def test_loader_over_subset_without_shuffle_keeps_subset_order():
    ds, sizes = _labelled_dataset()
    indices = [17, 3, 30, 8, 25, 0, 12, 39, 5]
    loader = GraphLoader(Subset(ds, indices), batch_size=4, shuffle=False, max_pairs=None)
    ys, batches = _epoch(loader)
    assert ys == indices
    assert [len(y) for _, y in batches] == [4, 4, 1]
    assert len(loader) == 3
    _check_batches(batches, sizes)


def test_loader_over_subset_with_shuffle_covers_each_graph_once_per_epoch():
    ds, sizes = _labelled_dataset()
    indices = list(range(0, 40, 3))
    loader = GraphLoader(Subset(ds, indices), batch_size=4, shuffle=True, seed=0)
    epochs = [_epoch(loader) for _ in range(3)]
    for ys, batches in epochs:
        assert sorted(ys) == indices
        _check_batches(batches, sizes)
    # batches differ between epochs (jittered sizes, shuffled order)
    assert len({tuple(ys) for ys, _ in epochs}) > 1


def test_loader_over_nested_subset():
    ds, sizes = _labelled_dataset()
    inner = Subset(ds, [7, 2, 9, 4, 0, 5, 31])
    outer = Subset(inner, [3, 1, 0, 6])  # base positions 4, 2, 7, 31
    ys, batches = _epoch(GraphLoader(outer, batch_size=3, shuffle=False))
    assert ys == [4, 2, 7, 31]
    _check_batches(batches, sizes)
    ys, _ = _epoch(GraphLoader(outer, batch_size=3, shuffle=True, seed=1))
    assert sorted(ys) == [2, 4, 7, 31]


def test_loader_default_pair_budget_keeps_subset_order():
    ds, sizes = _labelled_dataset()
    indices = [17, 3, 30, 8, 25, 0, 12, 39, 5]
    ys, batches = _epoch(GraphLoader(Subset(ds, indices), batch_size=4))
    assert ys == indices
    assert all(len(y) <= 4 for _, y in batches)
    _check_batches(batches, sizes)


def test_loader_same_seed_same_batches():
    ds, _ = _labelled_dataset()
    first = _epoch(GraphLoader(ds, batch_size=5, shuffle=True, seed=3))[0]
    second = _epoch(GraphLoader(ds, batch_size=5, shuffle=True, seed=3))[0]
    assert first == second
    assert sorted(first) == list(range(len(ds)))


def test_loader_rejects_other_datasets():
    with pytest.raises(TypeError, match="GraphLoader needs a GraphDataset"):
        GraphLoader(torch.utils.data.TensorDataset(torch.zeros(3)))


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("max_pairs", [None, "auto", 20_000])
def test_loader_len_equals_batches_per_epoch(shuffle, max_pairs):
    sizes = _skewed_sizes(300, seed=2)
    gs = to_graph_set([np.ones((int(n), 1), np.float32) for n in sizes])
    loader = GraphLoader(
        GraphDataset(gs), batch_size=32, shuffle=shuffle, max_pairs=max_pairs, seed=0
    )
    for _ in range(3):
        expected = len(loader)
        assert len(list(loader.batch_sampler)) == expected


def test_loader_bucket_by_size_false_mixes_sizes_and_covers_each_graph():
    sizes = _skewed_sizes(300, seed=2)
    gs = to_graph_set([np.ones((int(n), 1), np.float32) for n in sizes])
    spreads = {}
    for by_size in (True, False):
        loader = GraphLoader(GraphDataset(gs, np.arange(len(sizes))), batch_size=32,
                             shuffle=True, max_pairs=None, seed=0, bucket_by_size=by_size)
        ys, batches = _epoch(loader)
        assert sorted(ys) == list(range(len(sizes)))
        spreads[by_size] = _size_spread(sizes, [y.numpy() for _, y in batches])
    assert spreads[False] > 3 * spreads[True]
