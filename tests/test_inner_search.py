"""``benchmarks/_inner_search.py``: GridSearchCV's choice, one fit at a time, resumable."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import benchmark_script, make_graphs
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit

from sk_vibgsl import VIBGSLClassifier

inner = benchmark_script("_inner_search")


def _tabular(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0).astype(int)
    return list(X), y


@pytest.mark.parametrize("cv", [StratifiedKFold(3, shuffle=True, random_state=0),
                                StratifiedShuffleSplit(1, test_size=0.25, random_state=0)])
def test_grid_search_chooses_what_grid_search_cv_chooses(cv):
    """Same mean scores, same candidate (the first of equal means: tiny C values tie at
    the majority rate), same refit, for k folds and for one holdout."""
    X, y = _tabular()
    grid = {"C": [1e-6, 1e-5, 1.0, 10.0], "fit_intercept": [True, False]}
    ours = inner.grid_search(LogisticRegression(), grid, cv, X, y)
    ref = GridSearchCV(LogisticRegression(), grid, cv=cv, error_score="raise").fit(
        np.array(X), y)
    np.testing.assert_array_equal(ours.cv_results_["mean_test_score"],
                                  ref.cv_results_["mean_test_score"])
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_array_equal(ours.best_estimator_.coef_, ref.best_estimator_.coef_)
    assert ours.resumed_fits == 0


@pytest.mark.parametrize("cv", [StratifiedKFold(3, shuffle=True, random_state=0),
                                StratifiedShuffleSplit(1, test_size=0.25, random_state=0)])
def test_grid_search_with_a_scorer_chooses_what_grid_search_cv_chooses(cv):
    """``scoring="neg_log_loss"``: GridSearchCV's mean scores and choice for that scoring."""
    X, y = _tabular()
    grid = {"C": [1e-3, 1e-2, 0.1, 1.0, 10.0]}
    ours = inner.grid_search(LogisticRegression(), grid, cv, X, y, scoring="neg_log_loss")
    ref = GridSearchCV(LogisticRegression(), grid, cv=cv, scoring="neg_log_loss",
                       error_score="raise").fit(np.array(X), y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-12)
    assert np.all(ours.cv_results_["mean_test_score"] < 0)  # cross-entropies, not accuracies
    assert ours.best_params_ == ref.best_params_


def test_the_cross_entropy_decides_between_candidates_of_equal_accuracy():
    """On one holdout of 10 samples the three candidates classify the same 9 right: by
    accuracy the first wins the tie, by cross-entropy the one surest of them (C=1)."""
    X, y = _tabular()
    grid = {"C": [0.3, 1.0, 10.0]}
    cv = StratifiedShuffleSplit(1, test_size=0.25, random_state=0)
    by_accuracy = inner.grid_search(LogisticRegression(), grid, cv, X, y)
    by_entropy = inner.grid_search(LogisticRegression(), grid, cv, X, y, scoring="neg_log_loss")
    accuracies = by_accuracy.cv_results_["mean_test_score"]
    assert np.all(accuracies == accuracies[0])
    assert by_accuracy.best_params_ == {"C": 0.3}
    entropies = by_entropy.cv_results_["mean_test_score"]
    assert np.argmax(entropies) == 1 and len(set(entropies)) == 3
    assert by_entropy.best_params_ == {"C": 1.0}


def test_grid_search_ties_go_to_the_first_candidate():
    X, y = _tabular()
    # every candidate predicts the majority class: all means equal
    grid = {"C": [1e-9, 1e-8, 1e-7]}
    cv = StratifiedKFold(2, shuffle=True, random_state=0)
    ours = inner.grid_search(LogisticRegression(), grid, cv, X, y)
    means = ours.cv_results_["mean_test_score"]
    assert np.all(means == means[0])
    assert ours.best_params_ == {"C": 1e-9}
    assert GridSearchCV(LogisticRegression(), grid, cv=cv).fit(np.array(X), y).best_params_ \
        == {"C": 1e-9}


