"""zhao-correlation on a small grid simulated for real: one spec runs every structure, the table has a row per
(point, arm), the figure names each arm by its own words, and the claims answer the questions per structure."""
import types

import numpy as np
import pytest

from adaptive_repro.foundation.registry import STATUSES
from adaptive_repro.outputs.zhao import correlation as zc
from adaptive_repro.outputs.zhao import correlation_figure as zf
from adaptive_repro.outputs.zhao import correlation_verdicts as zv
from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.validation import experiment_spec

STRUCTURES = [{"name": "batch_chain", "p_s": 0.5, "p_y": 0.5, "b": 1.0},
              {"name": "batch_chain", "p_s": 0.95, "p_y": 0.95, "b": 1.0},
              {"name": "attribute_chains", "lam": 3.0, "rho": 0.0},
              {"name": "attribute_chains", "lam": 3.0, "rho": 0.8},
              {"name": "attribute_chains", "lam": 3.0, "rho": 0.9}]
ARMS = ["standard", "thresholdout_effective_n", "zhao_alg1_dp", "zhao_alg1_bdp", "zhao_alg1_dp_effective_n"]


@pytest.fixture(scope="module")
def built():
    spec = experiment_spec("zhao-correlation", dict(n=600, d=200, replicates=6, k_grid=[0, 10, 30], query="sign",
                                                    mechanisms=ARMS, alg1={"budget": 10, "epsilon": 3.0},
                                                    structures=STRUCTURES))
    records, diagnostics = spec.run_replicates(4, range(6), with_diagnostics=True)
    return spec, records, catalogue.build("zhao-correlation", {"seed": 4},
                                          {"records": records, "diagnostics": diagnostics,
                                           "specs": {"zhao-correlation": spec}})

def per_session(table):
    """A hand-made point table with the per-session columns :func:`zc.point_table` writes: the answered count from
    the answered fraction, the gap against the population (null labels: at most 0.5), no session over T."""
    import pandas as pd

    table = table.copy()
    answered_n = table["answered_n"] if "answered_n" in table else pd.Series(100, index=table.index)
    table["answered_count"] = (table["answered"] * answered_n).round().astype(int)
    for column, value in (("largest_gap", 0.5), ("gap_reference", "population"), ("sessions_over_t", 0),
                          ("only_this_answered", 0), ("only_partner_answered", 0)):
        if column not in table:
            table[column] = value
    return table


#: A spec with no protected arm and Dwork's analyst as it is: only the standard rows are read.
NO_ARMS = types.SimpleNamespace(points=[types.SimpleNamespace(arms=(), remove_shared_state=False)])


def test_one_spec_runs_every_point_with_its_own_name(built):
    spec, records, _ = built
    assert set(records["experiment"]) == set(spec.record_experiments())
    assert len(spec.points) == len(STRUCTURES)
    assert spec.points[1].name == "zhao-correlation@batch_chain:b=1,p_s=0.95,p_y=0.95"


def test_table_has_a_row_per_point_and_arm_with_v_and_both_units(built):
    spec, _, (table, fig, claims) = built
    assert len(table) == len(STRUCTURES) * len(ARMS)
    first = table[table["point"] == spec.points[0].name]
    assert np.allclose(first["V"], 1.0)  # p = 0.5: independent records
    std = table[table["mechanism"] == "standard"]
    np.testing.assert_allclose(std["gap_true_se_units"] * np.sqrt(std["V"]), std["gap_iid_se_units"])
    assert table.loc[table["mechanism"] == "zhao_alg1_dp_effective_n", "threshold"].iloc[-1] > \
        table.loc[table["mechanism"] == "zhao_alg1_dp", "threshold"].iloc[-1]  # T grows like sqrt(V)


