# 2. aggregate: every chunk of one experiment output -> one records file (and one diagnostics file), after checking
# each chunk against its digest sidecar (content, rows, experiment, spec digest, replicate range) and that every
# replicate is there exactly once; the aggregate gets a sidecar of its own, which the builder verifies.

rule aggregate_records:
    input:
        records=output_chunks("records"),
        diagnostics=output_chunks("diagnostics"),
        metas=output_chunk_metas,
    output:
        records=f"{RESULTS}/records/{{output}}.records.csv",
        diagnostics=f"{RESULTS}/records/{{output}}.diagnostics.csv",
        records_meta=f"{RESULTS}/records/{{output}}.records.csv.meta.json",
        diagnostics_meta=f"{RESULTS}/records/{{output}}.diagnostics.csv.meta.json",
    log:
        log_file("aggregate/{output}"),
    wildcard_constraints:
        output="|".join(catalogue.EXPERIMENT_OUTPUTS),
    params:
        output_id=lambda w: w.output,
        expected=lambda w: records_expectation(w.output),
        chunk_expected=lambda w: chunk_expectations(w.output),
    priority: resources.AGGREGATE_PRIORITY
    resources:
        mem_mb=2000,
        runtime=10,
    group:
        "post"
    conda:
        "../../environment.yml"
    script:
        "../scripts/aggregate_records.py"
