"""``benchmarks/structure_study.py``: the paired report of the structure study."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import benchmark_script, shared_datasets

DATA = shared_datasets()
pytestmark = pytest.mark.skipif(DATA is None or not (DATA / "MUTAG").is_dir(),
                                reason="needs ../shared/datasets/MUTAG")


def _import_script():
    return benchmark_script("structure_study")


def _write(folder: Path, accs, **extra) -> None:
    folder.mkdir()
    with (folder / "table1_runs.jsonl").open("w") as f:
        for fold, acc in enumerate(accs):
            record = {"protocol": "fair", "dataset": "MUTAG", "backbone": "gin", "fold": fold,
                      "n_folds": 10, "seed": 3, "test_acc": acc, "ib_density": 0.5,
                      "chosen_beta": 1e-3, "fair_betas": "0.001", "chosen": {}}
            record.update({k: v[fold] for k, v in extra.items()})
            f.write(json.dumps(record) + "\n")


def test_report_pairs_folds_and_shows_the_learned_gate(tmp_path):
    """The paired difference, folds won-tied-lost, and for a ``learn_mix`` setting
    the median (range) of the gates its refits learned."""
    study = _import_script()
    rng = np.random.default_rng(0)
    observed = rng.uniform(70, 90, 10).round(1)
    diff = np.array([2.0, -1.0, 0.0, 3.0, 1.0, -2.0, 0.0, 1.0, 1.0, 5.0])
    gates = np.linspace(0.55, 0.95, 10)
    _write(tmp_path / "observed", observed)
    _write(tmp_path / "gate", observed + diff, learned_mix=gates)
    _write(tmp_path / "fixed", observed - 1.0)
    branch_gates = np.linspace(-0.2, 0.7, 10)
    _write(tmp_path / "branch", observed, branch_gate=branch_gates)
    summary = study.compare(tmp_path, str(DATA))
    cell = summary["cells"]["MUTAG gin"]
    assert cell["gate"]["paired_diff"] == pytest.approx(diff.mean())
    assert (cell["gate"]["won"], cell["gate"]["tied"], cell["gate"]["lost"]) == (6, 2, 2)
    assert cell["gate"]["learned_mix"] == pytest.approx(gates)
    assert "learned_mix" not in cell["fixed"]
    assert cell["branch"]["branch_gate"] == pytest.approx(branch_gates)
    assert "branch_gate" not in cell["gate"]
    study.write(summary, tmp_path)
    rows = {line.split(" | ")[2]: line for line in
            (tmp_path / "README.md").read_text().splitlines() if line.startswith("| MUTAG")}
    assert f"learned λ {np.median(gates):.2f} (0.55–0.95)" in rows["gate"]
    assert f"learned α {np.median(branch_gates):.2f} (-0.20–0.70)" in rows["branch"]
    assert rows["fixed"].endswith("| — |")
    assert "10 outer stratified folds (seed 3)" in (tmp_path / "README.md").read_text()


def test_a_yardstick_with_a_suffix_is_paired_with_the_default_yardstick(tmp_path):
    """``NAME__sum`` pairs with ``observed__sum``, and ``observed__sum`` with
    ``observed``: the suffix's own effect on the observed graph."""
    study = _import_script()
    observed = np.full(10, 80.0)
    _write(tmp_path / "observed", observed)
    _write(tmp_path / "observed__sum", observed + 2.0)
    _write(tmp_path / "mix__sum", observed + 1.0)
    cell = study.compare(tmp_path, str(DATA))["cells"]["MUTAG gin"]
    assert cell["observed__sum"]["paired_diff"] == pytest.approx(2.0)
    assert cell["mix__sum"]["paired_diff"] == pytest.approx(-1.0)
    assert "paired_diff" not in cell["observed"]


def test_a_folder_of_suffixed_rows_only_pairs_each_with_its_own_yardstick(tmp_path):
    """A folder holding ``observed__p50`` and ``NAME__p50`` but no ``observed``
    (a study run at one patience only) is reported; one with no yardstick is refused."""
    study = _import_script()
    observed = np.full(10, 80.0)
    _write(tmp_path / "observed__p50", observed)
    _write(tmp_path / "mix__p50", observed + 1.5)
    cell = study.compare(tmp_path, str(DATA))["cells"]["MUTAG gin"]
    assert cell["mix__p50"]["paired_diff"] == pytest.approx(1.5)
    assert "paired_diff" not in cell["observed__p50"]
    alone = tmp_path / "alone"
    alone.mkdir()
    _write(alone / "mix__p50", observed)
    with pytest.raises(SystemExit, match="run the observed-graph rows first"):
        study.compare(alone, str(DATA))


