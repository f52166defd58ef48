"""Report of the structure study: each structure setting against the observed graph.

Reads the fair-protocol records of ``benchmarks/run_structure_study.sh``
(``RESULTS/<setting>/table1_runs.jsonl``, one folder per setting; the folder
``observed`` holds the same backbones with ``structure_mix=1``) and writes
``RESULTS/README.md`` and ``RESULTS/summary.json``: per dataset, backbone and
setting, the accuracy over the 10 outer folds, the paired difference to the
observed graph on the same folds (mean, and folds won–tied–lost; a setting
``NAME__SUFFIX`` against ``observed__SUFFIX``, the same budget), the lowest
fold against the majority-class rate of that fold (a collapse check) and the
mean density of the learned IB-graph on the test folds (kept edges over node
pairs). Only settings whose folds are all done are compared; the others are
listed with their progress. A run on a stratified subsample (``--max-graphs``)
is its own row, ``DATASET[n]``.

Usage::

    python benchmarks/structure_study.py [--results-dir benchmarks/results/structure_study]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from _overrides import add_data_home, parse_choice  # benchmarks/_overrides.py
from reproduce_table1 import SHORT  # the report's short dataset names

RESULTS = Path(__file__).resolve().parent / "results" / "structure_study"
BASELINE = "observed"


def read(folder: Path) -> dict[tuple, dict]:
    """Fair records of one setting by (dataset, backbone, fold); the last wins."""
    out = {}
    path = folder / "table1_runs.jsonl"
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            if r["protocol"] == "fair":
                # a subsampled run is its own dataset row
                name = r["dataset"] + (f"[{r['max_graphs']}]" if r.get("max_graphs") else "")
                out[(name, r["backbone"], r["fold"])] = r
    return out


def predicts_one_class(record: dict) -> bool:
    """Whether a record's refit put its whole test fold in one class (``test_predicted``:
    class -> count; ``False`` for records without it)."""
    return sum(n > 0 for n in (record.get("test_predicted") or {}).values()) == 1


def majority_rates(dataset: str, data_home: str | None, n_folds: int, seed: int) -> list[float]:
    """Majority-class share of each outer test fold (as reproduce_table1 splits)."""
    from sklearn.model_selection import StratifiedKFold

    from sk_vibgsl.datasets import load_tu_dataset

    name, _, max_graphs = dataset.partition("[")
    _, y = load_tu_dataset(name, data_home=data_home, download_if_missing=False,
                           return_X_y=True)
    y = np.asarray(y)
    if max_graphs:  # the stratified subsample of reproduce_table1.load
        from sklearn.model_selection import train_test_split

        idx, _ = train_test_split(np.arange(len(y)), train_size=int(max_graphs[:-1]),
                                  stratify=y, random_state=seed)
        y = y[np.sort(idx)]
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed)
    return [100 * np.bincount(np.unique(y[te], return_inverse=True)[1]).max() / len(te)
            for _, te in folds.split(np.zeros(len(y)), y)]


def compare(results: Path, data_home: str | None) -> dict:
    settings = {p.name: read(p) for p in sorted(results.iterdir()) if p.is_dir()}
    if not any(name.startswith(BASELINE) for name in settings):
        # a folder of suffixed rows only (e.g. observed__p50 and NAME__p50) pairs each
        # setting with its own yardstick; with no yardstick at all nothing pairs
        raise SystemExit(f"no {results / BASELINE}: run the observed-graph rows first")
    cells = defaultdict(dict)
    majority = {}
    for name, records in settings.items():
        keys = sorted({(d, b) for d, b, _ in records})
        for dataset, backbone in keys:
            folds = sorted(f for d, b, f in records if (d, b) == (dataset, backbone))
            n_folds = records[(dataset, backbone, folds[0])]["n_folds"]
            entry = {"folds_done": len(folds), "folds": n_folds}
            if len(folds) < n_folds and name != baseline_of(name):
                # an unfinished cell: its folds so far, paired with the same folds
                acc = np.array([records[(dataset, backbone, f)]["test_acc"] for f in folds])
                base = settings.get(baseline_of(name), {})
                entry.update(partial={"folds_run": folds, "mean": float(acc.mean()),
                                      **_paired(acc, base, dataset, backbone, folds)})
            if len(folds) == n_folds:
                acc = np.array([records[(dataset, backbone, f)]["test_acc"] for f in folds])
                dens = [records[(dataset, backbone, f)].get("ib_density") for f in folds]
                entry.update(mean=float(acc.mean()), std=float(acc.std()),
                             chosen=_chosen_counts([records[(dataset, backbone, f)]
                                                    for f in folds]),
                             density=(float(np.mean(dens)) if None not in dens else None))
                for gate in ("learned_mix", "branch_gate"):  # the refits' learned gates
                    gates = [records[(dataset, backbone, f)].get(gate) for f in folds]
                    if None not in gates:
                        entry[gate] = [float(g) for g in gates]
                if dataset not in majority:
                    seed = records[(dataset, backbone, folds[0])]["seed"]
                    majority[dataset] = majority_rates(dataset, data_home, n_folds, seed)
                collapsed = [f for f in folds if acc[f] <= majority[dataset][f] + 1e-9]
                entry.update(min_fold=float(acc.min()), collapsed_folds=collapsed)
                # of those, the folds whose refit predicted one class only (records since
                # test_predicted was added; older ones cannot tell a hard fold from a collapse)
                predicted = {f: records[(dataset, backbone, f)].get("test_predicted")
                             for f in collapsed}
                if any(v is not None for v in predicted.values()):
                    entry.update(one_class_folds=[
                                     f for f in collapsed
                                     if predicts_one_class(records[(dataset, backbone, f)])],
                                 collapsed_unrecorded=[f for f, v in predicted.items()
                                                       if v is None])
                base = settings.get(baseline_of(name), {})
                if name != baseline_of(name):
                    entry.update(_paired(acc, base, dataset, backbone, folds))
                control = control_of(name, settings)
                if control is not None:
                    versus = _paired(acc, settings[control], dataset, backbone, folds)
                    if versus:
                        entry.update(vs_control={"against": control, **versus})
                plain, sep, _ = name.partition("__")
                if sep and plain in settings:  # NAME__SUFFIX against NAME
                    versus = _paired(acc, settings[plain], dataset, backbone, folds)
                    if versus:
                        entry.update(vs_unsuffixed={"against": plain, **versus})
            cells[(dataset, backbone)][name] = entry
    seeds = sorted({r["seed"] for records in settings.values() for r in records.values()})
    return {"cells": {f"{d} {b}": v for (d, b), v in sorted(cells.items())},
            "seeds": seeds,
            "majority_rate_per_fold": majority,
            "commands": {name: _command(results / name) for name in settings}}


def _paired(acc: np.ndarray, reference: dict, dataset: str, backbone: str,
            folds: list[int]) -> dict:
    """Paired difference ``acc − reference`` over the same folds (mean, std,
    won–tied–lost); empty when the reference lacks a fold."""
    ref = [reference.get((dataset, backbone, f)) for f in folds]
    if None in ref:
        return {}
    diff = acc - np.array([r["test_acc"] for r in ref])
    won, tied, lost = won_tied_lost(diff)
    return {"paired_diff": float(diff.mean()), "paired_diff_std": float(diff.std()),
            "won": won, "tied": tied, "lost": lost}


def won_tied_lost(diff: np.ndarray) -> tuple[int, int, int]:
    """Folds where a paired difference is above, at and below 0."""
    return int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())


def _paired_cells(c: dict) -> tuple[str, str]:
    """The report's *paired Δ* and *won–tied–lost* cells of a :func:`_paired` result."""
    if "paired_diff" not in c:
        return "—", "—"
    return (f"{c['paired_diff']:+.1f} ± {c['paired_diff_std']:.1f}",
            f"{c['won']}–{c['tied']}–{c['lost']}")


