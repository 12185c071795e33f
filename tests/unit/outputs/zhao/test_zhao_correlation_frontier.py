"""zhao-correlation-frontier: the spec runs each structure on its own exact engine, the same data serve every
calibration, the calibrations differ exactly as documented (sigma = 9B/(4 n eps'), T times sqrt(V)), the mechanism the
rows state is what a simulation shows, and the verdicts follow the measured fractions (including "undecided")."""
import numpy as np
import pandas as pd
import pytest

from adaptive_repro.outputs.zhao import correlation_frontier as zhao_correlation_frontier
from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.validation import experiment_spec

STRUCTURES = [{"name": "attribute_chains", "lam": 3.0, "rho": 0.9061},  # V about 20
              {"name": "households", "size": 22, "b": 1.0}]  # V about 8
N_GRID = [1000, 100_000, 10_000_000]


@pytest.fixture(scope="module")
def built():
    spec = experiment_spec("zhao-correlation-frontier", dict(replicates=8, d=300, n_grid=N_GRID,
                                                             alg1={"budget": 20, "epsilon": 3.0},
                                                             structures=STRUCTURES))
    records = spec.run_replicates(11, range(8))
    return spec, records, catalogue.build("zhao-correlation-frontier", {"seed": 11},
                                          {"records": records, "specs": {"zhao-correlation-frontier": spec}})


def test_each_structure_runs_on_its_own_exact_engine_with_its_own_streams(built):
    spec, records, _ = built
    names = [name for name, _, _ in spec.points]
    assert names[0] == "zhao-correlation-frontier@attribute_chains:lam=3,rho=0.9061"
    assert [engine.name for _, _, engine in spec.points] == ["exact_chains", "exact"]
    assert set(records["experiment"]) == set(names)
    assert len(records) == 8 * len(STRUCTURES) * len(N_GRID) * len(spec.calibrations)


def test_every_calibration_sees_the_same_data(built):
    _, records, _ = built
    per_data = records.groupby(["experiment", "replicate", "n"])[["candidates", "gap_units"]].nunique()
    assert (per_data == 1).all().all()


def test_calibrations_differ_as_documented(built):
    spec, records, _ = built
    one = records[records["replicate"] == 0].set_index(["experiment", "n", "calibration"])
    for name, model, _ in spec.points:
        for n in N_GRID:
            r = one.loc[(name, n)]
            budget, eps = spec.alg1.budget, spec.alg1.epsilon
            assert r.loc["dp", "sigma"] == pytest.approx(9 * budget / (4 * n * eps))  # Zhao 2017 §3
            eps_prime = model.dp_level_for_bdp(eps, n, spec.d, "lemma2").eps_dp
            assert r.loc["bdp", "sigma"] == pytest.approx(9 * budget / (4 * n * eps_prime))
            assert r.loc["bdp_effective_n", "sigma"] == pytest.approx(r.loc["bdp", "sigma"])
            assert r.loc["dp", "threshold"] == pytest.approx(3.0 / np.sqrt(n))  # 6 units of 1/(2 sqrt(n))
            for cal in ("dp_effective_n", "bdp_effective_n"):
                assert r.loc[cal, "threshold"] == pytest.approx(3.0 / np.sqrt(n) * np.sqrt(r.loc[cal, "V"]))


def test_without_the_threshold_for_n_over_v_more_records_do_not_help(built):
    """The rows' mechanism: at V about 20 the DP calibration (sigma negligible against T at n = 1e7) still spends its
    budget, while the same sigma with T for n/V answers everything."""
    _, records, _ = built
    strong = records[(records["experiment"].str.contains("attribute_chains")) & (records["n"] == 10_000_000)]
    by_cal = strong.groupby("calibration")["answered_fraction"].mean()
    assert (strong.loc[strong["calibration"] == "dp", "sigma"] / strong["threshold"].min() < 0.01).all()
    assert by_cal["dp"] < 0.5 and by_cal["dp_effective_n"] >= 0.95


