"""The correlated-record data models of docs/METHODS.md §4b (regimes, households, attribute chains; the batch chain's
closed forms too): exact population values and the sign query's variance inflation V against simulation, the exact
engines against the direct engine, and Lemma 2's conversion against brute-force enumeration on tiny n.

Statistical assertions: each at level about 1e-6 (z > 5 or KS p < 1e-6), seeded, so a pass is reproducible and the
file fails by chance with probability below 1e-4."""
from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from adaptive_repro.privacy.influence import (
    ChainInfluence,
    ProductChainInfluence,
    chain_joint,
    stationary_distribution,
    symmetric_chain_matrix,
)
from adaptive_repro.privacy.lemmas import lemma2_eps_bdp, lemma2_eps_dp, lemma2_general
from adaptive_repro.simulation import analyst
from adaptive_repro.simulation.data_models import BatchChain
from adaptive_repro.simulation.models.attribute_chains import AttributeChains
from adaptive_repro.simulation.models.households import Households
from adaptive_repro.simulation.models.regimes import Regimes, sample_occupation, sticky_matrix
from adaptive_repro.simulation.registries import DATA_MODELS, ENGINES

Z = 5.0
#: Settings that make each shipped model's correlation strong (the checks are not vacuous there).
TUNED = {
    "batch_chain": BatchChain(p_s=0.9, p_y=0.8, b=1.2),
    "regimes": Regimes(states=4, stay=0.85, b=1.0),
    "households": Households(size=5, b=1.5),
    "attribute_chains": AttributeChains(lam=1.5, rho=0.8),
}
#: Every registered model with exact population values (a new one at its defaults, without editing this file).
MODELS = {m.name: TUNED.get(m.name) or m() for m in DATA_MODELS if m.supports("exact_population")}
#: ... and those with an exact engine for the sign query, to check against the direct engine.
EXACT_ENGINE_MODELS = sorted(name for name, m in MODELS.items() if m.engines("sign", unit_queries=True)[0] != "direct")


def population(name, n=200, d=4, signal=1):
    return MODELS[name].population(np.random.default_rng(11), n, d, signal, 6.0)


def direct_sign_queries(model, pop, reps, seed):
    rng = np.random.default_rng(seed)
    out = np.empty((reps, pop.d))
    for r in range(reps):
        x, y, _ = model.sample(rng, pop)
        out[r] = np.mean(x * y[:, None] > 0, axis=0)
    return out


@pytest.mark.parametrize("name", sorted(MODELS))
def test_sign_query_population_value_and_variance_inflation_against_simulation(name):
    model, pop = MODELS[name], population(name)
    q = direct_sign_queries(model, pop, 3000, 5)
    p = model.sign_query_population(pop)
    if not model.supports("known_inflation"):  # the mean against the simulation's own SE; no V to check
        z = (q.mean(axis=0) - p) / (q.std(axis=0, ddof=1) / np.sqrt(len(q)))
        assert np.all(np.abs(z) < Z), z
        return
    v = model.variance_inflation(pop)
    predicted_var = v * p * (1 - p) / pop.n
    mean_z = (q.mean(axis=0) - p) / np.sqrt(predicted_var / len(q))
    assert np.all(np.abs(mean_z) < Z), mean_z
    # sample variance of near-normal q: relative SD sqrt(2/(R-1)); 5 SDs
    ratio = q.var(axis=0, ddof=1) / predicted_var
    assert np.all(np.abs(ratio - 1) < Z * np.sqrt(2 / (len(q) - 1)) + 0.02), (ratio, v)
    if name in TUNED and name != "batch_chain":
        assert v.max() > 2.0  # the settings above do inflate the variance (the test is not vacuous)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_population_accuracy_of_a_fixed_classifier_against_simulation(name):
    model, pop = MODELS[name], population(name, n=400, d=6, signal=3)
    ranked, weights, sizes = np.arange(6), np.array([1.0, 1, 1, -1, 1, -1]), np.array([0, 1, 3, 6])
    exact = model.population_accuracies(ranked, weights, sizes, pop)
    rng = np.random.default_rng(8)
    acc = []
    for _ in range(1500):
        x, y, _ = model.sample(rng, pop)
        scores = np.cumsum(x[:, ranked] * weights[None, :], axis=1)
        acc.append([0.5 if s == 0 else np.mean(np.sign(scores[:, s - 1]) == y) for s in sizes])
    acc = np.array(acc)
    se = acc.std(axis=0, ddof=1) / np.sqrt(len(acc))
    gap = np.abs(acc.mean(axis=0)[1:] - exact[1:])
    assert exact[0] == 0.5 and np.all(gap < Z * se[1:] + 1e-9), (acc.mean(0), exact)


