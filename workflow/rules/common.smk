# Every function and shared value of the rules files (they hold only rules). What every rules file uses: where results go, the four files of an output, logs,
# each output's parameters and digest, and the source files whose edits must rerun a job.
import functools
from pathlib import Path

from adaptive_repro.pipeline import catalogue, resources, strength_table
from adaptive_repro.pipeline.specs import output_of, records_digest
from adaptive_repro.foundation.config import digest
from adaptive_repro.pipeline.catalogue import default_params, output_params
from adaptive_repro.foundation.io import META_SUFFIX
from adaptive_repro.pipeline.sources import module_sources, package_root

RESULTS = "results"
REPORT_DIR = os.path.join(workflow.basedir, "workflow", "report")
OUTPUTS = list(config["outputs"])  # the catalogue IDs this run builds (validated)


def log_file(name):
    return f"{RESULTS}/logs/{name}.log"


def report_caption(output_id):
    """Caption file of an output: workflow/report/<ID>.rst (tests/workflow/test_report.py checks it exists)."""
    return os.path.join(REPORT_DIR, f"{output_id}.rst")


def output_files(output_id):
    """The four files of a catalogue output: table, figure as PDF and PNG, claims. ``output_id`` may be the pattern
    "{output}"."""
    return {
        "table": f"{RESULTS}/tables/{output_id}.csv",
        "pdf": f"{RESULTS}/figures/{output_id}.pdf",
        "png": f"{RESULTS}/figures/{output_id}.png",
        "claims": f"{RESULTS}/claims/{output_id}.csv",
    }


# The package whose files are the jobs' code inputs: this checkout's src/ (the Snakefile puts it first on the jobs'
# PYTHONPATH, so the jobs run the code whose edits rerun them), or the installed package for a copied workflow.
CODE_ROOT = package_root(workflow.basedir)


def code_files(*modules):
    """The package source files of ``modules`` and of everything they import, relative to the working directory
    where they are inside it (a moved checkout reruns nothing), else absolute (nor does a copied working directory)."""
    files = {path for module in modules for path in module_sources(module, CODE_ROOT)}
    return sorted(os.path.relpath(p) if not os.path.relpath(p).startswith("..") else str(p) for p in files)


#: The report page's CSS and JS (package data), as inputs of the html_report rule the way code_files gives code.
REPORT_ASSETS = sorted(os.path.relpath(p) if not os.path.relpath(p).startswith("..") else str(p)
                       for p in (CODE_ROOT / "report" / "report_assets").iterdir())


def code_of(*modules):
    """Input function: :func:`code_files` of ``modules`` (edits rerun)."""
    files = code_files(*modules)
    return lambda wildcards: files


# ------------------------------------------------------------------ simulations (simulate.smk, aggregate.smk)

# experiment (or sweep point) name -> ExperimentSpec, for the outputs this run builds
# EXPERIMENT_SPECS: the specs of the experiments this run builds, built once with the config's validation (Snakefile)


def simulation_code(wildcards):
    """Input function: the code of one experiment's simulation: the runner and the plug-ins its spec uses (a Dwork
    experiment does not depend on the sign-query engine, no simulation on the catalogue, config or plotting)."""
    spec = EXPERIMENT_SPECS[wildcards.experiment]
    return code_files(type(spec).__module__, "adaptive_repro.simulation.experiments", *spec.plugin_modules())


@functools.cache
def spec_digest(name):
    """specs.records_digest of an experiment, computed once per run (every chunk path and sidecar check asks)."""
    return records_digest(EXPERIMENT_SPECS[name], config["seed"])


def replicate_cost(name):
    return resources.spec_cost(EXPERIMENT_SPECS[name])


_CHUNK_PLANS = {}


def chunks(name):
    """Replicate ranges of the jobs of one experiment, planned once per run: complete chunks already on disk for this
    spec are kept, the rest cut at multiples of the job size (resources.plan_chunks): raising `replicates` only adds
    chunks."""
    if name not in _CHUNK_PLANS:
        spec = EXPERIMENT_SPECS[name]
        per_job = resources.replicates_per_job(config["replicates_per_job"], spec.replicates, replicate_cost(name))
        on_disk = resources.existing_chunks(f"{RESULTS}/records/{name}/{spec_digest(name)}")
        _CHUNK_PLANS[name] = resources.plan_chunks(spec.replicates, per_job, on_disk)
    return _CHUNK_PLANS[name]


def planned_jobs():
    """The run's costed jobs by log path: (estimated CPU seconds, whether it is to run: its output not yet there).
    Simulation chunks and theory builds; the cheap aggregation, experiment builds and reports are left out."""
    jobs = {}
    for name in EXPERIMENT_SPECS:
        for replicates in chunks(name):
            log = f"{RESULTS}/logs/simulate/{name}/{spec_digest(name)}/replicates-{replicates[0]}-{replicates[-1]}.log"
            jobs[log] = (resources.job_seconds(replicate_cost(name), len(replicates)),
                         not os.path.exists(chunk_path(name, replicates, "records")))
    for oid in OUTPUTS:
        if catalogue.get(oid).kind == "theory":
            jobs[log_file(oid)] = (theory_cost(oid).seconds, not os.path.exists(output_files(oid)["claims"]))
    return jobs


