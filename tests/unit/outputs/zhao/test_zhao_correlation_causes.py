"""zhao-correlation-frontier's counterfactuals and validity rows: the noiseless counterfactual is Algorithm 1's exact
no-noise answer, Theorem 2's failure event is the theorem's event, the i.i.d. null has the binomial law, and the
rows' verdicts follow the measured numbers (each can come out the other way)."""
import numpy as np
import pandas as pd
import pytest

from adaptive_repro.outputs.zhao import correlation_causes as causes
from adaptive_repro.simulation import frontier
from adaptive_repro.simulation.correlation import theorem2_failure


def _no_noise_by_hand(q_train, q_holdout, threshold, budget):
    """Algorithm 1 with sigma = 0, written out: answer the training value unless |train - holdout| > T; then spend
    one unit of budget and answer the holdout value; bottom (nan) once the budget is gone."""
    out, left = [], budget
    for t, h in zip(q_train, q_holdout):
        if left < 1:
            out.append(np.nan)
        elif abs(h - t) > threshold:
            left -= 1
            out.append(h)
        else:
            out.append(t)
    return np.array(out)


def test_the_noiseless_counterfactual_is_the_exact_no_noise_answer():
    rng = np.random.default_rng(5)
    q_train, q_holdout = rng.uniform(0.4, 0.6, 40), rng.uniform(0.4, 0.6, 40)
    answers, over = frontier.algorithm1_answers(np.random.default_rng(1), 0.0, 0.05, 3, q_train, q_holdout)
    expected = _no_noise_by_hand(q_train, q_holdout, 0.05, 3)
    np.testing.assert_array_equal(answers, expected)
    assert over == 3 and np.isnan(answers).sum() > 0  # the budget runs out on this instance


def test_an_infeasible_calibration_answers_nothing():
    answers, over = frontier.algorithm1_answers(np.random.default_rng(1), np.nan, 0.05, 3, np.ones(4), np.ones(4))
    assert np.isnan(answers).all() and over == 0


def test_the_iid_null_has_the_binomial_law():
    """n q_j ~ Bin(n, 1/2): mean n/2 within 4 SE, variance n/4 within 5% (its SE is about 1% at d = 20,000)."""
    n, d = 1000, 20_000
    counts = frontier.iid_null_sign_queries(np.random.default_rng(2), n, d) * n
    assert np.allclose(counts, np.round(counts))
    assert abs(counts.mean() - n / 2) < 4 * np.sqrt(n / 4 / d)
    assert abs(counts.var(ddof=1) / (n / 4) - 1) < 0.05


def test_theorem2_failure_is_the_theorems_event():
    """Some answered i with Z_i < B and |a_i - Q_i(P)| >= tau; bottom is not an answer; Z_i counts training errors
    >= c tau up to and including i."""
    tau, c = 0.1, 0.5
    q_train = np.array([0.5, 0.5, 0.5])
    assert not theorem2_failure(np.array([0.5, 0.55, np.nan]), q_train, 0.5, tau, c, budget=2)
    assert theorem2_failure(np.array([0.5, 0.65, np.nan]), q_train, 0.5, tau, c, budget=2)  # |0.65 - 0.5| >= tau
    # the same error after B training errors >= c tau is outside the event (Z_i = B)
    assert not theorem2_failure(np.array([0.7, 0.7, 0.7]), np.array([0.7, 0.7, 0.7]), 0.5, tau, c, budget=1)
    assert theorem2_failure(np.array([0.7, 0.7, 0.7]), np.array([0.5, 0.5, 0.5]), 0.5, tau, c, budget=1)


DATA_SETS = 1000  # per (point, calibration, n) in the hand-made rows below


def _counts(answered, noiseless, iid):
    """The per-session columns of frontier_table when the given shares of the data sets answer >= 90%."""
    return dict(replicates=DATA_SETS, iid_data_sets=DATA_SETS,
                data_sets_answering_90_count=round(answered * DATA_SETS),
                noiseless_data_sets_answering_90_count=round(noiseless * DATA_SETS),
                iid_data_sets_answering_90_count=round(iid * DATA_SETS))


def _row(answered, noiseless, iid):
    return pd.Series(dict(answered_fraction=answered, answered_fraction_noiseless=noiseless,
                          answered_fraction_iid=iid, **_counts(answered, noiseless, iid)))


@pytest.mark.parametrize("noiseless, iid, cause", [(0.5, 1.0, "data"), (1.0, 0.4, "noise"),
                                                   (0.5, 0.4, "noise and data"), (1.0, 1.0, "together"),
                                                   (0.95, 0.4, "noise"),
                                                   (0.88, 1.0, "undecided")])  # 880/1000 straddles 90%
def test_the_cause_follows_the_counterfactuals(noiseless, iid, cause):
    assert causes.cause(_row(0.2, noiseless, iid)) == cause


def _table(per_n: dict, calibration="bdp"):
    rows = [dict(experiment="p", structure="households", calibration=calibration, n=n, V=8.0, sigma_over_threshold=1.0,
                 answered_fraction=a, answered_fraction_noiseless=q, answered_fraction_iid=i, **_counts(a, q, i))
            for n, (a, q, i) in per_n.items()]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("per_n, status", [({1e3: (0.2, 0.5, 1.0), 1e4: (0.3, 0.5, 1.0)}, "holds"),
                                           ({1e3: (0.2, 1.0, 0.4), 1e4: (0.3, 0.5, 1.0)}, "does not hold"),
                                           ({1e3: (0.2, 1.0, 1.0)}, "not checked")])
def test_budget_rows_follow_the_counterfactuals(per_n, status):
    (row,) = causes.budget_claims(_table(per_n), {"bdp": "Bayesian-DP calibration"})
    assert row.status == status and row.claim_id == "households-v8-bdp-budget-spent-by-the-data"
    assert "Bayesian-DP calibration" in row.claim


def test_no_budget_row_where_the_arm_always_answers():
    assert causes.budget_claims(_table({1e3: (1.0, 1.0, 1.0)}), {}) == []


def _validity(dp_errors, bdp_errors, dp_fail=0, bdp_fail=0):
    table = pd.DataFrame([dict(experiment="p", structure="households", calibration=c, n=1e6, V=8.0,
                               answered_fraction=1.0, eps_dp=e, **_counts(1.0, 1.0, 1.0))
                          for c, e in (("dp_effective_n", 3.0),
                                                                             ("bdp_effective_n", 0.1))])
    records = pd.DataFrame(
        [dict(experiment="p", replicate=r, calibration="dp_effective_n", n=1e6, max_error_units=x,
              theorem2_failure=int(r < dp_fail)) for r, x in enumerate(dp_errors)]
        + [dict(experiment="p", replicate=r, calibration="bdp_effective_n", n=1e6, max_error_units=x,
                theorem2_failure=int(r < bdp_fail)) for r, x in enumerate(bdp_errors)])
    (row,) = causes.validity_claims(table, records, tau_units=8.0)
    return row


def test_validity_row_can_come_out_either_way():
    rng = np.random.default_rng(0)
    base = rng.uniform(1, 3, 30)
    worse = _validity(base, base + rng.uniform(3, 6, 30), bdp_fail=10)
    assert worse.status == "does not hold" and "less accurate" in worse.measured and "10 of 30" in worse.measured
    better = _validity(base + rng.uniform(3, 6, 30), base)
    assert better.status == "holds"
    same = _validity(base, base + rng.normal(0, 0.05, 30))
    assert same.status == "does not hold" and "no validity difference" in same.measured
    noisy = _validity(base, base + rng.normal(0.3, 2.0, 30))
    assert noisy.status == "not checked"
