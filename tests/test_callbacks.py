"""FiniteLossGuard: training stops with an error naming the epoch, never fits NaN."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import make_graphs
from skorch.callbacks import Callback
from skorch.dataset import ValidSplit
from torch.utils.data import Subset

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl.callbacks import (
    FiniteLossGuard,
    NonFiniteLossError,
    StepEarlyStopping,
    ValidClassCount,
)

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


# --------------------------------------------------------------------------- #
# StepEarlyStopping: a patience in epochs and in optimizer steps
# --------------------------------------------------------------------------- #
class ScoreSchedule(Callback):
    """Records ``scores[epoch - 1]`` as ``"score"`` at each epoch's end (the
    monitored value, independent of what the model learns)."""

    def __init__(self, scores):
        self.scores = scores

    def on_epoch_end(self, net, **kwargs):
        net.history.record("score", self.scores[len(net.history) - 1])


def stopped_at(stopper, scores, batch_size, max_epochs=40, n_graphs=24):
    """Epochs run by a fit on ``n_graphs`` graphs (``n_graphs / batch_size``
    steps an epoch) whose monitored score follows ``scores``."""
    X, y = make_graphs(n_graphs)
    clf = VIBGSLClassifier(max_epochs=max_epochs, batch_size=batch_size, random_state=0,
                           callbacks=[("schedule", ScoreSchedule(scores)), ("stop", stopper)])
    clf.fit(X, y)
    assert all(n == n_graphs // batch_size for n in clf.history[:, "train_batch_count"])
    return len(clf.history)


# best at epoch 3, then never better
SCORES = [5.0, 4.0, 3.0] + [3.5] * 60


@pytest.mark.parametrize(
    ("batch_size", "patience", "patience_steps", "expected"),
    [
        (8, 5, 0, 3 + 5),     # epochs only
        (8, 5, 15, 3 + 5),    # 3 steps an epoch: 5 epochs are 15 steps
        (8, 5, 16, 3 + 6),    # one step short after 5 epochs: a sixth
        (8, 5, 30, 3 + 10),   # the steps decide: 10 epochs of 3
        (24, 5, 7, 3 + 7),    # 1 step an epoch: 7 epochs
        (4, 5, 12, 3 + 5),    # 6 steps an epoch: the epochs decide
    ],
)
def test_step_early_stopping_needs_both_patiences(batch_size, patience, patience_steps,
                                                  expected):
    stopper = StepEarlyStopping(monitor="score", patience=patience,
                                patience_steps=patience_steps, load_best=False)
    assert stopped_at(stopper, SCORES, batch_size) == expected
    assert stopper.best_epoch_ == 3
    assert stopper.misses_ == expected - 3
    assert stopper.steps_since_best_ == (expected - 3) * (24 // batch_size)


@pytest.mark.parametrize("threshold_mode", ["rel", "abs"])
def test_step_early_stopping_without_steps_stops_where_skorch_does(threshold_mode):
    from skorch.callbacks import EarlyStopping

    # improvements of shrinking size: the threshold decides which count
    scores = [5.0, 4.0, 3.9, 3.85, 3.84, 3.839, 3.8389] + [3.9] * 40
    ours = StepEarlyStopping(monitor="score", patience=4, patience_steps=0, threshold=0.01,
                             threshold_mode=threshold_mode, load_best=False)
    skorch_stop = EarlyStopping(monitor="score", patience=4, threshold=0.01,
                                threshold_mode=threshold_mode)
    assert stopped_at(ours, scores, 8) == stopped_at(skorch_stop, scores, 8)
    assert ours.best_epoch_ == skorch_stop.best_epoch_


class WeightSnapshots(Callback):
    """Stores a copy of the module's weights after each epoch in ``snapshots[epoch]``."""

    def __init__(self, snapshots):
        self.snapshots = snapshots

    def on_epoch_end(self, net, **kwargs):
        self.snapshots[len(net.history)] = {
            k: v.detach().clone() for k, v in net.module_.state_dict().items()}


def test_step_early_stopping_restores_the_best_epochs_weights():
    X, y = make_graphs(24)
    snapshots = {}

    stopper = StepEarlyStopping(monitor="score", patience=2, patience_steps=6)
    clf = VIBGSLClassifier(max_epochs=40, batch_size=8, random_state=0, callbacks=[
        ("snapshot", WeightSnapshots(snapshots)), ("schedule", ScoreSchedule(SCORES)),
        ("stop", stopper)])
    clf.fit(X, y)
    assert len(clf.history) == 5 and stopper.best_epoch_ == 3
    restored = clf.module_.state_dict()
    assert any(not torch.equal(restored[k], snapshots[5][k]) for k in restored)
    for key, value in restored.items():
        assert torch.equal(value, snapshots[3][key]), key