def test_claims_per_structure_with_valid_statuses_and_arm_words(built):
    _, _, (table, fig, claims) = built
    ids = {c.claim_id: c for c in claims}
    for structure in ("batch_chain", "attribute_chains"):
        assert f"{structure}-correlation-worsens-naive-reuse" in ids
        assert f"{structure}-zhao_alg1_dp-valid" in ids and f"{structure}-zhao_alg1_bdp-valid" in ids
        assert f"{structure}-thresholdout_effective_n-restores" in ids
    assert all(c.status in STATUSES and c.kind == "project" for c in claims)
    assert "Algorithm 1, DP calibration" in ids["attribute_chains-zhao_alg1_dp-valid"].claim
    titles = [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else []
    assert "Thresholdout for n/V (V known)" in titles and zf.T_LEGEND in titles
    # the Algorithm 1 calibrations' entries say what Bayesian-DP level they certify (the session's ε for Bayesian DP)
    assert "Algorithm 1, Bayesian-DP calibration: certifies ε = 3" in titles
    assert any(t.startswith("Algorithm 1, DP calibration: certifies") for t in titles)


@pytest.mark.parametrize("gaps, status", [([0.02, 0.04, 0.06, 0.08], "holds"),  # slope far above 3 SE
                                          ([0.05, 0.04, 0.03, 0.02], "does not hold"),  # decreasing
                                          ([0.020, 0.021, 0.026, 0.024], "not checked")])  # 1-3 SE: undecided
def test_worsens_row_is_three_way(gaps, status):
    import pandas as pd


    v = np.array([1.0, 3.0, 8.0, 20.0])
    table = pd.DataFrame({"structure": "households", "mechanism": "standard", "V": v, "gap_mean": gaps,
                          "gap_se": 0.002, "gap_iid_se_units": 1.0, "gap_true_se_units": 1.0, "replicates": 40,
                          "largest_gap": 0.5})
    no_arms = NO_ARMS
    (row,) = [c for c in zc.claims(table, no_arms) if c.claim_id.endswith("worsens-naive-reuse")]
    assert row.status == status
    assert ("Undecided" in row.measured) == (status == "not checked")


def test_verdicts_are_computed_from_the_validity_test(built):
    """The title answers the question from the rows' own validity test: where Algorithm 1 breaks and how; each
    structure's panel states its own verdict, and the points where an arm is not valid are ringed."""
    import pandas as pd


    def rows(arm, answered, v=(1.0, 3.0, 8.0)):
        return pd.DataFrame({"structure": "households", "mechanism": arm, "V": list(v), "k": 50, "feasible": True,
                             "answered": answered, "gap_mean": 0.01, "gap_se": 0.01, "threshold": 0.1,
                             "certified_bdp": 3.0, "eps_session": 3.0, "replicates": 40, "answered_n": 100})
    table = pd.concat([rows("zhao_alg1_dp", [1.0, 0.5, 0.2]), rows("zhao_alg1_bdp", [1.0, 1.0, 0.0]),
                       rows("thresholdout_effective_n", [1.0, 1.0, 1.0])])
    table = per_session(table)
    assert zv.first_break(table[table["mechanism"] == "zhao_alg1_dp"]) == (3.0, "budget")
    assert zv.structure_verdict(table) == "DP < 90% from V = 3\nBDP < 90% from V = 8\nn/V undecided"  # no control
    assert zv.remedy_state(table) == ("undecided", None)
    assert zv.headline(table) == ("From V = 3, DP-calibrated Algorithm 1 (i.i.d. T) answers < 90% in all 1 "
                                  "structures; n/V arms untested (no power)")
    # where the Bayesian-DP calibration fails the same way no later, the title's verdict is both calibrations'
    both = per_session(pd.concat([rows("zhao_alg1_dp", [1.0, 0.5, 0.2]), rows("zhao_alg1_bdp", [1.0, 0.3, 0.0]),
                                  rows("thresholdout_effective_n", [1.0, 1.0, 1.0])]))
    assert zv.headline(both).startswith("From V = 3, Algorithm 1 (either calibration, i.i.d. T) answers < 90% in all 1")
    dp_arm = types.SimpleNamespace(name="zhao_alg1_dp", display_name="DP arm")
    assert zv.certified_label(table.assign(certified_bdp=[3.0, 21.0, 355.0] * 3), dp_arm) == (
        "DP arm: certifies only ε = 21–355 at V ≥ 3")  # the levels from V = 3 on, above the session's ε = 3
    _, _, (_, fig, claims) = built
    invalid = sum(c.status == "does not hold" for c in claims if c.claim_id.endswith("-valid"))
    rings = [c for ax in fig.axes for c in ax.collections if c.get_gid() == "encoding:violation"]
    assert fig.get_figwidth() <= 10 and (len(rings) > 0) == (invalid > 0)
    # one ring per point where an arm with a threshold fails the claims' validity test, and nowhere else
    not_valid = sum(not zf._valid(r)[0] for r in built[2][0].itertuples() if np.isfinite(r.threshold)
                    and (zf._valid(r)[1].startswith(("budget", "infeasible")) or r.replicates >= zf.MIN_DRAWN))
    assert sum(len(c.get_offsets()) for c in rings) == not_valid
    # the top row is in one unit, the i.i.d. SE 1/(2 sqrt(n)): the standard holdout is drawn, and so is every arm that
    # answers throughout, with its T in that unit as a short bar at each V in its colour
    from adaptive_repro.simulation.registries import ARMS

    top = fig.axes[0]
    assert any(line.get_gid() == "encoding:standard" for line in top.lines)
    table = built[2][0]
    first = table[table["structure"] == table["structure"].iloc[0]]
    answering = zf.answering_arms(table, [ARMS.get(m) for m in first["mechanism"].unique()
                                          if first.loc[first["mechanism"] == m, "threshold"].notna().any()])
    assert answering, "no protected arm answers throughout: the check below would be vacuous"
    for arm in answering:
        assert any(line.get_gid() == f"encoding:{arm.name}" for line in top.lines), arm.name
        rows = first[first["mechanism"] == arm.name].sort_values("V")
        expected = np.repeat(rows["threshold"] / (0.5 / np.sqrt(rows["n"])), 2)  # both ends of each V's bar
        t_style = zf.T_STYLES[arm.name in zf.REMEDY_ARMS]  # dashed i.i.d. T, dash-dotted T for n/V
        dashed = [np.asarray(line.get_ydata(), dtype=float) for line in top.lines
                  if line.get_color() == arm.color and line.get_linestyle() == t_style]
        assert any(np.allclose(y[np.isfinite(y)], expected) for y in dashed), arm.name
    # a two-line title (three where the script's Thresholdout overfits); the answered panels carry a verdict only
    # where the structures' verdicts differ
    table = built[2][0]
    assert fig.get_suptitle().count("\n") == zv.headline(table).count("\n") + 1
    verdicts = {zv.structure_verdict(table[table["structure"] == s]) for s in table["structure"].unique()}
    titled = [ax.get_title() for ax in fig.axes if ax.get_ylim()[1] == pytest.approx(1.1) and ax.get_title()]
    assert bool(titled) == (len(verdicts) > 1)


def _power_table(std_gap: float, arm_answered: float = 1.0, answered_n: int = 100):
    import pandas as pd

    v = [1.0, 8.0]
    common = {"structure": "households", "V": v, "point": ["p1", "p8"], "k": 50, "feasible": True,
              "gap_se": 0.005, "threshold": 0.05, "certified_bdp": np.nan, "eps_session": np.nan, "replicates": 100,
              "answered_n": answered_n, "gap_iid_se_units": 1.0, "gap_true_se_units": 1.0, "sigma": 0.0,
              "budget_used": 0.0}
    std = pd.DataFrame(common | {"mechanism": "standard", "gap_mean": std_gap, "answered": 1.0})
    arm = pd.DataFrame(common | {"mechanism": "thresholdout_effective_n", "gap_mean": 0.01, "answered": arm_answered})
    return per_session(pd.concat([std, arm], ignore_index=True))


@pytest.mark.parametrize("std_gap, answered, answered_n, status", [
    (0.2, 1.0, 100, "holds"),           # the standard holdout fails the same test: passing it is evidence
    (0.02, 1.0, 100, "not checked"),    # the standard holdout passes too: no power, never "holds"
    (0.2, 0.95, 40, "not checked"),     # 95% of 40 answered: the interval straddles 90%
    (0.2, 0.5, 100, "does not hold"),   # clearly below 90% answered
])
def test_a_protection_verdict_needs_the_unprotected_arm_to_fail_the_same_test(std_gap, answered, answered_n,
                                                                               status):

    arm = types.SimpleNamespace(name="thresholdout_effective_n", claim_name="Thresholdout for n/V")
    spec = types.SimpleNamespace(points=[types.SimpleNamespace(arms=(arm,), remove_shared_state=False)])
    table = _power_table(std_gap, answered, answered_n)
    (row,) = [c for c in zc.claims(table, spec) if c.claim_id.endswith("-restores")]
    assert row.status == status, row.measured
    assert ("no power at this setting" in row.measured) == (std_gap < 0.05)


@pytest.mark.parametrize("slope_se_scale, exponent, status", [(0.001, 0.5, "holds"), (0.001, 0.3, "does not hold"),
                                                              (0.2, 0.5, "not checked")])
def test_sqrt_v_scaling_holds_only_inside_its_equivalence_margin(slope_se_scale, exponent, status):
    """"Grows like √V" holds only if the slope's whole 3-SE interval lies in ½ ± SLOPE_MARGIN; a slope whose interval
    merely contains ½ is "not checked" with the replicates that would decide it."""
    import pandas as pd


    v = np.array([1.0, 3.0, 8.0, 20.0])
    gaps = 0.02 * v ** exponent
    table = pd.DataFrame({"structure": "households", "mechanism": "standard", "V": v, "gap_mean": gaps,
                          "gap_se": gaps * slope_se_scale, "gap_iid_se_units": 1.0, "gap_true_se_units": 1.0,
                          "replicates": 40, "point": ["a", "b", "c", "d"], "largest_gap": 0.5})
    no_arms = NO_ARMS
    (row,) = [c for c in zc.claims(table, no_arms) if c.claim_id.endswith("scales-like-sqrt-v")]
    assert row.status == status, row.measured
    assert ("replicates would decide" in row.measured) == (status == "not checked")


@pytest.mark.parametrize("gap_at_1, status", [(0.35, "not applicable"), (0.02, "does not hold")])
def test_sqrt_v_scaling_is_tested_only_where_the_gap_has_room_to_grow(gap_at_1, status):
    """A flat gap of 0.35 at V = 1, 3, 8, 20 is no counter-example to √V growth: the law would put it at 0.61-1.57,
    past the largest possible gap 0.5 (holdout accuracy 1 under null labels); the same flat gap at 0.02 leaves room
    (0.02 √20 = 0.09) and does not hold."""
    import pandas as pd

    v = np.array([1.0, 3.0, 8.0, 20.0])
    gaps = np.full(4, gap_at_1)
    table = pd.DataFrame({"structure": "households", "mechanism": "standard", "V": v, "gap_mean": gaps,
                          "gap_se": gaps * 0.001, "gap_iid_se_units": 1.0, "gap_true_se_units": 1.0,
                          "replicates": 40, "point": ["a", "b", "c", "d"], "largest_gap": 0.5})
    (row,) = [c for c in zc.claims(table, NO_ARMS) if c.claim_id.endswith("scales-like-sqrt-v")]
    assert row.status == status, row.measured
    assert ("largest possible gap of 0.50" in row.measured) == (status == "not applicable")


def test_a_slope_inside_the_margin_but_off_one_half_is_not_does_not_hold():
    """Attribute chains' measured slope 0.42 ± 0.01 lies inside ½ ± 0.1 while its 3-SE interval (0.39–0.45) crosses
    0.4: one margin both ways makes it undecided, not "does not hold" (a point-null rejection of ½)."""
    import pandas as pd

    v = np.array([1.0, 3.0, 8.0, 20.0])
    gaps = 0.02 * v ** 0.42
    # log-gap SEs chosen so the weighted slope's SE is 0.01
    x = np.log(v)
    se_log = 0.01 * np.sqrt(np.sum((x - x.mean()) ** 2))
    table = pd.DataFrame({"structure": "attribute_chains", "mechanism": "standard", "V": v, "gap_mean": gaps,
                          "gap_se": gaps * se_log, "gap_iid_se_units": 1.0, "gap_true_se_units": 1.0,
                          "replicates": 70, "point": ["a", "b", "c", "d"], "largest_gap": 0.5})
    (row,) = [c for c in zc.claims(table, NO_ARMS) if c.claim_id.endswith("scales-like-sqrt-v")]
    assert "slope 0.42 ± 0.01" in row.measured
    assert row.status == "not checked" and "Undecided" in row.measured, row.measured


def test_a_threshold_at_or_above_the_largest_possible_gap_cannot_fail():
    """Thresholdout for n/V at V ≈ 20 of the default run has T = 0.566 while holdout − population is at most 0.5 with
    null labels: whatever the data, the gap test passes, so the row says "cannot fail" and is not "holds"."""
    table = _power_table(0.7).assign(threshold=[0.05, 0.566, 0.05, 0.566])
    arm = types.SimpleNamespace(name="thresholdout_effective_n", claim_name="Thresholdout for n/V")
    spec = types.SimpleNamespace(points=[types.SimpleNamespace(arms=(arm,), remove_shared_state=False)])
    (row,) = [c for c in zc.claims(table, spec) if c.claim_id.endswith("-restores")]
    assert row.status == "not checked" and "Cannot fail" in row.measured, row.measured


def test_the_noiseless_arm_answers_exactly_as_algorithm_1_without_noise():
    """sigma = 0: over the threshold iff |holdout − train| > T; then the holdout value exactly and one budget unit;
    the training value otherwise; bottom once the budget is spent (Zhao 2017 Algorithm 1, lines 3-11, no noise)."""
    from adaptive_repro.simulation.mechanisms.algorithm1 import ZhaoAlgorithm1

    train = np.array([0.50, 0.50, 0.50, 0.50, 0.50])
    holdout = np.array([0.55, 0.70, 0.52, 0.20, 0.90])
    mech = ZhaoAlgorithm1(np.random.default_rng(0), sigma=0.0, threshold=0.1, budget=2)
    out = mech.answer_queries(train, holdout)
    expected = [0.50, 0.70, 0.50, 0.20, np.nan]  # |gap| 0.05, 0.20 (over), 0.02, 0.30 (over, budget 0), bottom
    np.testing.assert_array_equal(out, expected)
    assert mech.over_events == 2 and mech.bottoms == 1


def _noise_table(dp_answered, quiet_answered, answered_n=100):
    import pandas as pd

    v = [1.0, 8.0]
    common = {"structure": "households", "V": v, "point": ["p1", "p8"], "k": 50, "feasible": True, "gap_mean": 0.0,
              "gap_se": 0.001, "threshold": 0.1, "replicates": 100, "answered_n": answered_n, "budget": 20.0,
              "gap_iid_se_units": 0.0, "gap_true_se_units": 0.0, "certified_bdp": np.nan, "eps_session": np.nan}
    quiet_only = np.maximum(np.round((np.asarray(quiet_answered) - np.asarray(dp_answered)) * answered_n), 0)
    return per_session(pd.concat([
        pd.DataFrame(common | {"mechanism": "zhao_alg1_dp", "answered": dp_answered, "sigma": 0.02,
                               "budget_used": [5.0, 20.0]}),
        pd.DataFrame(common | {"mechanism": "zhao_alg1_dp_noiseless", "answered": quiet_answered, "sigma": 0.0,
                               "budget_used": [0.0, 20.0], "only_this_answered": quiet_only.astype(int),
                               "only_partner_answered": 0})], ignore_index=True))


@pytest.mark.parametrize("dp, quiet, status", [([1.0, 0.2], [1.0, 0.1], "holds"),           # both fail at V = 8
                                               ([1.0, 0.2], [1.0, 1.0], "does not hold"),   # the noise did it
                                               ([1.0, 1.0], [1.0, 1.0], "not checked")])    # nothing to attribute
def test_noise_or_data_row_attributes_each_failure_to_its_cause(dp, quiet, status):
    from adaptive_repro.outputs.zhao import correlation_claims as zcc

    row = zcc._noise_or_data("households", _noise_table(dp, quiet))
    assert row["status"] == status, row["measured"]
    assert (row["counterexample"] == "V = 8") == (status == "does not hold")


def _power_run(**block):
    """zhao-correlation with the standard holdout and Algorithm 1's DP calibration for n/V, 12 replicates at seed 7:
    (the n/V arm's table row, the standard holdout's, the claims)."""
    spec = experiment_spec("zhao-correlation", dict(
        replicates=12, mechanisms=["standard", "zhao_alg1_dp_effective_n"], query="sign", signal_attributes=0,
        alg1={"budget": 20, "epsilon": 3.0, "threshold_units": 6.0}) | block)
    records = spec.run_replicates(7, range(12))
    table, _, claims = catalogue.build("zhao-correlation", {"seed": 7},
                                       {"records": records, "specs": {"zhao-correlation": spec}})
    rows = table.set_index("mechanism")
    return rows.loc["zhao_alg1_dp_effective_n"], rows.loc["standard"], claims


@pytest.mark.slow
def test_the_power_control_fails_where_naive_reuse_overfits():
    """Where naive reuse overfits (Dwork's regime, d = n, k into the hundreds; attribute chains at V about 20), the
    standard holdout fails the n/V arm's own gap test: its gap − 3 SE exceeds T = 6 true SEs by about 7 SE at this
    setting (a false "passes" has probability about Φ(−7) < 1e-11), while the n/V arm's gap stays below its T; so
    that arm's row is decided with power (answered 12 of 12 is still undecided against 90% at 3 SE)."""
    arm, std, claims = _power_run(n=2000, d=2000, k_grid=[0, 100, 200],
                                  structures=[{"name": "attribute_chains", "lam": 3.0, "rho": 0.9061}])
    assert std.gap_mean - 3 * std.gap_se > arm.threshold  # the control fails the arm's test
    assert arm.gap_mean - 3 * arm.gap_se <= arm.threshold  # the arm passes it
    (row,) = [c for c in claims if c.claim_id == "attribute_chains-zhao_alg1_dp_effective_n-restores"]
    assert "fails at V = 20.1" in row.measured and "no power" not in row.measured


@pytest.mark.slow
def test_the_power_control_fails_in_a_shared_state_structure_with_the_adjusted_analyst():
    """Households (V = 8) where the analyst removes the shared state (remove_shared_state): naive reuse then
    overfits through many attributes' own noise, and the standard holdout fails the n/V arm's gap test (gap − 3 SE
    = 0.31 against T = 0.27 at this seed; the mean gap is 3.2 of its SEs above the pass line, so a run that passes
    has probability about Φ(−3.2) < 0.001): the arm's row is decided with power."""
    arm, std, claims = _power_run(n=1000, d=20000, k_grid=[0, 500, 1000], remove_shared_state=True,
                                  structures=[{"name": "households", "size": 56, "b": 0.5}])
    assert std.gap_mean - 3 * std.gap_se > arm.threshold  # the control fails the arm's test
    (row,) = [c for c in claims if c.claim_id == "households-zhao_alg1_dp_effective_n-restores"]
    assert "fails at V = 8" in row.measured and "no power" not in row.measured
    assert "removes the part the data set's shared latent state explains" in row.claim


@pytest.mark.parametrize("std_gap, arm_gap, state", [(0.5, 0.01, "holds"), (0.05, 0.01, "undecided"),
                                                     (0.5, 0.4, "fails")])
def test_the_figures_n_over_v_verdict_is_the_claims_test(std_gap, arm_gap, state):
    """The title and panel verdict of the arms with a threshold for n/V follow the claims' test: holds only with a
    failing control, fails where a row is invalid (here its gap is far above T = 0.1), else undecided."""
    import pandas as pd


    base = {"structure": "households", "V": [1.0, 8.0], "point": ["a", "b"], "k": 50, "feasible": True,
            "answered": 1.0, "gap_se": 0.01, "certified_bdp": np.nan, "eps_session": np.nan, "replicates": 200,
            "answered_n": 200}
    table = per_session(pd.concat([
        pd.DataFrame(base | {"mechanism": "standard", "gap_mean": std_gap, "threshold": np.nan}),
        pd.DataFrame(base | {"mechanism": "thresholdout_effective_n", "gap_mean": arm_gap, "threshold": 0.1})]))
    assert zv.remedy_state(table) == ((state, 1.0) if state == "fails" else (state, None))
    title = zv.headline(table)
    assert (f"n/V thresholds (V known): {state} in 1 of 1" in title) == (state != "undecided")  # unpowered
    assert ("untested (no power)" in title) == (state == "undecided")  # everywhere: nothing is tested


def _bdp_table(diff: float, diff_se: float, bdp_answered: float = 1.0, std_gap: float = 0.02,
               bdp_sigma: float = 2.5e-4):
    """One point (households V = 8, n = 10^6, 100 sessions): the standard holdout, DP and Bayesian DP for n/V, the
    Bayesian-DP row with its paired columns against its DP partner (final gap Bayesian DP − DP: ``diff``)."""
    import pandas as pd

    common = {"structure": "households", "V": 8.0, "point": "p8", "n": 10**6, "k": 1000, "feasible": True,
              "gap_mean": 0.0, "gap_se": 0.0002, "threshold": 0.0085, "certified_bdp": np.nan,
              "eps_session": np.nan, "replicates": 100, "answered_n": 100, "gap_iid_se_units": 0.0,
              "gap_true_se_units": 0.0, "budget_used": 0.0, "budget": 20.0}
    rows = [common | {"mechanism": "standard", "gap_mean": std_gap, "answered": 1.0, "sigma": np.nan},
            common | {"mechanism": "zhao_alg1_dp_effective_n", "answered": 1.0, "sigma": 4.5e-6},
            common | {"mechanism": "zhao_alg1_bdp_effective_n", "answered": bdp_answered, "sigma": bdp_sigma,
                      "partner": "zhao_alg1_dp_effective_n", "paired_gap_diff_mean": diff,
                      "paired_gap_diff_se": diff_se, "paired_sessions": 100, "only_this_over_t": 0,
                      "only_partner_over_t": 0,
                      "only_partner_answered": int(round((1.0 - bdp_answered) * 100))}]
    return per_session(pd.DataFrame(rows))


@pytest.mark.parametrize("diff, diff_se, bdp_answered, std_gap, sigma, status", [
    (-0.003, 0.0001, 1.0, 0.02, 2.5e-4, "holds"),             # DP's gap 6 i.i.d. SE larger: Bayesian DP buys it
    (0.0, 0.00005, 1.0, 0.02, 2.5e-4, "does not hold"),       # equal gaps, decided within a tenth of the margin
    (-0.0005, 0.0002, 1.0, 0.02, 2.5e-4, "not checked"),      # one margin (½/√n = 0.0005) inside the interval
    (-0.003, 0.0001, 1.0, 0.005, 2.5e-4, "not checked"),      # the standard holdout passes the gap test: no power
    (-0.003, 0.0001, 0.3, 0.02, 2.5e-4, "not applicable"),    # Bayesian DP answers 30%: not a common answering n
    (-0.003, 0.0001, 1.0, 0.02, 4.5e-6, "not applicable"),    # the calibrations coincide: nothing to compare
])
def test_what_bayesian_dp_buys_is_a_paired_decision_with_one_margin(diff, diff_se, bdp_answered, std_gap, sigma,
                                                                    status):
    """The Bayesian-DP arm against its DP partner on the same data sets: "buys validity" holds where DP − Bayesian
    DP's final gap exceeds one i.i.d. SE ½/√n by 3 SE, does not hold where it stays under it by 3 SE, else is
    undecided; only where both answer and the standard holdout fails the same gap test."""
    from adaptive_repro.outputs.zhao import correlation_claims as zcc

    arms = {name: types.SimpleNamespace(claim_name=name) for name in ("zhao_alg1_bdp_effective_n",
                                                                       "zhao_alg1_dp_effective_n")}
    table = _bdp_table(diff, diff_se, bdp_answered, std_gap, sigma)
    row = zcc.bdp_against_dp("households", table, "zhao_alg1_bdp_effective_n", arms)
    assert row["status"] == status, row["measured"]
    assert ("no power" in row["measured"]) == (std_gap < 0.0085)
    assert bool(row["counterexample"]) == (status == "does not hold")


@pytest.mark.parametrize("eps, says_device", [(10.0, True), (3.0, False), (1.0, False)])
def test_a_session_epsilon_above_three_is_called_a_device_not_a_privacy_level(eps, says_device):
    from adaptive_repro.outputs.zhao import correlation_claims

    row = types.SimpleNamespace(eps_session=eps, sigma=0.003, threshold=0.1)
    words = correlation_claims._device_words(row)
    assert ("not a privacy level" in words) == says_device
    if says_device:
        assert "0.03 T" in words and f"{np.exp(eps):.3g}" in words
