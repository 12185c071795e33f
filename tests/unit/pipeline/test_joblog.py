"""Job logs: a job whose log cannot be written never prints "done"; progress lines are throttled."""
import logging
import subprocess
import sys

from adaptive_repro.pipeline import joblog


def test_a_job_whose_log_cannot_be_written_fails_instead_of_printing_done():
    """/dev/full refuses every write (ENOSPC), as a full disk does."""
    script = ("from adaptive_repro.pipeline.joblog import job_logger, finished\n"
              "log = job_logger('/dev/full', 'x', 'x job')\n"
              "finished(log, 'all written')\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0, proc  # 1, or 120 where Python cannot flush the log at exit either
    assert "done x job" not in proc.stdout + proc.stderr
    assert "FAILED x job: the job's log cannot be written" in proc.stdout + proc.stderr


def test_progress_logs_the_first_the_last_and_at_most_one_line_per_interval(caplog):
    log = logging.getLogger("progress-test")
    progress = joblog.Progress(log, every=3600.0)
    with caplog.at_level(logging.INFO, logger="progress-test"):
        for done in range(1, 501):
            progress(done, 500)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "done 1/500" in lines[0] and "done 500/500" in lines[1]


def test_the_failed_line_names_the_innermost_cause_and_the_file_an_outer_error_knows():
    """pandas' full-disk error has no file name; the project's re-raise around the write (atomic_path) has it."""
    import errno

    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as inner:
            raise OSError(errno.ENOSPC, "No space left on device", "results/tables/he-kl.csv") from inner
    except OSError as outer:
        line = joblog.root_cause(outer)
    assert line == ("OSError: No space left on device (results/tables/he-kl.csv); the disk is full: free space, "
                    "then rerun snakemake (finished jobs are kept)")
