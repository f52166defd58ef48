"""PAPER_PARAMS reproduces the paper model of release 0.1.0 exactly; LEARNED_CHANNEL_PARAMS
is the structure study's measured setting."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import benchmark_script

from sk_vibgsl import LEARNED_CHANNEL_PARAMS, PAPER_PARAMS, VIBGSLClassifier

_SCRIPT = Path(__file__).with_name("data") / "make_paper_model_outputs.py"
_STUDY = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "structure_study"
_spec = importlib.util.spec_from_file_location("make_paper_model_outputs", _SCRIPT)
_outputs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_outputs)


def test_paper_params_reproduce_the_release_outputs():
    expected = np.load(_outputs.OUTPUTS)
    got = _outputs.fit_outputs(**PAPER_PARAMS)
    assert set(got) == set(expected.files)
    for key in expected.files:
        # float kernels differ between CPUs (AVX2 / AVX-512): a few ulps over
        # three epochs, far below any change of the model.
        np.testing.assert_allclose(got[key], expected[key], rtol=0, atol=2e-4, err_msg=key)


def test_paper_params_are_valid_estimator_parameters():
    params = VIBGSLClassifier().get_params()
    assert set(PAPER_PARAMS) <= set(params)
    VIBGSLClassifier(**PAPER_PARAMS)._validate_hyperparameters()


@pytest.mark.parametrize(
    "option",
    [
        {"edge_score": "cosine"}, {"structure_k": 2}, {"edge_beta": 1.0}, {"readout": "sum"},
        {"num_layers": 3},
    ],
)
def test_a_structure_option_changes_the_paper_outputs(option):
    """The comparison above can fail: each option moves the outputs."""
    expected = np.load(_outputs.OUTPUTS)
    got = _outputs.fit_outputs(**{**PAPER_PARAMS, **option})
    assert not np.allclose(got["gcn_0.0_proba"], expected["gcn_0.0_proba"], atol=2e-4)


def test_learned_channel_params_are_the_setting_the_structure_study_measured():
    """Every record of the study's ``branch_cos_top4`` row ran exactly these overrides."""
    records = [json.loads(line) for line in
               (_STUDY / "branch_cos_top4" / "table1_runs.jsonl").read_text().splitlines()]
    assert {r["dataset"] for r in records} >= {
        "MUTAG", "IMDB-BINARY", "IMDB-MULTI", "NCI1", "COLLAB", "REDDIT-BINARY"}
    parse_set = benchmark_script("_overrides").parse_set  # how the study reads --set
    for record in records:
        assert parse_set(record["overrides"].split(",")) == LEARNED_CHANNEL_PARAMS
    assert set(LEARNED_CHANNEL_PARAMS) <= set(VIBGSLClassifier().get_params())


@pytest.mark.parametrize("backbone", ["gcn", "gin"])
def test_learned_channel_params_learn_a_sparse_graph_beside_the_observed_one(backbone):
    rng = np.random.default_rng(0)
    X, y = [], np.arange(30) % 2
    for label in y:  # graphs of 14-24 nodes: top-4 unions cannot cover all their pairs
        n = int(rng.integers(14, 25))
        adj = np.triu((rng.random((n, n)) < 0.3).astype(np.float32), 1)
        X.append((rng.normal(label, 1.0, (n, 3)).astype(np.float32), adj + adj.T))
    clf = VIBGSLClassifier(backbone=backbone, max_epochs=3, batch_size=16, random_state=0,
                           **LEARNED_CHANNEL_PARAMS).fit(X, y)
    assert clf.module_.observed_gnn is not None
    for (feats, _), (_, learned) in zip(X, clf.ib_graphs(X)):
        n = len(feats)
        chosen = learned != 0
        assert not chosen.diagonal().any() and (chosen == chosen.T).all()
        # within the union of each node's 4 best partners: at most 4 n pairs
        assert chosen.sum() <= 2 * 4 * n < n * (n - 1)
    assert max(clf.history[:, "train_density"]) <= 8 / 13


@pytest.mark.parametrize("prefer_channel", [False, True])
def test_grid_search_chooses_between_the_observed_graph_and_the_learned_channel(
        prefer_channel):
    """The guide's recipe: ``GridSearchCV`` over two alternatives, the observed graph
    alone (``structure_mix=1``) and ``LEARNED_CHANNEL_PARAMS``, fits each on the
    inner splits and refits the one that scores best (here a scorer that prefers
    one of them) with its parameters alone: the alternative not chosen leaves no
    parameter behind."""
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(1)
    X, y = [], np.arange(24) % 2
    for label in y:
        n = int(rng.integers(8, 14))
        adj = np.triu((rng.random((n, n)) < 0.3).astype(np.float32), 1)
        X.append((rng.normal(label, 1.0, (n, 3)).astype(np.float32), adj + adj.T))
    grid = [{"structure_mix": [1.0]}, {k: [v] for k, v in LEARNED_CHANNEL_PARAMS.items()}]

    def prefers(estimator, X, y):
        return float(estimator.observed_branch == prefer_channel)

    search = GridSearchCV(VIBGSLClassifier(max_epochs=2, batch_size=8, random_state=0),
                          grid, cv=2, scoring=prefers).fit(X, y)
    assert len(search.cv_results_["params"]) == 2
    best = search.best_estimator_
    assert search.best_index_ == int(prefer_channel)
    if prefer_channel:
        assert best.get_params().items() >= LEARNED_CHANNEL_PARAMS.items()
        assert best.structure_mix == 0.0 and best.module_.observed_gnn is not None
    else:
        assert best.structure_mix == 1.0 and not best.observed_branch
        assert best.structure_k is None and best.module_.observed_gnn is None
