"""Does a structure setting's paired difference replicate over sets of outer folds?

Reads the ``summary.json`` that ``benchmarks/structure_study.py`` writes in each
results folder of the structure study (``results/structure_study`` for seed 0,
``results/structure_study_seed{1,2,...}`` for the other seeds' outer folds; run
``structure_study.py --results-dir FOLDER`` first so that they are current) and,
for every (dataset, backbone, setting) paired with the observed graph on at least
two seeds, writes one row: the paired difference Δ on each seed, their mean
:math:`\\bar\\Delta = \\frac1S \\sum_s \\Delta_s`, the spread of the seeds'
Δ (population std), the std of all :math:`10S` fold differences, the folds won–tied–lost
pooled over the seeds, how many seeds reach Δ ≥ +1.0 and how many fall below
−0.5 (issue #22's goals 2 and 1), the collapsed folds (at or below the fold's
majority-class rate) and the worst fold. A second table pools, the same way, each
setting ``NAME`` against its control ``NAME_control`` where the study ran one (the
same model without the ingredient under test; ``structure_study.py``'s
``vs_control`` and ``control_of``: a setting ``NAME_...`` that extends ``NAME``
shares its control). A third pairs any two settings fold by fold (``--versus``).

Every seed's folds hold the same number of graphs, so :math:`\\bar\\Delta` is
also the mean over all :math:`10S` folds, and the fold std is exact from the
seeds' means and stds:
:math:`\\sigma^2 = \\frac1S \\sum_s (\\sigma_s^2 + \\Delta_s^2) - \\bar\\Delta^2`.

Usage::

    python benchmarks/structure_replication.py [--results-dirs DIR ...] [--out FILE.md]
        [--versus SETTING OTHER ...]

Writes ``results/structure_replication.md`` and ``.json`` by default.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from structure_study import CONTROL, _paired, baseline_of, read  # benchmarks/structure_study.py

RESULTS = Path(__file__).resolve().parent / "results"


def default_dirs(results: Path = RESULTS) -> list[Path]:
    """``structure_study`` and every ``structure_study_seed*`` folder with a summary."""
    dirs = [results / "structure_study", *sorted(results.glob("structure_study_seed*"))]
    return [d for d in dirs if (d / "summary.json").exists()]


def collect(dirs: list[Path]) -> dict:
    """Cells keyed ``"DATASET backbone setting"``: per seed the cell of its summary
    (yardsticks included).

    A folder must hold one seed's folds; a setting appears once per seed (the
    same seed in two folders is an error, not a silent double count)."""
    per_key: dict[str, dict[int, dict]] = {}
    for folder in dirs:
        summary = json.loads((folder / "summary.json").read_text())
        if len(summary["seeds"]) != 1:
            raise ValueError(f"{folder}: records of seeds {summary['seeds']}; "
                             "a folder must hold one seed's outer folds")
        seed = summary["seeds"][0]
        for cell, settings in summary["cells"].items():
            for name, c in settings.items():
                if "mean" not in c:  # folds missing
                    continue
                seeds = per_key.setdefault(f"{cell} {name}", {})
                if seed in seeds:
                    raise ValueError(f"{cell} {name}: seed {seed} twice ({folder})")
                seeds[seed] = c
    return per_key


def cells_against(by_seed: dict) -> str:
    """The one control a setting's seeds were paired with (``vs_control``'s
    ``against``); seeds paired with different controls are an error."""
    names = {c["against"] for c in by_seed.values()}
    if len(names) != 1:
        raise ValueError(f"paired with different controls on different seeds: {sorted(names)}")
    return names.pop()


def _pool(cells: list[dict]) -> dict:
    """Seeds' paired differences (each with ``paired_diff``, ``paired_diff_std``,
    ``won``/``tied``/``lost`` over equally many folds) pooled: Δ per seed, their
    mean and std, the std of all fold differences, folds won–tied–lost summed."""
    diffs = np.array([c["paired_diff"] for c in cells])
    stds = np.array([c["paired_diff_std"] for c in cells])
    mean = float(diffs.mean())
    fold_var = float(np.mean(stds**2 + diffs**2) - mean**2)
    return {"paired_diff": diffs.tolist(), "mean_diff": mean, "seed_std": float(diffs.std()),
            "fold_std": float(np.sqrt(max(fold_var, 0.0))),
            **{k: sum(c[k] for c in cells) for k in ("won", "tied", "lost")}}


def replicate(per_key: dict, min_seeds: int = 2, against: str = "observed") -> list[dict]:
    """One row per setting run on at least ``min_seeds`` seeds (see the module),
    paired with the observed graph (``against="observed"``) or with its control
    ``NAME_control`` (``"control"``: the structure study's ``vs_control``)."""
    rows = []
    for key, by_seed in sorted(per_key.items()):
        if against == "control":
            by_seed = {s: {**c, **c["vs_control"]} for s, c in by_seed.items()
                       if "vs_control" in c}
        by_seed = {s: c for s, c in by_seed.items() if "paired_diff" in c}
        if len(by_seed) < min_seeds:
            continue
        dataset, backbone, name = key.split()
        seeds = sorted(by_seed)
        reference = (baseline_of(name) if against == "observed"
                     else cells_against(by_seed))
        yardstick = per_key.get(f"{dataset} {backbone} {reference}", {})
        cells = [by_seed[s] for s in seeds]
        folds = [c["folds"] for c in cells]
        if len(set(folds)) != 1:
            raise ValueError(f"{key}: outer folds differ between seeds ({folds})")
        pooled = _pool(cells)
        diffs = np.array(pooled["paired_diff"])
        rows.append({
            "dataset": dataset, "backbone": backbone, "setting": name, "seeds": seeds,
            **pooled,
            "accuracy": float(np.mean([c["mean"] for c in cells])),
            "seeds_gain": int((diffs >= 1.0 - 1e-9).sum()),
            "seeds_below": int((diffs < -0.5 - 1e-9).sum()),
            "collapsed": sum(len(c["collapsed_folds"]) for c in cells),
            "yardstick": reference,
            "yardstick_collapsed": sum(len(yardstick[s]["collapsed_folds"]) for s in seeds),
            "min_fold": float(min(c["min_fold"] for c in cells)),
        })
    return rows


VERSUS = [("branch_cos_top4", "branch_cos_top4_untrained"),
          ("branch_cos_top4__rw", "branch_cos_top4_untrained__rw"),
          ("branch_cos_top4_cyc", "branch_cos_top4"),
          ("branch_cos_top4_sym", "branch_cos_top4"),
          ("branch_cos_top4_norm_grid", "branch_cos_top4_sym")]
"""Pairs of settings compared directly (``--versus``): the sparse learned channel against
the same model whose structure learner stays at its initialisation, with the study's node
features and with random-walk features appended (``NAME__rw``); the channel with cyclic
tie-breaking (``structure_ties="cyclic"``, no hubs) against the lowest-index rule; and the
channel normalised as GCN does (``ib_graph_norm="sym"``) against the unnormalised one; and
the scale chosen by an inner search (``--grid ib_graph_norm=none,sym``) against ``"sym"``."""


def versus(dirs: list[Path], setting: str, other: str, min_seeds: int = 2) -> list[dict]:
    """``setting`` against ``other`` fold by fold, one row per (dataset, backbone):
    Δ per seed over the seeds where both ran every outer fold, their mean, the std
    of the pooled fold differences and the folds won–tied–lost, pooled. It reads
    each folder's per-fold records (``table1_runs.jsonl``), so it pairs any two
    settings, not only those a report pairs."""
    paired: dict[tuple[str, str], dict[int, dict]] = {}
    for folder in dirs:
        a, b = read(folder / setting), read(folder / other)
        for dataset, backbone in sorted({(d, bb) for d, bb, _ in a}):
            folds = sorted(f for d, bb, f in a if (d, bb) == (dataset, backbone))
            first = a[(dataset, backbone, folds[0])]
            if len(folds) != first["n_folds"]:
                continue
            acc = np.array([a[(dataset, backbone, f)]["test_acc"] for f in folds])
            cell = _paired(acc, b, dataset, backbone, folds)  # empty when b lacks a fold
            if not cell:
                continue
            seeds = paired.setdefault((dataset, backbone), {})
            if first["seed"] in seeds:
                raise ValueError(f"{dataset} {backbone} {setting}: seed {first['seed']} twice")
            seeds[first["seed"]] = cell
    rows = []
    for (dataset, backbone), by_seed in sorted(paired.items()):
        if len(by_seed) < min_seeds:
            continue
        seeds = sorted(by_seed)
        rows.append({"dataset": dataset, "backbone": backbone, "setting": setting,
                     "against": other, "seeds": seeds,
                     **_pool([by_seed[s] for s in seeds])})
    return rows


def write(rows: list[dict], dirs: list[Path], out: Path,
          control_rows: list[dict] | None = None,
          versus_rows: list[dict] | None = None) -> None:
    out.with_suffix(".json").write_text(json.dumps(
        {"results_dirs": [str(d) for d in dirs], "rows": rows,
         "control_rows": control_rows or [], "versus_rows": versus_rows or []}, indent=2))
    names = ", ".join(f"`{d.name}`" for d in dirs)
    lines = [
        "# Structure study: replication over sets of outer folds",
        "",
        f"Written by `python benchmarks/structure_replication.py` from the reports in {names} "
        "(each written by `benchmarks/structure_study.py`; see each folder's README for the "
        "protocol and the command of every row). Each seed is its own 10 stratified outer "
        "folds of the fair protocol, with the same setting and the same commit's library. "
        "A row appears when its setting is paired with the observed graph (the same "
        "backbone, `structure_mix=1`, on the same folds) on at least two seeds.",
        "",
        "Columns: *Δ per seed*: the paired difference (setting − observed graph, points) on "
        "each seed's 10 folds, in the order of *seeds*; *mean Δ*: their mean (the mean over "
        "all folds), ± the std of the seeds' Δ (how much a single seed's report can "
        "mislead); *fold std*: std of all fold differences; *won–tied–lost*: folds, pooled; "
        "*≥ +1 / < −0.5*: seeds at or above +1.0 and seeds below −0.5; *collapsed*: folds "
        "at or below their majority-class rate (⚠), pooled, of the setting and of the "
        "yardstick it is paired with (a gain over a collapsed yardstick fold is a gain "
        "over chance, not over the observed graph's structure); *min fold*: the worst "
        "accuracy of any fold of the setting.",
        "",
        *_table(rows),
    ]
    if control_rows:
        lines += [
            "", "## Against its control", "",
            f"Each setting `NAME` paired with `NAME{CONTROL}` (a setting `NAME_...` that "
            f"extends it with `NAME{CONTROL}`; the *yardstick* column names it), the same "
            "model without the ingredient under test (the structure study's *Against its "
            "control*), pooled the same way: *Δ* is setting − control, and the *yardstick* "
            "is the control.", "",
            *_table(control_rows),
        ]
    if versus_rows:
        lines += [
            "", "## Setting against setting", "",
            "Each *setting* against the setting it is compared with (`--versus SETTING "
            "OTHER`), fold by fold on the seeds where both ran every fold: *Δ* is setting − "
            "other, pooled the same way.", "",
            "| dataset | backbone | setting | against | seeds | Δ per seed | mean Δ | fold std "
            "| won–tied–lost |",
            "|---|---|---|---|---|---|---:|---:|:-:|",
        ]
        for r in versus_rows:
            per_seed = " / ".join(f"{d:+.1f}" for d in r["paired_diff"])
            lines.append(
                f"| {r['dataset']} | {r['backbone'].upper()} | {r['setting']} | "
                f"{r['against']} | {','.join(map(str, r['seeds']))} | {per_seed} | "
                f"{r['mean_diff']:+.2f} | {r['fold_std']:.1f} | "
                f"{r['won']}–{r['tied']}–{r['lost']} |")
    out.write_text("\n".join(lines) + "\n")


def _table(rows: list[dict]) -> list[str]:
    lines = [
        "| dataset | backbone | setting | seeds | Δ per seed | mean Δ | fold std "
        "| won–tied–lost | ≥ +1 / < −0.5 | collapsed (setting / yardstick) | min fold |",
        "|---|---|---|---|---|---:|---:|:-:|:-:|:-:|---:|",
    ]
    for r in rows:
        per_seed = " / ".join(f"{d:+.1f}" for d in r["paired_diff"])
        warn = " / ".join(f"{n} ⚠" if n else "0"
                          for n in (r["collapsed"], r["yardstick_collapsed"]))
        lines.append(
            f"| {r['dataset']} | {r['backbone'].upper()} | {r['setting']} | "
            f"{','.join(map(str, r['seeds']))} | {per_seed} | "
            f"{r['mean_diff']:+.2f} ± {r['seed_std']:.2f} | {r['fold_std']:.1f} | "
            f"{r['won']}–{r['tied']}–{r['lost']} | {r['seeds_gain']} / {r['seeds_below']} | "
            f"{warn} | {r['min_fold']:.1f} |")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dirs", nargs="+", default=None,
                        help="folders with a summary.json (default: structure_study and "
                             "structure_study_seed*)")
    parser.add_argument("--min-seeds", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "structure_replication.md"))
    parser.add_argument("--versus", nargs=2, action="append", metavar=("SETTING", "OTHER"),
                        help="also pair SETTING with OTHER fold by fold (repeatable; "
                             f"default: {' and '.join(' against '.join(p) for p in VERSUS)})")
    args = parser.parse_args(argv)
    dirs = [Path(d) for d in args.results_dirs] if args.results_dirs else default_dirs()
    per_key = collect(dirs)
    rows = replicate(per_key, args.min_seeds)
    versus_rows = [r for a, b in (args.versus or VERSUS)
                   for r in versus(dirs, a, b, args.min_seeds)]
    write(rows, dirs, Path(args.out), replicate(per_key, args.min_seeds, against="control"),
          versus_rows)
    print(f"wrote {args.out} ({len(rows)} rows from {len(dirs)} folders)")


if __name__ == "__main__":
    main()