CONTROL = "_control"
"""A setting ``NAME_control`` is ``NAME``'s control: the same model without the
ingredient under test; the report pairs ``NAME`` with it as well."""


def control_of(name: str, settings) -> str | None:
    """The control a setting is paired with, or None: ``NAME_control`` when it ran,
    else the control of the longest name it extends (``branch_cos_top4`` is
    paired with ``branch_control``: the same model without the learned graph);
    a suffix ``__S`` must match (``branch__deep`` pairs only with
    ``branch_control__deep``). A control has no control of its own."""
    plain, sep, suffix = name.partition("__")
    parts = plain.split("_")
    for i in range(len(parts), 0, -1):
        candidate = "_".join(parts[:i]) + CONTROL + sep + suffix
        if candidate != name and candidate in settings:
            return candidate
    return None


def baseline_of(name: str) -> str:
    """The observed-graph row a setting is paired with: ``observed``, or
    ``observed__SUFFIX`` for a setting ``NAME__SUFFIX`` (another capacity or
    training budget, e.g. ``__h64``). The yardstick ``observed__SUFFIX``
    itself is paired with ``observed``: what the suffix's change does to the
    observed graph alone."""
    prefix, sep, suffix = name.partition("__")
    if prefix == BASELINE:
        return BASELINE
    return f"{BASELINE}{sep}{suffix}"


