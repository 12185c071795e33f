"""He et al. bounds (adaptive_repro.bounds.he); the he-* output builders are tested in
tests/unit/outputs/test_he_outputs.py.

Tests check the CODE: formulas as written in the paper, numerics, monotonicity, and the mathematical facts that
must hold. Claims of the paper that are false are not forced to pass: the test checks that the code computes the
counter-example (and the claims file records "does not hold"); such tests are named ``test_claim_fails_*``.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_repro import groundtruth as gt
from adaptive_repro.bounds import he
from adaptive_repro.bounds import he_applications as hea
from adaptive_repro.bounds import he_generalization as heg

EPS = st.floats(min_value=1e-4, max_value=50.0)
EPS_MOD = st.floats(min_value=1e-4, max_value=5.0)
T_ST = st.integers(min_value=1, max_value=1_000_000)
DT = st.floats(min_value=1e-12, max_value=0.5)
DELTA = st.floats(min_value=0.0, max_value=1e-2)
FAST = settings(deadline=None, max_examples=60)


# ---------------------------------------------------------------- helpers and numerics

def test_eps_tanh_matches_paper_form():
    for e in [1e-4, 0.1, 1.0, 5.0, 20.0]:
        assert he.eps_tanh(e) == pytest.approx(e * (math.exp(e) - 1) / (math.exp(e) + 1), rel=1e-12)
    assert np.isfinite(he.eps_tanh(50.0)) and np.isfinite(he.eps_tanh(1000.0))


def test_one_minus_pow_small_x_large_n():
    assert he.one_minus_pow(1e-12, 1e6) == pytest.approx(1e-6, rel=1e-6)
    assert he.one_minus_pow(0.3, 4) == pytest.approx(1 - 0.7**4, rel=1e-12)


@FAST
@given(ep=st.floats(0, 1e8), eps=EPS, T=T_ST)
def test_ceil_ratio_clamped(ep, eps, T):
    m = he.ceil_ratio(ep, eps, T)
    assert 0 <= m <= T and m == int(m)


def test_ceil_ratio_float_overshoot():
    # T eps / eps can exceed T in floating point; the count must not
    assert he.ceil_ratio(0.1 * 3, 0.1, 3) == 3


def test_vacuous_flag_and_nan():
    assert he.ln2_over_eps_vacuous(2.0) and not he.ln2_over_eps_vacuous(1.99)
    assert math.isnan(heg.theorem1_b(3.0, 1e-6)) and math.isnan(heg.nissim_stemmer_b(2.0, 1e-6))
    assert heg.theorem1_b(1.0, 1e-6) > 0


@FAST
@given(eps=EPS, T=T_ST, delta=DELTA, dt=DT)
def test_no_overflow_large_T(eps, T, delta, dt):
    vals = [he.naive_eps(eps, T), he.drv_eps(eps, T, dt), he.kairouz_eps(eps, T, dt), he.he_corollary3_eps(eps, T, dt),
            he.kairouz_delta(delta, T, dt), he.he_corollary2_delta(eps, delta, T, he.he_theorem4_eps(eps, T, dt), dt)]
    assert all(np.isfinite(v) for v in vals)
    lp = he.he_corollary3_log_delta_pp(eps, T, 0.5 * T * eps)
    assert np.isfinite(lp)


def test_vectorized_broadcasting():
    eps = np.array([0.1, 0.5, 1.0])[:, None]
    T = np.array([10, 1000])[None, :]
    out = he.kairouz_eps(eps, T, 1e-5)
    assert out.shape == (3, 2)
    d = he.he_corollary2_delta(eps, 1e-6, T, out, 1e-5)
    assert d.shape == (3, 2)
    assert heg.theorem1_b(np.array([0.1, 3.0]), 1e-6).shape == (2,)


# ---------------------------------------------------------------- formulas as written

def test_corollary2_literal_formula():
    eps, delta, T, dt = 0.3, 1e-4, 50, 1e-5
    ep = 4.0
    m = math.ceil(ep / eps)
    lit = (1 - (1 - math.exp(eps) * delta / (1 + math.exp(eps))) ** m * (1 - delta / (1 + math.exp(eps))) ** (T - m)
           + 1 - (1 - delta / (1 + math.exp(eps))) ** T + dt)
    assert he.he_corollary2_delta(eps, delta, T, ep, dt) == pytest.approx(lit, rel=1e-10)
    # T = 1: delta + delta~; pure DP: delta~
    assert he.he_corollary2_delta(eps, delta, 1, eps, dt) == pytest.approx(delta + dt, rel=1e-12)
    assert he.he_corollary2_delta(eps, 0.0, T, ep, dt) == dt


def test_corollary3_delta_pp_literal_formula():
    eps, T = 0.2, 30
    for ep in [0.5, 2.0, 5.9]:
        lit = (math.exp(-(ep + T * eps) / 2) * ((1 / (1 + math.exp(eps))) * (2 * T * eps / (T * eps - ep))) ** T
               * ((T * eps + ep) / (T * eps - ep)) ** (-(ep + T * eps) / (2 * eps)))
        assert he.he_corollary3_delta_pp(eps, T, ep) == pytest.approx(lit, rel=1e-10)
    assert math.isnan(he.he_corollary3_delta_pp(eps, T, T * eps))  # undefined at eps' >= T eps


def test_kairouz_terms_literal():
    eps, T, dt = 0.1, 100, 1e-5
    e1, e2, e3 = he.kairouz_eps_terms(eps, T, dt)
    head = (math.exp(eps) - 1) * eps * T / (math.exp(eps) + 1)
    assert e1 == pytest.approx(T * eps)
    assert e2 == pytest.approx(head + eps * math.sqrt(2 * T * math.log(math.e + math.sqrt(T * eps**2) / dt)))
    assert e3 == pytest.approx(head + eps * math.sqrt(2 * T * math.log(1 / dt)))
    assert he.kairouz_eps(eps, 1, dt) == pytest.approx(eps)  # T = 1: the min is eps


def test_theorem4_hetero_equals_homogeneous():
    assert he.he_theorem4_eps_hetero(np.full(40, 0.2), 1e-5) == pytest.approx(he.he_theorem4_eps(0.2, 40, 1e-5))


def test_drv_as_written_infinite_for_pure_dp():
    assert math.isinf(he.drv_eps_as_written(0.1, 10, 0.0))
    assert he.drv_eps_as_written(0.1, 10, 1e-5) == pytest.approx(he.drv_eps(0.1, 10, 1e-5))


def test_sgld_literal_formula():
    N, tau, T, L, sigma, delta, dt = 10_000, 100, 1000, 1.0, 1.0, 1e-5, 1e-5
    et = (2 * math.sqrt(2) * L * sigma / tau * math.sqrt(math.log(1 / delta)) + 4 / tau**2 * L**2) / (2 * sigma**2)
    q = tau / N
    ep = (math.sqrt(8 * math.log(1 / dt) * q**2 * T * et**2)
          + 2 * T * q * et * (math.exp(2 * q * et) - 1) / (math.exp(2 * q * et) + 1))
    m = math.ceil(N * ep / (2 * tau * et))
    x = q * delta / (1 + math.exp(2 * q * et))
    core = 1 - (1 - math.exp(2 * q * et) * x) ** m * (1 - x) ** (T - m) + 1 - (1 - x) ** T
    dtf = (math.exp(-(ep + q * T * et) / 2) * ((1 / (1 + math.exp(q * et))) * (2 * q * T * et / (q * T * et - ep))) ** T
           * ((q * et * T + ep) / (q * T * et - ep)) ** (-(N * ep + tau * T * et) / (2 * tau * et)))
    r = hea.theorem7_sgld(N, tau, T, L, sigma, delta, dt)
    assert r["eps_tilde"] == pytest.approx(et, rel=1e-12)
    assert r["eps_prime"] == pytest.approx(ep, rel=1e-12)
    assert r["m"] == m
    assert r["delta_prime_free"] == pytest.approx(core + dt, rel=1e-9)
    assert r["delta_tilde_formula"] == pytest.approx(dtf, rel=1e-8)


def test_federated_eps_tilde_literal():
    sigma, tau, delta = 2.0, 50, 1e-6
    lit = (4 * sigma / tau * math.sqrt(math.log(1 / delta)) + 1 / tau**2) / (2 * sigma**2)
    assert hea.federated_eps_tilde(sigma, tau, delta) == pytest.approx(lit)


def test_wang_threshold():
    assert hea.wang_sgld_min_T(1.0, 1e-5, 32_000, 100) == pytest.approx(10.0 / math.log(2e5))
    assert hea.wang_sgld_condition(100, 1.0, 1e-5, 32_000, 100)


def test_theorem1_min_sample_size():
    eps, delta = 0.1, 1e-6
    assert heg.theorem1_min_sample_size(eps, delta) == pytest.approx(2 / eps**2
                                                                     * math.log(16 / (math.exp(-eps) * delta)))
    assert heg.lemma4_k(0.1, 1e-6) == math.ceil(0.1 / (math.exp(-0.1) * 1e-6))


# ---------------------------------------------------------------- monotonicity (hypothesis)

@FAST
@given(a=EPS, b=EPS)
def test_kl_bounds_monotone_in_eps(a, b):
    lo, hi = sorted([a, b])
    for f in (he.kl_lemma5, he.kl_dwork_rothblum, he.kl_dwork_et_al, gt.kl_laplace):
        assert f(lo) <= f(hi) * (1 + 1e-12)


@FAST
@given(eps=EPS_MOD, T=st.integers(1, 100_000), dt=st.floats(1e-10, 0.1), k=st.integers(1, 10))
def test_composition_eps_monotone(eps, T, dt, k):
    for f in (he.naive_eps, he.drv_eps, he.kairouz_eps, he.he_corollary3_eps):
        args = (eps, T) if f is he.naive_eps else (eps, T, dt)
        args_T = (eps, T + k) if f is he.naive_eps else (eps, T + k, dt)
        args_e = (eps * 1.5, T) if f is he.naive_eps else (eps * 1.5, T, dt)
        assert f(*args) <= f(*args_T) * (1 + 1e-12)
        assert f(*args) <= f(*args_e) * (1 + 1e-12)
    assert he.drv_eps(eps, T, dt) >= he.drv_eps(eps, T, min(0.5, dt * 10)) * (1 - 1e-12)


@FAST
@given(eps=EPS_MOD, T=st.integers(1, 100_000), d1=DELTA, d2=DELTA, dt=st.floats(1e-10, 0.1))
def test_composition_delta_monotone_in_delta(eps, T, d1, d2, dt):
    lo, hi = sorted([d1, d2])
    ep = he.he_theorem4_eps(eps, T, dt)
    assert he.he_corollary2_delta(eps, lo, T, ep, dt) <= he.he_corollary2_delta(eps, hi, T, ep, dt) * (1 + 1e-12)
    assert he.kairouz_delta(lo, T, dt) <= he.kairouz_delta(hi, T, dt) * (1 + 1e-12)


@FAST
@given(eps=st.floats(1e-3, 1.99), d1=st.floats(1e-12, 0.1), d2=st.floats(1e-12, 0.1))
def test_generalization_b_monotone_in_delta(eps, d1, d2):
    lo, hi = sorted([d1, d2])
    assert heg.theorem1_b(eps, lo) <= heg.theorem1_b(eps, hi) * (1 + 1e-12)
    assert heg.nissim_stemmer_b(eps, lo) <= heg.nissim_stemmer_b(eps, hi) * (1 + 1e-12)


@FAST
@given(N=st.integers(100, 10**7), tau=st.integers(1, 100), sigma=st.floats(0.1, 10), T=st.integers(1, 10**5))
def test_theorem7_eps_increasing_in_T(N, tau, sigma, T):
    a = hea.theorem7_sgld(N, tau, T, 1.0, sigma, 1e-5, 1e-5)["eps_prime"]
    b = hea.theorem7_sgld(N, tau, 2 * T, 1.0, sigma, 1e-5, 1e-5)["eps_prime"]
    assert a < b


# ---------------------------------------------------------------- inequalities He claims that are true

@FAST
@given(eps=EPS)
def test_claim_holds_kl_ordering(eps):
    l5, dr, dw = he.kl_lemma5(eps), he.kl_dwork_rothblum(eps), he.kl_dwork_et_al(eps)
    assert l5 <= dr * (1 + 1e-12) and dr <= dw * (1 + 1e-12)
    assert dr / l5 == pytest.approx((1 + math.exp(eps)) / 2, rel=1e-9)
    assert l5 == pytest.approx(gt.kl_randomized_response(eps), rel=1e-12)  # Lemma 5 is tight
    assert gt.kl_laplace(eps) <= l5 * (1 + 1e-12)


@FAST
@given(eps=EPS, T=T_ST, dt=DT)
def test_claim_holds_theorem4_equals_kairouz_and_below_drv_naive(eps, T, dt):
    k = he.kairouz_eps(eps, T, dt)
    assert he.he_theorem4_eps(eps, T, dt) == pytest.approx(k, rel=1e-9)  # written separately from eqs. (5)-(7)
    assert k <= he.drv_eps(eps, T, dt) * (1 + 1e-12)
    assert k <= he.naive_eps(eps, T) * (1 + 1e-12)


@FAST
@given(eps=EPS_MOD, T=st.integers(2, 10**6), delta=st.floats(1e-12, 1e-3), dt=st.floats(1e-10, 0.1))
def test_he_minus_kairouz_first_order(eps, T, delta, dt):
    """Kairouz - He = (T - m) delta tanh(eps/2) - delta~ (1-(1-delta)^T) + O(T^2 delta^2): He's claimed gap minus
    a term He's approximation drops (Kairouz multiplies (1-delta)^T by (1-delta~); He adds delta~)."""
    ep = he.he_theorem4_eps(eps, T, dt)
    diff = he.kairouz_delta(delta, T, dt) - he.he_corollary2_delta(eps, delta, T, ep, dt)
    approx = he.he_kairouz_delta_gap(eps, delta, T, ep) - dt * gt.delta_floor(delta, T)
    assert abs(diff - approx) <= 4 * (T * delta) ** 2 + 1e-15


