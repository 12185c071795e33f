# Zhao 2017, Lemma 1 tail bound vs Monte Carlo on Markov-chain labels (SPEC section 2, "zhao-lemma1").
# Parameters: config theory.lecture.zhao_lemma1 (workflow/schemas/theory_lecture.schema.yaml).
from adaptive_repro.lecture_outputs import theory_lecture_params

register_output("zhao-lemma1")


rule zhao_lemma1:
    output:
        **output_files("zhao-lemma1"),
    log:
        log_file("zhao-lemma1"),
    params:
        seed=config["seed"],
        lemma1=theory_lecture_params(config)["zhao_lemma1"],
        confidence=theory_lecture_params(config)["confidence"],
    script:
        "../scripts/zhao_lemma1.py"
