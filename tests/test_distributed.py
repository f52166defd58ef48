"""A search through ``dask.distributed`` (joblib's ``"dask"`` backend) equals the serial run.

Two worker processes on loopback; skipped cleanly without the ``distributed``
extra.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from skorch.callbacks import Callback

from sk_vibgsl import NodeFeatureTransformer, VIBGSLClassifier

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]


class CountEpochs(Callback):
    """A user callback: it must pickle to reach the workers."""

    def initialize(self):
        self.epochs = 0
        return self

    def on_epoch_end(self, net, **kwargs):
        self.epochs += 1


@pytest.fixture(scope="module")
def client():
    # Worker processes must import sk_vibgsl (and this test module, for the
    # callback) even when it is not installed.
    path = os.pathsep.join(
        p for p in (str(ROOT), str(ROOT / "tests"), os.environ.get("PYTHONPATH")) if p
    )
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = path
    try:
        cluster = distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
        )
        with cluster, distributed.Client(cluster) as dask_client:
            yield dask_client
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def _model():
    return make_pipeline(
        NodeFeatureTransformer(StandardScaler()),
        VIBGSLClassifier(max_epochs=3, random_state=0, callbacks=[("count", CountEpochs())]),
    )


def test_everything_a_worker_needs_pickles(graphs):
    X, y = graphs
    model = _model().fit(X, y)
    restored = pickle.loads(pickle.dumps(model))
    assert dict(restored[-1].callbacks_)["count"].epochs == 3
    assert np.array_equal(restored.predict_proba(X), model.predict_proba(X))
    pickle.loads(pickle.dumps((X, y, _model())))


def test_cross_val_score_on_dask_equals_serial(client, graphs):
    X, y = graphs
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    serial = cross_validate(_model(), X, y, cv=cv, n_jobs=1, return_estimator=True)
    with distributed.get_task_stream(client) as tasks, parallel_backend("dask"):
        on_dask = cross_validate(_model(), X, y, cv=cv, n_jobs=-1, return_estimator=True)
        scores = cross_val_score(_model(), X, y, cv=cv, n_jobs=-1)
    workers = set(client.scheduler_info()["workers"])
    assert tasks.data and {t["worker"] for t in tasks.data} <= workers  # ran on the cluster
    np.testing.assert_array_equal(on_dask["test_score"], serial["test_score"])
    np.testing.assert_array_equal(scores, serial["test_score"])
    for remote, local in zip(on_dask["estimator"], serial["estimator"]):
        assert dict(remote[-1].callbacks_)["count"].epochs == 3
        np.testing.assert_allclose(remote.predict_proba(X), local.predict_proba(X), atol=1e-6)


def test_grid_search_on_dask_equals_serial(client, graphs):
    X, y = graphs
    grid = {"vibgslclassifier__beta": [1e-1, 1e-4], "vibgslclassifier__lr": [0.005, 0.05]}
    cv = StratifiedKFold(2, shuffle=True, random_state=0)
    serial = GridSearchCV(_model(), grid, cv=cv, n_jobs=1).fit(X, y)
    with distributed.get_task_stream(client) as tasks, parallel_backend("dask"):
        on_dask = GridSearchCV(_model(), grid, cv=cv, n_jobs=-1).fit(X, y)
    assert tasks.data
    np.testing.assert_array_equal(
        on_dask.cv_results_["mean_test_score"], serial.cv_results_["mean_test_score"]
    )
    for k in range(2):
        key = f"split{k}_test_score"
        np.testing.assert_array_equal(on_dask.cv_results_[key], serial.cv_results_[key])
    assert on_dask.best_params_ == serial.best_params_
    np.testing.assert_allclose(on_dask.predict_proba(X), serial.predict_proba(X), atol=1e-6)
