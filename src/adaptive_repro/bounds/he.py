"""Bounds of He, Wang, Tao, "Tighter Generalization Bounds for Iterative Differentially Private Learning
Algorithms" (cited as "He"), and the bounds He compares against, as He quotes them.

One function per bound; each docstring cites the paper and theorem/lemma/equation. All functions are vectorized
over numpy arrays (broadcasting) and numerically safe for eps in [1e-4, 50] and T <= 1e6:

* eps (e^eps - 1)/(e^eps + 1) is written eps * tanh(eps/2);
* 1 - (1 - x)^n is written -expm1(n log1p(-x));
* ceil(eps'/eps) is clamped into [0, T] (floating point can exceed T);
* products like (...)^T are evaluated as exp(T * log(...));
* bounds containing ln(2/eps) are meaningless for eps >= 2 (the failure probability b <= 0); they return nan
  there and :func:`ln2_over_eps_vacuous` is the flag.

Formulas are implemented AS WRITTEN in He; where He's text is ambiguous or inconsistent, the docstring says so and
the discrepancy is reported in the claims of the he-* outputs (workflow/report/he-*.rst).
"""

from __future__ import annotations

import numpy as np
from scipy import special

# ---------------------------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------------------------


def _f(x):
    return np.asarray(x, dtype=float)


def _ret(x):
    x = np.asarray(x, dtype=float)
    return x if x.ndim else float(x)


def eps_tanh(eps):
    """eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2) (SPEC section 6 numerics)."""
    eps = _f(eps)
    return _ret(eps * np.tanh(eps / 2.0))


def one_minus_pow(x, n):
    """1 - (1 - x)^n = -expm1(n log1p(-x)), exact for tiny x and huge n."""
    x, n = _f(x), _f(n)
    return _ret(-np.expm1(n * np.log1p(-x)))


def ceil_ratio(eps_prime, eps, T):
    """ceil(eps'/eps) clamped into [0, T] (He Corollary 2/3 use it as a count of iterations)."""
    eps_prime, eps, T = _f(eps_prime), _f(eps), _f(T)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.ceil(eps_prime / eps)
    return _ret(np.clip(m, 0.0, T))


def ln2_over_eps_vacuous(eps):
    """True where ln(2/eps) <= 0 (eps >= 2): the failure probabilities b of He Theorem 1 / Nissim-Stemmer are then
    <= 0, so "P[...] > 1 - b" cannot hold; the bound functions return nan there."""
    return np.asarray(_f(eps) >= 2.0)


# ---------------------------------------------------------------------------------------------------------------
# KL divergence of an eps-DP algorithm on neighbouring data (He Section 4.2.1, Stage 1)
# ---------------------------------------------------------------------------------------------------------------


def kl_lemma5(eps):
    """He Lemma 5: D_KL(A(S) || A(S')) <= eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2) for eps-DP A."""
    return eps_tanh(eps)


def kl_dwork_et_al(eps):
    """Dwork et al. [20] as quoted by He (Section 4.2.1, after Lemma 5): D_KL <= eps (e^eps - 1)."""
    eps = _f(eps)
    return _ret(eps * np.expm1(eps))


def kl_dwork_rothblum(eps):
    """Dwork & Rothblum [19] as quoted by He, eq. (9): D_KL <= (1/2) eps (e^eps - 1)."""
    eps = _f(eps)
    return _ret(0.5 * eps * np.expm1(eps))


# ---------------------------------------------------------------------------------------------------------------
# Composition of T (eps, delta)-DP steps
# ---------------------------------------------------------------------------------------------------------------


def naive_eps(eps, T):
    """Basic composition eps' = T eps (Dwork & Roth 2014, Theorem 3.16; He Theorem 4 eq. (6), eps'_1 = sum eps_i)."""
    return _ret(_f(T) * _f(eps))


def naive_delta(delta, T):
    """Basic composition delta' = T delta (Dwork & Roth 2014, Theorem 3.16)."""
    return _ret(_f(T) * _f(delta))


