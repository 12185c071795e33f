"""Closed-form bounds of Zhao 2017 (Theorems 1-3) and the Dwork et al. comparisons."""
import numpy as np
import pytest

from adaptive_repro.bounds import zhao


def test_lemma1_kept():
    assert zhao.lemma1_tail_bound(0.3, 900) == pytest.approx(4 * np.exp(-9))


def test_theorem1():
    # n_* = max{9 ln(4/beta)/tau^2, 9B/(4 sigma (tau/3 - 4a))}
    assert zhao.theorem1_n_star(1, 1.0, 0.3, 0.05, 0.0) == pytest.approx(9 * np.log(80) / 0.09)
    assert zhao.theorem1_n_star(10, 1e-4, 0.3, 0.05, 0.01) == pytest.approx(9 * 10 / (4e-4 * (0.1 - 0.04)))
    assert np.isinf(zhao.theorem1_n_star(10, 1e-4, 0.3, 0.05, 0.1))
    assert zhao.theorem1_n_sharp(10, 1e-4, 0.3, 0.05, 0.1) == pytest.approx(9 * 10 / (4e-4 * 0.1))
    assert np.isinf(zhao.theorem1_n_sharp(10, 1e-4, 0.3, 0.05, None))
    # independent records: a = 0 and eps' = tau/3 give the same n
    assert zhao.theorem1_n_star(5, 1e-3, 0.2, 0.1, 0.0) == pytest.approx(
        zhao.theorem1_n_sharp(5, 1e-3, 0.2, 0.1, 0.2 / 3))


def test_theorem2_parameters():
    tau, m, beta, c = 0.1, 100, 0.05, 0.5
    assert zhao.theorem2_sigma(tau, m, beta, c) == pytest.approx(0.05 / (12 * np.log(8000)))
    assert zhao.theorem2_threshold(tau, c) == pytest.approx(0.075)
    eps = zhao.theorem2_bdp_target(tau, c)
    assert eps == pytest.approx(0.5 * 0.1 / 12)
    n = zhao.theorem2_n_required(10, tau, m, beta, c, eps)
    sigma = zhao.theorem2_sigma(tau, m, beta, c)
    assert n == pytest.approx(max(9 * np.log(4 / (beta / (2 * m))) / (0.025**2), 9 * 10 / (4 * sigma * eps)))


def test_theorem3_vs_dwork():
    eps, n, beta = 0.1, 1000, 0.05
    assert zhao.theorem3_maxinfo_bound(eps, n, beta) == pytest.approx(
        (2 * eps**2 * n + eps * np.sqrt(2 * n * np.log(2 / beta))) * np.log2(np.e))
    assert zhao.dwork_maxinfo_bound(eps, n) == pytest.approx(eps * n / np.log(2))
    e = np.linspace(0.01, 1.0, 50)[:, None]
    nn = np.array([10, 100, 1000, 10_000])[None, :]
    tighter = zhao.theorem3_maxinfo_bound(e, nn, beta) < zhao.dwork_maxinfo_bound(e, nn)
    assert np.array_equal(tighter, zhao.theorem3_tighter_region(e, nn, beta))
    assert not zhao.theorem3_tighter_region(0.5, 10**9, beta)


def test_sample_complexity_orders():
    tau = np.array([0.1, 0.01])
    ratio = zhao.zhao_markov_sample_complexity(1, tau, 100, 0.05) / zhao.dwork_iid_sample_complexity(1, tau, 100, 0.05)
    assert ratio == pytest.approx(np.log(1 / tau))
