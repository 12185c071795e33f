"""How far a run is: the costed jobs (simulation chunks and theory builds) the run plans, with their estimated CPU
seconds, written once when the run starts; each finished job then prints one line with the jobs done of the total
and the time left, the estimates of the jobs still to run scaled by what the finished ones measured against theirs.

Snakemake prints its own "N of M steps done"; this line adds what a user of a long run asks next: how long."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from adaptive_repro.foundation.io import write_text
from adaptive_repro.pipeline.resources import format_seconds

#: The plan's file and the run's progress lines, in the run's log folder (not ``*.log``: those are the jobs' logs).
PLAN_FILE = "run-plan.json"
PROGRESS_FILE = "run-progress.txt"
_DONE_CPU = re.compile(r"done: .*\(([0-9.]+) CPU-s\)\s*$")


def write_plan(logs_dir: str | Path, jobs: dict[str, tuple[float, bool]], cores: int | None) -> None:
    """The run's plan: for each costed job, by its log path, (estimated CPU seconds, whether it is to run: False
    for a job whose output is already there), the start time and the cores the run may use at once (1 where that
    is unknown or unbounded)."""
    cores = cores if isinstance(cores, int) and 0 < cores < 1_000_000 else 1
    plan = {"start": time.time(), "cores": cores,
            "jobs": {str(path): [float(cpu), bool(pending)] for path, (cpu, pending) in jobs.items()}}
    write_text(json.dumps(plan, sort_keys=True), Path(logs_dir) / PLAN_FILE)


def _measured(log: Path, since: float) -> float | None:
    """The CPU seconds of the job's "done:" line if its log was finished since ``since``, else None."""
    try:
        if log.stat().st_mtime < since:
            return None
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    match = next((m for m in map(_DONE_CPU.search, reversed(lines[-3:])) if m), None)
    return float(match.group(1)) if match else None


def progress_line(logs_dir: str | Path, job_log: str | Path | None = None) -> str | None:
    """"run: i of n costed jobs done; about T of CPU left (≈ W on c cores)", or None without a plan (a job run by
    hand) or when ``job_log`` (the finished job's log) is not a costed job's. A job counts toward n if it was to run
    or has run since the start; the time left is the estimates of those not done, times measured / estimated over
    those done."""
    try:
        plan = json.loads((Path(logs_dir) / PLAN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if job_log is not None and not any(Path(path).resolve() == Path(job_log).resolve() for path in plan["jobs"]):
        return None
    start, cores = float(plan["start"]), max(1, int(plan["cores"]))
    total = done = 0
    estimated_done = measured_done = estimated_left = 0.0
    for path, (cpu, pending) in plan["jobs"].items():
        measured = _measured(Path(path), start)
        if measured is None and not pending:
            continue  # up to date: not part of this run
        total += 1
        if measured is None:
            estimated_left += cpu
        else:
            done += 1
            estimated_done += cpu
            measured_done += measured
    if total == 0:
        return None
    ratio = measured_done / estimated_done if estimated_done > 0 else 1.0
    left = estimated_left * ratio
    if done == total:
        return f"run: all {total} costed jobs done ({format_seconds(measured_done)} of CPU, estimates × {ratio:.2g})"
    on = f"{cores} core{'s' if cores != 1 else ''}"
    return (f"run: {done} of {total} costed jobs done; about {format_seconds(left)} of CPU left "
            f"(≈ {format_seconds(left / cores)} on {on}; estimates × {ratio:.2g}, as measured so far)")


def report(logs_dir: str | Path, job_log: str | Path, console) -> None:
    """After a costed job (``job_log``: its log), print the run's progress line with ``console`` and append it, timed,
    to the run's progress file."""
    line = progress_line(logs_dir, job_log)
    if line is None:
        return
    console(line)
    try:
        with open(Path(logs_dir) / PROGRESS_FILE, "a", encoding="utf-8") as out:
            out.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")
    except OSError:
        pass  # the progress file is a convenience: a job that cannot write it has still finished