def drv_eps(eps, T, delta_tilde):
    """Advanced composition of Dwork, Rothblum, Vadhan 2010 (Dwork & Roth 2014, Theorem 3.20 / Corollary 3.21) as
    quoted in He Section 4.2.2: eps' = sum eps_i (e^{eps_i} - 1) + sqrt(2 log(1/delta~) sum eps_i^2), homogeneous.

    Discrepancy: He writes log(1/delta) (the per-step delta) inside the square root; Dwork & Roth Theorem 3.20 has
    the slack delta~ (He's own delta' = delta~ + sum delta_i confirms delta~ is meant). This function uses delta~;
    :func:`drv_eps_as_written` is the literal text."""
    eps, T, dt = _f(eps), _f(T), _f(delta_tilde)
    return _ret(T * eps * np.expm1(eps) + eps * np.sqrt(2.0 * T * np.log(1.0 / dt)))


def drv_eps_as_written(eps, T, delta):
    """He Section 4.2.2, the classic composition theorem literally: log(1/delta) with the per-step delta
    (infinite for pure DP, delta = 0). See :func:`drv_eps`."""
    eps, T, delta = _f(eps), _f(T), _f(delta)
    with np.errstate(divide="ignore"):
        return _ret(T * eps * np.expm1(eps) + eps * np.sqrt(2.0 * T * np.log(1.0 / delta)))


def drv_delta(delta, T, delta_tilde):
    """He Section 4.2.2 (Dwork & Roth 2014, Theorem 3.20): delta' = delta~ + sum delta_i = delta~ + T delta."""
    return _ret(_f(delta_tilde) + _f(T) * _f(delta))


def kairouz_eps_terms(eps, T, delta_tilde):
    """The three terms of Kairouz et al. [31] (KOV 2015, Theorem 3.5) as quoted in He Section 4.2.2:
    eps'_1 = T eps, eps'_2 = T eps tanh(eps/2) + eps sqrt(2T log(e + sqrt(T eps^2)/delta~)),
    eps'_3 = T eps tanh(eps/2) + eps sqrt(2T log(1/delta~)). Returns (eps1, eps2, eps3)."""
    eps, T, dt = _f(eps), _f(T), _f(delta_tilde)
    head = T * eps * np.tanh(eps / 2.0)
    e1 = T * eps
    e2 = head + eps * np.sqrt(2.0 * T * np.log(np.e + np.sqrt(T) * eps / dt))
    with np.errstate(invalid="ignore"):
        e3 = head + eps * np.sqrt(2.0 * T * np.log(1.0 / dt))
    return _ret(e1), _ret(e2), _ret(e3)


def kairouz_eps(eps, T, delta_tilde):
    """Kairouz et al. [31] as quoted in He Section 4.2.2: eps' = min{eps'_1, eps'_2, eps'_3}."""
    e1, e2, e3 = (_f(x) for x in kairouz_eps_terms(eps, T, delta_tilde))
    return _ret(np.fmin(np.fmin(e1, e2), e3))


def kairouz_delta(delta, T, delta_tilde):
    """Kairouz et al. [31] as quoted in He Section 4.2.2: delta' = 1 - (1-delta)^T (1 - delta~)."""
    delta, T, dt = _f(delta), _f(T), _f(delta_tilde)
    return _ret(-np.expm1(T * np.log1p(-delta) + np.log1p(-dt)))


def he_theorem4_eps(eps, T, delta_tilde):
    """He Theorem 4 (Composition Theorem I), eqs. (5)-(7), homogeneous steps eps_i = eps, written from He's sums
    (independently of :func:`kairouz_eps`, so that He's "The estimate of eps' is the same as ours" is a real check):
    eps'_1 = sum eps_i = T eps,
    eps'_2 = sum (e^eps_i - 1) eps_i/(e^eps_i + 1) + sqrt(2 sum eps_i^2 log(e + sqrt(sum eps_i^2)/delta~)),
    eps'_3 = sum (e^eps_i - 1) eps_i/(e^eps_i + 1) + sqrt(2 log(1/delta~) sum eps_i^2), eps' = min of the three."""
    eps, T, dt = _f(eps), _f(T), _f(delta_tilde)
    sum_sq = T * eps**2
    head = T * np.expm1(eps) * eps / (np.exp(np.minimum(eps, 700.0)) + 1.0)
    e2 = head + np.sqrt(2.0 * sum_sq * np.log(np.e + np.sqrt(sum_sq) / dt))
    e3 = head + np.sqrt(2.0 * np.log(1.0 / dt) * sum_sq)
    return _ret(np.minimum(np.minimum(T * eps, e2), e3))


