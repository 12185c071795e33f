# Reproduction pipeline for adaptive data analysis under (Bayesian) differential privacy.
# The DAG: simulate (chunks of replicates) -> aggregate (records per output) -> output (table, figure, claims by the
# output's builder) -> report (claims registry, REPRODUCTION.md). Layout and layers: docs/ARCHITECTURE.md.
import os
import sys
import time

from snakemake.utils import min_version

# Jobs run this checkout's package (src/), whatever is installed: its files are the jobs' code inputs.
sys.path.insert(0, os.path.join(workflow.basedir, "src"))
from adaptive_repro.pipeline.sources import run_jobs_on_checkout  # noqa: E402

run_jobs_on_checkout(workflow.basedir)
from adaptive_repro.foundation.config import ConfigError
from adaptive_repro.pipeline import resources, validation

if " " in workflow.basedir:  # Snakemake writes the interpreter's path unquoted into each job's command line
    validation.refuse(ConfigError(f"the checkout's path '{workflow.basedir}' contains a space; allowed: a path "
                                  "without spaces (move or clone the repository there)"))

min_version("9.0")

# The default config next to this file, wherever Snakemake runs (-d); --configfile files are merged on top of it.
DEFAULT_CONFIG = os.path.join(workflow.basedir, "config.yaml")


configfile: DEFAULT_CONFIG


# 1. Every check of the config, before any job: files (YAML errors with file and line, duplicate keys, templates),
#    finite numbers, the JSON schema, relations; then every default filled in, once (the rules read only `config`).
try:
    _overrides = [p for p in workflow.configfiles if os.path.abspath(p) != os.path.abspath(DEFAULT_CONFIG)]
    _ordered = [DEFAULT_CONFIG, *_overrides]
    for _path in _ordered:
        validation.load_config_file(_path)  # YAML errors with file and line, duplicate keys, templates, aliases
    _merged = validation.with_model_blocks_replaced(config, _ordered)
    _resolved, EXPERIMENT_SPECS = validation.resolved_with_specs(_merged)  # every spec built once
    config.clear()  # in place: the rules, and the scripts' snakemake.config, see the resolved config
    config.update(_resolved)
except ConfigError as err:
    validation.refuse(err)

include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/outputs.smk"
include: "workflow/rules/report.smk"

# 2. Cost of every simulation before it runs: a job that needs more memory than this machine has (local runs) and a
#    run over max_cpu_hours are refused; the estimate per output is printed (also on a dry run).
if workflow.is_main_process:  # jobs re-read this file: check and print once, in the process that plans the run
    try:
        _memory_cap = resources.available_memory_mb() if workflow.local_exec else None  # a cluster node has its own
        _theory_costs = {oid: theory_cost(oid) for oid in OUTPUTS if catalogue.get(oid).kind == "theory"}
        _estimates = resources.check_and_estimate(EXPERIMENT_SPECS, chunks, replicate_cost, output_of, _memory_cap,
                                                  _theory_costs, config["max_cpu_hours"])
    except ConfigError as err:
        validation.refuse(err)
    if _estimates:
        print("Estimated cost per output from scratch (before any job; outputs that are up to date do not run; rough: "
              "machines differ by 2-3x):", file=sys.stderr)
        for _line in _estimates:
            print(f"  {_line}", file=sys.stderr)

RUN_START = time.time()  # jobs killed by a signal since then get their FAILED line from onerror


onstart:
    # the costed jobs with their estimates, for each finished job's "run: i of n jobs done, about T left" line
    from adaptive_repro.pipeline import run_progress

    from snakemake.exceptions import WorkflowError

    try:
        _cores = workflow.cores
    except WorkflowError:  # a cluster run given --jobs, not --cores: the jobs it runs at once
        _cores = workflow.nodes
    run_progress.write_plan(f"{RESULTS}/logs", planned_jobs(), _cores)


onerror:
    from adaptive_repro.pipeline.joblog import interrupted_jobs

    for _line in interrupted_jobs(log, f"{RESULTS}/logs", RUN_START):
        print(_line, file=sys.stderr)


rule all:
    input:
        [f for oid in OUTPUTS for f in output_files(oid).values()],
        # the verified records of every experiment output are results too: one deleted (or refused as corrupted and
        # then deleted, as its error says) is aggregated again, from chunks simulated again where they are missing
        [f"{RESULTS}/records/{oid}.{kind}.csv" for oid in OUTPUTS if catalogue.get(oid).kind == "experiment"
         for kind in ("records", "diagnostics")],
        f"{RESULTS}/REPRODUCTION.md",
        f"{RESULTS}/tables/claims.csv",
        f"{RESULTS}/run-config.yaml",
        f"{RESULTS}/report.html",
    default_target: True
