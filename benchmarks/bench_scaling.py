"""Time and peak memory of a training epoch against graph size, sparse vs dense path.

Synthetic graphs of ``n`` nodes (16 Gaussian features, an observed
Erdős–Rényi graph of mean degree 6): a dataset of two such graphs (one per
class), ``batch_size=1``, so an epoch is two training steps on one graph of
``n`` nodes. Each (configuration, n) runs in a fresh process:

* ``dense``: the paper's structure learner on ``B × N × N`` tensors
  (``graph_path="dense"``), until it no longer fits (``--dense-max``);
* ``sparse_topk``: ``graph_path="sparse"``, ``structure_k=k``, all pairs
  scored in row blocks (time :math:`O(n^2 d)`, memory :math:`O(n k)`);
* ``sparse_hops``: ``graph_path="sparse"``, ``structure_k=k``,
  ``candidate_hops=2`` (candidates from the observed graph: time and memory
  :math:`O(n k)` at a fixed degree);
* ``sparse_topk_approx``: as ``sparse_topk`` with ``top_k_search="approx"``
  (hashing search, :mod:`sk_vibgsl.nn.sparse_ann`: time O(n log n)).
  After the timed epochs, on the first graph with the fitted model, in the
  same process: the recall of its selection against the exact top-``k``
  (share of the exact directed selections it also selects) and the CPU time
  of each selection alone (``select_cpu_s_*``, median of 3).

Reported per point: the median epoch time (skorch's ``dur``) over
``--epochs`` timed epochs after one warm-up epoch, the CPU time of those
epochs, the peak RSS over the training epochs (``VmHWM`` reset after the
data are built; it includes the Python/torch runtime, "base RSS") and the
peak RSS and time of ``predict_proba`` on the two graphs. Slopes are least
squares fits of log(time) and log(extra peak memory) on log(n).

Resumable: a point already in ``scaling.json`` is skipped unless ``--force``;
results, table and plot are rewritten after every point.

Usage::

    python benchmarks/bench_scaling.py --threads 1
    python benchmarks/bench_scaling.py --threads 1 --sizes 20000 100000 \\
        --configs sparse_hops sparse_topk --epochs 1 --table big
"""

from __future__ import annotations

import argparse
import json
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
CONFIGS = {
    "dense": {"graph_path": "dense"},
    "sparse_topk": {"graph_path": "sparse", "structure_k": None},
    "sparse_hops": {"graph_path": "sparse", "structure_k": None, "candidate_hops": 2},
    "sparse_topk_approx": {"graph_path": "sparse", "structure_k": None, "top_k_search": "approx"},
}


