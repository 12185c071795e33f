"""Start-up cost of every kind of workflow job: the CPU seconds a fresh Python process spends on what a job imports
before it does any work, one row per job type, written to results/benchmarks/startup.csv with the machine's speed at
the time (benchmarks/machine.py).

What a job imports at start-up, as Snakemake runs it (``script:`` rules):

* the preamble Snakemake puts in front of the script: ``snakemake.logging``, ``snakemake.iocontainers`` and the
  unpickling of the job's parameters, which imports the module of every object in them (an experiment's specs: its
  data model, arms, engine, calibration);
* the script's own top-level imports (workflow/scripts/<rule>.py, read from the file);
* for a build job, the output's builder module (catalogue.build imports it).

Each job type is measured in a fresh interpreter (user + system CPU of the whole process, interpreter start-up
included), ``--repeats`` times after one warm-up run; the CSV has the median, min and max, the wall time, and which
of the heavy libraries the job imported. Rows: one build job per catalogue output, one simulate job per experiment
output (its first spec), and the aggregate, reproduction_report, html_report and run_config jobs. Imports a job makes
later, inside the functions it calls (scipy.special in a simulation, scipy.optimize for a root), are not counted: the
job logs' "done ... (CPU-s)" lines count everything. Nothing here is asserted: the numbers are from one machine (and
vary by 10-20% with its load: compare two versions with --src, one run after the other).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from adaptive_repro.pipeline import catalogue, validation  # noqa: E402
from adaptive_repro.pipeline.specs import expand_experiments, output_of  # noqa: E402

SCRIPTS = ROOT / "workflow" / "scripts"
#: The per-job start-up budget (CPU seconds) the table marks.
BUDGET_CPU_S = 0.5
#: Libraries worth naming when a job imports them (each costs a tenth of a second or more).
NOTABLE = ("scipy.stats", "scipy.optimize", "scipy.special", "matplotlib", "pandas", "networkx", "jsonschema",
           "docutils", "jinja2", "markdown", "PIL")
#: What Snakemake's preamble imports before the script runs (besides the modules of the pickled parameters).
PREAMBLE = "import pickle\nfrom snakemake.logging import logger\nfrom snakemake.iocontainers import Snakemake"

CHILD = """
import json, resource, sys, time
{preamble}
{unpickle}
{imports}
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"cpu": usage.ru_utime + usage.ru_stime,
                  "notable": [m for m in {notable!r} if m in sys.modules]}}))
"""


def script_imports(script: str) -> str:
    """The top-level import statements of workflow/scripts/<script>.py, as source."""
    tree = ast.parse((SCRIPTS / f"{script}.py").read_text(encoding="utf-8"))
    return "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)))


def resolved_config(config_files: list[str]) -> dict:
    cfg: dict = {}
    for path in config_files:
        cfg = validation.merged(cfg, validation.load_config_file(path))
    return validation.validated(validation.with_model_blocks_replaced(cfg, config_files))


def job_types(cfg: dict, workdir: Path) -> list[tuple[str, str, str]]:
    """(job, output, child source) of every job type: the pickled parameters are written to ``workdir``."""
    specs = expand_experiments(cfg)
    by_output: dict[str, dict] = {}
    for name, spec in specs.items():
        by_output.setdefault(output_of(name), {})[name] = spec

    def unpickling(obj, stem: str) -> str:
        path = workdir / f"{stem}.pickle"
        path.write_bytes(pickle.dumps(obj, protocol=4))  # as Snakemake pickles a job's parameters
        return f"pickle.loads(open({str(path)!r}, 'rb').read())"

    def child(script: str, unpickle: str = "", extra: str = "") -> str:
        imports = script_imports(script) + (f"\n{extra}" if extra else "")
        return CHILD.format(preamble=PREAMBLE, unpickle=unpickle, imports=imports, notable=NOTABLE)

    jobs = []
    for entry in catalogue.CATALOGUE:
        unpickle = unpickling(by_output.get(entry.id, {}), f"build-{entry.id}") if entry.kind == "experiment" else ""
        builder = f"import adaptive_repro.outputs.{entry.module}"
        jobs.append(("build", entry.id, child("build_output", unpickle, builder)))
    for oid in catalogue.EXPERIMENT_OUTPUTS:
        if by_output.get(oid):
            first = next(iter(by_output[oid].values()))
            jobs.append(("simulate", oid, child("simulate_chunk", unpickling(first, f"simulate-{oid}"))))
    for script in ("aggregate_records", "reproduction_report", "html_report", "run_config"):
        jobs.append((script, "", child(script)))
    return jobs


def measure(source: str, repeats: int, src: Path = ROOT / "src") -> dict:
    """Median, min and max CPU seconds (and the median wall seconds) of ``repeats`` fresh interpreters running
    ``source`` with the package of ``src`` first on the path (as the workflow runs its jobs on the checkout)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")])))
    cpus, walls, notable = [], [], []
    for attempt in range(repeats + 1):  # the first run (bytecode compiled, files cached) is not counted
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, encoding="utf-8",
                              env=env, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        if done.returncode:
            raise RuntimeError(f"the job's imports failed:\n{done.stderr}")
        found = json.loads(done.stdout.strip().splitlines()[-1])
        if not attempt:
            continue
        cpus.append(found["cpu"])
        notable = found["notable"]
    return {"cpu_s": statistics.median(cpus), "cpu_s_min": min(cpus), "cpu_s_max": max(cpus),
            "wall_s": statistics.median(walls), "notable_imports": " ".join(notable)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configfiles", nargs="*", help="config files on top of config.yaml (the experiments' specs)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="job types to measure (e.g. build simulate)")
    parser.add_argument("--src", type=Path, default=ROOT / "src",
                        help="the package to measure (default this checkout's src/; e.g. an older version exported "
                             "with `git archive <commit> src | tar -x -C /tmp/old`, then --src /tmp/old/src)")
    parser.add_argument("--output", default="results/benchmarks/startup.csv")
    args = parser.parse_args()
    import pandas as pd
    from machine import reference_seconds

    from adaptive_repro.foundation.io import write_csv

    speed = reference_seconds()  # this machine's speed now (benchmarks/machine.py), a column of every row
    cfg = resolved_config([str(ROOT / "config.yaml"), *args.configfiles])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for job, output, source in job_types(cfg, Path(tmp)):
            if args.only and job not in args.only:
                continue
            row = {"job": job, "output": output, **measure(source, args.repeats, args.src.resolve()), **speed}
            row["within_budget"] = row["cpu_s"] <= BUDGET_CPU_S
            print(f"{job:20s} {output:26s} {row['cpu_s']:.2f} CPU-s  {row['notable_imports']}", flush=True)
            rows.append(row)
    table = pd.DataFrame(rows)
    write_csv(table, args.output)
    print(f"{int(table['within_budget'].sum())}/{len(table)} job types within {BUDGET_CPU_S} CPU-s; "
          f"median {table['cpu_s'].median():.2f}, max {table['cpu_s'].max():.2f} CPU-s "
          f"(machine reference: pandas + pyplot import {speed['reference_import_s']} CPU-s) -> {args.output}")


if __name__ == "__main__":
    main()
