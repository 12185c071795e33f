# Lecture 18 notes (papers/004): Theorem 0.2 transfer bound and the Monitor argument (SPEC section 2, "Lecture").
# Parameters: config theory.lecture (src/adaptive_repro/schemas/theory_lecture.schema.yaml; defaults filled by
# adaptive_repro.outputs.lecture.theory_lecture_params because validate does not descend into $ref'd files).
from adaptive_repro.outputs.lecture import theory_lecture_params

_LECTURE_PARAMS = theory_lecture_params(
    config, SCHEMA_DIR / "theory_lecture.schema.yaml"
)

register_output("lecture-transfer")
register_output("lecture-monitor")


rule lecture_transfer:
    output:
        **output_files("lecture-transfer"),
    log:
        log_file("lecture-transfer"),
    params:
        seed=config["seed"],
        lecture=_LECTURE_PARAMS["transfer"],
        confidence=_LECTURE_PARAMS["confidence"],
    script:
        "../scripts/lecture_transfer.py"


rule lecture_monitor:
    output:
        **output_files("lecture-monitor"),
    log:
        log_file("lecture-monitor"),
    params:
        seed=config["seed"],
        lecture=_LECTURE_PARAMS["monitor"],
        confidence=_LECTURE_PARAMS["confidence"],
    script:
        "../scripts/lecture_monitor.py"
