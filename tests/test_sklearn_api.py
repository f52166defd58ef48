"""The scikit-learn contract of VIBGSLClassifier on every input kind."""

from __future__ import annotations

import pickle

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import torch
from conftest import make_graphs
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from torch_geometric.data import Data

from sk_vibgsl import DegreeFeatures, NodeFeatureTransformer, VIBGSLClassifier
from sk_vibgsl.nn.model import VIBGSLModule

FAST = dict(max_epochs=3, batch_size=16, random_state=0)


def _as_kind(X, kind):
    out = []
    for k, (feats, adj) in enumerate(X):
        choice = kind if kind != "mixed" else ["pair", "pyg", "networkx", "bare", "sparse"][k % 5]
        if choice == "pair":
            out.append((feats, adj))
        elif choice == "sparse":
            out.append((feats, sp.csr_matrix(adj)))
        elif choice == "bare":
            out.append(feats)
        elif choice == "pyg":
            ei = torch.as_tensor(np.array(np.nonzero(adj)), dtype=torch.long)
            out.append(Data(x=torch.as_tensor(feats), edge_index=ei))
        elif choice == "networkx":
            g = nx.from_numpy_array(adj)
            for node in g.nodes:
                g.nodes[node]["x"] = feats[node]
            out.append(g)
    return out


@pytest.mark.parametrize("kind", ["pair", "sparse", "bare", "pyg", "networkx", "mixed"])
def test_fit_predict_on_each_input_kind(graphs, kind):
    X, y = graphs
    Xk = _as_kind(X, kind)
    clf = VIBGSLClassifier(structure_mix=0.5, **FAST).fit(Xk, y)
    pred = clf.predict(Xk)
    assert pred.shape == (len(y),) and set(pred) <= {0, 1}
    proba = clf.predict_proba(Xk)
    assert proba.shape == (len(y), 2)
    assert np.allclose(proba.sum(1), 1)
    assert clf.n_features_in_ == 4
    assert 0 <= clf.score(Xk, y) <= 1


def test_three_d_array_input():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6, 3)).astype(np.float32)
    y = (X[:, :, 0].mean(1) > 0).astype(int)
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    assert clf.predict(X).shape == (40,)
    assert [a.shape for a, _ in clf.ib_graphs(X[:2])] == [(6, 3), (6, 3)]


def test_string_labels_are_kept(graphs):
    X, y = graphs
    labels = np.array(["mutagen", "inert"])[y]
    clf = VIBGSLClassifier(**FAST).fit(X, labels)
    assert list(clf.classes_) == ["inert", "mutagen"]
    assert set(clf.predict(X)) <= {"inert", "mutagen"}


