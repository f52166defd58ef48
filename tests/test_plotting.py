"""sk_vibgsl.plotting: what each function draws."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import LineCollection, PathCollection  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from skorch.dataset import ValidSplit  # noqa: E402

from sk_vibgsl import DegreeFeatures, VIBGSLClassifier  # noqa: E402
from sk_vibgsl.plotting import (  # noqa: E402
    draw_graph,
    n_edges,
    plot_beta_sweep,
    plot_density,
    plot_feature_mask,
    plot_ib_graph,
    plot_training_curves,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def fitted():
    from conftest import make_graphs

    X, y = make_graphs(40)
    clf = VIBGSLClassifier(max_epochs=3, random_state=0,
                           train_split=ValidSplit(0.25, stratified=True, random_state=0))
    return clf.fit(X, y), X, y


def _drawn(ax) -> tuple[int, int]:
    """(nodes, edges) drawn on an axes by draw_graph."""
    [points] = [c for c in ax.collections if isinstance(c, PathCollection)]
    [lines] = [c for c in ax.collections if isinstance(c, LineCollection)]
    return len(points.get_offsets()), len(lines.get_segments())


def test_n_edges_counts_undirected_pairs_without_self_loops():
    adj = np.array([[1, 2, 0], [2, 0, 0.5], [0, 0.5, 0]])
    assert n_edges(adj) == 2


def test_draw_graph_draws_every_node_and_edge_once():
    adj = np.zeros((5, 5))
    for u, v in [(0, 1), (1, 2), (2, 3)]:
        adj[u, v] = adj[v, u] = 1
    adj[4, 4] = 1  # self-loop: not drawn
    ax = draw_graph(adj, title="t")
    assert _drawn(ax) == (5, 3)
    assert ax.get_title() == "t"


def test_plot_ib_graph_draws_original_and_learned(fitted):
    clf, X, _ = fitted
    feats, adj = X[0]
    axes = plot_ib_graph(clf, X[0])
    assert len(axes) == 2 and len(axes[0].figure.axes) == 2
    _, learned = clf.ib_graphs([X[0]])[0]
    m_obs, m_ib = n_edges(adj), n_edges(learned)
    assert _drawn(axes[0]) == (len(feats), m_obs)
    assert _drawn(axes[1]) == (len(feats), m_ib)
    assert axes[0].get_title() == f"original, |E| = {m_obs}"
    assert axes[1].get_title() == f"IB-graph, |E| = {m_ib}"
    # both panels share the node positions
    np.testing.assert_allclose(axes[0].collections[1].get_offsets(),
                               axes[1].collections[1].get_offsets())


def test_plot_ib_graph_transforms_through_a_pipeline():
    from conftest import make_graphs

    X, y = make_graphs(30)
    model = make_pipeline(DegreeFeatures(), VIBGSLClassifier(max_epochs=2, random_state=0))
    model.fit(X, y)
    fig, axes = plt.subplots(1, 2)
    out = plot_ib_graph(model, X[1], axes=axes)
    assert out[0] is axes[0] and out[1] is axes[1]
    _, learned = model[-1].ib_graphs(model[:-1].transform([X[1]]))[0]
    assert _drawn(axes[1]) == (len(X[1][0]), n_edges(learned))
    assert f"|E| = {n_edges(learned)}" in axes[1].get_title()
    with pytest.raises(ValueError, match="axes must hold 2 Axes"):
        plot_ib_graph(model, X[1], axes=[axes[0]])


def test_plot_training_curves_lines_equal_history(fitted):
    clf, _, _ = fitted
    axes = plot_training_curves(clf)
    assert [ax.get_title() for ax in axes] == ["total loss", "cross-entropy", "KL (before β)"]
    for ax, (train, valid) in zip(axes, [("train_loss", "valid_loss"), ("train_ce", "valid_ce"),
                                         ("train_kl", "valid_kl")]):
        lines = {line.get_label(): line for line in ax.lines}
        assert set(lines) == {train, valid}
        for key in (train, valid):
            np.testing.assert_allclose(lines[key].get_ydata(), clf.history[:, key])
            np.testing.assert_array_equal(lines[key].get_xdata(), clf.history[:, "epoch"])


def test_plot_training_curves_without_validation_and_from_history():
    from conftest import make_graphs

    X, y = make_graphs(20)
    clf = VIBGSLClassifier(max_epochs=2, random_state=0).fit(X, y)
    axes = plot_training_curves(clf.history)
    assert [line.get_label() for line in axes[2].lines] == ["train_kl"]
    np.testing.assert_allclose(axes[2].lines[0].get_ydata(), clf.history[:, "train_kl"])
    with pytest.raises(ValueError, match="No training history"):
        plot_training_curves(VIBGSLClassifier())


def test_plot_density_lines_equal_history(fitted):
    clf, _, _ = fitted
    ax = plot_density(clf)
    lines = {line.get_label(): line for line in ax.lines}
    assert set(lines) == {"train_density", "valid_density"}
    for key, line in lines.items():
        np.testing.assert_allclose(line.get_ydata(), clf.history[:, key])
        np.testing.assert_array_equal(line.get_xdata(), clf.history[:, "epoch"])
    assert lines["train_density"].get_linestyle() == "-"
    assert lines["valid_density"].get_linestyle() == "--"
    assert ax.get_ylim() == (0, 1.02)


def test_plot_density_shows_a_sparse_graph_forming():
    """With top-1 selection a graph of n nodes keeps at most n of its
    n(n-1)/2 pairs, so every drawn epoch is at most 2/(n-1); the paper's
    learner on the same graphs draws a denser line."""
    rng = np.random.default_rng(0)
    X = []
    for _ in range(30):
        adj = np.triu(rng.random((12, 12)) < 0.3, 1).astype(np.float32)
        X.append((rng.normal(size=(12, 3)).astype(np.float32), adj + adj.T))
    y = np.arange(30) % 2
    sparse = VIBGSLClassifier(max_epochs=2, random_state=0, edge_score="cosine",
                              structure_k=1).fit(X, y)
    [line] = plot_density(sparse.history).lines
    assert line.get_label() == "train_density"
    assert (line.get_ydata() <= 2 / 11 + 1e-6).all()
    complete = VIBGSLClassifier(max_epochs=2, random_state=0).fit(X, y)
    assert (plot_density(complete).lines[0].get_ydata() > 2 / 11).all()


def test_plot_density_without_density_names_the_key():
    with pytest.raises(ValueError, match="train_density"):
        plot_density([{"epoch": 1, "train_loss": 0.5}])
    with pytest.raises(ValueError, match="No training history"):
        plot_density(VIBGSLClassifier())


def _cv_results():
    return {
        "param_vibgslclassifier__beta": np.ma.masked_array([1e-3, 1e-1, 1e-5], dtype=object),
        "mean_test_score": np.array([0.7, 0.6, 0.65]),
        "std_test_score": np.array([0.01, 0.02, 0.03]),
    }


def test_plot_beta_sweep_draws_sorted_means_on_a_log_axis():
    ax = plot_beta_sweep(_cv_results())
    assert ax.get_xscale() == "log"
    [container] = ax.containers  # one error-bar line
    line = container.lines[0]
    np.testing.assert_allclose(line.get_xdata(), [1e-5, 1e-3, 1e-1])
    np.testing.assert_allclose(line.get_ydata(), [0.65, 0.7, 0.6])
    [bars] = container.lines[2]
    tops = [seg[:, 1].max() - seg[:, 1].min() for seg in bars.get_segments()]
    np.testing.assert_allclose(tops, [0.06, 0.02, 0.04])


def test_plot_beta_sweep_from_a_search(fitted):
    from conftest import make_graphs

    X, y = make_graphs(30)
    search = GridSearchCV(VIBGSLClassifier(max_epochs=1, random_state=0),
                          {"beta": [1e-1, 1e-3]}, cv=2).fit(X, y)
    ax = plot_beta_sweep(search, param="beta")
    order = np.argsort(np.asarray(search.cv_results_["param_beta"], dtype=float))
    line = ax.containers[0].lines[0]
    np.testing.assert_allclose(line.get_xdata(), [1e-3, 1e-1])
    np.testing.assert_allclose(line.get_ydata(), search.cv_results_["mean_test_score"][order])


def test_plot_beta_sweep_errors():
    with pytest.raises(ValueError, match="no parameter 'beta'"):
        plot_beta_sweep(_cv_results(), param="beta")
    with pytest.raises(ValueError, match="no 'mean_test_edges'"):
        plot_beta_sweep(_cv_results(), metric="edges")
    rows = _cv_results()
    rows["param_vibgslclassifier__beta"] = np.array([1e-3, 1e-3, 1e-5])
    with pytest.raises(ValueError, match="several rows"):
        plot_beta_sweep(rows)


def test_plot_feature_mask_bars_equal_the_mask(fitted):
    clf, _, _ = fitted
    ax = plot_feature_mask(clf, feature_names=["a", "b", "c", "d"])
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, clf.feature_mask_, rtol=1e-6)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c", "d"]
    assert ax.get_ylim() == (0, 1)
    with pytest.raises(ValueError, match="2 names for 4 features"):
        plot_feature_mask(clf, feature_names=["a", "b"])


def test_missing_matplotlib_names_the_plot_extra():
    # one interpreter without matplotlib: the package imports, plotting names the extra
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import sk_vibgsl\n"
        "try:\n"
        "    import sk_vibgsl.plotting\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "`plot` extra" in out and "sk-vibgsl[plot]" in out