def synthetic_graph(n: int, degree: float, seed: int, n_features: int = 16):
    """``(features, adjacency)``: Gaussian features, ``n · degree / 2``
    uniformly random undirected edges (a scipy sparse matrix)."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    m = int(n * degree / 2)
    edges = rng.integers(0, n, size=(2, m))
    edges = edges[:, edges[0] != edges[1]]
    x = rng.normal(size=(n, n_features)).astype(np.float32)
    adj = sp.coo_matrix((np.ones(edges.shape[1], np.float32), (edges[0], edges[1])), (n, n))
    return x, adj


def run_point(config: str, n: int, k: int, epochs: int, degree: float) -> dict:
    import numpy as np
    import torch

    from sk_vibgsl import VIBGSLClassifier

    X = [synthetic_graph(n, degree, seed) for seed in (0, 1)]
    y = np.array([0, 1])
    params = dict(CONFIGS[config])
    if "structure_k" in params:
        params["structure_k"] = k
    base = status_mib("VmRSS") or peak_mib()
    reset_peak()
    clf = VIBGSLClassifier(batch_size=1, max_epochs=1, warm_start=True, random_state=0,
                           max_nodes=None, **params)
    cpu = []
    t0 = time.perf_counter()
    clf.fit(X, y)  # warm-up
    warm_s = time.perf_counter() - t0
    for _ in range(epochs):
        c0 = time.process_time()
        clf.fit(X, y)
        cpu.append(time.process_time() - c0)
    train_peak = peak_mib()
    durs = [clf.history[i, "dur"] for i in range(1, len(clf.history))]
    reset_peak()
    t0 = time.perf_counter()
    clf.predict_proba(X)
    predict_s = time.perf_counter() - t0
    search = selection_recall(clf, X[0][0], k) if params.get("top_k_search") == "approx" else {}
    return {**search,
        "config": config, "n": n, "k": k if "structure_k" in params else None,
        "degree": degree, "params": params,
        "epoch_s": statistics.median(durs) if durs else warm_s, "epochs_s": durs,
        "warmup_epoch_s": warm_s,
        "epoch_cpu_s": statistics.median(cpu) if cpu else None,
        "base_rss_mib": base, "train_peak_rss_mib": train_peak,
        "predict_s": predict_s, "predict_peak_rss_mib": peak_mib(),
        "torch_threads": torch.get_num_threads(),
    }


def selection_recall(clf, x, k: int) -> dict:
    """Recall of the approximate selection against the exact one on the fitted
    model's embeddings of one graph, and the CPU time of each selection."""
    import torch

    from sk_vibgsl.nn.sparse_ann import approx_top_k
    from sk_vibgsl.nn.sparse_structure import top_k_all_pairs

    module = clf.module_.eval()
    with torch.no_grad():
        xt = torch.as_tensor(x).unsqueeze(0)
        mask = torch.ones(xt.shape[:2], dtype=torch.bool)
        z, _ = module.structure._embedding(module.project(xt, mask)[1][0])
    ptr = torch.tensor([0, len(z)])

    def timed(select):
        times = []
        for _ in range(3):
            c0 = time.process_time()
            out = select()
            times.append(time.process_time() - c0)
        return out, statistics.median(times)

    exact, exact_s = timed(lambda: top_k_all_pairs(z, ptr, k))
    approx, approx_s = timed(lambda: approx_top_k(z, ptr, k, seed=module.ann_seed))
    key = lambda s: set((s[0] * len(z) + s[1]).tolist())  # noqa: E731
    return {"recall": len(key(exact) & key(approx)) / exact.shape[1],
            "select_cpu_s_exact": exact_s, "select_cpu_s_approx": approx_s}


def slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log y on log x."""
    import numpy as np

    pts = [(x, y) for x, y in points if y and y > 0]
    if len(pts) < 2:
        return None
    lx, ly = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(lx, ly, 1)[0])


def write(results_dir: Path, data: dict, table: str) -> None:
    rows = sorted(data["rows"], key=lambda r: (r.get("table", "scaling"), r["config"], r["n"]))
    (results_dir / "scaling.json").write_text(json.dumps(data, indent=2))
    lines = ["# Scaling: a training epoch against graph size, sparse and dense paths", "",
             "Commands:", "", *[f"- `{c}`" for c in data["commands"]], "",
             f"Machine: {data.get('machine', '?')}", "", (__doc__ or "").split("Usage::")[0]
             .split("\n\n", 1)[1].strip(), ""]
    for name in ("scaling", "big"):
        sel = [r for r in rows if r.get("table", "scaling") == name]
        if not sel:
            continue
        lines += [f"## {'Sizes 1,000 … 32,000' if name == 'scaling' else 'One big graph'}", "",
                  "| config | n | k | epoch s (median) | epoch CPU s | warm-up epoch s | "
                  "base RSS MiB | train peak RSS MiB | predict s | predict peak RSS MiB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in sel:
            cpu = f"{r['epoch_cpu_s']:.2f}" if r.get("epoch_cpu_s") else "—"
            lines.append(
                f"| {r['config']} | {r['n']:,} | {r['k'] or '—'} | {r['epoch_s']:.2f} | {cpu} | "
                f"{r['warmup_epoch_s']:.2f} | {r['base_rss_mib']:.0f} | "
                f"{r['train_peak_rss_mib']:.0f} | {r['predict_s']:.2f} | "
                f"{r['predict_peak_rss_mib']:.0f} |")
        lines.append("")
    lines += ["## Fitted slopes (log–log, sizes table, n ≥ 2,000)", "",
              "Time slopes are fitted to the epoch's CPU time (the machine is shared: wall "
              "time carries other tenants' load), memory slopes to the peak RSS above the "
              "base RSS.", "",
              "| config | sizes | CPU-time slope | wall-time slope | extra-memory slope |",
              "|---|---|---:|---:|---:|"]
    for config in CONFIGS:
        sel = [r for r in rows if r["config"] == config and r.get("table", "scaling") == "scaling"]
        sel = [r for r in sel if r["n"] >= 2000] or sel
        if len(sel) < 2:
            continue
        cs = slope([(r["n"], r.get("epoch_cpu_s")) for r in sel])
        ts = slope([(r["n"], r["epoch_s"]) for r in sel])
        ms = slope([(r["n"], r["train_peak_rss_mib"] - r["base_rss_mib"]) for r in sel])

        def fmt(v):
            return "—" if v is None else f"{v:.2f}"

        lines.append(f"| {config} | {sel[0]['n']:,} … {sel[-1]['n']:,} | {fmt(cs)} | "
                     f"{fmt(ts)} | {fmt(ms)} |")
    notes = data.get("notes", [])
    if notes:
        lines += ["", "## Notes", "", *notes]
    lines += ["", "![scaling](scaling.png)", ""]
    (results_dir / "scaling.md").write_text("\n".join(lines))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for config in CONFIGS:
            sel = [r for r in rows
                   if r["config"] == config and r.get("table", "scaling") == "scaling"]
            if not sel:
                continue
            n = [r["n"] for r in sel]
            axes[0].loglog(n, [r.get("epoch_cpu_s") or r["epoch_s"] for r in sel], "o-",
                           label=config)
            axes[1].loglog(n, [r["train_peak_rss_mib"] - r["base_rss_mib"] for r in sel],
                           "o-", label=config)
        axes[0].set(xlabel="nodes n", ylabel="CPU s per epoch (2 graphs)", title="time")
        axes[1].set(xlabel="nodes n", ylabel="peak RSS − base RSS (MiB)", title="memory")
        for ax in axes:
            ax.legend()
            ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(results_dir / "scaling.png", dpi=100)
        plt.close(fig)
    except ImportError:
        pass


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[1000, 2000, 4000, 8000, 16000, 32000])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--degree", type=float, default=6.0)
    parser.add_argument("--epochs", type=int, default=3, help="timed epochs after a warm-up")
    parser.add_argument("--dense-max", type=int, default=8000,
                        help="largest n for the dense path (35 bytes per node pair)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--table", default="scaling", choices=["scaling", "big"])
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per point")
    parser.add_argument("--results-dir", default=str(RESULTS))
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        import torch

        torch.set_num_threads(args.threads)
        row = run_point(args.one[0], int(args.one[1]), args.k, args.epochs, args.degree)
        print(json.dumps(row), flush=True)
        return
    results_dir = Path(args.results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / "scaling.json"
    data = json.loads(path.read_text()) if path.is_file() else {"rows": [], "commands": []}
    argv = sys.argv[1:] if argv is None else list(argv)
    command = recorded_command([__file__, *(a for a in argv if a != "--force")])
    if command not in data["commands"]:
        data["commands"].append(command)
    import platform

    data["machine"] = f"{platform.machine()}, {args.threads} torch thread(s)"
    for config in args.configs:
        for n in args.sizes:
            if config == "dense" and n > args.dense_max:
                continue
            key = (config, n, args.table)
            done = [r for r in data["rows"]
                    if (r["config"], r["n"], r.get("table", "scaling")) == key]
            if done and not args.force:
                print(f"{key}: done, skipped", flush=True)
                continue
            child = [sys.executable, str(Path(__file__).resolve()), "--one", config, str(n),
                     "--k", str(args.k), "--epochs", str(args.epochs), "--degree",
                     str(args.degree), "--threads", str(args.threads)]
            try:
                proc = subprocess.run(child, capture_output=True, text=True,
                                      timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"{key}: over {args.timeout} s, skipped", flush=True)
                continue
            if proc.returncode != 0:
                print(f"{key}: failed\n{proc.stderr[-2000:]}", flush=True)
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            row["table"] = args.table
            data["rows"] = [r for r in data["rows"]
                            if (r["config"], r["n"], r.get("table", "scaling")) != key] + [row]
            print(json.dumps({k: v for k, v in row.items() if k != "epochs_s"}), flush=True)
            write(results_dir, data, args.table)


if __name__ == "__main__":
    main()
