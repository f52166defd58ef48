"""``benchmarks/paired_sets.py``: one setting against the observed graph over sets of folds."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import benchmark_script


def _write(folder: Path, accs, predicted=None, density=0.3, n_folds=10) -> None:
    folder.mkdir(parents=True)
    with (folder / "table1_runs.jsonl").open("w") as f:
        for fold, acc in enumerate(accs[:n_folds]):
            record = {"protocol": "fair", "dataset": "IMDB-MULTI", "backbone": "gin",
                      "fold": fold, "test_acc": float(acc), "ib_density": density,
                      "test_predicted": (predicted or {}).get(fold, {"0": 5, "1": 5})}
            f.write(json.dumps(record) + "\n")


def test_sets_are_paired_fold_by_fold_and_unfinished_sets_left_out(tmp_path, capsys):
    script = benchmark_script("paired_sets")
    rng = np.random.default_rng(0)
    base = [rng.uniform(40, 60, 10).round(1) for _ in range(3)]
    diffs = [np.array([1.0, -1, 0, 2, 0, 0, 1, -2, 3, 1]), np.full(10, -0.5), np.ones(10)]
    for s in range(3):
        # the yardstick of set 1 lives in another folder (--against-dirs)
        _write(tmp_path / f"s{s}" / "observed" if s != 1 else tmp_path / "y1" / "observed",
               base[s], predicted={4: {"0": 10, "1": 0}} if s == 0 else None)
        _write(tmp_path / f"s{s}" / "row", base[s] + diffs[s], density=0.2 + 0.1 * s,
               n_folds=10 if s < 2 else 9)  # set 2 unfinished
    dirs = [tmp_path / f"s{s}" for s in range(3)]
    others = [tmp_path / "s0", tmp_path / "y1", tmp_path / "s2"]
    c = script.cell(dirs, "row", "observed", "IMDB-MULTI", "gin", against_dirs=others)
    assert c["per_set"][0] == pytest.approx(diffs[0].mean())
    assert c["per_set"][1] == pytest.approx(-0.5)
    assert c["per_set"][2] is None
    # the unfinished set's paired folds are shown, not counted
    assert c["partial"][:2] == [None, None]
    assert c["partial"][2] == (pytest.approx(1.0), 9)
    assert c["mean"] == pytest.approx((diffs[0].mean() - 0.5) / 2)
    assert c["won_tied_lost"] == (5, 3, 12)
    assert c["one_class"] == (0, 1)
    assert c["density"] == pytest.approx(0.25)
    # without the yardstick's own folder set 1 has no pairs
    assert script.cell(dirs, "row", "observed", "IMDB-MULTI", "gin")["per_set"][1] is None
    script.main(["--row", "row", "--datasets", "IMDB-MULTI", "--backbones", "gin",
                 "--dirs", *map(str, dirs), "--against-dirs", *map(str, others)])
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith(
        "| IMDB-MULTI | GIN | +0.50 / -0.50 / · (+1.00 on 9) | **+0.00** (2) | 5–3–12 |")
