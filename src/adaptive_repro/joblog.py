"""Logging for the workflow's job scripts: one call sets up the job's log file, Python warnings and progress lines
with an estimate of the remaining time."""

from __future__ import annotations

import _thread
import logging
import os
import signal
import sys
import threading
import time

_CONSOLE = {"stream": sys.stderr, "label": ""}


def job_logger(log_path: str, name: str, label: str = "") -> logging.Logger:
    """A logger writing to the job's ``log:`` file (timestamps); warnings and stray stderr output go there too. The
    console keeps one line per job, printed by :func:`finished` (``label`` names the job there)."""
    _CONSOLE.update(stream=sys.stderr, label=label or name)
    logging.basicConfig(filename=log_path, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
    logging.captureWarnings(True)
    sys.stderr = open(log_path, "a")
    logger = logging.getLogger(name)

    def on_error(kind, value, tb):  # the traceback to the log, one line to the console
        logger.error("failed", exc_info=(kind, value, tb))
        _console(f"FAILED {_CONSOLE['label']}: {kind.__name__}: {value} (traceback: {log_path})")

    sys.excepthook = on_error
    watch_workflow(logger)
    return logger


def _snakemake_ancestor() -> int | None:
    """PID of the nearest ancestor process running Snakemake (Linux /proc), None if there is none."""
    pid = os.getppid()
    for _ in range(6):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")[:3]
            if any(os.path.basename(a) == b"snakemake" for a in argv) or argv[1:3] == [b"-m", b"snakemake"]:
                return pid
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None
        if pid <= 1:
            return None
    return None


#: The environment variable through which the Snakemake process names itself to its jobs (set by the Snakefile).
WORKFLOW_PID_VARIABLE = "ADAPTIVE_REPRO_WORKFLOW_PID"


def mark_workflow_process() -> None:
    """Called by the Snakefile in the Snakemake process: its jobs inherit its PID, so a job that starts after
    Snakemake died (during the job's own start-up) still knows whom to watch (:func:`watch_workflow`)."""
    os.environ[WORKFLOW_PID_VARIABLE] = str(os.getpid())


def _workflow_pid() -> int | None:
    try:
        return int(os.environ[WORKFLOW_PID_VARIABLE])
    except (KeyError, ValueError):
        return None


def watch_workflow(log: logging.Logger, interval: float = 0.5) -> None:
    """If the Snakemake process that started this job dies (SIGKILL leaves its jobs running), stop the job within
    ``interval`` seconds: KeyboardInterrupt in the main thread, so atomic writes clean up their temporary files and
    nothing half-written is left (Snakemake's rerun-incomplete then redoes the job). The process watched is the one
    the Snakefile named (:func:`mark_workflow_process`), else the nearest Snakemake ancestor; a job whose Snakemake
    died before this point stops at the first check."""
    ancestor = _workflow_pid() or _snakemake_ancestor()
    if ancestor is None:
        return
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):
        # interrupt_main() does nothing unless Python handles SIGINT, and a job started from a background shell
        # inherits SIGINT ignored: restore Python's handler so the watchdog can stop the job
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def watch():  # the first check at once: Snakemake may have died during this job's start-up
        while True:
            try:
                os.kill(ancestor, 0)
            except ProcessLookupError:
                log.error("the Snakemake process %d is gone: stopping this job", ancestor)
                _thread.interrupt_main()
                return
            except PermissionError:
                return
            time.sleep(interval)

    threading.Thread(target=watch, daemon=True, name="watch-snakemake").start()


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
    default view: one line per finished job)."""
    cpu = time.process_time()
    log.info("done: %s (%.1f CPU-s)", text, cpu)
    _console(f"done {_CONSOLE['label']}: {text} ({cpu:.1f} CPU-s)")


class Progress:
    """Progress lines "replicates done i/n (elapsed, about R left)" for long jobs."""

    def __init__(self, log: logging.Logger, what: str = "replicates"):
        self.log, self.what, self.start = log, what, time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.start
        left = elapsed / done * (total - done) if done else float("nan")
        self.log.info("%s done %d/%d (%.1f s, about %.0f s left)", self.what, done, total, elapsed, left)
