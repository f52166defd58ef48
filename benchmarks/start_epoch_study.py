"""Early stopping with a warm-up (``--fair-start-epoch``): which units it changes, and
the learned channel's paired difference to the observed graph under it.

``StepEarlyStopping(start_epoch=E)`` keeps no epoch before the ``E``-th and counts
none of them as a miss. A fit whose best epoch without the warm-up is ``E`` or later
stops at the same epoch with the same weights (``tests/test_callbacks.py``), so of
a set of fair-protocol records only the units that kept an earlier epoch change.
This script

* ``--list``: names, per dataset, backbone, side and set of outer folds, the units
  whose recorded refit kept an epoch before ``E`` (the folds to run with
  ``run_structure_study.sh``'s ``observed_se10`` / ``branch_cos_top4_se10`` rows
  and ``EXTRA="--seed N --only-folds ..."``), and the sides without a record on
  this CPU, which run whole;
* otherwise pairs, fold by fold, the learned channel (``LEARNED_CHANNEL_PARAMS``)
  with the observed graph (``structure_mix=1``) under the warm-up: a unit's re-run
  where its record kept an earlier epoch (or no record exists), the record itself
  where not; it writes the paired difference per set and pooled, the folds
  won–tied–lost, the units re-run, the folds predicted as one class, and the same
  pairing without the warm-up where both sides' records exist.

Where the records of each side are (``SOURCES``; ``{S}`` is ``""`` for seed 0 and
``_seedN`` otherwise): the AMD EPYC records the study's tables use, with the top-k
selection's tie tolerance. The observed graph's COLLAB and NCI1 records predate the
``cpu`` field; the choice rows' refits re-ran 32 of them on the AMD EPYC and matched
each (``channel_or_observed_holdout``).

Usage::

    python benchmarks/start_epoch_study.py --list
    python benchmarks/start_epoch_study.py \
        --out benchmarks/results/structure_study_start_epoch/table.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from structure_study import predicts_one_class, read  # benchmarks/structure_study.py

RESULTS = Path(__file__).resolve().parent / "results"
SEEDS = {"MUTAG": 5, "IMDB-BINARY": 5, "IMDB-MULTI": 5, "NCI1": 2, "COLLAB": 5,
         "REDDIT-BINARY": 1}
FEWER = {("COLLAB", "gcn"): 4}  # sets of folds the channel's records have, where fewer
#: dataset -> (the observed graph's records, the channel's records or None: run whole)
SOURCES = {
    "MUTAG": ("structure_study_epyc{S}/observed__p50",
              "structure_study_epyc{S}/branch_cos_top4__p50"),
    "IMDB-BINARY": ("structure_study_epyc{S}/observed", None),
    "IMDB-MULTI": ("structure_study_epyc{S}/observed", None),
    "NCI1": ("structure_study{S}/observed", "structure_study_tie_tolerance{S}/branch_cos_top4"),
    "COLLAB": ("structure_study{S}/observed", "structure_study_tie_tolerance{S}/branch_cos_top4"),
    "REDDIT-BINARY": ("structure_study{S}/observed",
                      "structure_study_tie_tolerance{S}/branch_cos_top4"),
}
ROWS = ("observed_se10", "branch_cos_top4_se10")  # the re-runs, per side
RERUNS = "structure_study_start_epoch{S}"


def suffix(seed: int) -> str:
    return "" if seed == 0 else f"_seed{seed}"


def records(folder: Path, dataset: str, backbone: str, **match) -> dict[int, dict]:
    """Fold -> fair record of ``dataset``/``backbone`` in ``folder`` (``{}`` when there is
    none); ``match``: fields the record must have."""
    return {fold: r for (d, b, fold), r in read(folder).items()
            if d == dataset and b == backbone and all(r.get(k) == v for k, v in match.items())}


def side_records(results: Path, dataset: str, backbone: str, seed: int, side: int,
                 start: int) -> tuple[dict[int, dict] | None, dict[int, dict]]:
    """The side's records without the warm-up (``None``: none on this CPU) and its
    re-runs with ``start_epoch=start``."""
    s = suffix(seed)
    base = SOURCES[dataset][side]
    before = records(results / base.format(S=s), dataset, backbone) if base else None
    rerun = records(results / RERUNS.format(S=s) / ROWS[side], dataset, backbone,
                    start_epoch=start)
    return before or None, rerun


def needed(before: dict[int, dict] | None, start: int, folds: int = 10) -> list[int]:
    """The folds a warm-up of ``start`` epochs can change (all without records)."""
    if before is None:
        return list(range(folds))
    return sorted(f for f, r in before.items() if r["best_epoch"] < start)


def pair(results: Path, dataset: str, backbone: str, seed: int, start: int) -> dict | None:
    """The channel against the observed graph on one set of folds, under the warm-up;
    ``None`` while a needed re-run is missing."""
    under, rerun_count, before_sides = [], [], []
    for side in (0, 1):
        before, rerun = side_records(results, dataset, backbone, seed, side, start)
        want = needed(before, start)
        if any(f not in rerun for f in want):
            return None
        under.append({f: rerun[f] if f in want else before[f] for f in range(10)})
        rerun_count.append(len(want))
        before_sides.append(before)
    diff = np.array([under[1][f]["test_acc"] - under[0][f]["test_acc"] for f in range(10)])
    out = {"delta": float(diff.mean()), "diffs": diff.tolist(), "reruns": rerun_count,
           "one_class": [sum(predicts_one_class(r) for r in u.values()) for u in under],
           "acc": [float(np.mean([r["test_acc"] for r in u.values()])) for u in under]}
    if all(b is not None and len(b) == 10 for b in before_sides):
        out["delta_before"] = float(np.mean([before_sides[1][f]["test_acc"]
                                             - before_sides[0][f]["test_acc"]
                                             for f in range(10)]))
    return out


def wtl(diffs: np.ndarray) -> str:
    return (f"{int((diffs > 1e-9).sum())}–{int((abs(diffs) <= 1e-9).sum())}–"
            f"{int((diffs < -1e-9).sum())}")


def report(results: Path, start: int) -> str:
    lines = [f"| dataset | backbone | Δ per set, start epoch {start} | mean Δ (W–T–L) | "
             "without the warm-up | units re-run (observed / channel) | accuracy "
             "(observed / channel) | one-class folds |", "|---|---|---|---|---|---|---|---|"]
    for dataset, n in SEEDS.items():
        for backbone in ("gcn", "gin"):
            n_sets = FEWER.get((dataset, backbone), n)
            sets = [pair(results, dataset, backbone, seed, start) for seed in range(n_sets)]
            done = [p for p in sets if p is not None]
            if not done:
                lines.append(f"| {dataset} | {backbone.upper()} | not run | | | | | |")
                continue
            diffs = np.concatenate([p["diffs"] for p in done])
            before = [p.get("delta_before") for p in done]
            before_text = ("n/a (no channel record on this CPU)" if None in before else
                           " / ".join(f"{b:+.2f}" for b in before)
                           + f": **{np.mean(before):+.2f}**")
            lines.append(
                f"| {dataset} | {backbone.upper()} | "
                + " / ".join(f"{p['delta']:+.2f}" for p in done)
                + f" ({len(done)} of {n_sets} sets) | **{diffs.mean():+.2f}** ({wtl(diffs)}) | "
                + before_text + " | "
                + f"{sum(p['reruns'][0] for p in done)} / {sum(p['reruns'][1] for p in done)} | "
                + f"{np.mean([p['acc'][0] for p in done]):.1f} / "
                + f"{np.mean([p['acc'][1] for p in done]):.1f} | "
                + f"{sum(p['one_class'][0] for p in done)} / "
                + f"{sum(p['one_class'][1] for p in done)} |")
    return "\n".join(lines)


def listing(results: Path, start: int) -> str:
    lines = []
    for dataset, n in SEEDS.items():
        for backbone in ("gcn", "gin"):
            for seed in range(FEWER.get((dataset, backbone), n)):
                for side in (0, 1):
                    before, rerun = side_records(results, dataset, backbone, seed, side, start)
                    want = needed(before, start)
                    missing = [f for f in want if f not in rerun]
                    lines.append(f"{dataset} {backbone} seed {seed} {ROWS[side]}: "
                                 + ("no record on this CPU, all folds" if before is None
                                    else f"folds {want}" if want else "nothing to run")
                                 + (f"; to run: {missing}" if missing else ""))
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=str(RESULTS))
    parser.add_argument("--start-epoch", type=int, default=10)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--out", default=None, help="also write the table here")
    args = parser.parse_args(argv)
    results = Path(args.results)
    text = listing(results, args.start_epoch) if args.list else report(results, args.start_epoch)
    print(text)
    if args.out and not args.list:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
