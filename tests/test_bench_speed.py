"""Smoke test of ``benchmarks/bench_speed.py --quick``: runs, writes, resumes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_speed.py"


def _run(results_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--results-dir", str(results_dir), *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


def test_bench_speed_quick_runs_writes_and_resumes(tmp_path):
    proc = _run(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((tmp_path / "speed.json").read_text())
    assert data["meta"]["command"] == "python benchmarks/bench_speed.py " + shlex.join(
        ["--quick", "--results-dir", str(tmp_path)])
    (row,) = data["rows"]
    assert row["dataset"] == "IMDB-BINARY" and row["train_graphs"] == 60
    assert row["batch_size"] == 20 and row["epochs_timed"] == 2
    assert len(row["vibgsl_epochs_s"]) == len(row["plain_pyg_gcn_epochs_s"]) == 2
    for key in ("vibgsl_epoch_s", "plain_pyg_gcn_epoch_s", "ratio_vibgsl_over_pyg",
                "predict_graphs_per_s", "train_peak_rss_mib", "base_rss_mib"):
        assert row[key] > 0, key
    # the pair budget bounds every batch; padding can only add pairs
    assert row["largest_batch_pairs"] <= max(row["max_pairs"], row["max_nodes"] ** 2)
    assert row["padded_pairs"] >= row["dense_pairs"] and row["padding_overhead"] >= 1
    md = (tmp_path / "speed.md").read_text()
    assert "| IMDB-BINARY | 60 | 20 |" in md and "peak RSS" in md

    # A second invocation resumes: the dataset is skipped and the row kept.
    proc = _run(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "already in" in proc.stdout
    assert json.loads((tmp_path / "speed.json").read_text())["rows"] == data["rows"]


def test_bench_speed_other_backbone_goes_in_its_own_files(tmp_path):
    proc = _run(tmp_path, "--backbone", "gat")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "speed.json").exists()  # the GCN results are left alone
    data = json.loads((tmp_path / "speed_gat.json").read_text())
    assert "--backbone gat" in data["meta"]["command"]
    (row,) = data["rows"]
    assert row["backbone"] == "gat"
    assert len(row["vibgsl_epochs_s"]) == len(row["plain_pyg_gat_epochs_s"]) == 2
    assert row["plain_pyg_gat_epoch_s"] > 0 and "plain_pyg_gcn_epoch_s" not in row
    md = (tmp_path / "speed_gat.md").read_text()
    assert "VIB-GSL (GAT backbone) vs plain PyG GAT" in md and "`GATConv`" in md
    assert "| IMDB-BINARY | 60 | 20 |" in md


def test_bench_speed_match_capacity_sizes_the_yardstick_like_vibgsl(tmp_path):
    def parameters(hidden, layers, n_features=None):
        n_features = n_features or row["n_features"]
        widths = [n_features] + [hidden] * layers
        convs = sum(a * b + b for a, b in zip(widths, widths[1:]))  # GCNConv: weight, bias
        return convs + hidden * hidden + hidden + hidden * 2 + 2  # the 2-layer MLP head

    vib = ["--vib", "hidden_dim=32", "num_layers=3", 'readout="sum"']
    proc = _run(tmp_path, "--match-capacity", *vib)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "speed.json").exists()
    (row,) = json.loads((tmp_path / "speed_matched.json").read_text())["rows"]
    assert row["yardstick"] == {"hidden_dim": 32, "num_layers": 3, "readout": "sum",
                                "batch_norm": False}
    assert row["plain_pyg_parameters"] == parameters(32, 3)
    assert "`{'hidden_dim': 32, 'num_layers': 3, 'readout': 'sum', 'batch_norm': False}`" in (
        tmp_path / "speed_matched.md").read_text()

    # without the flag the yardstick keeps the default sizes, whatever --vib says
    proc = _run(tmp_path, *vib)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads((tmp_path / "speed.json").read_text())["rows"]
    assert row["yardstick"]["hidden_dim"] == 16 and row["yardstick"]["num_layers"] == 2
    assert row["plain_pyg_parameters"] == parameters(16, 2)


def test_bench_speed_match_capacity_refuses_batch_norm_without_gin(tmp_path):
    proc = _run(tmp_path, "--match-capacity", "--vib", "module__batch_norm=true")
    assert proc.returncode == 2
    assert "--match-capacity: module__batch_norm=True needs the 'gin' backbone" in proc.stderr
