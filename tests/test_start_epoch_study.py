"""``benchmarks/start_epoch_study.py``: which units a warm-up can change, and the pairing
of re-runs with the records they leave unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import benchmark_script

study = benchmark_script("start_epoch_study")


def _write(folder, rows):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "table1_runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _record(fold, acc, best, **extra):
    return dict(protocol="fair", dataset="COLLAB", backbone="gin", fold=fold, test_acc=acc,
                best_epoch=best, test_predicted={"0": 3, "1": 2}, **extra)


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setitem(study.SOURCES, "COLLAB", ("base_obs{S}", "base_chan{S}"))
    # observed: 80 on every fold, fold 6 kept epoch 9; channel: 79, fold 2 kept epoch 3
    _write(tmp_path / "base_obs", [_record(f, 80.0, 9 if f == 6 else 20) for f in range(10)])
    _write(tmp_path / "base_chan", [_record(f, 79.0, 3 if f == 2 else 15) for f in range(10)])
    return tmp_path


def test_only_the_units_that_kept_an_earlier_epoch_are_needed(results):
    obs, _ = study.side_records(results, "COLLAB", "gin", 0, 0, 10)
    chan, _ = study.side_records(results, "COLLAB", "gin", 0, 1, 10)
    assert study.needed(obs, 10) == [6] and study.needed(chan, 10) == [2]
    assert study.needed(chan, 3) == []  # epoch 3 is not before a start of 3
    assert study.needed(None, 10) == list(range(10))  # no record: every fold
    assert "folds [6]; to run: [6]" in study.listing(results, 10)


def test_the_pairing_takes_the_re_runs_where_needed_and_the_records_elsewhere(results):
    assert study.pair(results, "COLLAB", "gin", 0, 10) is None  # re-runs missing
    reruns = results / "structure_study_start_epoch"
    _write(reruns / "observed_se10", [_record(6, 70.0, 12, start_epoch=10)])
    # a re-run of another start epoch is not this rule's
    _write(reruns / "branch_cos_top4_se10", [_record(2, 85.0, 11, start_epoch=8)])
    assert study.pair(results, "COLLAB", "gin", 0, 10) is None
    _write(reruns / "branch_cos_top4_se10", [_record(2, 85.0, 11, start_epoch=10),
                                              _record(5, 0.0, 30, start_epoch=10)])
    out = study.pair(results, "COLLAB", "gin", 0, 10)
    expected = np.full(10, -1.0)
    expected[6], expected[2] = 79.0 - 70.0, 85.0 - 80.0  # fold 5's re-run is not used
    np.testing.assert_allclose(out["diffs"], expected)
    assert out["reruns"] == [1, 1]
    np.testing.assert_allclose(out["delta_before"], -1.0)
    assert "+0.60" in study.report(results, 10)
