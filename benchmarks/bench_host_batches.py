"""Host-side cost of one training epoch's batches with the observed adjacency.

A model that uses the observed graph (``structure_mix > 0``, e.g. the
"N/A" rows of Table 1) needs the dense ``B × N × N`` adjacency of every
batch. Batches carry the edge list (``adj_index``, ``adj_weight``) and
the classifier builds the dense array with :func:`densify_adjacency` after
moving the batch to its device. This script measures, for one epoch of
size-bucketed training batches (``batch_size`` 100, ``max_pairs="auto"``):

* **build**: CPU time to assemble the batches as they leave the loader
  (padded features, mask, and the observed graph as an edge list, or
  dense where that is fewer bytes) — what the host pays per epoch;
* **densify**: CPU time of ``densify_adjacency`` on the host — what the
  host also paid when every batch carried the dense adjacency (on a GPU it
  now runs there);
* the bytes of the batches as they cross to the device, as sent and with
  every adjacency dense.

Medians over ``--repeats`` epochs (different shuffles), 1 torch thread.

Usage::

    python benchmarks/bench_host_batches.py --data-home ../shared/datasets \
        --datasets IMDB-BINARY REDDIT-BINARY COLLAB

Writes ``benchmarks/results/host_batches.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

from _machine import recorded_command  # benchmarks/_machine.py

RESULTS = Path(__file__).resolve().parent / "results"


def _nbytes(batch) -> int:
    return sum(v.numel() * v.element_size() for v in batch.values())


def measure(name: str, data_home: str | None, batch_size: int, repeats: int) -> dict:
    import numpy as np
    import torch

    from sk_vibgsl._batching import GraphDataset, GraphLoader, densify_adjacency
    from sk_vibgsl._inputs import to_graph_set
    from sk_vibgsl.datasets import load_tu_dataset
    from sk_vibgsl.preprocessing import DegreeFeatures

    torch.set_num_threads(1)
    graphs, _ = load_tu_dataset(name, data_home=data_home, download_if_missing=False,
                                return_X_y=True)
    n_train = int(0.9 * len(graphs))
    graph_set = to_graph_set(DegreeFeatures().fit_transform(graphs[:n_train]))
    dataset = GraphDataset(graph_set, np.zeros(n_train, dtype=np.int64), with_adjacency=True)
    build, densify, sparse_bytes, dense_bytes = [], [], [], []
    for seed in range(repeats):
        loader = GraphLoader(dataset, batch_size=batch_size, shuffle=True, seed=seed)
        t_build = t_dense = 0.0
        n_sparse = n_dense = 0
        it = iter(loader)
        while True:
            start = time.process_time()
            try:
                batch, _ = next(it)
            except StopIteration:
                break
            t_build += time.process_time() - start
            start = time.process_time()
            dense = densify_adjacency(batch)
            t_dense += time.process_time() - start
            n_sparse += _nbytes(batch)
            n_dense += _nbytes(dense)
            del dense
        build.append(t_build)
        densify.append(t_dense)
        sparse_bytes.append(n_sparse)
        dense_bytes.append(n_dense)
    return {
        "dataset": name,
        "train_graphs": n_train,
        "batch_size": batch_size,
        "n_batches": len(loader),
        "build_cpu_s": statistics.median(build),
        "densify_cpu_s": statistics.median(densify),
        "build_cpu_s_all": build,
        "densify_cpu_s_all": densify,
        "edge_list_mb": statistics.median(sparse_bytes) / 1e6,
        "dense_mb": statistics.median(dense_bytes) / 1e6,
        "repeats": repeats,
    }


def write(results_dir: Path, rows: list[dict], command: str) -> None:
    import torch

    import sk_vibgsl

    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / "host_batches.json"
    old = json.loads(path.read_text())["meta"] if path.is_file() else {}
    meta = {"notes": old.get("notes", []),  # hand-written, kept across runs
            "command": command, "machine": platform.machine(),
            "versions": {"sk_vibgsl": sk_vibgsl.__version__, "torch": torch.__version__,
                         "python": platform.python_version()}}
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    lines = [
        "# Host-side cost of one epoch's batches with the observed adjacency",
        "",
        f"Command: `{command}`  ",
        f"Machine: {meta['machine']}, 1 torch thread; versions: {meta['versions']}",
        "",
        "One epoch of size-bucketed training batches (90 % of the graphs, `max_pairs=\"auto\"`), "
        "median over the repeats. *Build*: CPU seconds to assemble the batches as they leave "
        "the loader, with the observed graph as an edge list, or dense where that takes fewer "
        "bytes. *Densify*: CPU seconds of `densify_adjacency` on the host, which the host also "
        "paid when every batch carried the dense adjacency (on a GPU it now runs on the "
        "device). MB: bytes of the epoch's batches as they cross to the device, as sent and "
        "with every adjacency dense.",
        "",
        "| dataset | graphs | batches | build s | densify s | host s, as sent / all dense | "
        "MB moved, as sent / all dense |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        dense_host = r["build_cpu_s"] + r["densify_cpu_s"]
        lines.append(
            f"| {r['dataset']} | {r['train_graphs']} | {r['n_batches']} | "
            f"{r['build_cpu_s']:.3f} | {r['densify_cpu_s']:.3f} | "
            f"{r['build_cpu_s']:.3f} / {dense_host:.3f} "
            f"({dense_host / max(r['build_cpu_s'], 1e-9):.0f}×) | "
            f"{r['edge_list_mb']:.0f} / {r['dense_mb']:.0f} "
            f"({r['dense_mb'] / max(r['edge_list_mb'], 1e-9):.0f}×) |"
        )
    if meta["notes"]:
        lines += ["", "## Notes", "", *meta["notes"]]
    (results_dir / "host_batches.md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+",
                        default=["IMDB-BINARY", "REDDIT-BINARY", "COLLAB"])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results-dir", default=str(RESULTS))
    args = parser.parse_args(argv)
    argv = sys.argv[1:] if argv is None else list(argv)
    command = recorded_command([__file__, *argv])
    rows = []
    for name in args.datasets:
        rows.append(measure(name, args.data_home, args.batch_size, args.repeats))
        print(json.dumps(rows[-1]), flush=True)
        write(Path(args.results_dir), rows, command)


if __name__ == "__main__":
    main()
