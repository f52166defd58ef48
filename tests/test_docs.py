"""The API reference (docs/api/index.rst) lists every public name.

The docs build itself (``python -m sphinx -W -n``, run by ``.ci/run``) checks
that every listed name imports and that every cross-reference resolves; this
test checks the other direction, so a name added to an ``__all__`` is not left
out of the reference.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

INDEX = Path(__file__).resolve().parents[1] / "docs" / "api" / "index.rst"
PUBLIC_MODULES = [
    "sk_vibgsl",
    "sk_vibgsl.callbacks",
    "sk_vibgsl.datasets",
    "sk_vibgsl.nn",
    "sk_vibgsl.nn.sparse_ann",
    "sk_vibgsl.nn.sparse_backbones",
    "sk_vibgsl.nn.sparse_model",
    "sk_vibgsl.nn.sparse_structure",
    "sk_vibgsl.plotting",
]


def documented_names() -> set[str]:
    """``module.name`` of every entry of the index's autosummary tables."""
    names, module, in_table = set(), None, False
    for line in INDEX.read_text().splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = match.group(1)
        if line.startswith(".. autosummary::"):
            in_table = True
            continue
        if in_table:
            entry = line.strip()
            if line and not line.startswith(" "):
                in_table = False
            elif entry and not entry.startswith(":"):
                names.add(f"{module}.{entry}")
    return names


def test_the_index_has_tables():
    assert "sk_vibgsl.VIBGSLClassifier" in documented_names()


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_every_public_name_is_in_the_api_reference(module):
    public = [name for name in importlib.import_module(module).__all__ if name != "__version__"]
    documented = documented_names()
    missing = sorted(name for name in public if f"{module}.{name}" not in documented)
    assert not missing, (
        f"{module}.__all__ has {missing}, which docs/api/index.rst does not list: add "
        "them to the autosummary table of their section (template class.rst, function.rst "
        "or data.rst)"
    )


def test_every_estimator_parameter_is_in_the_user_guide():
    import inspect

    from sk_vibgsl import VIBGSLClassifier

    page = (INDEX.parents[1] / "user_guide" / "parameters.md").read_text()
    table = "\n".join(line for line in page.splitlines() if line.startswith("| `"))
    params = inspect.signature(VIBGSLClassifier.__init__).parameters
    missing = [name for name in params if name not in ("self", "kwargs")
               and f"`{name}`" not in table]
    assert not missing, (
        f"docs/user_guide/parameters.md has no table row for {missing}: add one (default, "
        "meaning) beside the other parameters"
    )


def test_every_benchmark_report_has_a_title():
    """The docs build lists every ``benchmarks/results/**/*.md`` in a toctree, which links
    only a page with a title: a report whose first line is not a ``# `` heading is a
    warning, and ``-W`` makes it an error."""
    results = INDEX.parents[2] / "benchmarks" / "results"
    untitled = [str(path.relative_to(results)) for path in sorted(results.glob("**/*.md"))
                if not next((line for line in path.read_text().splitlines() if line.strip()),
                            "").startswith("# ")]
    assert untitled == []
