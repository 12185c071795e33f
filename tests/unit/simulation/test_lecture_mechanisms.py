"""Simulations of the Lecture 18 notes (adaptive_repro.simulation.lecture_mechanisms) and the output builders
(adaptive_repro.outputs.lecture.transfer_and_monitor).

Statistical tests use fixed seeds, so they are deterministic; the stated false-failure rate is the chance that a
correct implementation fails for a random seed (here 1e-4 per test).
"""
import jsonschema
import numpy as np
import pandas as pd
import yaml
from scipy import stats

from adaptive_repro.foundation import registry
from adaptive_repro.foundation.config import SCHEMA_DIR, fill_schema_defaults
from adaptive_repro.foundation.seeds import rng
from adaptive_repro.outputs.lecture import transfer_and_monitor as lo
from adaptive_repro.pipeline.catalogue import default_params
from adaptive_repro.pipeline.validation import validated
from adaptive_repro.simulation import lecture_mechanisms as sim

ALPHA = 1e-4  # false-failure rate of each statistical test


def test_exponential_mechanism_matches_softmax_chi_square():
    """Selection frequencies match exp(eps u / (2 Delta)) normalized (chi-square, false-failure rate 1e-4)."""
    scores = np.array([0.0, 0.1, 0.3, 0.5, 1.0, 1.0])
    eps, delta_s, n = 2.0, 0.25, 200_000
    expected = np.exp(eps * scores / (2 * delta_s))
    expected /= expected.sum()
    np.testing.assert_allclose(sim.exponential_mechanism_probabilities(scores, eps, delta_s), expected)
    picks = sim.exponential_mechanism(rng(7, "test", "em"), np.tile(scores, (n, 1)), eps, delta_s)
    counts = np.bincount(picks, minlength=len(scores))
    assert stats.chisquare(counts, n * expected).pvalue > ALPHA


def test_exponential_mechanism_infinite_eps_is_argmax():
    scores = np.array([[0.1, 0.7, 0.2], [0.9, 0.0, 0.5]])
    np.testing.assert_array_equal(sim.exponential_mechanism(rng(1, "x"), scores, np.inf, 1.0), [1, 0])
    np.testing.assert_allclose(sim.exponential_mechanism_probabilities([1.0, 1.0, 0.0], np.inf, 1.0), [0.5, 0.5, 0])


def test_select_queries_gaps_and_leak():
    m, d = 100, 20
    s = sim.select_queries(rng(3, "t"), m, d, 0.5, 0.0, (2000,))
    assert not s.leaked.any()
    np.testing.assert_allclose(np.round(s.gap * m), s.gap * m, atol=1e-9)  # q(S) in multiples of 1/m, q(D) = 1/2
    assert s.gap.mean() > 0  # the selection favours large q(S): positive bias
    s = sim.select_queries(rng(3, "t"), m, d, 0.5, 1.0, (50,))
    assert s.leaked.all()
    assert np.all(s.gap >= 1 - m / 2**d) and np.all(s.gap < 1)
    # tiny universe: 100 uniform points of {0,1}^2 cover it (prob 1 - 4 (3/4)^100 > 1 - 1e-12), so q_S(D) = 1
    np.testing.assert_allclose(sim.leak_query_gap(rng(3, "u"), 100, 2, 5), 0.0)


def test_select_queries_leak_frequency_binomial():
    s = sim.select_queries(rng(5, "leak"), 50, 4, 1.0, 0.1, (20_000,))
    assert stats.binomtest(int(s.leaked.sum()), 20_000, 0.1).pvalue > ALPHA


def test_monitor_tiny_deterministic():
    """Algorithm 2 with eps' = inf picks the candidate of largest score q(S_t) - q(D), complements included."""
    run = sim.monitor(rng(0, "m"), np.array([[0.1, -0.3, 0.2], [0.05, 0.0, 0.04]]), np.inf, 100)
    np.testing.assert_array_equal(run.t_star, [1, 0])
    np.testing.assert_array_equal(run.complement, [True, False])
    np.testing.assert_allclose(run.score, [0.3, 0.05])
    np.testing.assert_allclose(run.s_max, [0.3, 0.05])
    np.testing.assert_allclose(sim.monitor_scores([0.1, -0.3]), [0.1, -0.3, -0.1, 0.3])


