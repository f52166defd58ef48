"""Re-run one recorded unit of ``reproduce_table1.py`` here and compare it with its record.

The structure study's records were written over many sessions and machines, and a
unit re-run on another CPU can train to another fold accuracy (floating-point sums
round differently, early stopping then takes another path). Before pairing records
from two runs, check that they share this machine's arithmetic: re-run one of them
here. A unit that reproduces its record bit for bit ran with the same arithmetic
(same CPU kind, same kernels); one that does not must not be paired with this
machine's records as if it did.

The unit is rebuilt from the record's own key (protocol, dataset, backbone, learner,
beta, fold and the configuration keys: epochs, folds, seed, ``--set`` overrides,
``--grid``, ...) as ``reproduce_table1.py`` arguments; the rebuilt unit's key must
equal the record's, or the script stops (records older than a key cannot be rebuilt).

Usage::

    python benchmarks/check_record.py RESULTS/table1_runs.jsonl --dataset NCI1 \\
        --backbone gin --fold 8 [--structure true] [--seed 1] [--device cpu] [--threads 1]

Prints each compared field (record, re-run, equal) and exits with status 0 when all
are equal, 1 otherwise. With ``--history`` it also prints the re-run's training
history, one line per epoch (the scored fit's: the fair protocol's refit), to see
where and why its early stopping stopped.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import reproduce_table1 as rt  # benchmarks/reproduce_table1.py

# What a unit's training decides; "seconds", "code", "device" and "cpu" describe the run.
COMPARED = ("test_acc", "inner_scores", "chosen", "chosen_beta", "epochs_run", "best_epoch",
            "branch_gate", "learned_mix", "ib_density", "test_predicted", "min_valid_loss",
            "last_test_acc")


def argv_of(record: dict) -> list[str]:
    """``reproduce_table1.py`` arguments that plan the record's unit (among others)."""
    argv = ["--protocols", record["protocol"], "--datasets", record["dataset"],
            "--backbones", record["backbone"],
            "--learners", rt.learners_of(record["structure"])]
    for key, option in (("epochs", "--epochs"), ("n_folds", "--folds"), ("seed", "--seed"),
                        ("valid_frac", "--valid-frac"), ("inner_folds", "--inner-folds"),
                        ("max_graphs", "--max-graphs"), ("node_features", "--node-features")):
        if record.get(key) is not None:  # a key older records lack keeps its default
            argv += [option, str(record[key])]
    if record["protocol"] == "paper":
        argv += ["--betas", repr(record["beta"])]
        if record.get("patience") is not None:
            argv += ["--patience", str(record["patience"])]
    else:
        if record.get("fair_betas"):
            argv += ["--betas", *record["fair_betas"].split(",")]
        if record.get("patience") is not None:
            argv += ["--fair-patience", str(record["patience"])]
        if record.get("patience_steps") is not None:
            argv += ["--fair-patience-steps", str(record["patience_steps"])]
        if record.get("start_epoch") is not None:
            argv += ["--fair-start-epoch", str(record["start_epoch"])]
        if record.get("min_classes") is not None:
            argv += ["--fair-min-classes", str(record["min_classes"])]
        if record.get("skip_few_classes"):
            argv += ["--fair-skip-few-classes"]
        if record.get("min_class_size") is not None:
            argv += ["--fair-min-class-size", str(record["min_class_size"])]
        if record.get("inner_scoring") is not None:
            argv += ["--inner-scoring", record["inner_scoring"]]
    for item in (record.get("overrides") or "").split(","):
        if item:
            argv += ["--set", item]
    for item in (record.get("fair_grid") or "").split(" "):
        if item:
            argv += ["--grid", item]
    for item in (record.get("fair_choices") or "").split(" | "):
        if item:
            argv += ["--choose", item]
    schedule = record.get("lr_schedule")
    if schedule:
        step = re.fullmatch(r"StepLR\(step_size=(\d+), gamma=([^)]+)\)", schedule)
        if step is None:
            raise ValueError(f"cannot rebuild the learning-rate schedule {schedule!r}")
        argv += ["--lr-step", step.group(1), step.group(2)]
    return argv


