"""How fast is this machine right now? A fixed reference workload, timed in CPU seconds, recorded next to every
pipeline and start-up measurement so that numbers from different machines (or one shared machine at different
hours) can be compared: wall seconds divided by the reference are roughly machine-independent.

The reference is the median CPU time of three runs of a pure-Python loop (10^7 integer additions, what job start-up
and the simulations' per-column bookkeeping are bound by) and of 10^7 standard normals from numpy's default
generator (what the simulations' hot loops are bound by). Sessions saw 0.67-0.81 s and 1.3-1.7 s for the loop on
two 2-core machines of the same kind.

    python benchmarks/machine.py        # prints both references
"""
from __future__ import annotations

import statistics
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


def reference_seconds(repeats: int = 3) -> dict[str, float]:
    """{'reference_loop_s': ..., 'reference_normals_s': ...}: median CPU seconds of ``repeats`` runs of each."""
    return {"reference_loop_s": round(statistics.median(_cpu_seconds(_loop) for _ in range(repeats)), 3),
            "reference_normals_s": round(statistics.median(_cpu_seconds(_normals) for _ in range(repeats)), 3)}


if __name__ == "__main__":
    print(", ".join(f"{k} = {v}" for k, v in reference_seconds().items()))
