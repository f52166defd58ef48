"""Does a setting's paired gain depend on how long its fits trained?

Pairs a setting's fair-protocol records with its yardstick's (the observed graph,
``structure_mix=1``) fold by fold, over one or more sets of outer folds
(``--pair SETTING_DIR YARDSTICK_DIR``, once per set), for one dataset and
backbone, and splits the paired differences
:math:`\\Delta_f = \\mathrm{acc}^{\\text{setting}}_f - \\mathrm{acc}^{\\text{observed}}_f`
by the number of epochs the setting's refit ran before early stopping ended it
(``epochs_run``): the folds whose fit ran at least ``--long`` epochs, and the
rest. For each group it reports the folds, the setting's accuracy range and the
mean :math:`\\Delta`; the same split by the yardstick's own training length; and
Spearman's rank correlation :math:`\\rho` between the setting's ``epochs_run``
and :math:`\\Delta` over all folds (with its two-sided p-value), which needs no
threshold.

The split reads the records only: it describes where a gain was made, it chooses
nothing, and no threshold is fitted to the test folds' accuracies (``--long`` is
given, and :math:`\\rho` has none).

Usage::

    python benchmarks/training_length.py --dataset REDDIT-BINARY --backbone gcn \\
        --pair DIR_SETTING_SEED0 DIR_OBSERVED_SEED0 [--pair ... ...] [--long 120] \\
        [--out FILE.md]

Each folder holds a ``table1_runs.jsonl`` of ``benchmarks/reproduce_table1.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from _machine import recorded_command  # benchmarks/_machine.py
from scipy.stats import spearmanr
from structure_study import read, won_tied_lost  # benchmarks/structure_study.py


def paired_folds(pairs: list[tuple[Path, Path]], dataset: str, backbone: str) -> list[dict]:
    """One row per outer fold present on both sides of each pair: seed, fold, both
    accuracies, both ``epochs_run`` and ``best_epoch``, and :math:`\\Delta`.

    A fold that only one side has is left out (a set still running); records of
    two seeds within one pair, or a pair without any common fold, are errors. Where
    two pairs give the same seed and fold (a yardstick re-run on another CPU),
    the pairing whose two records ran on the same CPU (their ``cpu`` fields) is
    kept, before one where a record names no CPU (older records), before one
    on two different CPUs; between equals, the later pair's. So a set whose
    setting resumed on another CPU pairs each fold on one CPU when the
    yardstick was run on both."""
    rows: dict[tuple, dict] = {}
    for setting_dir, yard_dir in pairs:
        setting, yard = read(Path(setting_dir)), read(Path(yard_dir))
        common = sorted(f for (d, b, f) in setting
                        if (d, b) == (dataset, backbone) and (d, b, f) in yard)
        if not common:
            raise ValueError(f"no fold of {dataset} {backbone} in both {setting_dir} and "
                             f"{yard_dir}")
        for fold in common:
            s, y = setting[(dataset, backbone, fold)], yard[(dataset, backbone, fold)]
            if s.get("seed") != y.get("seed") or s.get("n_folds") != y.get("n_folds"):
                raise ValueError(
                    f"{setting_dir} and {yard_dir}, fold {fold}: seed {s.get('seed')} of "
                    f"{s.get('n_folds')} folds against seed {y.get('seed')} of "
                    f"{y.get('n_folds')}: not the same outer folds")
            for side, r, folder in (("setting", s, setting_dir), ("yardstick", y, yard_dir)):
                if r.get("epochs_run") is None:
                    raise ValueError(f"{folder}, fold {fold}: the {side}'s record has no "
                                     "epochs_run (written before it was recorded)")
            key, cpus = (s.get("seed"), fold), (s.get("cpu"), y.get("cpu"))
            if key in rows and _cpu_rank(rows[key]["cpu"]) > _cpu_rank(cpus):
                continue
            rows[key] = {
                "seed": s.get("seed"), "fold": fold,
                "acc": s["test_acc"], "epochs": s["epochs_run"], "best": s.get("best_epoch"),
                "yard_acc": y["test_acc"], "yard_epochs": y["epochs_run"],
                "yard_best": y.get("best_epoch"), "delta": s["test_acc"] - y["test_acc"],
                "cpu": cpus,
            }
    return [rows[k] for k in sorted(rows, key=lambda k: (k[0] is None, k))]


def _cpu_rank(cpus: tuple) -> int:
    """2: both records ran on one CPU; 1: a record names none; 0: two CPUs."""
    setting_cpu, yard_cpu = cpus
    if setting_cpu is None or yard_cpu is None:
        return 1
    return 2 if setting_cpu == yard_cpu else 0


def _cpus(row: dict) -> str:
    """The CPU both sides ran on, or ``setting's / yardstick's`` (names up to the
    first comma; ``?`` where a record has none)."""
    setting_cpu, yard_cpu = ((c or "?").split(",")[0] for c in row["cpu"])
    return setting_cpu if setting_cpu == yard_cpu else f"{setting_cpu} / {yard_cpu}"


def group(rows: list[dict], long: int, by: str) -> dict[str, dict]:
    """The rows whose ``by`` (``"epochs"``: the setting's, ``"yard_epochs"``: the
    yardstick's) is at least ``long``, and the rest: per group the fold count, the
    range of ``by``, the setting's and yardstick's accuracy ranges and the mean Δ
    (``None`` for an empty group)."""
    out = {}
    for name, keep in (("long", lambda r: r[by] >= long), ("short", lambda r: r[by] < long)):
        g = [r for r in rows if keep(r)]
        out[name] = None if not g else {
            "n": len(g),
            "epochs": (min(r[by] for r in g), max(r[by] for r in g)),
            "acc": (min(r["acc"] for r in g), max(r["acc"] for r in g)),
            "yard_acc": (min(r["yard_acc"] for r in g), max(r["yard_acc"] for r in g)),
            "delta": float(np.mean([r["delta"] for r in g])),
        }
    return out


def summary(rows: list[dict], long: int) -> dict:
    """All folds' mean Δ and won–tied–lost, the two splits (:func:`group`) and
    Spearman's :math:`\\rho` of the setting's ``epochs_run`` against Δ (``None``
    when either is constant)."""
    d = np.array([r["delta"] for r in rows])
    epochs = np.array([r["epochs"] for r in rows])
    rho = p = None
    if len(rows) > 2 and np.ptp(d) > 0 and np.ptp(epochs) > 0:
        res = spearmanr(epochs, d)
        rho, p = float(res.statistic), float(res.pvalue)
    return {
        "n": len(rows), "delta": float(d.mean()),
        "won_tied_lost": won_tied_lost(d),
        "by_setting": group(rows, long, "epochs"),
        "by_yardstick": group(rows, long, "yard_epochs"),
        "spearman": (rho, p),
    }


def _range(lo_hi, fmt="{:g}") -> str:
    lo, hi = lo_hi
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)}–{fmt.format(hi)}"


def report(rows: list[dict], s: dict, long: int, title: str, command: str | None = None) -> str:
    """Markdown: the command that wrote it (when given), the summary, then every fold."""
    w, t, lost = s["won_tied_lost"]
    lines = [f"# {title}", ""]
    if command is not None:
        lines += [f"`{command}`", ""]
    lines += [f"{s['n']} paired folds: mean Δ **{s['delta']:+.2f}** ({w}–{t}–{lost}).", ""]
    for key, side in (("by_setting", "the setting's"), ("by_yardstick", "the yardstick's")):
        lines += [f"Split by {side} training length (at least {long} epochs, or fewer):", "",
                  "| group | folds | epochs run | setting acc | observed acc | mean Δ |",
                  "|---|---:|---|---|---|---:|"]
        for name, g in s[key].items():
            if g is None:
                lines.append(f"| {name} | 0 | | | | |")
            else:
                lines.append(f"| {name} | {g['n']} | {_range(g['epochs'])} | "
                             f"{_range(g['acc'], '{:.1f}')} | {_range(g['yard_acc'], '{:.1f}')} | "
                             f"{g['delta']:+.2f} |")
        lines.append("")
    rho, p = s["spearman"]
    if rho is not None:
        lines += [f"Spearman ρ (the setting's epochs run, Δ) = {rho:+.2f} (p = {p:.2g}, "
                  f"{s['n']} folds).", ""]
    lines += ["| seed | fold | setting acc | epochs run (best) | observed acc | "
              "epochs run (best) | Δ | CPU |", "|---:|---:|---:|---|---:|---|---:|---|"]
    for r in rows:
        lines.append(f"| {r['seed']} | {r['fold']} | {r['acc']:.1f} | {r['epochs']} "
                     f"({r['best']}) | {r['yard_acc']:.1f} | {r['yard_epochs']} "
                     f"({r['yard_best']}) | {r['delta']:+.1f} | {_cpus(r)} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--backbone", required=True)
    parser.add_argument("--pair", nargs=2, action="append", required=True, type=Path,
                        metavar=("SETTING_DIR", "YARDSTICK_DIR"),
                        help="one set of outer folds: the setting's and the observed graph's "
                             "results folders (repeat per set)")
    parser.add_argument("--long", type=int, default=120,
                        help="a fit of at least this many epochs counts as long")
    parser.add_argument("--out", type=Path, default=None, help="write the report here too")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.long < 1:
        parser.error(f"--long must be a positive number of epochs, got {args.long}")
    rows = paired_folds(args.pair, args.dataset, args.backbone)
    text = report(rows, summary(rows, args.long), args.long,
                  f"Training length and the paired gain: {args.dataset}, {args.backbone}",
                  recorded_command([__file__, *argv]))
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
