"""The relabelling of ``benchmarks/node_order_check.py``."""

from __future__ import annotations

import numpy as np
import torch
from conftest import benchmark_script
from torch_geometric.data import Data


def test_relabel_renumbers_nodes_and_keeps_every_edge_and_feature():
    noc = benchmark_script("node_order_check")
    x = torch.tensor([[0.0], [1.0], [2.0], [3.0]])
    g = Data(x=x, edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=4)
    order = np.array([2, 0, 3, 1])  # new node i is old node order[i]
    h = noc.relabel(g, order)
    assert h.x[:, 0].tolist() == [2.0, 0.0, 3.0, 1.0]
    old_edges = {(int(u), int(v)) for u, v in g.edge_index.T}
    new_edges = {(int(order[u]), int(order[v])) for u, v in h.edge_index.T}
    assert new_edges == old_edges and h.num_nodes == 4
