"""zhao-correlation: what record correlation does to holdout reuse, per correlation structure (docs/METHODS.md §4b).

This project's question, not a claim of Zhao 2017's: Zhao argues that DP-based holdout reuse is justified only for
i.i.d. records and that calibrating for Bayesian DP repairs it. Here every structure (batch chain, regimes,
households, attribute chains) is run at several strengths, indexed by the sign query's variance inflation V (the
data model's expected V at a null attribute: the effective sample size is n / V), with null labels, so any
holdout − fresh gap is overfitting. Per structure the claims ask: does correlation worsen naive overfitting, and like
sqrt(V)? does the DP calibration stay valid, and if not, how does it fail? what does the Bayesian-DP calibration
answer? does the threshold for n / V alone restore validity? This module builds the table (:func:`point_table`);
the rows are :mod:`.correlation_claims`', the figure :mod:`.correlation_figure`'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.outputs.zhao.common import theory_table
from adaptive_repro.outputs.zhao.correlation_claims import claims
from adaptive_repro.outputs.zhao.correlation_figure import figure
from adaptive_repro.outputs.zhao.correlation_sessions import (
    estimated_inflation,
    paired_with_partner,
    stop_shift_columns,
)
from adaptive_repro.simulation.zhao_calibration import noise_unit_threshold
from adaptive_repro.stats import paired_gap


def point_table(records: pd.DataFrame, spec, diagnostics: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (point, arm): V; the decided gap at the largest k (mean, SE; in i.i.d. and true SE units):
    holdout − population where the model gives the exact population accuracy (``gap_reference``), else holdout −
    fresh, with holdout − fresh beside it (``fresh_gap_*``) and the ratio of their variances (``variance_reduction``:
    what the population reference saves in replicates); per session, how many answered the last query and how
    many of those ended with a gap above the arm's threshold T; the budget used at the largest k, the arm's T and its
    certified Bayesian-DP level; for an arm with a partner (:func:`partner`: the noiseless counterfactual and the DP
    arm, each Bayesian-DP calibration and its DP counterpart), the paired comparison on the same data sets: the
    sessions where exactly one of the two answered, the mean and SE of this arm's final gap minus the partner's over
    the sessions both answered, and the sessions where exactly one of them ended above T; for an arm whose sessions
    set their threshold from the training set, the mean and SD of the V̂ they used (:mod:`.correlation_sessions`)."""
    rows = []
    for point in spec.points:
        recs = records[records["experiment"] == point.name]
        if recs.empty:
            continue
        k_max = max(point.k_grid)
        inflation = point.model.expected_inflation(point.n)
        theory = theory_table(point).set_index("arm") if point.alg1_calibrations() else pd.DataFrame()
        settings = point.arm_settings()
        last = recs[recs["k"] == k_max].pivot_table(index=["mechanism", "replicate"], columns="dataset",
                                                      values="accuracy", dropna=False)
        has_population = "population" in last and last["population"].notna().any()
        answered_by = {arm.name: last.loc[arm.name, "holdout"].notna() for arm in point.arms}
        for arm in point.arms:
            fresh_gap, fresh_se, reps = paired_gap(recs, arm.name, k_max)
            gap, se = (paired_gap(recs, arm.name, k_max, b="population")[:2] if has_population
                       else (fresh_gap, fresh_se))
            threshold = arm.tolerance(point, settings[arm.name])
            sessions = last.loc[arm.name]
            session_gap = sessions["holdout"] - sessions["population" if has_population else "fresh"]
            unit = noise_unit_threshold(1, point.n)  # a sign query's SD under independence
            row = {"structure": point.model.name, "model": point.model.describe(), "point": point.name,
                   "n": point.n, "d": point.d, "V": inflation, "mechanism": arm.name, "k": k_max,
                   "gap_reference": "population" if has_population else "fresh",
                   "gap_mean": gap, "gap_se": se, "replicates": reps, "gap_iid_se_units": gap / unit,
                   "gap_true_se_units": gap / (unit * np.sqrt(inflation)),
                   "fresh_gap_mean": fresh_gap, "fresh_gap_se": fresh_se,
                   "variance_reduction": (fresh_se / se) ** 2 if se > 0 else np.nan,  # fresh over decided gap
                   "largest_gap": float(1.0 - sessions["population"].min()) if has_population else 1.0,
                   "answered": float(answered_by[arm.name].mean()), "answered_n": len(sessions),
                   "answered_count": int(answered_by[arm.name].sum()),
                   "sessions_over_t": int((session_gap > threshold).sum()) if threshold is not None else 0,
                   "budget_used": float(recs.loc[(recs["mechanism"] == arm.name) & (recs["dataset"] == "holdout")
                                                 & (recs["k"] == k_max), "budget_used"].mean()),
                   "threshold": threshold,
                   "sigma": float(getattr(settings[arm.name], "sigma", np.nan)),
                   "certified_bdp": np.nan, "eps_session": np.nan, "feasible": settings[arm.name].feasible,
                   **dict(zip(("v_hat_mean", "v_hat_sd"), estimated_inflation(diagnostics, point, arm.name))),
                   **stop_shift_columns(diagnostics, point, arm.name, answered_by[arm.name]),
                   **paired_with_partner(arm.name, last, answered_by, session_gap, threshold, has_population,
                                          {a.name: a.tolerance(point, settings[a.name]) for a in point.arms})}
            if arm.name in theory.index:
                th = theory.loc[arm.name]
                row |= {"certified_bdp": th["certified_bdp"], "eps_session": th["eps_session"],
                        "budget": th["budget"]}
            rows.append(row)
    return pd.DataFrame(rows)


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-correlation from the records of every point."""
    (spec,) = inputs["specs"].values()
    table = point_table(inputs["records"], spec, inputs.get("diagnostics"))
    return table, figure(table, spec), claims(table, spec)
