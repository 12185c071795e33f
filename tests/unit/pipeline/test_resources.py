"""Automatic chunking: jobs of about MIN_JOB_SECONDS, evened out, and plans that keep complete chunks on disk."""
from __future__ import annotations

from adaptive_repro.pipeline.resources import (
    MIN_JOB_SECONDS,
    ReplicateCost,
    job_resources,
    plan_chunks,
    replicates_per_job,
)


def sizes(plan) -> list[int]:
    return [len(chunk) for chunk in plan]


def test_auto_chunks_are_even_and_never_a_lone_tail():
    cost = ReplicateCost(seconds=MIN_JOB_SECONDS / 38.5, mem_mb=100.0)  # a job of MIN_JOB_SECONDS: 39 replicates
    assert sizes(plan_chunks(40, replicates_per_job("auto", 40, cost))) == [20, 20]
    assert sizes(plan_chunks(78, replicates_per_job("auto", 78, cost))) == [39, 39]
    assert sizes(plan_chunks(79, replicates_per_job("auto", 79, cost))) == [27, 27, 25]


def test_auto_chunks_respect_the_minimum_number_of_jobs_and_a_number_setting():
    cheap = ReplicateCost(seconds=0.01, mem_mb=100.0)  # thousands of replicates per job
    assert len(plan_chunks(160, replicates_per_job("auto", 160, cheap))) == 1
    expensive = ReplicateCost(seconds=MIN_JOB_SECONDS / 2, mem_mb=100.0)  # 2 replicates fill a job
    assert sizes(plan_chunks(32, replicates_per_job("auto", 32, expensive))) == [2] * 16
    assert sizes(plan_chunks(10, replicates_per_job(4, 10, cheap))) == [4, 4, 2]


def test_complete_chunks_on_disk_are_kept():
    assert [(c.start, c.stop) for c in plan_chunks(40, 20, existing=[(0, 38)])] == [(0, 39), (39, 40)]


def test_declared_runtime_covers_a_node_three_times_slower_than_the_estimates():
    """A SLURM time limit must not kill a job on a slower machine: jobs measured up to 2.95x their estimate on a
    2-core machine of the same kind as the one the estimates were fitted on (resources.RUNTIME_MARGIN)."""
    for seconds in (0.5, 10.0, 60.0, 119.0, 600.0, 3600.0):
        for replicates in (1, 7):
            runtime_minutes = job_resources(ReplicateCost(seconds=seconds, mem_mb=100.0), replicates)["runtime"]
            assert runtime_minutes * 60 >= 3 * seconds * replicates, (seconds, replicates, runtime_minutes)
