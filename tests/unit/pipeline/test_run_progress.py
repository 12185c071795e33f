"""A run's progress line: the costed jobs done of those the run plans, and the CPU left as the estimates of the jobs
still to run scaled by what the finished jobs measured against their estimates."""
from __future__ import annotations

import os
import time

from adaptive_repro.pipeline import run_progress


def _finished(path, cpu, when=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"2026-12-07 10:00:00,000 started\n2026-12-07 10:00:01,000 done: 10 records ({cpu} CPU-s)\n",
                    encoding="utf-8")
    if when is not None:
        os.utime(path, (when, when))


def test_the_line_counts_the_jobs_of_this_run_and_scales_the_estimate_left(tmp_path):
    logs = tmp_path / "logs"
    a, b, c, old = (logs / "simulate" / "x" / f"{name}.log" for name in ("a", "b", "c", "old"))
    _finished(old, 5.0, when=time.time() - 3600)  # finished in an earlier run: up to date, not part of this one
    run_progress.write_plan(logs, {a: (10.0, True), b: (20.0, True), c: (40.0, True), old: (30.0, False)}, cores=2)
    assert run_progress.progress_line(logs) == ("run: 0 of 3 costed jobs done; about 1.2 min of CPU left (≈ 35.0 s on "
                                                "2 cores; estimates × 1, as measured so far)")
    _finished(a, 15.0)  # measured 1.5 times its estimate: the 60 s left become 90 s
    assert run_progress.progress_line(logs, a).startswith("run: 1 of 3 costed jobs done; about 1.5 min of CPU left "
                                                          "(≈ 45.0 s on 2 cores; estimates × 1.5")
    _finished(b, 30.0)
    _finished(c, 60.0)
    assert run_progress.progress_line(logs, c) == "run: all 3 costed jobs done (1.8 min of CPU, estimates × 1.5)"
    assert run_progress.progress_line(logs, logs / "aggregate" / "x.log") is None  # not a costed job: no line


def test_a_job_run_by_hand_without_a_plan_prints_no_line(tmp_path):
    lines = []
    run_progress.report(tmp_path, tmp_path / "a.log", lines.append)
    assert lines == [] and not (tmp_path / run_progress.PROGRESS_FILE).exists()


def test_each_line_is_printed_and_kept_in_the_runs_progress_file(tmp_path):
    job = tmp_path / "simulate" / "a.log"
    run_progress.write_plan(tmp_path, {job: (4.0, True), tmp_path / "b.log": (4.0, True)}, cores=1)
    _finished(job, 2.0)
    lines = []
    run_progress.report(tmp_path, job, lines.append)
    assert lines == ["run: 1 of 2 costed jobs done; about 2.0 s of CPU left (≈ 2.0 s on 1 core; estimates × 0.5, "
                     "as measured so far)"]
    assert (tmp_path / run_progress.PROGRESS_FILE).read_text(encoding="utf-8").rstrip().endswith(lines[0])


def test_a_run_without_a_core_count_plans_with_one(tmp_path):
    """A cluster run with an unbounded jobs limit (or none) gives no usable core count: the plan says 1."""
    import json

    for cores in (None, 10**9, 0):
        run_progress.write_plan(tmp_path, {}, cores)
        assert json.loads((tmp_path / run_progress.PLAN_FILE).read_text(encoding="utf-8"))["cores"] == 1
