"""Ground truth for the composition and KL comparisons (docs/METHODS.md §6).

* :func:`kov_delta` / :func:`kov_eps`: the exact optimal T-fold composition of (eps, delta)-DP mechanisms,
  Kairouz, Oh, Viswanath (2015), "The Composition Theorem for Differential Privacy", Theorem 3.3.
  Theorem 3.3 states the optimal privacy region at the corner points eps' = (T - 2i) eps:
  delta'_i = 1 - (1-delta)^T (1 - delta_i),
  delta_i = sum_{l=0}^{i-1} C(T,l) (e^{(T-l)eps} - e^{(T-2i+l)eps}) / (1+e^eps)^T.
  Between corners the region is the hockey-stick divergence of T-fold randomized response (the dominating pair of
  Theorem 3.3's proof), which reproduces the corners exactly and is what we evaluate for every eps':
  delta_g(eps') = sum_l C(T,l) max(0, e^{(T-l)eps} - e^{eps'} e^{l eps}) / (1+e^eps)^T.
  All sums are evaluated in log space (log-binomial coefficients + logsumexp), so T = 1e4 .. 1e6 works.
* :func:`laplace_pld_eps`: the Laplace mechanism's composition curve from Google's ``dp_accounting`` privacy-loss-
  distribution (PLD) accountant, with pessimistic and optimistic estimates bracketing the truth.
* :func:`kl_randomized_response`, :func:`kl_laplace`: exact KL divergences (closed forms).
* :func:`gaussian_delta` / :func:`gaussian_eps`: the exact privacy profile of one Gaussian mechanism, Balle & Wang
  (2018), "Improving the Gaussian Mechanism for Differential Privacy", Theorem 8: with mu = sensitivity / noise SD,
  delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu).
* :func:`subsampled_gaussian_rdp_eps`: an RDP upper bound on T subsampled Gaussian steps (any instance), and
  :func:`linear_instance_delta`: the PLD of one natural instance of them (He Theorems 7-8's end results).

Nothing here is random.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from adaptive_repro.foundation.domain import Domain, check_public_functions, unchecked

__all__ = [
    "kov_log_delta_g",
    "kov_delta",
    "kov_eps",
    "delta_floor",
    "kl_randomized_response",
    "kl_laplace",
    "gaussian_delta",
    "gaussian_eps",
    "subsampled_gaussian_rdp_eps",
    "linear_instance_delta",
    "pld_interval",
    "laplace_pld",
    "laplace_pld_eps",
    "laplace_pld_delta",
    "dp_pld",
    "pure_dp_pld_delta",
    "approx_dp_pld_delta",
]


# ---------------------------------------------------------------------------------------------------------------
# Kairouz-Oh-Viswanath exact optimal composition
# ---------------------------------------------------------------------------------------------------------------

def delta_floor(delta, T):
    """1 - (1 - delta)^T, computed as -expm1(T log1p(-delta)) (docs/METHODS.md §6 numerics).

    No valid (eps', delta') guarantee for every T-fold composition of (eps, delta)-DP mechanisms has delta' below
    this floor: KOV 2015 Theorem 3.3 with i = 0 (eps' = T eps) gives exactly this delta', and the optimal delta' is
    non-increasing in eps' and constant beyond T eps."""
    delta = np.asarray(delta, dtype=float)
    T = np.asarray(T, dtype=float)
    return -np.expm1(T * np.log1p(-delta))


def _log_binom(T: int) -> np.ndarray:
    counts = np.arange(T + 1, dtype=float)
    return special.gammaln(T + 1.0) - special.gammaln(counts + 1.0) - special.gammaln(T - counts + 1.0)


@functools.lru_cache(maxsize=8)
def _kov_terms(eps: float, T: int) -> tuple[np.ndarray, np.ndarray]:
    """(privacy loss (T-2l) eps, log(C(T,l) e^{(T-l) eps} / (1+e^eps)^T)) for l = 0..T: the parts of delta_g
    (:func:`kov_log_delta_g`) that do not depend on eps', cached (read-only) because root finding (:func:`kov_eps`)
    evaluates delta_g at many eps' for one (eps, T)."""
    flips = np.arange(T + 1, dtype=float)
    loss = (T - 2.0 * flips) * eps
    # log((1+e^eps)^{-T} e^{(T-l)eps}) = -T log1p(e^eps) + (T-l) eps, with log1p(e^eps) = logaddexp(0, eps)
    log_weight = _log_binom(T) + (T - flips) * eps - T * np.logaddexp(0.0, eps)
    loss.flags.writeable = log_weight.flags.writeable = False
    return loss, log_weight


@functools.lru_cache(maxsize=4096)
def _kov_log_delta_g(eps: float, T: int, eps_prime: float) -> float:
    """:func:`kov_log_delta_g` without the argument checks (for the loops of :func:`kov_delta` and :func:`kov_eps`),
    memoized: the composition tables ask for the same (eps, T, eps') many times (e.g. at every delta)."""
    eps = float(eps)
    T = int(T)
    eps_prime = float(eps_prime)
    if T < 1:
        raise ValueError("T must be >= 1")
    if eps_prime < 0:
        eps_prime = 0.0  # the region is symmetric; delta_g(eps') for eps' < 0 is not used
    loss, log_weight = _kov_terms(eps, T)
    gap = loss - eps_prime  # privacy loss minus eps'
    keep = gap > 0
    if not keep.any():
        return -math.inf
    return float(special.logsumexp(log_weight[keep] + np.log(-np.expm1(-gap[keep]))))


def kov_log_delta_g(eps: float, T: int, eps_prime: float) -> float:
    """log of delta_g(eps'), the pure-DP part of KOV 2015 Theorem 3.3 (hockey-stick divergence of T-fold binary
    randomized response with parameter eps):

        delta_g(eps') = (1+e^eps)^{-T} sum_{l : (T-2l) eps > eps'} C(T,l) e^{(T-l) eps} (1 - e^{eps' - (T-2l) eps}).

    Returns -inf when eps' >= T eps (delta_g = 0). Scalars only; see :func:`kov_delta` for arrays."""
    return _kov_log_delta_g(eps, T, eps_prime)


def _kov_delta_scalar(eps: float, delta: float, T: int, eps_prime: float) -> float:
    """:func:`kov_delta` at one point, without the argument checks."""
    dg = math.exp(_kov_log_delta_g(eps, T, eps_prime))
    # 1 - (1-delta)^T (1 - dg) = floor + (1 - floor) dg
    fl = float(unchecked(delta_floor)(delta, T))
    # a probability: at most 1 (logsumexp over 10^7 terms can round delta_g a few ulps above 1)
    return min(1.0, fl + (1.0 - fl) * dg)


def kov_delta(eps, delta, T, eps_prime):
    """Exact optimal delta'(eps') of the T-fold adaptive composition of (eps, delta)-DP mechanisms,
    Kairouz, Oh, Viswanath 2015, Theorem 3.3: delta' = 1 - (1-delta)^T (1 - delta_g(eps')).

    Vectorized by broadcasting (loops over the broadcast points; each point costs O(T))."""
    eps, delta, T, eps_prime = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (eps, delta, T, eps_prime)))
    out = np.empty(eps.shape, dtype=float)
    for idx in np.ndindex(eps.shape):
        out[idx] = _kov_delta_scalar(float(eps[idx]), float(delta[idx]), int(T[idx]), float(eps_prime[idx]))
    return out if out.ndim else float(out)