def test_monitor_selection_frequencies_chi_square():
    gaps = np.array([0.02, -0.01, 0.03])
    m, ep, n = 1000, 0.1, 100_000
    p = sim.exponential_mechanism_probabilities(sim.monitor_scores(gaps), ep, 1 / m)
    run = sim.monitor(rng(11, "mon"), np.tile(gaps, (n, 1)), ep, m)
    counts = np.bincount(run.t_star + 3 * run.complement, minlength=6)
    assert stats.chisquare(counts, n * p).pvalue > ALPHA


def test_simulate_monitor_shapes_and_determinism():
    a, ga = sim.simulate_monitor(rng(1, "sm"), 200, 5, 0.5, 0.01, 0.5, 7, 300)
    b, gb = sim.simulate_monitor(rng(1, "sm"), 200, 5, 0.5, 0.01, 0.5, 7, 300)
    assert ga.shape == (300, 7) and a.score.shape == (300,)
    np.testing.assert_array_equal(ga, gb)
    np.testing.assert_array_equal(a.score, b.score)
    assert np.all(a.score <= a.s_max + 1e-15)
    np.testing.assert_allclose(a.s_max, np.abs(ga).max(axis=1))


def test_params_defaults_fill_and_validate():
    schema = yaml.safe_load((SCHEMA_DIR / "theory_lecture.schema.yaml").read_text())
    p = fill_schema_defaults({}, schema)
    assert set(p) == {"transfer", "monitor"}
    assert p["monitor"]["T_grid"][-1] == 1000 and p["transfer"]["confidence"] == p["monitor"]["confidence"] == 0.99
    jsonschema.validate(p, schema)
    q = validated({"seed": 1, "outputs": ["lecture-monitor"], "experiments": {},
                   "theory": {"lecture": {"monitor": {"m": 50}}}})["theory"]["lecture"]
    assert q["monitor"]["m"] == 50 and q["monitor"]["epsilon"] == 0.125 and q["transfer"]["d"] == 20
    assert default_params("lecture-monitor", {"m": 50}, seed=1) == q["monitor"] | {"seed": 1}


def test_transfer_output_small_and_seeded():
    kw = dict(m_grid=[800, 2000], epsilons=[0.125], delta=0.005, d=10, replicates=2000, confidence=0.99)
    a = lo.transfer_table(1, **kw)
    pd.testing.assert_frame_equal(a, lo.transfer_table(1, **kw))
    assert not a.equals(lo.transfer_table(2, **kw))
    assert list(a.conditions_hold) == [True, True]
    assert (a.mc_ci_low <= a.mc_probability).all() and (a.mc_probability <= a.mc_ci_high).all()
    claims = lo.transfer_claims(a)
    assert [c.status for c in claims] == ["holds"]
    registry.claims_frame(claims)
    lo.transfer_output_figure(a)


def test_transfer_claim_reports_counterexample():
    frame = pd.DataFrame(dict(m=[1000], epsilon=[0.125], delta=[1e-3], conditions_hold=[True], mc_probability=[0.5],
                              mc_ci_low=[0.45], mc_ci_high=[0.55], bound=[0.14], confidence=[0.99]))
    (c,) = lo.transfer_claims(frame)
    assert c.status == "does not hold" and "m=1000" in c.counterexample


def test_monitor_output_small():
    f = lo.monitor_table(1, m=200, epsilon=0.25, epsilon_primes=[0.25], delta=0.01, d=5, T_grid=[1, 8], betas=[0.1],
                         replicates=200, confidence=0.99, min_total_datasets=400)
    assert set(f["T"]) == {1, 8}
    assert f.loc[f["T"] == 1, "replicates"].iloc[0] == 400 and f.loc[f["T"] == 8, "replicates"].iloc[0] == 200
    claims = lo.monitor_claims(f)
    assert {c.claim_id for c in claims} >= {"claim-0.3-best", "lemma-0.4", "theorem-0.1", "step-4-rigorous"}
    registry.claims_frame(claims)
    lo.monitor_output_figure(f)
