"""Gather every output's claims into results/tables/claims.csv and render results/REPRODUCTION.md, describing the
run from its recorded config (results/run-config.yaml)."""
import os

import yaml

from adaptive_repro.foundation.io import write_csv, write_text
from adaptive_repro.foundation.registry import read_claims, render_reproduction, run_header
from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.catalogue import changed_from_defaults
from adaptive_repro.pipeline.joblog import finished, job_logger

#: What the report must say about a run's Zhao experiments (the registry that renders it knows no paper).
ZHAO_DATA_MODEL = ("The correlated-records data model (\"chain\") of the Zhao experiments is this project's design "
                   "(docs/METHODS.md); Zhao 2017 does not specify one.")

log = job_logger(snakemake.log[0], "reproduction_report")
results_dir = os.path.dirname(snakemake.output.markdown)
claims = read_claims(snakemake.input.claims)
write_csv(claims, snakemake.output.claims)
with open(snakemake.input.run_config, encoding="utf-8") as f:
    cfg = yaml.safe_load(f)
outputs = {oid: [os.path.relpath(f, results_dir) for f in files.values() if os.path.exists(f)]
           for oid, files in snakemake.params.outputs.items()}
notes = [ZHAO_DATA_MODEL] if any(catalogue.get(oid).paper == "zhao" and catalogue.get(oid).kind == "experiment"
                                 for oid in outputs) else []
changed = [c for oid in outputs if catalogue.get(oid).kind == "theory" for c in changed_from_defaults(cfg, oid)]
write_text(render_reproduction(claims, outputs, header=run_header(cfg, list(outputs), notes, changed)),
           snakemake.output.markdown)
finished(log, f"{len(claims)} claims from {len(outputs)} outputs -> {snakemake.output.markdown}")
