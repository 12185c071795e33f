"""Ground truth: Kairouz-Oh-Viswanath exact composition, PLD cross-checks, exact KL (adaptive_repro.groundtruth)."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import special

from adaptive_repro import groundtruth as gt

EPS = st.floats(min_value=1e-3, max_value=3.0)
SMALL_T = st.integers(min_value=1, max_value=60)


def kov_corner_delta_g(eps, T, i):
    """KOV 2015 Theorem 3.3 literally, at eps' = (T - 2i) eps, with exact big-integer binomials (small T)."""
    total = 0.0
    for flips in range(i):
        total += math.comb(T, flips) * (math.exp((T - flips) * eps) - math.exp((T - 2 * i + flips) * eps))
    return total / (1 + math.exp(eps)) ** T


def test_kov_T1_equals_eps():
    for eps in [1e-4, 0.01, 0.5, 1.0, 5.0]:
        assert gt.kov_eps(eps, 0.0, 1, 0.0) == pytest.approx(eps, rel=1e-9)


def test_kov_delta_T1_closed_form():
    # one eps-DP step, eps' < eps: delta = (e^eps - e^eps')/(1 + e^eps)
    for eps, ep in [(1.0, 0.5), (0.1, 0.0), (2.0, 1.9)]:
        assert gt.kov_delta(eps, 0.0, 1, ep) == pytest.approx((math.exp(eps) - math.exp(ep)) / (1 + math.exp(eps)))