def he_theorem4_eps_hetero(eps_steps, delta_tilde):
    """He Theorem 4, eqs. (5)-(7), for heterogeneous steps (last axis of ``eps_steps`` indexes the T steps)."""
    e = _f(eps_steps)
    dt = _f(delta_tilde)
    s1 = e.sum(axis=-1)
    head = (e * np.tanh(e / 2.0)).sum(axis=-1)
    s2 = (e**2).sum(axis=-1)
    e2 = head + np.sqrt(2.0 * s2 * np.log(np.e + np.sqrt(s2) / dt))
    e3 = head + np.sqrt(2.0 * np.log(1.0 / dt) * s2)
    return _ret(np.fmin(np.fmin(s1, e2), e3))


def he_theorem5_eps(eps, T, delta_prime):
    """He Theorem 5 (Composition Theorem IV), eps-DP steps: eps' = sqrt(2 log(1/delta') T eps^2) + T eps tanh(eps/2)
    (the same expression as Corollary 3's eps' with delta~ -> delta')."""
    eps, T, dp = _f(eps), _f(T), _f(delta_prime)
    return _ret(np.sqrt(2.0 * np.log(1.0 / dp) * T * eps**2) + T * eps * np.tanh(eps / 2.0))


def _he_delta_core(a_big, a_small, m, T):
    """1 - (1 - A)^m (1 - B)^{T-m} + 1 - (1 - B)^T with A = a_big, B = a_small (He eq. (8) at its maximizer)."""
    t1 = -np.expm1(m * np.log1p(-a_big) + (T - m) * np.log1p(-a_small))
    t2 = -np.expm1(T * np.log1p(-a_small))
    return t1 + t2


def he_corollary2_delta(eps, delta, T, eps_prime, delta_tilde):
    """He Corollary 2 (Composition Theorem II), all steps (eps, delta)-DP, m = ceil(eps'/eps) clamped to [0, T]:
    delta' = 1 - (1 - e^eps delta/(1+e^eps))^m (1 - delta/(1+e^eps))^{T-m} + 1 - (1 - delta/(1+e^eps))^T + delta~.
    Here e^eps/(1+e^eps) = expit(eps) and 1/(1+e^eps) = expit(-eps)."""
    eps, delta, T, ep, dt = (_f(x) for x in (eps, delta, T, eps_prime, delta_tilde))
    m = _f(ceil_ratio(ep, eps, T))
    return _ret(_he_delta_core(delta * special.expit(eps), delta * special.expit(-eps), m, T) + dt)


def he_corollary2_delta_approx(eps, delta, T, eps_prime, delta_tilde):
    """He Corollary 2, first-order form: delta' ~ (T - m) 2 delta/(1+e^eps) + m delta + delta~, m = ceil(eps'/eps)."""
    eps, delta, T, ep, dt = (_f(x) for x in (eps, delta, T, eps_prime, delta_tilde))
    m = _f(ceil_ratio(ep, eps, T))
    return _ret((T - m) * 2.0 * delta * special.expit(-eps) + m * delta + dt)


def he_kairouz_delta_gap(eps, delta, T, eps_prime):
    """He Section 1 and 4.2.2: Kairouz's delta' exceeds He's by approximately delta (e^eps-1)/(e^eps+1) (T - m),
    m = ceil(eps'/eps)."""
    eps, delta, T, ep = (_f(x) for x in (eps, delta, T, eps_prime))
    m = _f(ceil_ratio(ep, eps, T))
    return _ret(delta * np.tanh(eps / 2.0) * (T - m))


def he_corollary3_eps(eps, T, delta_tilde):
    """He Corollary 3 (Composition Theorem III), eps-DP steps: eps' = T eps tanh(eps/2) + sqrt(2 log(1/delta~) T eps^2)
    (= eps'_3 of Theorem 4)."""
    eps, T, dt = _f(eps), _f(T), _f(delta_tilde)
    return _ret(T * eps * np.tanh(eps / 2.0) + np.sqrt(2.0 * np.log(1.0 / dt) * T * eps**2))


