"""Records of all chunks of one catalogue output -> summary table, figure and claims."""
import logging

import pandas as pd

from adaptive_repro.outputs import zhao_experiments
from adaptive_repro.stats import summarize
from adaptive_repro.outputs.dwork import dwork_claims
from adaptive_repro.plotting import accuracy_panels
from adaptive_repro.io import save_figure, write_csv
from adaptive_repro.registry import write_claims

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
output_id = snakemake.wildcards.output
specs = snakemake.params.specs


def read(paths):
    frames = [pd.read_csv(p) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


records = read(snakemake.input.records)
diagnostics = read(snakemake.input.diagnostics)

if output_id == "zhao-sweep":
    by_point = {name: frame for name, frame in records.groupby("experiment")}
    table, fig, claims = zhao_experiments.sweep(by_point, specs)
else:
    (spec,) = specs.values()
    if output_id.startswith("dwork-"):
        table = summarize(records)
        table.insert(1, "n", spec.n)
        table.insert(2, "d", spec.d)
        replicates = records["replicate"].nunique()
        fig = accuracy_panels(table, output_id, f"n = {spec.n}, d = {spec.d}, {replicates} replicates, "
                                                f"{spec.signal_attributes} signal attributes")
        claims = dwork_claims(output_id, records, spec.n, spec.threshold_scale)
    elif output_id == "zhao-thm2-check":
        table, fig, claims = zhao_experiments.thm2_check(diagnostics, spec, zhao_experiments.theory_table(spec))
    else:
        table, fig, claims = zhao_experiments.figure_experiment(output_id, records, spec,
                                                                zhao_experiments.theory_table(spec))
write_csv(table, snakemake.output.table)
save_figure(fig, snakemake.output.pdf, snakemake.output.png)
write_claims(claims, snakemake.output.claims)
logging.info("%s: %d records, %d claims", output_id, len(records), len(claims))
