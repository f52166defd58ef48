"""Training epoch of the learned channel on the sparse path for several top-``k`` score blocks.

On the sparse path (REDDIT-BINARY's large graphs) the learned channel
(``LEARNED_CHANNEL_PARAMS``) selects each node's ``k`` best partners with
:func:`sk_vibgsl.nn.sparse_structure.top_k_all_pairs`, which scores a batch
in blocks of ``block_elements`` entries. On a GPU each block costs about 30
kernel launches and three host synchronisations whatever its size, so the
block trades launches for memory. This script fits the channel (GCN, then
GIN) for one epoch on ``--n-train`` REDDIT-BINARY graphs (degree features,
batches of 100), then times whole training epochs on the classifier's own
batches for each block in ``--blocks`` (alternating order, ``--rounds``
rounds, the first a warm-up), and reads the peak GPU memory of an epoch.
The selection does not depend on the block (``tests/test_sparse_structure.py``);
only time and memory do.

    python benchmarks/bench_top_k_block.py --device cuda [--data-home ../shared/datasets] \
        [--n-train 400] [--blocks 22 24 25 26] \
        [--results-dir benchmarks/results/speed_gpu_top_k_block]

Writes ``block.json`` (per backbone and block: median epoch seconds, the
timed epochs, peak GPU MiB) into ``--results-dir``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
import torch
from skorch.utils import to_tensor

import sk_vibgsl.nn.sparse_structure as sparse_structure
from sk_vibgsl import LEARNED_CHANNEL_PARAMS, DegreeFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset


def degree_sample(dataset: str, n_train: int, data_home) -> tuple[list, np.ndarray]:
    """``n_train`` graphs of a TU dataset drawn with seed 0, with degree features, and their
    labels as 0 … C−1 (the sample this script and ``profile_channel.py`` train on)."""
    graphs, y = load_tu_dataset(dataset, data_home=data_home, download_if_missing=False,
                                return_X_y=True)
    y = np.unique(y, return_inverse=True)[1]
    idx = np.random.default_rng(0).permutation(len(graphs))[:n_train]
    return DegreeFeatures().fit_transform([graphs[i] for i in idx]), y[idx]


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--n-train", type=int, default=400)
    parser.add_argument("--blocks", type=int, nargs="+", default=[22, 24, 25, 26],
                        help="block sizes as powers of two")
    parser.add_argument("--rounds", type=int, default=4, help="the first is a warm-up")
    parser.add_argument("--results-dir", default="benchmarks/results/speed_gpu_top_k_block")
    return parser.parse_args(argv)


def train_epoch(clf: VIBGSLClassifier, batches: list, device: str) -> None:
    """One training epoch over prepared batches, as the classifier's train step runs it."""
    for xb, yb in batches:
        xb, yb = to_tensor(xb, device=device), to_tensor(yb, device=device)
        clf.optimizer_.zero_grad()
        loss = clf.get_loss(clf.infer(xb), yb, X=xb, training=True)
        loss.backward()
        clf.optimizer_.step()
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def main(argv=None) -> None:
    args = parse(argv)
    device = args.device
    graphs, y = degree_sample("REDDIT-BINARY", args.n_train, args.data_home)
    blocks = [1 << b for b in args.blocks]
    # the device's default is what the model uses: patch it for each block
    name = "BLOCK_ELEMENTS_CUDA" if device.startswith("cuda") else "BLOCK_ELEMENTS"
    default = getattr(sparse_structure, name)
    results = {}
    for backbone in ("gcn", "gin"):
        clf = VIBGSLClassifier(
            **LEARNED_CHANNEL_PARAMS, backbone=backbone, batch_size=100, max_epochs=1,
            train_split=None, device=device, random_state=0,
        ).fit(graphs, y)
        batches = list(clf.get_iterator(clf.get_dataset(graphs, y), training=True))

        times: dict[int, list[float]] = {b: [] for b in blocks}
        peak: dict[int, float | None] = {}
        try:
            for r in range(args.rounds):
                for b in blocks if r % 2 == 0 else blocks[::-1]:
                    setattr(sparse_structure, name, b)
                    if device.startswith("cuda"):
                        torch.cuda.reset_peak_memory_stats()
                    start = time.perf_counter()
                    train_epoch(clf, batches, device)
                    if r > 0:
                        times[b].append(time.perf_counter() - start)
                    peak[b] = (torch.cuda.max_memory_allocated() / 2**20
                               if device.startswith("cuda") else None)
        finally:
            setattr(sparse_structure, name, default)
        for b in blocks:
            results[f"{backbone} {b}"] = {
                "median_s": statistics.median(times[b]), "times": times[b], "peak_mib": peak[b],
            }
            print(backbone, b, f"{statistics.median(times[b]):.4f} s", f"peak {peak[b]} MiB")
    out = Path(args.results_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "block.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
