"""How far training moves the learned graph from the one the structure learner starts with.

For each outer fold asked for (10 stratified folds, ``--seed``), fits VIB-GSL with the
fair protocol's refit of ``benchmarks/reproduce_table1.py`` (no inner search: β = 1e-3,
early stopping on a stratified 10 % of the training graphs with ``--patience``, at most
``--epochs``; node features as ``--node-features``; ``--set`` as there), the same fit as a
study unit without ``--grid`` (the script checks that its test accuracy is the record's when
``--check`` names the record). A callback keeps the module's parameters at the start of
training; the IB-graphs of the fold's test graphs (read, never scored against anything)
are then taken with the initial and with the trained parameters (the trained feature mask
and GNNs in both, only the structure learner's parameters ``structure.*`` swapped back), and
compared:

.. math::
    J = \\frac{|E_0 \\cap E_1|}{|E_0 \\cup E_1|}

per graph (1 for two empty graphs), :math:`E_0` the pairs the initial structure learner
joins, :math:`E_1` those of the trained one; the mean over the fold's graphs is reported
beside both densities and :math:`\\lVert \\theta_1 - \\theta_0 \\rVert / \\lVert \\theta_0
\\rVert` of the structure learner's parameters. :math:`J = 1` means training left the graph
where it started, whatever it did to its weights.

    python benchmarks/graph_drift.py --dataset IMDB-BINARY --backbone gin --patience 20 \\
        --set observed_branch=True --set edge_score=cosine --set structure_k=4 \\
        [--folds-to-run 0 1 2] [--check benchmarks/results/.../table1_runs.jsonl]

Appends one JSON line per fold to ``RESULTS/graph_drift_<dataset>_<backbone>[_<tag>].jsonl``
as it goes (finished folds are skipped) and rewrites the ``.md`` beside it.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch
from _machine import cpu_model, recorded_command  # benchmarks/_machine.py
from _overrides import add_data_home, add_set, parse_set  # benchmarks/_overrides.py
from reproduce_table1 import degree_features, fair_stopping, load, make_net
from sklearn.model_selection import StratifiedKFold
from skorch.callbacks import Callback
from structure_density import density, joined_pairs  # benchmarks/structure_density.py

RESULTS = Path(__file__).resolve().parent / "results" / "graph_drift"
STRUCTURE = "structure."


class InitialParameters(Callback):
    """Keeps a copy of the module's parameters when training begins."""

    def on_train_begin(self, net, **kwargs):
        self.state_ = copy.deepcopy(net.module_.state_dict())


def jaccard(e0: np.ndarray, e1: np.ndarray) -> float:
    """:math:`|E_0 \\cap E_1| / |E_0 \\cup E_1|` of two pair masks
    (:func:`structure_density.joined_pairs`), 1 when both are empty."""
    union = np.count_nonzero(e0 | e1)
    return 1.0 if union == 0 else np.count_nonzero(e0 & e1) / union


def structure_change(before: dict, after: dict) -> float:
    """Relative change of the parameters ``structure.*``:
    :math:`\\lVert \\theta_1 - \\theta_0 \\rVert / \\lVert \\theta_0 \\rVert`."""
    keys = [k for k in before if k.startswith(STRUCTURE)]
    diff = sum(float((after[k] - before[k]).double().pow(2).sum()) for k in keys)
    norm = sum(float(before[k].double().pow(2).sum()) for k in keys)
    return (diff / norm) ** 0.5 if norm > 0 else 0.0


def run_fold(args, fold: int) -> dict:
    torch.set_num_threads(args.threads)
    graphs, y = load(args.dataset, args.data_home, None, args.seed)
    folds = StratifiedKFold(10, shuffle=True, random_state=args.seed)
    train, test = list(folds.split(np.zeros(len(y)), y))[fold]
    X_tr, y_tr = [graphs[i] for i in train], y[train]
    X_te = [graphs[i] for i in test]
    unit = {"node_features": args.node_features, "patience": args.patience}
    deg = degree_features(unit).fit(X_tr)
    stop = fair_stopping(args, unit)
    keep = InitialParameters()
    net = make_net(args, args.backbone, True, callbacks=[*stop.pop("callbacks", []),
                                                         ("initial", keep)], **stop)
    start = time.perf_counter()
    net.fit(deg.transform(X_tr), y_tr)
    X_te = deg.transform(X_te)
    test_acc = 100 * float(np.mean(net.predict(X_te) == y[test]))
    trained = copy.deepcopy(net.module_.state_dict())
    e1 = [joined_pairs(adj) for _, adj in net.ib_graphs(X_te)]
    initial = {k: (keep.state_[k] if k.startswith(STRUCTURE) else v) for k, v in trained.items()}
    net.module_.load_state_dict(initial)
    e0 = [joined_pairs(adj) for _, adj in net.ib_graphs(X_te)]
    net.module_.load_state_dict(trained)
    gate = getattr(net.module_, "branch_gate", None)
    return {
        "dataset": args.dataset, "backbone": args.backbone, "seed": args.seed, "fold": fold,
        "overrides": args.set, "patience": args.patience, "test_acc": test_acc,
        "epochs_run": len(net.history), "jaccard": float(np.mean([jaccard(a, b)
                                                                 for a, b in zip(e0, e1)])),
        "density_initial": float(np.mean([density(e) for e in e0])),
        "density_trained": float(np.mean([density(e) for e in e1])),
        "structure_change": structure_change(keep.state_, trained),
        "branch_gate": None if gate is None else float(gate.detach()),
        "seconds": time.perf_counter() - start,
        "cpu": f"{cpu_model()}, {torch.backends.cpu.get_cpu_capability()}",
    }


