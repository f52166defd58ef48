"""Per-call limit on torch's intra-op threads (the ``torch_threads`` parameter).

``k`` parallel fits on ``c`` cores each want ``c`` intra-op threads: ``k · c``
threads on ``c`` cores (oversubscription). joblib's default ``loky`` backend
already limits each worker process (it sets ``OMP_NUM_THREADS`` and friends
to ``cpu_count() // n_jobs`` before the worker imports torch), and
``dask.distributed`` workers start with ``OMP_NUM_THREADS=1``; an explicit
``torch_threads`` is for every other case (threads backends, nested
parallelism, a process shared with other work).

``torch.set_num_threads`` is process-wide: the limit applies to everything
torch runs in the process while it is set.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from contextlib import contextmanager

import torch

__all__ = [
    "check_torch_threads",
    "limited_torch_threads",
    "restore_torch_threads",
    "set_torch_threads",
]


def check_torch_threads(value: object) -> int | None:
    """Validate ``torch_threads``: ``None`` or an int >= 1.

    Raises
    ------
    ValueError
        For anything else (bools included).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"torch_threads must be None or an int >= 1, got {value!r}.")
    return int(value)


def set_torch_threads(n_threads: int | None) -> int | None:
    """Set torch's intra-op thread count; return the previous count.

    ``None`` changes nothing and returns ``None`` (nothing to restore).
    """
    n_threads = check_torch_threads(n_threads)
    if n_threads is None:
        return None
    previous = torch.get_num_threads()
    if previous != n_threads:
        torch.set_num_threads(n_threads)
    return previous


def restore_torch_threads(previous: int | None) -> None:
    """Undo :func:`set_torch_threads` (``previous`` is what it returned)."""
    if previous is not None and torch.get_num_threads() != previous:
        torch.set_num_threads(previous)


@contextmanager
def limited_torch_threads(n_threads: int | None) -> Iterator[None]:
    """Run a block with ``n_threads`` intra-op threads, restored afterwards
    (also when the block raises). ``None`` leaves the setting alone."""
    previous = set_torch_threads(n_threads)
    try:
        yield
    finally:
        restore_torch_threads(previous)
