"""Wall time of one ``GridSearchCV`` with 1 vs 2 joblib workers, with and without thread limits.

The search: ``DegreeFeatures() + VIBGSLClassifier`` on a stratified subset of
the bundled IMDB-BINARY, a β grid × ``cv`` folds, ``refit=False`` (only the
parallel part is timed). Configurations, run round-robin so that a change in
the machine's background load hits all of them alike:

* ``n_jobs=1``, torch's default threads (all cores, in-process);
* ``n_jobs=1``, ``torch_threads=1``;
* ``n_jobs=2``, ``torch_threads=None``: joblib's default ``loky`` backend
  sets ``OMP_NUM_THREADS=cpu_count() // n_jobs`` in each worker, which torch
  reads at start-up;
* ``n_jobs=2``, ``torch_threads=cpu_count()``: each worker forced to all
  cores — the oversubscribed case that the limit avoids.

The torch thread count inside ``fit`` is measured in each configuration
(a one-epoch probe fit through the same joblib workers), and the 1-minute
load average (``os.getloadavg``) is recorded before every timed search: on a
shared machine, other work deflates the parallel speedup.

Usage::

    python benchmarks/bench_parallel.py             # a few minutes on 2 idle cores
    python benchmarks/bench_parallel.py --quick     # a smoke run in well under a minute

Writes ``benchmarks/results/parallel.md`` and ``parallel.json`` (``--results-dir`` to change).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import joblib
import numpy as np
import sklearn
import skorch
import torch
from _machine import cpu_model, recorded_command  # benchmarks/_machine.py
from joblib import Parallel, delayed
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from skorch.callbacks import Callback

import sk_vibgsl
from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset

RESULTS = Path(__file__).resolve().parent / "results"


class _RecordThreads(Callback):
    def initialize(self):
        self.seen = set()
        return self

    def on_batch_begin(self, net, **kwargs):
        self.seen.add(torch.get_num_threads())


def _threads_in_fit(X, y, torch_threads: int | None) -> list[int]:
    """Fit one epoch and return the torch thread counts seen inside it."""
    probe = _RecordThreads()
    model = make_pipeline(
        DegreeFeatures(),
        VIBGSLClassifier(max_epochs=1, torch_threads=torch_threads, callbacks=[probe]),
    )
    model.fit(X, y)
    return sorted(probe.seen)


def configurations(n_cores: int) -> list[dict]:
    return [
        {"name": "n_jobs=1, torch default threads", "n_jobs": 1, "torch_threads": None},
        {"name": "n_jobs=1, torch_threads=1", "n_jobs": 1, "torch_threads": 1},
        {"name": "n_jobs=2, torch_threads=None (loky limit)", "n_jobs": 2,
         "torch_threads": None},
        {"name": f"n_jobs=2, torch_threads={n_cores} (oversubscribed)", "n_jobs": 2,
         "torch_threads": n_cores},
    ]


def search(X, y, config: dict, args) -> GridSearchCV:
    model = make_pipeline(
        DegreeFeatures(),
        VIBGSLClassifier(
            max_epochs=args.epochs, random_state=0, torch_threads=config["torch_threads"]
        ),
    )
    return GridSearchCV(
        model,
        {"vibgslclassifier__beta": args.betas},
        cv=StratifiedKFold(args.cv, shuffle=True, random_state=0),
        n_jobs=config["n_jobs"],
        refit=False,
    )


def run(args) -> dict:
    graphs, y = load_tu_dataset("IMDB-BINARY", return_X_y=True)
    X, _, y, _ = train_test_split(
        graphs, y, train_size=args.n_graphs, stratify=y, random_state=0
    )
    n_cores = joblib.cpu_count()
    configs = configurations(n_cores)
    for config in configs:
        # Also warms up the loky workers, so start-up is not timed below.
        per_worker = Parallel(n_jobs=config["n_jobs"])(
            delayed(_threads_in_fit)(X[:20], y[:20], config["torch_threads"])
            for _ in range(config["n_jobs"])
        )
        config["torch_threads_in_fit"] = sorted({t for seen in per_worker for t in seen})
        config["times_s"], config["load_1min"], config["scores"] = [], [], None
    for repeat in range(args.repeats):
        for config in configs:
            config["load_1min"].append(round(os.getloadavg()[0], 2))
            start = time.perf_counter()
            fitted = search(X, y, config, args).fit(X, y)
            config["times_s"].append(round(time.perf_counter() - start, 3))
            scores = fitted.cv_results_["mean_test_score"].round(6).tolist()
            config["scores"] = config["scores"] or scores
            print(f"repeat {repeat + 1}/{args.repeats}  {config['name']:<48} "
                  f"{config['times_s'][-1]:7.2f} s  load {config['load_1min'][-1]}", flush=True)
    base = statistics.median(configs[0]["times_s"])
    for config in configs:
        config["median_s"] = statistics.median(config["times_s"])
        config["speedup_vs_first"] = round(base / config["median_s"], 3)
    return {"meta": meta(args, n_cores), "configurations": configs}


def meta(args, n_cores: int) -> dict:
    return {
        "command": recorded_command([__file__, *args.argv]),
        "machine": f"{cpu_model()}, {n_cores} cores (joblib.cpu_count)",
        "versions": {
            "python": platform.python_version(), "torch": torch.__version__,
            "sklearn": sklearn.__version__, "skorch": skorch.__version__,
            "joblib": joblib.__version__, "sk_vibgsl": sk_vibgsl.__version__,
        },
        "search": {
            "dataset": "IMDB-BINARY (bundled), stratified subset", "n_graphs": args.n_graphs,
            "betas": args.betas, "cv": args.cv, "epochs": args.epochs,
            "fits": len(args.betas) * args.cv, "repeats": args.repeats, "refit": False,
        },
        "env_OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def write(result: dict, results_dir: Path) -> None:
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "parallel.json").write_text(json.dumps(result, indent=2) + "\n")
    m, s = result["meta"], result["meta"]["search"]
    lines = [
        "# Parallel GridSearchCV: wall time",
        "",
        f"Command: `{m['command']}` ({m['date']})",
        f"Machine: {m['machine']}; versions: "
        + ", ".join(f"{k} {v}" for k, v in m["versions"].items()),
        f"Search: DegreeFeatures + VIBGSLClassifier on {s['n_graphs']} IMDB-BINARY graphs, "
        f"β ∈ {s['betas']} × cv={s['cv']} = {s['fits']} fits of {s['epochs']} epochs, "
        f"refit=False; {s['repeats']} repeats, run round-robin.",
        "",
        "| configuration | torch threads in fit | median wall time (s) | speedup | all runs (s) "
        "| 1-min load before each run |",
        "|---|---|---|---|---|---|",
    ]
    for c in result["configurations"]:
        lines.append(
            f"| {c['name']} | {', '.join(map(str, c['torch_threads_in_fit']))} "
            f"| {c['median_s']:.2f} | {c['speedup_vs_first']:.2f}× "
            f"| {', '.join(f'{t:.1f}' for t in c['times_s'])} "
            f"| {', '.join(f'{v:.2f}' for v in c['load_1min'])} |"
        )
    lines += [
        "",
        "Speedup: median of the first row over the median of the row. The load average "
        "counts runnable processes, this benchmark's own included: a load above the "
        "benchmark's own worker count means other work shared the cores and deflated "
        "the 2-worker speedup.",
        "",
    ]
    loads = [v for c in result["configurations"] for v in c["load_1min"]]
    if min(loads) > 2:
        lines += [
            f"**This run shared the machine with other work**: the 1-minute load was "
            f"{min(loads):.1f}–{max(loads):.1f} before the timed runs (more runnable processes "
            f"than cores), so the times measure thread settings on a busy machine, not a "
            f"clean 2-worker speedup.",
            "",
        ]
    (results_dir / "parallel.md").write_text("\n".join(lines))


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny smoke run: 40 graphs, 2 betas, cv=2, 2 epochs, 1 repeat")
    parser.add_argument("--n-graphs", type=int, default=300)
    parser.add_argument("--betas", type=float, nargs="+", default=[1e-1, 1e-2, 1e-3])
    parser.add_argument("--cv", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)  # for the record's command
    if args.quick:
        args.n_graphs, args.betas, args.cv, args.epochs, args.repeats = 40, [1e-1, 1e-3], 2, 2, 1
    return args


def main(argv=None) -> None:
    args = parse(argv)
    result = run(args)
    write(result, args.results_dir)
    print((args.results_dir / "parallel.md").read_text())


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
