"""lecture-monitor: the Monitor argument of Lecture 18 vs Monte Carlo (logic in adaptive_repro.outputs.lecture)."""
import logging
import sys

from adaptive_repro import io, registry
from adaptive_repro.outputs import lecture as lo

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
sys.stderr = open(snakemake.log[0], "a")
p = snakemake.params.lecture
logging.info("params %s", p)
frame = lo.monitor_table(snakemake.params.seed, p["m"], p["epsilon"], p["epsilon_primes"], p["delta"], p["d"],
                         p["T_grid"], p["betas"], p["replicates"], snakemake.params.confidence,
                         p["min_total_datasets"])
io.write_csv(frame, snakemake.output.table)
fig = lo.monitor_figure(frame)
io.save_figure(fig, snakemake.output.pdf, snakemake.output.png)
claims = lo.monitor_claims(frame)
registry.write_claims(claims, snakemake.output.claims)
for c in claims:
    logging.info("%s: %s (%s) %s", c.claim_id, c.status, c.measured, c.counterexample)
