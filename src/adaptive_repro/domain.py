"""Argument domains of the library's public functions (bounds, accounting, ground truth), checked by name.

One table says what each conventional parameter name may hold (``eps`` a finite number >= 0, ``delta_tilde`` in
(0, 1], ``T`` a positive integer, ...); :func:`checked` wraps a function so that every argument whose name is in the
table is checked before the function runs, scalars and arrays alike, and a value outside its domain raises
``ValueError`` naming the function, the argument, the value and what is allowed (never a silent nan, inf or a
number from outside the theorem's hypotheses). Arguments with other names are the function's own business.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class Domain(NamedTuple):
    low: float
    high: float
    low_open: bool = False
    high_open: bool = False
    integer: bool = False

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a number"
        if np.isinf(self.high):
            return f"{kind} {'>' if self.low_open else '>='} {self.low:g}"
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"{kind} in {left}{self.low:g}, {self.high:g}{right}"

    def holds(self, values: np.ndarray) -> np.ndarray:
        ok = np.isfinite(values) | (np.isinf(values) & (values > 0) & np.isinf(self.high) & (not self.high_open))
        ok &= (values > self.low) if self.low_open else (values >= self.low)
        if np.isfinite(self.high):
            ok &= (values < self.high) if self.high_open else (values <= self.high)
        if self.integer:
            finite = np.where(np.isfinite(values), values, 0.5)
            ok &= np.isfinite(values) & (np.mod(finite, 1) == 0)
        return ok

    def holds_for(self, value: float) -> bool:
        """:meth:`holds` for one Python number, in plain Python: numpy's 0-d array path costs tens of microseconds
        per argument of a checked function called in a loop, and this decides the same in well under one
        (tests/unit/test_domain.py compares the two on drawn values)."""
        finite = math.isfinite(value)
        if not (finite or (value > 0 and math.isinf(self.high) and not self.high_open)):
            return False
        if not (value > self.low if self.low_open else value >= self.low):
            return False
        if math.isfinite(self.high) and not (value < self.high if self.high_open else value <= self.high):
            return False
        return not self.integer or (finite and value % 1 == 0)


INF = float("inf")
NONNEGATIVE = Domain(0.0, INF, high_open=True)
POSITIVE = Domain(0.0, INF, low_open=True, high_open=True)
COUNT = Domain(1.0, INF, high_open=True, integer=True)
PROBABILITY = Domain(0.0, 1.0)
OPEN_PROBABILITY = Domain(0.0, 1.0, low_open=True, high_open=True)
FAILURE_PROBABILITY = Domain(0.0, 1.0, low_open=True)

#: The domain of each conventional parameter name (privacy levels, failure probabilities, counts).
DOMAINS: dict[str, Domain] = {
    **dict.fromkeys(("eps", "eps_prime", "eps_dp", "eps_bdp", "eps_tilde", "epsilon", "epsilon_prime"),
                    NONNEGATIVE),
    "delta": PROBABILITY, "delta_prime": PROBABILITY,
    "delta_tilde": FAILURE_PROBABILITY, "beta": OPEN_PROBABILITY,
    **dict.fromkeys(("T", "N", "n", "m", "B", "budget"), POSITIVE),  # counts; bounds are also solved for them as reals
    "k": COUNT,
    "tau": Domain(0.0, 1.0, low_open=True),
    "sigma": POSITIVE, "sensitivity": POSITIVE,
    "p_stay": OPEN_PROBABILITY, "p_s": OPEN_PROBABILITY, "p_y": OPEN_PROBABILITY,
    "c": OPEN_PROBABILITY,
}


def check(function: str, name: str, value, domain: Domain) -> None:
    """Raise ValueError naming ``function`` and argument ``name`` unless every element of ``value`` is in ``domain``."""
    try:
        values = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{function}: argument {name} = {value!r} is not a number; allowed: "
                         f"{domain.describe()}") from None
    ok = domain.holds(values)
    if not np.all(ok):
        bad = float(values[~ok].flat[0]) if values.ndim else float(values)
        where = "" if values.ndim == 0 else f" (an element of {name})"
        raise ValueError(f"{function}: argument {name} = {bad!r}{where} is not allowed; allowed: {domain.describe()}")


def _passes(value, domain: Domain) -> bool:
    """Whether ``value`` lies in ``domain`` (False also where it is not a number): Python numbers in plain Python,
    anything else through numpy."""
    if isinstance(value, (int, float)):
        return domain.holds_for(float(value))
    try:
        return bool(np.all(domain.holds(np.asarray(value, dtype=float))))
    except (TypeError, ValueError):
        return False


def checked(func: Callable, domains: dict[str, Domain] | None = None) -> Callable:
    """Wrap ``func`` so that every argument named in ``domains`` (default :data:`DOMAINS`) is checked on each call
    (module docstring).

    Each checked argument is found where Python binds it by ``func``'s signature (by keyword, else by position)
    without building a ``BoundArguments``. A call whose checked values all lie in their domains goes straight to
    ``func`` (a call that does not fit the signature gets Python's own ``TypeError`` there); a call with a value
    outside its domain takes ``inspect.Signature.bind`` and :func:`check`, and raises their error as before."""
    domains = DOMAINS if domains is None else domains
    signature = inspect.signature(func)
    names = [p for p in signature.parameters if p in domains]
    if not names:
        return func
    # (name, position or None, whether it may come by keyword, domain) of every checked argument; None where one of
    # them is *args or **kwargs (always the general path)
    where: list | None = []
    for position, (name, parameter) in enumerate(signature.parameters.items()):
        if name not in domains:
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            where = None
            break
        where.append((name, None if parameter.kind is parameter.KEYWORD_ONLY else position,
                      parameter.kind is not parameter.POSITIONAL_ONLY, domains[name]))

    def checked_call(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name in names:
            if name in bound.arguments and bound.arguments[name] is not None:
                check(func.__qualname__, name, bound.arguments[name], domains[name])
        return func(*args, **kwargs)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if where is None:
            return checked_call(*args, **kwargs)
        for name, position, by_keyword, domain in where:
            if by_keyword and name in kwargs:
                value = kwargs[name]
            elif position is not None and position < len(args):
                value = args[position]
            else:
                continue  # not given: its default is not checked (a missing one is Python's TypeError)
            if value is not None and not _passes(value, domain):
                return checked_call(*args, **kwargs)  # raises the check's ValueError (or bind's TypeError)
        return func(*args, **kwargs)

    wrapper.__wrapped_domains__ = {name: domains[name] for name in names}
    if "Checked (ValueError otherwise)" not in (func.__doc__ or ""):  # the domains in the docs (pdoc shows func's)
        func.__doc__ = ((func.__doc__ or "").rstrip() + "\n\nChecked (ValueError otherwise): "
                        + ", ".join(f"``{name}`` {domains[name].describe()}" for name in names) + ".")
    wrapper.__doc__ = func.__doc__
    return wrapper


def unchecked(func: Callable) -> Callable:
    """``func`` without the checks :func:`checked` added (``func`` itself if it has none): for calls inside the
    library whose arguments are already checked, e.g. a public function calling another with its own arguments, or a
    loop evaluating a checked function at many points (each check costs tens of microseconds)."""
    return func.__wrapped__ if hasattr(func, "__wrapped_domains__") else func


def check_public_functions(namespace: dict, module: str, **overrides: Domain | None) -> None:
    """Wrap every public function defined in ``module`` (its ``globals()``) with :func:`checked`, in place: the one
    line at the end of each library module that makes its domains checked. ``overrides`` give a name another domain
    in this module (a paper's own meaning of ``tau``, say), or None to leave it unchecked."""
    domains = {k: v for k, v in (DOMAINS | overrides).items() if v is not None}
    for name, value in list(namespace.items()):
        if inspect.isfunction(value) and value.__module__ == module and not name.startswith("_"):
            namespace[name] = checked(value, domains)
