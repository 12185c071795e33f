# 1. simulate: chunks of replicates of each classifier experiment (or sweep point) -> tidy records.
# A chunk's path holds the digest of everything its numbers depend on (the experiment's resolved spec and the seed),
# and its replicate range; so a changed n, d, k grid, mechanism, model, Algorithm 1 setting, engine or seed writes new
# chunks (old ones are never mixed in), and raising `replicates` only adds chunks. Random streams are keyed by
# (experiment, replicate): numbers do not depend on the chunking, the job order or the number of cores.
import dataclasses

from adaptive_repro import resources
from adaptive_repro.simulation.experiments import expand_experiments, output_of

# experiment (or sweep point) name -> ExperimentSpec, for the outputs this run builds
EXPERIMENT_SPECS = {name: spec for name, spec in expand_experiments(config).items() if output_of(name) in OUTPUTS}


def spec_digest(name):
    """Digest of what an experiment's records depend on: its spec (all but the replicate count) and the seed."""
    spec = dataclasses.asdict(EXPERIMENT_SPECS[name])
    spec.pop("replicates")
    return digest({"spec": spec, "seed": config["seed"]})


def replicate_cost(name):
    spec = EXPERIMENT_SPECS[name]
    return resources.replicate_cost(spec.n, spec.d, spec.k_grid, spec.arm_engines())


def chunks(name):
    """Replicate ranges of the jobs of one experiment."""
    spec = EXPERIMENT_SPECS[name]
    per_job = resources.replicates_per_job(config["replicates_per_job"], spec.replicates, replicate_cost(name))
    return [range(a, min(a + per_job, spec.replicates)) for a in range(0, spec.replicates, per_job)]


def chunk_path(name, replicates, kind):
    return f"{RESULTS}/records/{name}/{spec_digest(name)}/replicates-{replicates[0]}-{replicates[-1]}.{kind}.csv"


def simulate_resources(wildcards):
    cost = replicate_cost(wildcards.experiment)
    return resources.job_resources(cost, int(wildcards.last) - int(wildcards.first) + 1)


rule simulate_chunk:
    input:
        code=code_of("adaptive_repro.simulation.experiments"),
    output:
        records=f"{RESULTS}/records/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}.records.csv",
        diagnostics=f"{RESULTS}/records/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}.diagnostics.csv",
    log:
        f"{RESULTS}/logs/simulate/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/rules/simulate/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}.tsv"
    wildcard_constraints:
        experiment="|".join(re.escape(name) for name in EXPERIMENT_SPECS) or "no-experiment",
        digest=r"[0-9a-f]{12}",
        first=r"\d+",
        last=r"\d+",
    params:
        spec=lambda w: EXPERIMENT_SPECS[w.experiment],
        spec_digest=lambda w: spec_digest(w.experiment),
        replicates=lambda w: list(range(int(w.first), int(w.last) + 1)),
        seed=config["seed"],
    resources:
        mem_mb=lambda w: simulate_resources(w)["mem_mb"],
        runtime=lambda w: simulate_resources(w)["runtime"],
    script:
        "../scripts/simulate_chunk.py"
