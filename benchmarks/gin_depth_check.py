"""Does a deep GIN train on a dataset's observed graph, with and without batch norm?

One stratified 80/20 split (seed 0) of a TU dataset, degree features appended;
``VIBGSLClassifier(backbone="gin", structure_mix=1, hidden_dim=64, num_layers=3,
max_epochs=100, random_state=0)`` plus the ``--set`` overrides; prints the
training loss at epochs 1, 10, 50 and 100 and the held-out accuracy. A
diagnostic behind the ``observed__gdeep`` rows of the structure study (the
training loss of GIN at this depth, width 64 and ``readout="sum"`` on
IMDB-BINARY), not a benchmark.

Usage::

    python benchmarks/gin_depth_check.py --dataset IMDB-BINARY --set readout=sum
    python benchmarks/gin_depth_check.py --dataset IMDB-BINARY --set readout=sum \\
        --set module__batch_norm=True
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from _overrides import add_data_home, add_set, parse_set  # benchmarks/_overrides.py
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from sk_vibgsl import DegreeFeatures, VIBGSLClassifier
from sk_vibgsl.datasets import load_tu_dataset


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="IMDB-BINARY")
    add_data_home(parser)
    add_set(parser)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    graphs, y = load_tu_dataset(args.dataset, data_home=args.data_home,
                                download_if_missing=False, return_X_y=True)
    y = np.asarray(y)
    tr, te = train_test_split(np.arange(len(y)), test_size=0.2, stratify=y, random_state=0)
    params = {"backbone": "gin", "structure_mix": 1, "hidden_dim": 64, "num_layers": 3,
              "max_epochs": 100, "random_state": 0, **parse_set(args.set)}
    model = make_pipeline(DegreeFeatures(append=True), VIBGSLClassifier(**params))
    model.fit([graphs[i] for i in tr], y[tr])
    history = model[-1].history
    losses = [round(float(history[e, "train_loss"]), 3) for e in (0, 9, 49, 99)]
    accuracy = float((model.predict([graphs[i] for i in te]) == y[te]).mean())
    print(f"{args.set}: train_loss at epochs 1/10/50/100 {losses}; held-out accuracy "
          f"{100 * accuracy:.1f} %")


if __name__ == "__main__":
    main()
