"""zhao-correlation's rows on which sessions stop answering: Algorithm 1 with T for n/V answers in most sessions and
spends its whole budget in a few (docs/METHODS.md §4b). This project's question, not a claim of Zhao 2017's.

Given the groups of records that share a latent state, a sign query's expectation is sum_g s_g Phi(m_jg) (s_g the
group's share of the data set's records; the exact engine's step 5, :mod:`adaptive_repro.simulation.sign_engine`),
so a training set and a holdout set whose shares differ give every attribute query a common offset. The per-session
diagnostic ``state_share_shift`` is its root-mean-square over the attributes; these rows test whether the sessions
that stopped have larger shifts than those that answered (:func:`adaptive_repro.decisions.ranks_above`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.foundation.registry import code_name
from adaptive_repro.outputs.zhao.common import DP_EFFECTIVE_N_ARM

#: The arm whose stops the rows explain: the DP calibration with the threshold for n/V.
STOPPING_ARM = DP_EFFECTIVE_N_ARM


def _point_words(r) -> str:
    stopped = int(r.answered_n - r.answered_count)
    return (f"V = {r.V:.3g}: {stopped} of {int(r.answered_n)} sessions stopped; state-share shift median "
            f"{r.stop_shift_median:.4f} ({r.stop_shift_median / r.threshold:.2f} T) among them against "
            f"{r.answer_shift_median:.4f} ({r.answer_shift_median / r.threshold:.2f} T, largest "
            f"{r.answer_shift_max:.4f}) among the answering; P(stopped > answering) = {r.stop_shift_auc:.2f}")


def stopped_sessions_row(structure: str, sub: pd.DataFrame, arm_words: str) -> dict | None:
    """The row "the sessions that stop are those whose shares differ most" for one structure (None without the
    arm): holds where the stopped sessions' shifts rank above the answering ones' at some V and below at none, does
    not hold where below at some V, not applicable where the arm stops in no session or the engine keeps no shared
    state, else not checked with the sessions a decision would need."""
    rows = sub[sub["mechanism"] == STOPPING_ARM].sort_values("V")
    if rows.empty or "stop_shift_state" not in rows:
        return None
    tested = rows[rows["stop_shift_state"].fillna("").astype(str) != ""]
    status = (decisions.STATUS[decisions.combined(tested["stop_shift_state"], every=False)] if len(tested) else
              "not applicable")
    stops = ", ".join(f"{int(r.answered_n - r.answered_count)} of {int(r.answered_n)} at V = {r.V:.3g}"
                      for r in rows.itertuples())
    if tested.empty:
        measured = (f"not applicable: sessions stopped {stops}; a comparison needs sessions that stopped and sessions "
                    "that answered at one V, in a data model with states shared across attributes")
    else:
        undecided = [r for r in tested.itertuples() if r.stop_shift_state == decisions.UNDECIDED]
        measured = "; ".join(_point_words(r) for r in tested.itertuples()) + "." + (
            " Undecided at " + ", ".join(
                f"V = {r.V:.3g}" + (f" (about {int(r.stop_shift_needs):,} sessions would decide it if the ranks "
                                    "stayed)" if np.isfinite(r.stop_shift_needs) else "") for r in undecided)
            + f" by the Mann–Whitney U test, one-sided each way at {(1 - decisions.CONFIDENCE) / 2:.2%}."
            if undecided else "")
    return dict(claim_id=f"{structure}-stopped-sessions-follow-the-state-shares",
                claim=f"Under {structure.replace('_', ' ')} correlation, the sessions in which {arm_words} stops "
                      "answering (its last accuracy query ⊥) are those whose training and holdout sets differ most in "
                      "the shares of the shared latent states: the state-share shift (the root-mean-square over the "
                      "attributes of the training − holdout sign-query difference the shares alone make) of the "
                      "sessions that stop tends to exceed that of the sessions that answer.",
                expected=f"at some V the stopped sessions' shifts rank above the answering sessions' by the "
                         f"Mann–Whitney U test, one-sided at {(1 - decisions.CONFIDENCE) / 2:.2%}, and below them at "
                         "no V (holds); below them at some V (does not hold); not applicable where the arm stops in "
                         "no session or in every one, or the data model shares no state across attributes",
                measured=measured, status=status,
                counterexample=", ".join(f"V = {r.V:.3g}" for r in tested.itertuples()
                                         if r.stop_shift_state == decisions.FAILS),
                code=code_name(decisions.ranks_above))
