"""Smoke test of ``benchmarks/reproduce_table1.py --quick``: runs, writes, resumes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "reproduce_table1.py"


def _run(results_dir: Path, *extra: str) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--device", "cpu",
         "--results-dir", str(results_dir), *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    return proc, time.perf_counter() - start


def _import_script():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import reproduce_table1 as rt
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return rt


def _spy_fits(rt, monkeypatch, what=lambda net, X: net) -> list:
    """Patch ``VIBGSLClassifier.fit`` in the script: every fit still runs and appends
    ``what(net, X)`` to the returned list, in the order the script fits."""
    seen = []
    real_fit = rt.VIBGSLClassifier.fit

    def spy(net, X, y=None, **kw):
        seen.append(what(net, X))
        return real_fit(net, X, y, **kw)

    monkeypatch.setattr(rt.VIBGSLClassifier, "fit", spy)
    return seen


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_reproduce_table1_quick_runs_and_resumes(tmp_path):
    proc, first = _run(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("table1.md", "table1.json", "table1_runs.jsonl"):
        assert (tmp_path / name).is_file(), name

    runs = _lines(tmp_path / "table1_runs.jsonl")
    units = {(r["protocol"], r["structure"], r["beta"], r["fold"]) for r in runs}
    expected = {("paper", s, b, f) for s in (False, True) for b in (1e-2, 1e-4) for f in (0, 1)}
    expected |= {("fair", s, None, f) for s in (False, True) for f in (0, 1)}
    assert units == expected
    assert len(runs) == len(expected)
    for r in runs:
        assert r["dataset"] == "IMDB-BINARY" and r["backbone"] == "gin"
        assert r["epochs"] == 2 and r["n_folds"] == 2
        assert 0 <= r["test_acc"] <= 100
        assert r["device"] == "cpu"
        assert r["cpu"].endswith(", " + torch.backends.cpu.get_cpu_capability())
        if r["protocol"] == "fair":
            assert r["chosen_beta"] in (1e-2, 1e-4)
            # the refit's predictions per class on its test fold (half of the 60 graphs)
            assert set(r["test_predicted"]) == {"0", "1"}
            assert sum(r["test_predicted"].values()) == 30
        else:
            assert 1 <= r["best_epoch"] <= 2

    table = json.loads((tmp_path / "table1.json").read_text())
    assert table["meta"]["epochs"] == 2
    assert "--quick" in table["meta"]["command"]
    # the interpreter as `python`, not this machine's venv path
    assert table["meta"]["command"].startswith("python benchmarks/reproduce_table1.py ")
    assert table["meta"]["unit_devices"] == {"cpu": len(expected)}
    # each record names the commit its run started from
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    if head.returncode == 0:
        assert {r["code"].split("+")[0] for r in runs} == {head.stdout.strip()}
        assert table["meta"]["unit_code"] == {runs[0]["code"]: len(expected)}
    for protocol in ("paper", "fair"):
        rows = table["table"][protocol]
        assert set(rows) == {"N/A gin", "VIB-GSL gin"}
        for row in rows.values():
            c = row["IMDB-BINARY"]
            assert not c.get("missing")
            for key in ("mean", "std"):
                assert isinstance(c[key], float) and 0 <= c[key] <= 100
            assert c["beta"] in (1e-2, 1e-4)
    md = (tmp_path / "table1.md").read_text()
    assert "Protocol: paper" in md and "Protocol: fair" in md and "77.1 ± 1.4" in md
    assert "missing" not in md
    # each unit's epoch checkpoint is removed once its record is saved
    assert list((tmp_path / "checkpoints").glob("*")) == []

    # A second invocation resumes: every unit is skipped, no line is added;
    # its --note heads the rewritten report.
    proc, second = _run(tmp_path, "--note", "Units of the first invocation.")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "12 already done, 0 to run" in proc.stdout
    assert len(_lines(tmp_path / "table1_runs.jsonl")) == len(runs)
    md = (tmp_path / "table1.md").read_text()
    assert "\nUnits of the first invocation.\n" in md
    assert "--note NOTE` (NOTE: the text above)" in md  # not repeated inside the command
    assert json.loads((tmp_path / "table1.json").read_text())["meta"]["note"] == (
        "Units of the first invocation.")
    assert second < max(first, 30.0)

    # --report-only counts the units it lacks instead of calling them done: with a
    # patience, the 8 paper units are other units; the 4 fair ones ignore it
    proc, _ = _run(tmp_path, "--report-only", "--patience", "5")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "12 units, 4 already done, 0 to run (report only: 8 not run)" in proc.stdout
    assert len(_lines(tmp_path / "table1_runs.jsonl")) == len(runs)
    assert "missing (0/2 folds)" in (tmp_path / "table1.md").read_text()


def test_reproduce_table1_reports_missing_folds(tmp_path):
    """A cell whose folds are incomplete says so instead of estimating."""
    rt = _import_script()
    args = rt.parse(["--quick", "--results-dir", str(tmp_path)])
    rows = [{"beta": b, "test_acc": 50.0, "chosen_beta": b} for b in args.betas]
    assert rt.cell("paper", rows, args) == {"missing": True, "folds_done": 1, "folds": 2}
    assert rt.cell("fair", rows[:1], args)["missing"]
    full = rt.cell("fair", rows, args)
    assert full["mean"] == 50.0 and full["std"] == 0.0


def test_reproduce_table1_ablation_overrides_and_learners(tmp_path):
    """``--set`` reaches the estimator and the unit key; ``--learners`` picks the rows;
    units saved before ``overrides`` existed still match a run without ``--set``."""
    rt = _import_script()
    args = rt.parse(["--quick", "--results-dir", str(tmp_path), "--learners", "VIB-GSL",
                     "--set", "feature_mask=False", "--set", "temperature=1.0"])
    units = rt.plan(args)
    assert units and all(u["structure"] for u in units)
    assert {u["overrides"] for u in units} == {"feature_mask=False,temperature=1.0"}
    net = rt.make_net(args, "gin", True, 1e-3)
    assert net.feature_mask is False and net.temperature == 1.0
    assert net.structure_mix == 0.0 and net.beta == 1e-3
    mixed = rt.make_net(rt.parse(["--quick", "--set", "structure_mix=0.5"]), "gin", True)
    assert mixed.structure_mix == 0.5  # an override wins over the row's default

    plain = rt.parse(["--quick", "--results-dir", str(tmp_path)])
    unit = rt.plan(plain)[0]
    old_record = {k: v for k, v in unit.items() if k != "overrides"}
    assert rt.unit_key(old_record) == rt.unit_key(unit)
    assert rt.unit_key(old_record) not in {rt.unit_key(u) for u in units}


def test_reproduce_table1_fair_units_ignore_patience(tmp_path):
    """``--patience`` is the paper protocol's: one report covers fair units run without it."""
    rt = _import_script()
    args = rt.parse(["--quick", "--results-dir", str(tmp_path), "--patience", "5",
                     "--protocols", "fair", "paper"])
    units = rt.plan(args)
    assert {u["patience"] for u in units if u["protocol"] == "fair"} == {None}
    assert {u["patience"] for u in units if u["protocol"] == "paper"} == {5}


