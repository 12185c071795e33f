"""In a real Snakemake run, the coalesced wake-ups cut the scheduler's passes to about one per finished job and one
per second, where Snakemake's own timers add a chain per finished job (scheduler_wakeups module docstring)."""
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from conftest import ROOT, SNAKEMAKE

pytestmark = [pytest.mark.slow, pytest.mark.serial]

JOBS = 10
SNAKEFILE = f'''
import os
if workflow.is_main_process and os.environ.get("COALESCE") == "1":
    from adaptive_repro.scheduler_wakeups import coalesce_scheduler_wakeups
    assert coalesce_scheduler_wakeups()
rule all:
    input: expand("done-{{i}}", i=range({JOBS}))
rule wait:
    output: "done-{{i}}"
    shell: "sleep 0.6; touch {{output}}"
'''


def scheduler_passes(workdir: Path, coalesce: bool) -> tuple[int, float]:
    """Passes that looked at waiting jobs (Snakemake's debug line of each), and the run's wall seconds."""
    for done in workdir.glob("done-*"):
        done.unlink()
    env = {**os.environ, "COALESCE": "1" if coalesce else "0",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    start = time.monotonic()
    proc = subprocess.run([SNAKEMAKE, "--cores", "1", "--verbose"], cwd=workdir, env=env, capture_output=True,
                          text=True)
    wall = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-2000:]
    return len(re.findall(r"Resources before job selection", proc.stdout + proc.stderr)), wall


def test_coalesced_wakeups_make_about_one_pass_per_job_and_second(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    stock, _ = scheduler_passes(tmp_path, coalesce=False)
    coalesced, wall = scheduler_passes(tmp_path, coalesce=True)
    assert coalesced <= JOBS + 1 + wall + 2, (coalesced, wall)
    assert stock > 1.5 * coalesced, (stock, coalesced)  # the stock scheduler's chains, which this module removes
