"""How long does the default pipeline take from scratch? Copies the repository's tracked files to a scratch folder,
runs ``snakemake --forceall`` there on the given cores (your results/ is untouched), and appends one row to
results/benchmarks/pipeline.csv: commit, cores, wall seconds, number of jobs, the sum of the jobs' CPU seconds (each
job's own measurement, the "done" line of its log: every job has one), the CPU seconds of the whole run (Snakemake
itself and every process it started), the five jobs with the most CPU, and this machine's speed, the mean of before
and after the run (benchmarks/machine.py: CPU seconds of a Python loop, of 10^7 normal draws and of importing pandas
and matplotlib.pyplot; wall_per_import, the wall seconds over the import's, compares runs across machines). The last
run's cost per job goes to pipeline-jobs.csv beside it. Nothing is asserted: the numbers are from one machine, and
shared machines are noisy (compare runs made one after the other). With --commit REV the run is of that commit's
files instead (e.g. the version before a speed change), run by this environment's Snakemake: two runs one after the
other give a before/after ratio on the same machine.

    python benchmarks/pipeline.py [--cores 2] [--configfile my.yaml] [--commit REV]
                                  [--output results/benchmarks/pipeline.csv]
"""
from __future__ import annotations

import argparse
import datetime
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from machine import reference_seconds

ROOT = Path(__file__).resolve().parents[1]


def tracked_copy(dest: Path) -> None:
    """The files git tracks (plus uncommitted edits to them), without results/ or the virtual environment."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True,
                           encoding="utf-8").stdout.split()
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


def committed_copy(revision: str, dest: Path) -> None:
    """The files of one commit (git archive), as they were committed."""
    archive = subprocess.run(["git", "archive", "--format=tar", revision], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


#: A job log's last line when the job finished: "... done: <what it made> (<CPU seconds of the job> CPU-s)".
DONE_LINE = re.compile(r" done: .*\(([0-9.]+) CPU-s\)\s*$")


def job_costs(results: Path) -> pd.DataFrame:
    """One row per job that finished: its log's name (results/logs/...) and the CPU seconds the job measured itself
    (time.process_time, every thread; the "done" line). Snakemake's benchmark files sample the CPU and miss the
    aggregate and report jobs, so they are not used."""
    rows = []
    for path in sorted((results / "logs").rglob("*.log")):
        found = [m for m in map(DONE_LINE.search, path.read_text(encoding="utf-8", errors="replace").splitlines()) if m]
        if found:
            rows.append({"job": str(path.relative_to(results / "logs").with_suffix("")),
                         "cpu_s": float(found[-1].group(1))})
    return pd.DataFrame(rows, columns=["job", "cpu_s"])


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--configfile", type=Path, help="a config on top of config.yaml (as CONFIG= of make reproduce)")
    ap.add_argument("--commit", help="run this commit's files instead of the working tree's (a before/after ratio)")
    ap.add_argument("--output", type=Path, default=ROOT / "results" / "benchmarks" / "pipeline.csv")
    args = ap.parse_args(argv)
    snakemake = Path(sys.executable).with_name("snakemake")
    revision = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.commit or 'HEAD'}^{{commit}}"],
                              cwd=ROOT, capture_output=True, text=True, encoding="utf-8").stdout.strip()
    if not revision:
        ap.error(f"--commit {args.commit}: not a commit of this repository (a hash, branch or tag that git knows)")
    commit = revision[:7]
    with tempfile.TemporaryDirectory(prefix="pipeline-bench-") as tmp:
        work = Path(tmp)
        if args.commit:
            committed_copy(revision, work)
        else:
            tracked_copy(work)
        cmd = [str(snakemake), "--workflow-profile", "workflow/profiles/default", "--forceall", "--cores",
               str(args.cores), "--quiet", "all"]
        if args.configfile:
            cmd[1:1] = ["--configfile", str(args.configfile.resolve())]
        speed_before = reference_seconds()
        cpu_before = _children_cpu()
        start = time.perf_counter()
        run = subprocess.run(cmd, cwd=work, capture_output=True, text=True, encoding="utf-8")
        wall = time.perf_counter() - start
        total_cpu = _children_cpu() - cpu_before
        if run.returncode:
            sys.stderr.write(run.stdout[-3000:] + run.stderr[-3000:])
            return run.returncode
        jobs = job_costs(work / "results")
    speed_after = reference_seconds()
    speed = {key: round((speed_before[key] + speed_after[key]) / 2, 3) for key in speed_before}
    top = jobs.nlargest(5, "cpu_s")
    row = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "commit": commit, "cores": args.cores,
           "config": str(args.configfile or "config.yaml"), "wall_s": round(wall, 1), "jobs": len(jobs),
           "sum_cpu_s": round(float(jobs.cpu_s.sum()), 1), "total_cpu_s": round(total_cpu, 1),
           **speed,
           "wall_per_import": round(wall / speed["reference_import_s"], 1),
           "heaviest": "; ".join(f"{r.job} {r.cpu_s:.1f}" for r in top.itertuples())}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    old = pd.read_csv(args.output) if args.output.exists() else pd.DataFrame()
    pd.concat([old, pd.DataFrame([row])], ignore_index=True).to_csv(args.output, index=False)
    jobs.sort_values("cpu_s", ascending=False).to_csv(args.output.with_name(args.output.stem + "-jobs.csv"),
                                                     index=False)
    print(", ".join(f"{k} = {v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