def test_reproduce_table1_fair_early_stopping_uses_training_graphs_only(tmp_path, monkeypatch):
    """``--fair-patience P`` keys the fair units (not the paper ones) and makes every
    fair fit stop on a validation split of its own training graphs: the refit stops P
    epochs after its best validation cross-entropy, on 10 % of the outer training fold."""
    rt = _import_script()
    args = rt.parse(["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--betas", "1e-2",
                     "1e-4", "--folds", "2", "--inner-folds", "2", "--epochs", "60",
                     "--max-graphs", "200", "--device", "cpu", "--patience", "7",
                     "--fair-patience", "3", "--results-dir", str(tmp_path)])
    units = rt.plan(args)
    assert {u["patience"] for u in units if u["protocol"] == "fair"} == {3}
    assert {u["patience"] for u in units if u["protocol"] == "paper"} == {7}
    # fair units run without a patience are other units
    plain = rt.plan(rt.parse(["--quick", "--results-dir", str(tmp_path)]))
    assert {u["patience"] for u in plain if u["protocol"] == "fair"} == {None}

    unit = next(u for u in units if u["protocol"] == "fair" and u["fold"] == 1)
    seen = _spy_fits(rt, monkeypatch)
    record = rt.run_unit(unit, args, 1)
    assert len(seen) == 2 * 2 + 1  # 2 betas x 2 inner folds, then the refit
    assert record["epochs_run"] < args.epochs
    assert record["epochs_run"] == record["best_epoch"] + 3
    refit = seen[-1]
    assert len(refit.history) == record["epochs_run"]
    valid_graphs = sum(b["valid_batch_size"] for b in refit.history[-1, "batches"]
                       if "valid_batch_size" in b)
    assert valid_graphs == 10  # 10 % of the 100-graph outer training fold
    for net in seen:  # every inner fit stopped on its own split, too
        losses = net.history[:, "valid_ce"]
        assert len(losses) == args.epochs or len(losses) - 1 - int(np.argmin(losses)) == 3


