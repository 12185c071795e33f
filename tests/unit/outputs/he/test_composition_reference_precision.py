"""he-composition-delta's verdicts against the same comparisons in arithmetic of 60
digits beyond the smallest input's size, at points drawn from the whole
of the output's config domain (its schema's edges: delta = 0 or 1e-300, delta~ = 1e-150, eps = 1e-6 or 50,
T = 1 or 10^6; and log-uniform points between). The rows compared are the ones whose comparisons are closest to
rounding: Corollary 2's first-order form (cor2-first-order), the gap to Kairouz et al. (he-gap-first-order,
he-gap-approx-10pct, he-delta-lt-kairouz), equality at m = T (he-delta-eq-kairouz-at-m-eq-T) and the floor
(he-above-floor).

The reference recomputes every quantity from the paper's formulas (He, Tao et al., Corollary 2 and Section 4.2.2;
Theorem 4 for eps'; Kairouz et al. as He quotes them) in mpmath, without the package's functions. A point whose
reference margin is within 64 units in the last place of the values compared (or, for a relative error of a
difference, whose difference is) cannot be decided in double precision. A row must say "does not hold" where some
point is decided to fail, and "holds" where every point is decided to pass."""
import math

import matplotlib.pyplot as plt
import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from adaptive_repro.pipeline import catalogue

ULPS = 64 * 2.0**-52


def _log_uniform(low: float, high: float) -> st.SearchStrategy:
    return st.floats(math.log10(low), math.log10(high)).map(lambda e: float(10.0**e))


EPS = st.one_of(st.sampled_from([1e-6, 0.01, 1.0, 50.0]), _log_uniform(1e-6, 50.0))
DELTA = st.one_of(st.sampled_from([1e-300, 1e-12, 1e-6, 0.3, 1.0 - 1e-16]), _log_uniform(1e-300, 0.5))
T = st.one_of(st.sampled_from([1, 2, 10**6]), _log_uniform(1.0, 1e6).map(lambda t: max(1, round(t))))
DELTA_TILDE = st.one_of(st.sampled_from([1e-150, 1e-5, 0.5]), _log_uniform(1e-150, 0.9))


def _reference_point(eps: float, delta: float, T: int, dt: float) -> dict:
    """Each row's (lhs, rhs, scale) at one point, lhs <= rhs meaning the point passes (None: the row skips it)."""
    e, d, t, dtl = (mpmath.mpf(x) for x in (eps, delta, T, dt))
    head = t * eps_tanh(e)
    sum_sq = t * e**2
    eps_prime = min(t * e, head + mpmath.sqrt(2 * sum_sq * mpmath.log(mpmath.e + mpmath.sqrt(sum_sq) / dtl)),
                    head + mpmath.sqrt(2 * mpmath.log(1 / dtl) * sum_sq))  # He Theorem 4, eqs. (5)-(7)
    m = min(max(mpmath.ceil(eps_prime / e), 0), t)
    big, small = mpmath.e**e * d / (1 + mpmath.e**e), d / (1 + mpmath.e**e)
    he = 1 - (1 - big) ** m * (1 - small) ** (t - m) + 1 - (1 - small) ** t + dtl  # Corollary 2
    approx = (t - m) * 2 * small + m * d + dtl  # Corollary 2, its first-order form
    kairouz = 1 - (1 - d) ** t * (1 - dtl)  # Kairouz et al. as He quotes them (Section 4.2.2)
    floor = 1 - (1 - d) ** t
    gap = d * mpmath.tanh(e / 2) * (t - m)  # the claimed first-order gap (Sections 1 and 4.2.2)
    second = (t * d) ** 2 + dtl * floor
    rows = {"cor2-first-order": (abs(approx - he), (t * d) ** 2, max(approx, he)),
            "he-above-floor": (floor, he, he)}
    if m >= t:
        rows["he-delta-eq-kairouz-at-m-eq-T"] = (abs(he - kairouz), second, max(he, kairouz))
    elif he < 1 and kairouz < 1:
        rows["he-gap-first-order"] = (abs((kairouz - he) - gap), second, max(he, kairouz, gap))
        # the float difference K - He carries up to a few ulp of the larger: that is the band a point is undecided in
        rows["he-gap-approx-10pct"] = (abs((kairouz - he) - gap), gap / 10, max(he, kairouz))
        rows["he-delta-lt-kairouz"] = (he, kairouz, kairouz)
    return rows


def eps_tanh(e):
    return e * (mpmath.e**e - 1) / (mpmath.e**e + 1)


def _reference_statuses(eps: float, delta: float, Ts: list[int], dt: float) -> dict:
    """Per row: (some point decided to fail, every point decided to pass)."""
    points: dict[str, list] = {}
    tiny = min(x for x in (delta, dt, 1.0) if x > 0)
    with mpmath.workdps(60 + 2 * math.ceil(-math.log10(tiny))):  # 1 - delta delta~ next to 1 keeps 60 digits
        for t in Ts:
            for row, (lhs, rhs, scale) in _reference_point(eps, delta, t, dt).items():
                margin = rhs - lhs
                strict = row == "he-delta-lt-kairouz"
                decided = abs(margin) > ULPS * abs(scale) and not (strict and margin == 0)
                points.setdefault(row, []).append(None if not decided else bool(margin > 0 if strict else
                                                                                 margin >= 0))
    return {row: (any(ok is False for ok in oks), all(ok is True for ok in oks)) for row, oks in points.items()}


@pytest.mark.slow
@given(EPS, DELTA, st.lists(T, min_size=2, max_size=2, unique=True), DELTA_TILDE)
@example(0.01, 1e-300, [1, 10**6], 1e-150)  # the case: (T delta)^2 underflows to 0
@example(1.0, 1e-6, [10, 10**4], 1e-5)
@example(1e-6, 1e-16, [10**5, 10**6], 0.1)  # a 10% miss that double precision resolves
@example(0.01, 1e-300, [10**4, 10**6], 1e-5)  # (T delta)^2 underflows beside ordinary points
@settings(max_examples=40, deadline=None)
def test_composition_delta_rows_match_their_verdicts_in_60_digit_arithmetic(eps, delta, Ts, dt):
    Ts = sorted(Ts)
    params = catalogue.default_params("he-composition-delta", {"eps": [eps], "delta": [delta], "T_curve": Ts,
                                                               "delta_tilde": dt, "delta_tilde_sweep": [dt]})
    _, fig, claims = catalogue.build("he-composition-delta", params, {})
    plt.close(fig)
    built = {c.claim_id: c for c in claims}
    for row, (fails, passes) in _reference_statuses(eps, delta, Ts, dt).items():
        status = built[row].status  # (the output's own band of undecided points is narrower than the reference's)
        assert status == "does not hold" or not fails, (row, eps, delta, Ts, dt, built[row].measured)
        assert status == "holds" or not passes, (row, eps, delta, Ts, dt, built[row].measured)
