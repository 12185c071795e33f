# Reproduction pipeline for adaptive data analysis under (Bayesian) differential privacy.
# The DAG: simulate (chunks of replicates) -> aggregate (records per output) -> output (table, figure, claims by the
# output's builder) -> report (claims registry, REPRODUCTION.md). Layout and layers: docs/ARCHITECTURE.md.
import os
import sys

from snakemake.utils import min_version

# Jobs run this checkout's package (src/), whatever is installed: its files are the jobs' code inputs.
sys.path.insert(0, os.path.join(workflow.basedir, "src"))
from adaptive_repro.joblog import mark_workflow_process  # noqa: E402
from adaptive_repro.scheduler_wakeups import STOCK_SCHEDULER_VARIABLE, coalesce_scheduler_wakeups  # noqa: E402
from adaptive_repro.sources import compile_bytecode, run_jobs_on_checkout  # noqa: E402

run_jobs_on_checkout(workflow.basedir)
if workflow.is_main_process:
    compile_bytecode(workflow.basedir)  # once, so that no job compiles the package's modules again
    if os.environ.get(STOCK_SCHEDULER_VARIABLE) != "1":
        coalesce_scheduler_wakeups()  # one pending scheduler wake-up, not one more per finished job
mark_workflow_process()  # its jobs watch this process and stop if it dies
from adaptive_repro.config import ConfigError
from adaptive_repro import resources, validation

min_version("9.0")

configfile: "config.yaml"


# 1. Every check of the config, before any job: files (YAML errors with file and line, duplicate keys), finite
#    numbers, the JSON schema, relations; then every default filled in, once (the rules read only this `config`).
try:
    validation.check_config_files(workflow.configfiles)
    # precedence: the configfile directive's file(s), then the --configfile files in order (they override it)
    _overrides = [os.path.abspath(p) for p in (workflow.overwrite_configfiles or [])]
    _ordered = [p for p in workflow.configfiles if os.path.abspath(p) not in _overrides] + _overrides
    _resolved = validation.validated(validation.with_model_blocks_replaced(config, _ordered))
    config.clear()  # in place: the rules, and the scripts' snakemake.config, see the resolved config
    config.update(_resolved)
except ConfigError as err:
    validation.refuse(err)

include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/outputs.smk"
include: "workflow/rules/report.smk"

# 2. Cost of every simulation before it runs: jobs that cannot fit are refused; local runs share the machine's
#    available memory unless --resources mem_mb is given; the estimate per output is printed (also on a dry run).
if workflow.is_main_process:  # jobs re-read this file: check and print once, in the process that plans the run
    try:
        _memory_cap = getattr(workflow.global_resources.get("mem_mb"), "value", None)
        if _memory_cap is None and workflow.local_exec:
            from snakemake.resources import Resource

            _memory_cap = resources.available_memory_mb()  # on a cluster each node has its own: no cap here
            workflow.global_resources["mem_mb"] = Resource("mem_mb", _memory_cap)
        _theory_costs = {oid: theory_cost(oid) for oid in OUTPUTS if catalogue.get(oid).kind == "theory"}
        _estimates = resources.check_and_estimate(EXPERIMENT_SPECS, chunks, replicate_cost, output_of, _memory_cap,
                                                  _theory_costs, config["max_cpu_hours"])
    except ConfigError as err:
        validation.refuse(err)
    if _estimates:
        print("Estimated cost per output from scratch (before any job; outputs that are up to date do not run; CPU "
              "of the machine the estimates were fitted on, up to about 3x more on a slower one):", file=sys.stderr)
        for _line in _estimates:
            print(f"  {_line}", file=sys.stderr)

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