def test_reproduce_table1_fair_patience_steps_count_optimizer_steps(tmp_path, monkeypatch):
    """``--fair-patience-steps S`` keys the fair units (older keys unchanged) and every
    fair fit stops only once its epochs without improvement are ``--fair-patience``
    epochs and hold S optimizer steps (``StepEarlyStopping``)."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--betas", "1e-3",
            "--folds", "2", "--inner-folds", "1", "--epochs", "80", "--max-graphs", "100",
            "--device", "cpu", "--protocols", "fair", "paper", "--fair-patience", "2",
            "--results-dir", str(tmp_path)]
    steps = rt.plan(rt.parse([*base, "--fair-patience-steps", "12"]))
    epochs = rt.plan(rt.parse(base))
    assert {u["patience_steps"] for u in steps if u["protocol"] == "fair"} == {12}
    assert "patience_steps" not in {k for u in steps if u["protocol"] == "paper" for k in u}
    assert {u["patience_steps"] for u in epochs if u["protocol"] == "fair"} == {None}
    # a unit without the setting keeps the key it had before the key existed
    unit = next(u for u in epochs if u["protocol"] == "fair")
    older = {k: v for k, v in unit.items() if k != "patience_steps"}
    assert rt.unit_key(older) == rt.unit_key(unit)
    assert len(rt.unit_key(unit)) == 6 + len(rt.CONFIG_KEYS)
    assert rt.unit_key(unit) not in {rt.unit_key(u) for u in steps}

    args = rt.parse([*base, "--fair-patience-steps", "12", "--learners", "N/A"])
    unit = next(u for u in rt.plan(args) if u["protocol"] == "fair")
    seen = _spy_fits(rt, monkeypatch)
    record = rt.run_unit(unit, args, 1)
    assert record["patience_steps"] == 12
    for net in seen:  # the holdout fit and the refit
        stop = dict(net.callbacks)["early_stopping"]
        assert isinstance(stop, rt.StepEarlyStopping) and stop.patience_steps == 12
        history = net.history
        if len(history) == args.epochs:
            continue
        losses = history[:, "valid_ce"]
        best = int(np.argmin(losses)) + 1
        after = history[best:, "train_batch_count"]
        # stopped at the first epoch where both patiences were spent
        assert len(after) >= 2 and sum(after) >= 12
        assert len(after) == 2 or sum(after[:-1]) < 12
    assert any(len(net.history) < args.epochs for net in seen)
    with pytest.raises(SystemExit):
        rt.parse([*base[:-5], "--results-dir", str(tmp_path), "--fair-patience-steps", "5"])


def test_reproduce_table1_fair_grid_searches_a_parameter_on_training_graphs(
        tmp_path, monkeypatch):
    """``--grid key=v1,v2`` keys the fair units and is searched with beta by the inner
    cross-validation: one fit per (beta, value, inner fold), a refit with the chosen
    value, and the choice recorded; a grid of one value is a single fit with it."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--folds", "2",
            "--inner-folds", "2", "--epochs", "2", "--max-graphs", "60", "--device", "cpu",
            "--protocols", "fair", "--learners", "VIB-GSL", "--results-dir", str(tmp_path)]
    args = rt.parse([*base, "--betas", "1e-3", "--grid", "structure_mix=0.5,1.0"])
    assert rt.fair_grid(args) == {"structure_mix": [0.5, 1.0]}
    units = rt.plan(args)
    assert {u["fair_grid"] for u in units} == {"structure_mix=0.5,1.0"}
    plain = rt.plan(rt.parse([*base, "--betas", "1e-3"]))
    assert rt.unit_key(plain[0]) != rt.unit_key(units[0])

    seen = _spy_fits(rt, monkeypatch, lambda net, X: net.structure_mix)
    record = rt.run_unit(units[0], args, 1)
    assert sorted(seen[:-1]) == [0.5, 0.5, 1.0, 1.0]  # 2 values x 2 inner folds
    assert record["chosen"]["structure_mix"] in (0.5, 1.0)
    assert seen[-1] == record["chosen"]["structure_mix"]  # the refit uses the choice
    assert len(record["inner_scores"]) == 2

    seen.clear()
    one = rt.parse([*base, "--betas", "1e-3", "--grid", "structure_mix=0.5"])
    record = rt.run_unit(rt.plan(one)[0], one, 1)
    assert seen == [0.5] and record["chosen"] == {"structure_mix": 0.5}


