"""Training guards and stopping rules.

:class:`FiniteLossGuard` is one of :class:`~sk_vibgsl.VIBGSLClassifier`'s
default callbacks (name ``"finite_loss_guard"``; turn it off with
``callbacks__finite_loss_guard=None``): it stops with a clear error instead
of fitting garbage. :class:`StepEarlyStopping` is skorch's early stopping
with a patience that also counts optimizer steps, for small datasets whose
epochs are only a few steps, and that can refuse to keep an epoch whose
validation predictions are all one class. :class:`ValidClassCount`, another
default callback (``"valid_classes"``), records how many classes each epoch's
validation predictions contain, so that such an epoch shows in the history.
"""

from __future__ import annotations

import math
import numbers

import torch
from skorch.callbacks import Callback, EarlyStopping

__all__ = ["FiniteLossGuard", "NonFiniteLossError", "StepEarlyStopping", "ValidClassCount"]


class NonFiniteLossError(FloatingPointError):
    """The training (or validation) loss or the parameters became NaN or infinite."""


class FiniteLossGuard(Callback):
    r"""Raise :class:`NonFiniteLossError` as soon as training stops being finite.

    After every batch the loss :math:`\mathrm{CE} + \beta\,\mathrm{KL}` is
    checked, and after every epoch the module's parameters. The error names
    the epoch and batch (both counted from 1), whether it happened in
    training or validation, and the cross-entropy and KL parts of the loss,
    so the cause can be told apart (an exploding KL usually means unscaled
    node features). skorch's training loop lets the error propagate, so
    ``fit`` never returns a model trained on NaN.

    The check costs nothing extra: skorch already reads every batch loss
    back to the host to record it in the history.
    """

    def on_batch_end(self, net, batch=None, training=False, loss=None, **kwargs) -> None:
        if loss is None:
            return
        value = float(loss.detach().reshape(-1)[0]) if torch.is_tensor(loss) else float(loss)
        if math.isfinite(value):
            return
        prefix = "train" if training else "valid"
        batches = net.history[-1]["batches"]
        current = batches[-1] if batches else {}
        n_batch = sum(1 for b in batches if f"{prefix}_loss" in b)
        parts = ", ".join(
            f"{label} {current[key]:.4g}"
            for label, key in (("cross-entropy", f"{prefix}_ce"), ("KL", f"{prefix}_kl"))
            if key in current
        )
        phase = "training" if training else "validation"
        raise NonFiniteLossError(
            f"The {phase} loss became {value} at epoch {len(net.history)}, batch {n_batch}"
            + (f" ({parts})" if parts else "")
            + ": training stopped. Standardise the node features (e.g. "
            "sk_vibgsl.NodeFeatureTransformer(StandardScaler())), or lower lr or beta."
        )

    def on_epoch_end(self, net, **kwargs) -> None:
        module = getattr(net, "module_", None)
        if module is None:
            return
        params = [p.detach() for p in module.parameters()]
        if not params:
            return
        finite = torch.stack([torch.isfinite(p).all() for p in params]).all()
        if not bool(finite):
            bad = [name for name, p in module.named_parameters() if not torch.isfinite(p).all()]
            raise NonFiniteLossError(
                f"The parameters {bad} became NaN or infinite in epoch {len(net.history)}: "
                "training stopped. Standardise the node features, or lower lr or beta."
            )


def _epoch_class_counts(row) -> list[int] | None:
    """The validation graphs an epoch put in each class: its batches'
    ``valid_class_counts`` summed (``None`` for an epoch without them)."""
    counts = [b["valid_class_counts"] for b in row["batches"] if "valid_class_counts" in b]
    if not counts:
        return None
    return [int(sum(c[k] for c in counts)) for k in range(len(counts[0]))]


class ValidClassCount(Callback):
    r"""Record ``valid_classes``: how many classes the epoch's validation predictions contain.

    :meth:`~sk_vibgsl.VIBGSLClassifier.get_loss` records, for each validation
    batch :math:`b`, the count :math:`c_{b,k}` of its graphs predicted as class
    :math:`k` (``valid_class_counts``, the argmax of the deterministic logits).
    At the end of the epoch this callback records

    .. math::
        \texttt{valid\_classes} = \bigl|\{k : \textstyle\sum_b c_{b,k} > 0\}\bigr|,

    so 1 means that every validation graph was put in one class: the model
    predicts a constant there, whatever its cross-entropy says. An epoch
    without validation batches (no ``train_split``) records nothing.
    :class:`StepEarlyStopping`'s ``min_classes`` reads this key.
    """

    def on_epoch_end(self, net, **kwargs) -> None:
        counts = _epoch_class_counts(net.history[-1])
        if counts is not None:
            net.history.record("valid_classes", sum(1 for n in counts if n > 0))