def test_claims_and_figure(built):
    spec, _, (table, fig, claims) = built
    ids = {c.claim_id: c for c in claims}
    tag = "attribute_chains-v20"
    assert ids[f"{tag}-bdp-answers-at-some-n"].status == "does not hold"
    assert "The DP calibration, whose σ is smaller" in ids[f"{tag}-bdp-answers-at-some-n"].measured
    assert all(c.kind == "project" for c in claims)
    # the verdict in words (at most two lines at the figure's width) and one settings line
    verdict_line, setting_line = fig.get_suptitle().split("\n")  # one verdict, one settings line
    assert verdict_line.startswith("Bayesian-DP Algorithm 1") and len(verdict_line) <= 90
    assert "i.i.d." not in fig.get_suptitle() and "× DP" not in fig.get_suptitle()
    # a row per threshold (ignoring correlation, for n/V), panel titles of at most two short lines; the legend's
    # "first n" entry is drawn as the open star at the frontier (STAR_SIZE; the curves' markers are smaller), and the
    # legend groups the calibrations before the line styles
    panels = [ax for ax in fig.axes if ax.get_subplotspec()]
    assert {ax.get_subplotspec().get_geometry()[:2] for ax in panels} == {(2, len(panels) // 2)}
    assert all(ax.get_title().count("\n") <= 1 for ax in panels)
    (legend,) = fig.legends
    entry = {t.get_text(): h for t, h in zip(legend.get_texts(), legend.legend_handles)}
    first_n = [h for t, h in entry.items() if t.startswith("first n")]
    drawn = {(ln.get_marker(), ln.get_markeredgecolor()) for ax in panels for ln in ax.lines
             if ln.get_markersize() == zhao_correlation_frontier.STAR_SIZE}
    assert first_n and all((h.get_marker(), h.get_markeredgecolor()) in drawn for h in first_n)
    labels = list(entry)
    strengths = [i for i, t in enumerate(labels) if t.startswith("V ≈")]
    calibrations = [i for i, t in enumerate(labels) if "calibration" in t and not t.startswith(("first", "Bayesian-DP "
                                                                                               "calibration still"))]
    assert strengths and max(calibrations) < min(strengths) and strengths == list(range(strengths[0],
                                                                                         strengths[-1] + 1))
    first = table.drop_duplicates(["experiment", "calibration"]).set_index(["experiment", "calibration"])
    assert np.isfinite(first.loc[(spec.points[0][0], "dp_effective_n"), "first_n_answering_90"])


def _records(fractions: dict[int, list[float]], calibration: str = "bdp") -> pd.DataFrame:
    rows = [("p", rep, "households", calibration, n, 100, 8.0, 20, 1e-3, 0.01, 0.1, 100, int(100 * f), f, 20, 2.0,
             f, 1.0, 1.0, 0) for n, fs in fractions.items() for rep, f in enumerate(fs)]
    return pd.DataFrame(rows, columns=["experiment", "replicate", "structure", "calibration", "n", "d", "V", "budget",
                                       "sigma", "threshold", "eps_dp", "candidates", "answered",
                                       "answered_fraction", "over_events", "gap_units", "answered_fraction_noiseless",
                                       "answered_fraction_iid", "max_error_units", "theorem2_failure"])


@pytest.mark.parametrize("last, status", [([1.0] * 75 + [0.9] * 5, "holds"),  # 80 of 80 data sets answer
                                          ([0.1, 0.2, 0.15, 0.1] * 20, "does not hold"),
                                          ([1.0] * 70 + [0.4] * 10, "not checked")])  # 70/80: straddles 90%
def test_bdp_row_status_follows_the_measured_fractions(last, status):
    from adaptive_repro.outputs.zhao import correlation_frontier as zcf

    table = zcf.frontier_table(_records({1000: [0.1, 0.1, 0.2, 0.1], 10_000: last}))
    (row,) = [c for c in zcf.claims(table, spec=None) if c.claim_id.endswith("bdp-answers-at-some-n")]
    assert row.status == status
    first = table["first_n_answering_90"].iloc[0]  # the mean's frontier, drawn as the star
    if status != "not checked":
        assert first == 10_000 if status == "holds" else np.isnan(first)


def test_a_single_structure_builds():
    """One point only (a researcher's own config): the headline and claims do not depend on several points."""
    spec = experiment_spec("zhao-correlation-frontier", dict(replicates=3, d=100, n_grid=[1000, 100_000],
                                                             structures=[{"name": "households", "size": 22, "b": 1.0}]))
    records = spec.run_replicates(3, range(3))
    table, fig, claims = catalogue.build("zhao-correlation-frontier", {"seed": 3},
                                         {"records": records, "specs": {"zhao-correlation-frontier": spec}})
    assert fig.get_suptitle().startswith("Bayesian-DP Algorithm 1")
    ids = {c.claim_id for c in claims}
    assert {"households-v8-bdp-answers-at-some-n", "households-v8-bdp-effective-n-frontier",
            "households-v8-bdp-buys-validity"} <= ids
    assert all(i.startswith("households-v8-") for i in ids)


def test_powers_and_structure_verdicts():
    from adaptive_repro.outputs.zhao import correlation_frontier as zcf

    assert zcf.power_text(1e5) == "10⁵" and zcf.power_text(3e7) == "3×10⁷"
    table = zcf.frontier_table(pd.concat([_records({1000: [0.1] * 4, 10_000: [1.0] * 4}, "bdp_effective_n"),
                                          _records({1000: [0.1] * 4, 10_000: [0.2] * 4}, "bdp")]))
    assert zcf.bdp_verdict(table, "bdp") == "Bayesian DP ≥ 90%: at no n"
    assert zcf.bdp_verdict(table, "bdp_effective_n") == "Bayesian DP ≥ 90% from\nn = 10⁴ (V ≈ 8)"
    assert zcf.headline(table) == "Bayesian-DP Algorithm 1 answers 90% only with an n/V threshold, first at n = 10⁴"
    never = zcf.frontier_table(pd.concat([_records({1000: [0.1] * 4, 10_000: [0.3] * 4}, "bdp_effective_n"),
                                          _records({1000: [0.1] * 4, 10_000: [0.2] * 4}, "bdp")]))
    assert zcf.headline(never) == "Bayesian-DP Algorithm 1 never answers 90% at n ≤ 10⁴ with either threshold"


@pytest.mark.parametrize("bdp_first, status", [(1e4, "holds"), (1e5, "not checked")])
def test_a_frontier_on_the_grids_last_point_is_not_established(bdp_first, status):
    """The Bayesian-DP calibration with T for n/V first answering 90% at the grid's last n is "not checked": one
    more grid point could undo it; the price is named a lower bound where the DP frontier is the grid's first n."""
    import pandas as pd

    from adaptive_repro.outputs.zhao import correlation_frontier as zcf

    rows = []
    for cal, first in (("dp_effective_n", 1e3), ("bdp_effective_n", bdp_first)):
        for n in (1e3, 1e4, 1e5):
            rows.append({"experiment": "p", "structure": "households", "V": 8.0, "calibration": cal, "n": n,
                         "first_n_answering_90": first, "answered_fraction": 1.0, "answered_fraction_se": 0.0,
                         "eps_dp": 0.1, "d": 500, "data_sets_answering_90": 1.0, "data_sets_answering_under_20": 0.0,
                         "answered_median": 1.0, "threshold": 0.03, "sigma": 0.01, "replicates": 100,
                         "data_sets_answering_90_count": 100 if n >= first else 0})
    (row,) = [c for c in zcf.claims(pd.DataFrame(rows), None) if c.claim_id.endswith("bdp-effective-n-frontier")]
    assert row.status == status, row.measured
    assert "a lower bound" in row.measured and "d = 500" in row.measured
    assert ("Not established" in row.measured) == (status == "not checked")
