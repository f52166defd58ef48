"""Smoke test of ``benchmarks/bench_parallel.py --quick``: it runs, writes its tables, and
the torch thread counts it measures inside fit are the ones documented."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_parallel.py"


def test_bench_parallel_quick(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--results-dir", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads((tmp_path / "parallel.json").read_text())
    meta = result["meta"]
    assert meta["command"] == "python benchmarks/bench_parallel.py " + shlex.join(
        ["--quick", "--results-dir", str(tmp_path)])
    assert "cores" in meta["machine"]
    assert meta["search"]["fits"] == 4 and meta["search"]["repeats"] == 1

    configs = result["configurations"]
    assert [(c["n_jobs"], c["torch_threads"]) for c in configs] == [
        (1, None), (1, 1), (2, None), (2, joblib.cpu_count())
    ]
    for c in configs:
        assert len(c["times_s"]) == len(c["load_1min"]) == 1
        assert c["median_s"] > 0
        assert len(c["scores"]) == 2 and all(0 <= s <= 1 for s in c["scores"])
    # Same random_state, same search: the same scores whatever the parallelism
    # (up to one borderline test graph of 20 flipping with the thread count).
    for c in configs[1:]:
        np.testing.assert_allclose(c["scores"], configs[0]["scores"], atol=0.051)

    # torch's threads inside fit: the parameter when set; in loky workers
    # without it, joblib's limit cpu_count() // n_jobs (or the parent's
    # OMP_NUM_THREADS, which loky passes on when it is set).
    assert configs[1]["torch_threads_in_fit"] == [1]
    omp = os.environ.get("OMP_NUM_THREADS")
    loky_limit = int(omp) if omp else max(joblib.cpu_count() // 2, 1)
    assert configs[2]["torch_threads_in_fit"] == [loky_limit]
    assert configs[3]["torch_threads_in_fit"] == [joblib.cpu_count()]

    md = (tmp_path / "parallel.md").read_text()
    assert "| n_jobs=2, torch_threads=None (loky limit) |" in md
    assert "load" in md and meta["command"] in md
