"""Why the held-out IB-graph stays complete: the inference graph, four ways.

In training the structure learner draws a near-binary concrete sample of
:math:`A \\sim \\mathrm{Ber}(\\pi)` (temperature 0.1); in inference the library
uses its expectation, :math:`\\pi` itself, keeping every pair with
:math:`\\pi \\ge a_0 = 0.1`. A training sample therefore joins a share of about
mean(π) of the pairs (the history's ``train_density``), while the inference
graph joins every pair above 0.1. This script fits the given setting once per
outer fold (10 stratified folds, seed 0, the dataset's features with the
one-hot degree appended, defaults otherwise) and scores *the same fitted
model* on the test fold with four inference graphs:

``mean``
    the library's: :math:`A = \\pi \\cdot 1[\\pi \\ge a_0]`;
``mode``
    the most probable Bernoulli outcome, :math:`A = 1[\\pi \\ge 1/2]`;
``mode_weighted``
    :math:`A = \\pi \\cdot 1[\\pi \\ge 1/2]`;
``sampled``
    the mean of ``predict_proba`` over 16 training-style samples of the graph
    (the rest of the model in inference mode; ``torch`` seeded per fold).

Reported per variant: accuracy, paired difference to ``mean`` (folds won-tied-
lost) and the density of the test fold's IB-graphs (kept edges / node pairs;
a sample's for ``sampled``). A diagnostic, not a model selection: nothing here
changes a default, and the variants share each fold's fit.

Usage::

    python benchmarks/eval_graph_study.py --dataset IMDB-BINARY
    python benchmarks/eval_graph_study.py --dataset IMDB-BINARY \\
        --set edge_beta=0.1 --set edge_prior=0.05 --tag edge_kl

Writes ``benchmarks/results/structure_study/eval_graph_<dataset>.md`` and
``.json`` (one section per ``--tag``), after every fold (resumable).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
from _machine import recorded_command  # benchmarks/_machine.py
from _overrides import add_data_home, add_set, parse_set  # benchmarks/_overrides.py
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset
from sk_vibgsl.nn.structure import StructureLearner

RESULTS = Path(__file__).resolve().parent / "results" / "structure_study"
VARIANTS = ("mean", "mode", "mode_weighted", "sampled")
SAMPLES = 16


@contextlib.contextmanager
def inference_graph(variant: str):
    """Make ``StructureLearner`` give the ``variant``'s graph in inference."""
    original = StructureLearner.from_projection

    def patched(self, h, mask, candidates=None):
        if self.training or variant == "mean":
            return original(self, h, mask, candidates)
        if variant == "sampled":  # a training-style draw, in inference
            self.training = True
            try:
                return original(self, h, mask, candidates)
            finally:
                self.training = False
        a = original(self, h, mask, candidates)
        keep = a >= 0.5
        return keep.to(a.dtype) if variant == "mode" else a * keep

    StructureLearner.from_projection = patched
    try:
        yield
    finally:
        StructureLearner.from_projection = original


def density(adj: np.ndarray) -> float:
    n = len(adj)
    off = np.count_nonzero(adj) - np.count_nonzero(np.diagonal(adj))
    return off / (n * (n - 1)) if n > 1 else 0.0


def score_fold(clf, X_te, y_te, seed: int) -> dict:
    out = {}
    for variant in VARIANTS:
        with inference_graph(variant):
            torch.manual_seed(seed)
            if variant == "sampled":
                proba = np.mean([clf.predict_proba(X_te) for _ in range(SAMPLES)], axis=0)
                pred = clf.classes_[proba.argmax(1)]
            else:
                pred = clf.predict(X_te)
            dens = float(np.mean([density(a) for _, a in clf.ib_graphs(X_te)]))
        out[variant] = dict(acc=100 * float(np.mean(pred == y_te)), density=dens)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="IMDB-BINARY")
    add_data_home(parser)
    add_set(parser)
    parser.add_argument("--tag", default="defaults")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results-dir", default=str(RESULTS))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    overrides = parse_set(args.set)

    graphs, y = load_tu_dataset(args.dataset, data_home=args.data_home,
                                download_if_missing=False, return_X_y=True)
    y = np.asarray(y)
    results = Path(args.results_dir)
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"eval_graph_{args.dataset}.json"
    saved = json.loads(path.read_text()) if path.exists() else {"settings": {}}
    command = recorded_command()
    entry = saved["settings"].setdefault(args.tag, {"folds": {}})
    entry.update(command=command, overrides=overrides, torch=torch.__version__,
                 python=platform.python_version())
    splits = StratifiedKFold(args.folds, shuffle=True, random_state=0).split(y, y)
    for fold, (tr, te) in enumerate(splits):
        if str(fold) in entry["folds"]:
            continue
        start = time.perf_counter()
        model = make_pipeline(DegreeFeatures(append=True), VIBGSLClassifier(
            **{"random_state": 0, "torch_threads": args.threads, **overrides}))
        model.fit([graphs[i] for i in tr], y[tr])
        X_te = model[:-1].transform([graphs[i] for i in te])
        entry["folds"][str(fold)] = dict(score_fold(model[-1], X_te, y[te], fold),
                                         seconds=time.perf_counter() - start)
        path.write_text(json.dumps(saved, indent=2))
        print(f"{args.tag} fold {fold}: " + ", ".join(
            f"{v} {entry['folds'][str(fold)][v]['acc']:.1f}" for v in VARIANTS), flush=True)
    write_report(saved, args.dataset, results / f"eval_graph_{args.dataset}.md")


def write_report(saved: dict, dataset: str, out: Path) -> None:
    lines = [f"# The inference IB-graph, four ways ({dataset})", "",
             "Written by `benchmarks/eval_graph_study.py` (see its docstring): each fold's "
             "model is fitted once (10 stratified folds, seed 0, 100 epochs, no early "
             "stopping, random_state 0) and its test fold scored with four inference "
             "graphs. `mean` is the library's (π where π ≥ a₀ = 0.1); `mode` is 1[π ≥ ½]; "
             "`mode_weighted` π·1[π ≥ ½]; `sampled` averages `predict_proba` over "
             f"{SAMPLES} training-style samples of the graph. Paired Δ: against `mean` on the "
             "same fits (folds won–tied–lost). Density: kept edges / node pairs of the test "
             "fold's IB-graphs (one sample's for `sampled`). A diagnostic: no default "
             "was chosen from it.", ""]
    for tag, entry in saved["settings"].items():
        folds = [entry["folds"][k] for k in sorted(entry["folds"], key=int)]
        lines += [f"## {tag}", "", f"Settings: {entry['overrides'] or 'defaults'} "
                  f"({len(folds)} folds done)  ", f"Command: `{entry['command']}`", "",
                  "| inference graph | accuracy | paired Δ vs mean | won–tied–lost | density |",
                  "|---|---:|---:|:-:|---:|"]
        base = np.array([f["mean"]["acc"] for f in folds])
        for v in VARIANTS:
            acc = np.array([f[v]["acc"] for f in folds])
            dens = np.mean([f[v]["density"] for f in folds])
            d = acc - base
            delta, wtl = ("—", "—") if v == "mean" else (
                f"{d.mean():+.1f}", f"{(d > 0).sum()}–{(d == 0).sum()}–{(d < 0).sum()}")
            lines.append(f"| {v} | {acc.mean():.1f} ± {acc.std():.1f} | {delta} | {wtl} "
                         f"| {dens:.3f} |")
        lines.append("")
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
