"""zhao-estimated-v: the batch-means estimate against the closed-form V and statsmodels' HAC variance, Algorithm 1's
per-query thresholds, the spec's shared data sets, and rows that come out every way."""
import numpy as np
import pandas as pd
import pytest

from adaptive_repro.outputs.zhao import estimated_v as zev
from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.validation import experiment_spec
from adaptive_repro.simulation.data_models import sample_symmetric_chain
from adaptive_repro.simulation.inflation import batch_means_inflation, cluster_robust_inflation, floored
from adaptive_repro.simulation.mechanisms.algorithm1 import ZhaoAlgorithm1
from adaptive_repro.simulation.models.households import Households


def _chain_indicators(rng, n, columns, p_stay):
    return np.column_stack([(sample_symmetric_chain(rng, n, p_stay) + 1) / 2 for _ in range(columns)])


@pytest.mark.parametrize("p_stay", [0.5, 0.75, 0.9])
def test_batch_means_recover_the_closed_form_inflation(p_stay):
    """A two-state chain's indicator has autocorrelation theta^l, theta = 2p - 1: V = (1 + theta) / (1 - theta)."""
    theta = 2 * p_stay - 1
    u = _chain_indicators(np.random.default_rng(1), 100_000, 40, p_stay)
    v_hat = batch_means_inflation(u)
    assert v_hat.mean() == pytest.approx((1 + theta) / (1 - theta), rel=0.06)


@pytest.mark.slow
def test_batch_means_agree_with_statsmodels_hac():
    """The same long-run variance by statsmodels' HAC (Bartlett kernel, bandwidth = the batch size) on a few
    columns: the two estimates of V agree within 15% on average."""
    import statsmodels.api as sm

    n = 20_000
    u = _chain_indicators(np.random.default_rng(2), n, 6, 0.9)
    b = int(np.sqrt(n))
    hac = []
    for j in range(u.shape[1]):
        fit = sm.OLS(u[:, j], np.ones(n)).fit(cov_type="HAC", cov_kwds={"maxlags": b})
        hac.append(fit.bse[0] ** 2 * n / u[:, j].var(ddof=1))
    assert np.mean(batch_means_inflation(u)) == pytest.approx(np.mean(hac), rel=0.15)


def test_cluster_robust_estimate_recovers_the_households_closed_form():
    """Households of 20 (V about 8 by the closed form of docs/METHODS.md §4b): the cluster-robust estimate over the
    known households, averaged over 60 data sets, recovers each attribute's V (CR0 is low by about 1/G, G = 100)."""
    model = Households(size=20, b=1.0)
    rng = np.random.default_rng(4)
    pop = model.population(rng, 2000, 40, 0, 0.0)
    clusters = model.record_clusters(pop.n)
    estimates = []
    for _ in range(60):
        x, y, _ = model.sample(rng, pop)
        estimates.append(cluster_robust_inflation(x * y[:, None] > 0, clusters))
    v = model.variance_inflation(pop)
    assert v.mean() > 5  # the households inflate the variance (not vacuous)
    assert np.mean(estimates, axis=0).mean() / v.mean() == pytest.approx(1.0, abs=0.06)
    shuffled = cluster_robust_inflation(x * y[:, None] > 0, rng.permutation(clusters))  # clusters wrong: about 1
    assert shuffled.mean() < 1.5


