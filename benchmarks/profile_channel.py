"""Where a training epoch of the learned channel goes: host synchronisations and kernels.

Fits ``LEARNED_CHANNEL_PARAMS`` (GCN) for one epoch on ``--n-train`` graphs of a TU dataset
(degree features, batches of 100), times one more epoch on the classifier's own batches,
then, on a GPU, lists where two training steps synchronise with the host
(``torch.cuda.set_sync_debug_mode("warn")``, by the library's calling line) and profiles a
third epoch with ``torch.profiler`` (operators by device time and by host time, and the
number of kernel launches). On the CPU the profile alone is printed.

    python benchmarks/profile_channel.py --dataset REDDIT-BINARY --n-train 400 --device cuda \
        [--data-home ../shared/datasets]

Prints to standard output (the record ``benchmarks/results/speed_gpu_top_k_block`` quotes
such a run on an H200).
"""

from __future__ import annotations

import argparse
import collections
import time
import traceback
import warnings

import torch
from bench_top_k_block import degree_sample, train_epoch  # benchmarks/
from torch.profiler import ProfilerActivity, profile

from sk_vibgsl import LEARNED_CHANNEL_PARAMS, VIBGSLClassifier

_LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx")


def _synchronising_lines(clf, batches, device: str) -> collections.Counter:
    """The library lines (and their callers) where two training steps synchronise."""
    found: collections.Counter = collections.Counter()

    def show(message, category, filename, lineno, file=None, line=None):
        stack = [f for f in traceback.extract_stack()
                 if any(s in f.filename for s in ("sk_vibgsl", "skorch", "torch/optim"))]
        where = " <- ".join(f"{f.filename.split('/')[-1]}:{f.lineno} {(f.line or '')[:50]}"
                            for f in stack[::-1][:2])
        found[where or filename] += 1

    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = show
            train_epoch(clf, batches[:2], device)
    finally:
        torch.cuda.set_sync_debug_mode(0)
    return found


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="REDDIT-BINARY")
    parser.add_argument("--n-train", type=int, default=400)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--data-home", default="../shared/datasets")
    args = parser.parse_args(argv)
    device, cuda = args.device, args.device.startswith("cuda")
    graphs, y = degree_sample(args.dataset, args.n_train, args.data_home)
    clf = VIBGSLClassifier(**LEARNED_CHANNEL_PARAMS, batch_size=100, max_epochs=1,
                           train_split=None, device=device, random_state=0).fit(graphs, y)
    batches = list(clf.get_iterator(clf.get_dataset(graphs, y), training=True))
    start = time.perf_counter()
    train_epoch(clf, batches, device)
    print(f"== {args.dataset}: epoch of {len(batches)} batches "
          f"{time.perf_counter() - start:.3f} s")
    if cuda:
        syncs = _synchronising_lines(clf, batches, device)
        print(f"== host synchronisations in 2 training steps: {sum(syncs.values())}")
        for where, n in syncs.most_common(25):
            print(f"{n:5d} {where}")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        train_epoch(clf, batches, device)
    table = prof.key_averages()
    if cuda:
        print(table.table(sort_by="self_device_time_total", row_limit=30,
                          max_name_column_width=60))
    print(table.table(sort_by="self_cpu_time_total", row_limit=30, max_name_column_width=60))
    print(f"== kernel launches: {sum(e.count for e in table if e.key in _LAUNCHES)}")


if __name__ == "__main__":
    main()
