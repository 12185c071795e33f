"""One apt-get at a time among the test processes: the SLURM and browser tests may install Debian packages while
running in parallel (make test's first pass), and a second apt-get fails at once on apt's own lock."""
from __future__ import annotations

import contextlib
import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK_FILE = Path(tempfile.gettempdir()) / "adaptive-repro-tests-apt.lock"

#: apt-get options: wait for the lock of a dpkg run outside the tests too, instead of failing at once.
WAIT_FOR_DPKG = ["-o", "DPkg::Lock::Timeout=600"]


@contextlib.contextmanager
def apt_lock() -> Iterator[None]:
    """Hold an exclusive lock shared by every test process of this machine while apt-get runs."""
    with open(LOCK_FILE, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
