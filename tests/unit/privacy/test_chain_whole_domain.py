"""The privacy functions that take a chain (a transition matrix) or a joint law, called with matrices drawn from the
whole of their domain and just outside it (entries 0, 1, subnormal, 1e-300, 1 - 1e-16; rows summing to 1 within and
beyond the stated tolerance; 1 to 4 states; negative entries and nan), either return numbers that are right or raise
one ValueError that names the function: no error from deep inside, no silent wrong number.

"Right" is checked against properties the answer must have: a stationary law sums to 1, is non-negative and is
and agrees entry by entry (relative 1e-9) with an exact rational solve of pi P = pi; a spectral
gap lies in [0, 1] and agrees with the 50-digit eigenvalues; a joint law sums to 1; a DP or BDP level is >= 0."""
import math
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from adaptive_repro.privacy import enumeration, influence, lemmas

#: Entries a row is built from before it is normalised: the domain's edges and ordinary values.
EDGE_WEIGHTS = [0.0, 5e-324, 1e-300, 1e-16, 1e-9, 0.5, 1.0 - 1e-16, 1.0]
weights = st.one_of(st.sampled_from(EDGE_WEIGHTS), st.floats(0.0, 1.0))


@st.composite
def transition_matrices(draw) -> np.ndarray:
    """A stochastic matrix (rows normalised in floating point, so within the tolerance), or with one defect."""
    size = draw(st.integers(1, 4))
    rows = []
    for _ in range(size):
        row = np.array(draw(st.lists(weights, min_size=size, max_size=size)))
        if row.sum() == 0:
            row[draw(st.integers(0, size - 1))] = 1.0
        rows.append(row / row.sum())
    P = np.array(rows)
    defect = draw(st.sampled_from(["none", "none", "none", "sum", "negative", "nan"]))
    r, c = draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))
    if defect == "sum":
        P[r] = P[r] * (1 + draw(st.sampled_from([1e-12, -1e-12, 1e-6, -1e-6, 0.5])))
    elif defect == "negative":
        P[r, c] = -draw(st.sampled_from([5e-324, 1e-3, 1.0]))
    elif defect == "nan":
        P[r, c] = math.nan
    return P


def _reference_stationary(P: np.ndarray) -> list:
    """pi with pi P = pi and sum(pi) = 1, in exact rational arithmetic from P's float entries (the chain whose
    off-diagonal entries are P's, each diagonal entry the exact remainder of its row), by Gauss-Jordan elimination."""
    S = P.shape[0]
    Q = [[Fraction(float(x)) for x in row] for row in P]
    for i in range(S):
        Q[i][i] = 1 - sum(Q[i][j] for j in range(S) if j != i)
    # rows of the system: (P^T - I) pi = 0 for all but the last state, and sum(pi) = 1
    A = [[Q[j][i] - (1 if i == j else 0) for j in range(S)] + [Fraction(0)] for i in range(S - 1)]
    A.append([Fraction(1)] * S + [Fraction(1)])
    for col in range(S):
        pivot = next(r for r in range(col, S) if A[r][col] != 0)
        A[col], A[pivot] = A[pivot], A[col]
        A[col] = [x / A[col][col] for x in A[col]]
        for r in range(S):
            if r != col and A[r][col] != 0:
                A[r] = [x - A[r][col] * y for x, y in zip(A[r], A[col])]
    return [float(A[i][S]) for i in range(S)]


