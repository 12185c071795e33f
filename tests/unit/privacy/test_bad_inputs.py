"""The privacy and data-model library refuses what it cannot compute with: a matrix that is not a transition matrix,
a joint that is not a distribution, a node outside the graph, a generator that is not one, a size no machine holds.
Each gives one ValueError naming the function (no silent number, no error from deep inside numpy or networkx)."""
import numpy as np
import pytest

from adaptive_repro.privacy import enumeration, graphs, influence, lemmas, quilts
from adaptive_repro.simulation import data_models
from adaptive_repro.simulation.models import households, regimes

CHAIN = np.array([[0.9, 0.1], [0.2, 0.8]])
NOT_STOCHASTIC = np.array([[1.5, -0.5], [0.5, 0.5]])
RNG = np.random.default_rng(0)

CASES = {
    "chain_joint": [lambda: influence.chain_joint(NOT_STOCHASTIC, np.array([0.5, 0.5]), 3),
                    lambda: influence.chain_joint(CHAIN, np.array([0.7, 0.7]), 3),
                    lambda: influence.chain_joint(CHAIN, np.array([2 / 3, 1 / 3]), 0),
                    lambda: influence.chain_joint(CHAIN, np.array([2 / 3, 1 / 3]), 60)],
    "is_reversible": [lambda: influence.is_reversible(CHAIN, tol=-1.0)],
    "markov_joint": [lambda: enumeration.markov_joint(3, 1.5, 0.5), lambda: enumeration.markov_joint(3, 0.1, np.nan)],
    "randomized_response_kernel": [lambda: enumeration.randomized_response_kernel(2, -1.0),
                                   lambda: enumeration.randomized_response_kernel(2, np.nan)],
    "dp_level": [lambda: enumeration.dp_level(-np.ones((4, 4)))],
    "bdp_leakage": [lambda: enumeration.bdp_leakage(np.full(4, 0.5), enumeration.randomized_response_kernel(2, 1.0))],
    "doob_increments": [lambda: enumeration.doob_increments(np.full(4, 0.25), np.ones((4, 2)))],
    "max_information_bits": [lambda: enumeration.max_information_bits(np.full(8, 0.25), np.eye(8), 0.1)],
    "lemma2_general": [lambda: lemmas.lemma2_general(1.0, -influence.chain_joint(CHAIN, np.array([2 / 3, 1 / 3]), 3),
                                                     graphs.markov_chain_graph(3))],
    "markov_blanket": [lambda: graphs.markov_blanket(graphs.markov_chain_graph(3), 7)],
    "enumerate_quilts": [lambda: quilts.enumerate_quilts(graphs.markov_chain_graph(3), 7)],
    "quilt_from_set": [lambda: quilts.quilt_from_set(graphs.markov_chain_graph(3), 7, {1})],
    "sample_n_plus": [lambda: data_models.sample_n_plus(None, 10, 0.9)],
    "sample_symmetric_chain": [lambda: data_models.sample_symmetric_chain(RNG, 10**18, 0.9)],
    "sample_regimes": [lambda: regimes.sample_regimes(None, 10, 3, 0.9),
                       lambda: regimes.sample_regimes(RNG, 10**18, 3, 0.9)],
    "sample_occupation": [lambda: regimes.sample_occupation("seed", 10, 3, 0.9),
                          lambda: regimes.sample_occupation(RNG, 10**18, 3, 0.9)],
    "sticky_matrix": [lambda: regimes.sticky_matrix(10**6, 0.9)],
    "household_sizes": [lambda: households.household_sizes(10**18, 2)],
}


@pytest.mark.parametrize("function,call", [(f, c) for f, calls in CASES.items() for c in calls],
                         ids=[f"{f}-{i}" for f, calls in CASES.items() for i in range(len(calls))])
def test_a_bad_input_is_one_value_error_naming_the_function(function, call):
    with pytest.raises(ValueError, match=rf"^{function}\b"):
        call()


def test_good_inputs_still_compute():
    """The checks refuse only what is wrong: the valid calls beside the bad ones give their numbers."""
    joint = influence.chain_joint(CHAIN, influence.stationary_distribution(CHAIN), 3)
    assert joint.shape == (2, 2, 2) and joint.sum() == pytest.approx(1.0)
    kernel = enumeration.randomized_response_kernel(2, 1.0)
    assert enumeration.dp_level(kernel) == pytest.approx(1.0)
    assert enumeration.bdp_leakage(np.full(4, 0.25), kernel) == pytest.approx(1.0)
    assert graphs.markov_blanket(graphs.markov_chain_graph(3), 1) == {0, 2}
    assert regimes.sticky_matrix(3, 0.9).sum(axis=1) == pytest.approx(np.ones(3))
