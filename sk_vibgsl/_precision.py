"""Mixed precision (the ``precision`` parameter): bf16 autocast of the forward pass.

``"32"`` runs everything in float32. ``"bf16"`` runs the module's forward
under :func:`torch.autocast` with ``dtype=torch.bfloat16``: matrix products
(the dense ``B × N × N`` message passing, the linear layers) run in
bfloat16, reductions and the loss stay in float32 (autocast's op lists; the
module's outputs are cast back to float32 before the loss). bfloat16 has
float32's exponent range, so no loss scaling is needed.
"""

from __future__ import annotations

import contextlib

import torch

__all__ = ["PRECISIONS", "autocast", "check_precision"]

PRECISIONS = ("32", "bf16")


def check_precision(value: object) -> str:
    """Validate ``precision``: one of :data:`PRECISIONS`.

    Raises
    ------
    ValueError
        For anything else.
    """
    if not isinstance(value, str) or value not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {value!r}.")
    return value


def autocast(precision: str, device_type: str) -> contextlib.AbstractContextManager:
    """The context to run a forward pass in.

    Parameters
    ----------
    precision : {"32", "bf16"}
    device_type : str
        ``"cpu"`` or ``"cuda"`` (the module's device type).

    Raises
    ------
    ValueError
        For ``"bf16"`` on a CUDA device without bfloat16 support (before
        Ampere).
    """
    if check_precision(precision) == "32":
        return contextlib.nullcontext()
    if device_type == "cuda" and not torch.cuda.is_bf16_supported():
        raise ValueError(
            "precision='bf16' needs a GPU with bfloat16 support (compute capability >= 8.0); "
            "use precision='32'."
        )
    return torch.autocast(device_type=device_type, dtype=torch.bfloat16)
