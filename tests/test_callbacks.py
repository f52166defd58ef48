"""FiniteLossGuard: training stops with an error naming the epoch, never fits NaN."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import make_graphs
from skorch.callbacks import Callback
from skorch.dataset import ValidSplit

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl.callbacks import FiniteLossGuard, NonFiniteLossError

FAST = dict(max_epochs=4, batch_size=8, random_state=0)


@pytest.fixture
def small():
    return make_graphs(24)


class NaNLossAt(VIBGSLClassifier):
    """Returns a NaN loss at (epoch, training batch) ``nan_at``, counted from 1."""

    nan_at = (2, 2)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        loss = super().get_loss(y_pred, y_true, X=X, training=training)
        done = sum("train_loss" in b for b in self.history[-1]["batches"])
        if training and (len(self.history), done + 1) == self.nan_at:
            return loss * torch.nan
        return loss


class SetParameterNaN(Callback):
    """Sets one parameter to NaN after the given epoch's training batches."""

    def __init__(self, epoch):
        self.epoch = epoch

    def on_batch_end(self, net, training=False, **kwargs):
        if training and len(net.history) == self.epoch:
            with torch.no_grad():
                net.module_.classifier[0].weight.fill_(torch.nan)


def test_default_callbacks_include_the_guard():
    names = [name for name, _ in VIBGSLClassifier().get_default_callbacks()]
    assert "finite_loss_guard" in names


def test_nan_loss_stops_training_naming_epoch_and_batch(small):
    X, y = small
    clf = NaNLossAt(**FAST)
    with pytest.raises(NonFiniteLossError, match=r"training loss became nan at epoch 2, batch 2"):
        clf.fit(X, y)
    # it stopped there: epoch 2 is the last one recorded
    assert len(clf.history) == 2


def test_nan_parameters_stop_training_at_the_next_batch(small):
    X, y = small
    clf = VIBGSLClassifier(callbacks=[SetParameterNaN(epoch=2)], **FAST)
    with pytest.raises(NonFiniteLossError, match=r"epoch 2, batch 2") as info:
        clf.fit(X, y)
    assert "cross-entropy nan" in str(info.value)


def test_nan_parameters_after_the_last_batch_are_caught_at_epoch_end(small):
    X, y = small
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    FiniteLossGuard().on_epoch_end(clf)  # finite: nothing happens
    with torch.no_grad():
        clf.module_.gnn.conv1.bias[0] = torch.inf
    with pytest.raises(NonFiniteLossError, match=r"gnn\.conv1\.bias.*epoch 4"):
        FiniteLossGuard().on_epoch_end(clf)


def test_validation_loss_is_checked_too(small):
    X, y = small

    class NaNValid(VIBGSLClassifier):
        def get_loss(self, y_pred, y_true, X=None, training=False):
            loss = super().get_loss(y_pred, y_true, X=X, training=training)
            return loss if training else loss + torch.inf

    clf = NaNValid(train_split=ValidSplit(4), **FAST)
    with pytest.raises(NonFiniteLossError, match=r"validation loss became inf at epoch 1, batch 1"):
        clf.fit(X, y)


def test_unscaled_huge_features_get_the_error_not_a_garbage_fit(small):
    X, y = small
    # valid float32, but the forward pass overflows: to an infinite KL (mu^2)
    # or to NaN, depending on the CPU's kernels; either way, this error
    huge = [(f * 1e30, a) for f, a in X]
    with pytest.raises(NonFiniteLossError,
                       match=r"epoch 1, batch 1.*KL (inf|nan).*Standardise"):
        VIBGSLClassifier(**FAST).fit(huge, y)


def test_the_guard_can_be_turned_off(small):
    X, y = small
    clf = NaNLossAt(callbacks__finite_loss_guard=None, **FAST)
    clf.nan_at = (1, 1)
    clf.fit(X, y)
    assert np.isnan(clf.history[0, "batches", 0, "train_loss"])


def test_guard_ignores_finite_losses(small):
    X, y = small
    clf = VIBGSLClassifier(callbacks=[("extra_guard", FiniteLossGuard())], **FAST).fit(X, y)
    assert len(clf.history) == FAST["max_epochs"]
    assert np.all(np.isfinite(clf.history[:, "train_loss"]))
