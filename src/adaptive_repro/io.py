"""Atomic file output: nothing half-written survives a failure or an interruption, and every file gets the
permissions of an ordinary new file under the user's umask (readable by collaborators where the umask allows)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pandas as pd


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path next to ``path``; move it into place only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix + ".part", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; a plain open() would give 0666 & ~umask
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a table atomically, without the index."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write a text file atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def save_figure(fig, pdf_path: str | os.PathLike, png_path: str | os.PathLike, dpi: int = 150) -> None:
    """Save a matplotlib figure as PDF and PNG, each atomically."""
    for target, fmt in ((pdf_path, "pdf"), (png_path, "png")):
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight")
