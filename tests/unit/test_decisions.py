"""The decision module: four states, one margin both ways, exact intervals for rates, and the replicates a decision
would need. Expected values are computed here from their definitions (binomial tails, normal quantiles), not by the
module's own functions."""
import math

import numpy as np
import pytest
from scipy import stats

from adaptive_repro import decisions as d


def test_twenty_of_twenty_is_undecided_against_ninety_percent():
    """20/20 sessions: a Wald interval has SE 0 and would say [1, 1]; the exact interval reaches (a/2)^(1/20)."""
    got = d.rate_at_least(20, 20, 0.9)
    assert got.state == d.UNDECIDED and got.status == "not checked"
    assert got.low == pytest.approx(((1 - d.CONFIDENCE) / 2) ** (1 / 20), rel=1e-9)
    assert got.low == pytest.approx(0.72, abs=0.005)
    # 100% stays 100%: the smallest m with ((1 - conf)/2)^(1/m) >= 0.9
    assert got.needs == math.ceil(math.log((1 - d.CONFIDENCE) / 2) / math.log(0.9))


@pytest.mark.parametrize("k, n, state", [(100, 100, d.HOLDS), (50, 100, d.FAILS), (548, 600, d.UNDECIDED),
                                         (0, 40, d.FAILS)])
def test_rate_decisions_use_the_exact_interval(k, n, state):
    got = d.rate_at_least(k, n, 0.9)
    alpha = 1 - d.CONFIDENCE
    low = stats.beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
    high = stats.beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
    assert (got.low, got.high) == pytest.approx((low, high), rel=1e-9)
    assert got.state == state


def test_the_needed_replicates_do_decide_and_fewer_do_not():
    """548/600 (the households DP arm for n/V): undecided; at the count it names the same rate's exact interval (the
    count kept real-valued, as the rule does) clears 90%, one fewer does not. With whole counts the first clearing m
    is 4,412 and every m clears from 4,530 on (an independent re-derivation): the named count lies between."""
    got = d.rate_at_least(548, 600, 0.9)
    m = got.needs
    rate = 548 / 600
    alpha = 1 - d.CONFIDENCE
    assert stats.beta.ppf(alpha / 2, rate * m, m - rate * m + 1) >= 0.9
    assert stats.beta.ppf(alpha / 2, rate * (m - 1), (m - 1) - rate * (m - 1) + 1) < 0.9
    assert 4412 <= m <= 4530


def test_rate_at_most_mirrors_rate_at_least():
    assert d.rate_at_most(0, 200, 0.05).state == d.HOLDS
    assert d.rate_at_most(30, 100, 0.05).state == d.FAILS
    assert d.rate_at_most(5, 100, 0.05).state == d.UNDECIDED
    got = d.rate_at_most(3, 100, 0.05)
    assert got.estimate == pytest.approx(0.03) and got.low < 0.03 < got.high


@pytest.mark.parametrize("estimate, se, state", [(0.5, 0.01, d.HOLDS), (0.42, 0.01, d.UNDECIDED),
                                                 (0.2, 0.01, d.FAILS), (0.5, 0.05, d.UNDECIDED),
                                                 (0.75, 0.01, d.FAILS)])
def test_equivalence_uses_one_margin_both_ways(estimate, se, state):
    got = d.within(estimate, se, 40, 0.5, 0.1)
    assert got.state == state
    if state == d.UNDECIDED and abs(abs(estimate - 0.5) - 0.1) > 0:
        needed = got.needs
        # at that count the interval (shrunk like 1/sqrt(n)) fits on one side of the margin
        shrunk = se * math.sqrt(40 / needed)
        off = abs(estimate - 0.5)
        assert off + 3 * shrunk <= 0.1 + 1e-12 or off - 3 * shrunk >= 0.1 - 1e-12


def test_a_mean_test_is_symmetric_and_can_be_vacuous():
    assert d.mean_at_most(0.01, 0.01, 50, 0.1).state == d.HOLDS
    assert d.mean_at_most(0.2, 0.01, 50, 0.1).state == d.FAILS
    assert d.mean_at_most(0.08, 0.01, 50, 0.1).state == d.UNDECIDED
    vacuous = d.mean_at_most(0.3, 0.01, 50, 0.566, largest_possible=0.5)
    assert vacuous.state == d.CANNOT_FAIL and vacuous.status == "not checked" and "Cannot fail" in vacuous.note()
    assert d.mean_above(0.1, 0.01, 50).state == d.HOLDS
    assert d.mean_above(-0.1, 0.01, 50).state == d.FAILS
    assert d.mean_above(0.02, 0.01, 50).state == d.UNDECIDED
    assert d.mean_at_most(float("nan"), 0.01, 50, 0.1).state == d.UNDECIDED


