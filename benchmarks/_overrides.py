"""``--set KEY=VALUE`` arguments of the benchmark scripts as estimator parameters.

Shared by ``reproduce_table1.py``, ``structure_density.py`` and
``eval_graph_study.py``: values are read as Python literals (``0.5``,
``True``, ``None``), anything else stays a string (``cosine``).
"""

from __future__ import annotations

import ast
from typing import Any


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
