"""Build one catalogue output (table, figure as PDF and PNG, claims) by its builder: catalogue.build(...)."""
import sys
import time

from adaptive_repro import catalogue
from adaptive_repro.config import digest, output_params
from adaptive_repro.io import IntegrityError, read_verified_csv, save_figure, write_csv
from adaptive_repro.joblog import job_logger
from adaptive_repro.plotting import pyplot  # the one plotting set-up (Agg backend, style)
from adaptive_repro.registry import write_claims

log = job_logger(snakemake.log[0], "build")
output_id = snakemake.params.output_id
start = time.perf_counter()
inputs = {}
if catalogue.get(output_id).kind == "experiment":  # parameters: the specs the records were simulated from
    expected = snakemake.params.records_expected | {"output": output_id}
    try:  # the aggregates as written (digest sidecar) and for these specs (replicates and spec digests)
        inputs = {kind: read_verified_csv(snakemake.input[kind], expect=expected,
                                          rerun=f"rerun snakemake (it re-aggregates {output_id})")
                  for kind in ("records", "diagnostics")}
    except IntegrityError as err:
        log.error("%s", err)
        sys.exit(f"build {output_id}: {err}")
    inputs["specs"] = snakemake.params.specs
    params = {"seed": snakemake.config["seed"]}
    log.info("%s from specs %s (digest %s)", output_id, list(inputs["specs"]), snakemake.params.params_digest)
else:  # parameters: the output's own config block (defaults filled in by the Snakefile) and the seed
    params = output_params(snakemake.config, output_id)
    log.info("%s with parameters %s (digest %s)", output_id, params, snakemake.params.params_digest)
    if digest(params) != snakemake.params.params_digest:
        raise RuntimeError(f"{output_id}: parameters changed between planning and running the job; rerun the workflow")
table, fig, claims = catalogue.build(output_id, params, inputs)
write_csv(table, snakemake.output.table)
save_figure(fig, snakemake.output.pdf, snakemake.output.png)
pyplot().close(fig)
write_claims(claims, snakemake.output.claims)
for c in claims:
    log.info("claim %s: %s (%s) %s", c.claim_id, c.status, c.measured, c.counterexample)
log.info("done: %s, %d table rows, %d claims in %.1f s", output_id, len(table), len(claims),
         time.perf_counter() - start)
