"""``benchmarks/graph_drift.py``: the comparison of a fit's initial and trained graphs."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import shared_datasets

DATA = shared_datasets()
CHANNEL = ["--set", "observed_branch=True", "--set", "edge_score=cosine", "--set", "structure_k=4"]


@pytest.fixture
def drift(monkeypatch):
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import graph_drift

    return graph_drift


def test_jaccard_and_density_of_edge_sets(drift):
    a = drift.joined_pairs(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]))
    b = drift.joined_pairs(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    assert drift.jaccard(a, b) == pytest.approx(1 / 3)  # {01} of {01, 02, 12}
    assert drift.jaccard(a, a) == 1.0
    empty = np.zeros((3, 3), dtype=bool)
    assert drift.jaccard(empty, empty) == 1.0 and drift.jaccard(a, empty) == 0.0
    assert drift.density(a) == pytest.approx(2 / 3) and drift.density(np.zeros((1, 1))) == 0.0
    # from an IB-graph's adjacency: the diagonal does not count
    e = drift.joined_pairs(np.array([[1.0, 0.5], [0.5, 0.0]]))
    assert e.tolist() == [[False, True], [True, False]]


def test_structure_change_reads_only_the_structure_learner(drift):
    before = {"structure.w": torch.tensor([3.0, 4.0]), "gnn.w": torch.tensor([1.0])}
    after = {"structure.w": torch.tensor([3.0, 5.0]), "gnn.w": torch.tensor([9.0])}
    assert drift.structure_change(before, after) == pytest.approx(1 / 5)
    assert drift.structure_change(before, before) == 0.0


@pytest.mark.skipif(DATA is None or not (DATA / "MUTAG").is_dir(),
                    reason="needs ../shared/datasets/MUTAG")
def test_trained_graph_moves_and_a_frozen_learner_keeps_its_graph(drift, tmp_path):
    common = ["--dataset", "MUTAG", "--patience", "0", "--epochs", "4", "--data-home",
              str(DATA), "--results-dir", str(tmp_path), *CHANNEL]
    drift.main([*common, "--set", "lr=0.05"])
    (trained,) = [json.loads(line) for line in
                  (tmp_path / "graph_drift_MUTAG_gcn.jsonl").read_text().splitlines()]
    assert trained["structure_change"] > 0 and 0 <= trained["jaccard"] <= 1
    assert 0 < trained["density_trained"] <= 1 and 0 < trained["density_initial"] <= 1
    # the structure learner at learning rate 0: its parameters, so its graph, stay put
    drift.main([*common, "--set", "lr=0.05", "--tag", "frozen",
                "--set", 'optimizer__param_groups=[("structure.*", {"lr": 0.0})]'])
    (frozen,) = [json.loads(line) for line in
                 (tmp_path / "graph_drift_MUTAG_gcn_frozen.jsonl").read_text().splitlines()]
    assert frozen["structure_change"] == 0.0 and frozen["jaccard"] == 1.0
    assert frozen["density_initial"] == frozen["density_trained"]
    report = (tmp_path / "graph_drift_MUTAG_gcn_frozen.md").read_text()
    assert "| 0 |" in report and "python benchmarks/graph_drift.py --dataset MUTAG" in report
    # a finished fold is not fitted again
    drift.main([*common, "--set", "lr=0.05"])
    assert len((tmp_path / "graph_drift_MUTAG_gcn.jsonl").read_text().splitlines()) == 1
