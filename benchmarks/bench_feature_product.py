"""Dense against sparse first-layer products on mostly-zero node features.

The numbers behind ``sk_vibgsl.nn._feature_product``'s thresholds
(``SPARSE_ROUTES``): for ``rows`` node-feature rows of
width ``d`` at a given share of nonzeros (one-hot rows where the density is
``1/d``), the time of ``X Wᵀ`` and the gradient of ``W`` through the dense
product and through the sparse one (``X.to_sparse()`` and
``torch.sparse.mm``, conversion included), and through the nonzeros listed
before training (``SPARSE_FEATURES``: the dataset lists them once, a batch
brings its own; the sparse matrix built from that list,
``batch_feature_matrix``, included), medians over ``--repeats`` runs, one
torch thread. Also which route ``feature_product`` takes there, and whether
a dataset of such features is listed (``has_sparse_features``).

    python benchmarks/bench_feature_product.py [--rows 5000] [--repeats 30] [--tag epyc]

Writes ``benchmarks/results/feature_product.md`` (``--results-dir``;
``feature_product_<tag>.md`` with ``--tag``, for another machine's record).
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import torch
from _machine import cpu_model, median_ms  # benchmarks/_machine.py

from sk_vibgsl.nn._feature_product import (
    SPARSE_FEATURES,
    SPARSE_ROUTES,
    batch_feature_matrix,
    has_sparse_features,
    uses_sparse_product,
)

RESULTS = Path(__file__).resolve().parent / "results"


def features(rows: int, d: int, density: float | None, seed: int = 0) -> torch.Tensor:
    """One-hot rows (``density=None``) or Bernoulli(density) 0/1 entries."""
    g = torch.Generator().manual_seed(seed)
    if density is None:
        x = torch.zeros(rows, d)
        x[torch.arange(rows), torch.randint(d, (rows,), generator=g)] = 1.0
        return x
    return (torch.rand(rows, d, generator=g) < density).float()


def measure(x: torch.Tensor, out: int, repeats: int) -> tuple[float, float, float]:
    w = torch.randn(out, x.shape[1], requires_grad=True)
    rows, d = x.shape
    # the rows as one graph's listing (position i·d + j of each nonzero)
    position = x.reshape(1, -1).nonzero()[:, 1]
    index, value = position.unsqueeze(0), x.reshape(-1)[position].unsqueeze(0)

    def dense():
        (x @ w.T).sum().backward()

    def sparse():
        torch.sparse.mm(x.to_sparse(), w.T).sum().backward()

    def listed():
        torch.sparse.mm(batch_feature_matrix(index, value, rows, d), w.T).sum().backward()

    return median_ms(dense, repeats), median_ms(sparse, repeats), median_ms(listed, repeats)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--widths", type=int, nargs="+", default=[64, 136, 492, 2000])
    parser.add_argument("--outs", type=int, nargs="+", default=[16, 32, 64, 256])
    parser.add_argument("--densities", type=float, nargs="+", default=[0.005, 0.01, 0.03])
    parser.add_argument("--results-dir", default=str(RESULTS))
    parser.add_argument("--tag", default="", help="file suffix: feature_product_<tag>.md")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    lines = [
        "# First-layer product: dense against sparse node features, CPU",
        "",
        f"Command: `python benchmarks/bench_feature_product.py {' '.join(sys.argv[1:])}`".rstrip(),
        "",
        f"Machine: {platform.machine()} ({cpu_model()}), 1 torch thread; "
        f"torch {torch.__version__}. "
        f"{args.rows} rows; forward and the weight's gradient; medians over "
        f"{args.repeats} runs in ms; sparse includes the conversion `X.to_sparse()`. "
        "`route`: what `feature_product` takes (sparse where one of "
        + ", ".join(f"(>= {w} feature columns, >= {o} output columns, density <= {r} "
                    "of a row sample)" for w, o, r in SPARSE_ROUTES)
        + "). `listed`: the nonzeros listed before training, the sparse matrix "
        "built from the list included; `listed?`: whether a dataset of such features is "
        f"listed (>= {SPARSE_FEATURES[0]} columns, density <= {SPARSE_FEATURES[1]}).",
        "",
        "| d | density | out | dense ms | sparse ms | sparse/dense | route | listed ms "
        "| listed/dense | listed? |",
        "|---:|---|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    for d in args.widths:
        for density in [None, *args.densities]:
            x = features(args.rows, d, density)
            label = f"one-hot ({1 / d:.4f})" if density is None else f"{density:g}"
            for out in args.outs:
                dense, sparse, listed = measure(x, out, args.repeats)
                route = "sparse" if uses_sparse_product(x, out) else "dense"
                lists = "yes" if has_sparse_features(x.numpy()) else "no"
                row = (f"| {d} | {label} | {out} | {dense:.2f} | {sparse:.2f} | "
                       f"{sparse / dense:.2f} | {route} | {listed:.2f} | "
                       f"{listed / dense:.2f} | {lists} |")
                print(row, flush=True)
                lines.append(row)
    out_dir = Path(args.results_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"feature_product_{args.tag}" if args.tag else "feature_product"
    (out_dir / f"{stem}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
