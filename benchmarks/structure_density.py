"""How β and the structure's own KL weight γ shape the learned IB-graph.

On one stratified split of a dataset (90 % training graphs, 10 % held out,
seed 0), fits VIB-GSL with every value of β (``edge_beta=0``, the paper's
loss) and with every value of γ (``edge_beta``, at β = 1e-3), all else at
the given settings, and records the mean density of the IB-graphs of the
held-out graphs (kept edges over node pairs), the per-epoch training density
(``train_density``) and the held-out accuracy. It answers: does the graph
respond to the compression weight, and monotonically?

It also counts the held-out node pairs whose two nodes have identical
features: a structure learner that scores a pair from its nodes' features
gives all such pairs of a graph one score (with ``edge_score="cosine"`` the
highest, cosine 1), so it keeps or drops them together. The share of
them each fit kept, and their share of its kept edges, show whether a density
that stops falling is held up by pairs the learner cannot tell apart.

Usage::

    python benchmarks/structure_density.py --dataset IMDB-BINARY --epochs 50
    python benchmarks/structure_density.py --dataset IMDB-BINARY --epochs 50 \\
        --set edge_score=cosine --set structure_k=4 --tag cosine_top4

Writes ``benchmarks/results/structure_study/density_<dataset>[_<tag>].md`` and
``.json``, after every fit (resumable: fits already in the JSON are skipped).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
from _machine import recorded_command  # benchmarks/_machine.py
from _overrides import add_data_home, add_set, parse_set  # benchmarks/_overrides.py
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from sk_vibgsl import DegreeFeatures, RandomWalkFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset

RESULTS = Path(__file__).resolve().parent / "results" / "structure_study"
BETAS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
GAMMAS = [0.0, 0.01, 0.1, 1.0, 10.0]


def density(adj: np.ndarray) -> float:
    n = len(adj)
    off = np.count_nonzero(adj) - np.count_nonzero(np.diagonal(adj))
    return off / (n * (n - 1)) if n > 1 else 0.0


def identical_pairs(x: np.ndarray) -> np.ndarray:
    """``n × n`` booleans: pairs of distinct nodes whose feature rows are equal."""
    x = np.asarray(x)
    same = (x[:, None, :] == x[None, :, :]).all(-1)
    np.fill_diagonal(same, False)
    return same


def identical_share(same: list[np.ndarray]) -> float:
    """Mean over graphs of the share of a graph's node pairs that are identical
    (``same``: :func:`identical_pairs` per graph), the density's averaging."""
    return float(np.mean([density(m) for m in same]))


def joined_pairs(adj) -> np.ndarray:
    """``n × n`` booleans: pairs of distinct nodes that an IB-graph (dense, or the
    sparse path's scipy array) joins with a non-zero weight."""
    joined = np.asarray(adj.toarray() if hasattr(adj, "toarray") else adj) != 0
    np.fill_diagonal(joined, False)
    return joined


def pair_counts(same: list[np.ndarray], ib: list) -> dict:
    """Pooled over graphs (``same``: :func:`identical_pairs` per graph; ``ib``:
    ``clf.ib_graphs``): node pairs, kept pairs, identical-feature pairs and kept
    identical-feature pairs (ordered pairs, no diagonal)."""
    counts = dict(pairs=0, kept=0, identical=0, kept_identical=0)
    for m, (_, adj) in zip(same, ib):
        kept = joined_pairs(adj)
        n = len(m)
        counts["pairs"] += n * (n - 1)
        counts["kept"] += int(kept.sum())
        counts["identical"] += int(m.sum())
        counts["kept_identical"] += int((kept & m).sum())
    return counts