@pytest.mark.slow
@pytest.mark.parametrize("name", EXACT_ENGINE_MODELS)
def test_exact_engine_matches_the_direct_engine_in_distribution(name):
    model = MODELS[name]
    pop = population(name, n=120, d=5, signal=2)
    exact_name = model.engines("sign", unit_queries=True)[0]
    assert exact_name != "direct"
    engines = {e: ENGINES.get(e) for e in (exact_name, "direct")}
    ranked, weights, sizes = np.arange(5), np.array([1.0, -1, 1, 1, -1]), np.array([1, 2, 5])
    draws = {e: [] for e in engines}
    for e, engine in engines.items():
        rng = np.random.default_rng(21 if e == "direct" else 22)
        for _ in range(1500):
            ds = engine.dataset(rng, model, pop, True)
            draws[e].append(np.concatenate([ds.sign_queries(), ds.accuracies(ranked, weights, sizes)]))
    a, b = (np.array(draws[e]) for e in engines)
    for col in range(a.shape[1]):
        assert stats.ks_2samp(a[:, col], b[:, col]).pvalue > 1e-6, (name, col)


@pytest.mark.slow
def test_regime_occupation_counts_follow_the_chain():
    """The O(runs) occupation sampler against path sampling (K = 3, n = 7): same law of the first regime's count."""
    rng = np.random.default_rng(3)
    fast = np.array([sample_occupation(rng, 7, 3, 0.7) for _ in range(40000)])
    assert (fast.sum(axis=1) == 7).all()
    P = sticky_matrix(3, 0.7)
    joint = chain_joint(P, stationary_distribution(P), 7)
    exact = np.zeros(8)
    for path in itertools.product(range(3), repeat=7):
        exact[path.count(0)] += joint[path]
    counts = np.bincount(fast[:, 0], minlength=8)
    assert stats.chisquare(counts, exact * len(fast)).pvalue > 1e-6



def test_regime_occupation_counts_the_runs_of_each_regime_written_out():
    """The in-place count of runs per regime equals counting the runs' regimes written out, from the same draws."""
    for seed, (n, states, stay) in enumerate([(10**6, 10, 0.9), (50, 4, 0.2), (1, 6, 0.5), (3, 200, 0.99)]):
        rng = np.random.default_rng(seed)
        runs = 1 + int(rng.binomial(n - 1, 1.0 - stay))
        steps = 1 + rng.integers(0, states - 1, runs - 1)
        run_regimes = (int(rng.integers(0, states)) + np.concatenate(([0], np.cumsum(steps)))) % states
        expected = np.bincount(run_regimes, minlength=states)
        present = expected > 0
        if n > runs:
            expected[present] += rng.multinomial(n - runs, rng.dirichlet(expected[present]))
        np.testing.assert_array_equal(sample_occupation(np.random.default_rng(seed), n, states, stay), expected)

# ------------------------------------------------------------------------------- Lemma 2 by brute force
def test_regimes_lemma2_equals_enumeration_over_all_quilts():
    model = Regimes(states=3, stay=0.8)
    P = sticky_matrix(3, 0.8)
    joint = chain_joint(P, stationary_distribution(P), 5)
    graph = nx.path_graph(5)
    brute, _ = lemma2_general(1.0, joint, graph)
    assert model.dp_level_for_bdp(1.0, 5, 10, "lemma2").eps_dp == pytest.approx(brute, rel=1e-9)


