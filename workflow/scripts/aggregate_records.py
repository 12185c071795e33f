"""Concatenate the record chunks of one experiment output after verifying each against its digest sidecar and the
plan (experiment, spec digest, replicate range), and that every replicate is there exactly once; write the aggregate
with a sidecar of its own. A mismatch stops the job with one line naming the file and what to do."""
from adaptive_repro.foundation.io import IntegrityError, read_verified_csv, write_verified_csv
from adaptive_repro.pipeline.joblog import fail, finished, job_logger
from adaptive_repro.stats import concat_checked_chunks

log = job_logger(snakemake.log[0], "aggregate", f"aggregate {snakemake.params.output_id}")
expected = snakemake.params.expected
rerun = "rerun snakemake (it re-simulates the missing chunk)"
try:
    for kind in ("records", "diagnostics"):
        paths = list(snakemake.input[kind])
        frames = [read_verified_csv(p, expect=snakemake.params.chunk_expected[p], rerun=rerun,
                                    dtype={"spec_digest": str}) for p in paths]
        frame = concat_checked_chunks(paths, frames, expected["spec_digests"],
                                      expected["replicates"] if kind == "records" else None)
        write_verified_csv(frame, snakemake.output[kind], expected | {"output": snakemake.params.output_id})
        log.info("%s: %d rows from %d verified chunks", kind, len(frame), len(paths))
    finished(log, f"{len(paths)} verified chunk{'' if len(paths) == 1 else 's'}")
except (IntegrityError, ValueError) as err:
    fail(log, str(err))