def test_step_early_stopping_on_the_validation_cross_entropy_by_default(small):
    X, y = small
    stopper = StepEarlyStopping(patience=1, patience_steps=0)
    assert stopper.monitor == "valid_ce"
    clf = VIBGSLClassifier(max_epochs=3, batch_size=8, random_state=0,
                           train_split=ValidSplit(0.25, stratified=True),
                           callbacks=[("stop", stopper)])
    clf.fit(X, y)
    assert 1 <= stopper.best_epoch_ <= len(clf.history)


@pytest.mark.parametrize(
    ("param", "value"),
    [("patience", 0), ("patience", 2.5), ("patience_steps", -1), ("patience_steps", "10"),
     ("patience_steps", True)],
)
def test_step_early_stopping_rejects_bad_patience_naming_it(small, param, value):
    X, y = small
    stopper = StepEarlyStopping(monitor="score", **{param: value})
    clf = VIBGSLClassifier(max_epochs=2, batch_size=8, random_state=0,
                           callbacks=[("schedule", ScoreSchedule(SCORES)), ("stop", stopper)])
    with pytest.raises(ValueError, match=param):
        clf.fit(X, y)


# a chance dip at epoch 2, then the real descent to epoch 6
DIP = [5.0, 1.0, 4.0, 3.9, 3.8, 3.0] + [3.5] * 60


@pytest.mark.parametrize(("start_epoch", "best", "stop"), [
    (1, 2, 2 + 3),   # the dip is kept and ends the fit three epochs later
    (3, 6, 6 + 3),   # the dip is warm-up: the best from epoch 3 on is epoch 6
    (7, 7, 7 + 3),   # after the descent: the first counted epoch is the best
])
def test_step_early_stopping_ignores_the_epochs_before_start_epoch(start_epoch, best, stop):
    stopper = StepEarlyStopping(monitor="score", patience=3, patience_steps=0,
                                load_best=False, start_epoch=start_epoch)
    assert stopped_at(stopper, DIP, 8) == stop
    assert stopper.best_epoch_ == best and stopper.misses_ == 3


@pytest.mark.parametrize("start_epoch", [2, 3])
def test_a_fit_whose_best_is_not_before_start_epoch_stops_the_same(start_epoch):
    """SCORES' best is epoch 3: waiting until epoch 2 or 3 changes neither the stop, nor
    the best epoch, nor the restored weights (a fitted model equal to start_epoch=1's)."""
    X, y = make_graphs(24)
    fits = []
    for start in (1, start_epoch):
        stopper = StepEarlyStopping(monitor="score", patience=4, patience_steps=6,
                                    start_epoch=start)
        clf = VIBGSLClassifier(max_epochs=40, batch_size=8, random_state=0, callbacks=[
            ("schedule", ScoreSchedule(SCORES)), ("stop", stopper)]).fit(X, y)
        fits.append((len(clf.history), stopper.best_epoch_, clf.module_.state_dict()))
    assert fits[0][:2] == fits[1][:2] == (3 + 4, 3)
    for key, value in fits[0][2].items():
        assert torch.equal(value, fits[1][2][key]), key


def test_a_fit_that_ends_before_start_epoch_keeps_its_last_weights():
    X, y = make_graphs(24)
    stopper = StepEarlyStopping(monitor="score", patience=2, start_epoch=10)
    clf = VIBGSLClassifier(max_epochs=4, batch_size=8, random_state=0, callbacks=[
        ("schedule", ScoreSchedule(SCORES)), ("stop", stopper)])
    clf.fit(X, y)
    last = {k: v.clone() for k, v in clf.module_.state_dict().items()}
    assert len(clf.history) == 4 and stopper.best_epoch_ == 0
    assert stopper.best_model_weights_ is None
    reference = VIBGSLClassifier(max_epochs=4, batch_size=8, random_state=0, callbacks=[
        ("schedule", ScoreSchedule(SCORES))]).fit(X, y)
    for key, value in reference.module_.state_dict().items():
        assert torch.equal(value, last[key]), key


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_step_early_stopping_rejects_a_bad_start_epoch(bad):
    X, y = make_graphs(8)
    clf = VIBGSLClassifier(max_epochs=2, callbacks=[
        ("stop", StepEarlyStopping(monitor="train_loss", start_epoch=bad))])
    with pytest.raises(ValueError, match="start_epoch must be an int >= 1"):
        clf.fit(X, y)