def _kov_eps_scalar(eps: float, delta: float, T: int, delta_prime: float) -> float:
    """:func:`kov_eps` at one point, without the argument checks."""
    if not math.isfinite(T * eps):
        raise ValueError(f"T x eps = {T} x {eps!r} is not representable in floating point; use a smaller eps")
    fl = float(unchecked(delta_floor)(delta, T))
    if not (delta_prime >= fl):  # also catches nan
        return math.nan  # infeasible: below the floor
    # target for delta_g: 1 - (1 - delta') / (1 - delta)^T = (delta' - floor) / (1 - floor), written without the
    # cancellation of 1 - (1 - delta') (which cost 1e-4 relative accuracy at delta' = 1e-12)
    one_minus_fl = 1.0 - fl
    target = (delta_prime - fl) / one_minus_fl if one_minus_fl > 0 else 1.0
    if target <= 0:
        return T * eps  # only eps' = T eps reaches delta_g = 0
    if target >= 1:
        return 0.0
    log_target = math.log(target)
    if _kov_log_delta_g(eps, T, 0.0) <= log_target:
        return 0.0
    f = lambda e: _kov_log_delta_g(eps, T, e) - log_target
    hi = T * eps
    # f(hi) = -inf; find a finite bracket end just below T eps
    hi_f = hi * (1 - 1e-12)
    if f(hi_f) > 0:
        return hi
    # Tolerance at a few ulps of eps': near T eps, delta_g falls to 0 linearly in (T eps - eps'), so log delta_g is
    # steep there and a looser xtol (1e-12 relative) left delta(eps') up to 1e-5 relatively above delta'.
    from scipy import optimize  # here: the outputs that never invert delta do not import it

    root = optimize.brentq(f, 0.0, hi_f, xtol=4 * np.finfo(float).eps * max(1.0, hi), rtol=4 * np.finfo(float).eps,
                           maxiter=500)
    # the smallest eps' with delta(eps') <= delta': step up from the root (by ulps, doubling) until the float
    # delta(eps') is at most delta', so the ground truth never reports a delta' its eps' does not achieve
    step = np.spacing(root)
    while _kov_delta_scalar(eps, delta, T, root) > delta_prime and root < hi:
        root, step = min(hi, root + step), 2 * step
    return float(root)


