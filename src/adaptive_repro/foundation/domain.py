"""Argument domains of the library's public functions (bounds, accounting, ground truth), checked by name.

One table says what each conventional parameter name may hold (``eps`` a finite number >= 0, ``delta_tilde`` in
(0, 1], ``T`` a positive integer, ...); :func:`checked` wraps a function so that every argument whose name is in the
table is checked before the function runs, scalars and arrays alike, and a value outside its domain raises
``ValueError`` naming the function, the argument, the value and what is allowed (never a silent nan, inf or a
number from outside the theorem's hypotheses). Arguments with other names are the function's own business.

What counts as a number: a Python ``int`` or ``float``, a numpy integer or float scalar, or (where the function is
vectorized) an array of them. Refused everywhere: ``None`` (unless the parameter's default is None: an optional
argument left out), bools, strings, and -0.0 where the domain starts at 0 (it passes ``>= 0`` but turns 1/x into
-inf). A parameter annotated ``int`` or ``float`` (``| None``) takes one number, not an array, and one annotated
``int`` an integer value. A checked call that overflows or takes an invalid value in numpy (a RuntimeWarning:
inf or nan from finite, allowed arguments) raises ``ValueError`` naming the function and its arguments instead.
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
    scalar: bool = False  # one number (the function is not vectorized over this argument)
    optional: bool = False  # None allowed (the argument left out)
    boolean: bool = False  # True or False (a flag), nothing else

    def describe(self) -> str:
        if self.boolean:
            return "True or False"
        kind = "an integer" if self.integer else "a number"
        if self.optional:
            return f"{self._replace(optional=False).describe()} or None"
        if np.isinf(self.high):
            return f"{kind} {'>' if self.low_open else '>='} {self.low:g}"
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"{kind} in {left}{self.low:g}, {self.high:g}{right}"

    def holds(self, values: np.ndarray) -> np.ndarray:
        ok = np.isfinite(values) | (np.isinf(values) & (values > 0) & np.isinf(self.high) & (not self.high_open))
        if self.low >= 0:
            ok &= ~((values == 0) & np.signbit(values))  # -0.0
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
        (tests/unit/foundation/test_domain.py compares the two on drawn values)."""
        finite = math.isfinite(value)
        if value == 0 and self.low >= 0 and math.copysign(1.0, value) < 0:
            return False  # -0.0
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
AT_LEAST_ONE = Domain(1.0, INF, high_open=True)
FLAG = Domain(0.0, 1.0, boolean=True)

#: The domain of each conventional parameter name (privacy levels, failure probabilities, counts).
DOMAINS: dict[str, Domain] = {
    **dict.fromkeys(("eps", "eps_prime", "eps_dp", "eps_bdp", "eps_tilde", "epsilon", "epsilon_prime"),
                    NONNEGATIVE),
    "delta": PROBABILITY, "delta_prime": PROBABILITY,
    "delta_tilde": FAILURE_PROBABILITY, "beta": OPEN_PROBABILITY,
    **dict.fromkeys(("T", "N", "n", "B", "budget"), POSITIVE),  # counts; bounds are also solved for them as reals
    "m": AT_LEAST_ONE,  # a number of queries or of samples: ln(m / beta) and the like assume m >= 1
    "k": COUNT,
    "tau": Domain(0.0, 1.0, low_open=True),
    "sigma": POSITIVE, "sensitivity": POSITIVE, "shift": POSITIVE,
    "q": Domain(0.0, 1.0, low_open=True),  # a sampling probability
    "p_stay": OPEN_PROBABILITY, "p_s": OPEN_PROBABILITY, "p_y": OPEN_PROBABILITY,
    "c": OPEN_PROBABILITY,
    # sizes and the other arguments of the bounds (He §4.1, §5; Lecture 18; Zhao Theorem 1)
    "L": NONNEGATIVE, "x": PROBABILITY, "eps_steps": NONNEGATIVE, "a_max": NONNEGATIVE,
    "empirical_risk": NONNEGATIVE, "empirical_variance": NONNEGATIVE,
    "n_outputs": AT_LEAST_ONE, "gap": NONNEGATIVE, "alpha": NONNEGATIVE, "p_alpha": PROBABILITY,
    "tau_max": Domain(0.0, 1.0, low_open=True), "p": OPEN_PROBABILITY,
    "target": POSITIVE, "interval": POSITIVE, "min_steps": COUNT, "steps_per_eps": COUNT, "max_quilt_size": COUNT,
    "derived": FLAG, "pessimistic": FLAG,
}


def _not_a_number(value, domain: Domain) -> str | None:
    """Why ``value`` is not a number this domain can take (None if it is one, or an array of them)."""
    if value is None:
        return None if domain.optional else "is None"
    if domain.boolean:
        return None if isinstance(value, (bool, np.bool_)) else "is not True or False"
    if isinstance(value, (bool, np.bool_)):
        return "is a bool, not a number"
    if isinstance(value, (str, bytes)):
        return "is a string, not a number"
    kind = getattr(value, "dtype", None)
    if kind is None:
        try:
            kind = np.asarray(value).dtype
        except (TypeError, ValueError):
            return "is not a number"
    if kind.kind not in "iuf":
        return f"is not a number (numpy dtype {kind})"
    if domain.scalar and np.ndim(value) != 0:
        return "is an array; this argument takes one number"
    return None


