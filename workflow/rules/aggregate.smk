# 2. aggregate: every chunk of one experiment output -> one records file (and one diagnostics file), after checking
# that each chunk was simulated from this config (its recorded spec digest).

rule aggregate_records:
    input:
        records=output_chunks("records"),
        diagnostics=output_chunks("diagnostics"),
    output:
        records=f"{RESULTS}/records/{{output}}.records.csv",
        diagnostics=f"{RESULTS}/records/{{output}}.diagnostics.csv",
    log:
        log_file("aggregate/{output}"),
    wildcard_constraints:
        output="|".join(catalogue.EXPERIMENT_OUTPUTS),
    params:
        expected_digests=lambda w: {row: spec_digest(name) for name in experiments_of(w.output)
                                    for row in EXPERIMENT_SPECS[name].record_experiments()},
        expected_replicates=lambda w: {row: EXPERIMENT_SPECS[name].replicates for name in experiments_of(w.output)
                                       for row in EXPERIMENT_SPECS[name].record_experiments()},
    resources:
        mem_mb=2000,
        runtime=10,
    group:
        "post"
    conda:
        "../../environment.yml"
    script:
        "../scripts/aggregate_records.py"
