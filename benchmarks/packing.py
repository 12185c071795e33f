"""Would a run keep many cores busy? Simulates the schedule of a run from the workflow's own plan: every job the run
would start (simulation chunks sized by resources.replicates_per_job, one aggregation per experiment output, one
build per output, the report), each lasting its estimated CPU seconds (resources.spec_cost, resources.theory_cost),
started in the workflow's priority order (resources.job_priority: longest chain first, aggregations at once) on
``--cores`` cores as soon as its inputs exist. Appends per core count: jobs, estimated CPU seconds, the simulated
wall time, the lower bound max(CPU / cores, longest chain) and the cores' utilisation to
results/benchmarks/packing.csv. It measures the plan, not the machine: compare with pipeline.csv (measured wall time
on this machine) and estimates.csv (estimate against measurement per output).

    python benchmarks/packing.py [--configfile config/paper-scale.yaml] [--cores 2 16]
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import heapq
import sys
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from adaptive_repro.foundation.io import write_csv  # noqa: E402
from adaptive_repro.pipeline import catalogue, resources, validation  # noqa: E402
from adaptive_repro.pipeline.catalogue import default_params, output_params  # noqa: E402
from adaptive_repro.pipeline.specs import expand_experiments, output_of  # noqa: E402

#: Estimated CPU seconds of the jobs without a cost model: an aggregation, an experiment output's build, the reports.
AGGREGATE_SECONDS, EXPERIMENT_BUILD_SECONDS, REPORT_SECONDS = 0.5, resources.DOWNSTREAM_SECONDS, 4.0


@dataclasses.dataclass
class Job:
    name: str
    seconds: float
    priority: int
    needs: list[str]


def planned_jobs(config: dict) -> list[Job]:
    """Every job of a run from scratch with its estimate, priority and the jobs it waits for."""
    jobs, per_output = [], {}
    for name, spec in expand_experiments(config).items():
        cost = resources.spec_cost(spec)
        per_job = resources.replicates_per_job(config["replicates_per_job"], spec.replicates, cost)
        for chunk in resources.plan_chunks(spec.replicates, per_job):
            seconds = resources.JOB_STARTUP_SECONDS + cost.seconds * len(chunk)
            job = Job(f"simulate {name} {chunk[0]}-{chunk[-1]}", seconds,
                      resources.job_priority(cost.seconds * len(chunk), resources.DOWNSTREAM_SECONDS), [])
            jobs.append(job)
            per_output.setdefault(output_of(name), []).append(job.name)
    for oid in config["outputs"]:
        if catalogue.get(oid).kind == "theory":
            cost = resources.theory_cost(oid, output_params(config, oid), default_params(oid))
            jobs.append(Job(f"build {oid}", cost.seconds, resources.job_priority(cost.seconds), []))
        else:
            jobs.append(Job(f"aggregate {oid}", AGGREGATE_SECONDS, resources.AGGREGATE_PRIORITY, per_output[oid]))
            jobs.append(Job(f"build {oid}", EXPERIMENT_BUILD_SECONDS,
                            resources.job_priority(resources.DOWNSTREAM_SECONDS), [f"aggregate {oid}"]))
    jobs.append(Job("report", REPORT_SECONDS, 0, [f"build {oid}" for oid in config["outputs"]]))
    return jobs


def simulate(jobs: list[Job], cores: int) -> tuple[float, float]:
    """(simulated wall seconds, longest chain) of list scheduling ``jobs`` on ``cores``: whenever a core is free, the
    ready job of highest priority starts (ties: plan order), as Snakemake's scheduler picks by priority."""
    by_name = {j.name: j for j in jobs}
    waiting = {j.name: set(j.needs) for j in jobs}
    dependants: dict[str, list[str]] = {}
    for j in jobs:
        for need in j.needs:
            dependants.setdefault(need, []).append(j.name)
    order = {j.name: i for i, j in enumerate(jobs)}
    ready = [(-j.priority, order[j.name], j.name) for j in jobs if not j.needs]
    heapq.heapify(ready)
    running: list[tuple[float, str]] = []
    now, free = 0.0, cores
    while ready or running:
        while free and ready:
            _, _, name = heapq.heappop(ready)
            heapq.heappush(running, (now + by_name[name].seconds, name))
            free -= 1
        now, name = heapq.heappop(running)
        free += 1
        for child in dependants.get(name, []):
            waiting[child].discard(name)
            if not waiting[child]:
                heapq.heappush(ready, (-by_name[child].priority, order[child], child))
    chain: dict[str, float] = {}
    for j in jobs:  # plan order lists every job after the jobs it needs
        chain[j.name] = j.seconds + max((chain[n] for n in j.needs), default=0.0)
    return now, max(chain.values())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configfile", type=Path, help="a config on top of config.yaml (as CONFIG= of make reproduce)")
    ap.add_argument("--cores", type=int, nargs="+", default=[2, 16])
    ap.add_argument("--output", type=Path, default=ROOT / "results" / "benchmarks" / "packing.csv")
    args = ap.parse_args(argv)
    paths = [ROOT / "config.yaml", *([args.configfile] if args.configfile else [])]
    merged: dict = {}
    for path in paths:
        merged = validation.merged(merged, yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    config = validation.validated(validation.with_model_blocks_replaced(merged, paths))
    jobs = planned_jobs(config)
    cpu = sum(j.seconds for j in jobs)
    rows = []
    for cores in args.cores:
        wall, chain = simulate(jobs, cores)
        bound = max(cpu / cores, chain)
        rows.append({"date": datetime.datetime.now().isoformat(timespec="seconds"),
                     "config": str(args.configfile or "config.yaml"), "cores": cores, "jobs": len(jobs),
                     "estimated_cpu_s": round(cpu, 1), "simulated_wall_s": round(wall, 1),
                     "lower_bound_s": round(bound, 1), "longest_chain_s": round(chain, 1),
                     "utilisation": round(cpu / (cores * wall), 3)})
        print(", ".join(f"{k} = {v}" for k, v in rows[-1].items()))
    frame = pd.DataFrame(rows)
    if args.output.exists():
        frame = pd.concat([pd.read_csv(args.output), frame], ignore_index=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_csv(frame, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