def he_corollary3_log_delta_pp(eps, T, eps_prime):
    """log of He Corollary 3's delta'':
    delta'' = e^{-(eps'+T eps)/2} ( (1/(1+e^eps)) (2 T eps/(T eps - eps')) )^T ((T eps + eps')/(T eps - eps'))^{-(eps'+T eps)/(2 eps)}.
    With x = eps'/(T eps), log delta'' = -T eps (1+x)/2 + T (log 2 - log(1+e^eps) - log1p(-x))
    - T (1+x)/2 (log1p(x) - log1p(-x)). Defined for 0 <= eps' < T eps; nan otherwise (the formula takes the log /
    a power of a non-positive number)."""
    eps, T, ep = _f(eps), _f(T), _f(eps_prime)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = ep / (T * eps)
        ok = (x >= 0) & (x < 1)
        xs = np.where(ok, x, 0.5)
        val = (-T * eps * (1 + xs) / 2.0 + T * (np.log(2.0) - np.logaddexp(0.0, eps) - np.log1p(-xs))
               - T * (1 + xs) / 2.0 * (np.log1p(xs) - np.log1p(-xs)))
    return _ret(np.where(ok, val, np.nan))


def he_corollary3_delta_pp(eps, T, eps_prime):
    """He Corollary 3's delta'' (see :func:`he_corollary3_log_delta_pp`); nan where eps' >= T eps."""
    return _ret(np.exp(_f(he_corollary3_log_delta_pp(eps, T, eps_prime))))


def he_corollary3_log_delta_pp_derived(eps, T, eps_prime):
    """log of the right-hand side of He App. B.4 eq. (36),
    e^{-eps' t - T t eps} ((e^{2 t eps + eps} + 1)/(1 + e^eps))^T, at the minimizer of eq. (37),
    e^{2 eps t} = e^{-eps} (T eps + eps')/(T eps - eps'). Substituting gives
    delta''_derived = e^{+(eps' + T eps)/2} ((1/(1+e^eps)) (2 T eps/(T eps - eps')))^T
                      ((T eps + eps')/(T eps - eps'))^{-(eps' + T eps)/(2 eps)},
    i.e. Corollary 3's printed delta'' (:func:`he_corollary3_log_delta_pp`) with the sign of the first exponent
    flipped: log delta''_derived = log delta''_printed + (eps' + T eps). This function evaluates (36) at t from (37)
    directly (not via that identity). Defined for 0 <= eps' < T eps (nan otherwise). Eq. (36) is a Chernoff bound
    valid for every t > 0; t from (37) is positive iff eps' > T eps tanh(eps/2)."""
    eps, T, ep = _f(eps), _f(T), _f(eps_prime)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (ep >= 0) & (ep < T * eps)
        eps_s, ep_s = np.where(ok, eps, 1.0), np.where(ok, ep, 0.0)
        T_s = np.where(ok, T, 2.0)
        two_eps_t = -eps_s + np.log(T_s * eps_s + ep_s) - np.log(T_s * eps_s - ep_s)  # (37): 2 eps t
        t = two_eps_t / (2.0 * eps_s)
        val = (-ep_s * t - T_s * t * eps_s
               + T_s * (np.logaddexp(two_eps_t + eps_s, 0.0) - np.logaddexp(0.0, eps_s)))
    return _ret(np.where(ok, val, np.nan))


def he_corollary3_delta_pp_derived(eps, T, eps_prime):
    """Corollary 3's delta'' as its own derivation gives it (eq. (36) at (37)); see
    :func:`he_corollary3_log_delta_pp_derived`."""
    return _ret(np.exp(_f(he_corollary3_log_delta_pp_derived(eps, T, eps_prime))))


def he_corollary3_delta(eps, delta, T, eps_prime, derived=False):
    """He Corollary 3: delta' = 1 - (1 - e^eps delta/(1+e^eps))^m (1 - delta/(1+e^eps))^{T-m}
    + 1 - (1 - delta/(1+e^eps))^T + delta'', m = ceil(eps'/eps) clamped to [0, T]; delta'' as printed, or as its
    derivation (App. B.4 eq. (36) at (37)) gives it when ``derived`` is true."""
    eps, delta, T, ep = (_f(x) for x in (eps, delta, T, eps_prime))
    m = _f(ceil_ratio(ep, eps, T))
    core = _he_delta_core(delta * special.expit(eps), delta * special.expit(-eps), m, T)
    pp = he_corollary3_delta_pp_derived if derived else he_corollary3_delta_pp
    return _ret(core + _f(pp(eps, T, ep)))


