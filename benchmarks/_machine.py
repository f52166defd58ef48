"""What the benchmark scripts record about the machine they ran on.

Shared by ``bench_speed.py``, ``bench_parallel.py``, ``memory_inputs.py``,
``reproduce_table1.py`` and the micro-benchmarks: the CPU model, the code's
git commit, the process's resident-set size and its high-water mark (Linux
``/proc``; ``ru_maxrss`` elsewhere), and the median time of a repeated step.
"""

from __future__ import annotations

import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path


def recorded_command(argv: list[str] | None = None) -> str:
    """The command line a record gives for re-running it: ``python``, the
    script relative to the repository root (where the commands run) when it
    lies inside it, and the script's arguments (``sys.argv`` by default),
    shell-quoted.

    The interpreter is written as ``python``, not ``sys.executable``: the
    path of the virtual environment a run happened to use
    (``/home/me/venv/bin/python``) means nothing on another machine, and the
    record keeps the versions that matter (torch, sklearn, ...) apart."""
    script, *args = sys.argv if argv is None else argv
    root = Path(__file__).resolve().parents[1]
    try:
        script = Path(script).resolve().relative_to(root).as_posix()
    except ValueError:
        pass  # outside the repository: as given
    return "python " + shlex.join([script, *args])


def cpu_model() -> str:
    """The CPU's model name, or the platform's processor/machine string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def code_version() -> str | None:
    """The checkout's commit, with ``+dirty`` when files under ``sk_vibgsl/``
    or ``benchmarks/`` differ from it; ``None`` outside a git checkout.

    Results (``benchmarks/results/``) do not count: a results file that a
    run appends to is not code, and must not mark the next run dirty."""
    root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--",
                    "sk_vibgsl", "benchmarks", ":(exclude)benchmarks/results")
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")


def status_mib(field: str) -> float | None:
    """A ``/proc/self/status`` size field (``VmRSS``, ``VmHWM``) in MiB, or None."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    """Reset the resident-set high-water mark (Linux ≥ 4.0); False if unavailable."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_mib() -> float:
    """The resident-set high-water mark in MiB (since the last :func:`reset_peak`)."""
    hwm = status_mib("VmHWM")
    if hwm is not None:
        return hwm
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def median_ms(step, repeats: int) -> float:
    """Median wall time of ``step()`` in milliseconds over ``repeats`` calls,
    after one warm-up call."""
    step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)
