"""Caches of the chain conversions (Zhao Lemma 2): one ChainInfluence per chain, and memoized pure conversions.

The Zhao outputs ask for the same conversion (eps, n, chain) once per Algorithm 1 arm and convert many eps on one
chain (Theorem 2's root search): the chain's matrix powers are computed once, and a repeated call returns the
first call's result. Both are pure functions of their arguments, so caching never changes a number.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import numpy as np

from adaptive_repro.privacy.influence import ChainInfluence, checked_transition_matrix


def chain_key(P) -> tuple:
    """What a chain's conversions depend on, as a hashable key: its kind, matrix, stationary law and copies."""
    if isinstance(P, ChainInfluence):
        return (type(P).__name__, P.P.shape, P.P.tobytes(), P.pi.tobytes(), getattr(P, "copies", 1))
    P = np.asarray(P, dtype=float)
    return ("matrix", P.shape, P.tobytes())


class _Unhashed:
    """Carries a chain past lru_cache, which then hashes and compares only the key beside it."""

    def __init__(self, value):
        self.value = value

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other) -> bool:
        return True


@functools.lru_cache(maxsize=64)
def _influence_of(key: tuple, chain: _Unhashed) -> ChainInfluence:
    P = chain.value
    return P if isinstance(P, ChainInfluence) else ChainInfluence(np.asarray(P, dtype=float))


def chain_influence(P, function: str = "chain_influence") -> ChainInfluence:
    """The ChainInfluence of a transition matrix (one per chain; its powers are computed lazily, once), or ``P``
    itself if it already is one. A matrix must be an irreducible chain of at least 2 states (a ValueError naming
    ``function``, the public function the caller called, otherwise)."""
    if not isinstance(P, ChainInfluence):
        P = checked_transition_matrix(function, P, irreducible=True)
        if P.shape[0] < 2:
            raise ValueError(f"{function}: P must be a chain of at least 2 states (a record with one value has no "
                             "influence to bound); got 1 state")
    return _influence_of(chain_key(P), _Unhashed(P))


def memoized_on_chain(settings: Callable[[], tuple]):
    """Decorator: cache a pure conversion f(eps, n, P) by (eps, n, chain key, ``settings()``), ``settings`` giving
    the module-level search constants the result depends on (tests change them)."""
    def decorate(fn):
        cached = functools.lru_cache(maxsize=1024)(lambda eps, n, key, search, chain: fn(eps, n, chain.value))
        signature = inspect.signature(fn)  # the names callers use (eps or eps_dp, n, P), as the wrapper reports
        arity = len(signature.parameters)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if kwargs or len(args) != arity:  # a call by keyword: Python's binding of fn's own names, and its errors
                args = signature.bind(*args, **kwargs).args
            eps, n, P = args
            return cached(float(eps), int(n), chain_key(P), settings(), _Unhashed(P))

        return wrapper
    return decorate
