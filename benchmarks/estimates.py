"""How good are the workflow's cost estimates? Compares the estimate the run printed before any job (experiments:
resources.spec_cost times replicates; theory outputs: resources.theory_cost) with the CPU seconds and peak memory
Snakemake recorded for the same jobs (results/benchmarks/rules/**.tsv) of the last run in this folder, one row per
output, written to results/benchmarks/estimates.csv. Run it after `make reproduce` or `make paper-scale` (with the
same config files). Nothing here is asserted: the numbers are from one machine.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from adaptive_repro.foundation.io import write_csv  # noqa: E402
from adaptive_repro.pipeline import catalogue, resources, validation  # noqa: E402
from adaptive_repro.simulation.specs import expand_experiments, output_of  # noqa: E402


def measured(results: Path) -> pd.DataFrame:
    """Per output: CPU seconds of its simulate jobs (latest spec digest folder) and its build job; peak memory."""
    rows = []
    bench = results / "benchmarks" / "rules"
    for oid in catalogue.OUTPUT_IDS:
        build = bench / f"{oid}.tsv"
        sims = sorted((bench / "simulate").glob(f"{oid}*/*/*.tsv"))
        if sims:  # only the newest digest folder of each experiment (older runs of other configs stay on disk)
            newest = {}
            for path in sims:
                key = path.parent.parent.name
                newest.setdefault(key, path.parent)
                if path.parent.stat().st_mtime > newest[key].stat().st_mtime:
                    newest[key] = path.parent
            sims = [p for p in sims if p.parent == newest[p.parent.parent.name]]
        frames = [pd.read_csv(p, sep="\t") for p in sims]
        if not frames and not build.exists():
            continue
        sim = pd.concat(frames) if frames else pd.DataFrame({"cpu_time": [], "max_rss": []})
        built = pd.read_csv(build, sep="\t") if build.exists() else pd.DataFrame({"cpu_time": [0.0], "max_rss": [0]})
        rows.append({"output": oid, "simulate_cpu_s": float(sim["cpu_time"].sum()),
                     "simulate_peak_mb": float(pd.to_numeric(sim["max_rss"], errors="coerce").max())
                     if len(sim) else float("nan"),
                     "build_cpu_s": float(built["cpu_time"].iloc[0]),
                     "build_peak_mb": float(pd.to_numeric(built["max_rss"], errors="coerce").iloc[0])})
    return pd.DataFrame(rows)


def estimated(config_files: list[str]) -> pd.DataFrame:
    cfg: dict = {}
    for path in config_files:
        cfg = validation.merged(cfg, validation.load_config_file(path))
    cfg = validation.validated(validation.with_model_blocks_replaced(cfg, config_files))
    rows = []
    specs = expand_experiments({**cfg, "experiments": {k: v for k, v in cfg["experiments"].items()
                                                       if k in cfg["outputs"]}})
    for name, spec in specs.items():
        cost = resources.spec_cost(spec)
        per_job = resources.replicates_per_job(cfg["replicates_per_job"], spec.replicates, cost)
        jobs = len(resources.plan_chunks(spec.replicates, per_job))
        rows.append({"output": output_of(name), "estimate_cpu_s": cost.seconds * spec.replicates
                     + resources.JOB_STARTUP_SECONDS * jobs, "estimate_peak_mb": cost.mem_mb})
    for oid in cfg["outputs"]:
        if catalogue.get(oid).kind == "theory":
            cost = resources.theory_cost(oid, catalogue.output_params(cfg, oid), catalogue.default_params(oid))
            rows.append({"output": oid, "estimate_cpu_s": cost.seconds, "estimate_peak_mb": cost.mem_mb})
    frame = pd.DataFrame(rows)
    return frame.groupby("output", sort=False).agg(estimate_cpu_s=("estimate_cpu_s", "sum"),
                                                   estimate_peak_mb=("estimate_peak_mb", "max")).reset_index()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configfiles", nargs="*", help="config files on top of config.yaml, as given to the run")
    parser.add_argument("--results", default="results")
    parser.add_argument("--output", default="results/benchmarks/estimates.csv")
    args = parser.parse_args()
    found = measured(Path(args.results))
    if found.empty:
        print(f"no job benchmarks under {args.results}/benchmarks/rules: run the workflow first (make reproduce)")
        return
    table = estimated(["config.yaml", *args.configfiles]).merge(found, on="output")
    theory = table["output"].map(lambda o: catalogue.get(o).kind == "theory")
    table["measured_cpu_s"] = table["simulate_cpu_s"].where(~theory, table["build_cpu_s"])
    table["measured_peak_mb"] = table["simulate_peak_mb"].where(~theory, table["build_peak_mb"])
    table["cpu_ratio"] = table["estimate_cpu_s"] / table["measured_cpu_s"]
    table["memory_ratio"] = table["estimate_peak_mb"] / table["measured_peak_mb"]
    write_csv(table, args.output)
    print(table[["output", "estimate_cpu_s", "measured_cpu_s", "cpu_ratio", "memory_ratio"]].to_string(index=False))
    print(f"cpu ratio range {table['cpu_ratio'].min():.2f}-{table['cpu_ratio'].max():.2f}, memory ratio range "
          f"{table['memory_ratio'].min():.2f}-{table['memory_ratio'].max():.2f}")


if __name__ == "__main__":
    main()
