"""Shared fixtures: seeding, small synthetic graphs, the shared dataset folder, and
the benchmark scripts as modules."""

from __future__ import annotations

import importlib
import os
import random
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch


@pytest.fixture(autouse=True)
def _seed_everything():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    yield


def make_graphs(n_graphs: int = 60, n_features: int = 4, seed: int = 0):
    """Small random graphs whose label is the sign of the first feature's mean.

    Returns a list of ``(features, adjacency)`` tuples and integer labels.
    """
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n_graphs):
        n = int(rng.integers(3, 12))
        label = int(rng.integers(0, 2))
        feats = rng.normal(size=(n, n_features)).astype(np.float32)
        feats[:, 0] += 1.5 if label else -1.5
        adj = (rng.random((n, n)) < 0.3).astype(np.float32)
        adj = np.triu(adj, 1)
        X.append((feats, adj + adj.T))
        y.append(label)
    return X, np.array(y)


@pytest.fixture
def graphs():
    return make_graphs()


def shared_datasets() -> Path | None:
    """The ``shared/datasets`` folder beside the checkout, if present."""
    candidates = []
    if os.environ.get("SK_VIBGSL_SHARED"):
        candidates.append(Path(os.environ["SK_VIBGSL_SHARED"]) / "datasets")
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "datasets")
    for path in candidates:
        if path.is_dir():
            return path
    return None


def dense_batch(sizes=(7, 4), n_features=5, seed=0):
    """A padded dense batch ``(x, mask, adj)`` of random graphs with ``sizes``
    nodes: Gaussian features, symmetric 0/1 edges of density about 0.35."""
    g = torch.Generator().manual_seed(seed)
    n = max(sizes)
    x = torch.zeros(len(sizes), n, n_features)
    mask = torch.zeros(len(sizes), n, dtype=torch.bool)
    adj = torch.zeros(len(sizes), n, n)
    for b, m in enumerate(sizes):
        x[b, :m] = torch.randn(m, n_features, generator=g)
        mask[b, :m] = True
        a = torch.triu((torch.rand(m, m, generator=g) < 0.35).float(), 1)
        adj[b, :m, :m] = a + a.T
    return x, mask, adj


def benchmark_script(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` imported as a module (the scripts import their
    siblings, so ``benchmarks/`` is on ``sys.path`` while it loads)."""
    folder = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(folder)