class StepEarlyStopping(EarlyStopping):
    r"""Stop when the monitored score has not improved for ``patience`` epochs
    *and* ``patience_steps`` optimizer steps.

    skorch's :class:`~skorch.callbacks.EarlyStopping` counts its patience in
    epochs. On a small dataset an epoch is only a few optimizer steps (MUTAG:
    about 150 training graphs after the validation split, batches of 64, so
    three), and a patience of 20 epochs (60 steps) can end a fit on its first
    plateau, where it still predicts the majority class. Here the fit stops
    after the :math:`m`-th epoch in a row without improvement only when

    .. math::
        m \ge \texttt{patience} \quad\text{and}\quad
        \sum_{e = E - m + 1}^{E} s_e \ge \texttt{patience\_steps}

    where :math:`s_e` is the number of training batches (optimizer steps) of
    epoch :math:`e` (skorch's ``train_batch_count``) and :math:`E` the
    current epoch. Epochs before ``start_epoch`` are a warm-up: none of them
    is kept as the best or counted as a miss (as Keras' ``start_from_epoch``), so
    a validation score that dips by chance in the first epochs cannot end the
    fit there. With ``min_classes`` :math:`c > 1`, an epoch whose validation
    predictions contain fewer than :math:`c` classes (the history's
    ``valid_classes``, :class:`ValidClassCount`) cannot be kept: until the
    first epoch that can, epochs are warm-up as well (neither best nor miss);
    after it, such an epoch counts as a miss (``skip_few_classes=False``) or,
    with ``skip_few_classes=True``, is skipped as well: neither kept nor
    counted, so that an early epoch that predicted two classes by chance
    cannot end the fit while it sits on a one-class plateau. A model that still predicts
    the majority class on every validation graph can have a lower
    cross-entropy than the later epochs that tell the classes apart (its
    probabilities already rank the graphs), and keeping it puts a whole test
    fold in one class. With ``min_class_size`` :math:`m > 1` a class counts
    among an epoch's classes only when at least :math:`m` validation graphs are
    predicted in it: the epoch qualifies when

    .. math::
        \bigl|\{k : \textstyle\sum_b c_{b,k} \ge m\}\bigr| \ge
        \texttt{min\_classes},

    with :math:`c_{b,k}` the validation batch :math:`b`'s count of graphs
    predicted as class :math:`k` (``valid_class_counts``), so that a first
    epoch that puts a single graph in the minority class (a model still at
    the edge of its one-class phase) is not kept either. With
    ``patience_steps=0``, ``start_epoch=1`` and ``min_classes=1`` it stops exactly where
    :class:`~skorch.callbacks.EarlyStopping` with the same ``patience`` and
    threshold does (skorch's default ``threshold`` is 1e-4, ours 0). An epoch improves when
    its score beats the best so far by more than ``threshold`` (a fraction
    of the best score with ``threshold_mode="rel"``), as in skorch.

    Parameters
    ----------
    monitor : str, default="valid_ce"
        History key to watch: :class:`~sk_vibgsl.VIBGSLClassifier`'s
        validation cross-entropy of deterministic predictions (needs a
        ``train_split``).
    patience : int, default=20
        Epochs without improvement, at least.
    patience_steps : int, default=150
        Optimizer steps without improvement, at least (counted over whole
        epochs; 150 is 50 epochs of MUTAG, and less than 20 epochs of any
        other dataset of the study: IMDB-BINARY has 13 steps an epoch).
    threshold : float, default=0.0
        Smallest improvement that counts.
    start_epoch : int, default=1
        The first epoch that can be the best (the history's ``epoch``, counted
        from 1 and continued by a warm-started fit); the fit runs at
        least ``start_epoch - 1 + patience`` epochs when ``max_epochs`` allows.
        A fit whose best epoch under ``start_epoch=1`` is ``start_epoch`` or
        later stops at the same epoch with the same weights: waiting only
        delays the count of misses on fits that would otherwise have kept an
        earlier epoch. A fit that ends before ``start_epoch`` keeps its last
        weights.
    min_classes : int, default=1
        The fewest classes an epoch's validation predictions must contain for
        it to be kept (1: any epoch; 2: not a constant prediction). Needs the
        ``valid_classes`` history key (a ``train_split``); a fit in which no
        epoch qualifies keeps its last weights, as one that ends before
        ``start_epoch``.
    skip_few_classes : bool, default=False
        With ``min_classes > 1``: whether an epoch with too few classes after
        the first kept one is skipped (neither kept nor counted as a miss)
        instead of counted as a miss. A fit that never leaves a one-class
        plateau then runs ``max_epochs``.
    min_class_size : int, default=1
        With ``min_classes > 1``: the fewest validation graphs a class must be
        predicted for to count among the epoch's classes (1: any; 2: a class
        predicted for a single graph does not count). Reads the validation
        batches' ``valid_class_counts``.
    threshold_mode : {"rel", "abs"}, default="rel"
    lower_is_better : bool, default=True
    sink : callable, default=print
        Where the stopping message goes (printed only when ``verbose``).
    load_best : bool, default=True
        Restore the module's weights of the best epoch when training ends.

    Attributes
    ----------
    misses_ : int
        Epochs in a row without improvement.
    steps_since_best_ : int
        Optimizer steps in those epochs.
    best_epoch_ : int
        The best epoch so far (counted from 1; 0 before the first that counts).

    Examples
    --------
    >>> from skorch.dataset import ValidSplit
    >>> from sk_vibgsl import VIBGSLClassifier
    >>> from sk_vibgsl.callbacks import StepEarlyStopping
    >>> clf = VIBGSLClassifier(
    ...     max_epochs=300, train_split=ValidSplit(0.1, stratified=True),
    ...     callbacks=[("early_stopping", StepEarlyStopping(patience=20, patience_steps=150))])
    """

    def __init__(
        self,
        monitor: str = "valid_ce",
        patience: int = 20,
        patience_steps: int = 150,
        threshold: float = 0.0,
        threshold_mode: str = "rel",
        lower_is_better: bool = True,
        sink=print,
        load_best: bool = True,
        start_epoch: int = 1,
        min_classes: int = 1,
        skip_few_classes: bool = False,
        min_class_size: int = 1,
    ) -> None:
        super().__init__(
            monitor=monitor, patience=patience, threshold=threshold,
            threshold_mode=threshold_mode, lower_is_better=lower_is_better, sink=sink,
            load_best=load_best,
        )
        self.patience_steps = patience_steps
        self.start_epoch = start_epoch
        self.min_classes = min_classes
        self.skip_few_classes = skip_few_classes
        self.min_class_size = min_class_size
        self.steps_since_best_ = 0

    def on_train_begin(self, net, **kwargs) -> None:
        for name, minimum in (("patience", 1), ("patience_steps", 0), ("start_epoch", 1),
                              ("min_classes", 1), ("min_class_size", 1)):
            value = getattr(self, name)
            if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
                    or value < minimum):
                raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}.")
        if not isinstance(self.skip_few_classes, bool):
            raise ValueError(
                f"skip_few_classes must be True or False, got {self.skip_few_classes!r}.")
        if self.min_class_size > 1 and self.min_classes < 2:
            raise ValueError(
                f"min_class_size={self.min_class_size} needs min_classes >= 2 (it sets when "
                f"a class counts among them), got min_classes={self.min_classes!r}.")
        super().on_train_begin(net, **kwargs)  # also checks threshold_mode
        self.steps_since_best_ = 0

    def _improves(self, score: float) -> bool:
        """Whether ``score`` beats ``dynamic_threshold_`` (skorch's rule)."""
        return score < self.dynamic_threshold_ if self.lower_is_better \
            else score > self.dynamic_threshold_

    def _threshold_after(self, score: float) -> float:
        """The score the next epoch must beat (skorch's rule)."""
        change = self.threshold * score if self.threshold_mode == "rel" else self.threshold
        return score - change if self.lower_is_better else score + change

    def _classes(self, net) -> int:
        """The classes of the epoch's validation predictions that count: those
        predicted for at least ``min_class_size`` graphs."""
        if self.min_class_size == 1:
            return net.history[-1, "valid_classes"]
        counts = _epoch_class_counts(net.history[-1])
        if counts is None:
            raise ValueError(
                f"min_class_size={self.min_class_size} needs the validation batches' "
                f"valid_class_counts, which epoch {net.history[-1, 'epoch']} lacks.")
        return sum(1 for n in counts if n >= self.min_class_size)

    def on_epoch_end(self, net, **kwargs) -> None:
        if net.history[-1, "epoch"] < self.start_epoch:  # warm-up: neither best nor miss
            return
        if self.min_classes > 1:
            if "valid_classes" not in net.history[-1]:
                raise ValueError(
                    f"min_classes={self.min_classes} needs the history's valid_classes, "
                    f"which epoch {net.history[-1, 'epoch']} lacks: give the estimator a "
                    "train_split (validation graphs) and keep its default valid_classes "
                    "callback.")
            eligible = self._classes(net) >= self.min_classes
            if not eligible and (self.skip_few_classes or not self.best_epoch_):
                return  # none kept yet (still warm-up), or skipped
        else:
            eligible = True
        score = float(net.history[-1, self.monitor])
        if eligible and self._improves(score):
            self.dynamic_threshold_ = self._threshold_after(score)
            self.misses_ = 0
            self.steps_since_best_ = 0
            self.best_epoch_ = net.history[-1, "epoch"]
            if self.load_best:
                self.best_model_weights_ = {
                    k: v.detach().clone() for k, v in net.module_.state_dict().items()
                }
            return
        self.misses_ += 1
        self.steps_since_best_ += int(net.history[-1, "train_batch_count"])
        if self.misses_ >= self.patience and self.steps_since_best_ >= self.patience_steps:
            if self.sink is not print or net.verbose:
                self.sink(
                    f"Stopping since {self.monitor} has not improved in the last "
                    f"{self.misses_} epochs ({self.steps_since_best_} optimizer steps)."
                )
            raise KeyboardInterrupt  # how skorch's training loop is told to stop