def test_a_suffixed_setting_is_also_paired_with_its_unsuffixed_self(tmp_path):
    """``mix__sum`` against ``mix``: the suffix's effect on that setting, in
    its own report section; a setting without the plain row gets none."""
    study = _import_script()
    observed = np.full(10, 80.0)
    diff = np.array([1.0, 1.0, 1.0, 0.0, 0.0, -1.0, 2.0, 2.0, 2.0, 2.0])
    _write(tmp_path / "observed", observed)
    _write(tmp_path / "mix", observed - 1.0)
    _write(tmp_path / "mix__sum", observed - 1.0 + diff)
    _write(tmp_path / "hops__sum", observed)
    summary = study.compare(tmp_path, str(DATA))
    cell = summary["cells"]["MUTAG gin"]
    versus = cell["mix__sum"]["vs_unsuffixed"]
    assert versus["against"] == "mix"
    assert versus["paired_diff"] == pytest.approx(diff.mean())
    assert (versus["won"], versus["tied"], versus["lost"]) == (7, 2, 1)
    assert "vs_unsuffixed" not in cell["hops__sum"]
    assert "vs_unsuffixed" not in cell["mix"]
    study.write(summary, tmp_path)
    section = (tmp_path / "README.md").read_text().split("## What each suffix changes")[1]
    rows = [line for line in section.splitlines() if line.startswith("| MUTAG")]
    assert rows == [f"| MUTAG | GIN | mix__sum | mix | {diff.mean():+.1f} ± {diff.std():.1f} "
                    "| 7–2–1 |"]


def test_an_unfinished_cell_reports_its_folds_so_far_paired_on_the_same_folds(tmp_path):
    """A setting with 3 of 10 folds is not averaged as a whole cell, but its folds so
    far are paired with the yardstick's same folds (and said to be partial)."""
    study = _import_script()
    observed = np.arange(70.0, 80.0)
    _write(tmp_path / "observed", observed)
    _write(tmp_path / "sparse", observed[:3] + np.array([2.0, -1.0, 2.0]))
    summary = study.compare(tmp_path, str(DATA))
    cell = summary["cells"]["MUTAG gin"]["sparse"]
    assert "mean" not in cell and cell["folds_done"] == 3
    assert cell["partial"]["folds_run"] == [0, 1, 2]
    assert cell["partial"]["paired_diff"] == pytest.approx(1.0)
    assert (cell["partial"]["won"], cell["partial"]["lost"]) == (2, 1)
    study.write(summary, tmp_path)
    row = next(line for line in (tmp_path / "README.md").read_text().splitlines()
               if line.startswith("| MUTAG | GIN | sparse |"))
    assert "missing (3/10 folds; folds 0, 1, 2: 72.0) | +1.0 ± 1.4 | 2–0–1 |" in row


