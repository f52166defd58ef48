"""Capacity probe: validation curves of a few settings on one outer training fold.

Issue #22 asks whether the defaults (the paper's hidden size 16, 100 epochs)
underfit graphs with informative node features (NCI1). Choosing capacity on
test folds would be the mistake the fair protocol exists to prevent, so this
probe looks only at the **training graphs of outer fold 0** (the same
``StratifiedKFold(10, shuffle=True, random_state=seed)`` as
``reproduce_table1.py``): each setting trains on 80 % of them and is scored
every epoch on the other 20 % (a stratified split, the same for every
setting). The outer test fold is never read.

Each finished setting is a line of ``capacity_probe.jsonl`` in
``--results-dir`` (re-running skips it); the report ``capacity_probe.md``
gives the validation accuracy at a few epochs, the mean over the last 20
epochs (less noisy than one epoch), the best epoch, CPU time per epoch and
the IB-graph density.

Example::

    python benchmarks/capacity_probe.py --dataset NCI1 --epochs 300 \\
        --setting gin_obs_h16:backbone=gin,structure_mix=1 \\
        --setting gin_obs_h64:backbone=gin,structure_mix=1,hidden_dim=64
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
from _machine import recorded_command  # benchmarks/_machine.py
from sklearn.model_selection import StratifiedKFold
from skorch.dataset import ValidSplit

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SK_VIBGSL_SHARED", ROOT.parent / "shared"))
CHECK_EPOCHS = (50, 100, 200, 300, 500)


def parse_setting(text: str) -> tuple[str, dict]:
    """``name:key=value,key=value`` (values read as JSON, else as strings)."""
    name, _, rest = text.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return name, params


def load(dataset: str, data_home: str, node_features: str):
    from sk_vibgsl.datasets import load_tu_dataset
    from sk_vibgsl.preprocessing import DegreeFeatures

    graphs, y = load_tu_dataset(dataset, data_home=data_home, download_if_missing=False,
                                return_X_y=True)
    y = np.unique(y, return_inverse=True)[1]
    graphs = DegreeFeatures(append=node_features == "given+degree").fit_transform(graphs)
    return graphs, y


def run_setting(graphs, y, params: dict, args) -> dict:
    from sk_vibgsl import VIBGSLClassifier

    outer = StratifiedKFold(args.folds, shuffle=True, random_state=args.seed)
    train, _ = next(iter(outer.split(np.zeros(len(y)), y)))  # fold 0; its test part unused
    clf = VIBGSLClassifier(max_epochs=args.epochs, random_state=args.seed,
                           torch_threads=args.threads,
                           train_split=ValidSplit(args.valid_frac, stratified=True,
                                                  random_state=args.seed))
    clf.set_params(**params)
    start = time.process_time()
    clf.fit([graphs[i] for i in train], y[train])
    cpu = time.process_time() - start
    hist = clf.history
    return {
        "valid_acc": [float(a) for a in hist[:, "valid_acc"]],
        "valid_ce": [float(a) for a in hist[:, "valid_ce"]],
        "train_ce": [float(a) for a in hist[:, "train_ce"]],
        "valid_density": [float(a) for a in hist[:, "valid_density"]],
        "cpu_s_per_epoch": cpu / len(hist),
    }


def report(records: list[dict], path: Path, args) -> None:
    checks = [e for e in CHECK_EPOCHS if e <= max(len(r["valid_acc"]) for r in records)]
    lines = [
        "# Capacity probe: validation accuracy on outer fold 0's training graphs",
        "",
        "Written by `benchmarks/capacity_probe.py` (its docstring gives the protocol). "
        "Each setting trains on 80 % of the training graphs of outer fold 0 "
        "(10 stratified folds, seed 0) and is scored every epoch on the other 20 %; "
        "the outer test fold is not read. One seed, one split: the standard error of one "
        "accuracy on n validation graphs is about √(p(1−p)/n) (≈ 1.6 points at n = 740, "
        "p = 0.75).",
        "",
        "| " + " | ".join(["dataset", "setting", "parameters"]
                         + [f"acc @{e}" for e in checks]
                         + ["mean last 20", "best (epoch)", "min valid CE (epoch)",
                            "density", "CPU s/epoch"]) + " |",
        "|---|---|---|" + "---:|" * (len(checks) + 5),
    ]
    for r in records:
        acc = np.array(r["valid_acc"]) * 100
        ce = np.array(r["valid_ce"])
        at = [f"{acc[e - 1]:.1f}" if e <= len(acc) else "" for e in checks]
        params = ", ".join(f"{k}={v}" for k, v in r["params"].items())
        lines.append(
            f"| {r['dataset']} | {r['name']} | {params} | " + "".join(a + " | " for a in at)
            + f"{acc[-20:].mean():.1f} | {acc.max():.1f} ({acc.argmax() + 1})"
            + f" | {ce.min():.3f} ({ce.argmin() + 1}) | {r['valid_density'][-1]:.2f}"
            + f" | {r['cpu_s_per_epoch']:.2f} |"
        )
    lines += ["", "Commands:", ""]
    lines += sorted({f"- `{r['command']}`" for r in records})
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="NCI1")
    parser.add_argument("--data-home", default=str(SHARED / "datasets"))
    parser.add_argument("--node-features", choices=["degree", "given+degree"],
                        default="given+degree")
    parser.add_argument("--setting", action="append", required=True,
                        metavar="NAME:KEY=VALUE,...")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--valid-frac", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results-dir",
                        default=str(ROOT / "benchmarks" / "results" / "capacity_probe"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    out = Path(args.results_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs = out / "capacity_probe.jsonl"
    records = [json.loads(line) for line in runs.open()] if runs.exists() else []
    done = {(r["dataset"], r["name"], r["epochs"]) for r in records}
    graphs = y = None
    for text in args.setting:
        name, params = parse_setting(text)
        if (args.dataset, name, args.epochs) in done:
            continue
        if graphs is None:
            graphs, y = load(args.dataset, args.data_home, args.node_features)
        result = run_setting(graphs, y, params, args)
        command = recorded_command([__file__, "--dataset", args.dataset,
                                    "--epochs", str(args.epochs), "--setting", text])
        record = {"dataset": args.dataset, "name": name, "params": params,
                  "epochs": args.epochs, "command": command, **result}
        records.append(record)
        with runs.open("a") as f:
            f.write(json.dumps(record) + "\n")
        print(f"{args.dataset} {name}: last-20 mean "
              f"{100 * np.mean(result['valid_acc'][-20:]):.1f}", flush=True)
        report(records, out / "capacity_probe.md", args)
    if records:
        report(records, out / "capacity_probe.md", args)


if __name__ == "__main__":
    main()
