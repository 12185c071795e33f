# Every function and shared value of the rules files (they hold only rules). What every rules file uses: where results go, the four files of an output (marked for the HTML report), logs,
# each output's parameters and digest, and the source files whose edits must rerun a job.
import functools
import hashlib
import re

from adaptive_repro import catalogue, resources
from adaptive_repro.simulation.specs import expand_experiments, output_of, records_digest
from adaptive_repro.config import default_params, digest, output_params
from adaptive_repro.io import META_SUFFIX
from adaptive_repro.sources import module_sources, package_root

RESULTS = "results"
REPORT_DIR = os.path.join(workflow.basedir, "workflow", "report")
OUTPUTS = list(config["outputs"])  # the catalogue IDs this run builds (validated)


def log_file(name):
    return f"{RESULTS}/logs/{name}.log"


def report_caption(output_id):
    """Caption file of an output: workflow/report/<ID>.rst (tests/workflow/test_report.py checks it exists)."""
    return os.path.join(REPORT_DIR, f"{output_id}.rst")


def _wildcard_caption(pattern):
    """A caption for an output pattern with wildcards ("{output}").

    Snakemake does not expand wildcards in caption paths, so this writes a caption whose Jinja template picks the
    text of workflow/report/<ID>.rst by the job's wildcards, into .snakemake/report-captions/ (atomic replace).
    """
    import glob, tempfile

    parts = re.split(r"\{(\w+)(?:,[^}]*)?\}", pattern)
    expr = " ~ ".join(repr(p) if i % 2 == 0 else f"snakemake.wildcards[{p!r}]"
                      for i, p in enumerate(parts) if p or i % 2)
    branches = []
    for caption in sorted(glob.glob(os.path.join(REPORT_DIR, "*.rst"))):
        oid = os.path.basename(caption)[:-len(".rst")]
        if oid in ("workflow", "claims"):
            continue
        with open(caption) as f:
            branches.append(f"{{% {'if' if not branches else 'elif'} output_id == {oid!r} %}}\n{f.read().rstrip()}\n")
    text = f"{{% set output_id = {expr} %}}\n" + "".join(branches)
    text += ("{% else %}\n" if branches else "") + "No caption: workflow/report/{{ output_id }}.rst is missing.\n"
    text += "{% endif %}\n" if branches else ""
    out_dir = os.path.abspath(os.path.join(".snakemake", "report-captions"))
    path = os.path.join(out_dir, hashlib.sha1(pattern.encode()).hexdigest()[:12] + ".rst")
    try:
        os.makedirs(out_dir, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=out_dir, suffix=".tmp", delete=False) as f:
            f.write(text)
        os.replace(f.name, path)
    except OSError:  # read-only working directory: only the report needs the caption
        pass
    return path


def output_files(output_id):
    """The four files of a catalogue output (table, figure as PDF and PNG, claims), marked for the HTML report
    (caption workflow/report/<ID>.rst, category = the paper). ``output_id`` may be the pattern "{output}"."""
    if "{" in output_id:
        from snakemake.io import apply_wildcards

        caption = _wildcard_caption(output_id)
        category = lambda wildcards: catalogue.get(apply_wildcards(output_id, wildcards)).category
        subcategory = lambda wildcards: apply_wildcards(output_id, wildcards)
    else:
        caption, category, subcategory = report_caption(output_id), catalogue.get(output_id).category, output_id

    def for_report(path, kind):
        return report(path, caption=caption, category=category, subcategory=subcategory,
                      labels={"output": output_id, "file": kind})

    return {
        "table": for_report(f"{RESULTS}/tables/{output_id}.csv", "table (CSV)"),
        "pdf": for_report(f"{RESULTS}/figures/{output_id}.pdf", "figure (PDF)"),
        "png": for_report(f"{RESULTS}/figures/{output_id}.png", "figure (PNG)"),
        "claims": for_report(f"{RESULTS}/claims/{output_id}.csv", "claims (CSV)"),
    }


# The package whose files are the jobs' code inputs: this checkout's src/ (the Snakefile puts it first on the jobs'
# PYTHONPATH, so the jobs run the code whose edits rerun them), or the installed package for a copied workflow.
CODE_ROOT = package_root(workflow.basedir)


def code_files(*modules):
    """The package source files of ``modules`` and of everything they import, relative to the working directory
    where they are inside it (a moved checkout reruns nothing)."""
    files = {path for module in modules for path in module_sources(module, CODE_ROOT)}
    return sorted(os.path.relpath(p) if not os.path.relpath(p).startswith("..") else p for p in files)


def code_of(*modules):
    """Input function: :func:`code_files` of ``modules`` (edits rerun)."""
    files = code_files(*modules)
    return lambda wildcards: files


# ------------------------------------------------------------------ simulations (simulate.smk, aggregate.smk)

# experiment (or sweep point) name -> ExperimentSpec, for the outputs this run builds
EXPERIMENT_SPECS = {name: spec for name, spec in expand_experiments(config).items() if output_of(name) in OUTPUTS}


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
                                "adaptive_repro.catalogue", *sorted(plugins))}
    if catalogue.get(wildcards.output).kind == "experiment":
        for kind in ("records", "diagnostics"):
            files[kind] = f"{RESULTS}/records/{wildcards.output}.{kind}.csv"
            files[f"{kind}_meta"] = f"{files[kind]}{META_SUFFIX}"
    return files