@FAST
@given(eps=st.floats(1e-3, 1.99), delta=st.floats(1e-12, 0.1))
def test_claim_holds_theorem1_vs_nissim_stemmer(eps, delta):
    assert heg.theorem1_a(eps) < heg.nissim_stemmer_a(eps)
    assert heg.theorem1_b(eps, delta) < heg.nissim_stemmer_b(eps, delta)


@FAST
@given(eps=EPS, delta=st.floats(0, 1), k=st.integers(1, 10**6))
def test_claim_holds_theorem2_below_ns_and_corollary1(eps, delta, k):
    t2 = heg.theorem2_bound(eps, delta, k)
    assert t2 <= heg.nissim_stemmer_on_average(eps, delta, k) * (1 + 1e-12)
    assert t2 <= heg.corollary1_bound(eps, delta, k) * (1 + 1e-12)


@settings(deadline=None, max_examples=25)
@given(eps=st.floats(1e-3, 2.0), T=st.integers(1, 3000), delta=st.sampled_from([0.0, 1e-8, 1e-5]),
       dt=st.floats(1e-9, 1e-2))
def test_kairouz_and_drv_are_sound_against_kov(eps, T, delta, dt):
    """KOV 2015 Theorem 3.5 (Kairouz as He quotes) and DRV are theorems: their delta' is never below the exact
    optimal delta at their eps'."""
    for ep, dp in [(he.kairouz_eps(eps, T, dt), he.kairouz_delta(delta, T, dt)),
                   (he.drv_eps(eps, T, dt), he.drv_delta(delta, T, dt))]:
        assert dp >= gt.kov_delta(eps, delta, T, ep) * (1 - 1e-9)


