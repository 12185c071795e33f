# 3. output: the table, figure and claims of every catalogue output, by its builder module (catalogue.py):
# build(output_id, params, inputs). Theory outputs have no inputs; experiments get their aggregated records.
# The builder's source files (and those of the math it imports) are inputs: editing a bound reruns its outputs.

rule build_output:
    input:
        unpack(build_inputs),
    output:
        **output_files("{output}"),
    log:
        log_file("{output}"),
    benchmark:
        f"{RESULTS}/benchmarks/rules/{{output}}.tsv"
    wildcard_constraints:
        output="|".join(re.escape(oid) for oid in OUTPUTS),
    params:
        output_id=lambda w: w.output,
        params_digest=lambda w: output_digest(w.output),
        specs=lambda w: {name: EXPERIMENT_SPECS[name] for name in experiments_of(w.output)},
        records_expected=lambda w: records_expectation(w.output) if w.output in catalogue.EXPERIMENT_OUTPUTS else {},
    priority: build_priority
    resources:
        mem_mb=lambda w: build_resources(w)["mem_mb"],
        runtime=lambda w: build_resources(w)["runtime"],
    conda:
        "../../environment.yml"
    script:
        "../scripts/build_output.py"
