"""Reproduce Table 1 of Sun et al. (AAAI 2022), VIB-GSL, under two protocols.

Setting (the paper's): degree node features (``DegreeFeatures``, fitted on the
training graphs only), K=16, t=0.1, a0=0.1, beta in {1e-1, ..., 1e-6},
backbones GCN/GAT/GIN, 10-fold ``StratifiedKFold(shuffle=True,
random_state=seed)``. Rows "N/A" are the same models with ``structure_mix=1.0``
(structure learning off: the GNN runs on the observed graph; the feature mask
and the bottleneck are kept) and the same beta grid, for symmetry.

Protocols
---------
paper
    Per outer fold, 10% of the training fold (stratified) is held out for
    validation. Each epoch the validation cross-entropy of the deterministic
    predictions (log-loss of ``predict_proba``; the KL term is left out) and the
    test-fold accuracy are recorded; the fold's score is the test accuracy at
    the epoch of minimum validation loss. Beta is chosen per (dataset,
    backbone) as the one with the best mean over the *test* folds: the
    paper's protocol, which is optimistic (model selection sees test data).
fair
    Nested CV (Errica et al., 2020): per outer fold an inner grid search
    (``GridSearchCV``'s choice, each inner fit saved as it finishes;
    ``--inner-folds``, default 3; ``--inner-folds 1``: one stratified holdout
    of ``--valid-frac`` of the training fold, Errica et al.'s own model
    selection, for the large datasets) over beta on the training fold, refit on the
    whole training fold, the outer test fold is scored once. Beta in the table
    is the most frequently chosen one. With ``--fair-patience P`` early
    stopping is chosen on training data too: every fit (each inner fit and the
    refit) holds out a stratified ``--valid-frac`` of *its own* training graphs,
    stops once their cross-entropy has not improved for P epochs and keeps the
    weights of its best epoch (skorch's ``ValidSplit``;
    ``sk_vibgsl.callbacks.StepEarlyStopping``, which stops where skorch's
    ``EarlyStopping`` does); with ``--fair-patience-steps S`` as well, only once
    those epochs also hold S optimizer steps (a small dataset's epoch is a few
    steps).

Epochs: ``--epochs`` defaults to 200, as the paper's protocol; in ``fair``
without ``--fair-patience`` every model is trained for that many epochs.

Each finished unit -- (protocol, dataset, backbone, structure learner on/off,
beta, fold; beta is ``null`` for ``fair``) -- is appended as one JSON line to
``RESULTS/table1_runs.jsonl``; units already there (with the same epochs,
folds, seed, ...) are skipped, so an interrupted run continues where it
stopped. ``table1.md`` and ``table1.json`` are then written from all matching
lines. A cell whose folds are not all done reads "missing (k/10 folds)".
Within a paper-protocol unit, the training state is also saved after every
epoch (``RESULTS/checkpoints/``, removed once the unit's line is written), so a
unit killed mid-way resumes after its last finished epoch and, on the same
device, ends exactly as an uninterrupted one (``benchmarks/_unit_checkpoint.py``;
``--no-checkpoints`` turns it off; ``--lr-step`` runs restart their unit). Its
line then has ``resumed_after_epoch``, and its ``seconds`` count only the time
after the resume. A fair unit saves the score of each inner fit as it finishes
(``benchmarks/_inner_search.py``): killed mid-way, it runs only the inner fits
it lacks, then its refit (from epoch 0), and makes the choice an uninterrupted
unit makes; its line then has ``resumed_inner_fits``. Every invocation
(``--report-only`` too) prints the unfinished units with saved progress and how
much (epochs, or inner fits).

Usage::

    python benchmarks/reproduce_table1.py                        # everything (days on CPU)
    python benchmarks/reproduce_table1.py --datasets IMDB-BINARY --backbones gin \\
        --protocols fair --n-jobs 2
    python benchmarks/reproduce_table1.py --datasets IMDB-BINARY IMDB-MULTI \\
        --protocols fair --fair-patience 20 --n-jobs 2 --threads 1 \\
        --results-dir benchmarks/results/fair_early_stopping   # ~45 s a unit
    python benchmarks/reproduce_table1.py --quick --results-dir /tmp/t1   # smoke test, ~30 s
    python benchmarks/reproduce_table1.py --datasets IMDB-MULTI --backbones gin \
        --betas 1e-5 --protocols paper --patience 50 --learners VIB-GSL \
        --set feature_mask=False --results-dir benchmarks/results/ablation/no_feature_mask

The last one is an ablation: ``--set key=value`` overrides a
``VIBGSLClassifier`` parameter (part of each unit's key, so ablations and the
main table can share a results file), ``--learners`` restricts the rows.
``--lr-step 50 0.5`` adds a step learning-rate schedule (skorch's
``LRScheduler`` with ``StepLR``: the rate is halved every 50 epochs, as in the
authors' code); it is part of the unit key too.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
import sklearn
import torch
from _inner_search import grid_search, load_scores, scores_path  # benchmarks/_inner_search.py
from _machine import code_version, cpu_model, recorded_command  # benchmarks/_machine.py
from _overrides import literal, parse_choice, parse_set  # benchmarks/_overrides.py
from _unit_checkpoint import (  # benchmarks/_unit_checkpoint.py
    EpochCheckpoint,
    ResumedGraphLoader,
    checkpoint_path,
    epochs_done,
    load_checkpoint,
    orphaned,
)
from joblib import Parallel, delayed
from sklearn.metrics import log_loss
from sklearn.model_selection import (
    ParameterGrid,
    StratifiedKFold,
    StratifiedShuffleSplit,
    train_test_split,
)
from sklearn.pipeline import Pipeline, make_pipeline
from skorch.callbacks import Callback, LRScheduler
from skorch.dataset import ValidSplit

import sk_vibgsl
from sk_vibgsl import DegreeFeatures, RandomWalkFeatures, VIBGSLClassifier
from sk_vibgsl.callbacks import StepEarlyStopping
from sk_vibgsl.datasets import load_tu_dataset

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ["IMDB-BINARY", "IMDB-MULTI", "REDDIT-BINARY", "COLLAB"]
SHORT = {"IMDB-BINARY": "IMDB-B", "IMDB-MULTI": "IMDB-M", "REDDIT-BINARY": "REDDIT-B",
         "COLLAB": "COLLAB"}
BETAS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
# Sun et al. 2022, Table 1: (mean, std) per dataset in DATASETS order.
PAPER = {
    ("VIB-GSL", "gin"): [(77.1, 1.4), (55.6, 2.0), (88.5, 1.8), (79.3, 2.1)],
    ("VIB-GSL", "gcn"): [(74.1, 3.3), (54.3, 1.7), (77.5, 2.4), (78.3, 1.4)],
    ("VIB-GSL", "gat"): [(75.2, 2.7), (54.1, 2.7), (78.1, 2.5), (79.1, 1.2)],
    ("N/A", "gcn"): [(70.7, 3.7), (49.7, 2.1), (73.6, 4.5), (77.6, 2.6)],
    ("N/A", "gat"): [(71.3, 3.5), (50.9, 2.7), (73.1, 2.6), (75.4, 2.4)],
    ("N/A", "gin"): [(72.1, 3.8), (49.7, 0.4), (85.4, 3.0), (78.8, 1.4)],
}
RW_STEPS = 8  # --node-features given+degree+rw: the walk length K
ERRICA = [72.7, 49.1, 91.6, 78.9]  # Errica et al. 2020, best plain GNN, fair protocol
CONFIG_KEYS = ("epochs", "n_folds", "seed", "max_graphs", "valid_frac", "inner_folds",
               "patience", "overrides", "lr_schedule", "node_features", "fair_betas",
               "fair_grid")
OPTIONAL_KEYS = ("patience_steps", "fair_choices", "inner_scoring", "start_epoch",
                 "min_classes", "skip_few_classes", "min_class_size")
"""Config keys added after units were saved: part of a unit's key only when set,
so older units (and their checkpoints' names) keep their keys."""


@lru_cache(maxsize=2)
def load(name: str, data_home: str | None, max_graphs: int | None, seed: int):
    graphs, y = load_tu_dataset(name, data_home=data_home, download_if_missing=False,
                                return_X_y=True)
    if max_graphs and max_graphs < len(graphs):  # stratified subsample
        idx, _ = train_test_split(np.arange(len(graphs)), train_size=max_graphs,
                                  stratify=y, random_state=seed)
        graphs, y = [graphs[i] for i in np.sort(idx)], y[np.sort(idx)]
    return graphs, np.asarray(y)


class ValidTestTracker(Callback):
    """Per epoch: validation log-loss and test accuracy (the paper's protocol).

    With ``patience``, training stops once the validation loss has not improved
    for that many epochs (as skorch's ``EarlyStopping`` does, by raising
    ``KeyboardInterrupt``, which ``fit`` catches); the fold's score is still the
    test accuracy at the epoch of minimum validation loss.
    """

    def __init__(self, X_valid, y_valid, X_test, y_test, patience=None):
        self.X_valid, self.y_valid, self.X_test, self.y_test = X_valid, y_valid, X_test, y_test
        self.patience = patience

    def on_epoch_end(self, net, **kwargs):
        loss = log_loss(self.y_valid, net.predict_proba(self.X_valid), labels=net.classes_)
        net.history.record("valid_logloss", float(loss))
        net.history.record("test_acc", float(np.mean(net.predict(self.X_test) == self.y_test)))
        losses = net.history[:, "valid_logloss"]
        if self.patience and len(losses) - 1 - int(np.argmin(losses)) >= self.patience:
            raise KeyboardInterrupt


def make_net(args, backbone: str, structure: bool, beta: float = 1e-3, callbacks=(), **kwargs):
    params = dict(
        beta=beta, backbone=backbone, ib_size=16, temperature=0.1, edge_threshold=0.1,
        structure_mix=0.0 if structure else 1.0, max_epochs=args.epochs,
        random_state=args.seed, device=args.device,
    )
    callbacks = list(callbacks)
    if args.lr_step:
        # Step decay per epoch: lr * factor every STEP epochs (the authors' code
        # halves the learning rate every 50 epochs).
        step, factor = args.lr_step
        callbacks.append(("lr_step", LRScheduler("StepLR", step_size=int(step), gamma=factor)))
    if callbacks:
        kwargs["callbacks"] = callbacks
    return VIBGSLClassifier(**{**params, **parse_set(args.set), **kwargs})


def fair_choices(args) -> list[dict]:
    """``--choose "k1=v1;k2=v2"`` (repeatable) as the alternative settings the inner
    search chooses between, one dict of estimator parameters each, in the order
    given (on a tie of inner scores the first wins); ``[]`` without ``--choose``."""
    return [parse_choice(choice) for choice in args.choose or []]


def search_space(args, prefix: str = "vibgslclassifier__") -> dict | list[dict]:
    """The fair protocol's inner-search space for ``GridSearchCV``/``grid_search``:
    beta and the ``--grid`` values crossed, and with ``--choose`` crossed with each
    alternative in turn (a list of grids, one per alternative, in their order)."""
    grid = {f"{prefix}beta": list(args.betas),
            **{f"{prefix}{k}": v for k, v in fair_grid(args).items()}}
    choices = fair_choices(args)
    if not choices:
        return grid
    return [{**grid, **{f"{prefix}{k}": [v] for k, v in choice.items()}} for choice in choices]


def fair_grid(args) -> dict:
    """``--grid key=v1,v2`` as an inner-search grid over estimator parameters
    (values read as Python literals), searched with beta in fair units."""
    grid = {}
    for item in args.grid or []:
        key, _, values = item.partition("=")
        grid[key] = [literal(value) for value in values.split(",")]
    return grid


def run_unit(unit: dict, args, threads: int, owner: int | None = None,
             fitted: list | None = None) -> dict:
    """Train and score one unit; ``owner`` is the run's main process id
    (checkpointing workers stop once it is gone); the unit's scored estimator
    (the paper protocol's net, the fair protocol's refit) is appended to
    ``fitted`` when given (``check_record.py --history`` reads its history)."""
    torch.set_num_threads(threads)
    start = time.perf_counter()
    graphs, y = load(unit["dataset"], args.data_home, args.max_graphs, args.seed)
    folds = StratifiedKFold(args.folds, shuffle=True, random_state=args.seed)
    train, test = list(folds.split(np.zeros(len(y)), y))[unit["fold"]]
    X_tr, y_tr = [graphs[i] for i in train], y[train]
    X_te, y_te = [graphs[i] for i in test], y[test]
    # The device goes in the record, not the key: one results file may hold
    # units from several machines (a GPU run finished on CPU).
    device = torch.cuda.get_device_name() if args.device == "cuda" else args.device
    # and the CPU with the instruction set torch's kernels use on it: the same unit on
    # another CPU may round differently and train to another fold accuracy
    out = dict(unit, device=device,
               cpu=f"{cpu_model()}, {torch.backends.cpu.get_cpu_capability()}")
    if unit["protocol"] == "paper":
        fit_i, val_i = train_test_split(np.arange(len(train)), test_size=args.valid_frac,
                                        stratify=y_tr, random_state=args.seed)
        deg = degree_features(unit).fit([X_tr[i] for i in fit_i])
        X_fit, X_val = deg.transform([X_tr[i] for i in fit_i]), deg.transform(
            [X_tr[i] for i in val_i])
        tracker = ValidTestTracker(X_val, y_tr[val_i], deg.transform(X_te), y_te,
                                   patience=args.patience)
        callbacks, resume = [("valid_test", tracker)], {}
        path = unit_checkpoint(args, unit)
        if path is not None:
            state = load_checkpoint(path, unit_key(unit))
            checkpoint = EpochCheckpoint(path, unit_key(unit), state, owner=owner)
            callbacks.append(("checkpoint", checkpoint))
            if state is not None:  # resume after the last saved epoch
                done = epochs_done(state)
                resume = dict(max_epochs=args.epochs - done, iterator_train=ResumedGraphLoader,
                              iterator_train__skip_epochs=done)
                out["resumed_after_epoch"] = done
        net = make_net(args, unit["backbone"], unit["structure"], unit["beta"],
                       callbacks=callbacks, **resume)
        net.fit(X_fit, y_tr[fit_i])
        if fitted is not None:
            fitted.append(net)
        val_loss = np.array(net.history[:, "valid_logloss"])
        test_acc = np.array(net.history[:, "test_acc"])
        best = int(np.argmin(val_loss))
        out.update(test_acc=100 * test_acc[best], best_epoch=best + 1, epochs_run=len(val_loss),
                   min_valid_loss=float(val_loss[best]), last_test_acc=100 * test_acc[-1])
    else:
        inner = (StratifiedKFold(args.inner_folds, shuffle=True, random_state=args.seed)
                 if args.inner_folds > 1 else  # one holdout (Errica et al.'s selection)
                 StratifiedShuffleSplit(1, test_size=args.valid_frac, random_state=args.seed))
        pipe = make_pipeline(degree_features(unit), make_net(args, unit["backbone"],
                                                        unit["structure"],
                                                        **fair_stopping(args, unit)))
        grid = search_space(args)
        if len(ParameterGrid(grid)) == 1:  # nothing to choose: one fit
            best_params = ParameterGrid(grid)[0]
            pipe.set_params(**best_params).fit(X_tr, y_tr)
            search = SimpleNamespace(best_estimator_=pipe,
                                     best_params_=best_params,
                                     cv_results_={"mean_test_score": []})
        else:  # GridSearchCV's choice, each inner fit's score saved as it finishes
            search = grid_search(pipe, grid, inner, X_tr, y_tr, path=inner_checkpoint(args, unit),
                                 key=unit_key(unit), orphaned=lambda: orphaned(owner),
                                 scoring=args.inner_scoring)
            if search.resumed_fits:
                out["resumed_inner_fits"] = search.resumed_fits
        best = search.best_estimator_
        if fitted is not None:
            fitted.append(best[-1])
        X_te_features = best[:-1].transform(X_te)  # once, for the IB-graphs and predictions
        ib = best[-1].ib_graphs(X_te_features)
        # how often the refit predicts each class on the test fold: a fold at its majority-class
        # rate is a collapse only if every prediction is one class (goal 3)
        predicted = best[-1].predict(X_te_features)
        out.update(test_predicted={str(c): int(np.sum(predicted == c)) for c in best.classes_},
                   test_acc=100 * float(np.mean(predicted == y_te)),  # the refit's accuracy
                   ib_density=float(np.mean([ib_density(adj) for _, adj in ib])),
                   chosen_beta=search.best_params_["vibgslclassifier__beta"],
                   chosen={k.removeprefix("vibgslclassifier__"): v
                           for k, v in search.best_params_.items()
                           if k != "vibgslclassifier__beta"},
                   # accuracy in %; a scorer's score (--inner-scoring) as it is
                   inner_scores=[float(s) if args.inner_scoring else 100 * float(s)
                                 for s in search.cv_results_["mean_test_score"]])
        if best[-1].learn_mix:  # the gate the refit learned (structure_mix is its start)
            out.update(learned_mix=best[-1].module_.mix.item())
        if getattr(best[-1], "observed_branch", False):  # the learned channel's gate α
            out.update(branch_gate=best[-1].module_.branch_gate.item())
        if unit["patience"]:  # the refit's own stopping point: the epoch its callback kept
            stop = dict(best[-1].callbacks_)["early_stopping"]
            out.update(epochs_run=len(best[-1].history), best_epoch=int(stop.best_epoch_))
            history = best[-1].history
            if stop.best_epoch_ and "valid_classes" in history[0]:
                # how many classes the kept epoch predicted on the refit's validation graphs
                # (1: a constant prediction there, whatever its cross-entropy)
                out.update(kept_valid_classes=int(
                    history[int(stop.best_epoch_) - int(history[0, "epoch"]), "valid_classes"]))
    out.update(test_acc=float(out["test_acc"]), seconds=time.perf_counter() - start)
    return out


def inner_text(args) -> str:
    """How the fair protocol's inner search splits, in words."""
    if args.inner_folds > 1:
        return f"{args.inner_folds} folds"
    return f"one stratified {args.valid_frac:.0%} holdout"


def degree_features(unit: dict) -> DegreeFeatures | Pipeline:
    """The node features of a unit: the degree alone (the paper's, for the social
    datasets, whose graphs have none), or with ``--node-features given+degree``
    the dataset's own node features with the degree appended, and with
    ``given+degree+rw`` also :data:`RW_STEPS` random-walk return probabilities
    of the observed graph (:class:`~sk_vibgsl.RandomWalkFeatures`)."""
    kind = unit.get("node_features")
    degree = DegreeFeatures(append=kind in ("given+degree", "given+degree+rw"))
    if kind == "given+degree+rw":
        return make_pipeline(degree, RandomWalkFeatures(walk_length=RW_STEPS))
    return degree


def ib_density(adj) -> float:
    """Share of a graph's node pairs joined by a non-zero edge (self-loops aside);
    ``adj`` dense, or a ``scipy.sparse`` array (``ib_graphs`` of the sparse path)."""
    n = adj.shape[0]
    if sp.issparse(adj):
        off = adj.count_nonzero() - np.count_nonzero(adj.diagonal())
    else:
        off = np.count_nonzero(adj) - np.count_nonzero(np.diagonal(adj))
    return off / (n * (n - 1)) if n > 1 else 0.0


def fair_stopping(args, unit: dict) -> dict:
    """Estimator parameters for early stopping in a fair unit (none without a patience).

    Each fit splits off a stratified ``valid_frac`` of the graphs it is given --
    an inner training fold, or the outer training fold for the refit -- and
    stops once their cross-entropy (deterministic predictions, KL left out) has
    not improved for ``patience`` epochs (and, with ``patience_steps``, for that
    many optimizer steps: :class:`~sk_vibgsl.callbacks.StepEarlyStopping`),
    restoring its best epoch's weights. The outer test fold plays no part in it.
    """
    if not unit["patience"]:
        return {}
    # patience_steps=0 stops where skorch's EarlyStopping(threshold=0) does (tested)
    stop = StepEarlyStopping(monitor="valid_ce", patience=unit["patience"],
                             patience_steps=unit.get("patience_steps") or 0, threshold=0,
                             load_best=True, start_epoch=unit.get("start_epoch") or 1,
                             min_classes=unit.get("min_classes") or 1,
                             skip_few_classes=bool(unit.get("skip_few_classes")),
                             min_class_size=unit.get("min_class_size") or 1)
    return dict(train_split=ValidSplit(args.valid_frac, stratified=True,
                                       random_state=args.seed),
                callbacks=[("early_stopping", stop)])


def unit_checkpoint(args, unit: dict) -> Path | None:
    """Epoch checkpoint file of a paper-protocol unit (``None``: not checkpointed).

    Fair units (their inner fits are kept by :func:`inner_checkpoint` instead) and
    runs with ``--lr-step`` (the scheduler's state is not saved) restart each fit
    from epoch 0.
    """
    if unit["protocol"] != "paper" or args.lr_step or args.no_checkpoints:
        return None
    return checkpoint_path(Path(args.results_dir) / "checkpoints", unit_key(unit))


def inner_checkpoint(args, unit: dict) -> Path | None:
    """File of a fair unit's finished inner-search scores (``None``: not kept).

    A fair unit killed during its inner search resumes with the inner fits it
    lacks (``benchmarks/_inner_search.py``); its refit starts from epoch 0.
    """
    if unit["protocol"] != "fair" or args.no_checkpoints:
        return None
    return scores_path(Path(args.results_dir) / "checkpoints", unit_key(unit))


def in_progress(args, units: list[dict]) -> list[tuple[dict, str]]:
    """The units among ``units`` with saved progress, and what is saved: the epochs
    of a paper unit's checkpoint, the inner fits of a fair unit's search."""
    out = []
    for unit in units:
        path = unit_checkpoint(args, unit)
        if path is not None and path.exists():
            done = epochs_done(load_checkpoint(path, unit_key(unit)))
            out.append((unit, f"{done}/{args.epochs} epochs"))
        path = inner_checkpoint(args, unit)
        if path is not None and path.exists():
            out.append((unit, f"{len(load_scores(path, unit_key(unit)))} inner fits"))
    return out


def unit_key(d: dict) -> tuple:
    # .get: units saved before a config key existed read as its default (None)
    key = tuple(d.get(k) for k in ("protocol", "dataset", "backbone", "structure", "beta", "fold",
                                   *CONFIG_KEYS))
    return key + tuple((k, d[k]) for k in OPTIONAL_KEYS if d.get(k) is not None)


def plan(args) -> list[dict]:
    config = {k: getattr(args, k if k != "n_folds" else "folds") for k in CONFIG_KEYS}
    units = []
    for protocol in args.protocols:
        # a fair unit's patience is --fair-patience (None: all epochs, no stopping);
        # its beta grid is part of its key unless it is the paper's (older records)
        unit_config = ({**config, "patience": args.fair_patience,
                        "patience_steps": args.fair_patience_steps,
                        "start_epoch": args.fair_start_epoch,
                        "min_classes": args.fair_min_classes,
                        "skip_few_classes": True if args.fair_skip_few_classes else None,
                        "min_class_size": args.fair_min_class_size,
                        "fair_betas": None if args.betas == BETAS
                        else ",".join(f"{b:g}" for b in args.betas),
                        "fair_grid": " ".join(args.grid) if args.grid else None,
                        "fair_choices": " | ".join(args.choose) if args.choose else None,
                        "inner_scoring": args.inner_scoring}
                       if protocol == "fair" else config)
        for dataset in args.datasets:
            for backbone in args.backbones:
                for structure in [s for s in (False, True) if learners_of(s) in args.learners]:
                    for beta in args.betas if protocol == "paper" else [None]:
                        for fold in args.only_folds or range(args.folds):
                            units.append(dict(protocol=protocol, dataset=dataset,
                                              backbone=backbone, structure=structure,
                                              beta=beta, fold=fold, **unit_config))
    return units


def learners_of(structure: bool) -> str:
    return "VIB-GSL" if structure else "N/A"


def fmt(mean: float, std: float) -> str:
    return f"{mean:.1f} ± {std:.1f}"


def cell(protocol: str, rows: list[dict], args) -> dict:
    """Mean ± std over folds and the chosen beta, or how many folds are done."""
    if protocol == "paper":
        by_beta = {b: [r["test_acc"] for r in rows if r["beta"] == b] for b in args.betas}
        done = min(len(v) for v in by_beta.values())
        if done < args.folds:
            return {"missing": True, "folds_done": done, "folds": args.folds}
        beta = max(args.betas, key=lambda b: np.mean(by_beta[b]))
        accs = by_beta[beta]
    else:
        accs = [r["test_acc"] for r in rows]
        if len(accs) < args.folds:
            return {"missing": True, "folds_done": len(accs), "folds": args.folds}
        beta = Counter(r["chosen_beta"] for r in rows).most_common(1)[0][0]
    return {"mean": float(np.mean(accs)), "std": float(np.std(accs)), "beta": beta,
            "folds": args.folds}


def aggregate(records: list[dict], args, meta: dict) -> None:
    table = {}
    for protocol in args.protocols:
        table[protocol] = {}
        for learner in [x for x in ("N/A", "VIB-GSL") if x in args.learners]:
            for backbone in args.backbones:
                row = {}
                for dataset in args.datasets:
                    rows = [r for r in records if (r["protocol"], r["dataset"], r["backbone"],
                            r["structure"]) == (protocol, dataset, backbone,
                                                learner == "VIB-GSL")]
                    row[dataset] = cell(protocol, rows, args)
                table[protocol][f"{learner} {backbone}"] = row
    paper = {f"{s} {b}": {d: {"mean": m, "std": sd} for d, (m, sd) in zip(DATASETS, v)}
             for (s, b), v in PAPER.items()}
    out = {"meta": meta, "table": table, "paper_table1": paper,
           "errica2020_fair_best_plain_gnn": dict(zip(DATASETS, ERRICA))}
    results = Path(args.results_dir)
    (results / "table1.json").write_text(json.dumps(out, indent=2))

    def show(c: dict) -> str:
        if c.get("missing"):
            return f"missing ({c['folds_done']}/{c['folds']} folds)"
        return f"{fmt(c['mean'], c['std'])} (β={c['beta']:g})"

    lines = ["# Table 1 (Sun et al., AAAI 2022): VIB-GSL vs the same GNN without structure "
             "learning", ""]
    command = f"`{meta['command']}`"
    if args.note:
        # The note is shown in full above the command; inside it, it would
        # break the code span (it may hold backticks and newlines).
        lines += [args.note, ""]
        command = command.replace(shlex.quote(args.note), "NOTE") + " (NOTE: the text above)"
    lines += [f"Command: {command}  ",
             f"Machine: {meta['machine']}  ", f"Versions: {meta['versions']}  ",
             f"Epochs: {args.epochs} (the paper's protocol: 200); folds: {args.folds}; "
             f"patience: {args.patience} (fair protocol: {args.fair_patience}"
             + (f", and {args.fair_patience_steps} steps" if args.fair_patience_steps else "")
             + "); "
             f"seed: {args.seed}; max graphs: {args.max_graphs}; "
             f"estimator overrides (--set): {args.overrides}; "
             f"learning-rate schedule: {args.lr_schedule}; this invocation's wall "
             f"time: {meta['wall_s']:.0f} s; summed unit time: {meta['unit_s']:.0f} s  ",
             f"Units by device: {meta['unit_devices']}  ",
             f"Units by code (the commit each run started from): "
             f"{meta.get('unit_code', 'unrecorded')}", "",
             "Accuracy in %, mean ± std (population std) over the outer test folds. "
             "`paper`: test accuracy at the epoch of minimum validation loss, β picked by "
             "the best mean test accuracy — the paper's protocol, optimistic since model "
             "selection sees the test folds. `fair`: nested CV, inner GridSearchCV over β "
             f"({inner_text(args)}), test fold used once; β shown is the most often "
             "chosen"
             + (f"; the inner search also chooses --grid {' '.join(args.grid)}"
                if args.grid else "")
             + (f"; the inner search chooses between the settings {' | '.join(args.choose)}"
                " (on a tie the first)" if args.choose and len(args.choose) > 1 else "")
             + (f"; inner fits scored by {args.inner_scoring} instead of accuracy"
                if args.inner_scoring else "")
             + (f"; every fit stops early on a stratified {args.valid_frac:g} of its own "
                f"training graphs (patience {args.fair_patience}"
                + (f" epochs and {args.fair_patience_steps} optimizer steps"
                   if args.fair_patience_steps else "")
                + (f", no epoch before the {args.fair_start_epoch}th kept"
                   if args.fair_start_epoch else "")
                + (f", no epoch kept whose validation predictions hold fewer than "
                   f"{args.fair_min_classes} classes"
                   + (f" of at least {args.fair_min_class_size} graphs each"
                      if args.fair_min_class_size else "")
                   + (" (such epochs skipped, not counted as misses)"
                      if args.fair_skip_few_classes else "")
                   if args.fair_min_classes else "")
                + ", best epoch's weights kept)"
                if args.fair_patience else f"; every fit runs all {args.epochs} epochs")
             + ". N/A = structure_mix=1.0 (observed graph, same bottleneck, same β grid).",
             ""]
    for protocol in args.protocols:
        head = [SHORT.get(d, d) for d in args.datasets]
        lines += [f"## Protocol: {protocol}", "",
                  "| structure learner | backbone | " + " | ".join(
                      f"{h} (ours) | {h} (paper)" for h in head) + " |",
                  "|---|---|" + "---:|---:|" * len(head)]
        for name, row in table[protocol].items():
            learner, backbone = name.split()
            cells = []
            for dataset in args.datasets:
                ref = paper.get(name, {}).get(dataset)
                cells += [show(row[dataset]), fmt(ref["mean"], ref["std"]) if ref else "—"]
            lines.append(f"| {learner} | {backbone.upper()} | " + " | ".join(cells) + " |")
        lines += ["| Errica et al. 2020 (fair, best plain GNN) | — | " + " | ".join(
            f"— | {dict(zip(DATASETS, ERRICA)).get(d, '—')}" for d in args.datasets) + " |", ""]
    (results / "table1.md").write_text("\n".join(lines) + "\n")


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = ROOT.parent / "shared" / "datasets"
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--backbones", nargs="+", default=["gcn", "gat", "gin"],
                        choices=["gcn", "gat", "gin"])
    parser.add_argument("--betas", nargs="+", type=float, default=BETAS)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--inner-folds", type=int, default=3,
                        help="fair protocol: folds of the inner search; 1 selects on one "
                             "stratified holdout of --valid-frac of the training fold "
                             "(Errica et al.'s selection; 3 fits per outer fold, not 7)")
    parser.add_argument("--valid-frac", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--patience", type=int, default=None,
                        help="paper protocol: stop a fold once the validation loss has not "
                             "improved for this many epochs (default: run all epochs)")
    parser.add_argument("--fair-patience", type=int, default=None,
                        help="fair protocol: every fit (inner and refit) stops once the "
                             "cross-entropy on a stratified --valid-frac of its own training "
                             "graphs has not improved for this many epochs and keeps its best "
                             "epoch (default: all epochs, no early stopping)")
    parser.add_argument("--fair-patience-steps", type=int, default=None,
                        help="fair protocol, with --fair-patience: stop only once the epochs "
                             "without improvement also hold this many optimizer steps "
                             "(sk_vibgsl.callbacks.StepEarlyStopping; MUTAG's epoch is 3 "
                             "steps). Default: the patience counts epochs only")
    parser.add_argument("--fair-start-epoch", type=int, default=None,
                        help="fair protocol, with --fair-patience: the first epoch that "
                             "early stopping may keep (StepEarlyStopping's start_epoch); the "
                             "epochs before it are neither kept nor counted as misses")
    parser.add_argument("--fair-min-classes", type=int, default=None,
                        help="fair protocol, with --fair-patience: early stopping keeps no "
                             "epoch whose predictions on the fit's validation graphs hold "
                             "fewer than this many classes (StepEarlyStopping's "
                             "min_classes; 2: no epoch that predicts one class)")
    parser.add_argument("--fair-skip-few-classes", action="store_true",
                        help="with --fair-min-classes: an epoch with too few classes after "
                             "the first kept one is skipped, not counted as a miss "
                             "(StepEarlyStopping's skip_few_classes=True)")
    parser.add_argument("--fair-min-class-size", type=int, default=None,
                        help="with --fair-min-classes: a class counts among an epoch's "
                             "classes only when at least this many validation graphs are "
                             "predicted in it (StepEarlyStopping's min_class_size)")
    parser.add_argument("--only-folds", type=int, nargs="+", default=None,
                        help="run only these outer folds (0-based) of the --folds split, "
                             "e.g. the units a change of the stopping rule can change; the "
                             "report then counts the others as missing")
    parser.add_argument("--report-only", action="store_true",
                        help="run nothing; write table1.md/json from the saved units")
    parser.add_argument("--protocols", nargs="+", default=["paper", "fair"],
                        choices=["paper", "fair"])
    parser.add_argument("--data-home", default=str(shared) if shared.is_dir() else None)
    parser.add_argument("--max-graphs", type=int, default=None,
                        help="stratified subsample of each dataset (for smoke tests)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads per job (default: cores // n_jobs)")
    parser.add_argument("--results-dir", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--learners", nargs="+", default=["N/A", "VIB-GSL"],
                        choices=["N/A", "VIB-GSL"], help="rows to run (default: both)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="override a VIBGSLClassifier parameter (ablations), e.g. "
                             "--set feature_mask=False; repeatable")
    parser.add_argument("--grid", action="append", metavar="KEY=V1,V2",
                        help="fair protocol: also search this VIBGSLClassifier parameter "
                             "over these values in the inner cross-validation (with "
                             "--betas), e.g. --grid structure_mix=0.5,1.0; repeatable")
    parser.add_argument("--choose", action="append", metavar="KEY=V[;KEY=V...]",
                        help="fair protocol: an alternative setting of VIBGSLClassifier "
                             "parameters; with two or more, the inner search chooses between "
                             "them (crossed with --betas and --grid; on a tie the first "
                             "given wins), e.g. --choose structure_mix=1.0 --choose "
                             "'observed_branch=True;edge_score=cosine;structure_k=4'; "
                             "repeatable")
    parser.add_argument("--inner-scoring", default=None, choices=["neg_log_loss"],
                        help="fair protocol: score the inner search's fits by this "
                             "scikit-learn scorer (GridSearchCV's scoring) instead of "
                             "accuracy, e.g. neg_log_loss: the cross-entropy of the "
                             "predicted probabilities, which tells apart two settings "
                             "that classify the same few validation graphs right")
    parser.add_argument("--lr-step", nargs=2, type=float, metavar=("EPOCHS", "FACTOR"),
                        help="multiply the learning rate by FACTOR every EPOCHS epochs "
                             "(ablation; the authors' code uses 50 0.5)")
    parser.add_argument("--no-checkpoints", action="store_true",
                        help="paper protocol: do not save each unit's state after every epoch "
                             "(RESULTS/checkpoints/; by default a killed unit resumes from its "
                             "last finished epoch)")
    parser.add_argument("--note", default=None,
                        help="text for the head of table1.md and the meta of table1.json "
                             "(e.g. where earlier units ran)")
    parser.add_argument("--node-features", choices=["degree", "given+degree", "given+degree+rw"],
                        default=None,
                        help="node features: the degree alone (default, the paper's), "
                             "the dataset's node features with the degree appended "
                             "(MUTAG, NCI1), or those and 8 random-walk return "
                             "probabilities (RandomWalkFeatures)")
    parser.add_argument("--quick", action="store_true",
                        help="IMDB-BINARY (60 graphs), 2 folds, 2 epochs, 2 betas, GIN")
    args = parser.parse_args(argv)
    if args.inner_folds < 1:
        parser.error("--inner-folds must be >= 1")
    if args.fair_patience_steps is not None and (
            args.fair_patience_steps < 1 or not args.fair_patience):
        parser.error("--fair-patience-steps must be >= 1 and needs --fair-patience")
    if args.fair_start_epoch is not None and (
            args.fair_start_epoch < 2 or not args.fair_patience):
        parser.error("--fair-start-epoch must be >= 2 and needs --fair-patience")
    if args.fair_min_classes is not None and (
            args.fair_min_classes < 2 or not args.fair_patience):
        parser.error("--fair-min-classes must be >= 2 and needs --fair-patience")
    if args.fair_skip_few_classes and not args.fair_min_classes:
        parser.error("--fair-skip-few-classes needs --fair-min-classes")
    if args.fair_min_class_size is not None and (
            args.fair_min_class_size < 2 or not args.fair_min_classes):
        parser.error("--fair-min-class-size must be >= 2 and needs --fair-min-classes")
    if args.only_folds is not None and not all(0 <= f < args.folds for f in args.only_folds):
        parser.error(f"--only-folds must be among 0 … {args.folds - 1}")
    args.overrides = ",".join(sorted(args.set)) if args.set else None
    args.fair_betas = None  # set per fair unit in plan()
    args.fair_grid = None
    if args.lr_step and (args.lr_step[0] < 1 or args.lr_step[0] != int(args.lr_step[0])):
        parser.error(f"--lr-step EPOCHS must be a positive integer, got {args.lr_step[0]:g}")
    args.lr_schedule = (f"StepLR(step_size={int(args.lr_step[0])}, gamma={args.lr_step[1]:g})"
                        if args.lr_step else None)
    if args.quick:
        args.datasets, args.max_graphs, args.folds, args.epochs = ["IMDB-BINARY"], 60, 2, 2
        args.betas, args.backbones, args.inner_folds = [1e-2, 1e-4], ["gin"], 2
        args.protocols = ["paper", "fair"]
    return args


