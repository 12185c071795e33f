"""Benchmark of the two engines (issue: sufficient-statistic engine), written to results/benchmarks/engines.csv.

For n = d in a grid, each engine runs replicates of the dwork-signal experiment (both mechanisms, the paper's k grid)
in a fresh subprocess that reports its CPU seconds per replicate and its peak resident memory. Then both
paper-scale Dwork2015 experiments (n = d = 10,000, 100 replicates each) run through the real pipeline
(snakemake, 2 cores, default engine) in a temporary copy of the repository, and their wall time is recorded.
All numbers come from one run on one machine, so ratios between rows are meaningful; absolute times are not.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from adaptive_repro.foundation.io import write_csv  # noqa: E402

K_GRID = (0, 10, 20, 30, 45, 70, 100, 150, 200, 250, 300, 400, 500)

CHILD = """
import json, resource, sys, time
from adaptive_repro.simulation.experiments import run_replicates
from adaptive_repro.pipeline.validation import experiment_spec
n, engine, reps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
spec = experiment_spec("dwork-signal", dict(n=n, d=n, replicates=reps, k_grid=list({k_grid}),
                                            mechanisms=["standard", "dwork_code"], signal_attributes=20), engine)
start = time.process_time()
run_replicates(spec, seed=1, replicates=range(reps))
cpu = (time.process_time() - start) / reps
print(json.dumps({{"cpu_s_per_replicate": cpu,
                   "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def measure_engine(n: int, engine: str, replicates: int) -> dict:
    code = CHILD.format(k_grid=K_GRID)
    out = subprocess.run([sys.executable, "-c", code, str(n), engine, str(replicates)], check=True,
                         capture_output=True, text=True, encoding="utf-8")
    return json.loads(out.stdout.strip().splitlines()[-1])


def paper_scale_wall(cores: int) -> float:
    """Wall seconds of both paper-scale Dwork2015 experiments through the pipeline, in a temporary copy."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("Snakefile", "config.yaml"):
            shutil.copy(ROOT / name, Path(tmp) / name)
        shutil.copytree(ROOT / "workflow", Path(tmp) / "workflow")
        shutil.copytree(ROOT / "config", Path(tmp) / "config")
        snakemake = str(Path(sys.executable).with_name("snakemake"))
        start = time.perf_counter()
        subprocess.run([snakemake, "--cores", str(cores), "--configfile", "config/paper-scale.yaml",
                        "--config", "outputs=[dwork-null,dwork-signal]", "engine=auto", "--",
                        "results/tables/dwork-null.csv", "results/tables/dwork-signal.csv"],
                       cwd=tmp, check=True, capture_output=True)
        return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(ROOT / "results/benchmarks/engines.csv"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000])
    parser.add_argument("--direct-replicates", type=int, default=2)
    parser.add_argument("--fast-replicates", type=int, default=50)
    args = parser.parse_args()
    rows = []
    for n in args.sizes:
        for engine, reps in (("direct", args.direct_replicates), ("fast", args.fast_replicates)):
            result = measure_engine(n, engine, reps)
            rows.append({"measure": "per_replicate", "engine": engine, "n": n, "d": n, "replicates": reps, **result})
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    per_n = table.pivot(index="n", columns="engine", values="cpu_s_per_replicate")
    table["cpu_ratio_direct_over_fast"] = table["n"].map(per_n["direct"] / per_n["fast"])
    wall = paper_scale_wall(cores=2)
    table = pd.concat([table, pd.DataFrame([{"measure": "paper_scale_wall_s", "engine": "auto", "n": 10000,
                                             "d": 10000, "replicates": 200, "wall_s": wall}])], ignore_index=True)
    print(table.to_string(index=False))
    write_csv(table, args.output)


if __name__ == "__main__":
    main()
