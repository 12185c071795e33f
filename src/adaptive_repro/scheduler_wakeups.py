"""One wake-up timer at a time for Snakemake's job scheduler (applied by the Snakefile in the process that plans the
run), so that the scheduler does not spend the run re-checking the same waiting jobs.

What Snakemake does (checked on 9.27.1, ``snakemake/scheduling/job_scheduler.py``, ``JobScheduler.schedule`` and
``_schedule_reevalutation``): every scheduling pass ends by starting a ``threading.Timer`` that wakes the scheduler
again after the job-rate limiter's timespan (``--max-jobs-per-timespan``, 1 s by default), whether or not a wake-up
is already pending. The pass that timer wakes starts the next one, so every other wake-up (a job finishing) starts
one more chain that wakes the scheduler every second until the run ends. A run of J jobs over T seconds makes about
J T / 2 passes, and each checks the existence and size of every input file of every waiting job. Measured on this
workflow's default run (57 jobs, about 90 s on 2 cores): 1,930 passes, where one per finished job is needed, and
about 4 of Snakemake's 8 CPU-seconds. Its timers are not daemon threads either, so the run's exit waits for the
last one.

:func:`coalesce_scheduler_wakeups` keeps the scheduler's promise (a pass no later than ``delay`` seconds after each
request) with at most one pending wake-up: a request is dropped when the pending one comes no later. The wake-up
itself is Snakemake's own method with delay 0, so it releases whatever Snakemake releases. If a Snakemake release
renames the method, nothing is changed and the run is only slower (a test names the version it was checked on).
"""
from __future__ import annotations

import functools
import threading
import time
from typing import Callable

#: Snakemake's scheduler method that starts the wake-up timer (its own spelling).
REEVALUATION_METHOD = "_schedule_reevalutation"
#: Set by the Snakefile's caller to run Snakemake's scheduler unchanged (benchmarks/pipeline.py --stock-scheduler).
STOCK_SCHEDULER_VARIABLE = "ADAPTIVE_REPRO_STOCK_SCHEDULER"
_PENDING = "_adaptive_repro_wakeup_due"  # the scheduler's pending wake-up time (time.monotonic), or None
_LOCK = threading.Lock()


def _coalesced(reevaluate: Callable[[object, float], None]) -> Callable[[object, float], None]:
    """``reevaluate(scheduler, delay)`` (Snakemake's method) wrapped so that it runs on a daemon timer, and only when
    no wake-up is already due by ``delay`` seconds from now."""

    @functools.wraps(reevaluate)
    def schedule_reevaluation(scheduler: object, delay: float) -> None:
        due = time.monotonic() + delay
        with _LOCK:
            pending = getattr(scheduler, _PENDING, None)
            if pending is not None and pending <= due:
                return
            setattr(scheduler, _PENDING, due)

        def wake() -> None:
            with _LOCK:
                if getattr(scheduler, _PENDING, None) == due:
                    setattr(scheduler, _PENDING, None)
            reevaluate(scheduler, 0)

        timer = threading.Timer(delay, wake)
        timer.daemon = True  # a pending wake-up does not hold the finished run open
        timer.start()

    schedule_reevaluation.coalesced = True  # type: ignore[attr-defined]
    return schedule_reevaluation


def coalesce_scheduler_wakeups(scheduler_class: type | None = None) -> bool:
    """Replace ``scheduler_class._schedule_reevalutation`` (default: Snakemake's ``JobScheduler``) by its coalesced
    form, once. Returns whether the class has it now (False if Snakemake has no such method)."""
    if scheduler_class is None:
        from snakemake.scheduling.job_scheduler import JobScheduler

        scheduler_class = JobScheduler
    method = getattr(scheduler_class, REEVALUATION_METHOD, None)
    if method is None:
        return False
    if not getattr(method, "coalesced", False):
        setattr(scheduler_class, REEVALUATION_METHOD, _coalesced(method))
    return True
