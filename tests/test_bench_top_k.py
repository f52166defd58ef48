"""Smoke test of ``benchmarks/bench_top_k.py``: it writes its table for every
``k`` and tie rule, and counts the rows the tie rule decides."""

from __future__ import annotations

import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_top_k_writes_a_row_per_k_and_tie_rule(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_top_k

    out = tmp_path / "a folder"  # a space: the recorded command must quote it
    argv = ["--n-graphs", "120", "--epochs", "1", "--ks", "2", "4", "--repeats", "1",
            "--results-dir", str(out), "--tag", "smoke"]
    bench_top_k.main(argv)
    text = (out / "top_k_smoke.md").read_text()
    # the arguments main was given (not pytest's), shell-quoted, re-runnable from the root
    assert f"Command: `python benchmarks/bench_top_k.py {shlex.join(argv)}`" in text
    rows = [line.strip("| ").split(" | ") for line in
            text.splitlines()
            if line.startswith("| 2 ") or line.startswith("| 4 ")]
    assert [(r[0], r[1]) for r in rows] == [
        ("2", "lowest"), ("2", "cyclic"), ("4", "lowest"), ("4", "cyclic")]
    for _, _, ms, n_rows, tied, near in rows:
        assert float(ms) > 0
        # one-hot degree features: alike nodes tie in many rows, never in more than all
        assert 0 < int(tied) <= int(n_rows) and 0 <= int(near) <= int(n_rows)


def test_tied_rows_counts_equal_and_near_ties_at_the_kth_entry(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_top_k
    import torch

    from sk_vibgsl.nn import candidate_pairs

    near = 1.0 + 1e-7  # within the tolerance 1e-6 of 1, not equal to it
    logits = torch.tensor([[[0.0, 1.0, 1.0, 0.5],  # 2nd entry tied with another: tied
                            [1.0, 0.0, 2.0, near],  # 2nd is `near`, 1 within tol: near
                            [1.0, 2.0, 0.0, 3.0],  # no tie
                            [0.5, near, 3.0, 0.0]]])  # no tie
    cand = candidate_pairs(torch.ones(1, 4, dtype=torch.bool))
    tol = torch.full((1, 4, 1), 1e-6)
    assert bench_top_k.tied_rows([(logits, cand, tol)], 2) == (4, 1, 1)
    # k = 3: a row needs more than 3 candidates, and has only 3
    assert bench_top_k.tied_rows([(logits, cand, tol)], 3) == (0, 0, 0)
