"""Atomic file output: nothing half-written survives a failure or an interruption, and every file gets the
permissions of an ordinary new file under the user's umask (readable by collaborators where the umask allows).

Intermediates (records chunks and their aggregates) are written with a sidecar ``<file>.meta.json`` holding the
SHA-256 of the file's bytes, its row count and what it must contain (experiments, replicate range, spec digests);
:func:`read_verified_csv` checks all of it before parsing, so a truncated, edited, replaced or garbage file is refused
with one line naming it and what to rerun, never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where a CSV is parsed: a job that writes only text does not load it
    import pandas as pd


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path next to ``path``; move it into place only if the block succeeds. An OSError of the block
    that names no file (a writer that hides its file) is raised again naming ``path``, so the failure says where."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix + ".part", dir=path.parent)
    os.close(fd)
    try:
        try:
            yield Path(tmp)
        except OSError as err:
            if err.filename is None and err.errno is not None:  # e.g. matplotlib's full-disk error names no file
                raise OSError(err.errno, err.strerror, str(path)) from err
            raise
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; a plain open() would give 0666 & ~umask
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a table atomically, without the index."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)


META_SUFFIX = ".meta.json"


class IntegrityError(ValueError):
    """An intermediate file does not match what was written (or what the run expects); the message is one line naming
    the file and what to do."""


def meta_path(path: str | os.PathLike) -> Path:
    """The sidecar of ``path``: ``<path>.meta.json``."""
    return Path(f"{path}{META_SUFFIX}")


def write_verified_csv(frame: pd.DataFrame, path: str | os.PathLike, meta: dict) -> None:
    """Write a table atomically, then its sidecar (SHA-256 of the bytes, rows, columns and ``meta``) atomically."""
    data = frame.to_csv(index=False).encode()
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    record = {"sha256": hashlib.sha256(data).hexdigest(), "rows": len(frame), "columns": list(frame.columns)} | meta
    write_text(json.dumps(record, indent=1, sort_keys=True, default=str) + "\n", meta_path(path))


def read_verified_csv(path: str | os.PathLike, expect: dict | None = None, rerun: str = "rerun the workflow",
                      **read_kw) -> pd.DataFrame:
    """The table at ``path`` after checking it against its sidecar: the bytes' SHA-256, the row count, and every key
    of ``expect`` (e.g. the replicate range or spec digest the run needs). Raises :class:`IntegrityError` with one
    line naming the file, what is wrong and ``rerun`` (what to do) on any mismatch, a missing or unreadable sidecar, or
    a file that does not parse."""
    path = Path(path)
    where = f"{path}: "
    try:
        meta = json.loads(meta_path(path).read_text(encoding="utf-8"))
        if not isinstance(meta, dict) or not {"sha256", "rows"} <= set(meta):
            raise ValueError("keys missing")
    except (OSError, ValueError) as err:
        raise IntegrityError(f"{where}its digest file {meta_path(path).name} is missing or unreadable ({err}); "
                             f"delete both and {rerun}") from None
    try:
        data = path.read_bytes()
    except OSError as err:
        raise IntegrityError(f"{where}cannot be read ({err}); {rerun}") from None
    if hashlib.sha256(data).hexdigest() != meta["sha256"]:
        raise IntegrityError(f"{where}content does not match the digest written with it ({len(data):,} bytes; "
                             "truncated, edited or replaced since): delete it and its .meta.json and "
                             f"{rerun}")
    for key, wanted in (expect or {}).items():
        if json.loads(json.dumps(meta.get(key), default=str)) != json.loads(json.dumps(wanted, default=str)):
            raise IntegrityError(f"{where}holds {key} = {meta.get(key)!r} but this run needs {wanted!r} (a file "
                                 f"copied or moved from elsewhere?): delete it and its .meta.json and {rerun}")
    import pandas as pd

    try:
        frame = pd.read_csv(io.BytesIO(data), **read_kw)
    except Exception as err:
        raise IntegrityError(f"{where}does not parse as CSV ({type(err).__name__}); delete it and {rerun}") from None
    if len(frame) != meta["rows"]:
        raise IntegrityError(f"{where}has {len(frame)} rows, its digest file says {meta['rows']}; delete it and "
                             f"{rerun}")
    return frame


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write a text file atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


#: Resolution of every saved PNG (the report shows a figure at 96 CSS px per inch: report_html.figure_css_width).
FIGURE_DPI = 150


def save_figure(fig, pdf_path: str | os.PathLike, png_path: str | os.PathLike, dpi: int = FIGURE_DPI) -> None:
    """Save a matplotlib figure as PDF and PNG, each atomically, its title (the figure's verdict and setting) in both
    files' Title metadata (the report's alt text). The PDF carries no creation date, so the same run gives the same
    bytes (matplotlib's documented ``CreationDate: None``)."""
    metadata = {"Title": " ".join(fig.get_suptitle().split())} if fig.get_suptitle() else {}
    for target, fmt in ((pdf_path, "pdf"), (png_path, "png")):
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight",
                        metadata=metadata | ({"CreationDate": None} if fmt == "pdf" else {}))
