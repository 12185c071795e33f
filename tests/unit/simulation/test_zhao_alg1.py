"""Zhao 2017 Algorithm 1 (mechanisms.ZhaoAlgorithm1) and its calibrations.

Statistical assertions run at level 1e-6 each (seeded, so reproducible); the file's false-failure rate is < 1e-5.
"""
import numpy as np
import pytest
from scipy import stats

from adaptive_repro.pipeline.validation import config_schema, fill_schema_defaults
from adaptive_repro.simulation import zhao_calibration
from adaptive_repro.simulation.data_models import BatchChain
from adaptive_repro.simulation.mechanisms.algorithm1 import ZhaoAlgorithm1
from adaptive_repro.simulation.registries import CALIBRATIONS

ALPHA = 1e-6


def alg(seed=0, sigma=0.01, threshold=0.1, budget=5):
    return ZhaoAlgorithm1(np.random.default_rng(seed), sigma=sigma, threshold=threshold, budget=budget)


def test_noise_scales_follow_line_1():
    mech = alg(sigma=0.02)
    assert mech.sigma_2 == pytest.approx(0.08) and mech.sigma_3 == pytest.approx(0.04)


def test_close_queries_return_the_training_value_and_spend_nothing():
    mech = alg(sigma=1e-4, threshold=0.5)
    q_train = np.linspace(0.2, 0.8, 1000)
    out = mech.answer_queries(q_train, q_train + 0.01)
    np.testing.assert_array_equal(out, q_train)
    assert mech.remaining == 5 and mech.over_events == 0


def test_budget_is_spent_then_bottom():
    mech = alg(sigma=1e-4, threshold=0.1, budget=3)
    q_train, q_hold = np.zeros(10), np.ones(10)  # gap 1 >> T: every query is over the threshold
    out = mech.answer_queries(q_train, q_hold)
    assert mech.over_events == 3 and mech.remaining == 0
    assert np.all(np.abs(out[:3] - 1) < 0.01)  # Q(X) + Lap(4 sigma)
    assert np.all(np.isnan(out[3:])) and mech.bottoms == 7
    assert np.isnan(mech.answer_accuracy(0.0, 1.0))  # later queries too (line 3: B < 1)


def test_over_threshold_answers_are_holdout_plus_laplace_4sigma():
    sigma = 0.01
    mech = alg(seed=1, sigma=sigma, threshold=0.0, budget=10**6)
    m = 20_000
    out = mech.answer_queries(np.zeros(m), np.full(m, 0.5))
    assert mech.over_events == m
    assert stats.kstest((out - 0.5) / (4 * sigma), "laplace").pvalue > ALPHA


def test_threshold_is_refreshed_only_after_an_over_event():
    mech = alg(seed=2, sigma=0.01, threshold=0.1, budget=100)
    first = mech.threshold_hat
    mech.answer_queries(np.zeros(50), np.zeros(50) + 1e-3)  # far below T: no over events
    assert mech.threshold_hat == first
    mech.answer_queries(np.zeros(1), np.ones(1))  # over: line 8 redraws T_hat
    assert mech.threshold_hat != first and mech.over_events == 1


def test_over_probability_at_the_threshold_is_one_half():
    """|Q(X) - Q(D)| = T: over iff gamma > Lap(sigma) refresh noise; symmetric, so probability 1/2."""
    m, overs = 20_000, 0
    for seed in range(m):
        mech = alg(seed=seed + 10, sigma=0.01, threshold=0.1, budget=1)
        mech.answer_queries(np.zeros(1), np.full(1, 0.1))
        overs += mech.over_events
    assert stats.binomtest(overs, m, 0.5).pvalue > ALPHA


def calibrate(arm: str, n: int, d: int, k_grid, p_s: float, p_y: float, block: dict):
    """The registered calibration of ``arm`` on the batch chain (p_s, p_y), with the schema's alg1 defaults."""
    schema = config_schema()
    settings = zhao_calibration.Alg1Settings.from_block(
        fill_schema_defaults(block["alg1"], schema["$defs"]["alg1"], root=schema))
    return CALIBRATIONS.get(arm.removeprefix("zhao_alg1_")).calibrate(settings, n, d, k_grid,
                                                                      BatchChain(p_s=p_s, p_y=p_y))


def test_calibrations():
    block = {"alg1": {"tau": 0.1, "beta": 0.05, "c": 0.5, "budget": 10, "epsilon": 0.7}}
    dp = calibrate("zhao_alg1_dp", 1000, 100, [0, 5], 0.5, 0.5, block)
    # eps* = 9 B Delta_Q / (4 sigma) equals the session's eps (Zhao 2017 §3)
    assert zhao_calibration.eps_star(10, dp.sigma, 1000) == pytest.approx(0.7)
    assert dp.sigma == pytest.approx(9 * 10 / (4 * 1000 * 0.7))
    assert dp.threshold == pytest.approx(3 / np.sqrt(1000))  # default 6 units of 1/(2 sqrt(n))
    t2 = calibrate("zhao_alg1_theorem2", 1000, 100, [0, 5], 0.5, 0.5, block)
    assert t2.sigma == pytest.approx(0.5 * 0.1 / (12 * np.log(4 * 101 / 0.05)))  # m = 100 + 1 queries
    assert t2.threshold == pytest.approx(0.075)
    bdp = calibrate("zhao_alg1_bdp", 1000, 100, [0, 5], 0.9, 0.9, block)
    assert bdp.sigma > dp.sigma  # correlated records need more noise for the same (Bayesian) level
    infeasible = calibrate("zhao_alg1_bdp", 1000, 100, [0, 5], 0.9, 0.9,
                                            {"alg1": block["alg1"] | {"bdp_method": "lemma3"}})
    assert not infeasible.feasible and np.isnan(infeasible.sigma)


def test_bdp_calibration_uses_lemma2_exact_quilts_eps_prime():
    """sigma = 9B/(4 n eps') with eps' from privacy.dp_level_for_bdp (Lemma 2); at p = 0.5 (independent records)
    Lemma 2's best quilt is empty for every node, so eps' = eps exactly and bdp = dp."""
    block = {"alg1": {"budget": 20, "epsilon": 1.0}}
    bdp = calibrate("zhao_alg1_bdp", 10_000, 100, [0, 5], 0.5, 0.5, block)
    dp = calibrate("zhao_alg1_dp", 10_000, 100, [0, 5], 0.5, 0.5, block)
    assert bdp.sigma == pytest.approx(dp.sigma) == pytest.approx(9 * 20 / (4 * 10_000 * 1.0))
    strong = calibrate("zhao_alg1_bdp", 10_000, 100, [0, 5], 0.9, 0.9, block)
    assert strong.eps_dp_used < 0.1 and strong.sigma == pytest.approx(9 * 20 / (4 * 10_000 * strong.eps_dp_used))
