"""Peak memory of the input pipeline: loading, ``DegreeFeatures``, conversion.

Before any training, a dataset goes through three steps, each of which
can peak above what it keeps:

1. ``load_tu_dataset`` parses the TU text files into PyG ``Data`` graphs;
2. ``DegreeFeatures().fit_transform`` gives them one-hot degree features;
3. ``to_graph_set`` (what ``VIBGSLClassifier.get_dataset`` calls) packs the
   graphs into flat arrays, symmetrising and deduplicating the edges.

Each dataset runs in a fresh Python process. For every step the table gives
the resident-set size before it, its high-water mark during the step
(``VmHWM``, reset through ``/proc/self/clear_refs`` just before), the size
after it, and the step's wall time. "Transient" is peak minus after: memory
the step needed only while it ran. Linux only (the reset needs
``clear_refs``).

Usage::

    python benchmarks/memory_inputs.py --data-home ../shared/datasets \
        --datasets IMDB-BINARY REDDIT-BINARY COLLAB

Writes ``benchmarks/results/memory_inputs.md`` and ``.json``
(``--results-dir``).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import peak_mib, recorded_command, reset_peak, status_mib  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
STEPS = ("load_tu_dataset", "DegreeFeatures", "to_graph_set")


def measure(name: str, data_home: str | None) -> dict:
    """Run the three steps on dataset ``name`` in this process."""
    from sk_vibgsl._inputs import to_graph_set
    from sk_vibgsl.datasets import load_tu_dataset
    from sk_vibgsl.preprocessing import DegreeFeatures

    steps = {
        "load_tu_dataset": lambda _: load_tu_dataset(
            name, data_home=data_home, download_if_missing=False, return_X_y=True
        )[0],
        "DegreeFeatures": lambda graphs: DegreeFeatures().fit_transform(graphs),
        "to_graph_set": lambda graphs: (graphs, to_graph_set(graphs)),
    }
    row: dict = {"dataset": name, "steps": {}}
    value = None
    for step in STEPS:
        before = status_mib("VmRSS")
        if not reset_peak():
            raise SystemExit("needs Linux's /proc/self/clear_refs to reset the peak")
        start = time.perf_counter()
        value = steps[step](value)
        seconds = time.perf_counter() - start
        row["steps"][step] = {
            "before_mib": before,
            "peak_mib": peak_mib(),
            "after_mib": status_mib("VmRSS"),
            "seconds": seconds,
        }
    graphs, graph_set = value
    row["n_graphs"] = len(graphs)
    row["n_nodes"] = int(graph_set.node_ptr[-1])
    row["n_edges"] = int(graph_set.edge_index.shape[1])
    row["graph_set_mib"] = sum(
        a.nbytes
        for a in (graph_set.x, graph_set.node_ptr, graph_set.edge_index,
                  graph_set.edge_weight, graph_set.edge_ptr)
    ) / 2**20
    return row


def write(results_dir: Path, rows: list[dict], command: str) -> None:
    results_dir.mkdir(parents=True, exist_ok=True)
    import numpy
    import torch

    import sk_vibgsl

    path = results_dir / "memory_inputs.json"
    old = json.loads(path.read_text())["meta"] if path.is_file() else {}
    meta = {
        "notes": old.get("notes", []),  # hand-written, kept across runs
        "command": command,
        "machine": platform.machine(),
        "python": platform.python_version(),
        "versions": {"sk_vibgsl": sk_vibgsl.__version__, "torch": torch.__version__,
                     "numpy": numpy.__version__},
    }
    path.write_text(
        json.dumps({"meta": meta, "rows": rows}, indent=2))
    lines = [
        "# Peak memory of the input pipeline",
        "",
        f"Command: `{command}`  ",
        f"Machine: {meta['machine']}, Python {meta['python']}; versions: {meta['versions']}",
        "",
        "Resident-set size in MiB: before the step, its peak during the step, after it; "
        "transient = peak − after. Each dataset in a fresh process. `to_graph_set` is the "
        "conversion `VIBGSLClassifier` makes of its input (on all graphs here, after "
        "`DegreeFeatures`); its result's arrays take the size in the last column.",
        "",
        "| dataset | graphs | nodes | directed edges | step | before | peak | after | "
        "transient | seconds | graph set MiB |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        for k, step in enumerate(STEPS):
            s = r["steps"][step]
            head = (f"| {r['dataset']} | {r['n_graphs']} | {r['n_nodes']} | {r['n_edges']} "
                    if k == 0 else "| | | | ")
            tail = f"{r['graph_set_mib']:.0f} |" if step == "to_graph_set" else "|"
            lines.append(
                f"{head}| `{step}` | {s['before_mib']:.0f} | {s['peak_mib']:.0f} | "
                f"{s['after_mib']:.0f} | {s['peak_mib'] - s['after_mib']:.0f} | "
                f"{s['seconds']:.1f} | {tail}"
            )
    if meta["notes"]:
        lines += ["", "## Notes", "", *meta["notes"]]
    (results_dir / "memory_inputs.md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["IMDB-BINARY", "REDDIT-BINARY",
                                                          "COLLAB"])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--results-dir", default=str(RESULTS))
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # child: one dataset, JSON on the last stdout line
        print(json.dumps(measure(args.datasets[0], args.data_home)), flush=True)
        return
    argv = sys.argv[1:] if argv is None else list(argv)
    command = recorded_command([__file__, *argv])
    rows = []
    for name in args.datasets:
        child = [sys.executable, str(Path(__file__).resolve()), "--one", "--datasets", name]
        if args.data_home:
            child += ["--data-home", args.data_home]
        proc = subprocess.run(child, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise SystemExit(f"{name}: failed ({proc.returncode})")
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
        write(Path(args.results_dir), rows, command)


if __name__ == "__main__":
    main()
