"""Random streams keyed by names, never by job order (docs/METHODS.md §7, "Seeds").

Every stream is ``SeedSequence(entropy=seed, spawn_key=(key(name1), key(name2), ...))`` where names are
strings or non-negative integers, e.g. ``("dwork-null", replicate, "data")``. The same (seed, names) always
gives the same numbers, whatever the chunking of replicates into jobs, the scheduling or the core count.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np


def name_key(name: str | int) -> int:
    """A stable 32-bit key for a stream name (Python's ``hash`` is salted per process, so not usable)."""
    if isinstance(name, (int, np.integer)):
        if name < 0:
            raise ValueError(f"stream index must be >= 0, got {name}")
        return int(name)
    return _string_key(str(name))


@functools.lru_cache(maxsize=4096)
def _string_key(name: str) -> int:
    """The first 4 bytes of the name's SHA-256 (remembered: a replicate names thousands of streams from a few
    dozen names)."""
    digest = hashlib.sha256(name.encode()).digest()
    return int.from_bytes(digest[:4], "little")


def seed_sequence(seed: int, *names: str | int) -> np.random.SeedSequence:
    """The SeedSequence for the stream ``names`` under the config ``seed``."""
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(name_key(n) for n in names))


def rng(seed: int, *names: str | int) -> np.random.Generator:
    """A PCG64 generator for the stream ``names`` under the config ``seed``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(seed, *names)))
