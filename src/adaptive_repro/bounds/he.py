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

from adaptive_repro.foundation.domain import check_public_functions, unchecked

# ---------------------------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------------------------


def _f(x):
    return np.asarray(x, dtype=float)


def _ret(x):
    x = np.asarray(x, dtype=float)
    return x if x.ndim else float(x)


def eps_tanh(eps):
    """eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2) (docs/METHODS.md §6 numerics)."""
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
        m = np.where(eps_prime == 0, 0.0, np.ceil(eps_prime / eps))  # eps' = 0 needs no step, also at eps = 0
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
    return unchecked(eps_tanh)(eps)


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
    e1, e2, e3 = (_f(x) for x in unchecked(kairouz_eps_terms)(eps, T, delta_tilde))
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
    m = _f(unchecked(ceil_ratio)(ep, eps, T))
    return _ret(_he_delta_core(delta * special.expit(eps), delta * special.expit(-eps), m, T) + dt)


def he_corollary2_delta_approx(eps, delta, T, eps_prime, delta_tilde):
    """He Corollary 2, first-order form: delta' ~ (T - m) 2 delta/(1+e^eps) + m delta + delta~, m = ceil(eps'/eps)."""
    eps, delta, T, ep, dt = (_f(x) for x in (eps, delta, T, eps_prime, delta_tilde))
    m = _f(unchecked(ceil_ratio)(ep, eps, T))
    return _ret((T - m) * 2.0 * delta * special.expit(-eps) + m * delta + dt)


def he_kairouz_delta_gap(eps, delta, T, eps_prime):
    """He Section 1 and 4.2.2: Kairouz's delta' exceeds He's by approximately delta (e^eps-1)/(e^eps+1) (T - m),
    m = ceil(eps'/eps)."""
    eps, delta, T, ep = (_f(x) for x in (eps, delta, T, eps_prime))
    m = _f(unchecked(ceil_ratio)(ep, eps, T))
    return _ret(delta * np.tanh(eps / 2.0) * (T - m))


def he_corollary3_eps(eps, T, delta_tilde):
    """He Corollary 3 (Composition Theorem III), eps-DP steps: eps' = T eps tanh(eps/2) + sqrt(2 log(1/delta~) T eps^2)
    (= eps'_3 of Theorem 4)."""
    eps, T, dt = _f(eps), _f(T), _f(delta_tilde)
    return _ret(T * eps * np.tanh(eps / 2.0) + np.sqrt(2.0 * np.log(1.0 / dt) * T * eps**2))


def he_corollary3_log_delta_pp(eps, T, eps_prime):
    """log of He Corollary 3's delta'':
    delta'' = e^{-(eps'+T eps)/2} ( (1/(1+e^eps)) (2 T eps/(T eps - eps')) )^T
              ((T eps + eps')/(T eps - eps'))^{-(eps'+T eps)/(2 eps)}.
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
    return _ret(np.exp(_f(unchecked(he_corollary3_log_delta_pp)(eps, T, eps_prime))))


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
    :func:`he_corollary3_log_delta_pp_derived` (nan where that is)."""
    return _ret(np.exp(_f(unchecked(he_corollary3_log_delta_pp_derived)(eps, T, eps_prime))))


def he_corollary3_delta(eps, delta, T, eps_prime, derived=False):
    """He Corollary 3: delta' = 1 - (1 - e^eps delta/(1+e^eps))^m (1 - delta/(1+e^eps))^{T-m}
    + 1 - (1 - delta/(1+e^eps))^T + delta'', m = ceil(eps'/eps) clamped to [0, T]; delta'' as printed, or as its
    derivation (App. B.4 eq. (36) at (37)) gives it when ``derived`` is true; nan where delta'' is undefined
    (eps' >= T eps, :func:`he_corollary3_log_delta_pp`)."""
    eps, delta, T, ep = (_f(x) for x in (eps, delta, T, eps_prime))
    m = _f(unchecked(ceil_ratio)(ep, eps, T))
    core = _he_delta_core(delta * special.expit(eps), delta * special.expit(-eps), m, T)
    pp = he_corollary3_delta_pp_derived if derived else he_corollary3_delta_pp
    return _ret(core + _f(unchecked(pp)(eps, T, ep)))


def he_theorem6_eps(eps, T, delta_tilde):
    """He Theorem 6 (Composition Theorem V), homogeneous steps: eps' = sqrt(2 log(1/delta~) T eps^2)
    + T eps (e^eps - 1)/(e^eps + 1) (the same expression as eps'_3 of Theorem 4)."""
    eps, T, dt = _f(eps), _f(T), _f(delta_tilde)
    return _ret(np.sqrt(2.0 * np.log(1.0 / dt) * T * eps**2) + T * eps * np.tanh(eps / 2.0))


def he_theorem6_delta(eps, delta, T, eps_prime, delta_tilde):
    """He Theorem 6's delta' (the same maximum over I as Theorem 4's eq. (8)); for homogeneous steps the maximizer
    has m = ceil(eps'/eps) coordinates alpha_i = eps (Corollary 2's proof), so this is :func:`he_corollary2_delta`
    evaluated at Theorem 6's eps'."""
    return unchecked(he_corollary2_delta)(eps, delta, T, eps_prime, delta_tilde)


check_public_functions(globals(), __name__)  # argument domains (adaptive_repro.foundation.domain)
