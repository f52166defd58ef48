"""Time of the dense top-``k`` selection on the score blocks of a training epoch.

The learned channel (``LEARNED_CHANNEL_PARAMS``: cosine scores, each node
keeps its ``k = 4`` best partners) selects its pairs in every training batch
with :func:`sk_vibgsl.nn.selection.top_k_pairs`, on the ``B × N × N``
logits of that batch. This script fits the channel for ``--epochs`` epochs
on IMDB-BINARY (one-hot degree features, so that alike nodes tie as they do
in training), then takes one epoch's batches as the classifier builds them,
with the feature mask's noise drawn as in training, and, per ``k`` and tie
rule, times ``top_k_pairs`` on their logits (with the tie tolerance the
model uses; median over ``--repeats`` passes over the epoch, one torch
thread). It also reports how many rows have an entry tied
with their ``k``-th (equal) or within the tolerance of it (rounding), the
rows the tie rule decides.

To compare two versions of the library, run the script from each checkout
in turn (``PYTHONPATH=<checkout>``), alternating, as the machines are
shared.

    python benchmarks/bench_top_k.py [--data-home ../shared/datasets] [--ks 2 4 8] \
        [--repeats 40] [--tag xeon]

Writes ``benchmarks/results/top_k.md`` (``--results-dir``; ``top_k_<tag>.md``
with ``--tag``).
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np
import torch
from _machine import cpu_model, median_ms, recorded_command  # benchmarks/_machine.py

import sk_vibgsl
from sk_vibgsl import LEARNED_CHANNEL_PARAMS, DegreeFeatures, VIBGSLClassifier
from sk_vibgsl._batching import densify_adjacency
from sk_vibgsl.datasets import load_tu_dataset
from sk_vibgsl.nn import candidate_pairs
from sk_vibgsl.nn._feature_product import listed_features
from sk_vibgsl.nn.selection import top_k_pairs
from sk_vibgsl.nn.structure import _dense_tie_tolerance

RESULTS = Path(__file__).resolve().parent / "results"


def epoch_logits(n_graphs: int, epochs: int, data_home: str | None) -> list[tuple]:
    """``(logits, candidates, tol)`` of each batch of one training epoch of
    the learned channel, fitted for ``epochs`` epochs on ``n_graphs``
    IMDB-BINARY graphs."""
    graphs, y = load_tu_dataset(
        "IMDB-BINARY", data_home=data_home, download_if_missing=False, return_X_y=True
    )
    y = np.unique(y, return_inverse=True)[1]
    pick = np.random.default_rng(0).permutation(len(graphs))[:n_graphs]
    graphs = DegreeFeatures().fit_transform([graphs[i] for i in pick])
    clf = VIBGSLClassifier(
        **LEARNED_CHANNEL_PARAMS, batch_size=100, max_epochs=epochs, random_state=0,
        train_split=None, torch_threads=1,
    ).fit(graphs, y[pick])
    module = clf.module_.train()  # the feature mask draws its noise, as in training
    torch.manual_seed(0)
    blocks = []
    with torch.no_grad():
        for batch, _ in clf.get_iterator(clf.get_dataset(graphs, y[pick]), training=True):
            batch = densify_adjacency(batch)
            x, mask = batch["x"], batch["mask"]
            listed = listed_features(x, batch.get("feature_index"), batch.get("feature_value"))
            h = module.project(x, mask, listed)[1]
            logits = module.structure.logits_from_projection(h)
            z, bias = module.structure._embedding(h)  # for the tie tolerance
            blocks.append((logits, candidate_pairs(mask), _dense_tie_tolerance(z, bias, mask)))
    return blocks


def tied_rows(blocks: list[tuple], k: int) -> tuple[int, int, int]:
    """Real rows with at least ``k`` candidates, of them those with another
    entry equal to the ``k``-th, and those with one within the tolerance
    but not equal."""
    rows = equal = near = 0
    for logits, cand, tol in blocks:
        scores = logits.masked_fill(~cand, float("-inf"))
        full = cand.sum(-1) > k
        kth = scores.topk(k, -1).values[..., -1:]
        others = scores.masked_fill(scores > kth + tol, float("-inf"))  # the k-th and below
        n_equal = (others == kth).sum(-1)
        rows += int(full.sum())
        equal += int((full & (n_equal > 1)).sum())
        near += int((full & ((others >= kth - tol) & (others != kth)).any(-1)).sum())
    return rows, equal, near


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data-home", default=None,
                   help="folder with IMDB-BINARY/ (default: the bundled copy)")
    p.add_argument("--n-graphs", type=int, default=800)
    p.add_argument("--epochs", type=int, default=5, help="training before the timed epoch")
    p.add_argument("--ks", type=int, nargs="+", default=[2, 4, 8])
    p.add_argument("--repeats", type=int, default=40)
    p.add_argument("--results-dir", type=Path, default=RESULTS)
    p.add_argument("--tag", default=None)
    return p.parse_args(argv)


def main(argv=None) -> None:
    args = parse(argv)
    torch.set_num_threads(1)
    blocks = epoch_logits(args.n_graphs, args.epochs, args.data_home)
    shapes = ", ".join("×".join(map(str, b[0].shape)) for b in blocks)
    lines = []
    for k in args.ks:
        rows, equal, near = tied_rows(blocks, k)
        for ties in ("lowest", "cyclic"):
            ms = median_ms(
                lambda k=k, ties=ties: [top_k_pairs(a, k, c, ties, t) for a, c, t in blocks],
                args.repeats,
            )
            lines.append(f"| {k} | {ties} | {ms:.2f} | {rows} | {equal} | {near} |")
    n = int(sum(b[0].numel() for b in blocks))
    command = recorded_command([__file__, *(sys.argv[1:] if argv is None else argv)])
    text = "\n".join([
        "# Dense top-k selection on one training epoch's score blocks (IMDB-BINARY)",
        "",
        f"Command: `{command.strip()}`",
        "",
        f"Machine: {cpu_model()} ({platform.machine()}), one torch thread; "
        f"sk_vibgsl {sk_vibgsl.__version__} from `{Path(sk_vibgsl.__file__).parent}`, "
        f"torch {torch.__version__}.",
        "",
        f"{len(blocks)} batches of the learned channel after {args.epochs} epochs on "
        f"{args.n_graphs} graphs, in training mode (B × N × N: {shapes}; {n:,} scores). "
        "Time: `top_k_pairs` over "
        f"all of them, median of {args.repeats} passes. Rows: real nodes with more than k "
        "candidates; tied: another entry equal to the k-th; near: one within the tie tolerance "
        "but not equal (rounding).",
        "",
        "| k | ties | ms per epoch | rows | tied | near |",
        "|---:|---|---:|---:|---:|---:|",
        *lines,
        "",
    ])
    args.results_dir.mkdir(parents=True, exist_ok=True)
    out = args.results_dir / (f"top_k_{args.tag}.md" if args.tag else "top_k.md")
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
