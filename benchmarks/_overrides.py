"""``--set KEY=VALUE`` arguments of the benchmark scripts as estimator parameters,
and the ``--data-home`` default they share.

Shared by ``reproduce_table1.py``, ``structure_density.py``,
``eval_graph_study.py``, ``gin_depth_check.py`` and ``structure_study.py``:
values are read as Python literals (``0.5``, ``True``, ``None``), anything
else stays a string (``cosine``).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any

SHARED_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
"""``../shared/datasets`` beside the checkout, where the TU datasets are shipped."""


def add_data_home(parser: argparse.ArgumentParser) -> None:
    """``--data-home``, by default ``../shared/datasets`` when it exists."""
    default = str(SHARED_DATASETS) if SHARED_DATASETS.is_dir() else None
    parser.add_argument("--data-home", default=default)


def add_set(parser: argparse.ArgumentParser) -> None:
    """Repeatable ``--set KEY=VALUE`` (read with :func:`parse_set`)."""
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")


def literal(value: str) -> Any:
    """``value`` as a Python literal, or the string itself."""
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def parse_set(items: list[str] | None) -> dict[str, Any]:
    """``["key=value", ...]`` as ``{key: literal(value)}``."""
    out = {}
    for item in items or []:
        key, _, value = item.partition("=")
        out[key] = literal(value)
    return out


def parse_choice(choice: str) -> dict[str, Any]:
    """One ``--choose`` alternative, ``"key1=value1;key2=value2"``, as
    ``{key: literal(value)}``."""
    return parse_set([pair for pair in choice.split(";") if pair])
