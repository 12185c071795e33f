"""Logging for the workflow's job scripts: one call sets up the job's log file, Python warnings and progress lines
with an estimate of the remaining time."""

from __future__ import annotations

import errno
import logging
import re
import sys
import time
from pathlib import Path

from adaptive_repro.pipeline import run_progress

_CONSOLE = {"stream": sys.stderr, "label": "", "logs_dir": "", "log_path": ""}


def job_logger(log_path: str, name: str, label: str = "") -> logging.Logger:
    """A logger writing to the job's ``log:`` file (timestamps); warnings and stray stderr output go there too. The
    console keeps one line per job, printed by :func:`finished` (``label`` names the job there)."""
    logs = next((p for p in Path(log_path).resolve().parents if p.name == "logs"), None)
    _CONSOLE.update(stream=sys.stderr, label=label or name, logs_dir=str(logs or ""), log_path=str(log_path))
    logging.basicConfig(filename=log_path, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
    logging.captureWarnings(True)
    sys.stderr = open(log_path, "a", encoding="utf-8")
    logger = logging.getLogger(name)

    def on_error(kind, value, tb):  # the traceback to the log, one line to the console: the root cause
        logger.error("failed", exc_info=(kind, value, tb))
        _console(f"FAILED {_CONSOLE['label']}: {root_cause(value)} (traceback: {log_path})")

    sys.excepthook = on_error
    return logger


#: What to do about an operating-system error, by errno: the fix the FAILED line names.
FIXES = {errno.ENOSPC: "the disk is full: free space, then rerun snakemake (finished jobs are kept)",
         errno.EDQUOT: "the disk quota is used up: free space, then rerun snakemake (finished jobs are kept)",
         errno.EACCES: "no permission: make the results folder writable, then rerun snakemake",
         errno.EROFS: "the file system is read-only: run from a writable folder"}


def root_cause(error: BaseException) -> str:
    """One line for a failed job: the innermost operating-system error in ``error``'s chain (its ``__cause__`` and
    ``__context__``: a full disk often surfaces as an unrelated error in the code that was writing), with the file of
    the innermost error that names one and the fix where one is known (:data:`FIXES`), else ``error`` itself as
    "Type: message"."""
    chain, seen = [], set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:  # ids of live objects of one chain: no reuse here
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    os_errors = [e for e in chain if isinstance(e, OSError) and (e.errno or e.filename)]
    if not os_errors:
        return f"{type(error).__name__}: {error}"
    root = os_errors[-1]
    # the innermost error names the cause; a library's write (pandas, matplotlib) often loses the file, which the
    # project's own re-raise around it (foundation.io.atomic_path) names
    filename = next((e.filename for e in reversed(os_errors) if e.filename), None)
    where = f" ({filename})" if filename else ""
    fix = FIXES.get(root.errno)
    return f"{type(root).__name__}: {root.strerror or root}{where}" + (f"; {fix}" if fix else "")


def interrupted_jobs(snakemake_logs, logs_dir: str | Path, since: float) -> list[str]:
    """FAILED lines for jobs killed by a signal (``kill -9``, the out-of-memory killer), which cannot print their
    own: the signals Snakemake's log names ("died with <Signals.SIGKILL: 9>"), and each job log written since
    ``since`` (the run's start, epoch seconds) whose last line is neither the job's "done:" nor part of a Python
    failure (those jobs print their own FAILED line). ``snakemake_logs``: the path, or the list of paths, Snakemake
    gives its ``onerror`` handler."""
    paths = [snakemake_logs] if isinstance(snakemake_logs, (str, Path)) else list(snakemake_logs or [])
    text = ""
    for path in paths:
        try:
            text += Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    signals = sorted(set(re.findall(r"died with <Signals\.(\w+): (\d+)>", text)))
    if not signals:
        return []
    names = ", ".join(f"{name} ({number})" for name, number in signals)
    why = (f"killed by signal {names} (out of memory, or stopped by hand); Snakemake removed its partial output: "
           "rerun snakemake (finished jobs are kept)")
    lines = []
    for path in sorted(Path(logs_dir).rglob("*.log")) if Path(logs_dir).is_dir() else []:
        if path.stat().st_mtime < since:
            continue
        rows = [r for r in path.read_text(encoding="utf-8", errors="replace").splitlines() if r.strip()]
        last = rows[-1] if rows else ""
        if "done:" in last or re.search(r"\bfailed\b|Error|Traceback|^\s", last):
            continue
        lines.append(f"FAILED {path.relative_to(logs_dir).with_suffix('').as_posix()}: {why}")
    return lines or [f"FAILED (a job): {why}"]


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
    if _CONSOLE["logs_dir"]:
        run_progress.report(_CONSOLE["logs_dir"], _CONSOLE["log_path"], _console)


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
