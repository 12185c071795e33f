"""zhao-lemma1: Zhao 2017 Lemma 1 vs Monte Carlo on Markov-chain labels (logic in adaptive_repro.outputs.zhao_lemma1)."""
import logging
import sys

from adaptive_repro import io, registry
from adaptive_repro.outputs import zhao_lemma1 as zl

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
sys.stderr = open(snakemake.log[0], "a")
p = snakemake.params.lemma1
logging.info("params %s", p)
frame = zl.build_table(snakemake.params.seed, p["p_grid"], p["n_grid"], p["taus"], p["replicates"],
                       snakemake.params.confidence)
io.write_csv(frame, snakemake.output.table)
fig = zl.build_figure(frame)
io.save_figure(fig, snakemake.output.pdf, snakemake.output.png)
claims = zl.build_claims(frame)
registry.write_claims(claims, snakemake.output.claims)
for c in claims:
    logging.info("%s: %s (%s) %s", c.claim_id, c.status, c.measured, c.counterexample)