# --------------------------------------------------------------------------- #
# ValidClassCount and min_classes: no epoch that predicts one class is kept
# --------------------------------------------------------------------------- #
def last_eight(dataset, y=None):
    """A ``train_split``: the first 16 graphs train, the last 8 validate."""
    return Subset(dataset, range(16)), Subset(dataset, range(16, 24))


def test_valid_classes_counts_the_classes_of_the_validation_predictions():
    X, y = make_graphs(24)
    clf = VIBGSLClassifier(max_epochs=3, batch_size=4, random_state=0,
                           train_split=last_eight).fit(X, y)
    assert "valid_classes" in dict(clf.get_default_callbacks())
    assert isinstance(dict(clf.callbacks_)["valid_classes"], ValidClassCount)
    # the last epoch's weights are the fitted model's: its predictions on the 8
    # validation graphs, class by class, are the counts recorded over their 2 batches
    batches = [b["valid_class_counts"] for b in clf.history[-1]["batches"]
               if "valid_class_counts" in b]
    assert len(batches) == 2
    counts = np.sum(batches, axis=0)
    predicted = np.searchsorted(clf.classes_, clf.predict(X[16:]))
    np.testing.assert_array_equal(counts, np.bincount(predicted, minlength=2))
    assert clf.history[-1, "valid_classes"] == np.count_nonzero(counts)


def test_valid_classes_is_one_for_a_constant_prediction():
    X, y = make_graphs(24)

    class Constant(VIBGSLClassifier):
        def get_loss(self, y_pred, y_true, X=None, training=False):
            logits, *rest = y_pred
            constant = torch.zeros_like(logits)
            constant[:, 1] = 1.0  # every graph in the second class
            return super().get_loss((constant + 0 * logits, *rest), y_true, X, training)

    clf = Constant(max_epochs=2, batch_size=4, random_state=0, train_split=last_eight)
    clf.fit(X, y)
    assert clf.history[:, "valid_classes"] == [1, 1]


def test_no_validation_records_no_valid_classes(small):
    X, y = small
    clf = VIBGSLClassifier(max_epochs=2, batch_size=8, random_state=0,
                           train_split=None).fit(X, y)
    assert "valid_classes" not in clf.history[-1]


class ClassSchedule(Callback):
    """Records ``classes[epoch - 1]`` as ``"valid_classes"`` (after the default
    ``ValidClassCount``, whose value it replaces)."""

    def __init__(self, classes):
        self.classes = classes

    def on_epoch_end(self, net, **kwargs):
        net.history.record("valid_classes", self.classes[len(net.history) - 1])


def stopped_with(stopper, scores, classes, batch_size=8, max_epochs=40):
    """A fit whose epochs score ``scores`` and whose validation classes a ``classes``
    callback sets, stopped by ``stopper``."""
    X, y = make_graphs(24)
    clf = VIBGSLClassifier(max_epochs=max_epochs, batch_size=batch_size, random_state=0,
                           train_split=ValidSplit(0.25, stratified=True, random_state=0),
                           callbacks=[("schedule", ScoreSchedule(scores)),
                                      ("classes", classes), ("stop", stopper)])
    clf.fit(X, y)
    return clf


def stopped_with_classes(stopper, scores, classes, max_epochs=40):
    return stopped_with(stopper, scores, ClassSchedule(classes), max_epochs=max_epochs)


# the score falls through four one-class epochs, then the classes part
FALLING = [5.0, 4.0, 3.0, 2.5, 2.8, 2.9, 2.7] + [3.5] * 60
PARTING = [1, 1, 1, 1, 2, 2, 2] + [2] * 60


@pytest.mark.parametrize(("min_classes", "best", "stop"), [
    (1, 4, 4 + 3),   # today's rule: the lowest score, a one-class epoch
    (2, 7, 7 + 3),   # epochs 1-4 are warm-up; from epoch 5 on the best is epoch 7
])
def test_min_classes_keeps_no_epoch_with_fewer_classes(min_classes, best, stop):
    stopper = StepEarlyStopping(monitor="score", patience=3, patience_steps=0,
                                load_best=False, min_classes=min_classes)
    clf = stopped_with_classes(stopper, FALLING, PARTING)
    assert len(clf.history) == stop and stopper.best_epoch_ == best
    assert stopper.misses_ == 3