def report(records: list[dict], command: str, check: str | None) -> str:
    def med(key):
        return statistics.median(r[key] for r in records)

    lines = [
        f"# How far training moves the learned graph: {records[0]['dataset']}, "
        f"{records[0]['backbone']}", "",
        f"`{command}`", "",
        f"Settings: {', '.join(records[0]['overrides']) or '(defaults)'}; patience "
        f"{records[0]['patience']}; seed {records[0]['seed']}; {records[0]['cpu']}.",
        "" if check is None else f"Each fold's test accuracy equals its record in `{check}`.",
        "",
        "| fold | test acc | epochs | J (initial, trained graph) | density initial | "
        "density trained | ‖Δθ‖/‖θ₀‖ | α |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        gate = "—" if r["branch_gate"] is None else f"{r['branch_gate']:+.3f}"
        lines.append(f"| {r['fold']} | {r['test_acc']:.1f} | {r['epochs_run']} | "
                     f"{r['jaccard']:.3f} | {r['density_initial']:.3f} | "
                     f"{r['density_trained']:.3f} | {r['structure_change']:.3f} | {gate} |")
    lines.append(f"| median | {med('test_acc'):.1f} | {med('epochs_run'):g} | "
                 f"{med('jaccard'):.3f} | {med('density_initial'):.3f} | "
                 f"{med('density_trained'):.3f} | {med('structure_change'):.3f} | |")
    return "\n".join(lines) + "\n"


def check_against(records: list[dict], path: str) -> None:
    """Raise unless each fold's test accuracy is its record's (same fit, same folds)."""
    runs = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
    for r in records:
        match = [u["test_acc"] for u in runs if u["dataset"] == r["dataset"]
                 and u["backbone"] == r["backbone"] and u["fold"] == r["fold"]
                 and u.get("seed", 0) == r["seed"]]
        if not match or abs(match[0] - r["test_acc"]) > 1e-9:
            raise SystemExit(f"fold {r['fold']}: test accuracy {r['test_acc']} is not the "
                             f"record's {match} in {path}: not the same fit")


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--backbone", default="gcn")
    parser.add_argument("--folds-to-run", type=int, nargs="+", default=[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--patience", type=int, default=20)
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--node-features", default="given+degree",
                        choices=["degree", "given+degree", "given+degree+rw"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tag", default=None)
    parser.add_argument("--check", default=None,
                        help="a study record (table1_runs.jsonl) the fits must reproduce")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    add_data_home(parser)
    add_set(parser)
    args = parser.parse_args(argv)
    args.valid_frac, args.lr_step = 0.1, None  # the study's split; no step decay
    parse_set(args.set)  # a malformed --set fails here, before any fit
    return args


def main(argv=None) -> None:
    args = parse(argv)
    argv = sys.argv[1:] if argv is None else list(argv)
    stem = f"graph_drift_{args.dataset}_{args.backbone}" + (f"_{args.tag}" if args.tag else "")
    args.results_dir.mkdir(parents=True, exist_ok=True)
    path = args.results_dir / f"{stem}.jsonl"
    records = ([json.loads(line) for line in path.read_text().splitlines() if line]
               if path.is_file() else [])
    for fold in args.folds_to_run:
        if any(r["fold"] == fold for r in records):
            continue
        record = run_fold(args, fold)
        print(json.dumps(record), flush=True)
        records.append(record)
        with path.open("a") as f:
            f.write(json.dumps(record) + "\n")
    records.sort(key=lambda r: r["fold"])
    if args.check:
        check_against(records, args.check)
    (args.results_dir / f"{stem}.md").write_text(
        report(records, recorded_command([__file__, *argv]), args.check))


if __name__ == "__main__":
    main()