def _chosen_counts(records: list[dict]) -> dict[str, int]:
    """Folds per value chosen by the inner search (``--grid``, and beta when it
    had more than one value): ``{"structure_mix=0.5": 6, ...}``."""
    counts: dict[str, int] = defaultdict(int)
    for r in records:
        chosen = dict(r.get("chosen") or {})
        if r.get("fair_choices"):  # --choose: the chosen alternative as given, one key
            for alternative in r["fair_choices"].split(" | "):
                params = parse_choice(alternative)
                if all(k in chosen and chosen[k] == v for k, v in params.items()):
                    # --grid values crossed with the alternatives keep their own counts
                    chosen = {alternative: None,
                              **{k: v for k, v in chosen.items() if k not in params}}
                    break
        beta_searched = not r.get("fair_betas") or "," in r["fair_betas"]  # None: full grid
        if beta_searched:
            chosen["beta"] = r["chosen_beta"]
        for key, value in sorted(chosen.items()):
            counts[key if value is None else f"{key}={value:g}" if isinstance(value, float)
                   else f"{key}={value}"] += 1
    return dict(sorted(counts.items()))


GOAL_DATASETS = ("MUTAG", "IMDB-BINARY", "IMDB-MULTI", "NCI1", "COLLAB", "REDDIT-BINARY")
"""The six datasets of the study's goals (a subsampled ``NCI1[1000]`` row does not count)."""
NEVER_WORSE = -0.5
"""Goal 1: the paired mean difference to the observed graph is at least this on each dataset."""
BETTER = 1.0
"""Goal 2: ... and at least this on three of them."""


def goals(summary: dict) -> list[dict]:
    """Each setting and backbone against the study's goals 1-3.

    Per dataset of :data:`GOAL_DATASETS`, the paired mean difference to the
    setting's yardstick (:func:`baseline_of`) and its collapsed folds; an
    unfinished cell counts as *open*, with its folds so far. *never worse*
    (goal 1) is "no" once a finished dataset is below :data:`NEVER_WORSE`,
    "yes" when all six are finished and none is, "open" otherwise; *better*
    (goal 2) lists the finished datasets at or above :data:`BETTER`, of which
    the goal asks for three; *collapsed* (goal 3) counts the finished folds at
    or below their majority-class rate, and *one_class* is ``(k, n)``: of the n
    such folds whose refit recorded its test predictions, k predicted a single
    class (``None`` where none recorded them). Yardsticks (``observed...``)
    have no row.
    """
    rows: dict[tuple[str, str], dict] = {}
    for key, cell in summary["cells"].items():
        dataset, backbone = key.split()
        if dataset not in GOAL_DATASETS:
            continue
        for name, c in cell.items():
            if name.startswith(BASELINE):
                continue
            row = rows.setdefault((name, backbone), {"setting": name, "backbone": backbone,
                                                     "datasets": {}})
            if "paired_diff" in c:
                row["datasets"][dataset] = {"paired_diff": c["paired_diff"],
                                            "collapsed": len(c["collapsed_folds"])}
                if "one_class_folds" in c:
                    row["datasets"][dataset].update(
                        one_class=len(c["one_class_folds"]),
                        unrecorded=len(c["collapsed_unrecorded"]))
            elif "paired_diff" in c.get("partial", {}):
                row["datasets"][dataset] = {"paired_diff": c["partial"]["paired_diff"],
                                            "folds_run": len(c["partial"]["folds_run"]),
                                            "folds": c["folds"]}
    for row in rows.values():
        done = {d: v for d, v in row["datasets"].items() if "folds_run" not in v}
        below = [d for d in GOAL_DATASETS if d in done and done[d]["paired_diff"] < NEVER_WORSE]
        row["never_worse"] = ("no" if below else
                              "yes" if len(done) == len(GOAL_DATASETS) else "open")
        row["below"] = below
        row["better"] = [d for d in GOAL_DATASETS
                         if d in done and done[d]["paired_diff"] >= BETTER]
        row["collapsed"] = sum(v["collapsed"] for v in done.values())
        # of the collapsed folds, those whose predictions were recorded, and how many of
        # them were a single class (None: no collapsed fold recorded its predictions)
        recorded = [v for v in done.values() if "one_class" in v]
        row["one_class"] = ((sum(v["one_class"] for v in recorded),
                             sum(v["collapsed"] - v["unrecorded"] for v in recorded))
                            if recorded else None)
    return sorted(rows.values(), key=lambda r: (-len(r["datasets"]), r["setting"],
                                                r["backbone"]))