def test_goals_judge_each_setting_on_the_six_datasets_and_leave_unfinished_ones_open():
    """Goal 1 fails on one finished dataset below −0.5 (−0.51 counts), holds only when
    all six are finished; goal 2 lists the finished datasets at or above +1.0; goal 3
    counts collapsed folds; an unfinished cell decides nothing, a subsampled row and
    the yardsticks are left out."""
    study = _import_script()

    def done(diff, collapsed=()):
        return {"paired_diff": diff, "collapsed_folds": list(collapsed)}

    six = study.GOAL_DATASETS
    cells = {f"{d} gcn": {"observed": {"mean": 80.0, "collapsed_folds": []},
                          "fine": done(1.0 if d == "NCI1" else 0.2),
                          "open": (done(-0.5) if d != "COLLAB" else
                                   {"folds": 10, "partial": {"paired_diff": -4.0,
                                                             "folds_run": [0, 1]}})}
             for d in six}
    cells["MUTAG gcn"]["worse"] = done(1.2, collapsed=[3, 7])
    cells["IMDB-BINARY gcn"]["worse"] = done(-0.51)
    cells["NCI1[1000] gcn"] = {"worse": done(-9.0), "fine": done(-9.0)}
    rows = {r["setting"]: r for r in study.goals({"cells": cells, "seeds": [0]})}
    assert set(rows) == {"fine", "open", "worse"}
    assert (rows["fine"]["never_worse"], rows["fine"]["better"]) == ("yes", ["NCI1"])
    assert rows["open"]["never_worse"] == "open" and rows["open"]["better"] == []
    assert rows["open"]["datasets"]["COLLAB"]["folds_run"] == 2
    worse = rows["worse"]
    assert (worse["never_worse"], worse["below"]) == ("no", ["IMDB-BINARY"])
    assert (worse["better"], worse["collapsed"]) == (["MUTAG"], 2)
    lines = study._goal_lines({"cells": cells, "seeds": [0]})
    assert "| worse | GCN | +1.20 ⚠ | -0.51 | · | · | · | · | no (IMDB-B) | 1: MUTAG | 2 |" \
        in lines
    assert any(line.startswith("| open | GCN |") and "-4.00 (2/10)" in line for line in lines)


def test_a_fold_at_the_majority_rate_is_one_class_only_if_its_predictions_were(tmp_path):
    """Goal 3: of the folds at or below their majority-class rate, those whose refit
    recorded ``test_predicted`` are split into one-class folds (a collapse) and folds
    that predicted both classes (a hard fold); older records without predictions are
    counted as collapsed but not as recorded."""
    study = _import_script()
    majority = study.majority_rates("MUTAG", str(DATA), 10, 3)
    observed = np.full(10, 90.0)
    accs = observed.copy()
    accs[[1, 4, 6]] = [majority[1], majority[4], majority[6] - 5.0]
    predicted = [{"-1": 6, "1": 13}] * 10
    predicted[1] = {"-1": 0, "1": 19}       # one class: a collapse
    predicted[6] = None                     # not recorded (an older record)
    _write(tmp_path / "observed", observed)
    _write(tmp_path / "setting", accs, test_predicted=predicted)
    _write(tmp_path / "older", accs)        # no predictions at all
    summary = study.compare(tmp_path, str(DATA))
    cell = summary["cells"]["MUTAG gin"]
    assert cell["setting"]["collapsed_folds"] == [1, 4, 6]
    assert cell["setting"]["one_class_folds"] == [1]
    assert cell["setting"]["collapsed_unrecorded"] == [6]
    assert "one_class_folds" not in cell["older"]
    rows = {r["setting"]: r for r in study.goals(summary)}
    assert (rows["setting"]["collapsed"], rows["setting"]["one_class"]) == (3, (1, 2))
    assert (rows["older"]["collapsed"], rows["older"]["one_class"]) == (3, None)
    lines = study._goal_lines(summary)
    assert any(line.startswith("| setting | GIN |") and line.endswith("| 3 (1 of 2 one-class) |")
               for line in lines)
    assert any(line.startswith("| older | GIN |") and line.endswith("| 3 |") for line in lines)


def test_a_choice_between_whole_settings_is_counted_per_setting(tmp_path):
    """A setting run with ``--choose`` counts the folds per chosen alternative, named
    as given, not per parameter of the alternatives."""
    study = _import_script()
    choices = "structure_mix=1.0 | observed_branch=True;structure_k=4"
    chosen = [{"structure_mix": 1.0}] * 3 + [{"observed_branch": True, "structure_k": 4}] * 7
    _write(tmp_path / "observed", [80.0] * 10)
    _write(tmp_path / "choice", [81.0] * 10, fair_choices=[choices] * 10, chosen=chosen)
    records = [json.loads(line) for line in
               (tmp_path / "choice" / "table1_runs.jsonl").read_text().splitlines()]
    assert study._chosen_counts(records) == {"observed_branch=True;structure_k=4": 7,
                                             "structure_mix=1.0": 3}
    assert study._chosen_counts(records[:3]) == {"structure_mix=1.0": 3}
    study.main(["--results-dir", str(tmp_path), "--data-home", str(DATA)])
    assert ("observed_branch=True;structure_k=4: 7, structure_mix=1.0: 3"
            in (tmp_path / "README.md").read_text())