def check(function: str, name: str, value, domain: Domain) -> None:
    """Raise ValueError naming ``function`` and argument ``name`` unless ``value`` is a number (or an array of
    numbers) of ``domain`` (module docstring)."""
    why = _not_a_number(value, domain)
    if why is not None:
        raise ValueError(f"{function}: argument {name} = {_echo(value)} {why}; allowed: {domain.describe()}")
    if value is None or domain.boolean:
        return
    values = np.asarray(value, dtype=float)
    ok = domain.holds(values)
    if not np.all(ok):
        bad = float(values[~ok].flat[0]) if values.ndim else float(values)
        where = "" if values.ndim == 0 else f" (an element of {name})"
        raise ValueError(f"{function}: argument {name} = {bad!r}{where} is not allowed; allowed: {domain.describe()}")


def _echo(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _call(func: Callable, args: tuple, kwargs: dict) -> str:
    """``name(arguments)`` of a call, each argument echoed short, for an error message."""
    given = ", ".join([_echo(a) for a in args] + [f"{k}={_echo(v)}" for k, v in kwargs.items()])
    return f"{func.__qualname__}({given})"


def _passes(value, domain: Domain) -> bool:
    """Whether ``value`` lies in ``domain`` (False also where it is not a number): Python numbers in plain Python,
    anything else through numpy."""
    if (type(value) is float or type(value) is int) and not domain.boolean:
        return domain.holds_for(float(value))
    if _not_a_number(value, domain) is not None:
        return False
    return value is None or domain.boolean or bool(np.all(domain.holds(np.asarray(value, dtype=float))))


def _annotated(domain: Domain, parameter: inspect.Parameter) -> Domain:
    """``domain`` as ``parameter``'s annotation and default narrow it: a parameter annotated ``int``/``float``
    (``| None``) takes one number (``int``: an integer value); a default of None allows None."""
    note = parameter.annotation
    note = note.__name__ if isinstance(note, type) else str(note)  # a string under `from __future__ import annotations`
    note = note.replace(" ", "").removesuffix("|None")
    if note in ("int", "float"):
        domain = domain._replace(scalar=True, integer=domain.integer or note == "int")
    if parameter.default is None:
        domain = domain._replace(optional=True)
    return domain


def checked(func: Callable, domains: dict[str, Domain] | None = None) -> Callable:
    """Wrap ``func`` so that every argument named in ``domains`` (default :data:`DOMAINS`) is checked on each call
    (module docstring).

    Each checked argument is found where Python binds it by ``func``'s signature (by keyword, else by position)
    without building a ``BoundArguments``. A call whose checked values all lie in their domains goes straight to
    ``func`` (a call that does not fit the signature gets Python's own ``TypeError`` there); a call with a value
    outside its domain takes ``inspect.Signature.bind`` and :func:`check`, and raises their error as before. ``func``
    runs with numpy's overflow, invalid-value and division warnings raised as a ``ValueError`` naming the call."""
    domains = DOMAINS if domains is None else domains
    signature = inspect.signature(func)
    names = [p for p in signature.parameters if p in domains]
    if not names:
        return func
    domains = {name: _annotated(domains[name], signature.parameters[name]) for name in names}
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

    def run(*args, **kwargs):
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                return func(*args, **kwargs)
        except (FloatingPointError, OverflowError, ZeroDivisionError) as err:
            raise ValueError(f"{_call(func, args, kwargs)}: the result is not representable in floating point "
                             f"({err}): an argument is too large or too close to 0 for double precision") from None
        except ValueError as err:  # raised by a function it calls, or by itself: name the call the user made
            if str(err).startswith(func.__qualname__):
                raise
            raise ValueError(f"{_call(func, args, kwargs)}: {err}") from None

    def checked_call(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name in names:
            if name in bound.arguments:
                check(func.__qualname__, name, bound.arguments[name], domains[name])
        return run(*args, **kwargs)

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
            if not _passes(value, domain):
                return checked_call(*args, **kwargs)  # raises the check's ValueError (or bind's TypeError)
        return run(*args, **kwargs)

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


def check_generator(function: str, rng) -> None:
    """Raise ValueError naming ``function`` unless ``rng`` is a numpy Generator (the random functions draw with its
    methods; another object would fail deep inside with an AttributeError)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{function}: argument rng = {_echo(rng)} is not allowed; allowed: a numpy Generator "
                         "(numpy.random.default_rng)")


def check_size(function: str, name: str, value: int, most: float, why: str) -> None:
    """Raise ValueError naming ``function`` unless ``value`` is at most ``most`` (``why``: what grows with it), so that
    an allocation the machine cannot hold is refused in one line instead of a MemoryError from inside numpy."""
    if value > most:
        raise ValueError(f"{function}: argument {name} = {value!r} is not allowed; allowed: at most {most:g} "
                         f"({why})")
