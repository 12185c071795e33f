"""Simulate one chunk of replicates of a classifier experiment and write its tidy records."""
import logging
import time

from adaptive_repro.experiments import ExperimentSpec, run_replicates
from adaptive_repro.io import write_csv

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("simulate")

spec = ExperimentSpec.from_config(snakemake.wildcards.experiment, snakemake.params.block, snakemake.params.engine)
replicates = snakemake.params.replicates
log.info("experiment %s, replicates %d..%d, n = %d, d = %d", spec.name, replicates[0], replicates[-1], spec.n, spec.d)
for arm, engine in spec.arm_engines().items():
    log.info("arm %s runs on the %s engine", arm, engine)
start = time.perf_counter()


def progress(done, total):
    log.info("replicates done %d/%d (%.1f s)", done, total, time.perf_counter() - start)
    for handler in log.root.handlers:
        handler.flush()


records = run_replicates(spec, snakemake.params.seed, replicates, progress=progress)
write_csv(records, snakemake.output[0])
log.info("wrote %d records", len(records))
