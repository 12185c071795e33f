"""Fast checks of the exact sign-query engine (simulation/sign_engine.py, docs/METHODS.md §4a).

The reduction's two probabilistic claims are checked by exact enumeration over all chains of small length, with
the competing side written here from scipy: r = s y is a symmetric chain with stay probability (1 + theta)/2, and
n_plus = j + BetaBinomial(n - K, j, K - j) given the number of runs K and the first state. The samplers are then
checked against those exact laws (chi-square / KS at level 1e-6 each, fixed seeds).
"""
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from adaptive_repro.simulation import column_blocks, data_models, sign_engine
from adaptive_repro.simulation.registries import ENGINES

LEVEL = 1e-6


def chain_pmf(seq, p_stay):
    """Probability of a +-1 sequence under the stationary symmetric chain (fair first state)."""
    prob = 0.5
    for a, b in zip(seq[:-1], seq[1:]):
        prob *= p_stay if a == b else 1.0 - p_stay
    return prob


@pytest.mark.parametrize("p_s, p_y", [(0.7, 0.9), (0.2, 0.6), (0.5, 0.95), (1.0, 0.0)])
def test_product_of_two_chains_is_a_chain_with_stay_one_plus_theta_over_two(p_s, p_y):
    n = 5
    law = {}
    for s in itertools.product((-1, 1), repeat=n):
        for y in itertools.product((-1, 1), repeat=n):
            r = tuple(a * b for a, b in zip(s, y))
            law[r] = law.get(r, 0.0) + chain_pmf(s, p_s) * chain_pmf(y, p_y)
    theta = (2 * p_s - 1) * (2 * p_y - 1)
    for r in itertools.product((-1, 1), repeat=n):
        assert law.get(r, 0.0) == pytest.approx(chain_pmf(r, (1 + theta) / 2), abs=1e-14)
    assert data_models.chain_product_stay(p_s, p_y) == pytest.approx((1 + theta) / 2)


def enumerated_n_plus_pmf(n, p_stay):
    pmf = np.zeros(n + 1)
    for seq in itertools.product((-1, 1), repeat=n):
        pmf[seq.count(1)] += chain_pmf(seq, p_stay)
    return pmf


