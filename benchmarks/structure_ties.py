"""Ties in the top-k selection: how many nodes the structure learner cannot choose for.

A structure learner that scores a pair from its two nodes' features gives
nodes with identical features identical embeddings. With
``edge_score="cosine"`` every pair of identical nodes then scores the
highest value there is (cosine 1), so a node with at least ``k`` identical
partners fills its top-``k`` with them, whatever was learned; among equal
scores the lower node index wins (``sk_vibgsl.nn.structure.top_k_mask``).
For such a node the selection is fixed by the data and the node order, not
by training.

Per dataset (node features as in the structure study: the dataset's own with
the one-hot degree appended, ``DegreeFeatures(append=True)``) this counts:

* the share of a graph's node pairs that join identical nodes (mean over
  graphs, as the IB-graph's density);
* the share of nodes with at least ``k`` identical partners (whose top-``k``
  the learner cannot choose), and with none;

and with ``--epochs N`` it fits the given settings (by default
``observed_branch=True, edge_score="cosine", structure_k=k``, the structure
study's ``branch_cos_top4`` for k = 4) on a stratified 90 % of the graphs
(seed 0) and checks, on the held-out 10 %, that each such node is joined to
its ``k`` lowest-index identical partners in ``clf.ib_graphs`` (what the tie
rule predicts), how many of the kept edges join identical nodes, and the
largest learned degree per graph (:func:`largest_degree`: the hubs the tie
rule makes).

Usage::

    python benchmarks/structure_ties.py --datasets MUTAG IMDB-BINARY IMDB-MULTI NCI1 COLLAB \\
        --epochs 30

With ``--rw K`` the node features also get ``K`` random-walk return
probabilities (``RandomWalkFeatures``, as the study's ``NAME__rw`` rows with
K = 8), which tell apart many nodes that the degree and label do not.

Writes ``benchmarks/results/structure_study/ties.md`` (``ties_rwK.md`` with
``--rw K``) and ``.json``, after
every dataset (resumable: datasets already in the JSON are skipped unless
``--force``).
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
from structure_density import identical_pairs, identical_share, joined_pairs, pair_counts

from sk_vibgsl import DegreeFeatures, RandomWalkFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset

RESULTS = Path(__file__).resolve().parent / "results" / "structure_study"


def one_layer_inputs(x: np.ndarray, edge_index: np.ndarray) -> np.ndarray:
    r"""``[X, \hat A X]`` of one graph (``n × 2F``), :math:`\hat A` GCN's
    normalised observed graph with self-loops: what a GCN layer on the observed
    graph reads of each node. Two nodes with equal rows here get equal first
    hidden rows whatever the weights, so ``structure_input="observed"`` cannot
    tell them apart either; rounded to 9 decimals, so that equal neighbour
    sums added in another order compare equal."""
    n = len(x)
    adj = np.zeros((n, n))
    adj[edge_index[0], edge_index[1]] = 1.0
    adj[np.diag_indices(n)] = 1.0
    scale = adj.sum(1) ** -0.5
    return np.round(np.concatenate([x, (scale[:, None] * adj * scale) @ x], 1), 9)


def tied_nodes(same: np.ndarray, k: int) -> np.ndarray:
    """Booleans per node: at least ``k`` identical partners (``same``:
    :func:`~structure_density.identical_pairs` of one graph)."""
    return same.sum(1) >= k


def lowest_partners_kept(same: np.ndarray, adj: np.ndarray, k: int) -> dict[str, int]:
    """Among the nodes with at least ``k`` identical partners (``nodes``), how
    many ``adj`` joins to all of their ``k`` lowest-index identical partners
    (``lowest``: the tie rule's prediction for a top-``k`` selection); and as
    a control, among the nodes with at least ``2k`` (``nodes_2k``), how many
    it joins to all of their ``k`` lowest (``lowest_2k``) and to all of their
    ``k`` highest-index ones (``highest_2k``), disjoint sets there."""
    kept = np.asarray(adj) != 0  # joined_pairs of an IB-graph
    counts = dict(nodes=0, lowest=0, nodes_2k=0, lowest_2k=0, highest_2k=0)
    for u in np.flatnonzero(tied_nodes(same, k)):
        partners = np.flatnonzero(same[u])
        low = bool(kept[u, partners[:k]].all())
        counts["nodes"] += 1
        counts["lowest"] += low
        if len(partners) >= 2 * k:
            counts["nodes_2k"] += 1
            counts["lowest_2k"] += low
            counts["highest_2k"] += bool(kept[u, partners[-k:]].all())
    return counts


def largest_degree(adj) -> int:
    """The largest number of learned edges at one node of an IB-graph. Every node of
    a class of identical nodes picks the same ``k`` lowest-index partners, so
    those partners collect the whole class: hubs of degree up to the class size,
    where a node's own top-``k`` alone gives at most ``k`` (plus the nodes that
    chose it)."""
    return int(joined_pairs(adj).sum(1).max(initial=0))


def _ratio(counts: dict, part: str, whole: str) -> float | None:
    """``counts[part] / counts[whole]``, ``None`` when there is no such node."""
    return counts[part] / counts[whole] if counts[whole] else None


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["MUTAG", "IMDB-BINARY"])
    add_data_home(parser)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--rw", type=int, default=0, metavar="K",
                        help="append K random-walk return probabilities to the node features "
                             "(RandomWalkFeatures; the study's NAME__rw rows use 8); results "
                             "go in ties_rwK.md/json")
    parser.add_argument("--epochs", type=int, default=0,
                        help="fit the settings for this many epochs and check the "
                             "held-out IB-graphs (0: count the data only)")
    add_set(parser)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results-dir", default=str(RESULTS))
    parser.add_argument("--force", action="store_true",
                        help="recount datasets already in the JSON (otherwise skipped)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    settings = {"observed_branch": True, "edge_score": "cosine", "structure_k": args.k,
                **parse_set(args.set)}

    results = Path(args.results_dir)
    results.mkdir(parents=True, exist_ok=True)
    stem = "ties" + (f"_rw{args.rw}" if args.rw else "")
    path = results / f"{stem}.json"
    saved = json.loads(path.read_text()) if path.exists() else {"datasets": {}}
    command = recorded_command()
    saved.update(command=command, k=args.k, rw=args.rw, epochs=args.epochs, settings=settings,
                 torch=torch.__version__, python=platform.python_version())
    for name in args.datasets:
        if name in saved["datasets"] and not args.force:
            continue
        start = time.perf_counter()
        graphs, y = load_tu_dataset(name, data_home=args.data_home,
                                    download_if_missing=False, return_X_y=True)
        y = np.asarray(y)
        tr, te = train_test_split(np.arange(len(y)), test_size=0.1, stratify=y, random_state=0)
        X_tr, X_te = [graphs[i] for i in tr], [graphs[i] for i in te]
        steps = [DegreeFeatures(append=True)]
        if args.rw:
            steps.append(RandomWalkFeatures(walk_length=args.rw))
        model = make_pipeline(*steps,
                              VIBGSLClassifier(max_epochs=max(args.epochs, 1), random_state=0,
                                               torch_threads=args.threads, **settings))
        features = model[:-1].fit(X_tr).transform(X_te)
        same = [identical_pairs(s.x.numpy()) for s in features]
        per_node = np.concatenate([m.sum(1) for m in same])
        after_one_layer = [
            identical_pairs(one_layer_inputs(s.x.numpy().astype(np.float64), s.edge_index.numpy()))
            for s in features
        ]
        row = dict(graphs=len(same), identical_share=identical_share(same),
                   identical_after_one_layer=identical_share(after_one_layer),
                   tied_nodes=float(np.mean(per_node >= args.k)),
                   untied_nodes=float(np.mean(per_node == 0)))
        if args.epochs:
            model.fit(X_tr, y[tr])
            ib = model[-1].ib_graphs(features)
            counts = dict.fromkeys(["nodes", "lowest", "nodes_2k", "lowest_2k",
                                     "highest_2k"], 0)
            largest = []
            for m, (_, adj) in zip(same, ib):
                joined = joined_pairs(adj)
                for key, value in lowest_partners_kept(m, joined, args.k).items():
                    counts[key] += value
                largest.append(largest_degree(joined))
            pairs = pair_counts(same, ib)
            row.update(largest_degree_median=float(np.median(largest)),
                       largest_degree_max=int(max(largest)),
                       nodes_median=float(np.median([len(m) for m in same])))
            row.update(lowest_partners_joined=_ratio(counts, "lowest", "nodes"),
                       lowest_2k=_ratio(counts, "lowest_2k", "nodes_2k"),
                       highest_2k=_ratio(counts, "highest_2k", "nodes_2k"),
                       kept_identical=pairs["kept_identical"] / max(pairs["kept"], 1),
                       test_acc=100 * float(model.score(X_te, y[te])))
        row["seconds"] = time.perf_counter() - start
        saved["datasets"][name] = row
        path.write_text(json.dumps(saved, indent=2))
        print(name, row, flush=True)

    fitted = bool(args.epochs)
    lines = ["# Ties in the top-k selection", "",
             f"Command: `{command}`  ",
             f"k = {args.k}. Node features: the dataset's own with the one-hot degree appended "
             "(`DegreeFeatures(append=True)`, fitted on a stratified 90 % of the graphs, seed 0)"
             + (f" and {args.rw} random-walk return probabilities (`RandomWalkFeatures`)"
                if args.rw else "") + "; "
             "counts over the held-out 10 %. *Identical pairs*: share of a graph's node pairs "
             "whose two nodes have identical features (mean over graphs); *after one GCN "
             "layer*: the same for the rows of [X, ÂX] (GCN's normalised observed graph with "
             "self-loops), which no first layer on the observed graph can tell apart, so "
             "neither can `structure_input=\"observed\"`. *Nodes with ≥ k "
             "identical partners*: their top-k under the cosine score is k of those partners "
             "(cosine 1, the highest score), the lowest-index ones, whatever the learner "
             "learned. " + (
                 f"Fitted: {settings}, {args.epochs} epochs, random_state 0; *lowest partners "
                 "joined*: share of those nodes that the held-out IB-graph joins to all of "
                 "their k lowest-index identical partners, as the tie rule predicts; *control*: "
                 "among the nodes with ≥ 2k identical partners, the share joined to all of their "
                 "k lowest-index ones against all of their k highest-index ones (without the tie "
                 "rule the two would be alike); *kept edges joining identical nodes*: share of "
                 "the IB-graph's edges; *largest learned degree*: per held-out graph the "
                 "most learned edges at one node, median over graphs (largest), beside the "
                 "median node count: the lowest-index partners of a class of identical "
                 "nodes collect the whole class (hubs), which a sum aggregation (GIN) adds "
                 "up unnormalised." if fitted else ""),
             "", "| dataset | graphs | identical pairs | after one GCN layer "
             "| nodes with ≥ k identical partners "
             "| nodes with none |" + (" lowest partners joined | control: lowest / highest "
                                      "(≥ 2k partners) | kept edges joining identical nodes "
                                      "| largest learned degree | median nodes "
                                      "| held-out accuracy |" if fitted else ""),
             "|---|---:|---:|---:|---:|---:|" + ("---:|---:|---:|---:|---:|---:|" if fitted
                                            else "")]
    for name, r in saved["datasets"].items():
        one = r.get("identical_after_one_layer")  # absent from records before it was counted
        line = (f"| {name} | {r['graphs']} | {r['identical_share']:.3f} | "
                f"{'—' if one is None else f'{one:.3f}'} | "
                f"{r['tied_nodes']:.3f} | {r['untied_nodes']:.3f} |")
        if fitted and "lowest_partners_joined" in r:
            line += (f" {_share(r['lowest_partners_joined'])} | {_share(r['lowest_2k'])} / "
                     f"{_share(r['highest_2k'])} | {r['kept_identical']:.3f} | "
                     + (f"{r['largest_degree_median']:g} ({r['largest_degree_max']}) | "
                        f"{r['nodes_median']:g} | " if "largest_degree_max" in r else
                        "— | — | ")
                     + f"{r['test_acc']:.1f} |")
        lines.append(line)
    (results / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {results / (stem + '.md')}")


if __name__ == "__main__":
    main()
