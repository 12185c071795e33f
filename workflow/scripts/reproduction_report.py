"""Gather every output's claims into results/tables/claims.csv and render results/REPRODUCTION.md, describing the
run from its recorded config (results/run-config.yaml)."""
import os

import yaml

from adaptive_repro.io import write_csv, write_text
from adaptive_repro.joblog import job_logger
from adaptive_repro.registry import read_claims, render_reproduction, run_header

log = job_logger(snakemake.log[0], "reproduction_report")
results_dir = os.path.dirname(snakemake.output.markdown)
claims = read_claims(snakemake.input.claims)
write_csv(claims, snakemake.output.claims)
with open(snakemake.input.run_config) as f:
    cfg = yaml.safe_load(f)
outputs = {oid: [os.path.relpath(f, results_dir) for f in files.values() if os.path.exists(f)]
           for oid, files in snakemake.params.outputs.items()}
write_text(render_reproduction(claims, outputs, header=run_header(cfg, list(outputs))), snakemake.output.markdown)
log.info("%d claims from %d outputs", len(claims), len(outputs))
