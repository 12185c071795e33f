"""epsilon_for_delta must return dp_accounting's own eps(delta), bit for bit, on every kind of PLD it is given."""
from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from adaptive_repro import groundtruth as gt
from adaptive_repro import pld_epsilon
from adaptive_repro.pld_epsilon import epsilon_for_delta

DELTAS = (0.0, 1e-15, 1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.3, 0.7, 0.999999, 1.0)


def same(a: float, b: float) -> bool:
    return (math.isinf(a) and math.isinf(b)) or a == b


def assert_library_values(pld) -> None:
    for delta in DELTAS:
        expected, got = pld.get_epsilon_for_delta(delta), epsilon_for_delta(pld, delta)
        assert same(expected, got), (delta, expected, got)


@pytest.mark.parametrize("eps,T,pessimistic", [(0.05, 1000, True), (0.05, 1000, False), (0.5, 100, True),
                                               (0.5, 100, False), (1.0, 1, True), (2.0, 30, True)])
def test_composed_laplace_plds(eps, T, pessimistic):
    assert_library_values(gt.laplace_pld(eps, T, pessimistic=pessimistic))


def test_asymmetric_and_infinite_mass_plds():
    """A PLD with different add and remove PMFs (max of the two) and one with mass at infinity."""
    gauss = pld_lib.from_gaussian_mechanism(1.3, value_discretization_interval=1e-3).self_compose(5)
    laplace = gt.laplace_pld(0.7, 9)
    asymmetric = pld_lib.PrivacyLossDistribution(gauss._pmf_remove, laplace._pmf_remove)
    assert not asymmetric._symmetric
    assert_library_values(asymmetric)
    assert_library_values(pld_lib.PrivacyLossDistribution(laplace._pmf_remove, gauss._pmf_remove))
    assert_library_values(gt.dp_pld(1.0, 1e-4).self_compose(40))


def test_losses_beyond_exp_underflow_take_the_librarys_zero_lower_mass_exit():
    """Losses above ~745 make e^-loss exactly 0: the library returns the loss at which the upper mass reaches delta."""
    probs = np.full(4000, 1.0 / 4000)
    pmf = pld_pmf.DensePLDPmf(0.5, 500, probs, 0.0, True)  # losses 250 .. 2249.5
    assert_library_values(pld_lib.PrivacyLossDistribution(pmf))


def test_several_chunks(monkeypatch):
    """Walks that cross chunk boundaries give the same value as one long chunk."""
    monkeypatch.setattr(pld_epsilon, "CHUNK", 7)
    assert_library_values(gt.laplace_pld(0.3, 20))


def test_sparse_pmfs_go_to_the_library():
    pld = pld_lib.from_randomized_response(0.1, 2)
    assert isinstance(pld._pmf_remove, pld_pmf.SparsePLDPmf)
    assert_library_values(pld)
