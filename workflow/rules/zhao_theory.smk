# Zhao 2017 theory outputs (SPEC section 2, "Zhao, theory"): Fig. 1 from the quilt code, BDP -> DP conversion by
# Lemmas 2-4, sample complexity (Theorems 1-2), max-information (Theorem 3). Parameters: config theory.zhao
# (src/adaptive_repro/schemas/theory_zhao.schema.yaml; defaults filled in by adaptive_repro.outputs.zhao_theory.with_defaults).
ZHAO_THEORY_IDS = ["zhao-fig1", "zhao-bdp-conversion", "zhao-sample-complexity", "zhao-maxinfo"]
for _oid in ZHAO_THEORY_IDS:
    register_output(_oid)


rule zhao_theory:
    output:
        **output_files("{zhao_theory}"),
    log:
        log_file("{zhao_theory}"),
    wildcard_constraints:
        zhao_theory="|".join(ZHAO_THEORY_IDS),
    params:
        block=lambda w: config.get("theory", {}).get("zhao", {}),
        output_id=lambda w: w.zhao_theory,
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/zhao_theory.py"
