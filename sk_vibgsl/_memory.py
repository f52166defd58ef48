r"""Estimated peak memory of one training step on one graph, for refusals.

Measured on CPU (float32, 1 thread), with a margin; a guide for the
``max_nodes`` message, not a bound.

* Dense path: about :data:`DENSE_BYTES_PER_PAIR` bytes per node pair
  (15–35 measured at ``N = 1000 … 3000``, ``batch_size=1``).
* Sparse path: the kept learned edges (at most ``2 k`` per node, plus the
  observed and candidate edges) and the node tensors, each a few dozen
  floats wide:
  :math:`n \left(c_e (2k + \bar d_{cand}) + c_n (F + d)\right)` bytes,
  the edge and hidden terms scaled by ``num_layers / 2`` (each layer keeps
  its own messages and activations; measured at two layers only).
"""

from __future__ import annotations

__all__ = ["describe_step_memory", "step_bytes"]

DENSE_BYTES_PER_PAIR = 35
SPARSE_BYTES_PER_EDGE = 1200
"""Per kept (directed) edge: pair indices, gathered embeddings, logits,
weights, messages and their gradients (``hidden_dim = 16``). Fitted to the
extra peak RSS of a training epoch on one synthetic graph
(``benchmarks/results/scaling.md``, "One big graph": 16 features,
``structure_k=8``): 229 MiB at ``n = 20 000`` with all-pairs scoring, 320 MiB
(``n = 20 000``) and 989 MiB (``n = 100 000``) with ``candidate_hops=2``;
the estimate gives 427 MiB and 2.1 GiB (on the safe side)."""
UNKNOWN_DEGREE = 32
"""Learned edges per node assumed without ``structure_k`` (candidates from ``candidate_hops``)."""
SPARSE_BYTES_PER_NODE_WIDTH = 40
"""Per node and feature/hidden channel: features, projections, activations."""


def step_bytes(n_nodes: int, *, sparse: bool, n_features: int = 1, hidden: int = 16,
               k: int | None = None, degree: float = 0.0, layers: int = 2) -> int:
    """Estimated extra peak bytes of a training step on one graph of ``n_nodes``."""
    if not sparse:
        return DENSE_BYTES_PER_PAIR * n_nodes * n_nodes
    edges = (2 * k if k is not None else UNKNOWN_DEGREE) + degree
    depth = layers / 2
    scale = hidden / 16 * depth
    return int(n_nodes * (SPARSE_BYTES_PER_EDGE * scale * edges
                          + SPARSE_BYTES_PER_NODE_WIDTH * (n_features + 4 * hidden * depth)))


def describe_step_memory(n_nodes: int, **kwargs) -> str:
    """``"a training step on it needs about X GiB on the dense path"``."""
    gib = step_bytes(n_nodes, **kwargs) / 2**30
    path = "sparse" if kwargs.get("sparse") else "dense"
    return f"a training step on it needs about {gib:,.1f} GiB on the {path} path"