def he_theorem6_eps(eps, T, delta_tilde):
    """He Theorem 6 (Composition Theorem V), homogeneous steps: eps' = sqrt(2 log(1/delta~) T eps^2)
    + T eps (e^eps - 1)/(e^eps + 1) (the same expression as eps'_3 of Theorem 4)."""
    eps, T, dt = _f(eps), _f(T), _f(delta_tilde)
    return _ret(np.sqrt(2.0 * np.log(1.0 / dt) * T * eps**2) + T * eps * np.tanh(eps / 2.0))


def he_theorem6_delta(eps, delta, T, eps_prime, delta_tilde):
    """He Theorem 6's delta' (the same maximum over I as Theorem 4's eq. (8)); for homogeneous steps the maximizer
    has m = ceil(eps'/eps) coordinates alpha_i = eps (Corollary 2's proof), so this is :func:`he_corollary2_delta`
    evaluated at Theorem 6's eps'."""
    return he_corollary2_delta(eps, delta, T, eps_prime, delta_tilde)


# ---------------------------------------------------------------------------------------------------------------
# Generalization (He Section 4.1)
# ---------------------------------------------------------------------------------------------------------------


def _ln2eps(eps):
    eps = _f(eps)
    with np.errstate(divide="ignore"):
        v = np.log(2.0 / eps)
    return np.where(eps < 2.0, v, np.nan)


def theorem1_a(eps):
    """He Theorem 1: P[|R_S(A(S)) - R(A(S))| < a] > 1 - b with a = 9 eps."""
    return _ret(9.0 * _f(eps))


def theorem1_b(eps, delta):
    """He Theorem 1 (statement): b = e^{-eps} delta / eps * ln(2/eps); nan where eps >= 2 (b <= 0: the statement
    "P > 1 - b >= 1" is impossible, see :func:`ln2_over_eps_vacuous`).
    Discrepancy: He's abstract/introduction (Section 1) and Section 4.1.2 state b = 2 e^{-eps} delta/eps log(2/eps)
    (factor 2), see :func:`theorem1_b_intro`."""
    eps, delta = _f(eps), _f(delta)
    return _ret(np.exp(-eps) * delta / eps * _ln2eps(eps))


def theorem1_b_intro(eps, delta):
    """He Section 1 / Section 4.1.2 bullet: b = 2 e^{-eps} delta / eps * log(2/eps) (factor 2 absent from Theorem 1)."""
    return _ret(2.0 * _f(theorem1_b(eps, delta)))


def theorem1_min_sample_size(eps, delta):
    """He Theorem 1 (and Lemma 4) precondition: N >= 2/eps^2 ln(16/(e^{-eps} delta)) = 2/eps^2 (ln 16 + eps - ln delta)."""
    eps, delta = _f(eps), _f(delta)
    with np.errstate(divide="ignore"):
        return _ret(2.0 / eps**2 * (np.log(16.0) + eps - np.log(delta)))


def lemma4_k(eps, delta):
    """He Lemma 4: k = ceil(eps / (e^{-eps} delta)) = ceil(eps e^eps / delta) sub-databases."""
    eps, delta = _f(eps), _f(delta)
    with np.errstate(divide="ignore", over="ignore"):
        return _ret(np.ceil(eps * np.exp(eps) / delta))


def nissim_stemmer_a(eps):
    """Nissim & Stemmer [53] as quoted in He Section 4.1.2: a = 13 eps."""
    return _ret(13.0 * _f(eps))


def nissim_stemmer_b(eps, delta):
    """Nissim & Stemmer [53] as quoted in He Section 4.1.2: b = 2 delta / eps * log(2/eps); nan where eps >= 2."""
    eps, delta = _f(eps), _f(delta)
    return _ret(2.0 * delta / eps * _ln2eps(eps))


def dwork_generalization_a(eps):
    """Dwork et al. [17] as quoted in He Section 4.1.2: P[R - R_S < 4 eps] > 1 - 8 delta^eps; a = 4 eps."""
    return _ret(4.0 * _f(eps))


def dwork_generalization_b(eps, delta):
    """Dwork et al. [17] as quoted in He Section 4.1.2: b = 8 delta^eps."""
    eps, delta = _f(eps), _f(delta)
    return _ret(8.0 * np.power(delta, eps))


def oneto_eps_hat(eps, N):
    """Oneto et al. [54] as quoted in He Section 4.1.2: eps_hat = eps + sqrt(1/N)."""
    return _ret(_f(eps) + np.sqrt(1.0 / _f(N)))