def kov_eps(eps, delta, T, delta_prime):
    """Exact optimal eps'(delta') of the T-fold composition of (eps, delta)-DP mechanisms (KOV 2015, Theorem 3.3),
    the smallest eps' with kov_delta(eps, delta, T, eps') <= delta', found by root finding (brentq) on
    log delta_g. Returns nan where delta' is below the floor 1 - (1-delta)^T (no eps' is valid)."""
    eps, delta, T, delta_prime = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (eps, delta, T, delta_prime)))
    out = np.empty(eps.shape, dtype=float)
    for idx in np.ndindex(eps.shape):
        out[idx] = _kov_eps_scalar(float(eps[idx]), float(delta[idx]), int(T[idx]), float(delta_prime[idx]))
    return out if out.ndim else float(out)


# ---------------------------------------------------------------------------------------------------------------
# Exact KL divergences
# ---------------------------------------------------------------------------------------------------------------

def kl_randomized_response(eps):
    """Exact KL divergence between the outputs of binary randomized response on neighbouring inputs,
    P = (e^eps, 1)/(1+e^eps), Q = (1, e^eps)/(1+e^eps) (Warner 1965; Dwork & Roth 2014, Sec. 3.2), computed from the
    definition KL(P || Q) = sum_x P(x) log(P(x)/Q(x)) (the closed form is eps (e^eps - 1)/(e^eps + 1), He Lemma 5's
    bound, which is therefore attained: randomized response is the worst case for eps-DP)."""
    eps = np.asarray(eps, dtype=float)
    # sum_x P(x) log(P(x)/Q(x)) = P_hi eps + P_lo (-eps) = (P_hi - P_lo) eps, since P_hi / P_lo = e^eps by the
    # mechanism's definition. P_hi - P_lo = (e^eps - 1)/(e^eps + 1), written with expm1 below eps = 1: the difference of
    # two numbers near 1/2 would keep only about 16 + log10(eps) digits and decide an upper-bound check by rounding
    small = np.minimum(eps, 1.0)
    gap = np.where(eps < 1.0, np.expm1(small) / (np.expm1(small) + 2.0), 1.0 - 2.0 * special.expit(-eps))
    return gap * eps


