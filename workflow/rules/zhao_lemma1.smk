# Zhao 2017, Lemma 1 tail bound vs Monte Carlo on Markov-chain labels (SPEC section 2, "zhao-lemma1").
# Parameters: config theory.lecture.zhao_lemma1 (src/adaptive_repro/schemas/theory_lecture.schema.yaml).
from adaptive_repro.outputs.lecture import theory_lecture_params

_LECTURE_PARAMS = theory_lecture_params(
    config, SCHEMA_DIR / "theory_lecture.schema.yaml"
)

register_output("zhao-lemma1")


rule zhao_lemma1:
    output:
        **output_files("zhao-lemma1"),
    log:
        log_file("zhao-lemma1"),
    params:
        seed=config["seed"],
        lemma1=_LECTURE_PARAMS["zhao_lemma1"],
        confidence=_LECTURE_PARAMS["confidence"],
    script:
        "../scripts/zhao_lemma1.py"