def test_reproduce_table1_choose_searches_whole_settings_on_training_graphs(
        tmp_path, monkeypatch):
    """``--choose`` (repeatable) makes each alternative setting one grid of the inner
    search, crossed with beta: one fit per (alternative, inner fold), in the order
    given, then a refit with the chosen alternative's parameters only (the others
    keep the estimator's defaults); the alternatives key the units and the choice
    is recorded. The first alternative wins a tie of inner scores, and a single
    alternative is one fit with it."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--folds", "2",
            "--inner-folds", "2", "--epochs", "2", "--max-graphs", "60", "--device", "cpu",
            "--protocols", "fair", "--learners", "VIB-GSL", "--betas", "1e-3",
            "--results-dir", str(tmp_path)]
    choose = ["--choose", "structure_mix=1.0", "--choose", "observed_branch=True;structure_k=3"]
    args = rt.parse([*base, *choose])
    assert rt.fair_choices(args) == [{"structure_mix": 1.0},
                                     {"observed_branch": True, "structure_k": 3}]
    assert rt.search_space(args) == [
        {"vibgslclassifier__beta": [1e-3], "vibgslclassifier__structure_mix": [1.0]},
        {"vibgslclassifier__beta": [1e-3], "vibgslclassifier__observed_branch": [True],
         "vibgslclassifier__structure_k": [3]}]
    unit = rt.plan(args)[0]
    assert unit["fair_choices"] == "structure_mix=1.0 | observed_branch=True;structure_k=3"
    assert rt.unit_key(unit) != rt.unit_key(rt.plan(rt.parse(base))[0])
    # without --choose a unit keeps the key it had before the option existed
    assert "fair_choices" not in repr(rt.unit_key(rt.plan(rt.parse(base))[0]))

    def setting(net, X):
        return net.structure_mix, net.observed_branch, net.structure_k

    seen = _spy_fits(rt, monkeypatch, setting)
    record = rt.run_unit(unit, args, 1)
    observed, channel = (1.0, False, None), (0.0, True, 3)
    assert seen[:-1] == [observed, observed, channel, channel]  # 2 alternatives x 2 folds
    chosen = observed if record["chosen"] == {"structure_mix": 1.0} else channel
    assert record["chosen"] in ({"structure_mix": 1.0},
                                {"observed_branch": True, "structure_k": 3})
    assert seen[-1] == chosen  # the refit uses the choice, and only the choice
    assert len(record["inner_scores"]) == 2

    # a tie of the inner scores goes to the first alternative given
    monkeypatch.setattr(rt.VIBGSLClassifier, "score", lambda net, X, y: 0.5)
    seen.clear()
    record = rt.run_unit(rt.plan(args)[1], args, 1)
    assert record["inner_scores"] == [50.0, 50.0] and seen[-1] == observed
    assert record["chosen"] == {"structure_mix": 1.0}

    seen.clear()
    one = rt.parse([*base, "--choose", "observed_branch=True;structure_k=3"])
    record = rt.run_unit(rt.plan(one)[0], one, 1)
    assert seen == [channel] and record["chosen"] == {"observed_branch": True,
                                                      "structure_k": 3}


def test_reproduce_table1_fair_min_classes_keeps_no_one_class_epoch(tmp_path, monkeypatch):
    """``--fair-min-classes C`` keys the fair units (older keys unchanged), hands C to
    every fit's ``StepEarlyStopping``, and the record says how many classes the kept
    epoch predicted on the refit's validation graphs (at least C; on this fold the
    plain rule keeps an epoch that predicts one class)."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--betas", "1e-3",
            "--folds", "3", "--inner-folds", "1", "--epochs", "30", "--max-graphs", "100",
            "--device", "cpu", "--protocols", "fair", "--fair-patience", "2",
            "--learners", "N/A", "--results-dir", str(tmp_path)]
    args = rt.parse([*base, "--fair-min-classes", "2", "--only-folds", "0"])
    unit = rt.plan(args)[0]
    plain_args = rt.parse([*base, "--only-folds", "0"])
    plain = rt.plan(plain_args)[0]
    assert unit["min_classes"] == 2 and plain["min_classes"] is None
    assert "min_classes" not in repr(rt.unit_key(plain))
    assert rt.unit_key(unit) != rt.unit_key(plain)

    seen = []

    class Spy(rt.StepEarlyStopping):
        def on_train_end(self, net, **kwargs):
            classes = net.history[:, "valid_classes"]
            seen.append((self.min_classes, self.best_epoch_, classes))
            super().on_train_end(net, **kwargs)

    monkeypatch.setattr(rt, "StepEarlyStopping", Spy)
    record = rt.run_unit(unit, args, 1)
    min_classes, best, classes = seen[-1]
    assert min_classes == 2 and best == record["best_epoch"]
    assert record["min_classes"] == 2 and record["kept_valid_classes"] == classes[best - 1] >= 2
    # the epochs before the first two-class one were neither kept nor counted
    assert best >= classes.index(2) + 1 and record["epochs_run"] >= classes.index(2) + 1 + 2
    before = rt.run_unit(plain, plain_args, 1)
    assert before["kept_valid_classes"] == 1 and before["best_epoch"] < best
    skip = rt.plan(rt.parse([*base, "--fair-min-classes", "2", "--fair-skip-few-classes"]))[0]
    assert skip["skip_few_classes"] is True and rt.unit_key(skip) != rt.unit_key(unit)
    assert unit["skip_few_classes"] is None
    sized = rt.plan(rt.parse([*base, "--fair-min-classes", "2", "--fair-skip-few-classes",
                              "--fair-min-class-size", "2"]))[0]
    assert sized["min_class_size"] == 2 and unit["min_class_size"] is None
    assert rt.unit_key(sized) != rt.unit_key(skip)
    assert "min_class_size" not in repr(rt.unit_key(skip))
    for bad in (["--fair-min-classes", "1"], ["--fair-skip-few-classes"],
                ["--fair-min-classes", "2", "--fair-patience", "0"],
                ["--fair-min-class-size", "2"],
                ["--fair-min-classes", "2", "--fair-min-class-size", "1"]):
        with pytest.raises(SystemExit):
            rt.parse([*base, *bad])


