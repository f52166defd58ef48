"""Smoke test of ``benchmarks/capacity_probe.py``: runs on fold 0's training
graphs only, writes its records and report, and skips finished settings."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_datasets
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "capacity_probe.py"
DATA = shared_datasets()
pytestmark = pytest.mark.skipif(DATA is None or not (DATA / "MUTAG").is_dir(),
                                reason="needs ../shared/datasets/MUTAG")


def _run(tmp_path, *settings):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [sys.executable, str(SCRIPT), "--dataset", "MUTAG", "--data-home", str(DATA),
            "--epochs", "2", "--results-dir", str(tmp_path)]
    for s in settings:
        args += ["--setting", s]
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=True)


def test_capacity_probe_scores_a_split_of_fold_0_training_graphs_and_resumes(tmp_path):
    _run(tmp_path, "obs:backbone=gin,structure_mix=1", "wide:hidden_dim=32")
    records = [json.loads(line) for line in (tmp_path / "capacity_probe.jsonl").open()]
    assert [r["name"] for r in records] == ["obs", "wide"]
    assert records[0]["params"] == {"backbone": "gin", "structure_mix": 1}
    assert records[1]["params"] == {"hidden_dim": 32}
    # each setting's own command, without the run's other settings or folders
    assert records[1]["command"] == ("python benchmarks/capacity_probe.py --dataset MUTAG "
                                     "--epochs 2 --setting wide:hidden_dim=32")
    for r in records:
        assert len(r["valid_acc"]) == 2 and all(0 <= a <= 1 for a in r["valid_acc"])
    # the validation graphs are 20 % of outer fold 0's training graphs, never its test fold:
    # every validation accuracy is a multiple of 1 / (their count)
    from sk_vibgsl.datasets import load_tu_dataset

    _, y = load_tu_dataset("MUTAG", data_home=str(DATA), download_if_missing=False,
                           return_X_y=True)
    train, _ = next(StratifiedKFold(10, shuffle=True, random_state=0).split(np.zeros(len(y)), y))
    n_valid = round(0.2 * len(train))
    for a in records[0]["valid_acc"]:
        assert abs(a * n_valid - round(a * n_valid)) < 1e-6
    report = (tmp_path / "capacity_probe.md").read_text()
    assert "| MUTAG | obs | backbone=gin, structure_mix=1 |" in report
    # a finished setting is skipped; a new one is added
    out = _run(tmp_path, "obs:backbone=gin,structure_mix=1", "gcn:structure_mix=1")
    records = [json.loads(line) for line in (tmp_path / "capacity_probe.jsonl").open()]
    assert [r["name"] for r in records] == ["obs", "wide", "gcn"]
    assert "MUTAG obs" not in out.stdout
