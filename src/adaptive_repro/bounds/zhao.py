"""Bounds of Zhao 2017, "Adaptive Statistical Learning with Bayesian Differential Privacy" (ACM WPES 2017)."""

from __future__ import annotations

import math

import numpy as np

from adaptive_repro.foundation.domain import NONNEGATIVE, check_public_functions
from adaptive_repro.privacy import convert_chain


def lemma1_tail_bound(tau, n):
    """Zhao 2017, Lemma 1 specialised to statistical queries (Delta_Q = 1/n, eps <= tau/3), text below Lemma 1:
    P[|Y(X) - Y(P)| >= tau] <= 4 exp(-tau^2 n / 9)."""
    tau = np.asarray(tau, dtype=float)
    n = np.asarray(n, dtype=float)
    return 4.0 * np.exp(-(tau**2) * n / 9.0)


LOG2E = float(np.log2(np.e))


def lemma1_sample_size(tau, beta):
    """Zhao 2017, eq. (13): 4 exp(-tau^2 n / 9) <= beta  <=>  n >= 9 ln(4/beta) / tau^2 (first term of (7) and (8))."""
    tau = np.asarray(tau, dtype=float)
    return 9.0 * np.log(4.0 / np.asarray(beta, dtype=float)) / tau**2


def theorem1_n_star(B, sigma, tau, beta, a_max):
    """Zhao 2017, Theorem 1, eq. (7): n_* = max{ 9 ln(4/beta)/tau^2, max_i 9B / (4 sigma (tau/3 - 4 a_i)) }.

    ``a_max`` = max_i a_i, the largest Markov-blanket max-influence (Lemma 3). Where tau/3 - 4 a_max <= 0 no n
    satisfies the condition of Lemma 3's route: returns +inf (the formula's negative value would be meaningless).
    """
    B, sigma, tau, a_max = (np.asarray(x, dtype=float) for x in (B, sigma, tau, a_max))
    gap = tau / 3.0 - 4.0 * a_max
    with np.errstate(divide="ignore", invalid="ignore"):
        second = np.where(gap > 0, 9.0 * B / (4.0 * sigma * gap), np.inf)
    return np.maximum(lemma1_sample_size(tau, beta), second)


