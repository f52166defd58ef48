"""Smoke test of ``benchmarks/bench_host_batches.py`` on the bundled MUTAG."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_host_batches_reports_both_forms(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_host_batches.py"), "--datasets",
         "MUTAG", "--repeats", "2", "--batch-size", "32", "--results-dir", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads((tmp_path / "host_batches.json").read_text())["rows"]
    assert row["dataset"] == "MUTAG" and row["train_graphs"] == 169  # 90 % of 188
    assert len(row["build_cpu_s_all"]) == len(row["densify_cpu_s_all"]) == 2
    assert row["build_cpu_s"] > 0 and row["densify_cpu_s"] >= 0
    # what is sent is never more bytes than every adjacency dense
    assert 0 < row["edge_list_mb"] <= row["dense_mb"]
    assert "| MUTAG | 169 |" in (tmp_path / "host_batches.md").read_text()
