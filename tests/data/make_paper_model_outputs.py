"""The paper model's outputs, for ``tests/test_presets.py``.

``paper_model_outputs.npz`` was written by running this file at release 0.1.0
(commit 9209afd, before the structure options existed), from the repository
root, with no parameters (the defaults then were the paper's model)::

    python tests/data/make_paper_model_outputs.py

The test calls :func:`fit_outputs` with ``PAPER_PARAMS`` and compares.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import make_graphs  # noqa: E402

from sk_vibgsl import VIBGSLClassifier  # noqa: E402

OUTPUTS = Path(__file__).with_name("paper_model_outputs.npz")


def fit_outputs(**params) -> dict[str, np.ndarray]:
    """Probabilities, loss curve and one IB-graph of small fitted models."""
    out = {}
    X, y = make_graphs(40, seed=3)
    for backbone in ("gcn", "gat", "gin"):
        for mix in (0.0, 0.5):
            torch.manual_seed(0)
            clf = VIBGSLClassifier(
                **{**params, "backbone": backbone, "structure_mix": mix, "max_epochs": 3,
                   "random_state": 0, "torch_threads": 1}
            ).fit(X, y)
            out[f"{backbone}_{mix}_proba"] = clf.predict_proba(X)
            out[f"{backbone}_{mix}_loss"] = np.array(clf.history[:, "train_loss"])
            out[f"{backbone}_{mix}_adj"] = clf.ib_graphs(X[:2])[1][1]
    return out


if __name__ == "__main__":
    np.savez_compressed(OUTPUTS, **fit_outputs())
