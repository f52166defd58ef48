"""The GPU path; skipped cleanly where no CUDA device is present."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from sk_vibgsl import VIBGSLClassifier

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


@pytest.mark.parametrize("backbone", ["gcn", "gat", "gin"])
def test_fit_and_predict_on_cuda(graphs, backbone):
    X, y = graphs
    clf = VIBGSLClassifier(
        device="cuda", backbone=backbone, structure_mix=0.5, max_epochs=20, random_state=0
    ).fit(X, y)
    assert next(clf.module_.parameters()).is_cuda
    proba = clf.predict_proba(X)
    assert np.allclose(proba.sum(1), 1, atol=1e-5)
    assert np.array_equal(proba, clf.predict_proba(X))
    assert clf.score(X, y) >= 0.8
    assert all(np.isfinite(clf.history[:, "train_loss"]))


def test_cuda_model_predicts_the_same_on_cpu(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(device="cuda", max_epochs=5, random_state=0).fit(X, y)
    on_gpu = clf.predict_proba(X)
    clf.set_params(device="cpu")
    clf.module_.to("cpu")
    assert np.allclose(clf.predict_proba(X), on_gpu, atol=1e-4)
    restored = pickle.loads(pickle.dumps(clf))
    assert np.allclose(restored.predict_proba(X), on_gpu, atol=1e-4)