def oneto_a_risk(eps, N, empirical_risk):
    """Oneto et al. [54] (first bound) as quoted in He Section 4.1.2:
    a = sqrt(6 R_S) eps_hat + 6 (eps^2 + 1/N)."""
    eps, N, r = _f(eps), _f(N), _f(empirical_risk)
    return _ret(np.sqrt(6.0 * r) * _f(oneto_eps_hat(eps, N)) + 6.0 * (eps**2 + 1.0 / N))


def oneto_a_variance(eps, N, empirical_variance):
    """Oneto et al. [54] (second bound) as quoted in He Section 4.1.2:
    a = sqrt(4 V_S) eps_hat + 5N/(N-1) (eps^2 + 1/N)."""
    eps, N, v = _f(eps), _f(N), _f(empirical_variance)
    return _ret(np.sqrt(4.0 * v) * _f(oneto_eps_hat(eps, N)) + 5.0 * N / (N - 1.0) * (eps**2 + 1.0 / N))


def oneto_b(eps, N):
    """Oneto et al. [54] as quoted in He Section 4.1.2 (both bounds): b = 3 e^{-N eps^2}."""
    eps, N = _f(eps), _f(N)
    return _ret(3.0 * np.exp(-N * eps**2))


def theorem2_bound(eps, delta, k):
    """He Theorem 2, eq. (1): |E[R_S_i(h) - R(h)]| <= e^{-eps} k delta + 1 - e^{-eps} (= e^{-eps} k delta - expm1(-eps))."""
    eps, delta, k = _f(eps), _f(delta), _f(k)
    return _ret(np.exp(-eps) * k * delta - np.expm1(-eps))


def corollary1_bound(eps, delta, k):
    """He Corollary 1: e^{-eps} k delta + eps (from 1 - e^{-eps} <= eps)."""
    eps, delta, k = _f(eps), _f(delta), _f(k)
    return _ret(np.exp(-eps) * k * delta + eps)


def nissim_stemmer_on_average(eps, delta, k):
    """Nissim & Stemmer [53] on-average multi-database bound as quoted in He Section 4.1.2: k delta + 2 eps."""
    return _ret(_f(k) * _f(delta) + 2.0 * _f(eps))


# ---------------------------------------------------------------------------------------------------------------
# Applications (He Section 5)
# ---------------------------------------------------------------------------------------------------------------


def sgld_eps_tilde(L, sigma, tau, delta):
    """He Theorem 7: per-step privacy of SGLD, eps~ = (2 sqrt(2) L sigma (1/tau) sqrt(log(1/delta)) + 4 L^2/tau^2)/(2 sigma^2)."""
    L, sigma, tau, delta = (_f(x) for x in (L, sigma, tau, delta))
    return _ret((2.0 * np.sqrt(2.0) * L * sigma / tau * np.sqrt(np.log(1.0 / delta)) + 4.0 * L**2 / tau**2)
                / (2.0 * sigma**2))


def federated_eps_tilde(sigma, tau, delta):
    """He Theorem 8: eps~ = (4 sigma (1/tau) sqrt(log(1/delta)) + 1/tau^2)/(2 sigma^2)."""
    sigma, tau, delta = (_f(x) for x in (sigma, tau, delta))
    return _ret((4.0 * sigma / tau * np.sqrt(np.log(1.0 / delta)) + 1.0 / tau**2) / (2.0 * sigma**2))