def test_paired_rates_use_the_discordant_pairs():
    """Same data sets, noiseless 98% vs DP 68% answered (households V = 3 in the issue): the noise contributes."""
    quiet = np.r_[np.ones(98), np.zeros(2)].astype(bool)
    noisy = np.r_[np.ones(68), np.zeros(32)].astype(bool)
    got = d.paired_rates_differ(quiet, noisy)
    assert got.state == d.HOLDS and got.estimate == pytest.approx(0.30)
    # the exact sign test on 30 discordant pairs all one way: p = 2 * 0.5^30, far below 1 - CONFIDENCE
    assert stats.binomtest(30, 30, 0.5).pvalue < 1 - d.CONFIDENCE
    assert d.paired_rates_differ(noisy, quiet).state == d.FAILS
    balanced = d.paired_rates_differ_counts(5, 5, 100)
    assert balanced.state == d.UNDECIDED and balanced.needs is None
    assert d.paired_rates_differ_counts(0, 0, 100).state == d.UNDECIDED


def test_confidence_is_three_standard_errors():
    assert d.CONFIDENCE == pytest.approx(stats.norm.cdf(3) - stats.norm.cdf(-3), rel=1e-12)


def test_rank_test_decides_both_ways_with_one_level_and_names_what_it_needs():
    """Two stopped sessions above eight answering ones: exact p = 1/45, undecided; five above 64 decide it; five
    below 64 decide the other way; the needed count is where U's z-score reaches Z; an empty group is undecided."""
    answering = np.linspace(0.0, 0.07, 8)
    few = d.ranks_above([0.08, 0.09], answering)
    assert few.state == d.UNDECIDED and few.estimate == 1.0
    assert stats.mannwhitneyu([0.08, 0.09], answering, alternative="greater").pvalue == pytest.approx(1 / 45)
    spread = math.sqrt(2 * 8 * 11 / 12)
    assert few.needs == math.ceil(10 * (d.Z / (8 / spread)) ** 2)
    many = np.linspace(0.0, 0.07, 64)
    assert d.ranks_above(np.linspace(0.08, 0.1, 5), many).state == d.HOLDS
    assert d.ranks_above(np.linspace(-0.1, -0.08, 5), many).state == d.FAILS
    assert d.ranks_above([], many).state == d.UNDECIDED
    rng = np.random.default_rng(0)
    same = d.ranks_above(rng.normal(size=30), rng.normal(size=30))
    assert same.state == d.UNDECIDED and 0.2 < same.estimate < 0.8


def test_a_mean_from_few_replicates_is_decided_with_students_t():
    """zhao-sweep's b = 0.1 change at the default: -0.0327 +- 0.0109 from 6 + 6 replicates is -3.0004 SE, "decided"
    by Z = 3 but not by Student's t at Welch's 5.5 degrees of freedom (5.19 SE); the replicates it needs make
    t SE fit; with many degrees of freedom t is Z."""
    df = d.welch_df(0.010652, 6, 0.002305, 6)
    assert df == pytest.approx(5.467, abs=1e-3)
    assert d.mean_above(-0.0327, 0.010898, 6).state == d.FAILS
    small = d.mean_above(-0.0327, 0.010898, 6, df=df)
    assert small.state == d.UNDECIDED and small.low == pytest.approx(-0.0327 - d.t_multiplier(df) * 0.010898)
    m = small.needs
    grown = df * (m - 1) / 5
    assert d.t_multiplier(grown) * 0.010898 * math.sqrt(6 / m) <= 0.0327
    assert d.t_multiplier(df * (m - 2) / 5) * 0.010898 * math.sqrt(6 / (m - 1)) > 0.0327
    assert d.t_multiplier(1e9) == pytest.approx(d.Z, rel=1e-6)
    assert stats.t.ppf(0.5 + d.CONFIDENCE / 2, df) == pytest.approx(d.t_multiplier(df))


def test_welch_degrees_of_freedom_refuse_what_has_none():
    with pytest.raises(ValueError, match="welch_df: needs two means of at least 2 replicates"):
        d.welch_df(0.01, 1, 0.01, 6)
    with pytest.raises(ValueError, match="welch_df"):
        d.welch_df(float("nan"), 6, 0.01, 6)
    assert math.isnan(d.welch_df(0.0, 6, 0.0, 6))
    assert d.welch_df(0.01, 6, 0.01, 6) == pytest.approx(10.0)  # equal SEs and sizes: 2 (m - 1)


@pytest.mark.parametrize("states, every, state", [
    (["holds", "holds"], True, "holds"), (["holds", "undecided"], True, "undecided"),
    (["holds", "undecided"], False, "holds"), (["holds", "does not hold"], False, "does not hold"),
    ([], True, "undecided"), (["undecided"], False, "undecided")])
def test_a_statement_combines_its_parts_states(states, every, state):
    assert d.combined(states, every=every) == state
