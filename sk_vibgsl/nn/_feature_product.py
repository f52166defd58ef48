r"""``X W`` for node features that are mostly zeros (one-hot degrees, bag of words).

The first layer of every path multiplies the node features by the stacked
first weights of the GNN and the structure learner. On the social TU
datasets the features are one-hot degrees: COLLAB has 492 columns with one
nonzero per row, so the dense product (forward and weight gradient) spends
almost all of its work on zeros -- a quarter of a CPU training epoch there.

:func:`feature_product` takes the sparse route where it pays: the rows are
turned into a COO matrix (one pass over ``X``) and multiplied by
:func:`torch.sparse.mm`, whose weight gradient touches only the nonzeros.
Forward and weight gradient, one CPU thread (``benchmarks/results/
feature_product.md`` and ``feature_product_epyc.md``): 5,000 one-hot rows of
492 columns times 64 output columns, dense 9.1 ms, sparse 4.4 ms (about 3 ms
of it the conversion) on an Intel CPU; 136 one-hot columns (IMDB-BINARY's
degrees) times 64 columns, sparse/dense 0.83 there and 0.65 on an AMD EPYC,
times 96 (the learned channel's three first weights, twice under the feature
mask) 0.47 on the AMD EPYC; but 64 one-hot columns times 64, 1.18 on the
Intel CPU. So the sparse route is taken on CPU for float32/float64 features
that need no gradient when one of :data:`SPARSE_ROUTES` holds: enough feature
columns, enough output columns, and at most a share of nonzero entries in a
sample of the rows. It computes the same sums (exactly the same for one-hot
rows, whose dot products have a single nonzero term; otherwise up to float
rounding, as the terms are added in another order).

Better still, a dataset of such features lists its nonzeros once
(:data:`SPARSE_FEATURES`, :class:`~sk_vibgsl._batching.GraphDataset` with
``sparse_features=True``, which the classifier asks for on CPU): each batch
brings its own list, :func:`batch_feature_matrix` makes it a sparse matrix
without reading the dense features, and :func:`feature_product` multiplies
that (``listed``) instead of converting ``X``.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

__all__ = [
    "SPARSE_FEATURES",
    "SPARSE_ROUTES",
    "batch_feature_matrix",
    "feature_product",
    "has_sparse_features",
    "listed_features",
    "uses_sparse_product",
]

SPARSE_ROUTES: tuple[tuple[int, int, float], ...] = ((256, 32, 0.005), (128, 64, 0.01))
"""``(fewest feature columns, fewest output columns, largest share of nonzero
entries)`` for which the sparse route is taken; any one suffices. Wide
features pay from 32 output columns at density 0.005 (at 0.01 and 32 columns
dense won, 1.15× on the Intel CPU); 136 columns pay from 64 output columns up
to density 0.01 (sparse/dense 0.55–0.74 on the AMD EPYC, 0.74–0.94 on the
Intel CPU), not at 32 (0.95–1.27 and 1.25–1.62); 64 one-hot columns did not
pay on the Intel CPU (1.18 at 64 output columns). Below the output bound the
dense product is cheaper than converting ``X``."""
_SAMPLE_ROWS = 256

SPARSE_FEATURES: tuple[int, float] = (128, 0.01)
"""``(fewest feature columns, largest share of nonzero entries)`` of a
dataset whose nonzero features are listed once, before training
(:func:`has_sparse_features`): each batch then brings its own
(:func:`batch_feature_matrix`), and the first products read no dense
features. Forward and weight gradient of 1,600 rows (an IMDB-BINARY batch)
on one Intel Xeon thread, listed/dense
(``benchmarks/results/feature_product_listed_xeon.md``): one-hot rows of
136 columns 0.61–0.90 for 32–96 output columns (1.13 at 16; the model's
first products have at least 32), of 492 columns 0.24–0.39, of 2,000
columns 0.10–0.16; density 0.005 of 136–2,000 columns 0.34–0.96; density
0.01 of 492 columns 0.63–1.03. Denser rows lose (density 0.03: 1.4–3.4), as
do one-hot rows of 64 columns (1.03–1.59)."""


def uses_sparse_product(x: Tensor, out_columns: int) -> bool:
    """Whether :func:`feature_product` multiplies ``x`` (``rows × d``) as a
    sparse matrix: CPU, float32/float64, no gradient wanted for ``x``, and a
    route of :data:`SPARSE_ROUTES` whose column bounds ``d`` and
    ``out_columns`` meet, with at most its share of nonzeros in about 256
    evenly spaced rows."""
    if (
        x.device.type != "cpu"
        or x.dtype not in (torch.float32, torch.float64)
        or x.requires_grad
        or x.dim() != 2
        or x.numel() == 0
    ):
        return False
    routes = [
        max_density
        for min_width, min_out, max_density in SPARSE_ROUTES
        if x.shape[-1] >= min_width and out_columns >= min_out
    ]
    if not routes:
        return False
    sample = x[:: max(1, x.shape[0] // _SAMPLE_ROWS)]
    return int(torch.count_nonzero(sample)) <= max(routes) * sample.numel()


def has_sparse_features(x: np.ndarray) -> bool:
    """Whether node features ``x`` (``nodes × d``, the whole dataset) are
    listed once as nonzeros: float32/float64, at least
    ``SPARSE_FEATURES[0]`` columns and at most a share ``SPARSE_FEATURES[1]``
    of nonzero entries."""
    min_columns, max_density = SPARSE_FEATURES
    return (
        x.ndim == 2
        and x.dtype in (np.float32, np.float64)
        and x.shape[1] >= min_columns
        and x.size > 0
        and np.count_nonzero(x) <= max_density * x.size
    )


def batch_feature_matrix(index: Tensor, value: Tensor, n_nodes: int, n_features: int) -> Tensor:
    r"""The node features of a padded batch as a sparse ``(B·N) × d`` matrix.

    ``index`` and ``value`` (``B × E``) list each graph's nonzero features:
    feature :math:`j` of node :math:`i` of graph :math:`b` at position
    :math:`i d + j` of row :math:`b`, in increasing order, rows padded with
    value 0 at position 0 (dropped here). Row :math:`b N + i` of the result
    is node :math:`i` of graph :math:`b` (``N = n_nodes``); padded nodes'
    rows are empty. The entries come sorted by row, then column, so the COO
    matrix is built coalesced, without a sort.
    """
    b, width = index.shape
    keep = value.reshape(-1).nonzero().squeeze(1)
    # position in the batch's (B·N) × d block: graph b's block starts at b·N·d
    start = torch.arange(0, b * n_nodes * n_features, n_nodes * n_features, device=index.device)
    pos = (index + start.unsqueeze(1)).reshape(-1).index_select(0, keep)
    indices = torch.stack([torch.div(pos, n_features, rounding_mode="floor"),
                           pos.remainder(n_features)])
    return torch.sparse_coo_tensor(
        indices, value.reshape(-1).index_select(0, keep), (b * n_nodes, n_features),
        is_coalesced=True, check_invariants=False,
    )


def feature_product(x: Tensor, weight: Tensor, listed: Tensor | None = None) -> Tensor:
    r""":math:`X W^\top` for node features ``x`` of shape ``(rows, d)`` and a
    weight of shape ``(out, d)``, as a sparse product where
    :func:`uses_sparse_product` says it is faster.

    Parameters
    ----------
    x : Tensor of shape (rows, d)
        Node features (no gradient flows to them on the sparse route, which is
        only taken when ``x`` does not require one).
    weight : Tensor of shape (out, d)
        Receives its gradient on either route.
    listed : sparse Tensor of shape (rows, d), optional
        The same features as a sparse matrix built before
        (:func:`batch_feature_matrix`): then ``x`` is not read.

    A sparse product runs in the features' precision even under autocast
    (``precision="bf16"``), whose bfloat16 sparse product has no backward.

    Returns
    -------
    Tensor of shape (rows, out)
    """
    if listed is None and not uses_sparse_product(x, weight.shape[0]):
        return x @ weight.T
    if listed is None:
        listed = x.to_sparse()
    # in float32 under autocast too: autocast runs the sparse product in
    # bfloat16, and its backward then fails (sparse float32 times a bfloat16
    # gradient); the later layers cast as autocast says
    with torch.autocast(listed.device.type, enabled=False):
        return torch.sparse.mm(listed, weight.T)


def listed_features(
    x: Tensor, feature_index: Tensor | None, feature_value: Tensor | None
) -> Tensor | None:
    """A batch's listed nonzero features as the sparse ``(B·N) × d`` matrix
    of :func:`~sk_vibgsl.nn._feature_product.batch_feature_matrix`, for CPU
    batches (``None`` without them, or on another device, where ``x`` is
    multiplied as it is)."""
    if feature_index is None or feature_value is None or x.device.type != "cpu":
        return None
    b, n, d = x.shape
    return batch_feature_matrix(feature_index, feature_value.to(x.dtype), n, d)
