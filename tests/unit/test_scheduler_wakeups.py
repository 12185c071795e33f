"""The scheduler's wake-ups are coalesced: one pending at a time, never later than asked, on daemon threads."""
from __future__ import annotations

import threading
import time

import pytest

from adaptive_repro import scheduler_wakeups

pytestmark = pytest.mark.serial  # counts timers of 20 ms in windows of 250 ms: not beside a loaded core


class FakeScheduler:
    """Stands in for Snakemake's JobScheduler: its method releases a semaphore after ``delay`` (as Snakemake's does)
    and counts the timers it starts."""

    def __init__(self) -> None:
        self.wakeups = threading.Semaphore(0)
        self.timers: list[threading.Timer] = []

    def _schedule_reevalutation(self, delay: float) -> None:
        timer = threading.Timer(delay, self.wakeups.release)
        self.timers.append(timer)
        timer.start()


def count_wakeups(scheduler: FakeScheduler, within: float) -> int:
    """Wake-ups released within ``within`` seconds from now."""
    deadline = time.monotonic() + within
    count = 0
    while scheduler.wakeups.acquire(timeout=max(0.0, deadline - time.monotonic())):
        count += 1
    return count


@pytest.fixture
def scheduler_class():
    cls = type("Scheduler", (FakeScheduler,), {})
    assert scheduler_wakeups.coalesce_scheduler_wakeups(cls)
    return cls


def test_stock_method_starts_one_chain_per_request():
    """The behaviour the module exists for: without it, every request is one more timer."""
    scheduler = FakeScheduler()
    for _ in range(20):
        scheduler._schedule_reevalutation(0.02)
    assert count_wakeups(scheduler, 0.25) == 20


def test_requests_while_one_is_pending_make_one_wakeup(scheduler_class):
    scheduler = scheduler_class()
    for _ in range(20):
        scheduler._schedule_reevalutation(0.02)
    assert count_wakeups(scheduler, 0.25) == 1
    scheduler._schedule_reevalutation(0.02)  # after the wake-up, a new request is honoured
    assert count_wakeups(scheduler, 0.25) == 1


def test_a_sooner_request_is_not_delayed_by_a_later_pending_one(scheduler_class):
    scheduler = scheduler_class()
    scheduler._schedule_reevalutation(30.0)
    start = time.monotonic()
    scheduler._schedule_reevalutation(0.02)
    assert scheduler.wakeups.acquire(timeout=5.0)
    assert time.monotonic() - start < 5.0


def test_wakeups_run_on_daemon_threads(scheduler_class):
    """A pending wake-up must not hold the finished run open (Snakemake's own timers are not daemons)."""
    before = set(threading.enumerate())
    scheduler = scheduler_class()
    scheduler._schedule_reevalutation(30.0)
    started = [t for t in threading.enumerate() if t not in before]
    assert started and all(t.daemon for t in started)


def test_coalescing_twice_wraps_once(scheduler_class):
    method = scheduler_class._schedule_reevalutation
    assert scheduler_wakeups.coalesce_scheduler_wakeups(scheduler_class)
    assert scheduler_class._schedule_reevalutation is method


def test_a_class_without_the_method_is_left_alone():
    cls = type("Other", (), {})
    assert not scheduler_wakeups.coalesce_scheduler_wakeups(cls)
    assert not hasattr(cls, scheduler_wakeups.REEVALUATION_METHOD)


def test_the_installed_snakemake_has_the_method():
    """Fails when a Snakemake upgrade renames the method (the run would then use the stock scheduler, more slowly):
    re-check the module docstring's description against the new release."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    assert callable(getattr(JobScheduler, scheduler_wakeups.REEVALUATION_METHOD, None))
