"""The VIB-GSL pipeline as a diagram (drawn at docs build time by matplotlib's plot
directive, so no image is committed)."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

fig, ax = plt.subplots(figsize=(9.8, 4.6))
ax.set_xlim(0, 9.8)
ax.set_ylim(0, 4.6)
ax.axis("off")
FONT = 11.5


def box(x, y, w, h, title, body, color):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.04,rounding_size=0.12",
                                fc=color, ec="0.25", lw=1.0))
    ax.text(x + w / 2, y + h - 0.2, title, ha="center", va="top", fontsize=FONT,
            weight="bold")
    ax.text(x + w / 2, y + (h - 0.45) / 2, body, ha="center", va="center", fontsize=FONT,
            linespacing=1.6)


def arrow(x0, y0, x1, y1):
    ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle="-|>", mutation_scale=16,
                                 lw=1.3, color="0.2"))


def graph(cx, cy, r, edges, weights=None, n=6):
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False) + np.pi / 2
    pos = np.c_[cx + r * np.cos(angles), cy + r * np.sin(angles)]
    weights = np.ones(len(edges)) if weights is None else np.asarray(weights)
    for (u, v), w in zip(edges, weights):
        ax.plot(*pos[[u, v]].T, color="0.2", lw=0.6 + 2.4 * w, alpha=0.3 + 0.7 * w, zorder=2)
    ax.scatter(*pos.T, s=60, c="#4c72b0", ec="white", lw=0.8, zorder=3)


# top row: input -> 1. feature mask -> 2. IB-graph
y, h = 2.55, 1.75
ax.text(0.7, y + h - 0.2, "input", ha="center", va="top", fontsize=FONT, weight="bold")
graph(0.7, y + 0.75, 0.38, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 3)])
ax.text(0.7, y - 0.02, r"$G = (X, A)$", ha="center", va="top", fontsize=FONT)
box(1.6, y, 3.2, h, "1. feature mask",
    r"$X_{IB} = X_r + (X - X_r) \odot M$" "\n" r"$M = \sigma(\theta)$", "#dbe8f6")
box(5.2, y, 3.0, h, "2. IB-graph",
    r"$\pi_{uv} = \sigma(Z_u Z_v^\top)$" "\n" r"$A_{IB} \sim \mathrm{Concrete}(\pi, t),\ \geq a_0$",
    "#e3f1df")
graph(8.95, y + h / 2, 0.33, [(0, 2), (1, 4), (2, 5), (0, 4), (3, 5), (1, 3)],
      weights=[1.0, 0.8, 0.5, 0.3, 0.9, 0.2])
ax.text(8.95, y + h / 2 + 0.45, r"$A_{IB}$", ha="center", va="bottom", fontsize=FONT)
arrow(1.15, y + h / 2, 1.6, y + h / 2)
arrow(4.8, y + h / 2, 5.2, y + h / 2)
arrow(8.2, y + h / 2, 8.55, y + h / 2)

# bottom row: 3. bottleneck -> 4. classify, fed by (X_IB, A_IB)
y2, h2 = 0.35, 1.6
box(1.6, y2, 3.2, h2, "3. bottleneck",
    r"GNN$\times$2 on $(X_{IB}, A_{IB})$, mean pool" "\n"
    r"$\mu, \sigma$;  $Z = \mu + \sigma \odot \varepsilon$", "#fbe7d4")
box(5.2, y2, 3.0, h2, "4. classify and loss",
    r"MLP $\to q(Y \mid Z)$" "\n" r"$\mathcal{L} = \mathrm{CE} + \beta\,\mathrm{KL}$", "#f1dcef")
# (X_IB, A_IB) goes down to the bottleneck, between the two rows
mid = (y + y2 + h2) / 2
ax.plot([8.95, 8.95, 3.2], [y + h / 2 - 0.45, mid, mid], color="0.2", lw=1.3)
arrow(3.2, mid, 3.2, y2 + h2)
arrow(4.8, y2 + h2 / 2, 5.2, y2 + h2 / 2)
ax.text(4.8, 0.05, r"training samples $X_r$, $A_{IB}$ and $\varepsilon$; inference uses "
        r"expectations ($X_r \to$ training mean, $A_{IB} = \pi$, $Z = \mu$)",
        ha="center", va="bottom", fontsize=FONT - 1.5, style="italic", color="0.3")