def test_attribute_chains_lemma2_is_the_product_chains_and_scales_with_d():
    P = symmetric_chain_matrix(0.85)
    for d in (2, 3):
        product = P
        for _ in range(d - 1):
            product = np.kron(product, P)
        model = AttributeChains(lam=1.0, rho=0.7)  # stay (1 + 0.7)/2 = 0.85
        joint = chain_joint(product, stationary_distribution(product), 4)
        brute, _ = lemma2_general(1.0, joint, nx.path_graph(4))
        assert model.dp_level_for_bdp(1.0, 4, d, "lemma2").eps_dp == pytest.approx(brute, rel=1e-9)
        a, b = ChainInfluence(product), ProductChainInfluence(P, d)
        for quilt in [(1, 1), (2, None), (None, 3), (2, 5)]:
            assert b.influence(*quilt) == pytest.approx(a.influence(*quilt), rel=1e-12)
    # more attributes, more influence: eps' falls with d
    eps = [AttributeChains(lam=1.0, rho=0.7).dp_level_for_bdp(1.0, 10_000, d, "lemma2").eps_dp for d in (1, 10, 100)]
    assert eps[0] > eps[1] > eps[2] > 0
    inverse = lemma2_eps_bdp(eps[1], 10_000, ProductChainInfluence(P, 10))
    assert inverse == pytest.approx(1.0, rel=1e-6)  # the inverse gives the BDP target back