def test_a_one_class_epoch_after_the_first_kept_one_is_a_miss():
    # epochs 3-5 score lower but predict one class: misses, so the fit ends at 2 + 3
    stopper = StepEarlyStopping(monitor="score", patience=3, patience_steps=0,
                                load_best=False, min_classes=2)
    clf = stopped_with_classes(stopper, [5.0, 4.0, 3.0, 2.0, 1.0] + [0.5] * 60,
                               [2, 2, 1, 1, 1] + [2] * 60)
    assert len(clf.history) == 5 and stopper.best_epoch_ == 2


def test_skip_few_classes_neither_keeps_nor_counts_a_one_class_epoch():
    # a chance two-class epoch 2, then a one-class plateau (epochs 3-8) whose scores are
    # lower, then two classes again: counted as misses the plateau ends the fit at 2 + 3;
    # skipped, the fit goes on and keeps epoch 9, the first two-class epoch to beat epoch 2
    scores = [5.0, 4.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 3.5, 4.5] + [4.5] * 60
    classes = [1, 2, 1, 1, 1, 1, 1, 1, 2, 2] + [2] * 60
    counted = StepEarlyStopping(monitor="score", patience=3, patience_steps=0,
                                load_best=False, min_classes=2)
    assert len(stopped_with_classes(counted, scores, classes).history) == 2 + 3
    assert counted.best_epoch_ == 2
    skipped = StepEarlyStopping(monitor="score", patience=3, patience_steps=0,
                                load_best=False, min_classes=2, skip_few_classes=True)
    assert len(stopped_with_classes(skipped, scores, classes).history) == 9 + 3
    assert skipped.best_epoch_ == 9 and skipped.misses_ == 3


class CountSchedule(Callback):
    """Puts ``counts[epoch - 1]`` (graphs per class) in the epoch's first validation
    batch and zeros in the others, and records the matching ``valid_classes``."""

    def __init__(self, counts):
        self.counts = counts

    def on_epoch_end(self, net, **kwargs):
        counts = self.counts[len(net.history) - 1]
        batches = [b for b in net.history[-1]["batches"] if "valid_class_counts" in b]
        for i, batch in enumerate(batches):
            batch["valid_class_counts"] = list(counts) if i == 0 else [0] * len(counts)
        net.history.record("valid_classes", sum(1 for n in counts if n > 0))


def stopped_with_counts(stopper, scores, counts):
    # batches of 4: the 6 validation graphs come in two batches
    return stopped_with(stopper, scores, CountSchedule(counts), batch_size=4)


def test_epoch_class_counts_sums_the_validation_batches():
    from sk_vibgsl.callbacks import _epoch_class_counts
    row = {"batches": [{"train_loss": 1.0}, {"valid_class_counts": [1, 3]},
                       {"valid_class_counts": [0, 2]}]}
    assert _epoch_class_counts(row) == [1, 5]
    assert _epoch_class_counts({"batches": [{"train_loss": 1.0}]}) is None


# one-class epochs 1-3, then epoch 4 puts a single graph in the minority class and
# scores lowest; from epoch 5 on the classes part with two or more graphs each
EDGE_SCORES = [5.0, 4.0, 3.0, 1.0, 2.0, 1.5, 1.8] + [3.5] * 60
EDGE_COUNTS = [(0, 6)] * 3 + [(1, 5)] + [(3, 3)] * 63


@pytest.mark.parametrize(("min_class_size", "best"), [
    (1, 4),   # a single minority graph counts: epoch 4 is kept
    (2, 6),   # it does not: epoch 4 is warm-up, the best after it is epoch 6
])
def test_min_class_size_counts_a_class_only_with_enough_graphs(min_class_size, best):
    stopper = StepEarlyStopping(monitor="score", patience=3, patience_steps=0,
                                load_best=False, min_classes=2, skip_few_classes=True,
                                min_class_size=min_class_size)
    clf = stopped_with_counts(stopper, EDGE_SCORES, EDGE_COUNTS)
    assert stopper.best_epoch_ == best and len(clf.history) == best + 3
    assert clf.history[best - 1, "valid_classes"] == 2