def _call(name: str, function, *args):
    """The function's result, or None after checking that a ValueError names it (every warning an error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return function(*args)
        except ValueError as err:
            assert str(err).startswith(name), f"{name}: a ValueError that does not name the function: {err}"
            return None


def _chain(off_diagonal: dict) -> np.ndarray:
    """A transition matrix from its off-diagonal entries {(i, j): p}, each diagonal entry the rest of its row."""
    S = 1 + max(max(ij) for ij in off_diagonal)
    P = np.zeros((S, S))
    for (i, j), p in off_diagonal.items():
        P[i, j] = p
    return P + np.diag(1 - P.sum(axis=1))


#: Chains whose elimination leaves the normal range of a double (products of 1e-200 and 1e-300 entries), where an
#: elimination in doubles alone puts the mass on the wrong state, returns nan or zeroes a 2e-27 entry.
UNDERFLOWING = [_chain({(0, 1): 1e-200, (1, 0): 0.5, (1, 2): 1e-200, (2, 1): 1e-300, (2, 3): 1e-50, (3, 2): 1e-300}),
                _chain({(0, 2): 1e-250, (1, 3): 1e-250, (2, 0): 1e-100, (3, 1): 1e-100, (2, 3): 1e-200,
                        (3, 2): 1e-200}),
                _chain({(0, 1): 5e-324, (0, 2): 1e-250, (1, 3): 1e-250, (2, 0): 1e-100, (3, 1): 1e-100,
                        (2, 3): 1e-200, (3, 2): 1e-200})]


@pytest.mark.slow
@given(transition_matrices())
@example(UNDERFLOWING[0])
@example(UNDERFLOWING[1])
@example(UNDERFLOWING[2])
@settings(max_examples=300, deadline=None)
def test_a_stationary_law_is_refused_or_right(P):
    pi = _call("stationary_distribution", influence.stationary_distribution, P)
    if pi is None:
        return
    assert np.all(np.isfinite(pi)) and pi.min() >= 0 and abs(pi.sum() - 1) <= 1e-12, pi
    reference = np.array(_reference_stationary(P))
    normal = reference >= np.finfo(float).tiny  # a true entry below the normal range rounds to a subnormal or 0
    np.testing.assert_allclose(pi[normal], reference[normal], rtol=1e-9, atol=0, err_msg=f"P = {P.tolist()}")
    assert np.all(pi[~normal] <= np.finfo(float).tiny), (P.tolist(), pi, reference)


def _reference_gap(P: np.ndarray) -> float:
    with mpmath.workdps(50):
        values = mpmath.eig(mpmath.matrix(P.tolist()), left=False, right=False)
        moduli = sorted((abs(v) for v in values), reverse=True)
        return float(1 - moduli[1]) if len(moduli) > 1 else 1.0


@pytest.mark.slow
@given(transition_matrices())
@settings(max_examples=300, deadline=None)
def test_a_spectral_gap_is_refused_or_right(P):
    gap = _call("spectral_gap", influence.spectral_gap, P)
    if gap is None:
        return
    assert 0.0 <= gap <= 1.0, gap
    assert gap == pytest.approx(_reference_gap(P), abs=1e-9), P.tolist()


@pytest.mark.slow
@given(transition_matrices())
@settings(max_examples=150, deadline=None)
def test_reversibility_and_the_chain_joint_are_refused_or_consistent(P):
    reversible = _call("is_reversible", influence.is_reversible, P)
    if reversible is None:
        return
    pi = influence.stationary_distribution(P)
    joint = _call("chain_joint", influence.chain_joint, P, pi, 3)
    assert joint is not None and abs(joint.sum() - 1) <= 1e-9
    if reversible:  # detailed balance: the law of (X_1, X_2) is symmetric
        pair = joint.sum(axis=2)
        np.testing.assert_allclose(pair, pair.T, atol=1e-12)


CONVERSIONS = [("lemma2_eps_dp", lemmas.lemma2_eps_dp), ("lemma3_eps_dp", lemmas.lemma3_eps_dp),
               ("lemma4_eps_dp", lemmas.lemma4_eps_dp)]


@pytest.mark.slow
@pytest.mark.parametrize("name, convert", CONVERSIONS)
@given(P=transition_matrices())
@settings(max_examples=60, deadline=None)
def test_a_chain_conversion_is_refused_or_a_level_in_range(name, convert, P):
    """Lemmas 2-4 turn eps-BDP into an eps'-DP level, 0 < eps' <= eps, or say the conversion is infeasible."""
    result = _call(name, convert, 1.0, 6, P)
    if result is None or not result.feasible:
        return
    assert 0.0 < result.eps_dp <= 1.0 + 1e-12, (P.tolist(), result)


@pytest.mark.slow
@given(st.integers(1, 5), st.sampled_from([0.0, 5e-324, 1e-300, 0.3, 1.0 - 1e-16, 1.0]),
       st.sampled_from([0.0, 1e-300, 0.5, 1.0]), st.sampled_from([0.0, 1e-300, 0.7, 30.0, 800.0]),
       st.sampled_from([0.0, 1e-300, 0.1, 1.0 - 1e-16]))
@settings(max_examples=150, deadline=None)
def test_enumerated_leakages_are_refused_or_levels(n, flip, p_first, eps, beta):
    joint = _call("markov_joint", enumeration.markov_joint, n, flip, p_first)
    kernel = _call("randomized_response_kernel", enumeration.randomized_response_kernel, n, eps)
    assert joint is not None and abs(joint.sum() - 1) <= 1e-9
    if kernel is None:  # n eps too large for the kernel's entries: refused, naming the function
        return
    for name in ("bdp_leakage", "doob_increments"):
        values = _call(name, getattr(enumeration, name), joint, kernel)
        assert values is None or all(v >= 0 for v in np.atleast_1d(values)), (name, values)
    level = _call("dp_level", enumeration.dp_level, kernel)
    assert level is None or level >= 0
    bits = _call("max_information_bits", enumeration.max_information_bits, joint, kernel, beta)
    assert bits is None or not math.isnan(bits)


@pytest.mark.parametrize("call, name", [
    (lambda: influence.symmetric_chain_matrix(1.5), "symmetric_chain_matrix"),
    (lambda: influence.data_model_matrix(0.5, 0.0), "data_model_matrix"),
    (lambda: enumeration.databases(17), "databases"),
    (lambda: influence.ChainInfluence([[0.5, 0.4], [0.5, 0.5]]), "ChainInfluence"),
    (lambda: influence.max_influence_bruteforce(np.full((2, 2), 0.25), [0], 0), "max_influence_bruteforce"),
])
def test_the_remaining_entry_points_name_themselves(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()
