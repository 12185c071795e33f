"""Logging for the workflow's job scripts: one call sets up the job's log file, Python warnings and progress lines
with an estimate of the remaining time."""

from __future__ import annotations

import logging
import sys
import time


def job_logger(log_path: str, name: str) -> logging.Logger:
    """A logger writing to the job's ``log:`` file (timestamps); warnings and stray stderr output go there too."""
    logging.basicConfig(filename=log_path, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
    logging.captureWarnings(True)
    sys.stderr = open(log_path, "a")
    return logging.getLogger(name)


class Progress:
    """Progress lines "replicates done i/n (elapsed, about R left)" for long jobs."""

    def __init__(self, log: logging.Logger, what: str = "replicates"):
        self.log, self.what, self.start = log, what, time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.start
        left = elapsed / done * (total - done) if done else float("nan")
        self.log.info("%s done %d/%d (%.1f s, about %.0f s left)", self.what, done, total, elapsed, left)
