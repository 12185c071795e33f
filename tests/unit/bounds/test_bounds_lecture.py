"""Bounds of the Lecture 18 notes (adaptive_repro.bounds.lecture): known values, monotonicity, and Theorem 0.1
checked exactly against the exponential mechanism's distribution."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_repro.bounds import lecture as B
from adaptive_repro.simulation import lecture_mechanisms as sim

probs = st.floats(0.0, 1.0)
pos = st.floats(1e-3, 10.0)


def test_transfer_bound_known_values():
    # eps = 1/8, m = 768 = 12/eps^2 (smallest m in range): exp(-1.5) dominates 4 delta/eps = 0.032
    assert B.transfer_bound(0.125, 1e-3, 768) == pytest.approx(np.exp(-1.5))
    assert B.transfer_bound(0.125, 1e-3, 1e6) == pytest.approx(0.032)
    assert B.transfer_threshold(0.125) == pytest.approx(0.75)
    np.testing.assert_allclose(B.transfer_bound([0.125, 0.0625], 1e-3, 16000), [0.032, 0.064])


def test_transfer_conditions():
    assert B.transfer_conditions(0.125, 1e-3, 768)
    assert not B.transfer_conditions(0.125, 1e-3, 767)  # eps < sqrt(12/m)
    assert not B.transfer_conditions(0.2, 1e-3, 10**6)  # eps > 1/8
    assert not B.transfer_conditions(0.125, 0.125 / 16 * 1.01, 10**6)  # delta > eps/16
    np.testing.assert_array_equal(B.transfer_conditions(0.0625, 1e-3, [1000, 4000]), [False, True])


@given(pos, st.floats(0, 0.05), st.integers(2, 10**6), st.integers(2, 10**6))
def test_transfer_bound_decreases_in_m(eps, delta, m1, m2):
    lo, hi = sorted((m1, m2))
    assert B.transfer_bound(eps, delta, hi) <= B.transfer_bound(eps, delta, lo)


def test_exponential_mechanism_gap_known_value():
    # 2 Delta/eps (ln|Y| + ln 1/beta) with Delta = 1, eps = 2, |Y| = e, beta = 1/e: 1 * (1 + 1)
    assert B.exponential_mechanism_gap(1.0, 2.0, np.e, 1 / np.e) == pytest.approx(2.0)
    assert B.exponential_mechanism_expected_loss(1.0, 2.0, np.e) == pytest.approx(2.0)


@given(pos, pos, st.integers(1, 1000), st.floats(1e-6, 0.999))
def test_exponential_mechanism_tail_inverts_gap(delta_s, eps, n, beta):
    gap = B.exponential_mechanism_gap(delta_s, eps, n, beta)
    assert B.exponential_mechanism_tail(delta_s, eps, n, gap) == pytest.approx(min(1.0, beta), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.floats(0.01, 5.0), st.integers(10, 5000),
       st.floats(1e-4, 0.99))
def test_theorem_0_1_holds_exactly(scores, eps, m, beta):
    """Theorem 0.1 on the exact output distribution: Pr[f <= OPT - gap] <= beta, and E[OPT - f] <= the integrated
    bound."""
    scores = np.array(scores)
    p = sim.exponential_mechanism_probabilities(scores, eps, 1.0 / m)
    gap = B.exponential_mechanism_gap(1.0 / m, eps, len(scores), beta)
    fail = p[scores <= scores.max() - gap].sum()
    assert fail <= beta + 1e-12
    assert p @ (scores.max() - scores) <= B.exponential_mechanism_expected_loss(1.0 / m, eps, len(scores)) + 1e-12


def test_claim03_known_values():
    assert B.claim03_lower_bound(1.0, 0.5, 1) == pytest.approx(0.5)
    assert B.claim03_lower_bound(1.0, 0.5, 2) == pytest.approx(0.75)
    assert B.claim03_lower_bound(0.75, 0.0, 1000) == 0.0
    # the proof's choice T = floor(1/p) with p <= 1/4 gives at least alpha/2
    for p in (0.25, 0.1, 0.01, 0.001):
        assert B.claim03_lower_bound(1.0, p, np.floor(1 / p)) >= 0.5


@given(st.floats(0, 1), probs, probs, st.integers(1, 10**4), st.integers(1, 10**4))
def test_claim03_monotone(alpha, p1, p2, T1, T2):
    pl, ph = sorted((p1, p2))
    Tl, Th = sorted((T1, T2))
    assert B.claim03_lower_bound(alpha, pl, Tl) <= B.claim03_lower_bound(alpha, ph, Tl) + 1e-15
    assert B.claim03_lower_bound(alpha, pl, Tl) <= B.claim03_lower_bound(alpha, pl, Th) + 1e-15
    assert 0.0 <= B.claim03_lower_bound(alpha, pl, Tl) <= alpha


def test_lemma04_known_values():
    assert B.lemma04_upper_bound(0.0, 0.0, 5) == 0.0
    assert B.lemma04_upper_bound(np.log(2), 0.1, 3) == pytest.approx(1.3)
    assert B.lemma04_upper_bound(0.25, 1e-3, 1000) == pytest.approx(np.expm1(0.25) + 1.0)


@given(st.floats(0, 1), probs, st.integers(1, 10**4), pos, st.integers(2, 10**5))
def test_monitor_lower_bounds_order(alpha, p, T, eps, m):
    notes = B.monitor_lower_bound_notes(alpha, p, T, eps, m)
    rigorous = B.monitor_lower_bound(alpha, p, T, eps, m)
    assert rigorous <= notes <= B.claim03_lower_bound(alpha, p, T) + 1e-15
    if T == 1:
        assert notes == pytest.approx(float(B.claim03_lower_bound(alpha, p, T)))
