"""Which units a change of the stopping rule changed: re-runs against their records.

A stopping rule (``--fair-min-classes``, ``--fair-skip-few-classes``, ...) re-run on the
same outer folds, code and CPU as a set of records changes only the fits whose path it
alters; the others reproduce their records bit for bit. For each pair of results folders
(``--pair NEW OLD``: a set of folds re-run under the rule, and the same set's records
under today's rule) and each setting folder in both (``--rows``), this script lists every
unit whose refit differs in test accuracy, best epoch, epochs run or test predictions,
with both records side by side, and every unit of the re-runs whose refit put its whole
test fold in one class; then the count of units compared and equal.

It reads the records only and chooses nothing.

Usage::

    python benchmarks/rule_changes.py --rows observed__p50 branch_cos_top4__p50 \\
        --pair results/structure_study_min_classes_seed0 results/structure_study_frozen_epyc \\
        [--pair NEW OLD ...] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from structure_study import predicts_one_class, read  # benchmarks/structure_study.py

COMPARED = ("test_acc", "best_epoch", "epochs_run", "test_predicted")


def _unit(r: dict) -> str:
    predicted = " / ".join(f"{c}: {n}" for c, n in sorted(r.get("test_predicted", {}).items()))
    return (f"{r['test_acc']:.1f} % (best epoch {r.get('best_epoch')}, "
            f"{r.get('epochs_run')} run; {predicted})")


def compare(pairs: list[tuple[Path, Path]], rows: list[str]) -> dict:
    """Changed units, the re-runs' one-class folds, and the counts compared and equal."""
    changed, one_class, compared, equal = [], [], 0, 0
    for new_dir, old_dir in pairs:
        for row in rows:
            new, old = read(new_dir / row), read(old_dir / row)
            for key in sorted(new):
                r = new[key]
                if predicts_one_class(r):
                    one_class.append((new_dir.name, row, key, r))
                if key not in old:
                    continue
                compared += 1
                if all(r.get(f) == old[key].get(f) for f in COMPARED):
                    equal += 1
                else:
                    changed.append((new_dir.name, row, key, old[key], r))
    return {"changed": changed, "one_class": one_class, "compared": compared, "equal": equal,
            "pairs": [(new_dir.name, old_dir.name) for new_dir, old_dir in pairs], "rows": rows}


def markdown(result: dict, command: str | None = None) -> str:
    """The report: a title (the docs build needs one), what was compared, then the units."""
    lines = ["# Units a stopping rule changed", ""]
    if command:
        lines += [f"Command (from `benchmarks/`): `{command}`", ""]
    lines += ["Re-runs against their records (re-runs ← records): "
              + "; ".join(f"{new} ← {old}" for new, old in result["pairs"])
              + f". Settings: {', '.join(result['rows'])}.", "",
              f"{result['equal']} of {result['compared']} units equal their records "
              f"({', '.join(COMPARED)}).", "",
              "| re-runs | setting | dataset | backbone | fold | record | re-run "
              "(kept epoch's validation classes) | Δ |", "|---|---|---|---|---:|---|---|---:|"]
    for folder, row, (dataset, backbone, fold), old, new in result["changed"]:
        lines.append(f"| {folder} | {row} | {dataset} | {backbone.upper()} | {fold} | "
                     f"{_unit(old)} | {_unit(new)} ({new.get('kept_valid_classes', '·')}) | "
                     f"{new['test_acc'] - old['test_acc']:+.1f} |")
    lines += ["", "Re-runs whose refit put the whole test fold in one class: "
              + ("none." if not result["one_class"] else "; ".join(
                  f"{folder} {row} {dataset} {backbone.upper()} fold {fold}: {_unit(r)}"
                  for folder, row, (dataset, backbone, fold), r in result["one_class"]))]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", nargs=2, action="append", type=Path, required=True,
                        metavar=("NEW", "OLD"))
    parser.add_argument("--rows", nargs="+", required=True)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    command = "python rule_changes.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    text = markdown(compare([tuple(p) for p in args.pair], args.rows), command)
    if args.out:
        args.out.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
