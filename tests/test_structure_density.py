"""The identical-pair counts of ``benchmarks/structure_density.py``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from conftest import benchmark_script


def _import_script():
    return benchmark_script("structure_density")


def test_identical_pairs_are_the_distinct_nodes_with_equal_feature_rows():
    sd = _import_script()
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
    same = sd.identical_pairs(x)
    expected = np.zeros((4, 4), dtype=bool)
    for u, v in [(0, 2), (0, 3), (2, 3)]:
        expected[u, v] = expected[v, u] = True
    np.testing.assert_array_equal(same, expected)


def test_pair_counts_pool_kept_and_identical_pairs_over_graphs():
    sd = _import_script()
    x1 = np.array([[1.0], [1.0], [2.0]])  # one identical pair: (0, 1)
    a1 = np.array([[0.3, 0.5, 0.0], [0.5, 0.0, 0.2], [0.0, 0.2, 0.0]])  # kept: (0,1), (1,2)
    x2 = np.array([[1.0], [2.0]])  # no identical pair
    a2 = sp.csr_array(np.array([[0.0, 0.0], [0.0, 0.0]]))  # the sparse path's kind, nothing kept
    same = [sd.identical_pairs(x1), sd.identical_pairs(x2)]
    counts = sd.pair_counts(same, [(x1, a1), (x2, a2)])
    # ordered pairs without the diagonal (the self-loop 0.3 is not a pair)
    assert counts == dict(pairs=6 + 2, kept=4, identical=2, kept_identical=2)


def test_identical_share_averages_over_graphs_like_the_density():
    sd = _import_script()
    three = sd.identical_pairs(np.array([[1.0], [1.0], [2.0]]))  # 2 of 6 ordered pairs
    two = sd.identical_pairs(np.array([[1.0], [2.0]]))  # 0 of 2
    assert sd.identical_share([three, two]) == (2 / 6 + 0 / 2) / 2
