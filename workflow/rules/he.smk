# He, Wang, Tao (papers/003), theory outputs (SPEC section 2, "He, theory"): closed-form bounds against ground
# truth (exact optimal composition, PLD accountant, exact KL). One rule per output ID; all logic in
# src/adaptive_repro/outputs/he.py; parameters from config["theory"]["he"] (src/adaptive_repro/schemas/theory_he.schema.yaml).

HE_OUTPUT_IDS = ["he-kl", "he-composition-eps", "he-composition-delta", "he-generalization", "he-sgld", "he-federated"]
for _oid in HE_OUTPUT_IDS:
    register_output(_oid)


def he_params(wildcards=None):
    return config.get("theory", {}).get("he", {})


rule he_kl:
    output:
        **output_files("he-kl"),
    log:
        log_file("he-kl"),
    params:
        output_id="he-kl",
        he=he_params(),
    script:
        "../scripts/he_output.py"


rule he_composition_eps:
    output:
        **output_files("he-composition-eps"),
    log:
        log_file("he-composition-eps"),
    benchmark:
        f"{RESULTS}/benchmarks/rules/he-composition-eps.tsv"
    params:
        output_id="he-composition-eps",
        he=he_params(),
    script:
        "../scripts/he_output.py"


rule he_composition_delta:
    output:
        **output_files("he-composition-delta"),
    log:
        log_file("he-composition-delta"),
    params:
        output_id="he-composition-delta",
        he=he_params(),
    script:
        "../scripts/he_output.py"


rule he_generalization:
    output:
        **output_files("he-generalization"),
    log:
        log_file("he-generalization"),
    params:
        output_id="he-generalization",
        he=he_params(),
    script:
        "../scripts/he_output.py"


rule he_sgld:
    output:
        **output_files("he-sgld"),
    log:
        log_file("he-sgld"),
    params:
        output_id="he-sgld",
        he=he_params(),
    script:
        "../scripts/he_output.py"


rule he_federated:
    output:
        **output_files("he-federated"),
    log:
        log_file("he-federated"),
    params:
        output_id="he-federated",
        he=he_params(),
    script:
        "../scripts/he_output.py"
