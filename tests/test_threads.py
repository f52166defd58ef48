"""``torch_threads``: torch's thread count during fit and predict, restored afterwards."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from skorch.callbacks import Callback

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl._threads import check_torch_threads, limited_torch_threads
from sk_vibgsl.nn.model import VIBGSLModule


class ThreadProbeModule(VIBGSLModule):
    """Records torch's thread count at every forward call."""

    seen: list[int] = []

    def forward(self, x, mask, adj=None):
        ThreadProbeModule.seen.append(torch.get_num_threads())
        return super().forward(x, mask, adj)


class ThreadsPerBatch(Callback):
    def initialize(self):
        self.seen = []
        return self

    def on_batch_begin(self, net, **kwargs):
        self.seen.append(torch.get_num_threads())


class InterruptAfterFirstBatch(Callback):
    def on_batch_end(self, net, **kwargs):
        raise KeyboardInterrupt


@pytest.fixture
def outside_threads():
    """torch's thread count before the test, put back afterwards."""
    before = torch.get_num_threads()
    yield before
    torch.set_num_threads(before)


def _other_than(n: int) -> int:
    return 2 if n == 1 else 1


def test_fit_uses_torch_threads_and_restores_them(graphs, outside_threads):
    X, y = graphs
    target = _other_than(outside_threads)
    probe = ThreadsPerBatch()
    clf = VIBGSLClassifier(
        max_epochs=2, random_state=0, torch_threads=target, callbacks=[probe]
    ).fit(X, y)
    assert probe.seen and set(probe.seen) == {target}
    assert torch.get_num_threads() == outside_threads
    clf.partial_fit(X, y)
    assert set(probe.seen) == {target}
    assert torch.get_num_threads() == outside_threads


def test_predict_uses_torch_threads_and_restores_them(graphs, outside_threads):
    X, y = graphs
    target = _other_than(outside_threads)
    clf = VIBGSLClassifier(ThreadProbeModule, max_epochs=1, random_state=0).fit(X, y)
    clf.set_params(torch_threads=target)
    ThreadProbeModule.seen.clear()
    proba = clf.predict_proba(X)
    assert ThreadProbeModule.seen and set(ThreadProbeModule.seen) == {target}
    assert torch.get_num_threads() == outside_threads
    clf.set_params(torch_threads=None)
    assert np.array_equal(clf.predict_proba(X), proba)


def test_none_leaves_torchs_setting(graphs, outside_threads):
    X, y = graphs
    chosen = _other_than(outside_threads)
    torch.set_num_threads(chosen)
    probe = ThreadsPerBatch()
    VIBGSLClassifier(max_epochs=1, random_state=0, callbacks=[probe]).fit(X, y)
    assert set(probe.seen) == {chosen}
    assert torch.get_num_threads() == chosen


def test_interrupted_fit_restores_threads(graphs, outside_threads):
    """skorch ends an interrupted fit with on_train_end, which restores."""
    X, y = graphs
    target = _other_than(outside_threads)
    clf = VIBGSLClassifier(
        max_epochs=3, random_state=0, torch_threads=target,
        callbacks=[InterruptAfterFirstBatch()],
    ).fit(X, y)
    assert len(clf.history) == 1
    assert torch.get_num_threads() == outside_threads


def test_context_restores_on_error(outside_threads):
    target = _other_than(outside_threads)
    with pytest.raises(RuntimeError, match="boom"), limited_torch_threads(target):
        assert torch.get_num_threads() == target
        raise RuntimeError("boom")
    assert torch.get_num_threads() == outside_threads


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_torch_threads_raise(graphs, bad):
    X, y = graphs
    with pytest.raises(ValueError, match="torch_threads must be None or an int >= 1"):
        VIBGSLClassifier(max_epochs=1, torch_threads=bad).fit(X, y)
    with pytest.raises(ValueError, match="torch_threads"):
        check_torch_threads(bad)


def test_good_torch_threads_pass():
    assert check_torch_threads(None) is None
    assert check_torch_threads(np.int64(3)) == 3
