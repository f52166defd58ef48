"""The notebooks in notebooks/: each runs top to bottom (reduced mode) and is committed
with its outputs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.ipynb"))
NAMES = [
    "01_quickstart.ipynb",
    "02_beta_sensitivity.ipynb",
    "03_graph_denoising.ipynb",
    "04_ib_graphs.ipynb",
    "05_training_dynamics.ipynb",
]


def test_all_notebooks_are_present():
    assert [p.name for p in NOTEBOOKS] == NAMES


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_with_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "SK_VIBGSL_NOTEBOOK_QUICK" in code[0].source, "first code cell sets the parameters"
    assert all(c.execution_count is not None for c in code), "every cell executed"
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "figures embedded"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_in_quick_mode(path, monkeypatch):
    monkeypatch.setenv("SK_VIBGSL_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # one torch thread: tiny batches gain nothing from more, and on a busy
    # machine OpenMP threads that wait for each other are many times slower
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    # the kernel imports this checkout's package, whether or not it is installed
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    nb = nbformat.read(path, as_version=4)
    # first cell: check that the kernel is this interpreter and the quick mode is on
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        "import os, sys\n"
        f"assert os.path.realpath(sys.executable) == {os.path.realpath(sys.executable)!r}\n"
        "assert os.environ['SK_VIBGSL_NOTEBOOK_QUICK'] == '1'"
    ))
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError if any cell errors

