"""The tie counts of ``benchmarks/structure_ties.py``."""

from __future__ import annotations

import numpy as np
from conftest import benchmark_script


def _import_script():
    return benchmark_script("structure_ties")


def test_tied_nodes_have_at_least_k_identical_partners():
    st = _import_script()
    same = st.identical_pairs(np.array([[1.0], [1.0], [1.0], [2.0]]))  # 0, 1, 2 alike
    np.testing.assert_array_equal(st.tied_nodes(same, 2), [True, True, True, False])
    np.testing.assert_array_equal(st.tied_nodes(same, 3), [False] * 4)


def test_lowest_partners_kept_counts_the_tie_rule_and_its_control():
    st = _import_script()
    same = st.identical_pairs(np.ones((5, 1)))  # every node has 4 identical partners
    adj = np.zeros((5, 5))
    for u, v in [(0, 1), (1, 2), (0, 2), (3, 4)]:
        adj[u, v] = adj[v, u] = 1.0
    counts = st.lowest_partners_kept(same, adj, 2)
    # the 2 lowest partners: 0 -> {1, 2} joined, 1 -> {0, 2}, 2 -> {0, 1}, 3 -> {0, 1} not,
    # 4 -> {0, 1} not; the >= 2k = 4 partners control covers all 5 nodes: the 2 highest
    # partners: 0 -> {3, 4} not, 1 -> {3, 4} not, 2 -> {3, 4} not, 3 -> {2, 4} not,
    # 4 -> {2, 3} not
    assert counts == dict(nodes=5, lowest=3, nodes_2k=5, lowest_2k=3, highest_2k=0)


def test_largest_degree_counts_the_learned_edges_of_the_busiest_node():
    """A star's centre has every other node as a partner; the diagonal and zero
    weights do not count, and a scipy array (the sparse path's IB-graph) counts alike."""
    import scipy.sparse as sp

    st = _import_script()
    adj = np.zeros((6, 6))
    adj[0, 1:] = adj[1:, 0] = 0.3
    adj[2, 3] = adj[3, 2] = 0.9
    adj[4, 4] = 1.0  # a self-loop is not a partner
    assert st.largest_degree(adj) == 5
    adj[0, 5] = adj[5, 0] = 0.0
    assert st.largest_degree(adj) == 4
    assert st.largest_degree(sp.csr_array(adj)) == 4
    assert st.largest_degree(np.zeros((3, 3))) == 0


def test_one_layer_inputs_tell_the_ends_of_a_path_from_its_middle():
    """On a path 0-1-2-3 with one feature for all, the features tie every pair;
    [X, ÂX] ties only the two ends and the two middle nodes (symmetry), which
    no first GCN layer on the observed graph can tell apart."""
    st = _import_script()
    x = np.ones((4, 2))
    edges = np.array([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
    rows = st.one_layer_inputs(x, edges)
    assert rows.shape == (4, 4)
    np.testing.assert_allclose(rows[0, 2:], 1 / 2 + 1 / np.sqrt(6))  # 1/2 self, 1/√(2·3) to 1
    same = st.identical_pairs(rows)
    assert {(u, v) for u, v in zip(*np.nonzero(same))} == {(0, 3), (3, 0), (1, 2), (2, 1)}
    assert st.identical_pairs(x).sum() == 12
