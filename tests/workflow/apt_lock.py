"""Debian packages for the tests, one apt-get at a time among the test processes: the SLURM and browser tests may
install packages while running in parallel (make test's first pass), and a second apt-get fails at once on apt's own
lock."""
from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
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


def apt_install(packages: list[str], timeout: float,
                installed: Callable[[], bool]) -> list[tuple[list[str], subprocess.CompletedProcess]]:
    """``apt-get update`` then ``apt-get install`` of ``packages`` under :func:`apt_lock`, unless ``installed()`` is
    true once the lock is held (another test process installed them meanwhile). Returns each command run with its
    result, stopping at the first that fails; subprocess.TimeoutExpired propagates."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    runs: list[tuple[list[str], subprocess.CompletedProcess]] = []
    with apt_lock():
        if installed():
            return runs
        for cmd in (["apt-get", *WAIT_FOR_DPKG, "update"],
                    ["apt-get", *WAIT_FOR_DPKG, "install", "-y", "--no-install-recommends", *packages]):
            runs.append((cmd, subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)))
            if runs[-1][1].returncode != 0:
                break
    return runs
