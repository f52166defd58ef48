"""The GPU path; skipped cleanly where no CUDA device is present."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl.nn.model import VIBGSLModule

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


@pytest.mark.parametrize("backbone", ["gcn", "gat", "gin"])
def test_fit_and_predict_on_cuda(graphs, backbone):
    X, y = graphs
    clf = VIBGSLClassifier(
        device="cuda", backbone=backbone, structure_mix=0.5, max_epochs=20, random_state=0
    ).fit(X, y)
    assert next(clf.module_.parameters()).is_cuda
    proba = clf.predict_proba(X)
    assert np.allclose(proba.sum(1), 1, atol=1e-5)
    assert np.array_equal(proba, clf.predict_proba(X))
    assert clf.score(X, y) >= 0.8
    assert all(np.isfinite(clf.history[:, "train_loss"]))


def test_cuda_model_predicts_the_same_on_cpu(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(device="cuda", max_epochs=5, random_state=0).fit(X, y)
    on_gpu = clf.predict_proba(X)
    clf.set_params(device="cpu")
    clf.module_.to("cpu")
    assert np.allclose(clf.predict_proba(X), on_gpu, atol=1e-4)
    restored = pickle.loads(pickle.dumps(clf))
    assert np.allclose(restored.predict_proba(X), on_gpu, atol=1e-4)


# --------------------------------------------------------------------------- #
# Issue 6: transfers once per batch, bf16 on the GPU, a GPU model on a CPU host
# --------------------------------------------------------------------------- #
class _DeviceProbeModule(VIBGSLModule):
    """Records the device and batch size of every forward call's inputs."""

    seen: list[tuple[str, str, str | None, int]] = []

    def forward(self, x, mask, adj=None):
        adj_device = None if adj is None else adj.device.type
        _DeviceProbeModule.seen.append((x.device.type, mask.device.type, adj_device, x.shape[0]))
        return super().forward(x, mask, adj)


@pytest.mark.parametrize("structure_mix", [0.0, 0.5])
def test_inputs_move_to_the_gpu_once_per_batch(graphs, monkeypatch, structure_mix):
    """Batches are built on the host in one step and moved by one ``to_tensor``
    call per batch (for the whole dict): no per-graph transfers. The observed
    edges of sparse graphs travel as an edge list, made dense on the GPU."""
    import sk_vibgsl._classifier as classifier_module

    X, y = graphs
    clf = VIBGSLClassifier(
        _DeviceProbeModule, device="cuda", structure_mix=structure_mix, max_epochs=1,
        random_state=0,
    )
    clf.fit(X, y)
    moves = []
    real_to_tensor = classifier_module.to_tensor

    def counting_to_tensor(value, device, **kwargs):
        moves.append(sorted(value) if isinstance(value, dict) else type(value).__name__)
        return real_to_tensor(value, device=device, **kwargs)

    monkeypatch.setattr(classifier_module, "to_tensor", counting_to_tensor)
    _DeviceProbeModule.seen.clear()
    proba = clf.predict_proba(X)
    n_batches = len(clf.get_iterator(clf._sorted_view(X)[0], training=False))
    assert len(_DeviceProbeModule.seen) == n_batches
    observed = "cuda" if structure_mix > 0 else None
    assert all(
        dx == dm == "cuda" and da == observed for dx, dm, da, _ in _DeviceProbeModule.seen
    )
    assert sum(b for *_, b in _DeviceProbeModule.seen) == len(X)
    # the observed graph travels as an edge list or, for dense graphs, dense
    allowed = (
        [["adj", "mask", "x"], ["adj_index", "adj_weight", "mask", "x"]]
        if structure_mix > 0
        else [["mask", "x"]]
    )
    assert len(moves) == n_batches and all(keys in allowed for keys in moves)
    assert isinstance(proba, np.ndarray) and proba.dtype == np.float32
    batch, _ = clf.get_dataset(X)[0]
    assert batch["x"].device.type == "cpu"  # built on the host, moved per batch


