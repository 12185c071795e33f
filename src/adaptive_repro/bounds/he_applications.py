"""He, Wang, Tao §5: privacy and generalization of SGLD (Theorem 7) and agnostic federated learning (Theorem 8),
with Wang et al.'s SGLD condition as He quotes it. Conventions as in :mod:`adaptive_repro.bounds.he`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from adaptive_repro.bounds.he import (
    _f,
    _he_delta_core,
    _ret,
    ceil_ratio,
    he_corollary3_delta_pp_derived,
    he_corollary3_log_delta_pp,
)
from adaptive_repro.foundation.domain import POSITIVE, check_public_functions

# ---------------------------------------------------------------------------------------------------------------
# Applications (He Section 5)
# ---------------------------------------------------------------------------------------------------------------


def sgld_eps_tilde(L, sigma, tau, delta):
    """He Theorem 7: per-step privacy of SGLD,
    eps~ = (2 sqrt(2) L sigma (1/tau) sqrt(log(1/delta)) + 4 L^2/tau^2)/(2 sigma^2)."""
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
    Returns a dict of arrays; the entries built on Corollary 3's delta'' are nan where it is undefined (eps' at
    least T times the per-step level, :func:`adaptive_repro.bounds.he.he_corollary3_log_delta_pp`)."""
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
    eps~ = :func:`sgld_eps_tilde`. Returns the dict of :func:`subsampled_composition` (with its nan entries) plus
    ``eps_tilde``."""
    et = sgld_eps_tilde(L, sigma, tau, delta)
    out = subsampled_composition(et, N, tau, T, delta, delta_tilde)
    out["eps_tilde"] = et
    return out


def theorem8_federated(N, tau, T, sigma, delta, delta_tilde):
    """He Theorem 8: (eps', delta') of DP federated learning (Algorithm 2). Eq. (15) writes eps' with a bare eps
    that the theorem never defines; we read it as eps~ (the delta' part of the theorem uses eps~). Returns the dict
    of :func:`subsampled_composition` (with its nan entries) plus ``eps_tilde``."""
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


check_public_functions(globals(), __name__, tau=POSITIVE)  # domains (adaptive_repro.foundation.domain); tau: He's own
