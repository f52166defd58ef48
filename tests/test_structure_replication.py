"""``benchmarks/structure_replication.py``: the structure study pooled over seeds."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import benchmark_script, shared_datasets

DATA = shared_datasets()
pytestmark = pytest.mark.skipif(DATA is None or not (DATA / "MUTAG").is_dir(),
                                reason="needs ../shared/datasets/MUTAG")


def _import_scripts():
    return benchmark_script("structure_study"), benchmark_script("structure_replication")


def _write(folder: Path, seed: int, accs) -> None:
    folder.mkdir(parents=True)
    with (folder / "table1_runs.jsonl").open("w") as f:
        for fold, acc in enumerate(accs):
            f.write(json.dumps({
                "protocol": "fair", "dataset": "MUTAG", "backbone": "gin", "fold": fold,
                "n_folds": 10, "seed": seed, "test_acc": float(acc), "ib_density": 0.5,
                "chosen_beta": 1e-3, "fair_betas": "0.001", "chosen": {}}) + "\n")


def _study(study, folder: Path, seed: int, observed, settings: dict) -> None:
    _write(folder / "observed", seed, observed)
    for name, accs in settings.items():
        _write(folder / name, seed, accs)
    study.write(study.compare(folder, str(DATA)), folder)


def test_rows_pool_the_folds_of_every_seed(tmp_path):
    """The mean and std of the pooled fold differences, folds won-tied-lost summed,
    seeds counted against the goals' thresholds, and collapses of the setting and of
    its yardstick; a setting run on one seed has no row."""
    study, replication = _import_scripts()
    rng = np.random.default_rng(0)
    obs3, obs4 = rng.uniform(75, 95, 10).round(1), rng.uniform(75, 95, 10).round(1)
    obs4[2] = 10.0  # below any fold's majority-class rate: a collapsed yardstick fold
    d3 = np.array([2.0, -1.0, 0.0, 3.0, 1.0, -2.0, 0.0, 1.0, 1.0, 5.0])  # mean +1.0
    # the setting recovers fold 2 and collapses on fold 9 (at most 95 - 64 = 31 %)
    d4 = np.array([-1.0, -1.0, 70.0, 0.0, -2.0, -1.0, -1.0, -1.0, -1.0, -64.0])
    _study(study, tmp_path / "s3", 3, obs3, {"mix": obs3 + d3, "once": obs3})
    _study(study, tmp_path / "s4", 4, obs4, {"mix": obs4 + d4})
    rows = replication.replicate(replication.collect([tmp_path / "s3", tmp_path / "s4"]))
    assert [r["setting"] for r in rows] == ["mix"]
    row = rows[0]
    pooled = np.concatenate([d3, d4])
    assert row["seeds"] == [3, 4]
    assert row["paired_diff"] == pytest.approx([d3.mean(), d4.mean()])
    assert row["mean_diff"] == pytest.approx(pooled.mean())
    assert row["fold_std"] == pytest.approx(pooled.std())
    assert (row["won"], row["tied"], row["lost"]) == (6 + 1, 2 + 1, 2 + 8)
    assert (row["seeds_gain"], row["seeds_below"]) == (1, 0)  # d4's mean is -0.2
    assert (row["collapsed"], row["yardstick"], row["yardstick_collapsed"]) == (
        1, "observed", 1)
    out = tmp_path / "replication.md"
    replication.write(rows, [tmp_path / "s3", tmp_path / "s4"], out)
    line = next(x for x in out.read_text().splitlines() if x.startswith("| MUTAG"))
    assert "| 3,4 | +1.0 / -0.2 | +0.40 ± 0.60 |" in line
    assert "| 1 ⚠ / 1 ⚠ |" in line


def test_one_seed_in_two_folders_is_refused(tmp_path):
    study, replication = _import_scripts()
    observed = np.full(10, 80.0)
    _study(study, tmp_path / "a", 3, observed, {"mix": observed + 1})
    _study(study, tmp_path / "b", 3, observed, {"mix": observed - 1})
    with pytest.raises(ValueError, match="seed 3 twice"):
        replication.collect([tmp_path / "a", tmp_path / "b"])


def test_a_setting_is_also_paired_with_its_control(tmp_path):
    """``NAME`` against ``NAME_control`` per fold in the study's report, pooled
    over seeds by ``replicate(..., against="control")``; settings without a
    control get no such row."""
    study, replication = _import_scripts()
    observed = np.full(10, 80.0)
    d3 = np.array([2.0, -1.0, 0.0, 3.0, 1.0, -2.0, 0.0, 1.0, 1.0, 5.0])
    d4 = np.array([1.0, 1.0, 0.0, 0.0, -2.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    for seed, d in ((3, d3), (4, d4)):
        control = observed + np.arange(10) / 10
        _study(study, tmp_path / f"s{seed}", seed, observed,
               {"branch": control + d, "branch_control": control, "mix": observed + 1})
    summary = json.loads((tmp_path / "s3" / "summary.json").read_text())
    versus = summary["cells"]["MUTAG gin"]["branch"]["vs_control"]
    assert versus["against"] == "branch_control"
    assert versus["paired_diff"] == pytest.approx(d3.mean())
    assert "Against its control" in (tmp_path / "s3" / "README.md").read_text()
    per_key = replication.collect([tmp_path / "s3", tmp_path / "s4"])
    rows = replication.replicate(per_key, against="control")
    assert [r["setting"] for r in rows] == ["branch"]
    pooled = np.concatenate([d3, d4])
    assert rows[0]["mean_diff"] == pytest.approx(pooled.mean())
    assert rows[0]["fold_std"] == pytest.approx(pooled.std())
    assert (rows[0]["won"], rows[0]["tied"], rows[0]["lost"]) == (6 + 7, 2 + 2, 2 + 1)
    assert rows[0]["yardstick"] == "branch_control"
    out = tmp_path / "replication.md"
    replication.write(replication.replicate(per_key), [tmp_path / "s3"], out, rows)
    text = out.read_text()
    assert text.index("## Against its control") < text.index("| 13–4–3 |")


def test_a_setting_that_extends_one_shares_its_control(tmp_path):
    """``branch_cos_top4`` has no control of its own and is paired with
    ``branch_control``; a suffixed setting only with the control of its suffix;
    the control itself with none."""
    study, replication = _import_scripts()
    settings = {"branch_control": {}, "branch_control__deep": {}, "mix05": {}}
    assert study.control_of("branch_cos_top4", settings) == "branch_control"
    assert study.control_of("branch", settings) == "branch_control"
    assert study.control_of("branch__deep", settings) == "branch_control__deep"
    assert study.control_of("branch__sum", settings) is None
    assert study.control_of("branch_control", settings) is None
    assert study.control_of("mix05", settings) is None
    observed = np.full(10, 80.0)
    d = np.array([2.0, -1.0, 0.0, 3.0, 1.0, -2.0, 0.0, 1.0, 1.0, 5.0])
    for seed in (3, 4):
        control = observed + np.arange(10) / 10
        _study(study, tmp_path / f"s{seed}", seed, observed,
               {"branch_cos": control + d, "branch_control": control})
    per_key = replication.collect([tmp_path / "s3", tmp_path / "s4"])
    rows = replication.replicate(per_key, against="control")
    assert [(r["setting"], r["yardstick"]) for r in rows] == [("branch_cos", "branch_control")]
    assert rows[0]["mean_diff"] == pytest.approx(d.mean())


def test_two_settings_are_paired_fold_by_fold(tmp_path):
    """``versus`` pools ``setting − other`` over the folds of the seeds where both ran
    every fold (a seed where ``other`` lacks a fold is left out) and the report shows
    it in its own section."""
    study, replication = _import_scripts()
    observed = np.full(10, 80.0)
    d3 = np.array([2.0, -1.0, 0.0, 3.0, 1.0, -2.0, 0.0, 1.0, 1.0, 5.0])
    d4 = np.array([1.0, 1.0, 0.0, 0.0, -2.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    for seed, d in ((3, d3), (4, d4), (5, d4)):
        other = observed + np.arange(10) / 10
        _study(study, tmp_path / f"s{seed}", seed, observed, {"a": other + d, "b": other})
    runs = tmp_path / "s5" / "b" / "table1_runs.jsonl"
    runs.write_text("\n".join(runs.read_text().splitlines()[:9]) + "\n")  # b lacks fold 9
    dirs = [tmp_path / f"s{s}" for s in (3, 4, 5)]
    rows = replication.versus(dirs, "a", "b")
    assert len(rows) == 1 and rows[0]["seeds"] == [3, 4]
    pooled = np.concatenate([d3, d4])
    assert rows[0]["paired_diff"] == pytest.approx([d3.mean(), d4.mean()])
    assert rows[0]["mean_diff"] == pytest.approx(pooled.mean())
    assert rows[0]["fold_std"] == pytest.approx(pooled.std())
    assert (rows[0]["won"], rows[0]["tied"], rows[0]["lost"]) == (13, 4, 3)
    assert replication.versus(dirs, "a", "b", min_seeds=3) == []
    out = tmp_path / "replication.md"
    replication.main(["--results-dirs", *map(str, dirs), "--out", str(out),
                      "--versus", "a", "b"])
    text = out.read_text()
    assert "## Setting against setting" in text
    assert "| MUTAG | GIN | a | b | 3,4 |" in text and "| 13–4–3 |" in text
