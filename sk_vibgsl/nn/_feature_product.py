r"""``X W`` for node features that are mostly zeros (one-hot degrees, bag of words).

The first layer of every path multiplies the node features by the stacked
first weights of the GNN and the structure learner. On the social TU
datasets the features are one-hot degrees: COLLAB has 492 columns with one
nonzero per row, so the dense product (forward and weight gradient) spends
almost all of its work on zeros -- a quarter of a CPU training epoch there.

:func:`feature_product` takes the sparse route where it pays: the rows are
turned into a COO matrix (one pass over ``X``) and multiplied by
:func:`torch.sparse.mm`, whose weight gradient touches only the nonzeros. On
one CPU thread, 5,000 one-hot rows of 492 columns times 64 output columns
(forward and backward): dense 9.1 ms, sparse 4.4 ms (about 3 ms of it the
conversion); at density 0.01 the two are even with 32 output columns, and at
0.03 dense wins with 64; on 136 columns the two are within noise of each
other (``benchmarks/results/feature_product.md``). So the sparse route is
taken on CPU for float32/float64 features that need no gradient, when they
have at least :data:`SPARSE_MIN_WIDTH` columns, the product has at least
:data:`SPARSE_MIN_OUT` output columns and a sample of the rows has at most
:data:`SPARSE_MAX_DENSITY` nonzero entries. It computes the same sums
(exactly the same for one-hot rows, whose dot products have a single nonzero
term; otherwise up to float rounding, as the terms are added in another
order).
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = [
    "SPARSE_MAX_DENSITY",
    "SPARSE_MIN_OUT",
    "SPARSE_MIN_WIDTH",
    "feature_product",
    "uses_sparse_product",
]

SPARSE_MAX_DENSITY = 0.005
"""Largest share of nonzero feature entries for which the sparse route is taken."""
SPARSE_MIN_OUT = 32
"""Fewest output columns for which the sparse route is taken (below it the dense
product is cheaper than converting ``X``)."""
SPARSE_MIN_WIDTH = 256
"""Fewest feature columns for which the sparse route is taken."""
_SAMPLE_ROWS = 256


def uses_sparse_product(x: Tensor, out_columns: int) -> bool:
    """Whether :func:`feature_product` multiplies ``x`` (``rows × d``) as a
    sparse matrix: CPU, float32/float64, no gradient wanted for ``x``, at least
    :data:`SPARSE_MIN_WIDTH` columns and :data:`SPARSE_MIN_OUT` output columns,
    and at most :data:`SPARSE_MAX_DENSITY` nonzeros in about 256 evenly spaced
    rows."""
    if (
        x.device.type != "cpu"
        or x.dtype not in (torch.float32, torch.float64)
        or x.requires_grad
        or x.dim() != 2
        or out_columns < SPARSE_MIN_OUT
        or x.shape[-1] < SPARSE_MIN_WIDTH
        or x.numel() == 0
    ):
        return False
    sample = x[:: max(1, x.shape[0] // _SAMPLE_ROWS)]
    return int(torch.count_nonzero(sample)) <= SPARSE_MAX_DENSITY * sample.numel()


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
    """
    if uses_sparse_product(x, weight.shape[0]):
        return torch.sparse.mm(x.to_sparse(), weight.T)
    return x @ weight.T
