"""``benchmarks/training_length.py``: a setting's paired gain split by how long its fits trained."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import benchmark_script

tl = benchmark_script("training_length")


def _write(folder, accs, epochs, seed=0, folds=None, cpus=None):
    folder.mkdir(parents=True, exist_ok=True)
    folds = range(len(accs)) if folds is None else folds
    cpus = [None] * len(accs) if cpus is None else cpus
    folder.joinpath("table1_runs.jsonl").write_text("".join(
        json.dumps(dict(protocol="fair", dataset="REDDIT-BINARY", backbone="gcn", fold=f,
                        n_folds=10, seed=seed, test_acc=a, epochs_run=e, best_epoch=e - 20,
                        cpu=c))
        + "\n" for f, a, e, c in zip(folds, accs, epochs, cpus)))


def test_split_means_and_rank_correlation(tmp_path):
    """The long fits' and short fits' mean differences, won-tied-lost, the split by the
    yardstick's length, and Spearman's rho of the setting's epochs against the gain."""
    chan_acc = [90.0, 88.0, 75.0, 74.0, 80.0]
    chan_ep = [200, 150, 40, 60, 100]
    obs_acc = [80.0, 80.0, 76.0, 74.0, 79.0]
    obs_ep = [60, 200, 200, 50, 90]
    _write(tmp_path / "chan", chan_acc, chan_ep)
    _write(tmp_path / "obs", obs_acc, obs_ep)
    rows = tl.paired_folds([(tmp_path / "chan", tmp_path / "obs")], "REDDIT-BINARY", "gcn")
    s = tl.summary(rows, long=120)
    assert s["n"] == 5 and s["won_tied_lost"] == (3, 1, 1)
    assert s["delta"] == pytest.approx(np.mean([10, 8, -1, 0, 1]))
    assert s["by_setting"]["long"]["n"] == 2
    assert s["by_setting"]["long"]["delta"] == pytest.approx(9.0)
    assert s["by_setting"]["short"]["delta"] == pytest.approx(0.0)
    assert s["by_setting"]["long"]["acc"] == (88.0, 90.0)
    assert s["by_yardstick"]["long"]["n"] == 2  # folds 1 and 2 (200 epochs)
    assert s["by_yardstick"]["long"]["delta"] == pytest.approx(3.5)
    # delta ranks 5,4,1,2,3 against epochs ranks 5,4,1,2,3: a perfect rank correlation
    assert s["spearman"][0] == pytest.approx(1.0)
    text = tl.report(rows, s, 120, "t")
    assert "mean Δ **+3.60** (3–1–1)" in text and "| long | 2 | 150–200 | 88.0–90.0 |" in text


def test_pairs_pool_sets_and_skip_unpaired_folds(tmp_path):
    """Two sets of folds pool; a fold only the setting has (still running) is left out."""
    _write(tmp_path / "c0", [80.0, 81.0, 82.0], [100, 130, 150])
    _write(tmp_path / "o0", [79.0, 80.0], [100, 100])
    _write(tmp_path / "c1", [70.0], [40], seed=1)
    _write(tmp_path / "o1", [72.0], [40], seed=1)
    rows = tl.paired_folds([(tmp_path / "c0", tmp_path / "o0"), (tmp_path / "c1", tmp_path / "o1")],
                           "REDDIT-BINARY", "gcn")
    assert [(r["seed"], r["fold"]) for r in rows] == [(0, 0), (0, 1), (1, 0)]
    s = tl.summary(rows, long=120)
    assert s["by_setting"]["long"]["n"] == 1 and s["by_setting"]["short"]["n"] == 2
    assert tl.summary(rows, long=500)["by_setting"]["long"] is None