def kl_laplace(eps):
    """Exact KL divergence between Lap(0, b) and Lap(Delta, b) with b = Delta/eps (the Laplace mechanism on
    neighbouring inputs). Closed form
    KL(Lap(m1,b1) || Lap(m2,b2)) = log(b2/b1) + |m1-m2|/b2 + (b1/b2) e^{-|m1-m2|/b1} - 1
    (Gil, Alajaji, Linder 2013, "Renyi divergence measures for commonly used univariate continuous distributions",
    Table of KL divergences), here = eps + e^{-eps} - 1 = eps + expm1(-eps)."""
    eps = np.asarray(eps, dtype=float)
    # below 0.01 the Taylor series sum_{k>=2} (-eps)^k / k! (ten terms: the rest is under 1e-20 of the sum), where
    # eps + expm1(-eps) would cancel its leading term and keep only about 16 + log10(eps) correct digits
    small = np.minimum(eps, 0.01)
    series = sum((-small) ** k / math.factorial(k) for k in range(2, 12))
    return np.where(eps < 0.01, series, eps + np.expm1(-eps))


# ---------------------------------------------------------------------------------------------------------------
# The Gaussian mechanism, exactly
# ---------------------------------------------------------------------------------------------------------------

def gaussian_delta(eps, sensitivity, sigma):
    """The smallest delta for which adding N(0, sigma^2) to a query of this sensitivity is (eps, delta)-DP (Balle &
    Wang 2018, Theorem 8), computed in log space where the two terms nearly cancel."""
    eps, mu = np.asarray(eps, dtype=float), np.asarray(sensitivity, dtype=float) / np.asarray(sigma, dtype=float)
    log_first = special.log_ndtr(mu / 2 - eps / mu)
    log_second = eps + special.log_ndtr(-mu / 2 - eps / mu)
    out = np.exp(log_first) * -np.expm1(np.minimum(log_second - log_first, 0.0))
    return out if out.ndim else float(out)


def gaussian_eps(delta, sensitivity, sigma):
    """The smallest eps for which the Gaussian mechanism N(0, sigma^2) on a query of this sensitivity is
    (eps, delta)-DP: the root of :func:`gaussian_delta` (decreasing in eps), 0 if delta is already met at eps = 0."""
    from scipy import optimize

    def one(d, s, g):
        if unchecked(gaussian_delta)(0.0, s, g) <= d:
            return 0.0
        hi = 1.0
        while unchecked(gaussian_delta)(hi, s, g) > d:
            hi *= 2.0
        return optimize.brentq(lambda e: unchecked(gaussian_delta)(e, s, g) - d, 0.0, hi, xtol=1e-14, rtol=1e-12)
    out = np.vectorize(one, otypes=[float])(delta, sensitivity, sigma)
    return out if out.ndim else float(out)


#: The noise multiplier at which :func:`subsampled_gaussian_rdp_eps` stops growing it (see there).
MAX_NOISE_MULTIPLIER = 1e4


