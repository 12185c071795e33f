"""The dwork_code Thresholdout (docs/METHODS.md §3 step 4): statistical tests with stated false-failure rates.

Each statistical assertion uses a two-sided test at level 1e-6, so the whole file fails by chance with
probability below 1e-5; the seeds are fixed, so a run is reproducible.
"""
import numpy as np
from scipy import stats

from adaptive_repro.pipeline.validation import experiment_spec
from adaptive_repro.simulation.mechanisms.base import clamp_unit
from adaptive_repro.simulation.mechanisms.standard import StandardHoldout
from adaptive_repro.simulation.mechanisms.thresholdout import DworkCodeThresholdout
from adaptive_repro.simulation.registries import ARMS

ALPHA = 1e-6


def test_standard_holdout_returns_holdout_values():
    mech = StandardHoldout(np.random.default_rng(0))
    w_hold = np.array([0.1, -0.2])
    assert mech.answer_statistics(np.zeros(2), w_hold) is w_hold
    assert mech.answer_accuracy(0.9, 0.6) == 0.6


def test_constants_scale_with_sqrt_n():
    spec = experiment_spec("x", dict(n=10_000, d=10, replicates=1, k_grid=[0], mechanisms=["dwork_code"]))
    arm = ARMS.get("dwork_code")
    mech = arm.create(np.random.default_rng(0), spec, arm.setting(spec))
    assert np.isclose(mech.threshold, 0.04) and np.isclose(mech.noise_sd, 0.01)


def test_far_statistics_get_noisy_holdout_value():
    mech = DworkCodeThresholdout(np.random.default_rng(1), threshold=0.04, noise_sd=0.01)
    m = 200_000
    w_train, w_hold = np.full(m, 0.5), np.zeros(m)  # gap 0.5 = T + 46 sd: always "over"
    out = mech.answer_statistics(w_train, w_hold)
    assert np.all(out != w_train)
    # reported - holdout ~ N(0, 0.01^2): Kolmogorov-Smirnov test at level ALPHA
    assert stats.kstest(out / 0.01, "norm").pvalue > ALPHA


def test_close_statistics_report_train_with_the_gaussian_threshold_probability():
    mech = DworkCodeThresholdout(np.random.default_rng(2), threshold=0.04, noise_sd=0.01)
    m = 200_000
    gap = 0.045  # P[gap > T + N(0, tau^2)] = Phi((gap - T)/tau) = Phi(0.5)
    out = mech.answer_statistics(np.full(m, gap), np.zeros(m))
    over = np.sum(out != gap)
    p = stats.norm.cdf(0.5)
    assert stats.binomtest(int(over), m, p).pvalue > ALPHA


def test_fresh_noise_on_every_query():
    mech = DworkCodeThresholdout(np.random.default_rng(3), threshold=0.0, noise_sd=0.01)
    a = mech.answer_statistics(np.ones(5), np.zeros(5))
    b = mech.answer_statistics(np.ones(5), np.zeros(5))
    assert not np.allclose(a, b)


def test_accuracy_query_threshold_rule():
    mech = DworkCodeThresholdout(np.random.default_rng(4), threshold=0.04, noise_sd=0.01)
    m = 100_000
    # |train - holdout| = 0.03 < T + N(0, tau^2) with probability Phi(1): then the train accuracy is reported
    answers = np.array([mech.answer_accuracy(0.53, 0.50) for _ in range(m)])
    reported_train = np.sum(answers == 0.53)
    assert stats.binomtest(int(reported_train), m, stats.norm.cdf(1.0)).pvalue > ALPHA
    noisy = answers[answers != 0.53]
    # otherwise holdout + N(0, tau^2)
    assert stats.kstest((noisy - 0.50) / 0.01, "norm").pvalue > ALPHA


def test_algorithm1_answers_are_clamped_to_the_unit_interval_and_bottom_stays_bottom():
    out = clamp_unit(np.array([-0.3, 0.2, 1.7, np.nan]))
    assert out[0] == 0.0 and out[1] == 0.2 and out[2] == 1.0 and np.isnan(out[3])
