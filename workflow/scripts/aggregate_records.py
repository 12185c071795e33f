"""Concatenate the record chunks of one experiment output, refusing chunks simulated from another config."""
from adaptive_repro.io import write_csv
from adaptive_repro.joblog import job_logger
from adaptive_repro.stats import concat_checked_chunks

log = job_logger(snakemake.log[0], "aggregate")
for kind in ("records", "diagnostics"):
    frame = concat_checked_chunks(snakemake.input[kind], snakemake.params.expected_digests,
                                  snakemake.params.expected_replicates if kind == "records" else None)
    write_csv(frame, snakemake.output[kind])
    log.info("%s: %d rows from %d chunks", kind, len(frame), len(snakemake.input[kind]))
