"""The main job: 10-fold cross-validation of VIB-GSL on bundled IMDB-BINARY.

Run ``python -m sk_vibgsl`` (``--help`` for options). Prints one line per
fold as it finishes, then the mean ± std accuracy.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline

from . import DegreeFeatures, VIBGSLClassifier, __version__
from .datasets import load_tu_dataset


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(prog="python -m sk_vibgsl", description=__doc__)
    parser.add_argument("--dataset", default="IMDB-BINARY")
    parser.add_argument("--data-home", default=None, help="folder with TU datasets")
    parser.add_argument("--backbone", default="gcn", choices=["gcn", "gin", "gat"])
    parser.add_argument("--beta", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads per fit (torch_threads); on a machine shared with other "
        "work, at most the number of free cores",
    )
    args = parser.parse_args(argv)

    torch.set_num_threads(max(1, torch.get_num_threads() // args.n_jobs))
    graphs, y = load_tu_dataset(
        args.dataset, data_home=args.data_home, download_if_missing=False, return_X_y=True
    )
    print(
        f"sk_vibgsl {__version__}: {args.folds}-fold CV of VIB-GSL ({args.backbone}, "
        f"beta={args.beta}, {args.epochs} epochs) on {args.dataset}: {len(graphs)} graphs"
    )
    model = make_pipeline(
        DegreeFeatures(),
        VIBGSLClassifier(
            backbone=args.backbone,
            beta=args.beta,
            max_epochs=args.epochs,
            random_state=args.seed,
            torch_threads=args.threads,
        ),
    )
    cv = StratifiedKFold(args.folds, shuffle=True, random_state=args.seed)
    start = time.perf_counter()
    scores = cross_val_score(model, graphs, y, cv=cv, n_jobs=args.n_jobs, verbose=3)
    print(
        f"{args.dataset} accuracy: {100 * scores.mean():.1f} ± {100 * scores.std():.1f} % "
        f"over {args.folds} folds ({time.perf_counter() - start:.0f} s)"
    )
    return float(np.mean(scores))


if __name__ == "__main__":
    main()