@pytest.mark.parametrize("size", [2, 3])
def test_households_lemma2_is_group_privacy_by_enumeration(size):
    """Records of a household share their state: the joint law puts mass only on equal states within a household."""
    n = 2 * size
    joint = np.zeros((2,) * n)
    for h in itertools.product(range(2), repeat=2):
        joint[tuple(np.repeat(h, size))] = 0.25
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for g in range(2):
        graph.add_edges_from(itertools.combinations(range(g * size, (g + 1) * size), 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        brute, _ = lemma2_general(1.0, joint, graph)
    model = Households(size=size)
    assert brute == pytest.approx(1.0 / size, rel=1e-12)
    assert model.dp_level_for_bdp(1.0, n, 10, "lemma2").eps_dp == pytest.approx(brute, rel=1e-12)
    assert model.bdp_level_for_dp(1.0 / size, n, 10, "lemma2") == pytest.approx(1.0)


def test_batch_chain_conversion_is_its_four_state_chains():
    model = BatchChain(p_s=0.8, p_y=0.7)
    direct = lemma2_eps_dp(1.0, 5000, model.privacy_chain(10))
    assert model.dp_level_for_bdp(1.0, 5000, 10, "lemma2").eps_dp == direct.eps_dp


def test_a_config_on_top_that_names_another_model_replaces_the_model_block(tmp_path):
    """config.yaml gives zhao-fig3 a batch chain (p_s, p_y, b); a file on top that switches to attribute_chains must
    not inherit those keys, while a later file's model keys still merge."""
    from adaptive_repro.pipeline import validation

    base = tmp_path / "base.yaml"
    base.write_text("experiments:\n  zhao-fig3:\n    n: 10\n    model: {p_s: 0.9, p_y: 0.9, b: 0.1}\n")
    switch = tmp_path / "switch.yaml"
    switch.write_text("experiments:\n  zhao-fig3:\n    model: {name: attribute_chains, lam: 1.0}\n")
    tweak = tmp_path / "tweak.yaml"
    tweak.write_text("experiments:\n  zhao-fig3:\n    model: {rho: 0.5}\n")
    files = [base, switch, tweak]
    merged: dict = {}
    for f in files:
        merged = validation.merged(merged, validation.load_config_file(f))
    assert set(merged["experiments"]["zhao-fig3"]["model"]) == {"name", "p_s", "p_y", "b", "lam", "rho"}
    out = validation.with_model_blocks_replaced(merged, files)
    assert out["experiments"]["zhao-fig3"]["model"] == {"name": "attribute_chains", "lam": 1.0, "rho": 0.5}
    assert out["experiments"]["zhao-fig3"]["n"] == 10
    assert validation.with_model_blocks_replaced(merged, [base]) == merged  # no file names a model: unchanged


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, m in MODELS.items() if m.supports("shared_state_means")))
def test_removing_the_shared_state_leaves_each_attributes_own_iid_noise(name):
    """The analyst of ``remove_shared_state`` (simulation.analyst.remove_shared_state): on data sets drawn record by
    record, the residual statistics of null attributes vary like i.i.d. ones, n Var(w) = 1 (the raw ones like V), and
    the residuals of different attributes are not correlated across data sets, as the shared state made the raw ones."""
    model, reps = MODELS[name], 600
    pop = model.population(np.random.default_rng(3), 400, 300, 0, 6.0)
    means = model.shared_state_means(pop)
    raw = 2.0 * (direct_sign_queries(model, pop, reps, 9) - 0.5)
    residual = np.array([analyst.remove_shared_state(w, means) for w in raw])
    n_var_raw, n_var_residual = pop.n * raw.var(axis=0, ddof=1), pop.n * residual.var(axis=0, ddof=1)
    if means.shape[1] == 0:  # no shared state (attribute chains): nothing to remove
        np.testing.assert_array_equal(residual, raw)
        return
    # the raw statistics are inflated (not vacuous); the residuals' variance is i.i.d. up to the fit's G - 1 of d
    assert n_var_raw.mean() > 1.5, n_var_raw.mean()
    # given the states, w_j = shared part + own noise e_j, n Var(e_j) = 4 mean_g F_jg (1 - F_jg), independent over j;
    # the fit removes the shared part exactly and leaves (I - H) e, H the hat matrix of the directions
    own = 4.0 * np.mean(means * (1.0 - means), axis=1)
    directions = 2.0 * (means - means.mean(axis=1, keepdims=True))
    hat = directions @ np.linalg.pinv(directions)
    expected = np.diag((np.eye(pop.d) - hat) @ np.diag(own) @ (np.eye(pop.d) - hat))
    ratio = n_var_residual / expected
    assert abs(ratio.mean() - 1.0) < 0.03, (ratio.mean(), n_var_raw.mean())  # SE about 0.005
    pairs_raw = np.corrcoef(raw.T)[np.triu_indices(pop.d, 1)]
    pairs_residual = np.corrcoef(residual.T)[np.triu_indices(pop.d, 1)]
    assert np.abs(pairs_raw).mean() > 0.1
    assert np.abs(pairs_residual).mean() < 1.5 / np.sqrt(reps)  # ~ sqrt(2/pi)/sqrt(reps) for uncorrelated pairs


def test_removing_the_shared_state_keeps_bottoms_and_a_fit_it_cannot_make():
    means = np.array([[0.7, 0.3], [0.4, 0.6], [0.55, 0.45], [0.5, 0.5]])
    w = np.array([0.1, np.nan, -0.2, 0.05])
    out = analyst.remove_shared_state(w, means)
    assert np.isnan(out[1]) and np.all(np.isfinite(out[[0, 2, 3]]))
    direction = 2 * (means - means.mean(axis=1, keepdims=True))[:, 0]
    assert abs(np.dot(out[[0, 2, 3]], direction[[0, 2, 3]])) < 1e-12  # the residual is orthogonal to the direction
    np.testing.assert_array_equal(analyst.remove_shared_state(w, means[:, :1]), w)  # one state: nothing shared
    np.testing.assert_array_equal(analyst.remove_shared_state(np.array([0.1, np.nan, np.nan, np.nan]), means),
                                  [0.1, np.nan, np.nan, np.nan])  # no more finite entries than columns