def test_min_class_size_two_is_min_classes_alone_when_every_class_has_two():
    # with at least two graphs in each predicted class, the size changes nothing
    counts = [(0, 6)] * 3 + [(2, 4)] * 64
    stops = []
    for size in (1, 2):
        stopper = StepEarlyStopping(monitor="score", patience=3, patience_steps=0,
                                    load_best=False, min_classes=2, min_class_size=size)
        stops.append((len(stopped_with_counts(stopper, EDGE_SCORES, counts).history),
                      stopper.best_epoch_))
    assert stops[0] == stops[1] == (7, 4)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"min_classes": 2, "min_class_size": 0}, "min_class_size must be an int >= 1"),
    ({"min_classes": 2, "min_class_size": 1.5}, "min_class_size must be an int >= 1"),
    ({"min_class_size": 2}, "min_class_size=2 needs min_classes >= 2"),
])
def test_step_early_stopping_rejects_a_bad_min_class_size(kwargs, match):
    X, y = make_graphs(24)
    clf = VIBGSLClassifier(max_epochs=2, batch_size=8, random_state=0, train_split=last_eight,
                           callbacks=[("stop", StepEarlyStopping(**kwargs))])
    with pytest.raises(ValueError, match=match):
        clf.fit(X, y)


def test_min_classes_restores_the_kept_epochs_weights():
    X, y = make_graphs(24)
    snapshots = {}

    stopper = StepEarlyStopping(monitor="score", patience=3, patience_steps=0, min_classes=2)
    clf = VIBGSLClassifier(max_epochs=40, batch_size=8, random_state=0,
                           train_split=ValidSplit(0.25, stratified=True, random_state=0),
                           callbacks=[("snapshot", WeightSnapshots(snapshots)),
                                      ("schedule", ScoreSchedule(FALLING)),
                                      ("classes", ClassSchedule(PARTING)), ("stop", stopper)])
    clf.fit(X, y)
    assert stopper.best_epoch_ == 7 and len(clf.history) == 10
    for key, value in clf.module_.state_dict().items():
        assert torch.equal(value, snapshots[7][key]), key


def test_a_fit_with_no_epoch_of_enough_classes_keeps_its_last_weights():
    stopper = StepEarlyStopping(monitor="score", patience=2, patience_steps=0, min_classes=3)
    clf = stopped_with_classes(stopper, FALLING, PARTING, max_epochs=6)
    assert len(clf.history) == 6 and stopper.best_epoch_ == 0
    assert stopper.best_model_weights_ is None


def test_min_classes_without_validation_names_the_missing_key(small):
    X, y = small
    clf = VIBGSLClassifier(max_epochs=2, batch_size=8, random_state=0, train_split=None,
                           callbacks=[("stop", StepEarlyStopping(monitor="train_loss",
                                                                 min_classes=2))])
    with pytest.raises(ValueError, match="min_classes=2 needs the history's valid_classes"):
        clf.fit(X, y)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_step_early_stopping_rejects_a_bad_min_classes(bad):
    X, y = make_graphs(8)
    clf = VIBGSLClassifier(max_epochs=2, callbacks=[
        ("stop", StepEarlyStopping(monitor="train_loss", min_classes=bad))])
    with pytest.raises(ValueError, match="min_classes must be an int >= 1"):
        clf.fit(X, y)


def test_min_classes_one_stops_and_keeps_as_before():
    """``min_classes=1`` is today's rule: the same stop, best epoch and weights as the
    default on a real validation cross-entropy."""
    X, y = make_graphs(24)
    fits = []
    for extra in ({}, {"min_classes": 1}):
        stopper = StepEarlyStopping(patience=2, patience_steps=0, **extra)
        clf = VIBGSLClassifier(max_epochs=15, batch_size=8, random_state=0,
                               train_split=ValidSplit(0.25, stratified=True, random_state=0),
                               callbacks=[("stop", stopper)]).fit(X, y)
        fits.append((len(clf.history), stopper.best_epoch_, clf.module_.state_dict()))
    assert fits[0][:2] == fits[1][:2]
    for key, value in fits[0][2].items():
        assert torch.equal(value, fits[1][2][key]), key


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_step_early_stopping_rejects_a_bad_skip_few_classes(bad):
    X, y = make_graphs(8)
    clf = VIBGSLClassifier(max_epochs=2, callbacks=[
        ("stop", StepEarlyStopping(monitor="train_loss", skip_few_classes=bad))])
    with pytest.raises(ValueError, match="skip_few_classes must be True or False"):
        clf.fit(X, y)
