"""Exact privacy quantities of a mechanism on a tiny binary database, by enumerating all 2^n databases.

A database distribution is ``joint`` (probabilities of the 2^n databases, in the row order of :func:`databases`);
a mechanism with a finite output set is ``kernel`` (row x: the distribution of Y(x) over outputs). These serve the
checks of Zhao 2017's Theorem 3 and its proof (Appendix A.1) under correlated records, where no closed form exists:
- Bayesian-DP leakage, Zhao eqs. (3)-(4): sup over i, S, x_i, x_i', x_S and output sets of
  ln P[Y in O | x_i, x_S] / P[Y in O | x_i', x_S] (for finite outputs the sup over sets is over single outputs);
- the Doob martingale of the proof: g(x) = ln P[Y(x) = y] / P[Y = y] and Z_i = E[g(X) | X_{1:i}] (eqs. (40)-(44));
- beta-approximate max-information (Dwork et al. 2015, used in Zhao's Theorem 3):
  I_inf^beta(X; Y) = log2 max over sets O with P[(X, Y) in O] > beta of (P[(X, Y) in O] - beta) / P[X x Y in O].
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import expit

from adaptive_repro.privacy.influence import SUM_TOLERANCE, checked_distribution, entry_span


def checked_joint(function: str, joint) -> np.ndarray:
    """``joint`` as a float array after checking that it is a distribution over the 2^n databases (1 <= n <= 16):
    finite, non-negative, summing to 1 within :data:`SUM_TOLERANCE`. Else a ValueError naming ``function``."""
    joint = np.asarray(joint, dtype=float)
    what = "probabilities of the 2^n databases (1 <= n <= 16)"
    size = joint.size
    if joint.ndim != 1 or size < 2 or size & (size - 1) or size > 2**16:
        raise ValueError(f"{function}: joint must be {what}; got shape {joint.shape}")
    return checked_distribution(function, "joint", joint, what)


def checked_kernel(function: str, kernel, rows: int | None = None) -> np.ndarray:
    """``kernel`` as a float array after checking that each row is a distribution over outputs (one row per database,
    ``rows`` of them if given). Else a ValueError naming ``function``."""
    kernel = np.asarray(kernel, dtype=float)
    allowed = (f"{function}: kernel must have one row per database (2^n rows, 1 <= n <= 16), each a distribution "
               f"over the outputs (non-negative, summing to 1 within {SUM_TOLERANCE:g})")
    size = kernel.shape[0] if kernel.ndim == 2 else 0
    if kernel.ndim != 2 or size < 2 or size & (size - 1) or size > 2**16 or (rows is not None and size != rows):
        raise ValueError(f"{allowed}; got shape {kernel.shape}" + (f" for {rows} databases" if rows else ""))
    sums = kernel.sum(axis=1)
    if not np.all(np.isfinite(kernel)) or kernel.min() < 0 or np.max(np.abs(sums - 1.0)) > SUM_TOLERANCE:
        raise ValueError(f"{allowed}; got {entry_span(kernel)}, {entry_span(sums, 'row sums')}")
    return kernel


def databases(n: int) -> np.ndarray:
    """All binary databases of n records, shape (2^n, n), in ``itertools.product`` order."""
    if not 1 <= n <= 16:
        raise ValueError(f"databases: argument n = {n!r} is not allowed; allowed: an integer from 1 to 16 (all 2^n "
                         "databases are enumerated)")
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int8)


def markov_joint(n: int, flip: float, p_first: float) -> np.ndarray:
    """A binary Markov chain of n records: P[X_1 = 1] = p_first, each next record flips with probability flip."""
    for name, value in (("flip", flip), ("p_first", p_first)):
        if not 0.0 <= value <= 1.0:  # also refuses nan
            raise ValueError(f"markov_joint: argument {name} = {value!r} is not allowed; allowed: a probability in "
                             "[0, 1]")
    x = databases(n)
    prob = np.where(x[:, 0] == 1, p_first, 1 - p_first)
    for j in range(1, n):
        prob = prob * np.where(x[:, j] != x[:, j - 1], flip, 1 - flip)
    return prob


def randomized_response_kernel(n: int, eps: float) -> np.ndarray:
    """Every record reported independently, kept with probability e^eps/(1 + e^eps): an eps-DP mechanism whose
    output is itself a database (kernel of shape (2^n, 2^n))."""
    if not 0.0 <= eps < np.inf:  # also refuses nan
        raise ValueError(f"randomized_response_kernel: argument eps = {eps!r} is not allowed; allowed: a finite "
                         "number >= 0")
    x = databases(n)
    if n * eps > SMALLEST_LOG:
        raise ValueError(f"randomized_response_kernel: argument eps = {eps!r} is not allowed with n = {n}; allowed: "
                         f"n eps <= {SMALLEST_LOG} (the kernel's smallest entry, about e^(-n eps), must be a normal "
                         "float)")
    keep, flip = expit(eps), expit(-eps)  # e^eps/(1 + e^eps) and its complement, without overflow or cancellation
    same = (x[:, None, :] == x[None, :, :])
    return np.prod(np.where(same, keep, flip), axis=2)


#: The largest -ln of a normal float, rounded down: a kernel entry e^(-n eps) below it would be subnormal or 0.
SMALLEST_LOG = 700


def _largest_log_ratio(a: np.ndarray, b: np.ndarray) -> float:
    """max |ln a - ln b| over the entries, an entry 0 in one and positive in the other counting as inf and one 0 in
    both (impossible either way) not counting."""
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.abs(np.log(a) - np.log(b))
    d = d[~np.isnan(d)]
    return float(d.max()) if d.size else 0.0


def _conditional_output(joint: np.ndarray, kernel: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """P[Y = . | X in mask], or None where the event has probability 0."""
    weight = joint * mask
    total = weight.sum()
    return None if total <= 0 else (weight / total) @ kernel


def bdp_leakage(joint: np.ndarray, kernel: np.ndarray) -> float:
    """Zhao 2017 eqs. (3)-(4): the smallest eps for which the mechanism is eps-Bayesian-DP on ``joint``."""
    joint = checked_joint("bdp_leakage", joint)
    kernel = checked_kernel("bdp_leakage", kernel, rows=len(joint))
    x = databases(int(np.log2(len(joint))))
    n = x.shape[1]
    worst = 0.0
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for size in range(n):
            for S in itertools.combinations(others, size):
                for values in itertools.product((0, 1), repeat=size):
                    known = np.all(x[:, list(S)] == np.array(values, dtype=np.int8), axis=1) if S else True
                    a = _conditional_output(joint, kernel, known & (x[:, i] == 0))
                    b = _conditional_output(joint, kernel, known & (x[:, i] == 1))
                    if a is not None and b is not None:
                        worst = max(worst, _largest_log_ratio(a, b))
    return worst


def dp_level(kernel: np.ndarray) -> float:
    """The smallest eps for which the mechanism is eps-DP (neighbours: one record changed)."""
    kernel = checked_kernel("dp_level", kernel)
    x = databases(int(np.log2(len(kernel))))
    weights = 1 << np.arange(x.shape[1] - 1, -1, -1)
    index = x @ weights
    worst = 0.0
    for j in range(x.shape[1]):
        neighbour = index ^ (1 << (x.shape[1] - 1 - j))
        worst = max(worst, _largest_log_ratio(kernel[index], kernel[neighbour]))
    return worst


def doob_increments(joint: np.ndarray, kernel: np.ndarray) -> tuple[float, float, float]:
    """The proof of Zhao's Theorem 3 (App. A.1), maxima over y, i and x_{1:i} of: |Z_i - Z_{i-1}|, the step the proof
    bounds by eps; |E[g | x_{1:i}] - ln P[Y = y | x_{1:i}]/P[Y = y]|, the difference between the two sides of
    eqs. (46)-(47), which the proof takes to be equal; and |ln P[y | x_{1:i}]/P[y | x_{1:i-1}]|, the increment of the
    likelihood-ratio martingale, which Bayesian DP bounds by eps."""
    joint = checked_joint("doob_increments", joint)
    kernel = checked_kernel("doob_increments", kernel, rows=len(joint))
    x = databases(int(np.log2(len(joint))))
    n = x.shape[1]
    p_y = joint @ kernel
    step = swap = ratio = 0.0
    for y in range(kernel.shape[1]):
        g = np.log(kernel[:, y]) - np.log(p_y[y])

        def both_sides(prefix: tuple[int, ...]) -> tuple[float, float] | None:
            mask = np.all(x[:, :len(prefix)] == np.array(prefix, dtype=np.int8), axis=1)
            w = joint * mask
            if w.sum() <= 0:
                return None
            w = w / w.sum()
            return float(w @ g), float(np.log(w @ kernel[:, y]) - np.log(p_y[y]))

        for i in range(1, n + 1):
            for prefix in itertools.product((0, 1), repeat=i):
                now, before = both_sides(prefix), both_sides(prefix[:-1])
                if now is None:
                    continue
                step = max(step, abs(now[0] - before[0]))
                swap = max(swap, abs(now[0] - now[1]))
                ratio = max(ratio, abs(now[1] - before[1]))
    return step, swap, ratio


def max_information_bits(joint: np.ndarray, kernel: np.ndarray, beta: float) -> float:
    """beta-approximate max-information I_inf^beta(X; Y) in bits. The best set O is a set of the (x, y) atoms of
    largest ratio P[x, y] / (P[x] P[y]) (adding an atom whose ratio exceeds the current value improves it), so the
    maximum is over the prefixes of the atoms sorted by ratio, and on each prefix over the threshold value."""
    if not 0 <= beta < 1:
        raise ValueError(f"max_information_bits: argument beta = {beta!r} is not allowed; allowed: a number in [0, 1)")
    joint = checked_joint("max_information_bits", joint)
    kernel = checked_kernel("max_information_bits", kernel, rows=len(joint))
    together = (joint[:, None] * kernel).ravel()
    apart = (joint[:, None] * (joint @ kernel)[None, :]).ravel()
    keep = apart > 0
    together, apart = together[keep], apart[keep]
    order = np.argsort(-together / apart, kind="stable")
    mass, base = np.cumsum(together[order]), np.cumsum(apart[order])
    ok = mass > beta
    if not ok.any():
        return float("-inf")
    return float(np.log2(np.max((mass[ok] - beta) / base[ok])))
