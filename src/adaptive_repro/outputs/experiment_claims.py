"""Claim helpers shared by the classifier experiments' builders (Dwork et al. 2015 Figs. 1-2 and Zhao 2017 Figs.
2-3): the significance rule, the quotes both papers' rows use, and the standard holdout's overfitting claim.

A difference counts as present when its mean exceeds three standard errors (a one-sided false-detection rate of about
0.13% per check under a normal approximation).
"""

from __future__ import annotations

import pandas as pd

from adaptive_repro.registry import Claim, code_name, verdict
from adaptive_repro.stats import paired_gap

Z = 3.0  # standard errors for "significantly different"

# Dwork et al. 2015 is not among the texts this project checks against; its figures' claims are quoted as Zhao 2017
# restates them (§1), verbatim.
QUOTE_OVERFITS = ("often in practice, the holdout dataset is reused and the estimates tested on the holdout dataset "
                  "are chosen adaptively based on the results of prior estimates, leading to that the predictor may "
                  "become dependent of the holdout set. Hence, overfitting may occur")
QUOTE_REUSABLE = ("Dwork et al. in NIPS, STOC, and Science 2015 show that the holdout dataset from i.i.d. data samples "
                  "can be reused in adaptive statistical learning, if the estimates are perturbed and coordinated "
                  "using techniques developed for differential privacy")
SOURCE_FIG = {"dwork-null": "Dwork et al. 2015, Fig. 1 (as Zhao 2017 restates it, §1)",
              "dwork-signal": "Dwork et al. 2015, Fig. 2 (as Zhao 2017 restates it, §1)"}


def fmt_gap(mean, se):
    return f"{mean:+.4f} ± {se:.4f} (SE)"


def standard_overfits_claim(output_id: str, records: pd.DataFrame, source: str, statement: str,
                            quote: str = QUOTE_OVERFITS) -> Claim:
    """The standard holdout overfits: holdout − fresh accuracy at the largest k exceeds Z standard errors."""
    k_max = int(records["k"].max())
    gap, se, reps = paired_gap(records, "standard", k_max)
    return Claim(output_id=output_id, claim_id="standard-overfits", source=source, claim=statement,
                 expected="holdout − fresh > 0 at the largest k",
                 measured=f"holdout − fresh at k = {k_max}: {fmt_gap(gap, se)}, {reps} replicates",
                 status=verdict(bool(gap > Z * se)), kind="paper", quote=quote, code=code_name(paired_gap))