def _median_share(runs: list[dict], part: str, whole: str) -> str:
    shares = [r["pairs"][part] / r["pairs"][whole] for r in runs
              if "pairs" in r and r["pairs"][whole]]
    return f"{np.median(shares):.3f}" if shares else "—"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="IMDB-BINARY")
    add_data_home(parser)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--betas", nargs="+", type=float, default=BETAS)
    parser.add_argument("--gammas", nargs="+", type=float, default=GAMMAS)
    parser.add_argument("--edge-prior", type=float, default=0.05)
    add_set(parser)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0],
                        help="random_state of the fits (the split stays seed 0)")
    parser.add_argument("--tag", default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results-dir", default=str(RESULTS))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    overrides = parse_set(args.set)

    graphs, y = load_tu_dataset(args.dataset, data_home=args.data_home,
                                download_if_missing=False, return_X_y=True)
    y = np.asarray(y)
    tr, te = train_test_split(np.arange(len(y)), test_size=0.1, stratify=y, random_state=0)
    X_tr, X_te = [graphs[i] for i in tr], [graphs[i] for i in te]

    results = Path(args.results_dir)
    results.mkdir(parents=True, exist_ok=True)
    stem = f"density_{args.dataset}" + (f"_{args.tag}" if args.tag else "")
    path = results / f"{stem}.json"
    saved = json.loads(path.read_text()) if path.exists() else {"runs": []}
    command = recorded_command()
    saved.update(command=command, epochs=args.epochs, overrides=overrides,
                 edge_prior=args.edge_prior, torch=torch.__version__,
                 python=platform.python_version())
    done = {(r["beta"], r["edge_beta"], r.get("seed", 0)) for r in saved["runs"]}
    plan = [(b, 0.0) for b in args.betas] + [(1e-3, g) for g in args.gammas if g > 0]
    for (beta, gamma), seed in ((p, s) for s in args.seeds for p in plan):
        if (beta, gamma, seed) in done:
            continue
        start = time.perf_counter()
        params = dict(beta=beta, edge_beta=gamma, edge_prior=args.edge_prior,
                      max_epochs=args.epochs, random_state=seed, torch_threads=args.threads)
        model = make_pipeline(DegreeFeatures(append=True),  # as `held_out` below
                              VIBGSLClassifier(**{**params, **overrides}))
        model.fit(X_tr, y[tr])
        clf = model[-1]
        X_feat = model[:-1].transform(X_te)
        ib = clf.ib_graphs(X_feat)
        saved["runs"].append(dict(
            beta=beta, edge_beta=gamma, seed=seed,
            density=float(np.mean([density(a) for _, a in ib])),
            pairs=pair_counts([identical_pairs(s.x.numpy()) for s in X_feat], ib),
            train_density=[float(v) for v in clf.history[:, "train_density"]],
            test_acc=100 * float(model.score(X_te, y[te])),
            seconds=time.perf_counter() - start))
        path.write_text(json.dumps(saved, indent=2))
        r = saved["runs"][-1]
        print(f"beta={beta:g} edge_beta={gamma:g} seed={seed}: density {r['density']:.3f}, "
              f"acc {r['test_acc']:.1f} ({r['seconds']:.0f} s)", flush=True)

    runs = saved["runs"]
    lines = [f"# IB-graph density against β and γ ({args.dataset})", "",
             f"Command: `{command}`  ", f"Settings: {overrides or 'defaults'}, "
             f"edge prior r = {args.edge_prior}, {args.epochs} epochs, one stratified "
             "90/10 split (seed 0); fits with random_state in the seeds listed. Density: mean "
             "over the held-out graphs of the share of node pairs joined by a learned edge "
             "(inference IB-graph); per (β, γ) the median over seeds, then each seed's. "
             "Accuracy on the 10 % held out (100 graphs on IMDB-BINARY: ±5 points is noise).",
             "Identical pairs: held-out node pairs whose two nodes have identical features "
             "(the learner gives them one score per graph; pooled over graphs), their share "
             "the fit kept, and their share of its kept edges (medians over seeds; — for "
             "records written before these counts)."]
    held_out = DegreeFeatures(append=True).fit(X_tr).transform(X_te)  # the fits' features
    same = [identical_pairs(s.x.numpy()) for s in held_out]
    pooled = sum(int(m.sum()) for m in same) / sum(len(m) * (len(m) - 1) for m in same)
    lines[-1] += (f" Here the held-out graphs' identical pairs are {identical_share(same):.3f} "
                  "of a graph's node pairs (mean over graphs, as the density column) and "
                  f"{pooled:.3f} of all their node pairs pooled: a held-out density that "
                  "keeps every identical pair cannot fall below the former.")
    walks = make_pipeline(DegreeFeatures(append=True), RandomWalkFeatures(walk_length=8))
    same_rw = [identical_pairs(s.x.numpy()) for s in walks.fit(X_tr).transform(X_te)]
    lines[-1] += (" With 8 random-walk return probabilities appended (`RandomWalkFeatures`), "
                  f"{identical_share(same_rw):.3f} of a graph's pairs stay identical.")
    lines += ["", "| β | γ (edge_beta) | held-out density, median (per seed) "
              "| last-epoch train density (median) | held-out accuracy (median) "
              "| identical pairs kept | kept edges that are identical pairs |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    groups: dict = {}
    for r in runs:
        groups.setdefault((r["edge_beta"], -r["beta"]), []).append(r)
    for key in sorted(groups):
        rs = sorted(groups[key], key=lambda r: r.get("seed", 0))
        dens = ", ".join(f"{r['density']:.3f}" for r in rs)
        lines.append(f"| {rs[0]['beta']:g} | {rs[0]['edge_beta']:g} | "
                     f"{np.median([r['density'] for r in rs]):.3f} ({dens}) | "
                     f"{np.median([r['train_density'][-1] for r in rs]):.3f} | "
                     f"{np.median([r['test_acc'] for r in rs]):.1f} | "
                     f"{_median_share(rs, 'kept_identical', 'identical')} | "
                     f"{_median_share(rs, 'kept_identical', 'kept')} |")
    (results / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {results / (stem + '.md')}")


if __name__ == "__main__":
    main()