def test_a_fold_paired_twice_keeps_its_pairing_on_one_cpu(tmp_path):
    """The setting's folds 1-2 resumed on CPU B; the yardstick re-run on B (all folds)
    pairs those folds, the first run (on A) pairs fold 0, in either order of the pairs;
    without CPUs recorded the later pair wins."""
    _write(tmp_path / "c", [80.0, 90.0, 85.0], [100, 200, 150], cpus=["A", "B", "B"])
    _write(tmp_path / "o", [80.0, 80.0, 80.0], [100, 100, 100], cpus=["A"] * 3)
    _write(tmp_path / "o_b", [70.0, 88.0, 86.0], [100, 100, 100], cpus=["B"] * 3)
    first, rerun = (tmp_path / "c", tmp_path / "o"), (tmp_path / "c", tmp_path / "o_b")
    for pairs in ([first, rerun], [rerun, first]):
        rows = tl.paired_folds(pairs, "REDDIT-BINARY", "gcn")
        assert [(r["fold"], r["delta"]) for r in rows] == [(0, 0.0), (1, 2.0), (2, -1.0)]
        assert [tl._cpus(r) for r in rows] == ["A", "B", "B"]
    assert tl._cpus({"cpu": ("AMD EPYC, AVX512", None)}) == "AMD EPYC / ?"
    # a yardstick that names no CPU (older records) stays before one on another CPU
    _write(tmp_path / "o_old", [80.0, 80.0, 80.0], [100, 100, 100])
    old = (tmp_path / "c", tmp_path / "o_old")
    rows = tl.paired_folds([old, rerun], "REDDIT-BINARY", "gcn")
    assert [r["delta"] for r in rows] == [0.0, 2.0, -1.0]  # fold 0 keeps the old pairing
    _write(tmp_path / "c2", [80.0, 90.0], [100, 200])
    _write(tmp_path / "o2", [80.0, 80.0], [100, 100])
    _write(tmp_path / "o2_rerun", [88.0], [100], folds=[1])
    pairs = [(tmp_path / "c2", tmp_path / "o2"), (tmp_path / "c2", tmp_path / "o2_rerun")]
    rows = tl.paired_folds(pairs, "REDDIT-BINARY", "gcn")
    assert [(r["fold"], r["delta"]) for r in rows] == [(0, 0.0), (1, 2.0)]


def test_mismatched_folds_and_missing_lengths_are_errors(tmp_path):
    _write(tmp_path / "c", [80.0], [100], seed=0)
    _write(tmp_path / "o", [80.0], [100], seed=1)
    with pytest.raises(ValueError, match="not the same outer folds"):
        tl.paired_folds([(tmp_path / "c", tmp_path / "o")], "REDDIT-BINARY", "gcn")
    with pytest.raises(ValueError, match="no fold of REDDIT-BINARY gin"):
        tl.paired_folds([(tmp_path / "c", tmp_path / "c")], "REDDIT-BINARY", "gin")
    (tmp_path / "n").mkdir()
    (tmp_path / "n" / "table1_runs.jsonl").write_text(json.dumps(dict(
        protocol="fair", dataset="REDDIT-BINARY", backbone="gcn", fold=0, n_folds=10, seed=0,
        test_acc=80.0)) + "\n")
    with pytest.raises(ValueError, match="no epochs_run"):
        tl.paired_folds([(tmp_path / "c", tmp_path / "n")], "REDDIT-BINARY", "gcn")


def test_command_line_writes_the_report(tmp_path, capsys):
    _write(tmp_path / "c", [80.0, 90.0, 85.0], [50, 200, 130])
    _write(tmp_path / "o", [80.0, 80.0, 85.0], [50, 50, 200])
    out = tmp_path / "r.md"
    tl.main(["--dataset", "REDDIT-BINARY", "--backbone", "gcn", "--pair", str(tmp_path / "c"),
             str(tmp_path / "o"), "--long", "100", "--out", str(out)])
    assert out.read_text() == capsys.readouterr().out.rstrip("\n") + "\n"
    assert "| 0 | 1 | 90.0 | 200 (180) | 80.0 | 50 (30) | +10.0 |" in out.read_text()
    assert "`python benchmarks/training_length.py --dataset REDDIT-BINARY " in out.read_text()
    with pytest.raises(SystemExit):
        tl.main(["--dataset", "X", "--backbone", "gcn", "--pair", "a", "b", "--long", "0"])
