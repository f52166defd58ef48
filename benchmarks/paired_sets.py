"""One setting against the observed graph over several sets of outer folds.

Each set of ten outer folds (one ``--seed`` of ``run_structure_study.sh``) lives in its own
results folder; this script pairs a setting's folder ``ROW`` with ``observed`` (or
``--against``) fold by fold inside each given folder and prints, per dataset and backbone, a
Markdown row: each set's mean paired difference in points, the mean over the sets, folds
won–tied–lost, the folds where either side put the whole test fold in one class, and the
setting's mean test-fold density. A set whose folds are not all done on both sides is shown
as ``·``, with the mean over the folds that are (``· (+1.25 on 4)``), and is left out of the
mean, the counts and the density: an unfinished set decides nothing.

    python benchmarks/paired_sets.py --row branch_cos_top4 --datasets IMDB-BINARY IMDB-MULTI \
        --dirs benchmarks/results/structure_study_cos_ekl_xeon \
               benchmarks/results/structure_study_cos_ekl_xeon_seed{1,2,3,4} \
               benchmarks/results/structure_study_imdb_xeon_seed{5,6,7,8,9}

``--against-dirs`` names the yardstick's folder of each set where it ran apart from the
setting (one per ``--dirs`` folder, in the same order).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np
from structure_study import predicts_one_class, read, won_tied_lost  # benchmarks/


def cell(dirs: list[Path], row: str, against: str, dataset: str, backbone: str,
         n_folds: int = 10, against_dirs: list[Path] | None = None) -> dict:
    """Per-set mean differences (``None`` for unfinished sets), the pooled counts, and for
    each unfinished set the mean over its paired folds and their number (``partial``)."""
    per, partial, diffs, one_class, density = [], [], [], [0, 0], []
    for folder, other in zip(dirs, against_dirs or dirs):
        a, b = read(folder / row), read(other / against)
        keys = [(dataset, backbone, f) for f in range(n_folds)]
        paired = [k for k in keys if k in a and k in b]
        diff = np.array([a[k]["test_acc"] - b[k]["test_acc"] for k in paired])
        if len(paired) < n_folds:
            per.append(None)
            partial.append((float(diff.mean()), len(paired)) if paired else None)
            continue
        partial.append(None)
        per.append(float(diff.mean()))
        diffs.append(diff)
        one_class[0] += sum(predicts_one_class(a[k]) for k in keys)
        one_class[1] += sum(predicts_one_class(b[k]) for k in keys)
        if all(a[k].get("ib_density") is not None for k in keys):
            density.append(float(np.mean([a[k]["ib_density"] for k in keys])))
    pooled = np.concatenate(diffs) if diffs else np.array([])
    done = [p for p in per if p is not None]
    return {"per_set": per, "partial": partial, "mean": statistics.mean(done) if done else None,
            "won_tied_lost": won_tied_lost(pooled), "one_class": tuple(one_class),
            "density": statistics.mean(density) if density else None}


def _per_set(done: float | None, partial: tuple[float, int] | None) -> str:
    if done is not None:
        return f"{done:+.2f}"
    return "·" if partial is None else f"· ({partial[0]:+.2f} on {partial[1]})"


def markdown(rows: list[tuple[str, str, dict]]) -> str:
    lines = ["| dataset | backbone | per set | mean (sets) | won–tied–lost | one-class folds "
             "(setting / yardstick) | density |", "|---|---|---|---:|:-:|:-:|---:|"]
    for dataset, backbone, c in rows:
        per = " / ".join(_per_set(p, q) for p, q in zip(c["per_set"], c["partial"]))
        n = sum(p is not None for p in c["per_set"])
        mean = "·" if c["mean"] is None else f"**{c['mean']:+.2f}** ({n})"
        wtl = "–".join(map(str, c["won_tied_lost"]))
        dens = "·" if c["density"] is None else f"{c['density']:.2f}"
        lines.append(f"| {dataset} | {backbone.upper()} | {per} | {mean} | {wtl} | "
                     f"{c['one_class'][0]} / {c['one_class'][1]} | {dens} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", required=True, help="the setting's folder name")
    parser.add_argument("--against", default="observed")
    parser.add_argument("--datasets", nargs="+", required=True)
    parser.add_argument("--backbones", nargs="+", default=["gcn", "gin"])
    parser.add_argument("--dirs", nargs="+", type=Path, required=True,
                        help="one results folder per set of outer folds, in order")
    parser.add_argument("--against-dirs", nargs="+", type=Path,
                        help="where the yardstick of each set lives, if not beside the setting")
    args = parser.parse_args(argv)
    if args.against_dirs and len(args.against_dirs) != len(args.dirs):
        parser.error("--against-dirs needs one folder per --dirs folder")
    rows = [(d, b, cell(args.dirs, args.row, args.against, d, b,
                        against_dirs=args.against_dirs))
            for d in args.datasets for b in args.backbones]
    print(markdown(rows))


if __name__ == "__main__":
    main()