def test_cluster_robust_estimate_is_statsmodels_cluster_variance():
    """The same number as statsmodels' cluster-robust variance of a mean (CR0: no small-sample correction) over the
    i.i.d. variance Σe²/n², column by column."""
    import statsmodels.api as sm

    rng = np.random.default_rng(5)
    clusters = np.repeat(np.arange(30), rng.integers(1, 12, 30))
    u = (rng.standard_normal((len(clusters), 4)) + rng.standard_normal((30, 4))[clusters]) > 0
    ours = cluster_robust_inflation(u, clusters)
    for j in range(u.shape[1]):
        fit = sm.OLS(u[:, j].astype(float), np.ones(len(clusters))).fit(
            cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": False})
        e = u[:, j] - u[:, j].mean()
        assert ours[j] == pytest.approx(fit.bse[0] ** 2 * len(e) ** 2 / np.sum(e**2), rel=1e-9)


def test_estimates_are_floored_at_one_and_need_two_batches():
    assert list(floored(np.array([0.5, np.nan, 3.0]))) == [1.0, 1.0, 3.0]
    with pytest.raises(ValueError, match="at least 2 batches"):
        batch_means_inflation(np.ones((1, 2)))


def test_per_query_thresholds_equal_to_t_give_algorithm_1_exactly():
    rng = np.random.default_rng(3)
    q_train, q_holdout = rng.uniform(0.4, 0.6, 60), rng.uniform(0.4, 0.6, 60)
    plain = ZhaoAlgorithm1(np.random.default_rng(9), 0.01, 0.05, 5).answer_queries(q_train, q_holdout)
    per_query = ZhaoAlgorithm1(np.random.default_rng(9), 0.01, 0.05, 5).answer_queries(
        q_train, q_holdout, np.full(60, 0.05))
    np.testing.assert_array_equal(plain, per_query)
    wide = ZhaoAlgorithm1(np.random.default_rng(9), 0.01, 0.05, 5)
    wide.answer_queries(q_train, q_holdout, np.full(60, 0.5))  # T_i far above every |train - holdout|
    assert wide.over_events == 0


@pytest.fixture(scope="module")
def built():
    spec = experiment_spec("zhao-estimated-v", dict(
        replicates=4, d=60, n_grid=[400], alg1={"budget": 20, "epsilon": 3.0},
        structures=[{"name": "regimes", "states": 10, "stay": 0.9704, "b": 1.0},
                    {"name": "attribute_chains", "lam": 3.0, "rho": 0.0},
                    {"name": "households", "size": 22, "b": 1.0}]))
    records = spec.run_replicates(5, range(4))
    return spec, records, catalogue.build("zhao-estimated-v", {"seed": 5},
                                          {"records": records, "specs": {"zhao-estimated-v": spec}})


def test_every_threshold_sees_the_same_data_and_the_estimates_are_as_documented(built):
    spec, records, (table, fig, claims) = built
    assert set(records["variant"]) == set(zev.WORDS)
    clustered = records[records["variant"] == "v_hat_clusters"]
    assert set(clustered["structure"]) == {"households"}  # only where the clusters are known
    houses = records[(records["structure"] == "households") & (records["variant"] == "v_hat")]
    assert clustered["v_hat_mean"].mean() > houses["v_hat_mean"].mean()  # batch means (b = 20 < 22) are low
    assert "households-v8-cluster-v-hat-answers" in {c.claim_id for c in claims}
    assert (records.groupby(["experiment", "replicate", "n"])["candidates"].nunique() == 1).all()
    chains = records[records["experiment"].str.contains("regimes")]
    iid = records[records["experiment"].str.contains("attribute_chains")]
    estimate = chains[chains["variant"] == "v_hat"]["v_hat_mean"].mean()
    assert estimate > 3 * iid[iid["variant"] == "v_hat"]["v_hat_mean"].mean()  # V about 20 against V = 1
    shuffled = chains[chains["variant"] == "v_hat_order_unknown"]["v_hat_mean"].mean()
    assert shuffled < 2 < estimate  # without the order the dependence is invisible
    assert {c.claim_id.split("-v")[0] for c in claims} >= {"regimes", "attribute_chains", "households"}
    assert fig.get_suptitle().startswith("T√V̂ per query: ≥ 90% of data sets answer")


def _table(fractions: dict, se=0.01, tails=None, replicates=100, pairs=None):
    """A hand-made table: ``fractions`` gives each (variant, n)'s share of data sets answering >= 90%, ``pairs`` its
    discordant tail counts against V̂ per query (V̂ per query only, this variant only)."""
    rows = []
    for (variant, n), f in fractions.items():
        rows.append(dict(experiment="p", structure="households", n=n, variant=variant, answered_fraction=f,
                         answered_fraction_se=se, replicates=replicates, V=8.0, v_hat_mean=6.0, v_hat_max=15.0,
                         data_sets_answering_90=f, data_sets_answering_90_count=round(f * replicates),
                         data_sets_answering_under_20=(tails or {}).get((variant, n), 0.0),
                         tail_v_hat_only=(pairs or {}).get((variant, n), (0, 0))[0],
                         tail_here_only=(pairs or {}).get((variant, n), (0, 0))[1], max_error_units=2.0))
    return pd.DataFrame(rows)


def _all(v_hat, iid=0.3, order=0.3, v_max=1.0):
    return {(v, n): f for n in (1000, 3000) for v, f in
            (("iid", iid), ("v_known", 1.0), ("v_hat", v_hat), ("v_hat_max", v_max), ("v_hat_order_unknown", order))}


@pytest.mark.parametrize("v_hat, iid, status", [(0.99, 0.3, "holds"), (0.6, 0.3, "does not hold"),
                                                (0.99, 0.95, "not checked"), (0.9, 0.3, "not checked")])
def test_the_estimate_row_needs_a_failing_control(v_hat, iid, status):
    rows = {c.claim_id: c for c in zev.claims(_table(_all(v_hat, iid)))}
    row = rows["households-v8-v-hat-answers"]
    assert row.status == status
    assert ("no power" in row.measured) == (iid > 0.9)


def test_twenty_of_twenty_data_sets_answering_is_not_holds():
    """Every one of 20 data sets answers: a mean ± 3 SE over data sets has SE 0 and would say "holds"; the exact
    interval of 20/20 reaches 0.72, so the row is undecided and names the replicates that would decide it."""
    rows = {c.claim_id: c for c in zev.claims(_table(_all(1.0, iid=0.0), replicates=20))}
    row = rows["households-v8-v-hat-answers"]
    assert row.status == "not checked" and "20/20 data sets" in row.measured
    assert "about 63 replicates would decide it" in row.measured, row.measured


def test_tail_and_order_rows_come_out_every_way():
    """The worst-case row is McNemar's exact test on the data sets where exactly one of V̂ per query and max V̂ answers
    < 20%: 10 of 10 such data sets on V̂ per query's side decide it (the interval's low end 0.0013^(1/10) > ½), 1 of 1
    does not, a tail only with max V̂ does not hold, no discordant data set is undecided."""
    tails = {("v_hat", 1000): 0.1}
    rows = {c.claim_id: c.status for c in zev.claims(_table(_all(0.99), tails=tails,
                                                            pairs={("v_hat_max", 1000): (10, 0)}))}
    assert rows["households-v8-worst-case-v-hat-removes-the-tail"] == "holds"
    assert rows["households-v8-v-hat-needs-the-record-order"] == "holds"
    rows = {c.claim_id: c.status for c in zev.claims(_table(_all(0.99, order=1.0), tails=tails | {
        ("v_hat_max", 3000): 0.12}, pairs={("v_hat_max", 3000): (0, 12)}))}
    assert rows["households-v8-worst-case-v-hat-removes-the-tail"] == "does not hold"
    assert rows["households-v8-v-hat-needs-the-record-order"] == "does not hold"
    rows = {c.claim_id: c for c in zev.claims(_table(_all(0.99), pairs={("v_hat_max", 1000): (1, 0)}))}
    assert rows["households-v8-worst-case-v-hat-removes-the-tail"].status == "not checked"
    assert "replicates would decide it" in rows["households-v8-worst-case-v-hat-removes-the-tail"].measured
    rows = {c.claim_id: c for c in zev.claims(_table(_all(0.99)))}
    assert rows["households-v8-worst-case-v-hat-removes-the-tail"].status == "not checked"
    assert "no tail to remove" in rows["households-v8-worst-case-v-hat-removes-the-tail"].measured


def test_tail_pairs_count_the_data_sets_where_exactly_one_variant_is_in_the_tail():
    """Four data sets: in the tail with both, with V̂ per query only, with max V̂ only, with neither."""
    per_replicate = {"v_hat": [0.1, 0.1, 0.9, 0.9], "v_hat_max": [0.1, 0.9, 0.1, 0.9]}
    records = pd.DataFrame([dict(experiment="p", structure="households", n=1000, variant=v, replicate=i,
                                 answered_fraction=f, d=500, V=8.0, v_hat_mean=6.0, v_hat_max=15.0, sigma=0.01,
                                 threshold=0.1, candidates=100, max_error_units=1.0, theorem2_failure=0)
                            for v, fs in per_replicate.items() for i, f in enumerate(fs)])
    table = zev.estimated_v_table(records).set_index("variant")
    assert (table.loc["v_hat_max", "tail_v_hat_only"], table.loc["v_hat_max", "tail_here_only"]) == (1, 1)
    assert (table.loc["v_hat", "tail_v_hat_only"], table.loc["v_hat", "tail_here_only"]) == (0, 0)
