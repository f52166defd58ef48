"""The fair protocol's inner search, one fit at a time, each score saved as it finishes.

A fair unit of ``reproduce_table1.py`` chooses its settings by an inner search on
the outer training fold and then refits. With ``GridSearchCV`` that is one call,
so a unit killed mid-way (the end of a session, a device lent for 15 minutes)
loses every inner fit it had finished: on REDDIT-BINARY or COLLAB a unit of a
two-value holdout grid is three fits of several minutes each, longer than one
command on a lent GPU may run. :func:`grid_search` makes the same choice as

.. code-block:: python

    GridSearchCV(pipe, grid, cv=inner, error_score="raise").fit(X, y)

(the estimator's own ``score``, candidates in ``ParameterGrid`` order, inner
splits from ``cv.split(X, y)``, the candidate of highest mean score, the first
one on a tie, refit on all of ``X``), but after each inner fit it writes the
fit's score to a JSON file; a new run of the unit reads that file and runs only
the fits it lacks. Each fit seeds itself (``VIBGSLClassifier`` reseeds torch when
it starts training), so the scores, the choice and the refit are those of an
uninterrupted search; ``tests/test_inner_search.py`` checks both against
``GridSearchCV``, ``tests/test_benchmarks.py`` a resumed unit against an uninterrupted one.

The file is replaced atomically (a temporary name, then a rename), merged with
what is on disk before each write (two processes of the same unit lose no score),
and removed by ``reproduce_table1.py`` once the unit's record is saved.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from _unit_checkpoint import key_digest  # benchmarks/_unit_checkpoint.py
from sklearn.base import clone
from sklearn.metrics import get_scorer
from sklearn.model_selection import ParameterGrid


def scores_path(directory: Path, key: tuple) -> Path:
    """File of the inner scores of the unit with this key (named as its epoch checkpoint)."""
    return Path(directory) / f"inner-{key_digest(key)}.json"


def load_scores(path: Path | None, key: tuple) -> dict[str, float]:
    """Saved inner scores, ``"candidate/split" -> score`` (empty when none).

    Raises
    ------
    ValueError
        If the file at ``path`` belongs to another unit.
    """
    if path is None or not Path(path).exists():
        return {}
    saved = json.loads(Path(path).read_text())
    if saved.get("key") != json.loads(json.dumps(list(key))):
        raise ValueError(f"{path} holds the inner scores of unit {saved.get('key')}, "
                         f"not of {list(key)}; remove it.")
    return dict(saved["scores"])


def _save(path: Path, key: tuple, scores: dict[str, float]) -> None:
    merged = {**load_scores(path, key), **scores}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"key": list(key), "scores": merged}))
    os.replace(tmp, path)


def grid_search(estimator, grid: dict | list[dict], cv, X: list, y: np.ndarray, *,
                path: Path | None = None, key: tuple = (),
                orphaned=lambda: False, scoring: str | None = None) -> SimpleNamespace:
    """Search ``grid`` by ``cv`` on ``(X, y)`` and refit the best candidate.

    Parameters
    ----------
    estimator : estimator
        Cloned for every fit; scored on each held-out split by its own ``score``,
        or by ``scoring``.
    grid : dict or list of dict
        Parameter name to the list of its values, or a list of such grids
        (alternatives searched in turn), as ``GridSearchCV``'s ``param_grid``.
    cv : cross-validation splitter
        Its ``split(X, y)`` gives the inner splits.
    X : list
        The training graphs; ``y`` their labels.
    path : Path, optional
        Where the finished fits' scores are kept (``None``: nowhere, nothing resumes).
    key : tuple
        The unit's key, written into the file and checked when it is read.
    orphaned : callable, optional
        Asked before each fit; ``True`` (the run that owns the unit is gone)
        ends this process without fitting or saving.
    scoring : str, optional
        A scikit-learn scorer name (``GridSearchCV``'s ``scoring``), e.g.
        ``"neg_log_loss"``; ``None`` scores by the estimator's ``score``.

    Returns
    -------
    SimpleNamespace
        ``best_estimator_`` (refit on all of ``X``), ``best_params_``,
        ``cv_results_["mean_test_score"]`` (per candidate) and ``resumed_fits``
        (how many inner scores came from the file).

    Notes
    -----
    With :math:`s_{c,j}` the score of candidate :math:`c` on split :math:`j` of
    :math:`J`, the choice is the first :math:`c` maximising
    :math:`\\bar s_c = \\frac1J \\sum_j s_{c,j}`, as ``GridSearchCV`` ranks them.
    """
    candidates = list(ParameterGrid(grid))
    splits = list(cv.split(np.zeros(len(y)), y))
    scores = load_scores(path, key)
    resumed = len(scores)
    for c, params in enumerate(candidates):
        for j, (fit_i, test_i) in enumerate(splits):
            if f"{c}/{j}" in scores:
                continue
            if orphaned():
                os._exit(1)  # no one reads this unit now; a new run may own its file
            fitted = clone(estimator).set_params(**clone(params, safe=False))
            fitted.fit([X[i] for i in fit_i], y[fit_i])
            X_test, y_test = [X[i] for i in test_i], y[test_i]
            scores[f"{c}/{j}"] = float(fitted.score(X_test, y_test) if scoring is None
                                       else get_scorer(scoring)(fitted, X_test, y_test))
            if path is not None:
                _save(path, key, scores)
    means = np.array([np.mean([scores[f"{c}/{j}"] for j in range(len(splits))])
                      for c in range(len(candidates))])
    best = int(np.flatnonzero(means == means.max())[0])
    best_params = candidates[best]
    refit = clone(estimator).set_params(**clone(best_params, safe=False)).fit(X, y)
    return SimpleNamespace(best_estimator_=refit, best_params_=best_params,
                           cv_results_={"mean_test_score": means}, resumed_fits=resumed)
