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
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = [
    "SPARSE_ROUTES",
    "feature_product",
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


def feature_product(x: Tensor, weight: Tensor) -> Tensor:
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

    Returns
    -------
    Tensor of shape (rows, out)

    The sparse product runs in the features' precision even under autocast
    (``precision="bf16"``), whose bfloat16 sparse product has no backward.
    """
    if not uses_sparse_product(x, weight.shape[0]):
        return x @ weight.T
    # in float32 under autocast too: autocast runs the sparse product in
    # bfloat16, and its backward then fails (sparse float32 times a bfloat16
    # gradient); the later layers cast as autocast says
    with torch.autocast(x.device.type, enabled=False):
        return torch.sparse.mm(x.to_sparse(), weight.T)
