"""Gather every output's claims into results/tables/claims.csv and render results/REPRODUCTION.md."""
import logging
import os

from adaptive_repro.io import write_csv, write_text
from adaptive_repro.registry import read_claims, render_reproduction

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
results_dir = os.path.dirname(snakemake.output.markdown)
claims = read_claims(snakemake.input.claims)
write_csv(claims, snakemake.output.claims)

cfg = snakemake.params.config
outputs = {oid: [os.path.relpath(f, results_dir) for f in files.values() if os.path.exists(f)]
           for oid, files in snakemake.params.outputs.items()}
experiments = "; ".join(
    f"`{name}`: n = {b['n'] if 'n' in b else b['n_grid']}, d = {b['d']}, {b['replicates']} replicates"
    for name, b in cfg["experiments"].items() if name in outputs)
header = (f"Config: seed = {cfg['seed']}, engine = {cfg['engine']}. Experiments: {experiments or 'none'}.\n\n"
          "The correlated-records data model (\"chain\") used by the Zhao experiments is this project's design "
          "(SPEC section 4); Zhao 2017 does not specify one.")
write_text(render_reproduction(claims, outputs, header=header), snakemake.output.markdown)
logging.info("%d claims from %d outputs", len(claims), len(outputs))