def chunk_path(name, replicates, kind):
    return f"{RESULTS}/records/{name}/{spec_digest(name)}/replicates-{replicates[0]}-{replicates[-1]}.{kind}.csv"


def simulate_resources(wildcards):
    cost = replicate_cost(wildcards.experiment)
    return resources.job_resources(cost, int(wildcards.last) - int(wildcards.first) + 1)


def experiments_of(output_id):
    return [name for name in EXPERIMENT_SPECS if output_of(name) == output_id]


def output_chunks(kind):
    """Input function: the record (or diagnostics) chunks of every experiment of one catalogue output, in order."""
    return lambda w: [chunk_path(name, r, kind) for name in experiments_of(w.output) for r in chunks(name)]


def output_chunk_metas(wildcards):
    """Input function: the digest sidecars of every chunk of one output."""
    return [f"{path}{META_SUFFIX}" for kind in ("records", "diagnostics") for path in output_chunks(kind)(wildcards)]


def chunk_expectations(output_id):
    """What each chunk's sidecar must say: its experiment, spec digest and replicate range (from its path's plan)."""
    return {chunk_path(name, r, kind): {"experiment": name, "spec_digest": spec_digest(name),
                                        "replicates": [r[0], r[-1]]}
            for name in experiments_of(output_id) for r in chunks(name) for kind in ("records", "diagnostics")}


def records_expectation(output_id):
    """What an output's aggregated records must hold: per ``experiment`` value of the rows, its spec digest and the
    number of replicates (0..replicates - 1, each exactly once)."""
    rows = [(row, name) for name in experiments_of(output_id) for row in EXPERIMENT_SPECS[name].record_experiments()]
    return {"spec_digests": {row: spec_digest(name) for row, name in rows},
            "replicates": {row: EXPERIMENT_SPECS[name].replicates for row, name in rows}}


# ----------------------------------------------------------------------------------------- outputs (outputs.smk)
def output_digest(output_id):
    """What an output's numbers depend on besides code and inputs: a theory output's config block (the builder reads it
    from snakemake.config), an experiment output's specs (passed to the builder as params.specs; their digests)."""
    if catalogue.get(output_id).kind == "theory":
        return digest(output_params(config, output_id))
    return digest({name: spec_digest(name) for name in experiments_of(output_id)})


def theory_cost(output_id):
    """Estimated CPU seconds and memory of a theory output's job, from its grid sizes (resources.theory_cost)."""
    return resources.theory_cost(output_id, output_params(config, output_id), default_params(output_id))


def simulate_priority(wildcards):
    """A simulation chunk's scheduling priority: its estimated CPU seconds and those of its aggregation and build
    (resources.job_priority)."""
    cost = replicate_cost(wildcards.experiment)
    return resources.job_priority(cost.seconds * (int(wildcards.last) - int(wildcards.first) + 1),
                                  resources.DOWNSTREAM_SECONDS)


def build_priority(wildcards):
    """A builder job's scheduling priority: a theory output's estimated CPU seconds (it can start at once), an
    experiment output's a typical build's (it becomes ready late, after its simulations)."""
    if catalogue.get(wildcards.output).kind == "theory":
        return resources.job_priority(theory_cost(wildcards.output).seconds)
    return resources.job_priority(resources.DOWNSTREAM_SECONDS)


def build_resources(wildcards):
    """A builder job's declared memory and runtime: a theory output's estimate, else the default."""
    if catalogue.get(wildcards.output).kind == "theory":
        return resources.job_resources(theory_cost(wildcards.output), 1)
    return {"mem_mb": 2000, "runtime": 20}


def build_inputs(wildcards):
    """The builder's code (and, for an experiment, the code of the plug-ins its specs use: their words and settings
    label the figure and claims) and the aggregated records."""
    plugins = {m for name in experiments_of(wildcards.output) for m in EXPERIMENT_SPECS[name].plugin_modules()}
    files = {"code": code_files(f"adaptive_repro.outputs.{catalogue.get(wildcards.output).module}",
                                "adaptive_repro.pipeline.catalogue", "adaptive_repro.pipeline.strength_table",
                                *sorted(plugins))}
    measured = strength_table.table_path(wildcards.output, Path(workflow.basedir))
    if measured.exists():  # the measured strength of its claims (python -m adaptive_repro.pipeline.strength)
        files["strength"] = os.path.relpath(measured)  # relative: a moved checkout reruns nothing
    if catalogue.get(wildcards.output).kind == "experiment":
        for kind in ("records", "diagnostics"):
            files[kind] = f"{RESULTS}/records/{wildcards.output}.{kind}.csv"
            files[f"{kind}_meta"] = f"{files[kind]}{META_SUFFIX}"
    return files