@settings(deadline=None, max_examples=40)
@given(eps=EPS, T=SMALL_T, data=st.data())
def test_kov_matches_theorem_3_3_corners(eps, T, data):
    i = data.draw(st.integers(min_value=0, max_value=T // 2))
    expected = kov_corner_delta_g(eps, T, i)
    got = gt.kov_delta(eps, 0.0, T, (T - 2 * i) * eps)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-300)


@settings(deadline=None, max_examples=40)
@given(eps=EPS, delta=st.sampled_from([0.0, 1e-8, 1e-4]), T=st.integers(1, 300),
       a=st.floats(0, 1), b=st.floats(0, 1))
def test_kov_delta_monotone_in_eps_prime_and_above_floor(eps, delta, T, a, b):
    lo, hi = sorted([a * T * eps, b * T * eps])
    d_lo, d_hi = gt.kov_delta(eps, delta, T, lo), gt.kov_delta(eps, delta, T, hi)
    assert d_hi <= d_lo * (1 + 1e-12) + 1e-300
    assert d_hi >= gt.delta_floor(delta, T) * (1 - 1e-12)
    assert gt.kov_delta(eps, delta, T, T * eps) == pytest.approx(gt.delta_floor(delta, T), rel=1e-12, abs=0)


@settings(deadline=None, max_examples=30)
@given(eps=EPS, T=st.integers(1, 2000), logd=st.floats(-12, -1))
@example(eps=3.0, T=3, logd=-6.0)  # eps' within 1e-6 of T eps, where log delta is steep (found by hypothesis)
@example(eps=1.0, T=106, logd=-11.87)  # tiny delta': 1 - (1 - delta') cancels (fixed by writing it as a quotient)
@example(eps=0.5, T=10, logd=-12.0)  # eps' within 1e-10 of T eps: the float root needed a step up to be sound
def test_kov_eps_inverts_kov_delta(eps, T, logd):
    target = 10.0**logd
    ep = gt.kov_eps(eps, 0.0, T, target)
    assert 0 <= ep <= T * eps * (1 + 1e-12)
    if 0 < ep:
        assert gt.kov_delta(eps, 0.0, T, ep) <= target  # sound: the eps' reported achieves delta'
    if 0 < ep < T * eps * (1 - 1e-9):
        assert gt.kov_delta(eps, 0.0, T, ep) == pytest.approx(target, rel=1e-6)


@settings(deadline=None, max_examples=25)
@given(eps=EPS, T=st.integers(1, 500))
def test_kov_eps_monotone_in_T(eps, T):
    assert gt.kov_eps(eps, 0.0, T + 1, 1e-6) >= gt.kov_eps(eps, 0.0, T, 1e-6) - 1e-9


def test_kov_eps_below_floor_is_nan():
    assert math.isnan(gt.kov_eps(0.1, 1e-3, 100, 1e-3))


def test_kov_large_T_no_overflow():
    for T in [10_000, 100_000]:
        ep = gt.kov_eps(1.0, 1e-6, T, gt.delta_floor(1e-6, T) + 1e-5)
        assert np.isfinite(ep) and 0 < ep < T
        lg = gt.kov_log_delta_g(50.0, T, 0.5 * T * 50.0)
        assert np.isfinite(lg) or lg == -math.inf


def test_kov_matches_advanced_composition_scale():
    # for small eps, eps' ~ eps sqrt(2 T log(1/delta)) + T eps^2/2 (Dwork-Rothblum-Vadhan); exact must be below it
    eps, T, d = 0.01, 10_000, 1e-5
    ep = gt.kov_eps(eps, 0.0, T, d)
    assert ep < T * eps * math.tanh(eps / 2) + eps * math.sqrt(2 * T * math.log(1 / d))
    assert ep > 0.5 * eps * math.sqrt(2 * T * math.log(1 / d))


@pytest.mark.parametrize("eps,T", [(0.1, 1), (0.1, 50), (0.5, 20), (1.0, 100), (0.01, 1000)])
def test_kov_agrees_with_pld_randomized_response(eps, T):
    """dp_accounting's PLD composition of randomized response (losses exactly +-eps on a grid dividing eps) vs KOV.
    Tolerance: absolute 1e-9 + relative 1e-6 (PLD tail truncation and float rounding)."""
    grid = np.linspace(0.0, T * eps, 7)[:-1]
    pld = gt.pure_dp_pld_delta(eps, T, grid)
    kov = gt.kov_delta(eps, 0.0, T, grid)
    np.testing.assert_allclose(pld, kov, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("eps,delta,T", [(0.5, 1e-4, 10), (0.1, 1e-6, 100), (1.0, 1e-3, 30)])
def test_kov_agrees_with_pld_privacy_parameters(eps, delta, T):
    """The worst-case (eps, delta)-DP PLD composed T times by dp_accounting vs KOV
    Theorem 3.3 with delta > 0; same tolerance."""
    grid = np.linspace(0.0, T * eps, 6)[:-1]
    pld = gt.approx_dp_pld_delta(eps, delta, T, grid)
    kov = gt.kov_delta(eps, delta, T, grid)
    np.testing.assert_allclose(pld, kov, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("eps,T", [(0.1, 10), (1.0, 100)])
def test_laplace_pld_below_worst_case_and_bracketed(eps, T):
    hi, lo = gt.laplace_pld_eps(eps, T, 1e-5)
    assert lo <= hi * (1 + 1e-9)
    assert hi <= gt.kov_eps(eps, 0.0, T, 1e-5) * (1 + 1e-6)
    assert hi - lo < 0.05 * hi


def test_laplace_pld_T1_pure_dp():
    # one Laplace(1/eps) release: delta(eps) = 0; delta at eps' = 0 is 1 - e^{-eps/2} (TV distance)
    eps = 0.7
    d = gt.laplace_pld_delta(eps, 1, [0.0, eps])
    assert d[1] == pytest.approx(0.0, abs=1e-9)
    assert d[0] == pytest.approx(-math.expm1(-eps / 2), rel=1e-3)


def kov_log_delta_g_direct(eps, T, eps_prime):
    """KOV 2015 Thm 3.3's log delta_g as one expression over the kept l (the form before the eps'-independent terms
    were cached), to check the cached form bit for bit."""
    eps_prime = max(eps_prime, 0.0)
    flips = np.arange(T + 1, dtype=float)
    gap = (T - 2.0 * flips) * eps - eps_prime
    keep = gap > 0
    if not keep.any():
        return -math.inf
    lb = (special.gammaln(T + 1.0) - special.gammaln(flips + 1.0) - special.gammaln(T - flips + 1.0))[keep]
    terms = lb + (T - flips[keep]) * eps - T * np.logaddexp(0.0, eps) + np.log(-np.expm1(-gap[keep]))
    return float(special.logsumexp(terms))


@pytest.mark.parametrize("eps,T", [(0.01, 1), (0.1, 100), (1.0, 1000), (0.5, 10_000)])
def test_kov_log_delta_g_cached_terms_bit_identical(eps, T):
    for ep in [0.0, 0.3 * eps, 0.5 * T * eps, T * eps * (1 - 1e-12), T * eps, 2 * T * eps]:
        assert gt.kov_log_delta_g(eps, T, ep) == kov_log_delta_g_direct(eps, T, ep)  # twice: memoized too
        assert gt.kov_log_delta_g(eps, T, ep) == kov_log_delta_g_direct(eps, T, ep)


def test_laplace_pld_eps_array_same_as_scalars():
    deltas = [1e-5, 2e-5, 1e-3]
    his, los = gt.laplace_pld_eps(0.5, 30, deltas)
    assert [(float(h), float(lo)) for h, lo in zip(his, los)] == [gt.laplace_pld_eps(0.5, 30, d) for d in deltas]


def test_pld_interval_divides_eps():
    for eps in [1e-4, 0.01, 0.3, 1.0, 7.0, 50.0]:
        iv = gt.pld_interval(eps, 1e-3)
        k = eps / iv
        assert abs(k - round(k)) < 1e-9 and iv <= 1e-3 * (1 + 1e-12)


@settings(deadline=None, max_examples=50)
@given(eps=st.floats(1e-4, 50))
def test_exact_kl_closed_forms(eps):
    # randomized response: direct sum over the two outputs, P = (p, 1-p), Q = (1-p, p), log(p/(1-p)) = eps
    p, p1 = special.expit(eps), special.expit(-eps)
    direct = p * eps + p1 * (-eps)
    assert gt.kl_randomized_response(eps) == pytest.approx(direct, rel=1e-9, abs=1e-15)
    assert 0 <= gt.kl_laplace(eps) <= gt.kl_randomized_response(eps) * (1 + 1e-12)


def test_kl_laplace_numerical_integration():
    from scipy import integrate

    for eps in [0.01, 0.5, 3.0]:
        b = 1.0 / eps
        f = lambda x: 0.5 / b * math.exp(-abs(x) / b) * ((abs(x - 1) - abs(x)) / b)
        val = sum(integrate.quad(f, a, c, limit=200)[0] for a, c in [(-60 * b, 0), (0, 1), (1, 60 * b + 1)])
        assert gt.kl_laplace(eps) == pytest.approx(val, rel=1e-6, abs=1e-12)


def test_delta_floor_stable():
    assert gt.delta_floor(1e-12, 1e6) == pytest.approx(1e-6, rel=1e-6)
    assert gt.delta_floor(0.0, 1e6) == 0.0


@pytest.mark.parametrize("eps", [1e-150, 1e-10, 1e-3, 0.00999, 0.01, 0.999, 1.0, 5.0])
def test_exact_kl_of_randomized_response_and_laplace_to_full_precision(eps):
    """Against 400-digit arithmetic: at small eps both KLs keep all their digits (the old forms kept about
    16 + log10(eps), so an upper-bound check against Lemma 5 was decided by rounding)."""
    from mpmath import expm1 as mp_expm1
    from mpmath import mp, mpf, tanh

    with mp.workdps(400):  # e + expm1(-e) cancels about -2 log10(eps) digits
        e = mpf(eps)
        laplace, rr = e + mp_expm1(-e), e * tanh(e / 2)
        assert float(abs(gt.kl_laplace(eps) - laplace) / laplace) < 1e-14
        assert float(abs(gt.kl_randomized_response(eps) - rr) / rr) < 1e-14


@pytest.mark.slow
def test_he_kl_verdicts_are_the_same_at_the_schemas_smallest_eps():
    """theory.he.kl.eps_min at its schema minimum (1e-150) decides every row as the default grid does."""
    from adaptive_repro.pipeline import catalogue

    def statuses(block):
        _, _, claims = catalogue.build("he-kl", catalogue.default_params("he-kl", block), {})
        return [c.status for c in claims]

    assert statuses({"eps_min": 1e-150, "points": 11}) == statuses({"points": 11})