def test_reproduce_table1_fair_start_epoch_keeps_no_earlier_epoch(tmp_path, monkeypatch):
    """``--fair-start-epoch E`` keys the fair units (older keys unchanged), hands E to
    every fit's ``StepEarlyStopping`` and records as best epoch the first minimum of the
    validation cross-entropy from epoch E on, which is the epoch whose weights the refit
    kept; ``--only-folds`` plans those outer folds only."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--betas", "1e-3",
            "--folds", "3", "--inner-folds", "1", "--epochs", "30", "--max-graphs", "60",
            "--device", "cpu", "--protocols", "fair", "--fair-patience", "2",
            "--learners", "N/A", "--results-dir", str(tmp_path)]
    args = rt.parse([*base, "--fair-start-epoch", "6", "--only-folds", "2", "0"])
    units = rt.plan(args)
    assert [u["fold"] for u in units] == [2, 0] and {u["start_epoch"] for u in units} == {6}
    plain = rt.plan(rt.parse(base))[0]
    assert plain["start_epoch"] is None and "start_epoch" not in repr(rt.unit_key(plain))
    assert rt.unit_key(units[1]) != rt.unit_key(plain)

    kept = []

    class Spy(rt.StepEarlyStopping):
        def on_train_end(self, net, **kwargs):
            kept.append((self.start_epoch, self.best_epoch_))
            super().on_train_end(net, **kwargs)

    monkeypatch.setattr(rt, "StepEarlyStopping", Spy)
    record = rt.run_unit(units[0], args, 1)
    assert record["start_epoch"] == 6 and record["fold"] == 2
    assert kept[-1] == (6, record["best_epoch"]) and record["best_epoch"] >= 6
    assert record["epochs_run"] >= 6 - 1 + 2
    assert 0 < record["seconds"] < 300  # the unit's own wall time
    for bad in (["--fair-start-epoch", "1"], ["--only-folds", "3"]):
        with pytest.raises(SystemExit):
            rt.parse([*base, *bad])


def test_reproduce_table1_inner_scoring_chooses_by_the_inner_cross_entropy(
        tmp_path, monkeypatch):
    """``--inner-scoring neg_log_loss``: each inner fit is scored by the cross-entropy of
    its predicted probabilities on its held-out graphs (recorded as it is, not in %),
    the alternative of the higher mean is refit, and the scoring keys the unit (a unit
    without it keeps its older key)."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--folds", "2",
            "--inner-folds", "2", "--epochs", "2", "--max-graphs", "60", "--device", "cpu",
            "--protocols", "fair", "--learners", "VIB-GSL", "--betas", "1e-3",
            "--choose", "structure_mix=1.0", "--choose", "observed_branch=True;structure_k=3",
            "--results-dir", str(tmp_path), "--no-checkpoints"]  # each run scores afresh
    args = rt.parse([*base, "--inner-scoring", "neg_log_loss"])
    unit = rt.plan(args)[0]
    assert unit["inner_scoring"] == "neg_log_loss"
    assert rt.unit_key(unit) != rt.unit_key(rt.plan(rt.parse(base))[0])
    assert "inner_scoring" not in repr(rt.unit_key(rt.plan(rt.parse(base))[0]))

    def constant(sure_setting):
        """One setting predicts (1/2, 1/2) for every graph, a cross-entropy of ln 2 whatever
        the labels; the other (0.99, 0.01), of at least ln(100)/2 on two balanced classes."""
        def proba(net, X):
            row = [0.5, 0.5] if (net.structure_mix == 1.0) == sure_setting else [0.99, 0.01]
            return np.tile(row, (len(X), 1))
        return proba

    for observed_wins in (True, False):
        monkeypatch.setattr(rt.VIBGSLClassifier, "predict_proba", constant(observed_wins))
        record = rt.run_unit(unit, args, 1)
        expected = {"structure_mix": 1.0} if observed_wins else {"observed_branch": True,
                                                                  "structure_k": 3}
        assert record["chosen"] == expected
        scores = record["inner_scores"][::1 if observed_wins else -1]
        np.testing.assert_allclose(scores[0], -np.log(2))
        assert scores[1] < -np.log(100) / 2 + 1e-9


