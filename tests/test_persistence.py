"""Saving and loading: pickle, joblib, and skorch's save_params/load_params."""

from __future__ import annotations

import pickle

import joblib
import numpy as np
import pytest
import torch
from conftest import make_graphs
from sklearn.base import clone

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl._classifier import _encode_labels

FAST = dict(max_epochs=3, batch_size=8, random_state=0)


@pytest.fixture(scope="module")
def fitted():
    X, y = make_graphs(24)
    labels = np.array(["inert", "mutagen"])[y]
    return VIBGSLClassifier(beta=0.1, **FAST).fit(X, labels), X, labels


def _same_model(a, b, X):
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.feature_mask_, b.feature_mask_)
    np.testing.assert_array_equal(a.ib_graphs(X[:2])[1][1], b.ib_graphs(X[:2])[1][1])


def test_pickle_and_joblib_round_trips(fitted, tmp_path):
    clf, X, labels = fitted
    _same_model(clf, pickle.loads(pickle.dumps(clf)), X)
    joblib.dump(clf, tmp_path / "model.joblib")
    restored = joblib.load(tmp_path / "model.joblib")
    _same_model(clf, restored, X)
    assert list(restored.classes_) == ["inert", "mutagen"]
    assert restored.score(X, labels) == clf.score(X, labels)


def _saved(clf, tmp_path):
    files = {key: str(tmp_path / name) for key, name in
             (("f_params", "params.pt"), ("f_optimizer", "opt.pt"), ("f_history", "h.json"))}
    clf.save_params(**files)
    return files


@pytest.mark.parametrize("device", [None, "cpu"])
def test_save_params_load_params_into_a_fresh_net(fitted, tmp_path, device):
    clf, X, labels = fitted
    files = _saved(clf, tmp_path)
    # a fresh net gets the sizes it cannot read from data: classes and node feature width
    fresh = clone(clf).set_params(classes=clf.classes_, module__in_channels=clf.n_node_features_)
    if device is not None:
        fresh.set_params(device=device)
    fresh.initialize()
    fresh.load_params(**files)
    _same_model(clf, fresh, X)
    assert list(fresh.classes_) == ["inert", "mutagen"]
    assert fresh.history[:, "train_loss"] == clf.history[:, "train_loss"]
    saved_opt, loaded_opt = clf.optimizer_.state_dict(), fresh.optimizer_.state_dict()
    for k, state in saved_opt["state"].items():
        assert all(torch.equal(v, loaded_opt["state"][k][name]) for name, v in state.items())
    # it keeps training from there
    fresh.set_params(warm_start=True).fit(X, labels)
    assert len(fresh.history) == 2 * FAST["max_epochs"]


def test_load_params_into_an_unsized_net_fails_loudly(fitted, tmp_path):
    clf, X, _ = fitted
    files = _saved(clf, tmp_path)
    bare = clone(clf).initialize()  # placeholder sizes: 1 feature, 2 classes
    with pytest.raises(RuntimeError, match="size mismatch"):
        bare.load_params(**files)


def test_classes_parameter_fixes_label_order(tmp_path):
    X, y = make_graphs(24)
    labels = np.array(["b", "a"])[y]
    clf = VIBGSLClassifier(classes=["b", "a"], **FAST).fit(X, labels)
    assert list(clf.classes_) == ["b", "a"]
    assert set(clf.predict(X)) <= {"a", "b"}
    # labels are encoded by their position in `classes`, not in sorted order
    codes = _encode_labels(np.array(["b", "a", "c"]), np.array(["c", "a", "b", "a"]))
    np.testing.assert_array_equal(codes, [2, 1, 0, 1])
    with pytest.raises(ValueError, match=r"'c', which is not in classes"):
        VIBGSLClassifier(classes=["b", "a"], **FAST).fit(X, np.where(y, "a", "c"))