@pytest.mark.skipif(
    not (torch.cuda.is_available() and torch.cuda.is_bf16_supported()),
    reason="needs a CUDA device with bfloat16",
)
def test_bf16_on_cuda(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(
        device="cuda", precision="bf16", max_epochs=20, random_state=0
    ).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.dtype == np.float32 and np.allclose(proba.sum(1), 1, atol=1e-5)
    assert all(np.isfinite(clf.history[:, "train_loss"]))
    reference = VIBGSLClassifier(device="cuda", max_epochs=20, random_state=0).fit(X, y)
    assert clf.score(X, y) >= reference.score(X, y) - 0.1


def test_cuda_pickle_predicts_on_a_cpu_only_host(graphs, tmp_path):
    """A GPU-fitted model, pickled as is, loads and predicts where CUDA is hidden."""
    X, y = graphs
    clf = VIBGSLClassifier(device="cuda", max_epochs=5, random_state=0).fit(X, y)
    on_gpu = clf.predict_proba(X)
    (tmp_path / "model.pkl").write_bytes(pickle.dumps(clf))
    (tmp_path / "X.pkl").write_bytes(pickle.dumps(X))
    code = (
        "import pickle, sys, warnings, numpy as np, torch\n"
        "assert not torch.cuda.is_available()\n"
        "d = sys.argv[1]\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')\n"
        "    clf = pickle.load(open(d + '/model.pkl', 'rb'))\n"
        "assert str(clf.device) == 'cpu' and not next(clf.module_.parameters()).is_cuda\n"
        "X = pickle.load(open(d + '/X.pkl', 'rb'))\n"
        "np.save(d + '/proba.npy', clf.predict_proba(X))\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert np.allclose(np.load(tmp_path / "proba.npy"), on_gpu, atol=1e-4)


def test_cuda_save_params_load_params_on_cpu(graphs, tmp_path):
    """save_params on the GPU, load_params into a fresh ``device="cpu"`` net."""
    from sklearn.base import clone

    X, y = graphs
    clf = VIBGSLClassifier(device="cuda", max_epochs=5, random_state=0).fit(X, y)
    on_gpu = clf.predict_proba(X)
    files = {"f_params": str(tmp_path / "p.pt"), "f_optimizer": str(tmp_path / "o.pt"),
             "f_history": str(tmp_path / "h.json")}
    clf.save_params(**files)
    cpu = clone(clf).set_params(
        device="cpu", classes=clf.classes_, module__in_channels=clf.n_node_features_
    ).initialize()
    cpu.load_params(**files)
    assert not next(cpu.module_.parameters()).is_cuda
    assert np.allclose(cpu.predict_proba(X), on_gpu, atol=1e-4)
    assert len(cpu.history) == 5


@pytest.mark.parametrize("ties", ["lowest", "cyclic"])
@pytest.mark.parametrize("block", [60, 1 << 22])
def test_top_k_selection_with_ties_is_the_same_on_cuda(block, ties):
    from sk_vibgsl.nn.selection import tie_start, top_k_mask
    from sk_vibgsl.nn.sparse_structure import top_k_all_pairs

    g = torch.Generator().manual_seed(0)
    # few distinct embeddings: most nodes tie at their k-th partner
    z = torch.randint(-1, 2, (60, 3), generator=g).float()
    ptr = torch.tensor([0, 9, 14, 15, 40, 60])
    for k in (1, 4, 8):
        cpu = top_k_all_pairs(z, ptr, k, block, ties)
        gpu = top_k_all_pairs(z.cuda(), ptr.cuda(), k, block, ties).cpu()
        assert set(map(tuple, cpu.T.tolist())) == set(map(tuple, gpu.T.tolist()))
        assert cpu.shape == gpu.shape
        scores = torch.randint(0, 3, (4, 7, 25), generator=g).float()
        start = tie_start(torch.arange(7).unsqueeze(-1), ties)
        on_gpu = top_k_mask(scores.cuda(), k, None if start is None else start.cuda()).cpu()
        assert torch.equal(top_k_mask(scores, k, start), on_gpu)


@pytest.mark.parametrize("ties", ["lowest", "cyclic"])
def test_top_k_selection_of_alike_nodes_is_the_same_on_cuda(ties):
    # alike nodes with real-valued embeddings: the GPU's products round differently from the
    # CPU's, and the tie tolerance must absorb it on both paths
    from sk_vibgsl.nn.sparse_structure import top_k_all_pairs
    from sk_vibgsl.nn.structure import _SampledAdjacency

    g = torch.Generator().manual_seed(3)
    rows = torch.randn(5, 64, generator=g)
    z = torch.cat([rows[torch.arange(300) % 2], rows[2 + torch.arange(90) % 3]])
    ptr = torch.tensor([0, 300, 390])
    padded = torch.zeros(2, 300, 64)
    padded[0], padded[1, :90] = z[:300], z[300:]
    mask = torch.zeros(2, 300, dtype=torch.bool)
    mask[0], mask[1, :90] = True, True
    bias = torch.tensor(0.5)
    for k in (1, 4, 12):
        cpu = top_k_all_pairs(z, ptr, k, ties=ties, bias=bias)
        gpu = top_k_all_pairs(z.cuda(), ptr.cuda(), k, ties=ties, bias=bias.cuda()).cpu()
        assert set(map(tuple, cpu.T.tolist())) == set(map(tuple, gpu.T.tolist())), k
        dense = [
            _SampledAdjacency.apply(p, bias.to(p.device), mask.to(p.device), None, k, None,
                                    0.0, ties).cpu() > 0
            for p in (padded, padded.cuda())
        ]
        assert torch.equal(dense[0], dense[1]), k


@pytest.mark.parametrize(
    ("observed_branch", "backbone", "graph_path"),
    [(True, "gcn", "sparse"), ("shared", "gcn", "dense"), ("shared", "gin", "dense"),
     ("shared", "gcn", "sparse"), ("shared", "gin", "sparse")],
)
def test_top_k_channel_fit_on_cuda_predicts_as_on_cpu(graphs, observed_branch, backbone,
                                                       graph_path):
    X, y = graphs
    clf = VIBGSLClassifier(
        device="cuda", observed_branch=observed_branch, backbone=backbone, edge_score="cosine",
        structure_k=4, graph_path=graph_path, max_epochs=5, random_state=0,
    ).fit(X, y)
    assert all(np.isfinite(clf.history[:, "train_loss"]))
    proba = clf.predict_proba(X)
    clf.set_params(device="cpu")
    clf.module_.to("cpu")
    assert np.allclose(proba, clf.predict_proba(X), atol=1e-4)


@pytest.mark.parametrize("backbone", ["gcn", "gin"])
def test_structure_input_observed_fits_on_cuda_and_predicts_as_on_cpu(graphs, backbone):
    """The learner reading the observed GNN's first layer runs on the GPU (dense path), its
    gradient finite, and the fitted model predicts, and shows its graphs, as on the CPU."""
    X, y = graphs
    clf = VIBGSLClassifier(
        device="cuda", observed_branch=True, structure_input="observed", backbone=backbone,
        edge_score="cosine", structure_k=4, max_epochs=5, random_state=0,
    ).fit(X, y)
    assert all(np.isfinite(clf.history[:, "train_loss"]))
    proba, graphs_gpu = clf.predict_proba(X), clf.ib_graphs(X[:3])
    clf.set_params(device="cpu")
    clf.module_.to("cpu")
    assert np.allclose(proba, clf.predict_proba(X), atol=1e-4)
    for (x_gpu, adj_gpu), (x_cpu, adj_cpu) in zip(graphs_gpu, clf.ib_graphs(X[:3])):
        assert np.allclose(x_gpu, x_cpu, atol=1e-4)
        assert np.allclose(adj_gpu, adj_cpu, atol=1e-4)


def test_top_k_all_pairs_default_gpu_block_selects_as_the_cpu_blocks():
    """The GPU's larger default block (one block here, where the CPU's takes several)
    selects the same pairs."""
    from sk_vibgsl.nn.sparse_structure import BLOCK_ELEMENTS, top_k_all_pairs

    g = torch.Generator().manual_seed(1)
    sizes = torch.tensor([3000, 40, 1, 900, 2500])
    ptr = torch.cat([torch.zeros(1, dtype=torch.long), sizes.cumsum(0)])
    # few distinct directions: many ties, which both blockings must break alike
    z = torch.randint(-2, 3, (int(sizes.sum()), 4), generator=g).float()
    assert 3000 * 3000 > BLOCK_ELEMENTS
    for k in (1, 4):
        cpu = top_k_all_pairs(z, ptr, k)
        gpu = top_k_all_pairs(z.cuda(), ptr.cuda(), k).cpu()
        assert set(map(tuple, cpu.T.tolist())) == set(map(tuple, gpu.T.tolist())), k
        assert cpu.shape == gpu.shape
