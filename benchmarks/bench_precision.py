"""Accuracy and epoch time of ``precision="bf16"`` (bfloat16 autocast) against float32.

Same folds, same seeds, both precisions; per fold, held-out accuracy and the
median training-epoch time (skorch's ``dur``). Defaults: MUTAG (bundled),
GIN, 40 epochs, 5-fold CV, and a stratified 300-graph subset of IMDB-BINARY
(bundled, degree features), GCN, 40 epochs, 5-fold CV.

Usage::

    python benchmarks/bench_precision.py                 # CPU
    python benchmarks/bench_precision.py --device cuda   # a GPU with bfloat16

Writes ``benchmarks/results/precision_<device>.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch
from _machine import recorded_command  # benchmarks/_machine.py
from sklearn.model_selection import StratifiedKFold, train_test_split

from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset

RESULTS = Path(__file__).resolve().parent / "results"

SETUPS = {
    "MUTAG": {"backbone": "gin", "n_graphs": None},
    "IMDB-BINARY": {"backbone": "gcn", "n_graphs": 300},
}


def load(name: str, n_graphs: int | None):
    graphs, y = load_tu_dataset(name, return_X_y=True)
    if n_graphs is not None and n_graphs < len(y):
        graphs, _, y, _ = train_test_split(
            graphs, y, train_size=n_graphs, stratify=y, random_state=0
        )
    if name != "MUTAG":
        graphs = DegreeFeatures().fit_transform(graphs)
    return list(graphs), np.asarray(y)


def run(args) -> list[dict]:
    rows = []
    for name in args.datasets:
        setup = SETUPS[name]
        X, y = load(name, setup["n_graphs"])
        folds = StratifiedKFold(args.folds, shuffle=True, random_state=0).split(X, y)
        per = {p: {"acc": [], "epoch_s": []} for p in ("32", "bf16")}
        for k, (train, test) in enumerate(folds):
            for precision in ("32", "bf16"):
                clf = VIBGSLClassifier(
                    backbone=setup["backbone"], precision=precision, max_epochs=args.epochs,
                    random_state=k, device=args.device, torch_threads=args.threads,
                )
                clf.fit([X[i] for i in train], y[train])
                acc = clf.score([X[i] for i in test], y[test])
                per[precision]["acc"].append(float(acc))
                per[precision]["epoch_s"].append(statistics.median(clf.history[1:, "dur"]))
                print(f"{name} fold {k} {precision:>4}: acc {acc:.3f}", flush=True)
        for precision, r in per.items():
            rows.append({
                "dataset": name, "backbone": setup["backbone"], "precision": precision,
                "n_graphs": len(y), "acc_mean": float(np.mean(r["acc"])),
                "acc_std": float(np.std(r["acc"])), "acc_folds": r["acc"],
                "epoch_s_median": float(statistics.median(r["epoch_s"])),
            })
    return rows


def write(rows: list[dict], args) -> None:
    if args.device == "cuda":
        device = f"cuda ({torch.cuda.get_device_name()})"
    else:
        threads = args.threads or torch.get_num_threads()
        device = f"{args.device} ({platform.machine()}, {threads} torch threads)"
    command = recorded_command([__file__, *args.argv])
    meta = {"command": command, "device": device, "torch": torch.__version__,
            "epochs": args.epochs, "folds": args.folds,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    args.results_dir.mkdir(parents=True, exist_ok=True)
    stem = args.results_dir / f"precision_{args.device}"
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = [
        "# bf16 autocast vs float32",
        "",
        f"Command: `{command}` ({meta['date']}); device {device}; torch {torch.__version__}; "
        f"{args.folds}-fold CV, {args.epochs} epochs, seed = fold index, same folds for both.",
        "",
        "| dataset | backbone | graphs | precision | accuracy (mean ± std) | median epoch (s) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['backbone']} | {r['n_graphs']} | {r['precision']} "
            f"| {100 * r['acc_mean']:.1f} ± {100 * r['acc_std']:.1f} | {r['epoch_s_median']:.3f} |"
        )
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(SETUPS), choices=list(SETUPS))
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch_threads of every fit (default: torch's own setting)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)  # for the record's command
    write(run(args), args)


if __name__ == "__main__":
    main()
