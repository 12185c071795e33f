# 1. simulate: chunks of replicates of each classifier experiment (or sweep point) -> tidy records.
# A chunk's path holds the digest of everything its numbers depend on (the experiment's resolved spec and the seed),
# and its replicate range; so a changed n, d, k grid, mechanism, model, Algorithm 1 setting, engine or seed writes new
# chunks (old ones are never mixed in), and raising `replicates` only adds chunks. Each file gets a digest sidecar
# (.meta.json: SHA-256, rows, experiment, spec digest, replicate range) that the aggregation verifies. Random streams are keyed by
# (experiment, replicate): numbers do not depend on the chunking, the job order or the number of cores.

rule simulate_chunk:
    input:
        code=simulation_code,
    output:
        records=f"{RESULTS}/records/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}.records.csv",
        diagnostics=f"{RESULTS}/records/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}.diagnostics.csv",
        records_meta=f"{RESULTS}/records/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}.records.csv.meta.json",
        diagnostics_meta=(f"{RESULTS}/records/{{experiment}}/{{digest}}/replicates-{{first}}-{{last}}"
                          ".diagnostics.csv.meta.json"),
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
    priority: simulate_priority
    resources:
        mem_mb=lambda w: simulate_resources(w)["mem_mb"],
        runtime=lambda w: simulate_resources(w)["runtime"],
    conda:
        "../../environment.yml"
    script:
        "../scripts/simulate_chunk.py"
