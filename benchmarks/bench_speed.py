"""Training and prediction speed and peak memory of VIB-GSL against the same plain PyG GNN.

Each dataset runs in a fresh Python process (so that its peak memory is its
own), and in that process:

* VIB-GSL (``VIBGSLClassifier``, structure learning on, the backbone of
  ``--backbone``: GCN by default, GAT or GIN) — the
  median training-epoch time over the timed epochs after one warm-up epoch
  (skorch's ``dur``: the epoch only, not the once-per-call input conversion),
  prediction throughput (graphs/s, median of repeated ``predict_proba`` over
  the training graphs), and the padding overhead: padded pairs ``Σ B·N²`` of
  a training epoch over the dense pair count ``Σ nᵢ²``, with batches bounded
  by ``batch_size`` graphs *and* the node-pair budget ``max_pairs="auto"``;
* the same backbone on the observed graph in plain PyG (sparse ``GCNConv``,
  single-head ``GATConv`` or ``GINConv`` with a learnable ε, ``DataLoader``,
  global mean pooling, 2-layer MLP) — median epoch time. Its
  epochs alternate with VIB-GSL's, so that load from other tenants of a
  shared machine hits both alike; the ratio is the median of per-epoch ratios.
  The yardstick has two layers of width 16 (the default VIB-GSL's sizes);
  with ``--match-capacity`` it takes VIB-GSL's ``hidden_dim``, ``num_layers``
  and ``readout`` (and, for GIN, ``module__batch_norm``) from ``--vib``, so
  that a VIB-GSL of other sizes is timed against a plain GNN of the same
  sizes (the files get the suffix ``_matched``).

Peak memory is the process's resident-set high-water mark (``VmHWM``),
reset (``/proc/self/clear_refs``) after the data are loaded and read after
VIB-GSL's warm-up epoch (training peak), after the yardstick's warm-up epoch,
and after prediction; it includes the loaded dataset and the Python/torch
runtime (reported alone as "base RSS"). Where the reset is unavailable, the
figures are the process's ``ru_maxrss`` so far (an upper bound).

Results are written after each dataset; a dataset already in ``speed.json``
is skipped unless ``--force`` (resumable).

Usage::

    python benchmarks/bench_speed.py --data-home ../shared/datasets \
        --datasets IMDB-BINARY IMDB-MULTI --epochs 20 --threads 1
    python benchmarks/bench_speed.py --data-home ../shared/datasets \
        --datasets REDDIT-BINARY COLLAB --n-train 0 --epochs 3 --threads 1

``--n-train 0`` means a 10-fold training set (90 % of the graphs).
Writes ``benchmarks/results/speed.md`` and ``speed.json`` (``--results-dir``);
with ``--device cuda``, ``speed_gpu.md``/``speed_gpu.json``, with the peak GPU
memory (``torch.cuda.max_memory_allocated``) of each phase. A backbone other
than GCN goes in its own files: ``speed_gat.md``, ``speed_gin_gpu.md``, ...
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _machine import (  # benchmarks/_machine.py
    peak_mib,
    recorded_command,
    reset_peak,
    status_mib,
)

RESULTS = Path(__file__).resolve().parent / "results"
YARDSTICK = {"gcn": "GCNConv", "gat": "GATConv", "gin": "GINConv"}
PAPER_BATCH_NOTE = (
    "The paper does not state its batch sizes; it follows PyG's kernel benchmark "
    "(`benchmark/kernel`, batch size 128). We use the batch size shown in the table for "
    "both models."
)


# --------------------------------------------------------------------------- #
# one dataset, in this process
# --------------------------------------------------------------------------- #
def yardstick_capacity(vib_params: dict | None, backbone: str) -> dict:
    """The plain GNN's sizes: width 16, two layers, mean pooling, no batch norm
    (the default VIB-GSL's), or with ``vib_params`` (``--match-capacity``)
    VIB-GSL's ``hidden_dim``, ``num_layers``, ``readout`` and, for GIN,
    ``module__batch_norm``, each at the estimator's default where not given."""
    params = vib_params or {}
    capacity = {
        "hidden_dim": int(params.get("hidden_dim", 16)),
        "num_layers": int(params.get("num_layers", 2)),
        "readout": str(params.get("readout", "mean")),
        "batch_norm": bool(params.get("module__batch_norm", False)),
    }
    if capacity["readout"] not in ("mean", "sum"):
        raise ValueError(f"readout must be 'mean' or 'sum', got {capacity['readout']!r}.")
    if capacity["batch_norm"] and backbone != "gin":
        raise ValueError("module__batch_norm=True needs the 'gin' backbone.")
    return capacity


def bench(name: str, data_home: str | None, n_train: int, batch_size: int, epochs: int,
          predict_repeats: int, device: str = "cpu", backbone: str = "gcn",
          vib_params: dict | None = None, match_capacity: bool = False) -> dict:
    import numpy as np
    import torch
    from torch import nn
    from torch_geometric.data import Data
    from torch_geometric.loader import DataLoader
    from torch_geometric.nn import GATConv, GCNConv, GINConv, global_add_pool, global_mean_pool

    from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
    from sk_vibgsl._batching import auto_max_pairs, size_bucketed_batches
    from sk_vibgsl.datasets import load_tu_dataset

    def conv(in_channels: int, out_channels: int) -> nn.Module:
        if backbone == "gat":
            return GATConv(in_channels, out_channels, heads=1)
        if backbone == "gin":
            return GINConv(nn.Sequential(nn.Linear(in_channels, out_channels), nn.ReLU(),
                                         nn.Linear(out_channels, out_channels)), train_eps=True)
        return GCNConv(in_channels, out_channels)

    capacity = yardstick_capacity(vib_params if match_capacity else None, backbone)

    class PlainGNN(nn.Module):
        def __init__(self, in_channels: int, n_classes: int) -> None:
            super().__init__()
            hidden, layers = capacity["hidden_dim"], capacity["num_layers"]
            widths = [in_channels] + [hidden] * layers
            self.convs = nn.ModuleList(conv(a, b) for a, b in zip(widths, widths[1:]))
            self.norms = nn.ModuleList(
                nn.BatchNorm1d(hidden) if capacity["batch_norm"] else nn.Identity()
                for _ in range(layers))
            self.pool = global_add_pool if capacity["readout"] == "sum" else global_mean_pool
            self.mlp = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(),
                                     nn.Linear(hidden, n_classes))

        def forward(self, data):
            h = data.x
            for i, (conv_, norm) in enumerate(zip(self.convs, self.norms)):
                h = norm(conv_(h, data.edge_index))
                if i < len(self.convs) - 1:
                    h = h.relu()
            return self.mlp(self.pool(h, data.batch))

    class PlainPyG:
        """The yardstick: the sparse PyG backbone on the observed graph, one epoch per call."""

        def __init__(self, graphs, y, batch_size: int) -> None:
            data = [Data(x=g.x, edge_index=g.edge_index, y=torch.tensor([int(c)]))
                    for g, c in zip(graphs, y)]
            self.loader = DataLoader(data, batch_size=batch_size, shuffle=True)
            self.model = PlainGNN(graphs[0].x.shape[1], int(max(y)) + 1).to(device)
            self.opt = torch.optim.Adam(self.model.parameters(), lr=0.005)

        def epoch(self) -> float:
            start = time.perf_counter()
            for batch in self.loader:
                batch = batch.to(device)  # one host-to-device copy per batch
                self.opt.zero_grad()
                loss = nn.functional.cross_entropy(self.model(batch), batch.y)
                loss.backward()
                self.opt.step()
            sync()
            return time.perf_counter() - start

    from skorch.callbacks import Callback

    cuda = device.startswith("cuda")

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize()

    def gpu_peak_mib() -> float | None:
        return torch.cuda.max_memory_allocated() / 2**20 if cuda else None

    def gpu_reset() -> None:
        if cuda:
            torch.cuda.reset_peak_memory_stats()

    class EpochCPUTime(Callback):
        """CPU seconds of each training epoch (this process, all its threads):
        on a shared machine, less sensitive to other tenants than wall time."""

        def on_epoch_begin(self, net, **kwargs):
            self.start = time.process_time()

        def on_epoch_end(self, net, **kwargs):
            net.history.record("cpu_dur", time.process_time() - self.start)

    start = time.perf_counter()
    graphs, y = load_tu_dataset(name, data_home=data_home, download_if_missing=False,
                                return_X_y=True)
    y = np.unique(y, return_inverse=True)[1]
    if n_train <= 0:
        n_train = len(graphs) - len(graphs) // 10  # a 10-fold training set
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(graphs))[:n_train]
    graphs = DegreeFeatures().fit_transform([graphs[i] for i in idx])
    y = y[idx]
    sizes = np.array([g.num_nodes for g in graphs], dtype=np.int64)
    load_s = time.perf_counter() - start

    # padding overhead of one training epoch, with the classifier's batching
    max_pairs = auto_max_pairs(sizes, batch_size)
    batches = size_bucketed_batches(sizes, batch_size, max_pairs=max_pairs,
                                    rng=np.random.default_rng(0))
    padded = [len(b) * int(sizes[b].max()) ** 2 for b in batches]
    dense_pairs = int((sizes**2).sum())
    naive = sum(  # batches of `batch_size` graphs in random order, no bucketing
        len(b) * int(sizes[b].max()) ** 2
        for b in np.array_split(np.random.default_rng(0).permutation(len(sizes)),
                                -(-len(sizes) // batch_size))
    )

    base_rss = status_mib("VmRSS") or peak_mib()
    can_reset = reset_peak()
    gpu_reset()
    clf = VIBGSLClassifier(backbone=backbone, batch_size=batch_size, max_epochs=1,
                           warm_start=True, random_state=0, device=device,
                           callbacks=[("cpu_time", EpochCPUTime())], **(vib_params or {}))
    clf.fit(graphs, y)  # warm-up epoch, and the training-memory peak
    train_peak = peak_mib()
    train_gpu_peak = gpu_peak_mib()
    reset_peak()
    gpu_reset()
    yardstick = PlainPyG(graphs, y, batch_size)
    yardstick.epoch()  # warm-up
    pyg_peak = peak_mib()
    pyg_gpu_peak = gpu_peak_mib()

    vib_epochs, pyg_epochs, vib_cpu, pyg_cpu = [], [], [], []
    for _ in range(epochs):
        clf.fit(graphs, y)
        vib_epochs.append(clf.history[-1, "dur"])
        vib_cpu.append(clf.history[-1, "cpu_dur"])
        cpu = time.process_time()
        pyg_epochs.append(yardstick.epoch())
        pyg_cpu.append(time.process_time() - cpu)
    if not can_reset:  # ru_maxrss only grows: the peak so far is all we know
        train_peak = peak_mib()
    reset_peak()
    gpu_reset()
    predict = []
    for _ in range(predict_repeats):
        t0 = time.perf_counter()
        clf.predict_proba(graphs)  # returns numpy: synchronised
        predict.append(time.perf_counter() - t0)
    predict_peak = peak_mib()
    predict_gpu_peak = gpu_peak_mib()
    plain = f"plain_pyg_{backbone}"
    return {
        "dataset": name,
        "backbone": backbone,
        "vib_params": vib_params or {},
        "yardstick": capacity,
        "plain_pyg_parameters": sum(p.numel() for p in yardstick.model.parameters()),
        "train_graphs": len(graphs),
        "n_features": int(graphs[0].x.shape[1]),
        "max_nodes": int(sizes.max()),
        "mean_nodes": float(sizes.mean()),
        "batch_size": batch_size,
        "max_pairs": int(max_pairs),
        "n_batches": len(batches),
        "largest_batch_pairs": int(max(padded)),
        "dense_pairs": dense_pairs,
        "padded_pairs": int(sum(padded)),
        "padding_overhead": sum(padded) / dense_pairs,
        "padding_overhead_unbucketed": naive / dense_pairs,
        "vibgsl_epoch_s": statistics.median(vib_epochs),
        "vibgsl_epochs_s": vib_epochs,
        f"{plain}_epoch_s": statistics.median(pyg_epochs),
        f"{plain}_epochs_s": pyg_epochs,
        "ratio_vibgsl_over_pyg": statistics.median(
            v / p for v, p in zip(vib_epochs, pyg_epochs)),
        "vibgsl_epoch_cpu_s": statistics.median(vib_cpu),
        "vibgsl_epochs_cpu_s": vib_cpu,
        f"{plain}_epoch_cpu_s": statistics.median(pyg_cpu),
        f"{plain}_epochs_cpu_s": pyg_cpu,
        "cpu_ratio_vibgsl_over_pyg": statistics.median(
            v / p for v, p in zip(vib_cpu, pyg_cpu)),
        "predict_graphs_per_s": len(graphs) / statistics.median(predict),
        "base_rss_mib": base_rss,
        "train_peak_rss_mib": train_peak,
        "pyg_peak_rss_mib": pyg_peak,
        "predict_peak_rss_mib": predict_peak,
        "peak_reset": can_reset,
        "device": device,
        "device_name": torch.cuda.get_device_name() if cuda else "cpu",
        "train_peak_gpu_mib": train_gpu_peak,
        "pyg_peak_gpu_mib": pyg_gpu_peak,
        "predict_peak_gpu_mib": predict_gpu_peak,
        "epochs_timed": epochs,
        "predict_repeats": predict_repeats,
        "load_s": load_s,
        "torch_threads": torch.get_num_threads(),
        "loadavg_start_end": None,  # filled by the parent
    }


# --------------------------------------------------------------------------- #
# driver
# --------------------------------------------------------------------------- #
def _meta(command: str, threads: int) -> dict:
    import sklearn
    import torch
    import torch_geometric

    import sk_vibgsl

    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {threads} torch thread(s)",
        "processor": platform.processor() or platform.machine(),
        "versions": {
            "sk_vibgsl": sk_vibgsl.__version__, "torch": torch.__version__,
            "torch_geometric": torch_geometric.__version__, "sklearn": sklearn.__version__,
            "python": platform.python_version(),
        },
        "command": command,
    }


def write(results_dir: Path, rows: list[dict], meta: dict, stem: str = "speed") -> None:
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    gpu = any(r.get("device", "cpu") != "cpu" for r in rows)
    kind = rows[0].get("backbone", "gcn")  # rows written before --backbone: GCN
    name = kind.upper()
    plain = f"plain_pyg_{kind}"
    lines = [
        f"# Speed and memory: VIB-GSL ({name} backbone) vs plain PyG {name}, "
        + (f"GPU ({rows[0]['device_name']})" if gpu else "CPU"),
        "",
        "Commands:",
        "",
        *[f"- `{c}`" for c in meta.get("commands", [meta["command"]])],
        "",
        f"Machine: {meta['machine']}; versions: {meta['versions']}",
        "",
        "Epoch times are medians over the timed epochs, after one warm-up epoch; the "
        "two models' epochs alternate in one process and the ratio is the median of "
        "per-epoch ratios (< 1: VIB-GSL faster). VIB-GSL includes structure learning on "
        f"dense batches; the yardstick runs sparse `{YARDSTICK[kind]}` on the observed graph. "
        "The load average (1 min) at the start and end of each dataset's run is shown: "
        "the machine is shared, so absolute times are inflated by other tenants' work, "
        "and the same-run ratio is the figure to compare. " + PAPER_BATCH_NOTE,
        "",
        "CPU s/epoch is the process's CPU time over the epoch (`time.process_time`), "
        "which other tenants inflate far less than wall time.",
        "",
        f"| dataset | train graphs | batch | VIB-GSL s/epoch | plain PyG {name} s/epoch | ratio | "
        "VIB-GSL CPU s/epoch | PyG CPU s/epoch | CPU ratio | "
        "predict graphs/s | epochs timed | load avg |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]

    def num(r, key, fmt):
        return format(r[key], fmt) if key in r else "not measured"

    for r in rows:
        la = r.get("loadavg_start_end") or ["?", "?"]
        lines.append(
            f"| {r['dataset']} | {r['train_graphs']} | {r['batch_size']} | "
            f"{r['vibgsl_epoch_s']:.3f} | {r[plain + '_epoch_s']:.3f} | "
            f"{r['ratio_vibgsl_over_pyg']:.2f} | {num(r, 'vibgsl_epoch_cpu_s', '.3f')} | "
            f"{num(r, plain + '_epoch_cpu_s', '.3f')} | "
            f"{num(r, 'cpu_ratio_vibgsl_over_pyg', '.2f')} | {r['predict_graphs_per_s']:.0f} | "
            f"{r['epochs_timed']} | {la[0]} → {la[1]} |"
        )
    tuned = [r for r in rows if r.get("vib_params")]
    if tuned:
        lines += ["", "VIB-GSL parameters other than the defaults:", ""]
        lines += [f"- {r['dataset']}: `{r['vib_params']}`" for r in tuned]
    sizes = {json.dumps(r.get("yardstick", yardstick_capacity(None, kind))) for r in rows}
    lines += ["", f"Plain PyG {name}'s sizes (`--match-capacity`: VIB-GSL's): "
              + "; ".join(f"`{json.loads(c)}`" for c in sorted(sizes))]
    lines += [
        "",
        "## Memory and padding",
        "",
        "Peak RSS: the process's resident-set high-water mark, reset after loading the "
        "data and read after one VIB-GSL training epoch (train), one yardstick epoch "
        "(PyG) and prediction; it includes the base RSS (Python, torch, the loaded "
        "dataset). Batches are bounded by `batch_size` graphs and by the node-pair "
        "budget `max_pairs=\"auto\"` (= batch · (2 n̄)²): the largest batch's padded "
        "pairs B·N² stay under it. Padding overhead = Σ B·N² over an epoch's batches / "
        "Σ nᵢ² (1.00 = no padding); \"unbucketed\" is the same for random batches of "
        "`batch_size` graphs, i.e. a cost growing with batch × N_max².",
        "",
        "| dataset | max nodes | mean nodes | Σ nᵢ² (M pairs) | padding overhead | "
        "unbucketed | batches | max_pairs (M) | largest batch (M pairs) | base RSS MiB | "
        "train peak RSS MiB | PyG peak RSS MiB | predict peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['max_nodes']} | {r['mean_nodes']:.1f} | "
            f"{r['dense_pairs'] / 1e6:.2f} | {r['padding_overhead']:.2f} | "
            f"{r['padding_overhead_unbucketed']:.2f} | {r['n_batches']} | "
            f"{r['max_pairs'] / 1e6:.2f} | {r['largest_batch_pairs'] / 1e6:.2f} | "
            f"{r['base_rss_mib']:.0f} | {r['train_peak_rss_mib']:.0f} | "
            f"{r['pyg_peak_rss_mib']:.0f} | {r['predict_peak_rss_mib']:.0f} |"
        )
    if gpu:
        lines += [
            "",
            "## GPU memory",
            "",
            "Peak GPU memory: `torch.cuda.max_memory_allocated`, reset before each phase "
            "(one VIB-GSL training epoch; one yardstick epoch; prediction). Inputs are "
            "padded on the host and moved to the GPU once per batch.",
            "",
            "| dataset | VIB-GSL train peak GPU MiB | PyG train peak GPU MiB | "
            "predict peak GPU MiB |",
            "|---|---:|---:|---:|",
        ]
        for r in rows:
            lines.append(
                f"| {r['dataset']} | {r['train_peak_gpu_mib']:.0f} | "
                f"{r['pyg_peak_gpu_mib']:.0f} | {r['predict_peak_gpu_mib']:.0f} |")
    notes = meta.get("notes")
    if notes:
        lines += ["", "## Notes", "", *notes]
    (results_dir / f"{stem}.md").write_text("\n".join(lines) + "\n")


def _loadavg() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["IMDB-BINARY", "IMDB-MULTI"])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--backbone", choices=sorted(YARDSTICK), default="gcn",
                        help="backbone of both models; other than gcn, results go in "
                             "speed_<backbone>[_gpu].md/json")
    parser.add_argument("--n-train", type=int, default=800,
                        help="training graphs (a random subset); 0: 90%% (a 10-fold training set)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=10, help="timed epochs per model")
    parser.add_argument("--predict-repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads (default: torch's default)")
    parser.add_argument("--device", default="cpu",
                        help="cpu or cuda; cuda writes speed_gpu.md/json instead of speed.*")
    parser.add_argument("--results-dir", default=str(RESULTS))
    parser.add_argument("--force", action="store_true",
                        help="re-run datasets already in speed.json")
    parser.add_argument("--quick", action="store_true",
                        help="tiny smoke run (for the test suite): bundled IMDB-BINARY, 60 "
                             "graphs, batch 20, 2 epochs")
    parser.add_argument("--vib", nargs="*", default=[], metavar="KEY=VALUE",
                        help="VIBGSLClassifier parameters (values read as JSON), e.g. "
                             "graph_path='\"sparse\"' structure_k=8; results go in "
                             "speed_<tag>.md/json (--tag)")
    parser.add_argument("--match-capacity", action="store_true",
                        help="the plain GNN takes hidden_dim, num_layers, readout (and "
                             "module__batch_norm) from --vib instead of width 16, two layers, "
                             "mean pooling; results go in speed_<tag>_matched.md/json")
    parser.add_argument("--tag", default=None,
                        help="name of the result files' variant: speed_<tag>[_<backbone>].md")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.vib_params = {k: json.loads(v) for k, v in (a.split("=", 1) for a in args.vib)}
    if args.match_capacity:
        try:
            yardstick_capacity(args.vib_params, args.backbone)
        except ValueError as err:
            parser.error(f"--match-capacity: {err}")
    if args.quick:
        args.datasets, args.n_train, args.batch_size = ["IMDB-BINARY"], 60, 20
        args.epochs, args.predict_repeats, args.threads = 2, 1, args.threads or 1
    return args


def main(argv=None) -> None:
    args = parse(argv)
    if args.one:  # child: one dataset, JSON on the last stdout line
        import torch

        if args.threads:
            torch.set_num_threads(args.threads)
        row = bench(args.datasets[0], args.data_home, args.n_train, args.batch_size,
                    args.epochs, args.predict_repeats, args.device, args.backbone,
                    args.vib_params, args.match_capacity)
        print(json.dumps(row), flush=True)
        return

    argv = sys.argv[1:] if argv is None else list(argv)
    command = recorded_command([__file__, *(a for a in argv if a != "--force")])
    results_dir = Path(args.results_dir)
    stem = "speed" + (f"_{args.tag}" if args.tag else "")
    stem += "_matched" if args.match_capacity else ""
    stem += "" if args.backbone == "gcn" else f"_{args.backbone}"
    stem += "" if args.device == "cpu" else "_gpu"
    path = results_dir / f"{stem}.json"
    old = json.loads(path.read_text()) if path.is_file() else {"meta": {}, "rows": []}
    rows = {r["dataset"]: r for r in old["rows"] if "train_peak_rss_mib" in r}
    commands = [c for c in old["meta"].get("commands", []) if c != command]
    for name in args.datasets:
        if name in rows and not args.force:
            print(f"{name}: already in {path}, skipped (--force to re-run)", flush=True)
            continue
        child = [sys.executable, str(Path(__file__).resolve()), "--one", "--datasets", name,
                 "--n-train", str(args.n_train), "--batch-size", str(args.batch_size),
                 "--epochs", str(args.epochs), "--predict-repeats", str(args.predict_repeats),
                 "--device", args.device, "--backbone", args.backbone]
        if args.vib:
            child += ["--vib", *args.vib]
        if args.match_capacity:
            child += ["--match-capacity"]
        if args.data_home:
            child += ["--data-home", args.data_home]
        if args.threads:
            child += ["--threads", str(args.threads)]
        load_start = _loadavg()
        proc = subprocess.run(child, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise SystemExit(f"{name}: benchmark process failed ({proc.returncode})")
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        row["loadavg_start_end"] = [load_start, _loadavg()]
        row["command"] = command
        rows[name] = row
        print(json.dumps({k: v for k, v in row.items() if not k.endswith("epochs_s")}),
              flush=True)
        meta = _meta(command, args.threads or row["torch_threads"])
        meta["commands"] = commands + [command]
        meta["notes"] = old["meta"].get("notes", [])
        order = ["IMDB-BINARY", "IMDB-MULTI", "REDDIT-BINARY", "COLLAB"]
        write(results_dir,
              sorted(rows.values(), key=lambda r: (order + [r["dataset"]]).index(r["dataset"])),
              meta, stem)


if __name__ == "__main__":
    main()
