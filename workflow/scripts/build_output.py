"""Build one catalogue output (table, figure as PDF and PNG, claims) by its builder: catalogue.build(...)."""
import pandas as pd

from adaptive_repro.foundation.config import digest
from adaptive_repro.foundation.io import IntegrityError, read_verified_csv, save_figure, write_csv
from adaptive_repro.foundation.registry import write_claims
from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.catalogue import output_params
from adaptive_repro.pipeline.joblog import fail, finished, job_logger
from adaptive_repro.pipeline.strength_table import apply_measured, read_table
from adaptive_repro.report import figure_checks, plotting  # plotting: the one set-up (Agg backend, style)

log = job_logger(snakemake.log[0], "build", f"build {snakemake.params.output_id}")
output_id = snakemake.params.output_id
inputs = {}
if catalogue.get(output_id).kind == "experiment":  # parameters: the specs the records were simulated from
    expected = snakemake.params.records_expected | {"output": output_id}
    try:  # the aggregates as written (digest sidecar) and for these specs (replicates and spec digests)
        inputs = {kind: read_verified_csv(snakemake.input[kind], expect=expected,
                                          rerun=f"rerun snakemake (it re-aggregates {output_id})")
                  for kind in ("records", "diagnostics")}
    except IntegrityError as err:
        fail(log, str(err))
    inputs["specs"] = snakemake.params.specs
    params = {"seed": snakemake.config["seed"]}
    log.info("%s from specs %s (digest %s)", output_id, list(inputs["specs"]), snakemake.params.params_digest)
else:  # parameters: the output's own config block (defaults filled in by the Snakefile) and the seed
    params = output_params(snakemake.config, output_id)
    log.info("%s with parameters %s (digest %s)", output_id, params, snakemake.params.params_digest)
    if digest(params) != snakemake.params.params_digest:
        raise RuntimeError(f"{output_id}: parameters changed between planning and running the job; rerun the workflow")
table, fig, claims = catalogue.build(output_id, params, inputs)
for problem in figure_checks.figure_problems(fig):  # the figure tests fail on any of these lines
    log.warning("figure problem: %s", problem)
write_csv(table, snakemake.output.table)
save_figure(fig, snakemake.output.pdf, snakemake.output.png)
for problem in figure_checks.saved_problems(snakemake.output.png):  # as saved: e.g. a legend wider than the report
    log.warning("figure problem: %s", problem)
plotting.pyplot().close(fig)
measured = read_table(snakemake.input.strength) if "strength" in snakemake.input.keys() else None
claims = apply_measured(claims, measured, catalogue.get(output_id).kind)
write_claims(claims, snakemake.output.claims)
for c in claims:
    log.info("claim %s: %s (%s) %s", c.claim_id, c.status, c.measured, c.counterexample)
counts = pd.Series([c.status for c in claims]).value_counts().to_dict() if claims else {}
finished(log, f"{len(table)} table rows, {len(claims)} claims ({', '.join(f'{n} {k}' for k, n in counts.items())})")
