"""Plots of a fitted :class:`~sk_vibgsl.VIBGSLClassifier`.

Needs the ``plot`` extra (``pip install "sk-vibgsl[plot]"``: matplotlib and
networkx). Import it explicitly: ``from sk_vibgsl import plotting``.

Every function takes an optional ``ax``/``axes`` to draw into and returns
what it drew on. An estimator may be a fitted ``VIBGSLClassifier`` or a
fitted ``Pipeline`` ending in one; graphs are then passed through the
pipeline's preceding steps first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

try:
    import matplotlib.pyplot as plt
    import networkx as nx
    from matplotlib.collections import LineCollection
    from matplotlib.colors import to_rgba
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        f"sk_vibgsl.plotting needs matplotlib and networkx ({exc}); install the "
        "`plot` extra: pip install \"sk-vibgsl[plot]\"."
    ) from None

from ._inputs import to_graph_set

__all__ = [
    "draw_graph",
    "graph_layout",
    "n_edges",
    "plot_beta_sweep",
    "plot_density",
    "plot_feature_mask",
    "plot_ib_graph",
    "plot_training_curves",
]


def _split_pipeline(estimator: Any) -> tuple[Any, Any]:
    """``(preprocessing or None, classifier)`` of an estimator or a Pipeline."""
    steps = getattr(estimator, "steps", None)
    if steps is not None:
        return (estimator[:-1] if len(steps) > 1 else None), steps[-1][1]
    return None, estimator


def n_edges(adjacency: np.ndarray) -> int:
    """Number of undirected edges (non-zero pairs ``u < v``) of an adjacency.

    Self-loops are not counted.

    Parameters
    ----------
    adjacency : ndarray of shape (n_nodes, n_nodes)
        Symmetric, possibly weighted.

    Returns
    -------
    int
    """
    adj = np.asarray(adjacency)
    return int(np.count_nonzero(np.triu(adj, 1)))


def draw_graph(
    adjacency: np.ndarray,
    ax: Any = None,
    pos: Mapping[int, Sequence[float]] | None = None,
    title: str | None = None,
    node_color: Any = "tab:blue",
    edge_color: Any = "0.3",
    node_size: float = 30.0,
    seed: int = 0,
) -> Any:
    r"""Draw a (weighted) graph from its adjacency matrix.

    Nodes are one scatter (``ax.collections[1]``, one offset per node) and
    edges one :class:`~matplotlib.collections.LineCollection`
    (``ax.collections[0]``, one segment per undirected edge ``u < v``, self-
    loops not drawn), each edge's opacity proportional to its weight
    :math:`w_{uv} / \max w`.

    Parameters
    ----------
    adjacency : ndarray of shape (n_nodes, n_nodes)
        Symmetric adjacency; entries above the diagonal are drawn.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    pos : mapping node -> (x, y), optional
        Node positions; default: networkx's spring layout with ``seed``.
    title : str, optional
        Axes title.
    node_color, edge_color : matplotlib color, optional
    node_size : float, default=30.0
    seed : int, default=0
        Seed of the spring layout.

    Returns
    -------
    matplotlib Axes
    """
    adj = np.asarray(adjacency, dtype=float)
    n = len(adj)
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    if pos is None:
        pos = graph_layout(adj, seed=seed)
    xy = np.array([pos[k] for k in range(n)], dtype=float).reshape(n, 2)
    src, dst = np.nonzero(np.triu(adj, 1))
    weights = adj[src, dst]
    alpha = weights / weights.max() if len(weights) else weights
    colors = np.tile(np.array(to_rgba(edge_color)), (len(src), 1))
    colors[:, 3] = 0.15 + 0.85 * alpha
    ax.add_collection(LineCollection(np.stack([xy[src], xy[dst]], axis=1), colors=colors,
                                     linewidths=1.0, zorder=1))
    ax.scatter(xy[:, 0], xy[:, 1], s=node_size, c=node_color, zorder=2, edgecolors="white",
               linewidths=0.5)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    if title is not None:
        ax.set_title(title)
    return ax


def graph_layout(adjacency: np.ndarray, seed: int = 0) -> dict[int, np.ndarray]:
    """networkx spring layout of an adjacency matrix (nodes ``0 … n-1``)."""
    adj = np.asarray(adjacency, dtype=float)
    graph = nx.Graph()
    graph.add_nodes_from(range(len(adj)))
    src, dst = np.nonzero(np.triu(adj, 1))
    graph.add_edges_from(zip(src.tolist(), dst.tolist()))
    return nx.spring_layout(graph, seed=seed)


def plot_ib_graph(
    estimator: Any,
    graph: Any,
    axes: Any = None,
    node_attr: str = "x",
    seed: int = 0,
    titles: tuple[str, str] = ("original", "IB-graph"),
) -> np.ndarray:
    """Draw a graph beside the IB-graph the estimator learns for it.

    Both panels use the same node positions (the spring layout of the
    original graph) and have ``|E| = …`` (undirected edges, no self-loops)
    in their titles. The IB-graph is ``estimator.ib_graphs([graph])``: the
    deterministic learned adjacency of inference, edges drawn with opacity
    proportional to their weight.

    Parameters
    ----------
    estimator : fitted VIBGSLClassifier or Pipeline ending in one
        With a Pipeline, ``graph`` goes through the preceding steps first.
    graph : one sample
        Any input kind (``Data``, networkx graph, ``(features, adjacency)``,
        bare feature matrix), as given to the estimator.
    axes : sequence of two matplotlib Axes, optional
        Where to draw the original and the IB-graph; a new 1×2 figure when
        None.
    node_attr : str, default="x"
        Feature attribute of networkx nodes.
    seed : int, default=0
        Seed of the spring layout.
    titles : tuple of str, default=("original", "IB-graph")
        Title prefixes; ``", |E| = m"`` is appended.

    Returns
    -------
    ndarray of two matplotlib Axes
    """
    pre, clf = _split_pipeline(estimator)
    original = to_graph_set([graph], node_attr=node_attr).dense_adjacency(0)
    model_input = pre.transform([graph]) if pre is not None else [graph]
    _, learned = clf.ib_graphs(model_input)[0]
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(8, 4))
    axes = np.asarray(axes, dtype=object).ravel()
    if len(axes) != 2:
        raise ValueError(f"axes must hold 2 Axes (original, IB-graph), got {len(axes)}.")
    pos = graph_layout(original, seed=seed)
    draw_graph(original, ax=axes[0], pos=pos,
               title=f"{titles[0]}, |E| = {n_edges(original)}")
    draw_graph(learned, ax=axes[1], pos=pos, node_color="tab:orange",
               title=f"{titles[1]}, |E| = {n_edges(learned)}")
    return axes


def _history(estimator_or_history: Any) -> list[dict]:
    obj = estimator_or_history
    if hasattr(obj, "steps"):
        obj = obj.steps[-1][1]
    history = getattr(obj, "history_", None) or getattr(obj, "history", None)
    if history is None and isinstance(obj, Sequence):
        history = obj
    if history is None or not len(history):
        raise ValueError(
            "No training history: pass a fitted VIBGSLClassifier (or Pipeline ending "
            "in one) or its `history_`."
        )
    return list(history)


def _plot_key(ax: Any, history: list[dict], key: str) -> None:
    """One line of ``key`` per epoch where recorded: solid for ``train_*``,
    dashed otherwise; nothing when no epoch has it."""
    rows = [row for row in history if key in row]
    if not rows:
        return
    epochs = [row.get("epoch", k + 1) for k, row in enumerate(rows)]
    style = "-" if key.startswith("train") else "--"
    ax.plot(epochs, [float(row[key]) for row in rows], style, label=key)


_PANELS = (
    ("loss", "total loss", ("train_loss", "valid_loss")),
    ("ce", "cross-entropy", ("train_ce", "valid_ce")),
    ("kl", "KL (before β)", ("train_kl", "valid_kl")),
)


def plot_training_curves(estimator_or_history: Any, axes: Any = None) -> np.ndarray:
    r"""Total loss, cross-entropy and KL per epoch, train and validation.

    Reads skorch's history: ``train_loss``, ``train_ce``, ``train_kl`` and,
    when the estimator had a validation split, ``valid_loss``, ``valid_ce``,
    ``valid_kl`` (one line each; a key missing from every epoch is not
    drawn). The loss is :math:`\mathrm{CE} + \beta\,\mathrm{KL}`; the KL panel
    shows the KL itself.

    Parameters
    ----------
    estimator_or_history : fitted VIBGSLClassifier, Pipeline ending in one, or skorch History
    axes : sequence of three matplotlib Axes, optional
        A new 1×3 figure when None.

    Returns
    -------
    ndarray of three matplotlib Axes
        Titles ``"total loss"``, ``"cross-entropy"``, ``"KL (before β)"``; each
        line's label is its history key.
    """
    history = _history(estimator_or_history)
    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(12, 3.5))
    axes = np.asarray(axes, dtype=object).ravel()
    if len(axes) != 3:
        raise ValueError(f"axes must hold 3 Axes (loss, CE, KL), got {len(axes)}.")
    for ax, (_, title, keys) in zip(axes, _PANELS):
        for key in keys:
            _plot_key(ax, history, key)
        ax.set_title(title)
        ax.set_xlabel("epoch")
        if ax.lines:
            ax.legend()
    return axes


def plot_density(estimator_or_history: Any, ax: Any = None) -> Any:
    r"""Density of the learned graph per epoch, train and validation.

    Reads ``train_density`` and, with a validation split, ``valid_density``
    from skorch's history: per epoch the mean over the epoch's graphs of

    .. math::
        \rho(A) = \frac{|\{u < v : A_{uv} \ne 0\}|}{n (n - 1) / 2},

    the share of node pairs joined by a learned edge (the observed graph's
    when ``structure_mix=1``). Training graphs are counted on the sampled
    graphs the model trained on (concrete relaxation, then the threshold
    :math:`a_0`), validation graphs on the deterministic inference graph.
    A line that stays at 1 is a complete IB-graph (the paper's model); one
    that falls to 0 is an empty one.

    Parameters
    ----------
    estimator_or_history : fitted VIBGSLClassifier, Pipeline ending in one, or skorch History
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        One line per key present (label the key), y axis from 0 to 1.
    """
    history = _history(estimator_or_history)
    keys = [k for k in ("train_density", "valid_density") if any(k in row for row in history)]
    if not keys:
        raise ValueError(
            "The history has no `train_density`: fit a VIBGSLClassifier of this "
            "release (older histories and custom modules may not record it)."
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    for key in keys:
        _plot_key(ax, history, key)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("epoch")
    ax.set_ylabel("kept edges / node pairs")
    ax.set_title("learned graph density")
    ax.legend()
    return ax


def plot_beta_sweep(
    cv_results: Any,
    param: str = "vibgslclassifier__beta",
    metric: str = "score",
    ax: Any = None,
    label: str | None = None,
) -> Any:
    """Mean ± std cross-validated score against β, on a log axis.

    Parameters
    ----------
    cv_results : dict or fitted search object
        ``GridSearchCV.cv_results_`` (or the search itself) with one row per
        β value (filter the rows first when other parameters vary too).
    param : str, default="vibgslclassifier__beta"
        The β parameter's name in the search; ``"beta"`` for a bare
        estimator.
    metric : str, default="score"
        Which ``mean_test_<metric>``/``std_test_<metric>`` to draw;
        the scorer's name with multi-metric scoring.
    ax : matplotlib Axes, optional
    label : str, optional
        Legend label of the line.

    Returns
    -------
    matplotlib Axes
        One error-bar line, x ascending β, log-scaled x axis.
    """
    results = getattr(cv_results, "cv_results_", cv_results)
    key = f"param_{param}"
    if key not in results:
        params = sorted(k[len("param_"):] for k in results if k.startswith("param_"))
        raise ValueError(f"cv_results has no parameter {param!r}; it has {params}.")
    if f"mean_test_{metric}" not in results:
        raise ValueError(f"cv_results has no 'mean_test_{metric}'.")
    betas = np.asarray(results[key], dtype=float)
    if len(np.unique(betas)) != len(betas):
        raise ValueError(
            f"cv_results has several rows per value of {param!r} (other parameters "
            "vary too): pass only the rows of one setting."
        )
    order = np.argsort(betas)
    mean = np.asarray(results[f"mean_test_{metric}"], dtype=float)[order]
    std = np.asarray(results[f"std_test_{metric}"], dtype=float)[order]
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    ax.errorbar(betas[order], mean, yerr=std, marker="o", capsize=3, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("β")
    ax.set_ylabel(f"mean test {metric} (± std over folds)")
    return ax


def plot_feature_mask(estimator: Any, ax: Any = None, feature_names: Any = None) -> Any:
    """Bar chart of the fitted feature mask :math:`M = \\sigma(\\theta)`.

    Parameters
    ----------
    estimator : fitted VIBGSLClassifier or Pipeline ending in one
    ax : matplotlib Axes, optional
    feature_names : sequence of str, optional
        Tick labels, one per node feature.

    Returns
    -------
    matplotlib Axes
        One bar per node feature, height the mask value in [0, 1].
    """
    _, clf = _split_pipeline(estimator)
    mask = np.asarray(clf.feature_mask_, dtype=float)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    ax.bar(np.arange(len(mask)), mask, width=0.8)
    if feature_names is not None:
        if len(feature_names) != len(mask):
            raise ValueError(
                f"feature_names has {len(feature_names)} names for {len(mask)} features."
            )
        ax.set_xticks(np.arange(len(mask)), labels=list(feature_names), rotation=90)
    ax.set_ylim(0, 1)
    ax.set_xlabel("node feature")
    ax.set_ylabel("mask value")
    ax.set_title(f"feature mask M ({len(mask)} features)")
    return ax
