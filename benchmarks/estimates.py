"""How good are the workflow's cost estimates? Compares the estimate the run printed before any job (experiments:
resources.spec_cost times replicates; theory outputs: resources.theory_cost) with the CPU seconds the same jobs of the
last run in this folder measured themselves (their logs' "done" lines) and the peak memory Snakemake recorded
(results/benchmarks/rules/**.tsv), one row per output, written to results/benchmarks/estimates.csv. Run it after
`make reproduce` or `make paper-scale` (with the same config files). ``--record`` keeps the measurements in
benchmarks/recorded-costs.csv, against which tests/unit/pipeline/test_estimates.py holds every shipped config's
estimates to within 2x.

    .venv/bin/python benchmarks/estimates.py [config/correlation-power.yaml] [--results results] [--record]
"""
from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from machine import reference_seconds  # noqa: E402
from pipeline import job_costs  # noqa: E402

from adaptive_repro.foundation.io import write_csv  # noqa: E402
from adaptive_repro.pipeline import catalogue, resources, validation  # noqa: E402


def measured(results: Path) -> pd.DataFrame:
    """Per output: CPU seconds of its simulate jobs and of its build job, as the jobs measured themselves (the "done"
    lines of their logs: Snakemake's sampled benchmark files undercount), and peak memory (Snakemake's benchmark
    files: the newest digest folder of each experiment)."""
    costs = job_costs(results)
    rows = []
    bench = results / "benchmarks" / "rules"
    for oid in catalogue.OUTPUT_IDS:
        simulated = costs[costs["job"].str.startswith((f"simulate/{oid}/", f"simulate/{oid}@"))]
        if not simulated.empty:  # only the newest digest folder of each experiment (older runs stay on disk)
            folder = simulated["job"].str.rsplit("/", n=1).str[0]
            newest = folder.map(lambda f: (results / "logs" / f).stat().st_mtime)
            experiment = folder.str.rsplit("/", n=1).str[0]
            simulated = simulated[newest == newest.groupby(experiment).transform("max")]
        built = costs[costs["job"] == oid]
        if simulated.empty and built.empty:
            continue
        sims = sorted((bench / "simulate").glob(f"{oid}*/*/*.tsv"))
        peaks = [pd.to_numeric(pd.read_csv(p, sep="\t")["max_rss"], errors="coerce").max() for p in sims]
        build = bench / f"{oid}.tsv"
        rows.append({"output": oid, "simulate_cpu_s": float(simulated["cpu_s"].sum()),
                     "simulate_peak_mb": float(max(peaks)) if peaks else float("nan"),
                     "build_cpu_s": float(built["cpu_s"].sum()),
                     "build_peak_mb": float(pd.to_numeric(pd.read_csv(build, sep="\t")["max_rss"], errors="coerce")
                                            .iloc[0]) if build.exists() else float("nan")})
    return pd.DataFrame(rows)


def estimated(config_files: list[str]) -> pd.DataFrame:
    """The run's estimates (resources.output_estimates) for these config files, merged as the workflow merges them."""
    costs = resources.output_estimates(validation.validated_files(config_files))
    return pd.DataFrame([{"output": oid, "estimate_cpu_s": c.seconds, "estimate_peak_mb": c.mem_mb}
                         for oid, c in costs.items()])


#: Measured CPU seconds per output of the shipped configs on a 2-core machine of this project's kind (``--record``).
RECORDED = ROOT / "benchmarks" / "recorded-costs.csv"


def record(table: pd.DataFrame, config: str, only: list[str] | None = None) -> None:
    """Replace ``config``'s rows of RECORDED by this run's measurements, with the commit and the machine's speed; with
    ``only``, just those outputs' rows (the others keep theirs, measured on their own machine and commit)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            encoding="utf-8").stdout.strip()
    rows = table[["output", "measured_cpu_s"]].round({"measured_cpu_s": 1}).assign(
        config=config, date=datetime.date.today().isoformat(), commit=commit, **reference_seconds(repeats=1))
    # the commit as text: a short hash such as 230e330 would otherwise be read as the float 230e330 = inf
    old = pd.read_csv(RECORDED, dtype={"commit": str}) if RECORDED.exists() else pd.DataFrame(columns=rows.columns)
    if only:
        rows = rows[rows["output"].isin(only)]
    replaced = (old["config"] == config) & (old["output"].isin(rows["output"]) if only else True)
    kept = old[~replaced]
    pd.concat([kept, rows], ignore_index=True)[["config", *[c for c in rows.columns if c != "config"]]].to_csv(
        RECORDED, index=False)
    print(f"recorded {len(rows)} outputs of {config} in {RECORDED.relative_to(ROOT)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configfiles", nargs="*", help="config files on top of config.yaml, as given to the run")
    parser.add_argument("--results", default="results")
    parser.add_argument("--output", default="results/benchmarks/estimates.csv")
    parser.add_argument("--only", nargs="+", metavar="OUTPUT",
                        help="with --record: replace only these outputs' recorded rows")
    parser.add_argument("--record", action="store_true",
                        help=f"also keep this run's measurements in {RECORDED.relative_to(ROOT)} (committed; "
                             "tests/unit/pipeline/test_estimates.py holds the estimates to within 2x of them)")
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
    if args.record:
        record(table, args.configfiles[-1] if args.configfiles else "config.yaml", args.only)
    print(f"cpu ratio range {table['cpu_ratio'].min():.2f}-{table['cpu_ratio'].max():.2f}, memory ratio range "
          f"{table['memory_ratio'].min():.2f}-{table['memory_ratio'].max():.2f}")


if __name__ == "__main__":
    main()
