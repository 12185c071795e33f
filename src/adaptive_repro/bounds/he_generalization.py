"""Generalization bounds of He, Wang, Tao, "Tighter Generalization Bounds for Iterative Differentially Private
Learning Algorithms" (He §4.1: Theorems 1-2, Corollary 1, Lemma 4), and those He compares them with (Nissim-Stemmer,
Dwork et al., Oneto et al.), as He quotes them. Conventions as in :mod:`adaptive_repro.bounds.he`.
"""

from __future__ import annotations

import numpy as np

from adaptive_repro.bounds.he import _f, _ret
from adaptive_repro.foundation.domain import POSITIVE, check_public_functions

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
    """He Section 1 / Section 4.1.2 bullet: b = 2 e^{-eps} delta / eps * log(2/eps) (factor 2 absent from Theorem 1);
    nan where eps >= 2, as :func:`theorem1_b`."""
    return _ret(2.0 * _f(theorem1_b(eps, delta)))


def theorem1_min_sample_size(eps, delta):
    """He Theorem 1 (and Lemma 4) precondition: N >= 2/eps^2 ln(16/(e^{-eps} delta))
    = 2/eps^2 (ln 16 + eps - ln delta); +inf at delta = 0 (no N suffices)."""
    eps, delta = _f(eps), _f(delta)
    with np.errstate(divide="ignore"):
        return _ret(2.0 / eps**2 * (np.log(16.0) + eps - np.log(delta)))


def lemma4_k(eps, delta):
    """He Lemma 4: k = ceil(eps / (e^{-eps} delta)) = ceil(eps e^eps / delta) sub-databases; +inf at delta = 0
    (no k suffices)."""
    eps, delta = _f(eps), _f(delta)
    with np.errstate(divide="ignore"):
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


def oneto_b(eps, N):
    """Oneto et al. [54] as quoted in He Section 4.1.2 (both bounds): b = 3 e^{-N eps^2}."""
    eps, N = _f(eps), _f(N)
    return _ret(3.0 * np.exp(-N * eps**2))


def theorem2_bound(eps, delta, k):
    """He Theorem 2, eq. (1): |E[R_S_i(h) - R(h)]| <= e^{-eps} k delta + 1 - e^{-eps}
    (= e^{-eps} k delta - expm1(-eps))."""
    eps, delta, k = _f(eps), _f(delta), _f(k)
    return _ret(np.exp(-eps) * k * delta - np.expm1(-eps))


def corollary1_bound(eps, delta, k):
    """He Corollary 1: e^{-eps} k delta + eps (from 1 - e^{-eps} <= eps)."""
    eps, delta, k = _f(eps), _f(delta), _f(k)
    return _ret(np.exp(-eps) * k * delta + eps)


def nissim_stemmer_on_average(eps, delta, k):
    """Nissim & Stemmer [53] on-average multi-database bound as quoted in He Section 4.1.2: k delta + 2 eps."""
    return _ret(_f(k) * _f(delta) + 2.0 * _f(eps))


# argument domains (adaptive_repro.foundation.domain); eps > 0: He Theorem 1's b and its precondition on N divide by eps
check_public_functions(globals(), __name__, eps=POSITIVE)
