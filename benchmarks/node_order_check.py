"""Do predictions depend on the order of a graph's nodes?

A graph classifier should give a graph the same probabilities whatever the
numbering of its nodes. The top-``k`` selection of ``structure_k`` breaks
ties between equal scores by node index (``sk_vibgsl.nn.structure.top_k_mask``),
and with node features such as a one-hot degree or atom type most nodes
have several partners with identical features, all tied
(``benchmarks/structure_ties.py``). Relabelling the nodes then changes which
tied partners are kept.

For each setting (``--setting NAME KEY=VALUE ...``, repeatable), this fits
VIBGSLClassifier on a stratified 90 % of the graphs (seed 0; node features:
the dataset's own with the one-hot degree appended), predicts the held-out
10 %, and predicts them again after ``--relabellings`` random relabellings of
every graph's nodes: it records the largest change of a class probability
and the share of predicted labels that changed.

Usage::

    python benchmarks/node_order_check.py --datasets MUTAG IMDB-BINARY --epochs 30 \\
        --setting default \\
        --setting branch_cos_top4 observed_branch=True edge_score=cosine structure_k=4 \\
        --setting mix05_cosine_top4 structure_mix=0.5 edge_score=cosine structure_k=4

Writes ``benchmarks/results/structure_study/node_order.md`` and ``.json``
after every fit (resumable: (dataset, setting) pairs already there are skipped).
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
from _overrides import add_data_home, literal  # benchmarks/_overrides.py
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from torch_geometric.data import Data

from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset

RESULTS = Path(__file__).resolve().parent / "results" / "structure_study"


def relabel(graph: Data, order: np.ndarray) -> Data:
    """``graph`` with node ``order[i]`` renumbered ``i`` (same edges, same features)."""
    new_id = np.empty_like(order)
    new_id[order] = np.arange(len(order))
    index = torch.as_tensor(new_id)[graph.edge_index]
    return Data(x=graph.x[torch.as_tensor(order)], edge_index=index, num_nodes=len(order))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["MUTAG", "IMDB-BINARY"])
    add_data_home(parser)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--relabellings", type=int, default=5)
    parser.add_argument("--setting", nargs="+", action="append", required=True,
                        metavar=("NAME", "KEY=VALUE"),
                        help="a name and the estimator parameters of one setting")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results-dir", default=str(RESULTS))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    settings = {name: {k: literal(v) for k, v in (item.split("=", 1) for item in items)}
                for name, *items in args.setting}

    results = Path(args.results_dir)
    results.mkdir(parents=True, exist_ok=True)
    path = results / "node_order.json"
    saved = json.loads(path.read_text()) if path.exists() else {"runs": []}
    for r in saved["runs"]:  # runs saved before each run kept its own command
        r.setdefault("command", saved.get("command"))
    command = recorded_command()
    saved.update(command=command, epochs=args.epochs, relabellings=args.relabellings,
                 torch=torch.__version__, python=platform.python_version())
    done = {(r["dataset"], r["setting"]) for r in saved["runs"]}
    for name in args.datasets:
        graphs, y = load_tu_dataset(name, data_home=args.data_home,
                                    download_if_missing=False, return_X_y=True)
        y = np.asarray(y)
        tr, te = train_test_split(np.arange(len(y)), test_size=0.1, stratify=y, random_state=0)
        X_tr, X_te = [graphs[i] for i in tr], [graphs[i] for i in te]
        for tag, params in settings.items():
            if (name, tag) in done:
                continue
            start = time.perf_counter()
            model = make_pipeline(DegreeFeatures(append=True),
                                  VIBGSLClassifier(max_epochs=args.epochs, random_state=0,
                                                   torch_threads=args.threads, **params))
            model.fit(X_tr, y[tr])
            proba = model.predict_proba(X_te)
            rng = np.random.default_rng(0)
            change, flipped = 0.0, 0.0
            for _ in range(args.relabellings):
                moved = [relabel(g, rng.permutation(g.num_nodes)) for g in X_te]
                other = model.predict_proba(moved)
                change = max(change, float(np.abs(proba - other).max()))
                flipped = max(flipped, float(np.mean(proba.argmax(1) != other.argmax(1))))
            saved["runs"].append(dict(dataset=name, setting=tag, params=params,
                                      max_change=change, labels_changed=flipped,
                                      seconds=time.perf_counter() - start, command=command))
            path.write_text(json.dumps(saved, indent=2))
            print(saved["runs"][-1], flush=True)

    commands = list(dict.fromkeys(r["command"] for r in saved["runs"] if r["command"]))
    lines = ["# Node order: predictions before and after relabelling the nodes", "",
             "Commands (each row comes from one of them; rerunning one skips its rows "
             "already here):", "", *[f"* `{c}`" for c in commands], "",
             f"Each setting fitted for {args.epochs} epochs (random_state 0) on a stratified "
             "90 % of the graphs (seed 0); the held-out 10 % predicted as given and after "
             f"{args.relabellings} random relabellings of every graph's nodes. *Largest "
             "change*: the largest absolute change of a class probability over the held-out "
             "graphs and relabellings (float rounding alone gives about 1e-7); *labels "
             "changed*: the largest share of held-out predictions whose class changed.", "",
             "| dataset | setting | parameters | largest change | labels changed |",
             "|---|---|---|---:|---:|"]
    for r in saved["runs"]:
        params = ", ".join(f"{k}={v!r}" for k, v in r["params"].items()) or "defaults"
        lines.append(f"| {r['dataset']} | {r['setting']} | {params} | "
                     f"{r['max_change']:.1e} | {r['labels_changed']:.3f} |")
    (results / "node_order.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {results / 'node_order.md'}")


if __name__ == "__main__":
    main()