def main(argv=None) -> None:
    args = parse(argv)
    started = time.perf_counter()
    command = recorded_command()
    results = Path(args.results_dir)
    results.mkdir(parents=True, exist_ok=True)
    runs = results / "table1_runs.jsonl"
    done = {}
    if runs.exists():
        for line in runs.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                done[unit_key(record)] = record
    units = plan(args)
    missing = [u for u in units if unit_key(u) not in done]
    todo = [] if args.report_only else missing
    print(f"{len(units)} units, {len(units) - len(missing)} already done, {len(todo)} to run"
          + (f" (report only: {len(missing)} not run)" if args.report_only else ""), flush=True)
    for unit, saved in in_progress(args, missing):
        print(f"  {unit['protocol']} {unit['dataset']} {unit['backbone']} "
              f"{learners_of(unit['structure'])} beta={unit['beta']} fold={unit['fold']}: "
              f"{saved} saved, resumes there", flush=True)
    threads = args.threads or max(1, (os.cpu_count() or 1) // max(1, args.n_jobs))
    # Workers import this file as a module (not ``__main__``), so that each keeps
    # its loaded datasets cached between units.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from reproduce_table1 import run_unit as worker

    jobs = Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(worker)(u, args, threads, os.getpid()) for u in todo)
    code = code_version()
    for record in jobs:
        record["code"] = code  # the commit this run started from
        # Open per record: a file replaced while a long run goes on (a git
        # checkout, a sync) must not swallow the results that follow.
        with runs.open("a") as fh:
            fh.write(json.dumps(record) + "\n")
        for path in (unit_checkpoint(args, record), inner_checkpoint(args, record)):
            if path is not None:  # the record is saved: its progress is no longer needed
                path.unlink(missing_ok=True)
        done[unit_key(record)] = record
        print(f"{record['protocol']} {record['dataset']} {record['backbone']} "
              f"structure={record['structure']} beta={record['beta']} "
              f"fold={record['fold']}: {record['test_acc']:.1f}% "
              f"({record['seconds']:.1f} s, {record.get('epochs_run', '-')} epochs)",
              flush=True)
    wanted = {unit_key(u) for u in units}
    records = [r for k, r in done.items() if k in wanted]
    meta = {
        "command": command,
        "machine": f"{cpu_model()}, {os.cpu_count()} cores, device {args.device}"
                   + (f" ({torch.cuda.get_device_name()})" if args.device == "cuda" else ""),
        "versions": {"sk_vibgsl": sk_vibgsl.__version__, "torch": torch.__version__,
                     "sklearn": sklearn.__version__, "python": platform.python_version()},
        "epochs": args.epochs, "patience": args.patience,
        "fair_patience": args.fair_patience,
        "fair_patience_steps": args.fair_patience_steps, "folds": args.folds,
        "node_features": args.node_features,
        "lr_schedule": args.lr_schedule,
        "inner_folds": args.inner_folds,
        "seed": args.seed, "max_graphs": args.max_graphs, "betas": args.betas,
        "wall_s": time.perf_counter() - started,
        "unit_s": sum(r["seconds"] for r in records),
        # units saved before records named their device read as "unrecorded"
        "unit_devices": dict(Counter(r.get("device", "unrecorded") for r in records)),
        "unit_code": dict(Counter(r.get("code") or "unrecorded" for r in records)),
        "note": args.note,
    }
    aggregate(records, args, meta)
    print(f"wrote {results / 'table1.md'} and table1.json", flush=True)


if __name__ == "__main__":
    main()