def test_reproduce_table1_inner_holdout_selects_on_one_split_of_the_training_fold(
        tmp_path, monkeypatch):
    """``--inner-folds 1``: one fit per grid value on the same stratified holdout
    split (``--valid-frac`` of the outer training fold held out), then the refit on
    the whole training fold; the split is part of the unit key."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--folds", "2",
            "--epochs", "2", "--max-graphs", "60", "--device", "cpu", "--protocols", "fair",
            "--learners", "VIB-GSL", "--betas", "1e-3", "--grid", "structure_mix=0.5,1.0",
            "--valid-frac", "0.2", "--results-dir", str(tmp_path)]
    args = rt.parse([*base, "--inner-folds", "1"])
    unit = rt.plan(args)[0]
    assert rt.unit_key(unit) != rt.unit_key(rt.plan(rt.parse(base))[0])
    assert "holdout" in rt.inner_text(args)
    seen = _spy_fits(rt, monkeypatch, lambda net, X: (net.structure_mix, len(X)))
    record = rt.run_unit(unit, args, 1)
    n_train = 30  # 60 graphs, 2 outer folds
    assert seen[:-1] == [(0.5, 24), (1.0, 24)]  # 80 % of the training fold each
    assert seen[-1] == (record["chosen"]["structure_mix"], n_train)
    assert len(record["inner_scores"]) == 2
    with pytest.raises(SystemExit):
        rt.parse([*base, "--inner-folds", "0"])


def test_reproduce_table1_random_walk_node_features(tmp_path):
    """``--node-features given+degree+rw`` appends the walk's return probabilities
    (``RW_STEPS`` columns) to the given features and the one-hot degree, and keys
    its own units."""
    rt = _import_script()
    from sk_vibgsl import RandomWalkFeatures

    graphs = [(np.eye(3, 2, dtype=np.float32), np.ones((3, 3)) - np.eye(3)),  # a triangle
              (np.eye(2, 2, dtype=np.float32), np.array([[0.0, 1], [1, 0]]))]  # an edge
    plain = rt.degree_features({"node_features": "given+degree"}).fit(graphs)
    walk = rt.degree_features({"node_features": "given+degree+rw"}).fit(graphs)
    for (x_plain, _), (x_walk, adj), (feats, _) in zip(
            plain.transform(graphs), walk.transform(graphs), graphs):
        width = x_plain.shape[1]
        assert x_walk.shape == (len(feats), width + rt.RW_STEPS)
        np.testing.assert_array_equal(x_walk[:, :width], x_plain)
        np.testing.assert_array_equal(x_plain[:, :2], feats)  # the given features first
        expected = RandomWalkFeatures(walk_length=rt.RW_STEPS).fit(
            [(feats, adj)]).transform([(feats, adj)])[0][0][:, 2:]
        np.testing.assert_allclose(x_walk[:, width:], expected)
    # triangle: back after 2 steps with probability 1/2; a single edge: always
    np.testing.assert_allclose(walk.transform(graphs)[0][0][:, -rt.RW_STEPS + 1], 0.5)
    np.testing.assert_allclose(walk.transform(graphs)[1][0][:, -rt.RW_STEPS + 1], 1.0)
    base = ["--datasets", "MUTAG", "--backbones", "gcn", "--protocols", "fair",
            "--results-dir", str(tmp_path)]
    keys = {rt.unit_key(rt.plan(rt.parse([*base, "--node-features", kind]))[0])
            for kind in ("given+degree", "given+degree+rw")}
    assert len(keys) == 2


def test_ib_density_counts_dense_and_sparse_ib_graphs_alike():
    """The sparse path's ``ib_graphs`` are scipy.sparse arrays: same density."""
    import scipy.sparse as sp

    rt = _import_script()
    adj = np.array([[0.5, 0.2, 0.0], [0.2, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert rt.ib_density(adj) == pytest.approx(2 / 6)
    assert rt.ib_density(sp.csr_array(adj)) == pytest.approx(2 / 6)
    assert rt.ib_density(np.zeros((1, 1))) == 0.0


def test_reproduce_table1_lr_step_schedule(tmp_path):
    """``--lr-step EPOCHS FACTOR`` decays the optimizer's rate during fit and keys the units;
    units saved before the option existed still match a run without it."""
    rt = _import_script()
    args = rt.parse(["--quick", "--results-dir", str(tmp_path), "--lr-step", "1", "0.5"])
    assert {u["lr_schedule"] for u in rt.plan(args)} == {"StepLR(step_size=1, gamma=0.5)"}

    graphs, y = rt.load("IMDB-BINARY", args.data_home, 40, 0)
    X = rt.DegreeFeatures().fit_transform(graphs)
    net = rt.make_net(args, "gin", True, 1e-3, max_epochs=3, lr=0.008).fit(X, y)
    # StepLR steps after each epoch: 0.008 -> 0.004 -> 0.002 -> 0.001
    assert net.optimizer_.param_groups[0]["lr"] == 0.001

    plain = rt.parse(["--quick", "--results-dir", str(tmp_path)])
    assert rt.make_net(plain, "gin", True).callbacks is None
    unit = rt.plan(plain)[0]
    old_record = {k: v for k, v in unit.items() if k != "lr_schedule"}
    assert rt.unit_key(old_record) == rt.unit_key(unit)
    assert rt.unit_key(unit) not in {rt.unit_key(u) for u in rt.plan(args)}


def test_reproduce_table1_killed_unit_resumes_from_its_last_epoch(tmp_path, monkeypatch):
    """A paper-protocol unit killed after epoch 2 of 4 resumes at epoch 3 and ends
    exactly where the uninterrupted unit ends: same weights, same history, same record."""
    import pytest
    import torch

    rt = _import_script()
    threads = torch.get_num_threads()

    def unit_for(results):
        args = rt.parse(["--quick", "--results-dir", str(results)])
        args.epochs = 4
        unit = next(u for u in rt.plan(args) if u["protocol"] == "paper" and u["structure"])
        return args, unit

    try:
        args_a, unit_a = unit_for(tmp_path / "a")
        whole = rt.run_unit(unit_a, args_a, 1)
        state_a = rt.load_checkpoint(rt.unit_checkpoint(args_a, unit_a), rt.unit_key(unit_a))

        args_b, unit_b = unit_for(tmp_path / "b")
        path = rt.unit_checkpoint(args_b, unit_b)
        on_epoch_end = rt.ValidTestTracker.on_epoch_end

        def killed_in_epoch_3(self, net, **kwargs):
            if len(net.history) == 3:
                raise RuntimeError("killed")
            on_epoch_end(self, net, **kwargs)

        monkeypatch.setattr(rt.ValidTestTracker, "on_epoch_end", killed_in_epoch_3)
        with pytest.raises(RuntimeError, match="killed"):
            rt.run_unit(unit_b, args_b, 1)
        assert rt.epochs_done(rt.load_checkpoint(path, rt.unit_key(unit_b))) == 2
        assert rt.in_progress(args_b, rt.plan(args_b)) == [(unit_b, "2/4 epochs")]
        monkeypatch.setattr(rt.ValidTestTracker, "on_epoch_end", on_epoch_end)
        resumed = rt.run_unit(unit_b, args_b, 1)
        state_b = rt.load_checkpoint(path, rt.unit_key(unit_b))
    finally:
        torch.set_num_threads(threads)

    assert "resumed_after_epoch" not in whole and resumed["resumed_after_epoch"] == 2
    for key in ("test_acc", "best_epoch", "epochs_run", "min_valid_loss", "last_test_acc"):
        assert resumed[key] == whole[key], key
    assert rt.epochs_done(state_a) == rt.epochs_done(state_b) == 4
    for name in ("train_loss", "valid_logloss", "test_acc"):
        assert [h[name] for h in state_b["history"]] == [h[name] for h in state_a["history"]]
    for name, value in state_a["module"].items():
        assert torch.equal(state_b["module"][name], value), name

    # A checkpoint is only taken for its own unit.
    other = dict(unit_b, fold=1)
    with pytest.raises(ValueError, match="not of"):
        rt.load_checkpoint(path, rt.unit_key(other))


def test_reproduce_table1_killed_fair_unit_resumes_with_the_inner_fits_it_lacks(
        tmp_path, monkeypatch):
    """A fair unit killed in its second inner fit keeps the first one's score; run
    again, it fits only the second candidate and the refit, and its record equals the
    uninterrupted unit's; the saved scores go once the record is written."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--folds", "2",
            "--epochs", "2", "--max-graphs", "60", "--device", "cpu", "--protocols", "fair",
            "--learners", "VIB-GSL", "--betas", "1e-3", "--grid", "structure_mix=0.5,1.0",
            "--inner-folds", "1", "--fair-patience", "1"]
    threads = torch.get_num_threads()
    try:
        args_a = rt.parse([*base, "--results-dir", str(tmp_path / "a")])
        whole = rt.run_unit(rt.plan(args_a)[0], args_a, 1)
        args = rt.parse([*base, "--results-dir", str(tmp_path / "b")])
        unit = rt.plan(args)[0]
        path = rt.inner_checkpoint(args, unit)
        real_fit = rt.VIBGSLClassifier.fit
        fits = []

        def killed_in_fit_2(net, X, y=None, **kw):
            fits.append(net.structure_mix)
            if len(fits) == 2:
                raise RuntimeError("killed")
            return real_fit(net, X, y, **kw)

        monkeypatch.setattr(rt.VIBGSLClassifier, "fit", killed_in_fit_2)
        with pytest.raises(RuntimeError, match="killed"):
            rt.run_unit(unit, args, 1)
        assert list(rt.load_scores(path, rt.unit_key(unit))) == ["0/0"]
        assert rt.in_progress(args, [unit]) == [(unit, "1 inner fits")]
        monkeypatch.undo()
        seen = _spy_fits(rt, monkeypatch, lambda net, X: net.structure_mix)
        resumed = rt.run_unit(unit, args, 1)
    finally:
        torch.set_num_threads(threads)
    assert seen == [1.0, resumed["chosen"]["structure_mix"]]
    assert resumed["resumed_inner_fits"] == 1 and "resumed_inner_fits" not in whole
    for key in ("inner_scores", "chosen", "test_acc", "test_predicted", "ib_density",
                "epochs_run", "best_epoch"):
        assert resumed[key] == whole[key], key
    assert rt.unit_checkpoint(args, unit) is None  # fair units keep no epochs
    assert rt.inner_checkpoint(rt.parse([*base, "--no-checkpoints"]), unit) is None

    # the script removes the scores once the unit's record is saved
    assert path.exists()
    monkeypatch.undo()
    monkeypatch.setattr(rt, "plan", lambda a: [unit])
    sys.path.insert(0, str(SCRIPT.parent))  # main() imports its workers from the script
    try:
        import reproduce_table1 as worker_module
        monkeypatch.setattr(worker_module, "run_unit", lambda u, a, t, o=None: dict(
            resumed, seconds=0.0))
        rt.main([*base, "--results-dir", str(tmp_path / "b")])
    finally:
        sys.path.remove(str(SCRIPT.parent))
    assert not path.exists()
    assert len(_lines(tmp_path / "b" / "table1_runs.jsonl")) == 1


def test_epoch_checkpoint_of_an_orphaned_worker_exits_without_saving(tmp_path, monkeypatch):
    """A worker left running after its run's main process was killed must not
    write the unit's checkpoint (a new run of the unit may own the file)."""
    import pytest

    EpochCheckpoint = _import_script().EpochCheckpoint

    class Net:  # what on_epoch_end reads, for a saving callback
        module_ = optimizer_ = type("S", (), {"state_dict": lambda self: {}})()
        history = type("H", (), {"to_list": lambda self: []})()

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()

    class Exited(Exception):
        pass

    def fake_exit(code):
        raise Exited(code)

    monkeypatch.setattr(os, "_exit", fake_exit)
    for owner in (os.getpid(), os.getppid(), None):  # a live owner: the run itself or a worker's
        path = tmp_path / f"owner-{owner}.pt"
        EpochCheckpoint(path, ("k",), owner=owner).on_epoch_end(Net())
        assert path.exists()
    path = tmp_path / "orphan.pt"
    with pytest.raises(Exited):
        EpochCheckpoint(path, ("k",), owner=dead.pid).on_epoch_end(Net())
    assert not path.exists() and not path.with_suffix(".tmp").exists()


def test_code_version_ignores_results_but_not_code(tmp_path):
    """``+dirty`` marks changed code under sk_vibgsl/ or benchmarks/, not a
    results file the running benchmark appends to."""
    import importlib.util
    import shutil

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "sk_vibgsl").mkdir()
    shutil.copy(SCRIPT.parent / "_machine.py", tmp_path / "benchmarks" / "_machine.py")
    runs = tmp_path / "benchmarks" / "results" / "runs.jsonl"
    runs.write_text("{}\n")
    code = tmp_path / "sk_vibgsl" / "model.py"
    code.write_text("x = 1\n")
    try:
        git("init", "-q")
        git("add", ".")
        git("commit", "-q", "-m", "init")
    except (OSError, subprocess.CalledProcessError):
        import pytest
        pytest.skip("git is not available")
    spec = importlib.util.spec_from_file_location("_machine_copy",
                                                  tmp_path / "benchmarks" / "_machine.py")
    machine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(machine)
    clean = machine.code_version()
    assert clean is not None and "+" not in clean
    runs.write_text("{}\n{}\n")  # a run appended a record
    assert machine.code_version() == clean
    code.write_text("x = 2\n")  # the model changed
    assert machine.code_version() == clean + "+dirty"


def test_recorded_command_names_python_and_quotes_the_arguments():
    """A record's command reads ``python`` and the arguments, shell-quoted, so
    that it re-runs on any machine from the repository root."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from _machine import recorded_command
    finally:
        sys.path.remove(str(SCRIPT.parent))
    args = ["--vib", 'edge_score="cosine"', "--note", "two words"]
    expected = "python benchmarks/x.py --vib 'edge_score=\"cosine\"' --note 'two words'"
    # the script relative to the repository root, however it was named
    for script in ("benchmarks/x.py", str(ROOT / "benchmarks" / "x.py")):
        assert recorded_command([script, *args]) == expected
    assert shlex.split(expected) == ["python", "benchmarks/x.py", *args]
    # a script outside the repository keeps its name
    assert recorded_command(["/elsewhere/y.py"]) == "python /elsewhere/y.py"


def test_reproduce_table1_records_the_gate_a_learn_mix_refit_learned(tmp_path, monkeypatch):
    """With ``learn_mix=True`` the record keeps the refit's learned λ (its
    ``module_.mix``), which training moved away from its start ``structure_mix``;
    without it the record has no such field."""
    rt = _import_script()
    base = ["--datasets", "IMDB-BINARY", "--backbones", "gcn", "--folds", "2",
            "--epochs", "2", "--max-graphs", "60", "--device", "cpu", "--protocols", "fair",
            "--learners", "VIB-GSL", "--betas", "1e-3", "--results-dir", str(tmp_path)]
    fitted = _spy_fits(rt, monkeypatch)
    args = rt.parse([*base, "--set", "structure_mix=0.5", "--set", "learn_mix=True"])
    record = rt.run_unit(rt.plan(args)[0], args, 1)
    assert record["learned_mix"] == fitted[-1].module_.mix.item()
    assert 0 < record["learned_mix"] < 1 and record["learned_mix"] != 0.5
    args = rt.parse([*base, "--set", "structure_mix=0.5"])
    assert "learned_mix" not in rt.run_unit(rt.plan(args)[0], args, 1)
    # with observed_branch=True it keeps the learned channel's gate alpha (which starts at 0)
    args = rt.parse([*base, "--set", "observed_branch=True"])
    record = rt.run_unit(rt.plan(args)[0], args, 1)
    assert record["branch_gate"] == fitted[-1].module_.branch_gate.item() != 0.0
