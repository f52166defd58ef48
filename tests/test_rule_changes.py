"""``benchmarks/rule_changes.py``: the units a stopping rule's re-runs changed, and the
re-runs' one-class test folds."""

from __future__ import annotations

import json

from conftest import benchmark_script

changes = benchmark_script("rule_changes")


def _write(folder, rows):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "table1_runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _record(fold, acc, best, run, predicted, **extra):
    return dict(protocol="fair", dataset="MUTAG", backbone="gcn", fold=fold, test_acc=acc,
                best_epoch=best, epochs_run=run, test_predicted=predicted, **extra)


def test_lists_the_changed_units_and_the_one_class_folds(tmp_path):
    both = {"-1": 6, "1": 13}
    old = [_record(f, 90.0, 40, 90, both) for f in range(3)]
    new = [old[0],  # reproduced
           _record(1, 84.2, 2, 52, {"-1": 5, "1": 14}, kept_valid_classes=2),  # other epoch
           _record(2, 63.2, 40, 90, {"-1": 0, "1": 19})]  # same epochs, one class
    _write(tmp_path / "old" / "observed", old)
    _write(tmp_path / "new" / "observed", new + [_record(3, 70.0, 5, 55, both)])  # no record
    result = changes.compare([(tmp_path / "new", tmp_path / "old")], ["observed"])
    assert (result["compared"], result["equal"]) == (3, 1)
    assert [key[2] for _, _, key, _, _ in result["changed"]] == [1, 2]
    assert [key[2] for _, _, key, _ in result["one_class"]] == [2]
    text = changes.markdown(result)
    assert text.startswith("# Units a stopping rule changed\n")
    assert "(re-runs ← records): new ← old. Settings: observed." in text
    assert "\n1 of 3 units equal their records" in text
    assert "| new | observed | MUTAG | GCN | 1 | 90.0 % (best epoch 40, 90 run" in text
    assert "84.2 % (best epoch 2, 52 run; -1: 5 / 1: 14) (2) | -5.8 |" in text
    assert "new observed MUTAG GCN fold 2: 63.2 %" in text


def test_no_one_class_fold_says_so(tmp_path):
    rows = [_record(0, 90.0, 40, 90, {"-1": 6, "1": 13})]
    _write(tmp_path / "old" / "observed", rows)
    _write(tmp_path / "new" / "observed", rows)
    out = tmp_path / "changes.md"
    changes.main(["--pair", str(tmp_path / "new"), str(tmp_path / "old"), "--rows",
                  "observed", "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# Units a stopping rule changed\n")
    assert f"`python rule_changes.py --pair {tmp_path / 'new'} {tmp_path / 'old'} --rows " \
        f"observed --out {out}`" in text
    assert "\n1 of 1 units equal" in text and "one class: none." in text
