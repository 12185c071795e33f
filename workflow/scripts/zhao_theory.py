"""Zhao theory outputs: table, figure (PDF + PNG) and claims of one catalogue ID (zhao-fig1, zhao-bdp-conversion,
zhao-sample-complexity, zhao-maxinfo). All logic is in adaptive_repro.outputs.zhao_theory."""
import logging
import time

import matplotlib.pyplot as plt

from adaptive_repro.outputs import zhao_theory as z
from adaptive_repro.io import save_figure, write_csv
from adaptive_repro.registry import write_claims

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
oid = snakemake.params.output_id
params = z.with_defaults(snakemake.params.block)
logging.info("%s with parameters %s", oid, params)
start = time.perf_counter()

if oid == "zhao-fig1":
    table = z.fig1_table(params)
    fig = z.fig1_figure(table)
    claims = z.fig1_claims(params, table)
elif oid == "zhao-bdp-conversion":
    table = z.conversion_table(params)
    fig = z.conversion_figure(z.conversion_curves(params), params["n"])
    claims = z.conversion_claims(params, table)
elif oid == "zhao-sample-complexity":
    table = z.sample_complexity_table(params)
    fig = z.sample_complexity_figure(table)
    claims = z.sample_complexity_claims(params, table)
elif oid == "zhao-maxinfo":
    table = z.maxinfo_table(params)
    fig = z.maxinfo_figure(table)
    claims = z.maxinfo_claims(params, table)
else:
    raise ValueError(f"unknown Zhao theory output {oid!r}")

write_csv(table, snakemake.output.table)
save_figure(fig, snakemake.output.pdf, snakemake.output.png)
plt.close(fig)
write_claims(claims, snakemake.output.claims)
for c in claims:
    logging.info("claim %s: %s %s", c.claim_id, c.status, c.counterexample)
logging.info("%s: %d table rows, %d claims in %.2f s", oid, len(table), len(claims), time.perf_counter() - start)
