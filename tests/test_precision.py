"""``precision="bf16"``: bfloat16 autocast of the forward pass (tested on CPU)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import make_graphs

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl._precision import autocast, check_precision
from sk_vibgsl.nn.model import VIBGSLModule


class AutocastProbeModule(VIBGSLModule):
    """Records, per forward call, whether CPU autocast is on and the logits' dtype."""

    seen: list[tuple[bool, torch.dtype]] = []

    def forward(self, x, mask, adj=None):
        out = super().forward(x, mask, adj)
        AutocastProbeModule.seen.append((torch.is_autocast_enabled("cpu"), out[0].dtype))
        return out


def test_bf16_runs_the_forward_under_autocast(graphs):
    X, y = graphs
    AutocastProbeModule.seen.clear()
    clf = VIBGSLClassifier(
        AutocastProbeModule, precision="bf16", max_epochs=2, random_state=0
    ).fit(X, y)
    proba = clf.predict_proba(X)
    assert AutocastProbeModule.seen
    assert all(on and dtype == torch.bfloat16 for on, dtype in AutocastProbeModule.seen)
    assert proba.dtype == np.float32 and np.allclose(proba.sum(1), 1, atol=1e-5)
    assert all(np.isfinite(clf.history[:, "train_loss"]))

    AutocastProbeModule.seen.clear()
    clf.set_params(precision="32")
    clf.predict_proba(X)
    assert all(not on and dtype == torch.float32 for on, dtype in AutocastProbeModule.seen)


def test_bf16_loss_is_float32(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(precision="bf16", max_epochs=1, random_state=0).fit(X, y)
    batch, target = next(iter(clf.get_iterator(clf.get_dataset(X), training=False)))
    out = clf.infer(batch)
    assert all(t.dtype == torch.float32 for t in out)
    assert clf.get_loss(out, target).dtype == torch.float32


def test_bf16_accuracy_close_to_float32():
    """Held-out accuracy on a learnable problem: bf16 within 10 points of float32."""
    X, y = make_graphs(90, seed=1)
    scores = {}
    for precision in ("32", "bf16"):
        clf = VIBGSLClassifier(precision=precision, max_epochs=15, random_state=0)
        scores[precision] = clf.fit(X[:60], y[:60]).score(X[60:], y[60:])
    assert scores["32"] >= 0.8
    assert abs(scores["bf16"] - scores["32"]) <= 0.1, scores


@pytest.mark.parametrize("bad", ["16", "fp16", 32, None])
def test_bad_precision_raises(graphs, bad):
    X, y = graphs
    with pytest.raises(ValueError, match="precision must be one of"):
        VIBGSLClassifier(max_epochs=1, precision=bad).fit(X, y)
    with pytest.raises(ValueError, match="precision must be one of"):
        check_precision(bad)


def test_autocast_context():
    with autocast("32", "cpu"):
        assert not torch.is_autocast_enabled("cpu")
    with autocast("bf16", "cpu"):
        assert torch.is_autocast_enabled("cpu")
        assert torch.get_autocast_dtype("cpu") == torch.bfloat16
