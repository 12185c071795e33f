"""The per-session columns of zhao-correlation's table (:func:`adaptive_repro.outputs.zhao.correlation.point_table`):
an arm against its partner on the same data sets (sessions), and the V̂ its sessions used where they set their
threshold from the training set."""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.outputs.zhao.correlation_claims import partner
from adaptive_repro.simulation.zhao_calibration import noise_unit_threshold


def estimated_inflation(diagnostics: pd.DataFrame | None, point, arm: str) -> tuple[float, float]:
    """Mean and SD over the sessions of V̂ = (T_session / T)², T_session the threshold a session of ``arm`` set from
    its training set (its diagnostics' ``session_threshold``), T the i.i.d. threshold: (NaN, NaN) for an arm
    whose sessions set none."""
    if diagnostics is None or "session_threshold" not in diagnostics:
        return np.nan, np.nan
    mine = diagnostics[(diagnostics["experiment"] == point.name) & (diagnostics["mechanism"] == arm)]
    thresholds = pd.to_numeric(mine["session_threshold"], errors="coerce").dropna()
    if thresholds.empty:
        return np.nan, np.nan
    v_hat = (thresholds / noise_unit_threshold(point.alg1.threshold_units, point.n)) ** 2
    return float(v_hat.mean()), (float(v_hat.std(ddof=1)) if len(v_hat) > 1 else np.nan)


def paired_with_partner(arm: str, last: pd.DataFrame, answered_by: dict, session_gap: pd.Series, threshold,
                         has_population: bool, thresholds: dict) -> dict:
    """The table's paired columns of ``arm`` against its partner (:func:`partner`) on the same data sets (sessions):
    empty values where the arm has no partner at the point."""
    partner_arm = partner(arm)
    empty = {"partner": "", "only_this_answered": 0, "only_partner_answered": 0, "paired_gap_diff_mean": np.nan,
             "paired_gap_diff_se": np.nan, "paired_sessions": 0, "only_this_over_t": 0, "only_partner_over_t": 0}
    if partner_arm not in answered_by:
        return empty
    mine, theirs = answered_by[arm], answered_by[partner_arm].reindex(answered_by[arm].index)
    other = last.loc[partner_arm]
    other_gap = (other["holdout"] - other["population" if has_population else "fresh"]).reindex(session_gap.index)
    diff, diff_se, both = decisions.paired_difference(session_gap.to_numpy(), other_gap.to_numpy())
    over_mine = (session_gap > threshold).to_numpy() if threshold is not None else np.zeros(len(mine), bool)
    partner_t = thresholds.get(partner_arm)
    over_theirs = (other_gap > partner_t).to_numpy() if partner_t is not None else np.zeros(len(mine), bool)
    return empty | {"partner": partner_arm, "only_this_answered": int((mine & ~theirs).sum()),
                    "only_partner_answered": int((~mine & theirs).sum()), "paired_gap_diff_mean": diff,
                    "paired_gap_diff_se": diff_se, "paired_sessions": both,
                    "only_this_over_t": int((over_mine & ~over_theirs).sum()),
                    "only_partner_over_t": int((~over_mine & over_theirs).sum())}


def stop_shift_columns(diagnostics: pd.DataFrame | None, point, arm: str, answered: pd.Series) -> dict:
    """Why an arm's sessions stop answering: the state-share shift (diagnostics' ``state_share_shift``, the
    root-mean-square over attributes of the training − holdout sign-query difference the shared states' shares
    alone make) of its sessions that ended with ⊥ against those that answered: medians, the largest among answering
    sessions, and ``stop_shift_state``, :func:`decisions.ranks_above` (stopped above answered), with the sessions
    an undecided one needs. NaN and "" where
    the engine keeps no shared state or one of the groups is empty."""
    empty = {"stop_shift_median": np.nan, "answer_shift_median": np.nan, "answer_shift_max": np.nan,
             "stop_shift_auc": np.nan, "stop_shift_state": "", "stop_shift_needs": np.nan}
    if diagnostics is None or "state_share_shift" not in diagnostics:
        return empty
    mine = diagnostics[(diagnostics["experiment"] == point.name) & (diagnostics["mechanism"] == arm)]
    shift = pd.to_numeric(mine.set_index("replicate")["state_share_shift"], errors="coerce")
    shift = shift.reindex(answered.index)
    stopped, going = shift[~answered.astype(bool)].dropna(), shift[answered.astype(bool)].dropna()
    if stopped.empty or going.empty:
        return empty
    decided = decisions.ranks_above(stopped.to_numpy(), going.to_numpy())
    return {"stop_shift_median": float(stopped.median()), "answer_shift_median": float(going.median()),
            "answer_shift_max": float(going.max()), "stop_shift_auc": decided.estimate,
            "stop_shift_state": decided.state,
            "stop_shift_needs": np.nan if decided.needs is None else float(decided.needs)}
