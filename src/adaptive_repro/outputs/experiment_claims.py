"""Claim helpers shared by the classifier experiments' builders (Dwork et al. 2015 Figs. 1-2 and Zhao 2017 Figs.
2-3): the quotes both papers' rows use, the standard holdout's overfitting claim and a plug-in arm's tracking claim,
each decided by :mod:`adaptive_repro.decisions` (three states, one margin both ways).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.decisions import Z
from adaptive_repro.foundation.registry import Claim, code_name
from adaptive_repro.stats import paired_gap, paired_gap_table

#: Claim statuses of an experiment that re-runs a paper's figure, per decision state.
EXPERIMENT_STATUS = {decisions.HOLDS: "reproduced", decisions.FAILS: "differs", decisions.UNDECIDED: "not checked",
                     decisions.CANNOT_FAIL: "not checked"}

#: Claim IDs the experiment figures read (one place each; :class:`~adaptive_repro.foundation.registry.Verdicts`).
STANDARD_OVERFITS = "standard-overfits"


def tracks_fresh_id(arm: str) -> str:
    """The ID of :func:`tracks_fresh_claim`'s row for ``arm``."""
    return f"{arm}-tracks-fresh"


# Dwork et al. 2015 is not among the texts this project checks against; its figures' claims are quoted as Zhao 2017
# restates them (§1), verbatim.
QUOTE_OVERFITS = ("often in practice, the holdout dataset is reused and the estimates tested on the holdout dataset "
                  "are chosen adaptively based on the results of prior estimates, leading to that the predictor may "
                  "become dependent of the holdout set. Hence, overfitting may occur")
QUOTE_REUSABLE = ("Dwork et al. in NIPS, STOC, and Science 2015 show that the holdout dataset from i.i.d. data samples "
                  "can be reused in adaptive statistical learning, if the estimates are perturbed and coordinated "
                  "using techniques developed for differential privacy")
#: Arms whose claims the paper makes elsewhere (Thresholdout: the Dwork figures' rows), so that builders do not add a
#: generic row for them.
PAPER_ARMS = ("standard", "dwork_code")
SOURCE_FIG = {"dwork-null": "Dwork et al. 2015, Fig. 1 (as Zhao 2017 restates it, §1)",
              "dwork-signal": "Dwork et al. 2015, Fig. 2 (as Zhao 2017 restates it, §1)"}


def fmt_gap(mean, se):
    return f"{mean:+.4f} ± {se:.4f} (SE)"


def standard_overfits_claim(output_id: str, records: pd.DataFrame, source: str, statement: str,
                            quote: str = QUOTE_OVERFITS) -> Claim:
    """The standard holdout overfits: holdout − fresh accuracy at the largest k above 0 (:func:`decisions.mean_above`:
    gap − Z SE > 0 reproduces, gap + Z SE ≤ 0 differs, else not checked)."""
    k_max = int(records["k"].max())
    gap, se, reps = paired_gap(records, "standard", k_max)
    decided = decisions.mean_above(gap, se, reps, 0.0)
    return Claim(output_id=output_id, claim_id=STANDARD_OVERFITS, source=source, claim=statement,
                 expected=f"holdout − fresh > 0 at the largest k (by > {Z:g} SE)",
                 measured=f"holdout − fresh at k = {k_max}: {fmt_gap(gap, se)}, {reps} replicates"
                          + (f". {decided.note()}" if decided.note() else ""),
                 status=EXPERIMENT_STATUS[decided.state], kind="paper", quote=quote, code=code_name(paired_gap))


def tracks_fresh_claim(output_id: str, records: pd.DataFrame, arm, tolerance: float, source: str) -> Claim:
    """This project's question for an arm without a claim of its own in the paper (e.g. a plug-in mechanism): at
    every k > 0, at least 90% of the accuracy queries answered (Clopper–Pearson over the sessions) and holdout − fresh
    within the arm's own threshold T (mean + Z SE ≤ T); does not hold where some k answers below 90% or its gap − Z SE
    exceeds T; else not checked (the reading of zhao-fig3's rows, by :mod:`adaptive_repro.decisions`)."""
    table = paired_gap_table(records[records["mechanism"] == arm.name])
    table = table[table["k"] > 0]
    hold = records[(records["mechanism"] == arm.name) & (records["dataset"] == "holdout") & (records["k"] > 0)]
    answered = hold.groupby("k")["accuracy"].agg(answered="count", sessions="size")
    rates = {k: decisions.rate_at_least(r.answered, r.sessions, 0.9) for k, r in answered.iterrows()}
    gaps = {r.k: decisions.mean_at_most(r.mean, r.se, r.replicates, tolerance) for r in table.itertuples()}
    bad = [f"k = {r.k}: {r.mean:+.4f} ± {r.se:.4f}" for r in table.itertuples()
           if np.isnan(r.mean) or gaps[r.k].state == decisions.FAILS]
    bad += [f"k = {k}: {d.estimate:.0%} answered" for k, d in rates.items() if d.state == decisions.FAILS]
    open_notes = [f"k = {k}: {d.clause()}" for k, d in [*gaps.items(), *rates.items()]
                  if d.state == decisions.UNDECIDED]
    status = "does not hold" if bad else "not checked" if open_notes else "holds"
    worst = table.loc[table["mean"].abs().idxmax()] if table["mean"].notna().any() else None
    lowest = min((d.estimate for d in rates.values()), default=float("nan"))
    measured = ("every answer ⊥" if worst is None else
                f"largest |holdout − fresh| at k = {int(worst['k'])}: {fmt_gap(worst['mean'], worst['se'])}; "
                f"lowest answered fraction {lowest:.0%}") + (". " + "; ".join(open_notes[:2])
                                                            if status == "not checked" else "")
    return Claim(output_id=output_id, claim_id=tracks_fresh_id(arm.name), source=source,
                 claim=f"{arm.claim_name}: the reported holdout accuracy tracks fresh accuracy within the arm's own "
                       "threshold T at every k (this project's arm: no claim of the paper is about it).",
                 expected=f"≥ 90% answered (Clopper–Pearson) and holdout − fresh + {Z:g} SE ≤ T = {tolerance:.4f} at "
                          f"every k > 0; does not hold where < 90% answered or gap − {Z:g} SE > T at some k",
                 measured=measured, status=status, counterexample="; ".join(bad[:2]),
                 kind="project", code=code_name(tracks_fresh_claim))
