"""Simulate one chunk of replicates of a classifier experiment; write its tidy records and diagnostics, each row
tagged with the digest of the spec it was simulated from, and each file with a digest sidecar (content SHA-256, rows,
experiment, spec digest, replicate range) that the aggregation verifies."""
from adaptive_repro.foundation.io import write_verified_csv
from adaptive_repro.pipeline.joblog import Progress, finished, job_logger

log = job_logger(snakemake.log[0], "simulate",
                 f"simulate {snakemake.wildcards.experiment} {snakemake.wildcards.first}-{snakemake.wildcards.last}")
spec = snakemake.params.spec
replicates = snakemake.params.replicates
log.info("experiment %s (spec digest %s), replicates %d..%d, n = %d, d = %d", spec.name, snakemake.params.spec_digest,
         replicates[0], replicates[-1], spec.n, spec.d)
for arm, engine in spec.arm_engines().items():
    log.info("arm %s runs on the %s engine", arm, engine)
for arm, cal in spec.alg1_calibrations().items():
    log.info("arm %s: %s (sigma = %.4g, T = %.4g, B = %d, feasible = %s)", arm, cal.note, cal.sigma, cal.threshold,
             cal.budget, cal.feasible)
progress = Progress(log)
records, diagnostics = spec.run_replicates(snakemake.params.seed, replicates, progress=progress, with_diagnostics=True)
for frame in (records, diagnostics):
    frame["spec_digest"] = snakemake.params.spec_digest
meta = {"experiment": spec.name, "spec_digest": snakemake.params.spec_digest,
        "replicates": [replicates[0], replicates[-1]]}
write_verified_csv(diagnostics, snakemake.output.diagnostics, meta)
write_verified_csv(records, snakemake.output.records, meta)
finished(log, f"{len(records):,} records, {len(diagnostics):,} diagnostic rows")