def rebuild(record: dict, extra: list[str]):
    """The parsed arguments and the unit of ``record``.

    Raises
    ------
    ValueError
        If no planned unit has the record's key.
    """
    args = rt.parse([*argv_of(record), *extra])
    key = rt.unit_key(record)
    for unit in rt.plan(args):
        if rt.unit_key(unit) == key:
            return args, unit
    raise ValueError(f"cannot rebuild the unit of this record (key {list(key)}); "
                     "it may predate one of its configuration keys")


def select(path: Path, filters: dict) -> dict:
    """The one record of ``path`` that matches every filter."""
    records = [json.loads(line) for line in Path(path).read_text().splitlines()
               if line.strip()]
    found = [r for r in records if all(r.get(k) == v for k, v in filters.items())]
    if len(found) != 1:
        raise SystemExit(f"{len(found)} records of {path} match {filters}; "
                         "narrow the selection to one (--structure, --seed, --protocol)")
    return found[0]


def compare(record: dict, rerun: dict) -> list[tuple[str, object, object, bool]]:
    """Each compared field the record holds: (field, recorded, re-run, equal); a field
    that older records lack (``test_predicted``, ``cpu``, ...) is not compared."""
    return [(k, record[k], rerun.get(k), record[k] == rerun.get(k))
            for k in COMPARED if k in record]


def history_text(history) -> str:
    """A skorch history as a table: the epoch and each per-epoch number it recorded
    (losses, accuracies, densities), in the order first recorded."""
    columns = [k for k in dict.fromkeys(k for row in history for k in row)
               if k not in ("epoch", "dur") and all(
                   isinstance(row.get(k), (int, float)) and not isinstance(row.get(k), bool)
                   for row in history)]
    lines = ["epoch " + " ".join(f"{c:>13}" for c in columns)]
    for row in history:
        lines.append(f"{row['epoch']:>5} " + " ".join(f"{row[c]:>13.4f}" for c in columns))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, help="a table1_runs.jsonl")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--backbone", required=True)
    parser.add_argument("--fold", type=int, required=True)
    parser.add_argument("--structure", choices=["true", "false"], default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--protocol", default=None)
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--history", action="store_true",
                        help="also print the re-run's per-epoch history")
    args = parser.parse_args(argv)
    filters = {"dataset": args.dataset, "backbone": args.backbone, "fold": args.fold}
    if args.structure is not None:
        filters["structure"] = args.structure == "true"
    for name in ("seed", "protocol"):
        if getattr(args, name) is not None:
            filters[name] = getattr(args, name)
    record = select(args.runs, filters)
    with tempfile.TemporaryDirectory() as tmp:
        extra = ["--device", args.device, "--results-dir", tmp, "--no-checkpoints"]
        if args.data_home:
            extra += ["--data-home", args.data_home]
        run_args, unit = rebuild(record, extra)
        fitted = []
        rerun = rt.run_unit(unit, run_args, args.threads, fitted=fitted)
    if args.history:
        print(history_text(fitted[-1].history))
    print(f"record: {record.get('device')} / {record.get('cpu', 'CPU not recorded')}, "
          f"code {record.get('code')}")
    print(f"re-run: {rerun['device']} / {rerun['cpu']}, code {rt.code_version()}")
    rows = compare(record, rerun)
    unrecorded = [k for k in COMPARED if k in rerun and k not in record]
    if unrecorded:
        print(f"not recorded, not compared: {', '.join(unrecorded)}")
    for field, recorded, again, equal in rows:
        print(f"{field:>15}: {recorded!r} | {again!r} | {'equal' if equal else 'DIFFERENT'}")
    same = all(equal for *_, equal in rows)
    print("the unit reproduces its record" if same else "the unit does NOT reproduce its record")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
