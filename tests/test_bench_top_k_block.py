"""``benchmarks/bench_top_k_block.py``'s sample, shared with ``benchmarks/profile_channel.py``."""

import numpy as np
from conftest import benchmark_script

from sk_vibgsl import DegreeFeatures
from sk_vibgsl.datasets import load_tu_dataset


def test_degree_sample_draws_the_same_graphs_with_degree_features_and_labels_from_zero():
    script = benchmark_script("bench_top_k_block")
    graphs, y = script.degree_sample("MUTAG", 30, None)  # MUTAG is bundled
    again, y_again = script.degree_sample("MUTAG", 30, None)
    assert len(graphs) == 30 and len(y) == 30
    np.testing.assert_array_equal(y, y_again)
    assert set(np.unique(y)) <= {0, 1}
    all_graphs, all_y = load_tu_dataset("MUTAG", return_X_y=True)
    idx = np.random.default_rng(0).permutation(len(all_graphs))[:30]
    # the labels are the drawn graphs' own, renumbered from 0
    np.testing.assert_array_equal(y, np.unique(all_y, return_inverse=True)[1][idx])
    for g, g2, i in zip(graphs, again, idx):
        assert g.num_nodes == all_graphs[i].num_nodes
        assert np.array_equal(np.asarray(g.x), np.asarray(g2.x))
    # the features are DegreeFeatures' of the drawn graphs
    expected = DegreeFeatures().fit_transform([all_graphs[i] for i in idx])
    for g, e in zip(graphs, expected):
        assert np.array_equal(np.asarray(g.x), np.asarray(e.x))