def _goal_lines(summary: dict) -> list[str]:
    """The report's goals section: one row per setting and backbone (:func:`goals`)."""
    names = [SHORT.get(d, d) for d in GOAL_DATASETS]
    lines = ["", "## The goals, per setting", "",
             "Each setting and backbone against the study's goals, on the six datasets "
             "(paired Δ to its yardstick in points, two decimals, so that a value just "
             "below −0.5 shows as such; ⚠ a dataset with a collapsed fold; *(n/10)* an "
             "unfinished cell, its folds so far, which decides nothing; · not run). "
             f"*Never worse* (goal 1): Δ ≥ {NEVER_WORSE} on all six; *better* (goal 2): "
             f"the datasets with Δ ≥ +{BETTER:.1f}, of which the goal asks for three; "
             "*collapsed folds* (goal 3): outer folds at or below their majority-class "
             "rate (on MUTAG the GCN yardstick collapses too), and where the refits "
             "recorded their test predictions, *k of n one-class*: how many of the n such "
             "folds predicted a single class (a fold can sit at that rate with both "
             "classes predicted: MUTAG's fold 2 is hard for every model). One set of folds (seed "
             f"{', '.join(map(str, summary['seeds']))}): "
             "[the replication](../structure_replication.md) repeats the small "
             "datasets over five.", "",
             f"| setting | backbone | {' | '.join(names)} | never worse | better "
             "| collapsed folds |",
             "|---|---|" + "---:|" * len(names) + ":-:|---|---:|"]
    for row in goals(summary):
        cells = []
        for dataset in GOAL_DATASETS:
            v = row["datasets"].get(dataset)
            if v is None:
                cells.append("·")
            elif "folds_run" in v:
                cells.append(f"{v['paired_diff']:+.2f} ({v['folds_run']}/{v['folds']})")
            else:
                cells.append(f"{v['paired_diff']:+.2f}" + (" ⚠" if v["collapsed"] else ""))
        never = row["never_worse"] + (
            f" ({', '.join(SHORT.get(d, d) for d in row['below'])})" if row["below"] else "")
        better = (f"{len(row['better'])}: {', '.join(SHORT.get(d, d) for d in row['better'])}"
                  if row["better"] else "0")
        collapsed = str(row["collapsed"])
        if row["one_class"] is not None:
            collapsed += f" ({row['one_class'][0]} of {row['one_class'][1]} one-class)"
        lines.append(f"| {row['setting']} | {row['backbone'].upper()} | {' | '.join(cells)} "
                     f"| {never} | {better} | {collapsed} |")
    return lines


def _command(folder: Path) -> str | None:
    """The setting's last recorded command, with its units per device where some ran
    on another device than the CPU (``--device cuda``)."""
    meta_file = folder / "table1.json"
    if not meta_file.exists():
        return None
    meta = json.loads(meta_file.read_text())["meta"]
    devices = meta.get("unit_devices") or {}
    if set(devices) <= {"cpu"}:
        return meta["command"]
    counts = ", ".join(f"{name}: {n}" for name, n in sorted(devices.items()))
    return f"{meta['command']} # units per device: {counts}"


