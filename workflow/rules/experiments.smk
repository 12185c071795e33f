# Classifier experiments (SPEC sections 3-4): chunks of replicates -> tidy records -> table, figure, claims.
# Each job simulates `replicates_per_job` replicates of one experiment (or one point of a sweep); random streams are
# keyed by (experiment, replicate), so the numbers do not depend on the chunking or the number of cores.
import re

from adaptive_repro.simulation.experiments import EXPERIMENT_OUTPUTS, chunk_replicates, expand_experiments, output_of

for _oid in EXPERIMENT_OUTPUTS:
    register_output(_oid)

EXPERIMENT_SPECS = expand_experiments(config)  # experiment (or sweep point) name -> ExperimentSpec


def experiment_chunks(name):
    return chunk_replicates(EXPERIMENT_SPECS[name].replicates, config["replicates_per_job"])


def chunk_path(name, i, kind):
    return f"{RESULTS}/records/{name}/chunk-{i:04d}.{kind}.csv"


def output_chunks(kind):
    """Input function: the record (or diagnostics) chunks of every experiment of one catalogue output."""
    def files(wildcards):
        return [chunk_path(name, i, kind) for name in EXPERIMENT_SPECS if output_of(name) == wildcards.output
                for i in range(len(experiment_chunks(name)))]
    return files


def simulate_mem_mb(wildcards):
    """Direct-engine arms hold three n x d float64 matrices plus temporaries; the fast engine needs little."""
    spec = EXPERIMENT_SPECS[wildcards.experiment]
    direct = "direct" in spec.arm_engines().values()
    return int(500 + (6 * 8 * spec.n * spec.d / 1e6 if direct else 20 * spec.n * len(spec.k_grid) / 1e6))


rule simulate_chunk:
    output:
        records=f"{RESULTS}/records/{{experiment}}/chunk-{{chunk}}.records.csv",
        diagnostics=f"{RESULTS}/records/{{experiment}}/chunk-{{chunk}}.diagnostics.csv",
    log:
        f"{RESULTS}/logs/simulate/{{experiment}}/chunk-{{chunk}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/rules/simulate/{{experiment}}/chunk-{{chunk}}.tsv"
    wildcard_constraints:
        experiment="|".join(re.escape(name) for name in EXPERIMENT_SPECS) or "no-experiment",
        chunk=r"\d{4}",
    params:
        spec=lambda w: EXPERIMENT_SPECS[w.experiment],
        replicates=lambda w: list(experiment_chunks(w.experiment)[int(w.chunk)]),
        seed=config["seed"],
    resources:
        mem_mb=simulate_mem_mb,
        runtime=60,
    script:
        "../scripts/simulate_chunk.py"


rule summarize_experiment:
    input:
        records=output_chunks("records"),
        diagnostics=output_chunks("diagnostics"),
    output:
        **output_files("{output}"),
    log:
        log_file("{output}"),
    wildcard_constraints:
        output="|".join(EXPERIMENT_OUTPUTS),
    params:
        specs=lambda w: {name: spec for name, spec in EXPERIMENT_SPECS.items() if output_of(name) == w.output},
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/summarize_experiment.py"