def test_a_killed_search_resumes_with_the_fits_it_lacks_and_chooses_the_same(
        tmp_path, monkeypatch):
    """VIBGSLClassifier fits (each seeds itself): a search killed in its third inner fit
    keeps two scores; resumed in a fresh RNG state, it runs the two fits it lacks and
    the refit, and ends with the uninterrupted search's scores, choice and predictions
    -- which are GridSearchCV's."""
    X, y = make_graphs(40)
    est = VIBGSLClassifier(max_epochs=2, batch_size=16, hidden_dim=8, random_state=0)
    grid = {"beta": [1e-3, 1e-1]}
    cv = StratifiedKFold(2, shuffle=True, random_state=0)
    key = ("fair", "toy", 0)
    whole = inner.grid_search(est, grid, cv, X, y)
    ref = GridSearchCV(est, grid, cv=cv, error_score="raise").fit(X, y)
    np.testing.assert_array_equal(whole.cv_results_["mean_test_score"],
                                  ref.cv_results_["mean_test_score"])
    assert whole.best_params_ == ref.best_params_
    np.testing.assert_array_equal(whole.best_estimator_.predict_proba(X),
                                  ref.best_estimator_.predict_proba(X))

    path = inner.scores_path(tmp_path, key)
    fits = []
    real_fit = VIBGSLClassifier.fit

    def killed_in_fit_3(net, X, y=None, **kw):
        fits.append(len(X))
        if len(fits) == 3:
            raise RuntimeError("killed")
        return real_fit(net, X, y, **kw)

    monkeypatch.setattr(VIBGSLClassifier, "fit", killed_in_fit_3)
    with pytest.raises(RuntimeError, match="killed"):
        inner.grid_search(est, grid, cv, X, y, path=path, key=key)
    assert sorted(inner.load_scores(path, key)) == ["0/0", "0/1"]

    fits.clear()
    monkeypatch.setattr(VIBGSLClassifier, "fit",
                        lambda net, X, y=None, **kw: fits.append(len(X)) or real_fit(
                            net, X, y, **kw))
    np.random.seed(123)  # another global state than the uninterrupted search's
    resumed = inner.grid_search(est, grid, cv, X, y, path=path, key=key)
    assert fits == [20, 20, 40]  # candidate 1 on both inner folds, then the refit
    assert resumed.resumed_fits == 2
    np.testing.assert_array_equal(resumed.cv_results_["mean_test_score"],
                                  whole.cv_results_["mean_test_score"])
    assert resumed.best_params_ == whole.best_params_
    np.testing.assert_array_equal(resumed.best_estimator_.predict_proba(X),
                                  whole.best_estimator_.predict_proba(X))
    assert json.loads(path.read_text())["key"] == list(key)


def test_inner_scores_belong_to_their_unit(tmp_path):
    X, y = _tabular()
    path = inner.scores_path(tmp_path, ("a",))
    assert path != inner.scores_path(tmp_path, ("b",))
    inner.grid_search(LogisticRegression(), {"C": [1.0]},
                      StratifiedKFold(2, shuffle=True, random_state=0), X, y,
                      path=path, key=("a",))
    assert sorted(inner.load_scores(path, ("a",))) == ["0/0", "0/1"]
    with pytest.raises(ValueError, match="not of"):
        inner.load_scores(path, ("b",))
    assert inner.load_scores(tmp_path / "none.json", ("a",)) == {}


def test_an_orphaned_worker_exits_before_fitting(tmp_path, monkeypatch):
    """A worker whose run was killed stops before its next fit and writes nothing."""
    class Exited(Exception):
        pass

    def fake_exit(code):
        raise Exited(code)

    monkeypatch.setattr(inner.os, "_exit", fake_exit)
    X, y = _tabular()
    path = inner.scores_path(tmp_path, ("a",))
    with pytest.raises(Exited):
        inner.grid_search(LogisticRegression(), {"C": [1.0]},
                          StratifiedKFold(2, shuffle=True, random_state=0), X, y,
                          path=path, key=("a",), orphaned=lambda: True)
    assert not path.exists()
