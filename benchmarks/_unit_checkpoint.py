"""Epoch checkpoints inside one unit (fold) of ``reproduce_table1.py``'s paper protocol.

``reproduce_table1.py`` saves each finished unit, so an interrupted run
continues with the next unfinished one. On a CPU one REDDIT-BINARY fold takes
up to an hour or more, longer than what is left of a session once a run is
started late, so a killed fold used to start again from epoch 0. Here a
paper-protocol unit also saves, after every epoch, everything that decides the
rest of its training:

* the module's and the optimizer's state,
* the history (training loss, validation log-loss, test accuracy per epoch),
* torch's global generator (the Concrete and feature-mask noise, and the
  draws each ``DataLoader`` takes for its base seed),
* the history's length is the number of epochs done.

A new run of the same unit then resumes after the last finished epoch:
:class:`EpochCheckpoint` restores that state in ``on_train_begin`` (after the
classifier's own ``on_train_begin`` has rebuilt the module and reseeded
torch), :class:`ResumedGraphLoader` advances the training loader's
batch-order generator past the epochs done, and the net trains for the epochs
that remain. On the same device and thread count the resumed unit reproduces
the uninterrupted one exactly (``tests/test_benchmarks.py`` checks it); on
another device (a GPU run finished on a CPU) it continues from the same
weights with that device's arithmetic.

The file is written to a temporary name and renamed, so a kill while writing
leaves the previous epoch's checkpoint intact. It is removed once the unit's
record is saved.

Killing the run's main process does not stop joblib's worker processes: they
go on training the units they hold, and would go on saving their checkpoints
beside those of a new run of the same units. A checkpoint callback given the
``owner`` process id therefore ends its process, without saving, once that
process is gone.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import torch
from skorch.callbacks import Callback
from skorch.history import History

from sk_vibgsl._batching import GraphLoader


def key_digest(key: tuple) -> str:
    """A file-name-safe hash of a unit's key (keys hold '/', floats, None)."""
    return hashlib.sha1(json.dumps(list(key)).encode()).hexdigest()[:16]


def checkpoint_path(directory: Path, key: tuple) -> Path:
    """File of the unit with this key."""
    return Path(directory) / f"unit-{key_digest(key)}.pt"


def epochs_done(state: dict) -> int:
    """Epochs a loaded checkpoint holds (one history row each)."""
    return len(state["history"])


def load_checkpoint(path: Path | None, key: tuple) -> dict | None:
    """The saved state of the unit ``key``, or ``None`` when there is none.

    Raises
    ------
    ValueError
        If the file at ``path`` belongs to another unit.
    """
    if path is None or not Path(path).exists():
        return None
    state = torch.load(path, map_location="cpu", weights_only=False)
    if state.get("key") != list(key):
        raise ValueError(
            f"{path} holds the checkpoint of unit {state.get('key')}, "
            f"not of {list(key)}; remove it."
        )
    return state


def orphaned(owner: int | None) -> bool:
    """Whether the run that owns a unit, process ``owner`` (this process or its
    parent, a joblib worker's), is gone and left this process behind."""
    return owner is not None and owner not in (os.getpid(), os.getppid())


class EpochCheckpoint(Callback):
    """Save the unit's training state after each epoch; restore it when resuming.

    Parameters
    ----------
    path : Path
        Checkpoint file.
    key : tuple
        The unit's key, stored in the file and checked on loading.
    state : dict, optional
        A loaded checkpoint to resume from (``load_checkpoint``).
    owner : int, optional
        Process id of the run that owns the unit: this process or its parent
        (a worker's). Once it is neither (the run was killed and this worker
        left behind), the next epoch end exits this process instead of saving.

    Notes
    -----
    Put it after every callback that records into the epoch's history (or
    stops training) so that a saved epoch is complete; an epoch that stops
    training is not saved, so a resumed unit stops there again.
    """

    def __init__(self, path: Path, key: tuple, state: dict | None = None,
                 owner: int | None = None):
        self.path = Path(path)
        self.key = key
        self.state = state
        self.owner = owner

    def orphaned(self) -> bool:
        """Whether the run that owns this unit is gone."""
        return orphaned(self.owner)

    def on_train_begin(self, net, **kwargs):
        if self.state is None:
            return
        net.module_.load_state_dict(self.state["module"])
        net.optimizer_.load_state_dict(self.state["optimizer"])
        net.history = History(self.state["history"])
        torch.set_rng_state(self.state["torch_rng"])
        if self.state.get("cuda_rng") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state(self.state["cuda_rng"])

    def on_epoch_end(self, net, **kwargs):
        if self.orphaned():
            # No one will read this unit's result, and a new run may own its
            # file now: leave it alone and stop.
            os._exit(1)
        state = {
            "key": list(self.key),
            "module": net.module_.state_dict(),
            "optimizer": net.optimizer_.state_dict(),
            "history": net.history.to_list(),
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state() if torch.cuda.is_initialized() else None,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        torch.save(state, tmp)
        os.replace(tmp, self.path)


class ResumedGraphLoader(GraphLoader):
    """A :class:`~sk_vibgsl._batching.GraphLoader` whose batch order starts
    ``skip_epochs`` epochs in.

    The training loader is built once per ``fit`` and draws each epoch's
    batches from one seeded generator; iterating its batch sampler
    ``skip_epochs`` times (numpy only, no training) leaves that generator where
    the interrupted run's had been.
    """

    def __init__(self, dataset, *, skip_epochs: int = 0, **kwargs):
        super().__init__(dataset, **kwargs)
        for _ in range(skip_epochs):
            for _ in self.batch_sampler:
                pass
