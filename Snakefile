# Reproduction pipeline for adaptive data analysis under (Bayesian) differential privacy.
# Layout and conventions: docs/ARCHITECTURE.md. Config: config.yaml, validated before any job runs.
import glob

from snakemake.utils import min_version, validate

from adaptive_repro.config import SCHEMA_DIR, check_config

min_version("9.0")

configfile: "config.yaml"

# 1. JSON schema: unknown keys, wrong types, out-of-range values, unknown names.
validate(config, str(SCHEMA_DIR / "config.schema.yaml"))

# 2. Rules: common.smk first, then every rules file (each registers the outputs it builds).
include: "workflow/rules/common.smk"
for _rules_file in sorted(glob.glob(os.path.join(workflow.basedir, "workflow/rules/*.smk"))):
    if not _rules_file.endswith("common.smk"):
        include: _rules_file

# 3. Checks JSON schema cannot express (k grid ordering, k <= d, outputs that exist), before any job runs.
check_config(config, implemented_outputs=IMPLEMENTED_OUTPUTS)


rule all:
    input:
        [f for oid in config["outputs"] for f in output_files(oid).values()],
        f"{RESULTS}/REPRODUCTION.md",
        f"{RESULTS}/tables/claims.csv",
    default_target: True
