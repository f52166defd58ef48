"""Smoke test of ``benchmarks/bench_feature_product.py``: it writes its table,
and the route column is the one ``feature_product`` takes."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_feature_product_writes_the_table_with_the_routes(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_feature_product

    monkeypatch.setattr(sys, "argv", ["bench_feature_product.py"])
    bench_feature_product.main([
        "--rows", "300", "--repeats", "1", "--widths", "64", "492", "--outs", "16", "64",
        "--densities", "0.03", "--results-dir", str(tmp_path),
    ])
    rows = [line.split(" | ") for line in (tmp_path / "feature_product.md").read_text()
            .splitlines() if line.startswith("| 64 ") or line.startswith("| 492 ")]
    assert len(rows) == 2 * 2 * 2  # widths x (one-hot, 0.03) x outs
    routes = {(r[0].strip("| "), r[1].split(" ")[0], r[2]): r[6].strip(" |") for r in rows}
    listed = {(r[0].strip("| "), r[1].split(" ")[0]): r[-1].strip(" |") for r in rows}
    assert listed[("492", "one-hot")] == "yes"  # 1/492 of the entries
    assert listed[("64", "one-hot")] == "no"  # too few columns
    assert listed[("492", "0.03")] == "no"  # too many nonzeros
    assert routes[("492", "one-hot", "64")] == "sparse"
    assert routes[("492", "one-hot", "16")] == "dense"  # too few output columns
    assert routes[("64", "one-hot", "64")] == "dense"  # too few feature columns
    assert routes[("492", "0.03", "64")] == "dense"  # too many nonzeros
    for r in rows:
        assert float(r[3]) > 0 and float(r[4]) > 0 and float(r[7]) > 0