def subsampled_composition(eps_tilde, N, tau, T, delta, delta_tilde):
    """The common form of He Theorem 7 (SGLD) and Theorem 8 (federated, eq. (15)), with q = tau/N:

        eps'  = sqrt(8 log(1/delta~) q^2 T eps~^2) + 2 T q eps~ tanh(q eps~)
                [(e^{2 q eps~} - 1)/(e^{2 q eps~} + 1) = tanh(q eps~)],
        delta' = 1 - (1 - e^{2q eps~} q delta/(1+e^{2q eps~}))^m (1 - q delta/(1+e^{2q eps~}))^{T-m}
                 + 1 - (1 - q delta/(1+e^{2q eps~}))^T + delta~,   m = ceil(N eps'/(2 tau eps~)) in [0, T],
        delta~ (displayed formula) = Corollary 3's delta'' with per-step eps = q eps~:
                 e^{-(eps' + q T eps~)/2} ((1/(1+e^{q eps~})) (2 q T eps~/(q T eps~ - eps')))^T
                 ((q eps~ T + eps')/(q T eps~ - eps'))^{-(N eps' + tau T eps~)/(2 tau eps~)}.

    Ambiguity: delta~ is both a free constant inside eps' and defined by a formula that depends on eps' (circular).
    We take delta~ as the free input for eps' and report both delta' readings: ``delta_prime_free`` (additive
    delta~ = the input, like Theorem 4/Corollary 2) and ``delta_prime_formula`` (additive delta~ = the displayed
    formula, like Corollary 3's delta''). Inconsistency: eps' and m use the per-step level 2 q eps~, the displayed
    delta~ uses q eps~. The displayed delta~ inherits Corollary 3's exponent sign; ``delta_tilde_derived`` is
    Corollary 3's derivation (App. B.4 eqs. (36)-(37)) at per-step level q eps~ (as displayed) and
    ``delta_tilde_derived_2q`` at 2 q eps~ (the level eps' uses), with the matching ``delta_prime_derived*``.
    Returns a dict of arrays."""
    et, N, tau, T, delta, dt = np.broadcast_arrays(*(_f(x) for x in (eps_tilde, N, tau, T, delta, delta_tilde)))
    q = tau / N
    step = 2.0 * q * et  # per-step level in eps' and in m
    eps_prime = np.sqrt(8.0 * np.log(1.0 / dt) * q**2 * T * et**2) + 2.0 * T * q * et * np.tanh(q * et)
    m = _f(ceil_ratio(eps_prime, step, T))
    core = _he_delta_core(q * delta * special.expit(step), q * delta * special.expit(-step), m, T)
    log_dt_formula = _f(he_corollary3_log_delta_pp(q * et, T, eps_prime))
    dt_formula = np.exp(log_dt_formula)
    dt_derived = _f(he_corollary3_delta_pp_derived(q * et, T, eps_prime))
    dt_derived_2q = _f(he_corollary3_delta_pp_derived(step, T, eps_prime))
    return {
        "eps_prime": _ret(eps_prime),
        "per_step_eps": _ret(step),
        "m": _ret(m),
        "delta_core": _ret(core),
        "delta_tilde_formula": _ret(dt_formula),
        "log_delta_tilde_formula": _ret(log_dt_formula),
        "delta_prime_free": _ret(core + dt),
        "delta_prime_formula": _ret(core + dt_formula),
        "delta_tilde_derived": _ret(dt_derived),
        "delta_prime_derived": _ret(core + dt_derived),
        "delta_tilde_derived_2q": _ret(dt_derived_2q),
        "delta_prime_derived_2q": _ret(core + dt_derived_2q),
    }


def theorem7_sgld(N, tau, T, L, sigma, delta, delta_tilde):
    """He Theorem 7: (eps', delta') of SGLD (Algorithm 1) via :func:`subsampled_composition` with
    eps~ = :func:`sgld_eps_tilde`. Returns the dict of :func:`subsampled_composition` plus ``eps_tilde``."""
    et = sgld_eps_tilde(L, sigma, tau, delta)
    out = subsampled_composition(et, N, tau, T, delta, delta_tilde)
    out["eps_tilde"] = et
    return out


def theorem8_federated(N, tau, T, sigma, delta, delta_tilde):
    """He Theorem 8: (eps', delta') of DP federated learning (Algorithm 2). Eq. (15) writes eps' with a bare eps
    that the theorem never defines; we read it as eps~ (the delta' part of the theorem uses eps~)."""
    et = federated_eps_tilde(sigma, tau, delta)
    out = subsampled_composition(et, N, tau, T, delta, delta_tilde)
    out["eps_tilde"] = et
    return out


def wang_sgld_min_T(eps, delta, N, tau):
    """Wang et al. [68] as quoted in He Section 5.1: SGLD is (eps, delta)-DP if T > eps^2 N / (32 tau log(2/delta)).
    Returns the threshold eps^2 N / (32 tau log(2/delta))."""
    eps, delta, N, tau = (_f(x) for x in (eps, delta, N, tau))
    return _ret(eps**2 * N / (32.0 * tau * np.log(2.0 / delta)))


def wang_sgld_condition(T, eps, delta, N, tau):
    """Wang et al.'s condition as quoted by He: T > eps^2 N / (32 tau log(2/delta)) (boolean array)."""
    return np.asarray(_f(T) > _f(wang_sgld_min_T(eps, delta, N, tau)))
