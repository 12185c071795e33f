"""Records of all chunks -> summary table, figure (one panel per mechanism) and claims."""
import logging

import pandas as pd

from adaptive_repro.aggregate import summarize
from adaptive_repro.experiment_claims import dwork_claims
from adaptive_repro.figures import accuracy_panels
from adaptive_repro.io import save_figure, write_csv
from adaptive_repro.registry import write_claims

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
experiment = snakemake.wildcards.experiment
block = snakemake.params.block
records = pd.concat([pd.read_csv(f) for f in snakemake.input], ignore_index=True)
table = summarize(records)
table.insert(1, "n", block["n"])
table.insert(2, "d", block["d"])
write_csv(table, snakemake.output.table)

replicates = records["replicate"].nunique()
fig = accuracy_panels(table, experiment,
                      f"n = {block['n']}, d = {block['d']}, {replicates} replicates, "
                      f"{block.get('signal_attributes', 0)} signal attributes")
save_figure(fig, snakemake.output.pdf, snakemake.output.png)
write_claims(dwork_claims(experiment, records, block["n"], block.get("threshold_scale", 4.0)), snakemake.output.claims)
logging.info("summarized %d records of %d replicates", len(records), replicates)
