"""Training guards: stop with a clear error instead of fitting garbage.

:class:`FiniteLossGuard` is one of :class:`~sk_vibgsl.VIBGSLClassifier`'s
default callbacks (name ``"finite_loss_guard"``; turn it off with
``callbacks__finite_loss_guard=None``).
"""

from __future__ import annotations

import math

import torch
from skorch.callbacks import Callback

__all__ = ["FiniteLossGuard", "NonFiniteLossError"]


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
