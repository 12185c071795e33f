"""One He et al. theory output (table, figure, claims); all logic in adaptive_repro.outputs.he."""
import logging
import time

import matplotlib

matplotlib.use("Agg")

from adaptive_repro.outputs.he import build  # noqa: E402
from adaptive_repro.io import save_figure, write_csv  # noqa: E402
from adaptive_repro.registry import write_claims  # noqa: E402

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s", force=True)
logging.captureWarnings(True)
output_id = snakemake.params.output_id
start = time.time()
table, fig, claims = build(output_id, snakemake.params.he)
write_csv(table, snakemake.output.table)
save_figure(fig, snakemake.output.pdf, snakemake.output.png)
write_claims(claims, snakemake.output.claims)
for c in claims:
    logging.info("claim %s: %s (%s) %s", c.claim_id, c.status, c.measured, c.counterexample)
logging.info("%s: %d rows, %d claims in %.1f s", output_id, len(table), len(claims), time.time() - start)
