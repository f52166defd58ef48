"""Odd graphs, the max_nodes guard, determinism, warm start, partial_fit and
early stopping of VIBGSLClassifier."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch
from conftest import make_graphs
from skorch.callbacks import Callback, EarlyStopping
from skorch.dataset import ValidSplit
from torch_geometric.data import Data

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl._inputs import to_graph_set

FAST = dict(max_epochs=3, batch_size=8, random_state=0)


@pytest.fixture
def small():
    return make_graphs(24)


def _state(clf):
    return {k: v.detach().clone() for k, v in clf.module_.state_dict().items()}


# ---------------------------------------------------------------------- #
# odd graphs
# ---------------------------------------------------------------------- #
def test_single_node_graphs(small):
    X, y = small
    singles = [f[:1] for f, _ in X]  # bare 1-node graphs
    clf = VIBGSLClassifier(**FAST).fit(singles, y)
    assert clf.predict(singles).shape == (len(y),)
    x_ib, adj = clf.ib_graphs(singles[:1])[0]
    assert x_ib.shape == (1, 4) and adj.shape == (1, 1) and adj[0, 0] == 0  # no self edge
    # mixed with larger graphs, and with the observed structure in use
    mixed = singles[:12] + list(X[12:])
    proba = VIBGSLClassifier(structure_mix=0.5, **FAST).fit(mixed, y).predict_proba(mixed)
    assert np.all(np.isfinite(proba))


@pytest.mark.parametrize("structure_mix", [0.0, 0.5, 1.0])
def test_graphs_without_edges(small, structure_mix):
    X, y = small
    empty = [(f, np.zeros_like(a)) for f, a in X]
    assert to_graph_set(empty).edge_index.shape == (2, 0)
    clf = VIBGSLClassifier(structure_mix=structure_mix, **FAST).fit(empty, y)
    assert np.all(np.isfinite(clf.predict_proba(empty)))


def test_self_loops_are_kept_and_used(small):
    X, y = small
    looped = [(f, a + np.diag(np.full(len(a), 3.0, np.float32))) for f, a in X]
    graphs = to_graph_set(looped)
    assert np.all(np.diag(graphs.dense_adjacency(0)) == 3.0)
    # with only the observed graph (structure_mix=1) the loop weight changes the output
    a = VIBGSLClassifier(structure_mix=1.0, **FAST).fit(X, y)
    assert not np.allclose(a.predict_proba(looped), a.predict_proba(X))


def test_directed_edges_are_symmetrised(small):
    X, y = small
    upper = [(f, np.triu(a)) for f, a in X]  # each edge in one direction only
    assert all(np.array_equal(to_graph_set([g]).dense_adjacency(0), a)
               for g, (_, a) in zip(upper, X))
    clf = VIBGSLClassifier(structure_mix=0.5, **FAST).fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(upper), clf.predict_proba(X))


# ---------------------------------------------------------------------- #
# max_nodes
# ---------------------------------------------------------------------- #
def test_max_nodes_default_and_validation(small):
    assert VIBGSLClassifier().max_nodes == "auto"
    assert VIBGSLClassifier()._max_nodes() == 10_000  # the dense path's limit
    X, y = small
    with pytest.raises(ValueError, match="max_nodes must be 'auto', None or an int >= 1"):
        VIBGSLClassifier(max_nodes=0, **FAST).fit(X, y)


def test_graph_over_max_nodes_fails_fast_before_any_dense_allocation(small):
    X, y = small
    # 200 000 nodes: one dense N x N float32 matrix would take 160 GB
    huge = Data(x=torch.zeros(200_000, 4), edge_index=torch.zeros(2, 0, dtype=torch.long))
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"X\[5\] has 200000 nodes, more than max_nodes=10000"):
        VIBGSLClassifier(**FAST).fit(list(X[:5]) + [huge], y[:6])
    assert time.perf_counter() - start < 5
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    with pytest.raises(ValueError, match=r"X\[1\] has 200000 nodes"):
        clf.predict([X[0][0], huge])


def test_max_nodes_can_be_lowered_or_lifted(small):
    X, y = small
    largest = max(len(f) for f, _ in X)
    first_big = next(i for i, (f, _) in enumerate(X) if len(f) > 3)
    with pytest.raises(ValueError, match=rf"X\[{first_big}\] has {len(X[first_big][0])} nodes"):
        VIBGSLClassifier(max_nodes=3, **FAST).fit(X, y)
    clf = VIBGSLClassifier(max_nodes=largest, **FAST).fit(X, y)
    with pytest.raises(ValueError, match=rf"X\[0\] has {largest + 1} nodes"):
        clf.predict([np.ones((largest + 1, 4), np.float32)])
    clf.set_params(max_nodes=None)
    assert clf.predict([np.ones((largest + 1, 4), np.float32)]).shape == (1,)


def test_max_nodes_applies_to_tables():
    rng = np.random.default_rng(0)
    table, y = rng.normal(size=(20, 6)), np.arange(20) % 2
    with pytest.raises(ValueError, match=r"6 nodes, more than max_nodes=5"):
        VIBGSLClassifier(max_nodes=5, **FAST).fit(table, y)


# ---------------------------------------------------------------------- #
# determinism
# ---------------------------------------------------------------------- #
def test_same_random_state_gives_identical_parameters_history_and_predictions(small):
    X, y = small
    a = VIBGSLClassifier(beta=0.1, **FAST).fit(X, y)
    b = VIBGSLClassifier(beta=0.1, **FAST).fit(X, y)
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)
    assert a.history[:, "train_loss"] == b.history[:, "train_loss"]
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.ib_graphs(X[:4])[3][1], b.ib_graphs(X[:4])[3][1])


@pytest.mark.parametrize("batch_size", [1, 3, 17, -1])
def test_predictions_do_not_depend_on_batch_size(small, batch_size):
    X, y = small
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    reference = clf.predict_proba(X)
    clf.set_params(batch_size=batch_size)
    np.testing.assert_allclose(clf.predict_proba(X), reference, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(clf.predict(X), reference.argmax(1))
    clf.set_params(batch_size=FAST["batch_size"], max_pairs=50)  # batches split by pair budget
    np.testing.assert_allclose(clf.predict_proba(X), reference, rtol=0, atol=1e-6)


# ---------------------------------------------------------------------- #
# warm start, partial_fit, early stopping
# ---------------------------------------------------------------------- #
def test_refit_without_warm_start_starts_over(small):
    X, y = small
    fresh = VIBGSLClassifier(**FAST).fit(X, y)
    clf = VIBGSLClassifier(**FAST).fit(X, y).fit(X, y)
    assert len(clf.history) == FAST["max_epochs"]
    s1, s2 = _state(fresh), _state(clf)
    assert all(torch.equal(s1[k], s2[k]) for k in s1)


@pytest.mark.parametrize("warm_start", [True, False])
def test_warm_start_continues_from_the_fitted_parameters(small, warm_start):
    X, y = small
    clf = VIBGSLClassifier(warm_start=warm_start, **FAST).fit(X, y)
    before = _state(clf)
    clf.set_params(lr=0.0).fit(X, y)  # a second fit that cannot move the parameters
    after = _state(clf)
    kept = all(torch.equal(before[k], after[k]) for k in before)
    # warm start: it started from the fitted parameters; otherwise from a new init
    assert kept == warm_start
    assert len(clf.history) == (2 if warm_start else 1) * FAST["max_epochs"]


def test_partial_fit_on_a_fresh_net_equals_fit(small):
    X, y = small
    fitted = VIBGSLClassifier(**FAST).fit(X, y)
    partial = VIBGSLClassifier(**FAST).partial_fit(X, y)
    s1, s2 = _state(fitted), _state(partial)
    assert all(torch.equal(s1[k], s2[k]) for k in s1)
    np.testing.assert_array_equal(partial.predict_proba(X), fitted.predict_proba(X))


class Snapshots(Callback):
    """The module's parameters at the end of every epoch."""

    def initialize(self):
        self.states = []
        return self

    def on_epoch_end(self, net, **kwargs):
        self.states.append(_state(net))


def test_early_stopping_on_validation_loss_restores_the_best_epoch():
    rng = np.random.default_rng(0)
    X, _ = make_graphs(40)
    y = rng.integers(0, 2, size=40)  # random labels: the validation loss soon stops improving
    snaps = Snapshots()
    stop = EarlyStopping(monitor="valid_loss", patience=3, threshold=0, load_best=True)
    clf = VIBGSLClassifier(
        train_split=ValidSplit(4), callbacks=[snaps, stop],
        max_epochs=60, lr=0.05, batch_size=8, random_state=0,
    ).fit(X, y)
    valid = np.array(clf.history[:, "valid_loss"])
    assert len(clf.history) < 60 and len(valid) == len(clf.history)
    best = int(np.argmin(valid))
    # stopped `patience` epochs after the best one, and the best weights are back
    assert len(clf.history) == best + 1 + 3
    assert clf.history[best, "valid_loss_best"]
    final = _state(clf)
    assert all(torch.equal(final[k], snaps.states[best][k]) for k in final)
    assert not all(torch.equal(final[k], snaps.states[-1][k]) for k in final)
