"""``benchmarks/check_record.py``: re-run one recorded unit and compare it with its record."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import benchmark_script

check = benchmark_script("check_record")
rt = check.rt

BASE = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--folds", "2", "--epochs", "2",
        "--max-graphs", "60", "--device", "cpu", "--learners", "VIB-GSL", "--no-checkpoints"]


@pytest.fixture
def threads():
    before = torch.get_num_threads()
    yield 1
    torch.set_num_threads(before)


@pytest.mark.parametrize("extra", [
    ["--protocols", "fair", "--betas", "1e-3", "--grid", "structure_mix=0.5,1.0",
     "--inner-folds", "1", "--fair-patience", "1", "--fair-patience-steps", "3",
     "--set", "edge_score=cosine",
     "--set", "structure_k=3", "--seed", "1"],
    ["--protocols", "paper", "--betas", "1e-4", "--patience", "5", "--lr-step", "1", "0.5"],
    ["--protocols", "fair", "--betas", "1e-3", "--inner-folds", "1", "--fair-patience", "1",
     "--choose", "structure_mix=1.0", "--choose", "observed_branch=True;structure_k=3"],
    ["--protocols", "fair", "--betas", "1e-3", "--inner-folds", "1", "--fair-patience", "1",
     "--choose", "structure_mix=1.0", "--choose", "observed_branch=True;structure_k=3",
     "--inner-scoring", "neg_log_loss"],
    ["--protocols", "fair", "--betas", "1e-3", "--inner-folds", "1", "--fair-patience", "1",
     "--fair-start-epoch", "2", "--learners", "N/A"],
    ["--protocols", "fair", "--betas", "1e-3", "--inner-folds", "1", "--fair-patience", "1",
     "--fair-min-classes", "2", "--fair-skip-few-classes", "--fair-min-class-size", "2",
     "--learners", "N/A"],
])
def test_a_record_is_rebuilt_rerun_and_found_equal(tmp_path, threads, capsys, extra):
    """The unit rebuilt from a record has the record's key, re-runs to the same values
    (exit 0), and a record whose accuracy was changed is reported different (exit 1)."""
    args = rt.parse([*BASE, *extra, "--results-dir", str(tmp_path / "r")])
    unit = rt.plan(args)[1]
    record = dict(rt.run_unit(unit, args, threads), code="abc")
    runs = tmp_path / "runs.jsonl"
    other = dict(record, fold=0)  # a second line the selection must skip
    runs.write_text(json.dumps(other) + "\n" + json.dumps(record) + "\n")

    _, rebuilt = check.rebuild(record, ["--results-dir", str(tmp_path / "x")])
    assert rt.unit_key(rebuilt) == rt.unit_key(record)
    cli = [str(runs), "--dataset", "IMDB-BINARY", "--backbone", "gcn", "--fold", "1"]
    assert check.main(cli) == 0
    out = capsys.readouterr().out
    assert "the unit reproduces its record" in out and "DIFFERENT" not in out

    record["test_acc"] += 1.0
    runs.write_text(json.dumps(record) + "\n")
    assert check.main(cli) == 1
    assert "test_acc" in (out := capsys.readouterr().out) and "DIFFERENT" in out

    # a field an older record lacks is named, not compared
    record["test_acc"] -= 1.0
    del record["epochs_run"]
    runs.write_text(json.dumps(record) + "\n")
    assert check.main(cli) == 0
    assert "not recorded, not compared: epochs_run" in capsys.readouterr().out


def test_a_record_that_cannot_be_rebuilt_or_selected_is_an_error(tmp_path):
    args = rt.parse([*BASE, "--protocols", "fair", "--results-dir", str(tmp_path)])
    record = rt.plan(args)[0]
    with pytest.raises(ValueError, match="cannot rebuild the learning-rate schedule"):
        check.rebuild(dict(record, lr_schedule="ExponentialLR(gamma=0.9)"), [])
    # a record written before a key existed reads it as None; its unit is not planned
    with pytest.raises(ValueError, match="cannot rebuild the unit"):
        check.rebuild(dict(record, valid_frac=None), [])
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(SystemExit, match="2 records"):
        check.select(runs, {"fold": 0})


def test_history_prints_the_scored_fits_epochs(tmp_path, threads, capsys):
    """``--history`` prints one line per epoch of the re-run's scored fit (the fair
    refit), with the losses its history recorded."""
    args = rt.parse([*BASE, "--protocols", "fair", "--betas", "1e-3", "--fair-patience", "1",
                     "--epochs", "3", "--results-dir", str(tmp_path / "r")])
    unit = rt.plan(args)[0]
    fitted = []
    record = dict(rt.run_unit(unit, args, threads, fitted=fitted), code="abc")
    assert len(fitted) == 1 and len(fitted[0].history) == record["epochs_run"]
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(record) + "\n")
    assert check.main([str(runs), "--dataset", "IMDB-BINARY", "--backbone", "gcn",
                       "--fold", "0", "--history"]) == 0
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if line.startswith("epoch "))
    assert "train_ce" in head and "valid_ce" in head
    epochs = [line.split()[0] for line in out.splitlines() if line[:5].strip().isdigit()]
    assert epochs == [str(e) for e in range(1, record["epochs_run"] + 1)]