def write(summary: dict, results: Path) -> None:
    (results / "summary.json").write_text(json.dumps({**summary, "goals": goals(summary)},
                                                     indent=2))
    lines = [
        "# Structure study: learned IB-graphs against the observed graph (fair protocol)",
        "",
        "Written by `python benchmarks/structure_study.py` from the records of "
        "`bash benchmarks/run_structure_study.sh DATASET ...` (each setting's exact "
        "command is listed below). Fair protocol: 10 outer stratified folds (seed "
        f"{', '.join(map(str, summary['seeds']))}); "
        "β = 1e-3, the library's default, and no inner search, except for settings run "
        "with `--grid` (their name ends in `_grid`): there an inner 3-fold `GridSearchCV` "
        "on the outer training fold picks the grid's value, refits with it, and the "
        "*chosen* column counts the folds per value; settings run with `--choose` "
        "(`channel_or_observed*`) choose the same way between whole settings, and the "
        "column counts the folds per setting. Every fit is early-stopped on a "
        "stratified 10 % of its own training graphs (patience 20, at most 200 epochs); "
        "the test fold is scored once and chooses nothing. Rows named `NAME__h64` are GIN "
        "with hidden width 64 trained for 300 epochs without early stopping (the budget of "
        "`benchmarks/results/capacity_probe`), each paired with `observed__h64`; rows "
        "named `NAME__p50` are stopped with patience 50 instead of 20 (GIN on NCI1, both "
        "backbones on MUTAG and the IMDB datasets), each paired with `observed__p50`; "
        "each yardstick `observed__SUFFIX` is itself paired with "
        "`observed`, which shows what its change does to the observed graph alone "
        "(the section after the table pairs every `NAME__SUFFIX` with `NAME`); rows "
        "named `NAME__sum` pool the GNN's node outputs by their sum "
        "(`readout=\"sum\"`) instead of the mean, for the learner and its yardstick "
        "`observed__sum` alike; rows named `NAME__deep` are GCN with hidden width 64, "
        "three graph layers (`num_layers=3`) and the sum readout, trained for 300 epochs "
        "without early stopping, each paired with `observed__deep`; the row "
        "`observed__gdeep` is the same with GIN, and rows named `NAME__gdeepbn` are GIN "
        "with batch norm in each layer (`module__batch_norm=True`) as well, each paired "
        "with `observed__gdeepbn`. "
        "Node features: the dataset's own with the one-hot degree appended "
        "(`DegreeFeatures(append=True)`; the degree alone on the social datasets, "
        "which have none); rows named `NAME__rw` append also 8 random-walk return "
        "probabilities of the observed graph (`RandomWalkFeatures`, "
        "`--node-features given+degree+rw`), for the learner and for its yardstick "
        "`observed__rw` alike.",
        "",
        "Columns: accuracy (%, mean ± population std over the 10 test folds); *paired Δ*: "
        "mean ± std over folds of (setting − observed graph, same folds, same backbone), "
        "with folds won–tied–lost (the std of a mean of 10 paired differences is about a "
        "third of the std shown); *min fold*: the worst fold, marked ⚠ when it is at or below "
        "that fold's majority-class rate (a collapse); *density*: mean share of node pairs "
        "joined by a learned edge in the refit's IB-graphs of the test fold (the observed "
        "graph's own density in the `observed` row); *chosen*: folds per value an inner "
        "search chose, and for a learned gate the median (range) over folds of the gate "
        "each refit learned: λ with `learn_mix=True`, the learned channel's α with "
        "`observed_branch=True`.",
        "",
        "| dataset | backbone | setting | accuracy | paired Δ | won–tied–lost | min fold "
        "| density | chosen (folds) |",
        "|---|---|---|---:|---:|:-:|---:|---:|---|",
    ]
    for key, row in summary["cells"].items():
        dataset, backbone = key.split()
        for name, c in row.items():
            if "mean" not in c:
                part = c.get("partial", {})
                diff, wtl = _paired_cells(part)
                ran = ", ".join(map(str, part.get("folds_run", [])))
                so_far = (f"; folds {ran}: {part['mean']:.1f}" if part else "")
                lines.append(f"| {dataset} | {backbone.upper()} | {name} | "
                             f"missing ({c['folds_done']}/{c['folds']} folds{so_far}) | "
                             f"{diff if part else ''} | {wtl if part else ''} | | | |")
                continue
            diff, wtl = _paired_cells(c)
            warn = " ⚠" if c["collapsed_folds"] else ""
            dens = f"{c['density']:.2f}" if c.get("density") is not None else "—"
            chosen = ", ".join(f"{k}: {v}" for k, v in c["chosen"].items()
                               if not (k == "beta" and v == c["folds"]
                                       and len(c["chosen"]) == 1))
            for gate, symbol in (("learned_mix", "λ"), ("branch_gate", "α")):
                if gate in c:
                    gates = c[gate]
                    chosen = (f"{chosen}, " if chosen else "") + (
                        f"learned {symbol} {np.median(gates):.2f} "
                        f"({min(gates):.2f}–{max(gates):.2f})")
            chosen = chosen or "—"
            lines.append(f"| {dataset} | {backbone.upper()} | {name} | "
                         f"{c['mean']:.1f} ± {c['std']:.1f} | {diff} | {wtl} | "
                         f"{c['min_fold']:.1f}{warn} | {dens} | {chosen} |")
    lines += _goal_lines(summary)
    lines += ["", "## What each suffix changes", "",
              "Each setting `NAME__SUFFIX` against the same setting without the suffix, "
              "`NAME` (same folds, same backbone): the effect of the suffix's budget, "
              "readout or features on that setting, where the table above pairs it with "
              "the observed graph under the same suffix.", "",
              "| dataset | backbone | setting | against | paired Δ | won–tied–lost |",
              "|---|---|---|---|---:|:-:|"]
    lines += _versus_rows(summary, "vs_unsuffixed")
    controls = _versus_rows(summary, "vs_control")
    if controls:
        lines += ["", "## Against its control", "",
                  f"Each setting `NAME` against `NAME{CONTROL}` (or, for a setting that "
                  f"extends one, `NAME_...` against `NAME{CONTROL}`), the same model "
                  "without the ingredient under test (same folds, same backbone): what "
                  "that ingredient adds.", "",
                  "| dataset | backbone | setting | against | paired Δ | won–tied–lost |",
                  "|---|---|---|---|---:|:-:|", *controls]
    lines += ["", "## Commands", "",
              "Every row is `bash benchmarks/run_structure_study.sh DATASET` with `ONLY=` "
              "its setting (`NCI1[1000]` with `EXTRA=\"--max-graphs 1000\"`). Below, each "
              "setting's last invocation as the script recorded it; its other datasets ran "
              "with the same arguments and their own `--datasets`. COLLAB, REDDIT-BINARY "
              "and NCI1's `observed` and `mix_holdout_grid` rows ran one backbone per "
              "invocation (`--backbones gcn` or `gin`, otherwise the same arguments). Long "
              "runs ran from a clean worktree of the commit that each record names "
              "in its `code` field.", ""]
    for name, command in summary["commands"].items():
        lines.append(f"- `{name}`: `{command}`")
    (results / "README.md").write_text("\n".join(lines) + "\n")


def _versus_rows(summary: dict, field: str) -> list[str]:
    """Report rows of every setting's pairing ``field`` (``vs_unsuffixed``, ``vs_control``)."""
    lines = []
    for key, row in summary["cells"].items():
        dataset, backbone = key.split()
        for name, c in row.items():
            if field in c:
                v = c[field]
                diff, wtl = _paired_cells(v)
                lines.append(f"| {dataset} | {backbone.upper()} | {name} | {v['against']} | "
                             f"{diff} | {wtl} |")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", default=str(RESULTS))
    add_data_home(parser)
    args = parser.parse_args(argv)
    results = Path(args.results_dir)
    write(compare(results, args.data_home), results)
    print(f"wrote {results / 'README.md'}")


if __name__ == "__main__":
    main()
