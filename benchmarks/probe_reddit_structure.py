"""Why VIB-GSL stays at chance on REDDIT-BINARY: a small CPU probe.

300 REDDIT-BINARY graphs of at most 400 nodes (150 per class, seed 0), the
standardised degree as the only node feature (what ``DegreeFeatures`` gives
on the full dataset, whose largest degree is above ``onehot_limit``), one
stratified 70/30 split, 30 epochs, beta = 1e-3. For each model: held-out
accuracy, the first and last epoch's training cross-entropy, and the density
of the learned IB-graphs of 20 test graphs (edges / possible edges).
``--splits S`` repeats every model over S stratified splits (seeds 0..S-1;
the model seed follows the split) and adds the mean and population std of
the held-out accuracy. ``--max-nodes M`` draws the 300 graphs from those of
at most M nodes instead (``--max-nodes 4000``: from the whole dataset, whose
largest graph has 3,782 nodes).

Usage::

    python benchmarks/probe_reddit_structure.py --data-home ../shared/datasets
    python benchmarks/probe_reddit_structure.py --data-home ../shared/datasets --splits 5
    python benchmarks/probe_reddit_structure.py --data-home ../shared/datasets --max-nodes 4000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import train_test_split

from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset

MODELS = {
    "GIN on the observed graph (N/A)": dict(backbone="gin", structure_mix=1.0),
    "VIB-GSL, GIN": dict(backbone="gin"),
    "VIB-GSL, GCN": dict(backbone="gcn"),
    "VIB-GSL, GIN, structure_mix=0.5": dict(backbone="gin", structure_mix=0.5),
    "GIN with batch norm on the observed graph (N/A)": dict(
        backbone="gin", structure_mix=1.0, module__batch_norm=True),
    "VIB-GSL, GIN with batch norm": dict(backbone="gin", module__batch_norm=True),
    "VIB-GSL, GIN, mixed-size batches": dict(
        backbone="gin", max_pairs=None, iterator_train__bucket_by_size=False),
    "VIB-GSL, GIN with batch norm, mixed-size batches": dict(
        backbone="gin", module__batch_norm=True, max_pairs=None,
        iterator_train__bucket_by_size=False),
    # the same with the default pair budget: a batch ends where the next graph
    # would exceed it, so batches that meet a large graph hold few graphs
    "VIB-GSL, GIN with batch norm, mixed-size batches within the pair budget": dict(
        backbone="gin", module__batch_norm=True, iterator_train__bucket_by_size=False),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                        metavar="NAME", help="run only these models (default: all)")
    parser.add_argument("--splits", type=int, default=1,
                        help="stratified 70/30 splits per model (seeds 0..S-1)")
    parser.add_argument("--max-nodes", type=int, default=400,
                        help="draw the graphs from those of at most this many nodes")
    args = parser.parse_args(argv)
    graphs, y = load_tu_dataset("REDDIT-BINARY", data_home=args.data_home,
                                download_if_missing=False, return_X_y=True)
    y = np.unique(y, return_inverse=True)[1]
    sizes = np.array([g.num_nodes for g in graphs])
    rng = np.random.default_rng(0)
    small = np.flatnonzero(sizes <= args.max_nodes)
    idx = np.concatenate([rng.choice(small[y[small] == c], 150, replace=False) for c in (0, 1)])
    print(f"{len(idx)} graphs of {sizes[idx].min()}-{sizes[idx].max()} nodes", flush=True)
    splits = []  # the same splits and degree features for every model
    for split in range(args.splits):
        X_tr, X_te, y_tr, y_te = train_test_split(
            [graphs[i] for i in idx], y[idx], test_size=0.3, stratify=y[idx], random_state=split)
        degree = DegreeFeatures(mode="normalized").fit(X_tr)
        splits.append((degree.transform(X_tr), degree.transform(X_te), y_tr, y_te))
    for name in args.models:
        scores = []
        for split, (X_tr, X_te, y_tr, y_te) in enumerate(splits):
            start = time.perf_counter()
            clf = VIBGSLClassifier(beta=1e-3, max_epochs=args.epochs, random_state=split,
                                   torch_threads=1, verbose=0, **MODELS[name]).fit(X_tr, y_tr)
            ce = clf.history[:, "train_ce"]
            density = np.mean([(a > 0).sum() / max(1, len(a) * (len(a) - 1))
                               for _, a in clf.ib_graphs(X_te[:20])])
            scores.append(clf.score(X_te, y_te))
            print(f"{name} [split {split}]: accuracy {scores[-1]:.3f}, train CE {ce[0]:.2f} -> "
                  f"{ce[-1]:.2f}, learned-graph density {density:.2f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
        if args.splits > 1:
            print(f"{name}: accuracy {np.mean(scores):.3f} ± {np.std(scores):.3f} "
                  f"over {args.splits} splits", flush=True)

if __name__ == "__main__":
    main()
