"""The chain functions refuse what is not a transition matrix (and, where a unique stationary law is needed, a
reducible one) with a ValueError naming the function, instead of returning a number for it."""
import numpy as np
import pytest

from adaptive_repro.privacy import influence
from adaptive_repro.simulation.data_models import sample_symmetric_chain

NOT_STOCHASTIC = {"negative entries": [[1.5, -0.5], [0.5, 0.5]], "rows not summing to 1": [[0.5, 0.4], [0.5, 0.5]],
                  "not square": [[0.5, 0.5]], "nan": [[np.nan, 1.0], [0.5, 0.5]], "empty": np.zeros((0, 0))}


@pytest.mark.parametrize("function", ["stationary_distribution", "spectral_gap", "is_reversible"])
@pytest.mark.parametrize("what", list(NOT_STOCHASTIC))
def test_a_matrix_that_is_not_stochastic_is_refused(function, what):
    with pytest.raises(ValueError, match=f"{function}: P must be a square transition matrix"):
        getattr(influence, function)(NOT_STOCHASTIC[what])


def test_a_reducible_chain_has_no_unique_stationary_law():
    with pytest.raises(ValueError, match="stationary_distribution: P must be irreducible"):
        influence.stationary_distribution(np.eye(2))
    with pytest.raises(ValueError, match="is_reversible: P must be irreducible"):
        influence.is_reversible(np.eye(2))
    assert influence.is_reversible(np.eye(2), pi=np.array([0.5, 0.5]))  # with pi given, detailed balance is defined
    assert influence.spectral_gap(np.eye(2)) == 0.0  # a second eigenvalue 1: no gap, a true answer


def test_valid_chains_keep_their_values():
    P = np.array([[0.9, 0.1], [0.2, 0.8]])
    np.testing.assert_allclose(influence.stationary_distribution(P), [2 / 3, 1 / 3], rtol=1e-12)
    assert influence.spectral_gap(P) == pytest.approx(1 - 0.7, rel=1e-12)  # eigenvalues 1 and 0.9 + 0.8 - 1
    assert influence.is_reversible(P)  # every two-state chain is


@pytest.mark.parametrize("rng, n, p, message", [(None, 5, 0.5, "argument rng = None is not allowed"),
                                                (np.random.default_rng(0), 10**18, 0.5, "argument n = 10+ is not"),
                                                (np.random.default_rng(0), 0, 0.5, "argument n = 0"),
                                                (np.random.default_rng(0), 2.5, 0.5, "argument n = 2.5"),
                                                (np.random.default_rng(0), 5, 1.5, "argument p_stay = 1.5")])
def test_sample_symmetric_chain_names_a_bad_argument(rng, n, p, message):
    with pytest.raises(ValueError, match=f"sample_symmetric_chain: {message}"):
        sample_symmetric_chain(rng, n, p)
