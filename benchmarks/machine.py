"""How fast is this machine right now? Three fixed reference workloads, timed in CPU seconds and recorded next to
every pipeline and start-up measurement, so that numbers from different machines (or from one shared machine at
different hours) can be compared: a pipeline's wall seconds divided by the import reference are roughly
machine-independent; the loop alone is not (below).

Three references, each the median CPU time of three runs: a pure-Python loop (10^7 integer additions), 10^7 standard
normals from numpy's default generator (what the simulations' hot loops are bound by), and a fresh interpreter
importing pandas and matplotlib.pyplot (what every build job starts with). The loop alone does not predict this
pipeline, the import reference does (README's table of two machines; wall_per_import in benchmarks/pipeline.py).
Measuring takes about 8 CPU-s, outside the timed part of pipeline.py (before and after the run) and startup.py
(before).

    .venv/bin/python benchmarks/machine.py    # prints the three references (about 8 CPU-s)
"""
from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time

import numpy as np

LOOP_ADDITIONS = 10**7
NORMAL_DRAWS = 10**7


def _cpu_seconds(work) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def _loop() -> None:
    total = 0
    for i in range(LOOP_ADDITIONS):
        total += i


def _normals() -> None:
    np.random.default_rng(0).standard_normal(NORMAL_DRAWS)


def _imports() -> float:
    """CPU seconds (user + system) of a fresh interpreter that imports pandas and matplotlib.pyplot."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "import pandas, matplotlib.pyplot"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def reference_seconds(repeats: int = 3) -> dict[str, float]:
    """{'reference_loop_s', 'reference_normals_s', 'reference_import_s'}: median CPU seconds of ``repeats`` runs of
    each reference workload (module docstring)."""
    return {"reference_loop_s": round(statistics.median(_cpu_seconds(_loop) for _ in range(repeats)), 3),
            "reference_normals_s": round(statistics.median(_cpu_seconds(_normals) for _ in range(repeats)), 3),
            "reference_import_s": round(statistics.median(_imports() for _ in range(repeats)), 3)}


if __name__ == "__main__":
    print(", ".join(f"{k} = {v}" for k, v in reference_seconds().items()))
