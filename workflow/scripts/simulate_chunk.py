"""Simulate one chunk of replicates of a classifier experiment; write its tidy records and diagnostics."""
import logging
import time

from adaptive_repro.simulation.experiments import run_replicates
from adaptive_repro.io import write_csv

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("simulate")

spec = snakemake.params.spec
replicates = snakemake.params.replicates
log.info("experiment %s, replicates %d..%d, n = %d, d = %d", spec.name, replicates[0], replicates[-1], spec.n, spec.d)
for arm, engine in spec.arm_engines().items():
    log.info("arm %s runs on the %s engine", arm, engine)
for arm, cal in spec.alg1_calibrations().items():
    log.info("arm %s: %s (sigma = %.4g, T = %.4g, B = %d, feasible = %s)", arm, cal.note, cal.sigma, cal.threshold,
             cal.budget, cal.feasible)
start = time.perf_counter()


def progress(done, total):
    log.info("replicates done %d/%d (%.1f s)", done, total, time.perf_counter() - start)


records, diagnostics = run_replicates(spec, snakemake.params.seed, replicates, progress=progress,
                                      with_diagnostics=True)
write_csv(diagnostics, snakemake.output.diagnostics)
write_csv(records, snakemake.output.records)
log.info("wrote %d records, %d diagnostic rows", len(records), len(diagnostics))
