"""he-kl's verdicts against the same comparisons in arithmetic of 60 digits beyond the cancellations, at grids drawn
from the whole of the output's config domain (eps from the schema's floor 1e-150 to its ceiling 50, grids of 2 to 11
points). The reference takes each eps of the built table and recomputes every quantity from the formulas (He, Tao et
al., Lemma 5 and Section 4.2.1: Lemma 5's eps tanh(eps/2), Dwork-Rothblum's (1/2) eps (e^eps - 1), Dwork et al.'s
eps (e^eps - 1); the exact KL of randomized response, eps tanh(eps/2), and of the Laplace mechanism,
eps + e^-eps - 1) in mpmath (60 digits plus twice -log10 eps, the digits eps + e^-eps - 1 cancels), without the
package's functions. A row must say "does not hold" exactly where some eps fails in that arithmetic, and "holds" where
every eps passes; a point within 1e-12 of its bound (relative) is not decided in double precision and not counted."""
import math

import matplotlib.pyplot as plt
import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from adaptive_repro.outputs.he.kl import CONSIDERABLY
from adaptive_repro.pipeline import catalogue

UNDECIDED = mpmath.mpf("1e-12")


def _rows(eps: float) -> dict:
    """Each row's (lhs, rhs) at one eps, lhs <= rhs meaning the point passes; equalities as two-sided margins."""
    e = mpmath.mpf(eps)
    lemma5 = e * mpmath.tanh(e / 2)
    dwork_rothblum = e * mpmath.expm1(e) / 2
    dwork_et_al = e * mpmath.expm1(e)
    randomized_response = e * mpmath.tanh(e / 2)
    laplace = e + mpmath.expm1(-e)
    return {"lemma5-le-dwork-rothblum": (lemma5 / dwork_rothblum, 1),
            "dwork-rothblum-le-dwork": (dwork_rothblum / dwork_et_al, 1),
            "dr-factor": (abs(dwork_rothblum / lemma5 / ((1 + mpmath.e**e) / 2) - 1), 0),
            "lemma5-valid-rr": (randomized_response / lemma5, 1),
            "lemma5-valid-laplace": (laplace / lemma5, 1),
            "considerably-looser": (CONSIDERABLY, min(dwork_rothblum, dwork_et_al) / lemma5)}


def _reference(eps_values) -> dict:
    """Per row: (some eps decided to fail, every eps decided to pass)."""
    oks: dict[str, list] = {}
    for eps in eps_values:
        with mpmath.workdps(60 + 2 * max(0, math.ceil(-math.log10(eps)))):  # e + expm1(-e) cancels 2 log10(1/e)
            for row, (lhs, rhs) in _rows(float(eps)).items():
                margin = rhs - lhs
                ok = None if 0 < abs(margin) <= UNDECIDED * max(abs(rhs), 1) else bool(margin >= 0)
                oks.setdefault(row, []).append(ok)
    return {row: (any(o is False for o in v), all(o is True for o in v)) for row, v in oks.items()}


def _log_uniform(low: float, high: float) -> st.SearchStrategy:
    return st.floats(math.log10(low), math.log10(high)).map(lambda e: float(10.0**e))


EPS = st.one_of(st.sampled_from([1e-150, 1e-8, 0.18232, 1.0, 50.0]), _log_uniform(1e-150, 50.0))


@pytest.mark.slow
@given(st.lists(EPS, min_size=2, max_size=2, unique=True), st.sampled_from([2, 3, 11]))
@example([1e-150, 50.0], 11)
@example([0.001, 10.0], 11)
@settings(max_examples=40, deadline=None)
def test_kl_rows_match_their_verdicts_in_60_digit_arithmetic(ends, points):
    eps_min, eps_max = sorted(ends)
    params = catalogue.default_params("he-kl", {"eps_min": eps_min, "eps_max": eps_max, "points": points})
    table, fig, claims = catalogue.build("he-kl", params, {})
    plt.close(fig)
    built = {c.claim_id: c for c in claims}
    for row, (fails, passes) in _reference(sorted(set(table["eps"]))).items():
        status = built[row].status
        assert (status == "does not hold") == fails, (row, eps_min, eps_max, points, built[row].measured)
        assert status == "holds" or not passes, (row, eps_min, eps_max, points, built[row].measured)