def test_learns_separable_synthetic_task(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(max_epochs=30, random_state=0).fit(X, y)
    assert clf.score(X, y) >= 0.9


def test_predict_is_deterministic_and_independent_of_batch_size(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    first, second = clf.predict_proba(X), clf.predict_proba(X)
    assert np.array_equal(first, second)
    assert np.allclose(first.sum(1), 1)
    clf.set_params(batch_size=1)
    assert np.allclose(clf.predict_proba(X), first, atol=1e-5)
    # order of the input is respected: reversed input, reversed output
    assert np.allclose(clf.predict_proba(X[::-1]), first[::-1], atol=1e-5)


def test_random_state_makes_fit_and_predict_reproducible(graphs):
    X, y = graphs
    a = VIBGSLClassifier(**FAST).fit(X, y).predict_proba(X)
    b = VIBGSLClassifier(**FAST).fit(X, y).predict_proba(X)
    assert np.array_equal(a, b)
    c = VIBGSLClassifier(**{**FAST, "random_state": 1}).fit(X, y).predict_proba(X)
    assert not np.array_equal(a, c)


def test_history_records_ce_and_kl_each_epoch(graphs):
    from skorch.dataset import ValidSplit

    X, y = graphs
    clf = VIBGSLClassifier(beta=0.1, train_split=ValidSplit(4), **FAST).fit(X, y)
    assert len(clf.history) == 3
    for key in ("train_loss", "train_ce", "train_kl", "valid_loss", "valid_ce", "valid_kl",
                "valid_acc"):
        values = clf.history[:, key]
        assert len(values) == 3 and np.all(np.isfinite(values)), key
    row = clf.history[-1]
    assert row["train_kl"] >= 0
    # the loss is CE + beta * KL (batch-weighted means over the epoch)
    assert row["valid_loss"] == pytest.approx(row["valid_ce"] + 0.1 * row["valid_kl"], rel=1e-4)


def test_learned_adjacency_changes_during_fit(graphs):
    from skorch.callbacks import Callback

    X, y = graphs
    fixed = [X[0]]

    class Record(Callback):
        def initialize(self):
            self.adjs = []
            return self

        def on_epoch_end(self, net, **kwargs):
            self.adjs.append(net.ib_graphs(fixed)[0][1])

    rec = Record()
    VIBGSLClassifier(callbacks=[rec], max_epochs=5, random_state=0).fit(X, y)
    first, last = rec.adjs[0], rec.adjs[-1]
    assert first.shape == last.shape == (len(X[0][0]),) * 2
    assert np.abs(first - last).max() > 1e-3
    assert np.allclose(last, last.T) and last.min() >= 0 and last.max() <= 1


def test_ib_graphs_and_feature_mask(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    out = clf.ib_graphs(X)
    assert len(out) == len(X)
    for (feats, _), (x_ib, adj) in zip(X, out):
        assert x_ib.shape == feats.shape and adj.shape == (len(feats), len(feats))
    assert clf.feature_mask_.shape == (4,)
    assert np.all((clf.feature_mask_ > 0) & (clf.feature_mask_ < 1))
    no_mask = VIBGSLClassifier(feature_mask=False, **FAST).fit(X, y)
    assert np.array_equal(no_mask.feature_mask_, np.ones(4, dtype=np.float32))


def test_grid_search_over_beta(graphs):
    X, y = graphs
    search = GridSearchCV(
        VIBGSLClassifier(max_epochs=2, random_state=0), {"beta": [1e-1, 1e-3]}, cv=3
    ).fit(X, y)
    assert search.best_params_["beta"] in (1e-1, 1e-3)
    assert len(search.cv_results_["mean_test_score"]) == 2
    assert search.predict(X).shape == (len(y),)


def test_cross_val_score_ten_folds(graphs):
    X, y = graphs
    scores = cross_val_score(VIBGSLClassifier(max_epochs=2, random_state=0), X, y, cv=10)
    assert scores.shape == (10,)
    assert np.all((scores >= 0) & (scores <= 1))


def test_pipeline_with_degree_features_and_scaler():
    X, y = make_graphs(40)
    X = [(np.zeros((len(f), 0), np.float32), a) for f, a in X]  # featureless graphs
    pipe = make_pipeline(
        DegreeFeatures(), NodeFeatureTransformer(StandardScaler()), VIBGSLClassifier(**FAST)
    )
    pipe.fit(X, y)
    assert pipe.predict(X).shape == (40,)
    assert pipe[-1].n_features_in_ == pipe[0].max_degree_ + 1


def test_adam_steps_fused_by_default_with_the_per_tensor_values(graphs):
    X, y = graphs
    fits = {}
    for key, extra in {"default": {}, "loop": {"optimizer__foreach": False},
                       "unfused": {"optimizer__fused": False}}.items():
        fits[key] = VIBGSLClassifier(**FAST, torch_threads=1, **extra).fit(X, y)
    defaults = {key: clf.optimizer_.defaults for key, clf in fits.items()}
    assert defaults["default"]["fused"] and not defaults["default"]["foreach"]  # our default
    assert defaults["loop"]["foreach"] is False and not defaults["loop"]["fused"]  # theirs
    assert defaults["unfused"]["foreach"] is True and not defaults["unfused"]["fused"]
    for fused, multi, loop in zip(*(fits[k].module_.parameters()
                                    for k in ("default", "unfused", "loop"))):
        assert torch.equal(multi, loop)  # bit for bit, as the per-tensor loop
        torch.testing.assert_close(fused, loop, rtol=0, atol=1e-4)  # up to float rounding
    assert any(not torch.equal(f, m) for f, m in zip(
        fits["default"].module_.parameters(), fits["unfused"].module_.parameters()))


@pytest.mark.parametrize("device", ["cuda", "cuda:1", "meta"])
def test_adam_keeps_the_multi_tensor_step_off_the_cpu(device):
    """The fused default is the CPU's (measured there); other devices keep ``foreach``."""
    clf = VIBGSLClassifier(device=device)
    params = [("w", torch.nn.Parameter(torch.zeros(2)))]
    _, kwargs = clf.get_params_for_optimizer("optimizer", params)
    assert kwargs["foreach"] is True and "fused" not in kwargs
    _, cpu = VIBGSLClassifier(device="cpu").get_params_for_optimizer("optimizer", params)
    assert cpu["fused"] is True and "foreach" not in cpu


def test_other_optimizers_get_foreach_or_are_left_as_they_are(graphs):
    X, y = graphs
    sgd = VIBGSLClassifier(**FAST, optimizer=torch.optim.SGD).fit(X, y)
    assert sgd.optimizer_.defaults["foreach"] is True and not sgd.optimizer_.defaults["fused"]
    lbfgs = VIBGSLClassifier(**FAST, optimizer=torch.optim.LBFGS).fit(X, y)
    assert "foreach" not in lbfgs.optimizer_.defaults  # an optimizer without the argument


def test_clone_reaches_every_parameter(graphs):
    clf = VIBGSLClassifier(beta=0.2, backbone="gat", structure_mix=0.3, lr=0.01,
                           optimizer__weight_decay=1e-4, random_state=3)
    params = clf.get_params()
    for key in ("beta", "ib_size", "hidden_dim", "backbone", "temperature", "edge_threshold",
                "feature_mask", "structure_mix", "random_state", "max_epochs", "lr",
                "batch_size", "optimizer", "callbacks", "device", "train_split", "verbose",
                "optimizer__weight_decay"):
        assert key in params, key
    copy = clone(clf)
    assert copy.get_params()["beta"] == 0.2
    assert copy.get_params()["optimizer__weight_decay"] == 1e-4
    copy.set_params(beta=0.5, ib_size=4)
    X, y = graphs
    copy.set_params(max_epochs=1).fit(X, y)
    assert copy.module_.ib_size == 4


def test_pickle_round_trip_predicts_the_same(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(restored.predict_proba(X), clf.predict_proba(X))


def test_warm_start_keeps_training_and_refit_from_scratch_resets(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(warm_start=True, **FAST).fit(X, y)
    before = [p.detach().clone() for p in clf.module_.parameters()]
    clf.fit(X, y)
    assert len(clf.history) == 6
    assert any(not torch.equal(a, b) for a, b in zip(before, clf.module_.parameters()))


def test_predict_before_fit_raises_not_fitted(graphs):
    X, _ = graphs
    with pytest.raises(NotFittedError):
        VIBGSLClassifier().predict(X)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"beta": -1.0}, "beta must be"),
        ({"backbone": "sage"}, "backbone must be"),
        ({"structure_mix": 1.5}, "structure_mix must be"),
        ({"temperature": 0.0}, "temperature must be"),
        ({"ib_size": 0}, "ib_size must be"),
        ({"edge_threshold": 1.0}, "edge_threshold must be"),
    ],
)
def test_invalid_hyperparameters(graphs, params, match):
    X, y = graphs
    with pytest.raises(ValueError, match=match):
        VIBGSLClassifier(**{**FAST, **params}).fit(X, y)


def test_fit_errors_name_the_problem(graphs):
    X, y = graphs
    with pytest.raises(ValueError, match="X has 60 samples but y has 59"):
        VIBGSLClassifier(**FAST).fit(X, y[:-1])
    with pytest.raises(ValueError, match="single class"):
        VIBGSLClassifier(**FAST).fit(X, np.zeros(len(y), dtype=int))
    with pytest.raises(ValueError, match="X is empty"):
        VIBGSLClassifier(**FAST).fit([], [])
    with pytest.raises(ValueError, match="0 node features"):
        VIBGSLClassifier(**FAST).fit([np.zeros((3, 0))] * 4, [0, 1, 0, 1])
    bad = list(X)
    bad[7] = (bad[7][0] * np.nan, bad[7][1])
    with pytest.raises(ValueError, match=r"X\[7\]: node features contain NaN"):
        VIBGSLClassifier(**FAST).fit(bad, y)


def test_predict_with_other_feature_width_raises(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    match = r"X\[0\] has 5 node features, but the data seen in fit has 4"
    with pytest.raises(ValueError, match=match):
        clf.predict([np.zeros((3, 5))])


def test_partial_fit_continues_and_refuses_other_sizes(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(**FAST)
    clf.partial_fit(X, y)
    clf.partial_fit(X, y)
    assert len(clf.history) == 6
    with pytest.raises(ValueError, match="has 5 node features, but the data seen in fit has 4"):
        clf.partial_fit([np.zeros((3, 5))] * 4, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="model being trained further"):
        clf.partial_fit(X, np.where(y == 1, 2, 0))
    # a plain fit starts over and may change sizes
    clf.fit([np.ones((3, 5))] * 4, [0, 1, 0, 1])
    assert clf.n_features_in_ == 5


class _AdjacencyProbe(VIBGSLModule):
    """Records the observed adjacency each forward call receives."""

    seen: list[torch.Tensor] = []

    def forward(self, x, mask, adj=None):
        _AdjacencyProbe.seen.append((mask.clone(), None if adj is None else adj.clone()))
        return super().forward(x, mask, adj)


def test_the_module_receives_the_observed_adjacency_dense_and_padded():
    """Batches carry the edge list; the classifier makes it the dense
    ``(B, N, N)`` adjacency on its device before calling the module."""
    X, y = make_graphs(12, seed=3)
    clf = VIBGSLClassifier(_AdjacencyProbe, structure_mix=1.0, **{**FAST, "batch_size": 5})
    clf.fit(X, y)
    _AdjacencyProbe.seen.clear()
    clf.predict_proba(X)
    by_size: dict[int, list[np.ndarray]] = {}
    for mask, adj in _AdjacencyProbe.seen:
        assert adj is not None and adj.shape == (len(mask), mask.shape[1], mask.shape[1])
        for m, a in zip(mask, adj):
            n = int(m.sum())
            assert not a[n:].any() and not a[:, n:].any()  # zero on padding
            by_size.setdefault(n, []).append(a[:n, :n].numpy())
    seen = sum(len(v) for v in by_size.values())
    assert seen == len(X)
    for feats, adj in X:  # every input adjacency arrives, exactly
        candidates = by_size[len(feats)]
        assert any(np.array_equal(c, adj.astype(np.float32)) for c in candidates)


def test_gin_batch_norm_with_mixed_batches_through_skorch_parameters(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(
        **{**FAST, "backbone": "gin"}, max_pairs=None,
        module__batch_norm=True, iterator_train__bucket_by_size=False,
    ).fit(X, y)
    norms = [m for m in clf.module_.modules() if isinstance(m, torch.nn.BatchNorm1d)]
    assert len(norms) == 2
    assert all(int(m.num_batches_tracked) > 0 for m in norms)
    assert not clf.get_iterator(clf.get_dataset(X, y), training=True).batch_sampler.by_size
    # evaluation uses the running statistics: batch companions do not matter
    proba = clf.predict_proba(X)
    clf.set_params(batch_size=1)
    assert np.allclose(clf.predict_proba(X), proba, atol=1e-5)
    assert clone(clf).get_params()["module__batch_norm"] is True
