"""Claim helpers shared by the classifier experiments' builders (Dwork et al. 2015 Figs. 1-2 and Zhao 2017 Figs.
2-3): the significance rule, the quotes both papers' rows use, and the standard holdout's overfitting claim.

A difference counts as present when its mean exceeds three standard errors (a one-sided false-detection rate of about
0.13% per check under a normal approximation).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.foundation.registry import Claim, code_name, verdict
from adaptive_repro.stats import paired_gap, paired_gap_table

Z = 3.0  # standard errors for "significantly different"

#: Claim IDs the experiment figures read (one place each; :class:`~adaptive_repro.foundation.registry.Verdicts`).
STANDARD_OVERFITS = "standard-overfits"


def tracks_fresh_id(arm: str) -> str:
    """The ID of :func:`tracks_fresh_claim`'s row for ``arm``."""
    return f"{arm}-tracks-fresh"


def three_way(ok: bool, refuted: bool, between: str) -> tuple[str, str]:
    """(status, note): "holds" if the check passes, "does not hold" only if the evidence against it is clear
    (``refuted``), else "not checked" with a note saying why neither is shown at this replicate count."""
    if ok:
        return "holds", ""
    if refuted:
        return "does not hold", ""
    return "not checked", f"Undecided: {between}; more replicates (config/paper-scale.yaml) would decide."

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
    """The standard holdout overfits: holdout − fresh accuracy at the largest k exceeds Z standard errors."""
    k_max = int(records["k"].max())
    gap, se, reps = paired_gap(records, "standard", k_max)
    return Claim(output_id=output_id, claim_id=STANDARD_OVERFITS, source=source, claim=statement,
                 expected="holdout − fresh > 0 at the largest k",
                 measured=f"holdout − fresh at k = {k_max}: {fmt_gap(gap, se)}, {reps} replicates",
                 status=verdict(bool(gap > Z * se)), kind="paper", quote=quote, code=code_name(paired_gap))


def tracks_fresh_claim(output_id: str, records: pd.DataFrame, arm, tolerance: float, source: str) -> Claim:
    """This project's question for an arm without a claim of its own in the paper (e.g. a plug-in mechanism): at
    every k > 0, at least 90% of the accuracy queries answered and holdout − fresh not above the arm's own threshold
    T by more than Z standard errors (the reading of zhao-fig3's rows)."""
    table = paired_gap_table(records[records["mechanism"] == arm.name])
    table = table[table["k"] > 0]
    hold = records[(records["mechanism"] == arm.name) & (records["dataset"] == "holdout") & (records["k"] > 0)]
    answered = hold.groupby("k")["accuracy"].apply(lambda a: float(a.notna().mean()))
    bad = [f"k = {r.k}: {r.mean:+.4f} ± {r.se:.4f}" for r in table.itertuples()
           if np.isnan(r.mean) or (np.isfinite(r.se) and r.mean - Z * r.se > tolerance)]
    bad += [f"k = {k}: {a:.0%} answered" for k, a in answered.items() if a < 0.9]
    worst = table.loc[table["mean"].abs().idxmax()] if table["mean"].notna().any() else None
    measured = ("every answer ⊥" if worst is None else
                f"largest |holdout − fresh| at k = {int(worst['k'])}: {fmt_gap(worst['mean'], worst['se'])}; "
                f"lowest answered fraction {answered.min():.0%}")
    return Claim(output_id=output_id, claim_id=tracks_fresh_id(arm.name), source=source,
                 claim=f"{arm.claim_name}: the reported holdout accuracy tracks fresh accuracy within the arm's own "
                       "threshold T at every k (this project's arm: no claim of the paper is about it).",
                 expected=f"≥ 90% answered and holdout − fresh − {Z:g} SE ≤ T = {tolerance:.4f} at every k > 0",
                 measured=measured, status=verdict(not bad, "statement"), counterexample="; ".join(bad[:2]),
                 kind="project", code=code_name(tracks_fresh_claim))
