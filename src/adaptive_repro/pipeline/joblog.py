"""Logging for the workflow's job scripts: one call sets up the job's log file, Python warnings and progress lines
with an estimate of the remaining time."""

from __future__ import annotations

import logging
import sys
import time

_CONSOLE = {"stream": sys.stderr, "label": ""}


def job_logger(log_path: str, name: str, label: str = "") -> logging.Logger:
    """A logger writing to the job's ``log:`` file (timestamps); warnings and stray stderr output go there too. The
    console keeps one line per job, printed by :func:`finished` (``label`` names the job there)."""
    _CONSOLE.update(stream=sys.stderr, label=label or name)
    logging.basicConfig(filename=log_path, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
    logging.captureWarnings(True)
    sys.stderr = open(log_path, "a", encoding="utf-8")
    logger = logging.getLogger(name)

    def on_error(kind, value, tb):  # the traceback to the log, one line to the console
        logger.error("failed", exc_info=(kind, value, tb))
        _console(f"FAILED {_CONSOLE['label']}: {kind.__name__}: {value} (traceback: {log_path})")

    sys.excepthook = on_error
    return logger


def _console(line: str) -> None:
    print(line, file=_CONSOLE["stream"], flush=True)


def fail(log: logging.Logger, message: str) -> None:
    """Stop the job on an expected failure (a corrupted input, say): the one-line ``message`` to the log and the
    console, no traceback; exit status 1."""
    log.error("%s", message)
    _console(f"FAILED {_CONSOLE['label']}: {message}")
    raise SystemExit(1)


def finished(log: logging.Logger, text: str) -> None:
    """Log the job's last line and print it once to the console with the job's CPU time, imports included (the quiet
    default view: one line per finished job). The log is flushed first: a job whose log cannot be written (a full
    disk) prints a FAILED line and exits 1 instead of "done"."""
    cpu = time.process_time()
    log.info("done: %s (%.1f CPU-s)", text, cpu)
    try:
        for handler in logging.getLogger().handlers:
            handler.flush()
        sys.stderr.flush()
    except OSError as err:
        _console(f"FAILED {_CONSOLE['label']}: the job's log cannot be written ({err.strerror})")
        raise SystemExit(1) from None
    _console(f"done {_CONSOLE['label']}: {text} ({cpu:.1f} CPU-s)")


class Progress:
    """Progress lines "replicates done i/n (elapsed, about R left)" for long jobs: the first, the last, and at most
    one every ``every`` seconds between them."""

    def __init__(self, log: logging.Logger, what: str = "replicates", every: float = 5.0):
        self.log, self.what, self.every = log, what, every
        self.start = self.last = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if 1 < done < total and now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.start
        left = elapsed / done * (total - done) if done else float("nan")
        self.log.info("%s done %d/%d (%.1f s, about %.0f s left)", self.what, done, total, elapsed, left)