def runs_formula_pmf(n, p_stay):
    """The claimed law: K = 1 + Bin(n-1, 1-p); j = ceil(K/2) or floor(K/2) (fair first state);
    n_plus = j + BetaBinomial(n - K, j, K - j) (degenerate when j = 0 or j = K)."""
    pmf = np.zeros(n + 1)
    for runs in range(1, n + 1):
        p_runs = stats.binom.pmf(runs - 1, n - 1, 1 - p_stay)
        for j in ((runs + 1) // 2, runs // 2):
            if j == 0:
                pmf[0] += 0.5 * p_runs
            elif j == runs:
                pmf[n] += 0.5 * p_runs
            else:
                ks = np.arange(n - runs + 1)
                pmf[j + ks] += 0.5 * p_runs * stats.betabinom.pmf(ks, n - runs, j, runs - j)
    return pmf


@pytest.mark.parametrize("n", [1, 2, 3, 6, 9])
@pytest.mark.parametrize("p_stay", [0.0, 0.3, 0.5, 0.85, 1.0])
def test_n_plus_runs_formula_matches_exact_enumeration(n, p_stay):
    np.testing.assert_allclose(runs_formula_pmf(n, p_stay), enumerated_n_plus_pmf(n, p_stay), atol=1e-13)


@pytest.mark.parametrize("n, p_stay", [(9, 0.85), (8, 0.2), (7, 0.5)])
def test_sample_n_plus_follows_the_enumerated_law(n, p_stay):
    rng = np.random.default_rng(11)
    draws = np.array([data_models.sample_n_plus(rng, n, p_stay) for _ in range(20000)])
    expected = enumerated_n_plus_pmf(n, p_stay) * draws.size
    observed = np.bincount(draws, minlength=n + 1)
    assert stats.chisquare(observed, expected).pvalue > LEVEL


def test_sample_n_plus_degenerate_and_large_n():
    rng = np.random.default_rng(5)
    assert {data_models.sample_n_plus(rng, 10, 1.0) for _ in range(200)} == {0, 10}
    assert {data_models.sample_n_plus(rng, 11, 0.0) for _ in range(200)} == {5, 6}
    # n = 10^6, p = 0.9: mean n/2 and Var = (1/4) sum_{i,k} rho^|i-k|, rho = 2p - 1 (stationary chain)
    n, rho = 10**6, 0.8
    draws = np.array([data_models.sample_n_plus(rng, n, 0.9) for _ in range(4000)], dtype=float)
    var = 0.25 * (n * (1 + rho) / (1 - rho) - 2 * rho * (1 - rho**n) / (1 - rho) ** 2)
    assert abs(draws.mean() - n / 2) < 6 * np.sqrt(var / draws.size)
    assert abs(draws.var() / var - 1) < 6 * np.sqrt(2 / draws.size)


@pytest.fixture(scope="module")
def dataset():
    pop = data_models.chain_population(np.random.default_rng(1), 3000, 40, 0.8, 0.9, 1.5, 5, 6.0)
    return sign_engine.ExactSignDataset(np.random.default_rng(2), pop)


def test_columns_have_the_drawn_sign_counts_and_are_reproducible(dataset):
    q = dataset.sign_queries()
    assert q.shape == (40,) and np.all((q >= 0) & (q <= 1))
    for j in range(40):
        u = dataset.column(j)
        assert np.count_nonzero(u[:dataset.n_plus] > 0) == dataset.positives[j, 0]
        assert np.count_nonzero(u[dataset.n_plus:] > 0) == dataset.positives[j, 1]
        assert np.count_nonzero(u > 0) / dataset.pop.n == q[j]
    np.testing.assert_array_equal(dataset.column(7), dataset.column(7))


def test_nested_accuracies_match_the_columns(dataset):
    q = dataset.sign_queries()
    ranked = np.argsort(-np.abs(q - 0.5), kind="stable")[:12]
    weights = np.sign(q[ranked] - 0.5)
    weights[3] = 0.0
    weights[5] = 2.5
    sizes = np.array([0, 1, 4, 4, 12, 2])
    u = np.column_stack([dataset.column(j) for j in ranked])
    expected = [0.5 if s == 0 else np.mean(u[:, :s] @ weights[:s] > 0) for s in sizes]
    np.testing.assert_allclose(dataset.accuracies(ranked, weights, sizes), expected)
    # one column: accuracy is the sign query (weight +1) or its complement (weight -1)
    assert dataset.accuracies([4], [1.0], [1])[0] == q[4]
    assert dataset.accuracies([4], [-1.0], [1])[0] == pytest.approx(1 - q[4])
    assert dataset.accuracies([4, 5], [0.0, 0.0], [2])[0] == 0.0  # zero score: wrong, as sign(0) != y
    with pytest.raises(ValueError):
        dataset.accuracies(ranked[:2], weights[:2], [3])


@pytest.mark.slow
def test_fresh_binomial_accuracies_average_to_population_accuracy():
    pop = data_models.chain_population(np.random.default_rng(4), 400, 30, 0.9, 0.9, 0.8, 6, 6.0)
    ranked, weights, sizes = np.arange(10), np.ones(10), np.array([0, 1, 3, 10])
    acc = np.array([sign_engine.ExactSignDataset(np.random.default_rng(i), pop, observed=False)
                    .accuracies(ranked, weights, sizes, np.random.default_rng(10**6 + i)) for i in range(3000)])
    target = data_models.population_accuracies(ranked, weights, sizes, pop)
    se = acc.std(axis=0, ddof=1) / np.sqrt(len(acc))
    assert acc[:, 0].tolist() == [0.5] * len(acc)
    assert np.all(np.abs(acc[:, 1:].mean(axis=0) - target[1:]) < 6 * se[1:])


def test_direct_sign_queries_and_engine_registration():
    pop = data_models.chain_population(np.random.default_rng(6), 50, 7, 0.7, 0.7, 1.0, 0, 6.0)
    model = data_models.BatchChain(p_s=0.7, p_y=0.7, b=1.0)
    direct = ENGINES.get("direct").dataset(np.random.default_rng(0), model, pop, True)
    brute = [sum(direct.x[i, j] * direct.y[i] > 0 for i in range(50)) / 50 for j in range(7)]
    np.testing.assert_allclose(direct.sign_queries(), brute)
    exact = ENGINES.get("exact").dataset(np.random.default_rng(0), model, pop, True)
    assert isinstance(exact, sign_engine.ExactSignDataset)
    assert model.engines("sign", unit_queries=True)[0] == "exact"
    with pytest.raises(ValueError, match="sign queries only"):
        exact.statistics()
    with pytest.raises(ValueError, match="clipped queries"):  # a message, not a TypeError
        exact.clipped_queries(3.0)


def test_columns_do_not_depend_on_request_order():
    pop = data_models.chain_population(np.random.default_rng(7), 500, 30, 0.8, 0.8, 1.0, 3, 6.0)
    first = sign_engine.ExactSignDataset(np.random.default_rng(9), pop)
    second = sign_engine.ExactSignDataset(np.random.default_rng(9), pop)
    arm_a, arm_b = np.array([3, 17, 5, 29]), np.array([29, 5, 11])
    first_a = first.accuracies(arm_a, np.ones(4), [1, 2, 4])
    first_b = first.accuracies(arm_b, -np.ones(3), [1, 3])
    np.testing.assert_array_equal(second.accuracies(arm_b, -np.ones(3), [1, 3]), first_b)
    np.testing.assert_array_equal(second.accuracies(arm_a, np.ones(4), [1, 2, 4]), first_a)
    for j in (29, 5, 0):
        np.testing.assert_array_equal(first.column(j), second.column(j))


class CountingDataset(sign_engine.ExactSignDataset):
    """Records the columns it draws."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.drawn: list[int] = []

    def centered_block(self, columns):
        self.drawn.extend(np.atleast_1d(columns).tolist())
        return super().centered_block(columns)


def test_accuracies_of_several_arms_are_one_arm_at_a_time_with_each_column_drawn_once():
    pop = data_models.chain_population(np.random.default_rng(7), 500, 30, 0.8, 0.8, 1.0, 3, 6.0)
    rank = np.random.default_rng(3).permutation(30)  # one ranking that every arm's kept attributes follow
    arms = [(rank[[0, 2, 3, 5, 8, 9]], np.array([1.0, -1.0, 1.0, 2.5, 0.0, -1.0]), np.array([0, 2, 6, 6])),
            (rank[[1, 2, 5, 7]], -np.ones(4), np.array([1, 4])),
            (rank[[0, 1, 4]], np.ones(3), np.array([0, 0]))]
    one_at_a_time = sign_engine.ExactSignDataset(np.random.default_rng(9), pop)
    expected = [one_at_a_time.accuracies(*arm) for arm in arms]
    together = CountingDataset(np.random.default_rng(9), pop)
    for got, want in zip(together.accuracies_many(arms, [None] * 3), expected):
        np.testing.assert_array_equal(got, want)
    assert sorted(together.drawn) == sorted(rank[[0, 1, 2, 3, 5, 7, 8, 9]])  # the columns the sizes use, each once
    # orders that disagree: one arm at a time, same numbers
    swapped = [arms[0], (arms[1][0][::-1], arms[1][1], arms[1][2])]
    expected = [one_at_a_time.accuracies(*arm) for arm in swapped]
    for got, want in zip(together.accuracies_many(swapped, [None] * 2), expected):
        np.testing.assert_array_equal(got, want)
    # fresh binomial accuracies: each arm from its own stream
    fresh = sign_engine.ExactSignDataset(np.random.default_rng(9), pop, observed=False)
    got = fresh.accuracies_many(arms, [np.random.default_rng(i) for i in range(3)])
    for i, arm in enumerate(arms):
        np.testing.assert_array_equal(got[i], fresh.accuracies(*arm, np.random.default_rng(i)))


def test_runner_measuring_arms_together_gives_their_one_at_a_time_records(monkeypatch):
    from adaptive_repro.pipeline import validation
    from adaptive_repro.simulation import experiments

    spec = validation.experiment_spec("zhao-fig3", dict(
        n=3000, d=300, replicates=1, k_grid=[0, 5, 20], query="sign", signal_attributes=10,
        mechanisms=["standard", "dwork_code", "zhao_alg1_dp", "zhao_alg1_bdp"],
        model={"p_s": 0.8, "p_y": 0.8, "b": 0.1}, alg1={"budget": 10, "epsilon": 2.0}))
    together = experiments.run_replicate(spec, 11, 0)
    monkeypatch.setattr(column_blocks, "shared_column_order",
                        lambda orders: orders[0].tolist() if len(orders) == 1 else None)
    alone = experiments.run_replicate(spec, 11, 0)
    for a, b in zip(together, alone):
        pd.testing.assert_frame_equal(a, b)


def test_state_share_shift_is_the_offset_the_group_shares_put_on_every_sign_query():
    """Two groups (r = +1, r = -1): the shares' offset on attribute j's expected sign query is
    (s_+ - s'_+) (Phi(m_j+) - Phi(m_j-)), so the shift is |s_+ - s'_+| times the root-mean-square of
    Phi(m_j+) - Phi(m_j-) (a closed form, not the method's sum over groups); the direct engine keeps no groups."""
    from scipy import special

    from adaptive_repro.simulation.data_models import BatchChain
    from adaptive_repro.simulation.engines import DirectEngine
    from adaptive_repro.simulation.sign_engine import ExactSignDataset

    model = BatchChain(p_s=0.95, p_y=0.95, b=0.5)
    pop = model.population(np.random.default_rng(1), 400, 50, 0, 0.0)
    train = ExactSignDataset(np.random.default_rng(2), pop, model=model)
    holdout = ExactSignDataset(np.random.default_rng(3), pop, model=model)
    p = special.ndtr(model.group_means(pop))
    share_gap = abs(train.group_sizes[0] - holdout.group_sizes[0]) / 400
    assert share_gap > 0
    assert train.state_share_shift(holdout) == pytest.approx(
        share_gap * np.sqrt(np.mean((p[:, 0] - p[:, 1]) ** 2)), rel=1e-12)
    direct = DirectEngine().dataset(np.random.default_rng(4), model, pop, observed=True)
    assert np.isnan(direct.state_share_shift(direct))
