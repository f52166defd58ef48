"""
Structure noise with ``perturb_edges``
======================================

The paper's robustness study (Fig. 4) removes a fraction of each graph's edges and adds as
many random new ones. :func:`~sk_vibgsl.perturb_edges` does this for any input kind, and
:class:`~sk_vibgsl.EdgePerturber` does it as a pipeline step.
"""

# %%
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from sk_vibgsl import perturb_edges, plotting

graph = nx.karate_club_graph()
adjacency = nx.to_numpy_array(graph, weight=None)
sample = (np.ones((len(adjacency), 1)), adjacency)

fig, axes = plt.subplots(1, 3, figsize=(11, 3.8))
pos = plotting.graph_layout(adjacency, seed=0)
for ax, fraction in zip(axes, [0.0, 0.25, 0.75]):
    [(_, noisy)] = perturb_edges([sample], add=fraction, remove=fraction, random_state=0)
    kept = int(np.triu((noisy > 0) & (adjacency > 0), 1).sum())
    plotting.draw_graph(noisy, ax=ax, pos=pos,
                        title=f"{fraction:.0%} noise: |E| = {plotting.n_edges(noisy)}, "
                              f"{kept} original")
fig.tight_layout()

# %%
# The edge count stays the same (``round(f·m)`` removed, as many added), while fewer and
# fewer of the edges are original ones. In a pipeline:
#
# .. code-block:: python
#
#     from sklearn.pipeline import make_pipeline
#     from sk_vibgsl import DegreeFeatures, EdgePerturber, VIBGSLClassifier
#
#     model = make_pipeline(EdgePerturber(add=0.25, remove=0.25, random_state=0),
#                           DegreeFeatures(), VIBGSLClassifier())
