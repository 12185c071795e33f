# Classifier experiments (SPEC sections 3-4): chunks of replicates -> tidy records -> table, figure, claims.
# Each job simulates `replicates_per_job` replicates; random streams are keyed by (experiment, replicate), so the
# numbers do not depend on the chunking.
from adaptive_repro.experiments import chunk_replicates

EXPERIMENT_IDS = ["dwork-null", "dwork-signal"]
for _oid in EXPERIMENT_IDS:
    register_output(_oid)


def experiment_chunks(experiment):
    block = config["experiments"][experiment]
    return chunk_replicates(block["replicates"], config["replicates_per_job"])


def chunk_files(wildcards):
    return [f"{RESULTS}/records/{wildcards.experiment}/chunk-{i:04d}.csv"
            for i in range(len(experiment_chunks(wildcards.experiment)))]


rule simulate_chunk:
    output:
        f"{RESULTS}/records/{{experiment}}/chunk-{{chunk}}.csv",
    log:
        f"{RESULTS}/logs/simulate/{{experiment}}/chunk-{{chunk}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/rules/simulate/{{experiment}}/chunk-{{chunk}}.tsv"
    wildcard_constraints:
        experiment="|".join(EXPERIMENT_IDS),
        chunk=r"\d{4}",
    params:
        block=lambda w: config["experiments"][w.experiment],
        replicates=lambda w: list(experiment_chunks(w.experiment)[int(w.chunk)]),
        seed=config["seed"],
        engine=config["engine"],
    resources:
        mem_mb=lambda w: 4000 if config["engine"] == "direct" else 1500,
        runtime=30,
    script:
        "../scripts/simulate_chunk.py"


rule summarize_experiment:
    input:
        chunk_files,
    output:
        **output_files("{experiment}"),
    log:
        log_file("{experiment}"),
    wildcard_constraints:
        experiment="|".join(EXPERIMENT_IDS),
    params:
        block=lambda w: config["experiments"][w.experiment],
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/summarize_experiment.py"
