"""Training and prediction speed of VIB-GSL, with plain PyG GCN as the yardstick.

For each dataset, in one process and one run:

* VIB-GSL (``VIBGSLClassifier``, GCN backbone, structure learning on) — the
  median training-epoch time over ``--epochs`` epochs after one warm-up epoch
  (skorch's ``dur``: the epoch only, not the once-per-call input conversion),
  prediction throughput (graphs/s, median of 3), and the padding overhead
  (padded pairs ``Σ B·N²`` of one training epoch over ``Σ nᵢ²``);
* the same GCN on the observed graph in plain PyG (sparse ``GCNConv``,
  ``DataLoader``, global mean pooling, 2-layer MLP) — median epoch time; its
  epochs alternate with VIB-GSL's, and the ratio is the median of the
  per-epoch ratios.

Peak memory is the process's peak resident set size after each dataset
(``ru_maxrss``; it only grows, so datasets are run largest-last).

Usage::

    python benchmarks/bench_speed.py --data-home ../shared/datasets \
        --datasets IMDB-BINARY IMDB-MULTI --epochs 10

Writes ``benchmarks/results/speed.md`` and ``speed.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import time
from pathlib import Path

import numpy as np
import sklearn
import torch
import torch_geometric
from torch import nn
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GCNConv, global_mean_pool

import sk_vibgsl
from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
from sk_vibgsl._batching import auto_max_pairs, size_bucketed_batches
from sk_vibgsl.datasets import load_tu_dataset

RESULTS = Path(__file__).resolve().parent / "results"


class PlainGCN(nn.Module):
    def __init__(self, in_channels: int, hidden: int, n_classes: int) -> None:
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden)
        self.conv2 = GCNConv(hidden, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, data):
        h = self.conv1(data.x, data.edge_index).relu()
        h = self.conv2(h, data.edge_index)
        return self.mlp(global_mean_pool(h, data.batch))


class PlainPyG:
    """The yardstick: sparse GCN on the observed graph, one epoch per call."""

    def __init__(self, graphs, y, batch_size: int) -> None:
        data = [Data(x=g.x, edge_index=g.edge_index, y=torch.tensor([int(c)]))
                for g, c in zip(graphs, y)]
        self.loader = DataLoader(data, batch_size=batch_size, shuffle=True)
        self.model = PlainGCN(graphs[0].x.shape[1], 16, int(max(y)) + 1)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=0.005)

    def epoch(self) -> float:
        start = time.perf_counter()
        for batch in self.loader:
            self.opt.zero_grad()
            loss = nn.functional.cross_entropy(self.model(batch), batch.y)
            loss.backward()
            self.opt.step()
        return time.perf_counter() - start


def padding_overhead(sizes: np.ndarray, batch_size: int) -> float:
    batches = size_bucketed_batches(
        sizes, batch_size, max_pairs=auto_max_pairs(sizes, batch_size),
        rng=np.random.default_rng(0),
    )
    padded = sum(len(b) * int(sizes[b].max()) ** 2 for b in batches)
    return padded / float((sizes.astype(np.int64) ** 2).sum())


def bench(name: str, data_home: str | None, n_train: int, batch_size: int, epochs: int) -> dict:
    graphs, y = load_tu_dataset(name, data_home=data_home, download_if_missing=False,
                                return_X_y=True)
    y = np.unique(y, return_inverse=True)[1]
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(graphs))[:n_train]
    graphs = DegreeFeatures().fit_transform([graphs[i] for i in idx])
    y = y[idx]
    sizes = np.array([g.num_nodes for g in graphs])

    # Epochs of the two models alternate, so that load from other tenants of a
    # shared machine hits both alike; the ratio is the median of per-pair ratios.
    clf = VIBGSLClassifier(backbone="gcn", batch_size=batch_size, max_epochs=1,
                           warm_start=True, random_state=0)
    yardstick = PlainPyG(graphs, y, batch_size)
    vib_epochs, pyg_epochs = [], []
    for k in range(epochs + 1):
        clf.fit(graphs, y)
        pyg = yardstick.epoch()
        if k:  # the first pair is warm-up
            vib_epochs.append(clf.history[-1, "dur"])
            pyg_epochs.append(pyg)
    predict = []
    for _ in range(3):
        start = time.perf_counter()
        clf.predict_proba(graphs)
        predict.append(time.perf_counter() - start)
    vib = statistics.median(vib_epochs)
    pyg = statistics.median(pyg_epochs)
    ratio = statistics.median(v / p for v, p in zip(vib_epochs, pyg_epochs))
    return {
        "dataset": name,
        "train_graphs": len(graphs),
        "n_features": int(graphs[0].x.shape[1]),
        "batch_size": batch_size,
        "vibgsl_epoch_s": vib,
        "plain_pyg_gcn_epoch_s": pyg,
        "ratio_vibgsl_over_pyg": ratio,
        "predict_graphs_per_s": len(graphs) / statistics.median(predict),
        "padding_overhead": padding_overhead(sizes, batch_size),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "epochs_timed": epochs,
    }


def write(rows: list[dict], command: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    meta = {
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads",
        "versions": {
            "sk_vibgsl": sk_vibgsl.__version__, "torch": torch.__version__,
            "torch_geometric": torch_geometric.__version__, "sklearn": sklearn.__version__,
            "python": platform.python_version(),
        },
        "command": command,
    }
    (RESULTS / "speed.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    lines = [
        "# Speed: VIB-GSL (GCN backbone) vs plain PyG GCN, CPU",
        "",
        f"Command: `{command}`  ",
        f"Machine: {meta['machine']}; versions: {meta['versions']}",
        "",
        "Epoch times are medians over the timed epochs (after one warm-up epoch); the "
        "two models' epochs alternate in one run and the ratio is the median of per-epoch "
        "ratios. VIB-GSL includes structure learning on dense "
        "batches; the yardstick runs sparse `GCNConv` on the observed graph. Padding "
        "overhead = padded pairs Σ B·N² of a training epoch / Σ nᵢ².",
        "",
        "| dataset | train graphs | batch | VIB-GSL s/epoch | plain PyG GCN s/epoch | ratio | "
        "predict graphs/s | padding overhead | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['train_graphs']} | {r['batch_size']} | "
            f"{r['vibgsl_epoch_s']:.3f} | {r['plain_pyg_gcn_epoch_s']:.3f} | "
            f"{r['ratio_vibgsl_over_pyg']:.2f} | {r['predict_graphs_per_s']:.0f} | "
            f"{r['padding_overhead']:.2f} | {r['peak_rss_mib']:.0f} |"
        )
    (RESULTS / "speed.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["IMDB-BINARY", "IMDB-MULTI"])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--n-train", type=int, default=800)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    command = "python benchmarks/bench_speed.py " + " ".join(
        f"--{k.replace('_', '-')} {' '.join(v) if isinstance(v, list) else v}"
        for k, v in vars(args).items() if v is not None
    )
    rows = []
    for name in args.datasets:
        rows.append(bench(name, args.data_home, args.n_train, args.batch_size, args.epochs))
        print(json.dumps(rows[-1]), flush=True)
        write(rows, command)


if __name__ == "__main__":
    main()