def subsampled_gaussian_rdp_eps(N, batch, sensitivity, sigma, T, delta):
    """An upper bound on the eps at ``delta`` of T steps that each add N(0, sigma^2) noise to a query of
    (replace-one) ``sensitivity`` on ``batch`` of ``N`` records sampled without replacement: the RDP of one step
    (Wang, Balle, Kasiviswanathan 2019, "Subsampled Renyi differential privacy and analytical moments accountant",
    Theorem 9), times T, converted to (eps, delta), all by dp_accounting's public ``RdpAccountant`` (replace-one
    neighbours, a ``SampledWithoutReplacementDpEvent`` of a ``GaussianDpEvent``). A valid (not tight) eps: an
    (eps', delta) pair with eps' at least this is proved; inf where none is (delta = 0, or too little noise)."""
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    def one(n, b, s, g, t, d):
        # eps falls as the noise multiplier z = g/s grows; dp_accounting's conversion fails near z = 1e9 (math domain
        # error), so z is capped at 1e4, where eps is at the conversion's floor: still an upper bound for larger z
        z = min(float(g) / float(s), MAX_NOISE_MULTIPLIER)
        orders, step_rdp = _one_step_rdp(int(n), int(b), z)
        # T steps: T times one step's RDP at every order, as the accountant composes a count (0 + T r, exactly)
        return rdp.compute_epsilon(orders, int(t) * step_rdp, float(d))[0]
    out = np.vectorize(one, otypes=[float])(N, batch, sensitivity, sigma, T, delta)
    return out if out.ndim else float(out)


@functools.lru_cache(maxsize=256)
def _one_step_rdp(n: int, batch: int, noise_multiplier: float) -> tuple[np.ndarray, np.ndarray]:
    """dp_accounting's RDP curve (orders, RDP at each order) of one Gaussian step on ``batch`` of ``n`` records
    sampled without replacement (replace-one neighbours), read through the accountant's public ``orders`` and
    ``rdp``. Computed once per distinct step: it is the whole cost of :func:`subsampled_gaussian_rdp_eps`, whose rows
    differ mostly in T and delta."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    accountant = rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    accountant.compose(dp_accounting.SampledWithoutReplacementDpEvent(
        n, batch, dp_accounting.GaussianDpEvent(noise_multiplier)), 1)
    orders, step_rdp = accountant.orders, accountant.rdp
    orders.flags.writeable = step_rdp.flags.writeable = False  # shared by every caller of the cache
    return orders, step_rdp


def linear_instance_delta(q: float, shift: float, sigma: float, T: int, eps_prime):
    """An upper bound on delta(eps') of one instance of T subsampled Gaussian steps: each step includes the changed
    record with probability q and then moves the noisy output N(0, sigma^2) by +shift in one data set and by -shift
    in the other (a linear loss whose changed example has gradient +L in one and -L in the other: shift = L/tau).
    This pair is dp_accounting's subsampled REPLACE_ONE Gaussian pair (q N(-shift) + (1-q) N(0) against
    q N(+shift) + (1-q) N(0), per step), composed T times with the pessimistic PLD (an upper bound on the instance's
    delta; the value at the interval eps'/(20 T) and the composition's tail truncation of 1e-15 is not below 1e-15).
    The algorithm's delta(eps') is at least the instance's; so a value below a claimed delta' shows only that this
    instance does not violate it."""
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution as pld

    eps_prime = np.asarray(eps_prime, dtype=float)
    _require_positive("linear_instance_delta", "eps_prime", float(eps_prime.min()))
    interval = float(eps_prime.min()) / (20 * int(T))  # pessimistic rounding adds at most T x interval to eps'
    # one step's privacy loss spans about mu^2/2 + 10 mu either way (mu = shift/sigma; the Gaussian's tails); the
    # composition truncates its tails, so one step's grid is what must fit
    mu = float(shift) / float(sigma)
    _require_pld_size("linear_instance_delta", 2 * (mu * mu / 2 + 10 * mu) / interval,
                      "a smaller T or shift/sigma, or a larger eps_prime")
    step = pld.from_gaussian_mechanism(float(sigma), sensitivity=float(shift), sampling_prob=float(q),
                                       value_discretization_interval=interval,
                                       neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    composed = step.self_compose(int(T))
    out = np.reshape([composed.get_delta_for_epsilon(float(e)) for e in eps_prime.ravel()], eps_prime.shape)
    return out if out.ndim else float(out)


# ---------------------------------------------------------------------------------------------------------------
# dp_accounting PLD wrappers
# ---------------------------------------------------------------------------------------------------------------

#: The largest PLD a function here builds, in grid points (the composed support T x 2 eps / interval for the
#: Laplace and worst-case pairs, one step's for the subsampled Gaussian): about 0.8 GB of float64 per array
#: dp-accounting holds; larger requests are refused, not attempted.
MAX_PLD_POINTS = 10**8


def _require_pld_size(function: str, points: float, change: str) -> None:
    """Refuse a composition of ``points`` grid points above :data:`MAX_PLD_POINTS` (or not a finite count), naming
    ``function`` and what to change."""
    if not points <= MAX_PLD_POINTS:
        raise ValueError(f"{function}: the privacy-loss distribution would have {points:.3g} grid points, "
                         f"more than the limit {MAX_PLD_POINTS:.0e}; use {change}")


def _require_positive(function: str, name: str, value: float) -> None:
    """A PLD's discretization needs a positive grid step: refuse ``name`` = 0 by name."""
    if not value > 0:
        raise ValueError(f"{function}: argument {name} = {value!r} is not allowed; allowed: a number > 0 (the "
                         "privacy-loss grid step is proportional to it)")


