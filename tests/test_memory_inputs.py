"""Smoke test of ``benchmarks/memory_inputs.py`` on the bundled MUTAG."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_memory_inputs_measures_every_step(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "memory_inputs.py"), "--datasets", "MUTAG",
         "--results-dir", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads((tmp_path / "memory_inputs.json").read_text())["rows"]
    assert (row["dataset"], row["n_graphs"], row["n_nodes"]) == ("MUTAG", 188, 3371)
    assert row["n_edges"] == 7442  # MUTAG's 3,721 undirected bonds, both directions
    assert list(row["steps"]) == ["load_tu_dataset", "DegreeFeatures", "to_graph_set"]
    for step in row["steps"].values():
        assert step["peak_mib"] >= max(step["before_mib"], step["after_mib"]) - 1
        assert step["seconds"] > 0
    md = (tmp_path / "memory_inputs.md").read_text()
    assert "| MUTAG | 188 | 3371 | 7442 | `load_tu_dataset` |" in md