def theorem1_n_sharp(B, sigma, tau, beta, eps_prime):
    """Zhao 2017, Theorem 1, eq. (8):
    n_# = max{ 9 ln(4/beta)/tau^2, max_i min_Q 9B(|N_i|+1) / (4 sigma (tau/3 - 4 b_i)) }.

    The second term equals 9B / (4 sigma eps') with eps' = Lemma 2's min_i max_Q (tau/3 - 4 b_i)/(|N_i|+1)
    (Zhao's own identity in the proof of Theorem 2, below eq. (32)), the min over Q running over the quilts with
    tau/3 > 4 b_i (others give negative, meaningless terms). ``eps_prime`` = Lemma 2's eps' at eps = tau/3
    (None/nan/<= 0 -> +inf).
    """
    B, sigma, tau = (np.asarray(x, dtype=float) for x in (B, sigma, tau))
    ep = np.asarray(np.nan if eps_prime is None else eps_prime, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        second = np.where(ep > 0, 9.0 * B / (4.0 * sigma * ep), np.inf)
    return np.maximum(lemma1_sample_size(tau, beta), second)


def theorem2_sigma(tau, m, beta, c):
    """Zhao 2017, Theorem 2: sigma = (1 - c) tau / (12 ln(4m/beta)), c in (0, 1)."""
    return ((1.0 - np.asarray(c, dtype=float)) * np.asarray(tau, dtype=float)
            / (12.0 * np.log(4.0 * np.asarray(m) / beta)))


def theorem2_threshold(tau, c):
    """Zhao 2017, Theorem 2: T = (1 + c) tau / 2."""
    return (1.0 + np.asarray(c, dtype=float)) * np.asarray(tau, dtype=float) / 2.0


def theorem2_tau_prime(tau, c):
    """Zhao 2017, Theorem 2: the accuracy n_# is evaluated at, (1 - c) tau / 4; its BDP target is tau'/3."""
    return (1.0 - np.asarray(c, dtype=float)) * np.asarray(tau, dtype=float) / 4.0


def theorem2_bdp_target(tau, c):
    """eps = tau'/3 = (1 - c) tau / 12: the BDP level n_#(B, sigma, (1-c)tau/4, beta/(2m)) needs
    (Lemma 1's eps <= tau/3)."""
    return theorem2_tau_prime(tau, c) / 3.0


def theorem2_n_required(B, tau, m, beta, c, eps_prime):
    """Zhao 2017, Theorem 2: n >= n_#(B, (1-c)tau/(12 ln(4m/beta)), (1-c)tau/4, beta/(2m)) (eq. (8) with these values).

    ``eps_prime`` = Lemma 2's eps' at eps = theorem2_bdp_target(tau, c). For independent records eps' = eps.
    +inf where eps' is None or 0 (Lemma 2 infeasible), as :func:`theorem1_n_sharp`.
    """
    sigma = theorem2_sigma(tau, m, beta, c)
    return theorem1_n_sharp(B, sigma, theorem2_tau_prime(tau, c), np.asarray(beta, dtype=float) / (2.0 * np.asarray(m)),
                            eps_prime)


def dwork_iid_sample_complexity(B, tau, m, beta):
    """Dwork et al. 2015 Theorem 25 as Zhao quotes it (text after Theorem 2): O(B ln(m/beta) / tau^2), constant 1."""
    return np.asarray(B, dtype=float) * np.log(np.asarray(m, dtype=float) / beta) / np.asarray(tau, dtype=float) ** 2


def zhao_markov_sample_complexity(B, tau, m, beta):
    """Zhao 2017 Theorem 2 (Markov chain case, as in the text after Theorem 2 and the end of section 5.3):
    O(B ln(1/tau) ln(m/beta) / tau^2), constant 1 (the paper's LaTeX source has ln(m/beta) in Theorem 2 too;
    one text rendering prints ln(m/B))."""
    tau = np.asarray(tau, dtype=float)
    return np.asarray(B, dtype=float) * np.log(1.0 / tau) * np.log(np.asarray(m, dtype=float) / beta) / tau**2


def theorem3_maxinfo_bound(eps, n, beta):
    """Zhao 2017, Theorem 3: I_inf^beta(X; Y(X)) <= (2 eps^2 n + eps sqrt(2 n ln(2/beta))) log2(e) for eps-BDP Y."""
    eps, n = np.asarray(eps, dtype=float), np.asarray(n, dtype=float)
    return (2.0 * eps**2 * n + eps * np.sqrt(2.0 * n * np.log(2.0 / np.asarray(beta, dtype=float)))) * LOG2E


def dwork_maxinfo_bound(eps, n):
    """Dwork et al. 2015, Theorem 19 (as Zhao quotes it after Theorem 3): I_inf(X; Y(X)) <= eps n log2(e)."""
    return np.asarray(eps, dtype=float) * np.asarray(n, dtype=float) * LOG2E


def theorem3_tighter_region(eps, n, beta):
    """Theorem 3's bound < eps n log e  <=>  2 eps + sqrt(2 ln(2/beta) / n) < 1 (divide both sides by eps n log e)."""
    eps, n = np.asarray(eps, dtype=float), np.asarray(n, dtype=float)
    return 2.0 * eps + np.sqrt(2.0 * np.log(2.0 / np.asarray(beta, dtype=float)) / n) < 1.0


# Theorem 2 at a given holdout size (needs eps' from the privacy layer: Lemma 2 on the data model's chain)

def theorem2_required_n(tau: float, n: int, P, B: float, m: int, beta: float, c: float,
                        method: str = "lemma2") -> float:
    """Zhao Theorem 2's requirement n_#(B, sigma, (1-c)tau/4, beta/(2m)) with eps' of ``method`` on a chain of
    length n with transition matrix P (None = independent records, eps' = eps); +inf if the lemma is infeasible."""
    eps = float(theorem2_bdp_target(tau, c))
    if P is None:
        ep = eps
    else:
        r = convert_chain(eps, n, P, method)
        ep = r.eps_dp if r.feasible else None
    return float(theorem2_n_required(B, tau, m, beta, c, ep))


def theorem2_smallest_tau(n: int, P, B: float, m: int, beta: float, c: float, method: str = "lemma2",
                          tau_max: float = 1.0) -> float | None:
    """The smallest tau in (0, tau_max] whose Theorem 2 requirement n_# is met by the holdout size n, else None.

    n_# decreases in tau (every term of (8) does), so the set of guaranteed tau is an interval [tau_min, tau_max];
    found by bisection on a log scale (relative precision 1e-6)."""
    if theorem2_required_n(tau_max, n, P, B, m, beta, c, method) > n:
        return None
    lo, hi = tau_max * 1e-9, tau_max
    if theorem2_required_n(lo, n, P, B, m, beta, c, method) <= n:
        return lo
    while hi / lo > 1 + 1e-6:
        mid = math.sqrt(lo * hi)
        if theorem2_required_n(mid, n, P, B, m, beta, c, method) <= n:
            hi = mid
        else:
            lo = mid
    return hi


# Algorithm 1's privacy level (Zhao 2017 §3, the paragraph after Algorithm 1)

def alg1_eps_star(budget, sigma, n):
    """Zhao 2017 §3: Algorithm 1 is eps*-DP with eps* = B Delta_Q (1/sigma + 1/sigma_2 + 2/sigma_3) = 9 B Delta_Q /
    (4 sigma) (sigma_2 = 4 sigma, sigma_3 = 2 sigma); Delta_Q = 1/n for statistical queries on n records."""
    return 9.0 * np.asarray(budget, dtype=float) / (4.0 * np.asarray(sigma, dtype=float) * np.asarray(n, dtype=float))


def alg1_sigma_for_dp(budget, n, eps):
    """:func:`alg1_eps_star` solved for sigma: the noise scale that makes Algorithm 1 eps-DP."""
    return 9.0 * np.asarray(budget, dtype=float) / (4.0 * np.asarray(n, dtype=float) * np.asarray(eps, dtype=float))


# The exact left-hand side of Lemma 1 / Theorem 1's eq. (9) for one query on a two-state chain

#: The largest chain length of the exact O(n^2) recursion of :func:`chain_count_pmf` (0.8 s at 20000).
CHAIN_COUNT_MAX_N = 20_000


def chain_count_pmf(n: int, p_stay: float) -> np.ndarray:
    """Exact law of K = number of +1 labels among y_1..y_n of a stationary symmetric two-state Markov chain with stay
    probability p_stay (y_1 a fair sign; p_stay = 1/2 is i.i.d., K ~ Binomial(n, 1/2)). Forward recursion over
    (count so far, current label): O(n^2), so n is at most :data:`CHAIN_COUNT_MAX_N` (about a second).
    Returns pmf[k], k = 0..n."""
    if n > CHAIN_COUNT_MAX_N:
        raise ValueError(f"chain_count_pmf: argument n = {n!r} is not allowed; allowed: at most {CHAIN_COUNT_MAX_N} "
                         f"(the exact recursion costs O(n^2): n = 10^5 takes over 15 s)")
    n = int(n)
    p = float(p_stay)
    plus = np.zeros(n + 1)
    minus = np.zeros(n + 1)
    plus[1], minus[0] = 0.5, 0.5
    for _ in range(n - 1):
        new_plus = np.zeros(n + 1)
        new_plus[1:] = p * plus[:-1] + (1.0 - p) * minus[:-1]  # the next label is +1: the count grows by one
        minus = p * minus + (1.0 - p) * plus
        plus = new_plus
    return plus + minus


def chain_fraction_tail(n: int, p_stay: float, tau: float) -> float:
    """P[|K/n - 1/2| >= tau] exactly (K of :func:`chain_count_pmf`; 1/2 = E[K/n] by stationarity), i.e. the left-hand
    side of Zhao 2017 Lemma 1 and of Theorem 1's eq. (9) for the data-independent statistical query
    "fraction of +1 labels". A tolerance of 1e-12 guards the boundary |k/n - 1/2| = tau against rounding.
    n is at most :data:`CHAIN_COUNT_MAX_N`."""
    pmf = chain_count_pmf(n, p_stay)
    k = np.arange(int(n) + 1)
    return float(min(1.0, pmf[np.abs(k / n - 0.5) >= tau - 1e-12].sum()))


def theorem2_o_expression(B, tau, m, beta, eps_prime):
    """Zhao 2017, Theorem 2, the O(.) form its statement gives for n_#:
    B ln(m/beta) max_i min_Q (|N_i|+1) / (tau (tau/3 - 4 b_i)) = B ln(m/beta) / (tau eps'(tau/3)),
    with eps'(tau/3) = Lemma 2's min_i max_Q (tau/3 - 4 b_i)/(|N_i|+1) (the identity below eq. (32)); constant 1.
    Note its denominator tau/3 - 4 b_i, where n_# itself (eq. (8) at tau' = (1-c)tau/4) has (1-c)tau/12 - 4 b_i.
    +inf where eps' is None or 0 (Lemma 2 infeasible)."""
    ep = np.asarray(np.nan if eps_prime is None else eps_prime, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ep > 0,
                        np.asarray(B, float) * np.log(np.asarray(m, float) / beta) / (np.asarray(tau, float) * ep),
                        np.inf)


# argument domains (adaptive_repro.foundation.domain); eps_prime may be None (Lemma 2 infeasible: n_# is +inf)
check_public_functions(globals(), __name__, eps_prime=NONNEGATIVE._replace(optional=True))