def _delta_for_epsilon(pld, eps_prime) -> np.ndarray:
    """delta(eps') of a PLD at one eps' or an array of them (dp-accounting's public ``get_delta_for_epsilon`` takes a
    1-d sequence), in the shape of ``eps_prime``, clipped to [0, 1] (its sums can round a little above 1)."""
    eps_prime = np.asarray(eps_prime, dtype=float)
    deltas = np.asarray(pld.get_delta_for_epsilon(eps_prime.ravel()), dtype=float)
    return np.reshape(np.clip(deltas, 0.0, 1.0), eps_prime.shape)


def pld_interval(eps: float, target: float = 1e-3, min_steps: int = 100) -> float:
    """A PLD value-discretization interval that divides eps (eps / k for an integer k), at most ``target`` and at
    most eps / min_steps (docs/METHODS.md §6: the interval should divide eps exactly, so +-eps are grid points)."""
    k = max(int(min_steps), int(math.ceil(eps / target)))
    return eps / k


def laplace_pld(eps: float, T: int, interval: float | None = None, pessimistic: bool = True):
    """PLD of the T-fold composition of the Laplace mechanism with sensitivity 1 and scale 1/eps (eps-DP),
    from ``dp_accounting.pld.privacy_loss_distribution.from_laplace_mechanism`` (connect-the-dots)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    if not eps >= np.finfo(float).tiny:  # 0 or subnormal: dp-accounting's Laplace PLD cannot place its mass
        raise ValueError(f"laplace_pld: argument eps = {eps!r} is not allowed; allowed: at least "
                         f"{np.finfo(float).tiny:.3g} (a normal float)")
    interval = unchecked(pld_interval)(eps) if interval is None else interval
    if interval > eps:
        raise ValueError(f"laplace_pld: argument interval = {interval!r} is not allowed; allowed: at most eps = "
                         f"{eps!r} (the privacy loss of one step lies in [-eps, eps])")
    _require_pld_size("laplace_pld", int(T) * 2 * eps / interval, "a smaller T or eps, or a larger interval")
    # connect-the-dots only exists for the pessimistic estimate; the optimistic one uses privacy buckets
    base = pld.from_laplace_mechanism(1.0 / eps, sensitivity=1.0, pessimistic_estimate=pessimistic,
                                      value_discretization_interval=interval, use_connect_dots=pessimistic)
    return base.self_compose(int(T))


def laplace_pld_eps(eps: float, T: int, delta_prime: float | ArrayLike, interval: float | None = None):
    """(pessimistic, optimistic) eps'(delta') of T-fold Laplace(1/eps) composition by the PLD accountant: floats for
    one delta', arrays for an array of them (each PLD is composed once for all of them: composing is the slow part).
    The pessimistic value is an upper bound on the true eps', the optimistic a lower bound (dp_accounting docs).
    eps'(delta') is read off each PLD by dp-accounting's public ``get_epsilon_for_delta`` (inf where the accountant
    finds no finite eps', e.g. a delta' below its tail truncation)."""
    deltas = np.asarray(delta_prime, dtype=float)
    out = []
    for pessimistic in (True, False):
        pld = unchecked(laplace_pld)(eps, T, interval, pessimistic=pessimistic)
        out.append(np.reshape([pld.get_epsilon_for_delta(float(d)) for d in deltas.ravel()], deltas.shape))
    hi, lo = out
    return (float(hi), float(lo)) if deltas.ndim == 0 else (hi, lo)


def laplace_pld_delta(eps: float, T: int, eps_prime, interval: float | None = None, pessimistic: bool = True):
    """delta'(eps') of T-fold Laplace(1/eps) composition by the PLD accountant."""
    p = unchecked(laplace_pld)(eps, T, interval, pessimistic=pessimistic)
    return _delta_for_epsilon(p, eps_prime)


def dp_pld(eps: float, delta: float = 0.0, steps_per_eps: int = 10):
    """The privacy-loss distribution of the worst-case (eps, delta)-DP pair (Kairouz-Oh-Viswanath 2015, Thm 2.1:
    every (eps, delta)-DP mechanism is a post-processing of it): loss +eps with probability (1-delta) e^eps/(1+e^eps),
    -eps with probability (1-delta)/(1+e^eps), +infinity with probability delta. Built as a dp_accounting
    ``PrivacyLossDistribution`` on the grid eps/steps_per_eps, so +-eps are exactly grid points +-steps_per_eps.

    (dp_accounting's ``from_randomized_response`` / ``from_privacy_parameters`` compute the loss log(p/q) in floating
    point and round it up pessimistically; log(p/q)/interval = 10.000000000000002 then lands one grid step above
    eps, a 10% error per step that compounds under composition. Placing the masses on the grid avoids that.)"""
    from dp_accounting.pld import privacy_loss_distribution as pld

    _require_positive("dp_pld", "eps", eps)
    k = int(steps_per_eps)
    p = float(special.expit(eps))
    pmf = {k: (1.0 - delta) * p, -k: (1.0 - delta) * (1.0 - p)}
    return pld.PrivacyLossDistribution.create_from_rounded_probability(pmf, float(delta), eps / k)


def pure_dp_pld_delta(eps: float, T: int, eps_prime, steps_per_eps: int = 10):
    """delta'(eps') of T-fold binary randomized response (the dominating pair of eps-DP) by dp_accounting's PLD
    composition (:func:`dp_pld` with delta = 0). Independent cross-check of :func:`kov_delta` with delta = 0."""
    _require_pld_size("pure_dp_pld_delta", int(T) * 2 * int(steps_per_eps), "a smaller T or steps_per_eps")
    p = unchecked(dp_pld)(eps, 0.0, steps_per_eps).self_compose(int(T))
    return _delta_for_epsilon(p, eps_prime)


def approx_dp_pld_delta(eps: float, delta: float, T: int, eps_prime, steps_per_eps: int = 10):
    """delta'(eps') of the T-fold composition of the worst-case (eps, delta)-DP pair by dp_accounting's PLD
    composition (:func:`dp_pld`). Cross-check of :func:`kov_delta` with delta > 0."""
    _require_pld_size("approx_dp_pld_delta", int(T) * 2 * int(steps_per_eps), "a smaller T or steps_per_eps")
    if delta == 1.0:  # every step may fail outright: delta' = 1 at every eps' (the PLD has no finite mass)
        return np.ones(np.shape(eps_prime))
    p = unchecked(dp_pld)(eps, delta, steps_per_eps).self_compose(int(T))
    return _delta_for_epsilon(p, eps_prime)


# argument domains (adaptive_repro.foundation.domain); T: a number of mechanisms, at most 10^7 (each KOV point costs
# O(T) time and memory; dp_accounting's self-composition grows with T)
check_public_functions(globals(), __name__, T=Domain(1.0, 1e7, integer=True))