# ---------------------------------------------------------------- claims that fail:
# the code computes the counter-example

def test_claim_fails_corollary2_below_floor():
    eps, delta, T, dt = 0.01, 1e-6, 10_000, 1e-5
    ep = he.he_theorem4_eps(eps, T, dt)
    dp = he.he_corollary2_delta(eps, delta, T, ep, dt)
    floor = gt.delta_floor(delta, T)
    assert dp < floor  # no (eps', delta') with delta' below the floor is valid (KOV 2015 Thm 3.3)
    assert dp < gt.kov_delta(eps, delta, T, ep)


def test_claim_fails_corollary3_pure_dp():
    eps, T, dt = 0.01, 1000, 1e-5
    ep = he.he_corollary3_eps(eps, T, dt)
    assert he.he_corollary3_delta(eps, 0.0, T, ep) < gt.kov_delta(eps, 0.0, T, ep) / 100


def test_claim_fails_theorem2_factor_e_eps():
    eps, delta, k = 2.0, 0.0, 1
    ratio = heg.nissim_stemmer_on_average(eps, delta, k) / heg.theorem2_bound(eps, delta, k)
    assert ratio < math.exp(eps)


def test_claim_fails_theorem1_vs_dwork_a_and_intro_factor():
    assert heg.theorem1_a(0.1) > heg.dwork_generalization_a(0.1)
    assert heg.theorem1_b_intro(0.1, 1e-6) == pytest.approx(2 * heg.theorem1_b(0.1, 1e-6))


def test_claim_fails_he_delta_above_kairouz():
    # m = T: He's delta' = delta + delta~ > 1 - (1-delta)(1-delta~) = delta + delta~ - delta delta~
    assert he.he_corollary2_delta(0.5, 1e-3, 1, 0.5, 1e-3) > he.kairouz_delta(1e-3, 1, 1e-3)
    # m < T too, when delta~ (1-(1-delta)^T) exceeds the claimed gap (found by hypothesis)
    ep = he.he_theorem4_eps(2.0, 106, 0.0625)
    assert he.ceil_ratio(ep, 2.0, 106) < 106
    assert he.he_corollary2_delta(2.0, 1e-3, 106, ep, 0.0625) > he.kairouz_delta(1e-3, 106, 0.0625)
