"""Claims of Dwork et al. 2015 Figs. 1-2 (as Zhao 2017 §6 restates them), checked on this run's records.

Statuses are computed from the replicates by :mod:`adaptive_repro.decisions`: a difference is present when its mean
exceeds three standard errors, absent when it is three standard errors on the other side, else not checked.
"""

from __future__ import annotations

import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.foundation.registry import Claim, Verdicts, code_name
from adaptive_repro.outputs.experiment_claims import (
    EXPERIMENT_STATUS,
    PAPER_ARMS,
    QUOTE_REUSABLE,
    SOURCE_FIG,
    STANDARD_OVERFITS,
    Z,
    fmt_gap,
    standard_overfits_claim,
    tracks_fresh_claim,
)
from adaptive_repro.stats import mean_and_se, paired_gap, paired_gap_table

#: Claim IDs the figure reads (one place each).
THRESHOLDOUT_TRACKS = "thresholdout-tracks-fresh"


def finds_signal_id(arm: str) -> str:
    return f"{arm}-finds-signal"


def fresh_at_chance_claim(output_id: str, records: pd.DataFrame, spec, source: str, display: dict) -> Claim:
    """Null labels: fresh accuracy equals 0.5 at every (arm, k), each an equivalence (:func:`decisions.within`) with
    the margin one sampling SE of a single fresh accuracy, 1/(2 sqrt(n)): holds where every (arm, k) lies inside it
    with its whole ± Z SE interval, does not hold where some lies wholly outside, else undecided."""
    margin = 0.5 / spec.n ** 0.5
    checks = []
    for mech in sorted(set(records["mechanism"])):
        for k in sorted(set(records["k"])):
            fresh, se, reps = mean_and_se(records, mech, int(k), "fresh")
            checks.append((decisions.within(fresh - 0.5, se, reps, 0.0, margin), mech, int(k), se))
    worst, mech, k, se = max(checks, key=lambda c: abs(c[0].estimate) + Z * c[3])
    state = decisions.combined(d.state for d, *_ in checks)
    return Claim(output_id=output_id, claim_id="fresh-at-chance", source=source,
                 claim="Labels are independent of the data, so no classifier beats chance on fresh data "
                       "(by construction: the simulator draws the labels independently of the features, so every "
                       "fresh accuracy has mean 0.5; the row fails only by Monte-Carlo error, or if the simulator is "
                       "wrong: a check of the implementation).",
                 expected=f"fresh accuracy − 0.5 within ± {margin:.4f} (one sampling SE of a single fresh accuracy, "
                          f"1/(2√n), n = {spec.n:,}) with its ± {Z:g} SE interval at every (arm, k) (holds); wholly "
                          "outside it at some (does not hold)",
                 measured=f"{len(checks)} (arm, k) checked; farthest: {display[mech]}, k = {k}: "
                          f"{fmt_gap(worst.estimate, se)}" + (f". {worst.note()}" if worst.note() else ""),
                 status=EXPERIMENT_STATUS[state], kind="project", code=code_name(fresh_at_chance_claim),
                 strength="by construction")


def dwork_claims(output_id: str, records: pd.DataFrame, spec, gaps: pd.DataFrame) -> list[Claim]:
    """Overfitting of the standard holdout, Thresholdout tracking fresh data, and (signal) real signal found."""
    source = SOURCE_FIG.get(output_id, output_id)
    mechanisms = set(records["mechanism"])
    claims = []
    if "standard" in mechanisms:
        claims.append(standard_overfits_claim(output_id, records, source,
                                              "Reusing the holdout naively overfits it: at large k the holdout "
                                              "accuracy is well above the fresh-data accuracy."))
    if "dwork_code" in mechanisms:
        arm = spec.arm("dwork_code")
        threshold = arm.tolerance(spec)
        rows = gaps[gaps["mechanism"] == "dwork_code"]  # holdout − fresh per k > 0, paired by replicate
        arm_gaps = list(zip(rows["k"], rows["mean"], rows["se"], rows["replicates"]))
        worst = max(arm_gaps, key=lambda t: abs(t[1]))
        # |holdout − fresh| within T at every k: the whole ± Z SE interval inside [−T, T] (decided per k)
        within = {k: decisions.within(g, se, reps, 0.0, threshold) for k, g, se, reps in arm_gaps}
        state = decisions.combined(d.state for d in within.values())
        # the power control: the standard holdout on the same test; where it stays within T too, passing shows nothing
        std = gaps[gaps["mechanism"] == "standard"]
        beyond = sorted(int(r.k) for r in std.itertuples()
                        if decisions.mean_above(r.mean, r.se, r.replicates, threshold).state == decisions.HOLDS)
        status = EXPERIMENT_STATUS[state] if state != decisions.HOLDS or beyond else "not checked"
        control = (f"; the standard holdout exceeds T (by > {Z:g} SE) from k = {beyond[0]} on" if beyond else
                   "; not checked (no power at this setting): the standard holdout does not exceed T by more than "
                   f"{Z:g} SE at any k")
        control += next((f". Undecided at k = {k}: {d.clause()}" for k, d in within.items()
                         if d.state == decisions.UNDECIDED), "")
        claims.append(Claim(output_id=output_id, claim_id=THRESHOLDOUT_TRACKS, source=source,
                            claim="With Thresholdout the reported holdout accuracy tracks the fresh-data accuracy at "
                            "every k (no overfitting).",
                            expected=f"|holdout − fresh| ± {Z:g} SE within the threshold T = {arm.threshold_scale}/√n "
                            f"= {threshold:.4f} at every k, where the standard holdout exceeds T by > {Z:g} SE at "
                            f"some k; differs where |holdout − fresh| − {Z:g} SE > T at some k",
                            measured=f"largest |holdout − fresh| at k = {worst[0]}: {fmt_gap(worst[1], worst[2])}"
                                     + control,
                            status=status,
                            counterexample="" if state != decisions.FAILS else f"k = {worst[0]}", kind="paper",
                            quote=QUOTE_REUSABLE,
                            code=code_name(paired_gap)))
    display = {arm.name: arm.display_name for arm in spec.arms}
    if output_id == "dwork-signal":
        k_small = int(min(k for k in records["k"] if k > 0))  # k = 0: no classifier yet, accuracy 0.5 by design
        for mech in sorted(mechanisms):
            fresh, se, reps = mean_and_se(records, mech, k_small, "fresh")
            gap = fresh - 0.5
            found = decisions.mean_above(gap, se, reps, 0.0)
            claims.append(Claim(output_id=output_id, claim_id=finds_signal_id(mech), source=source,
                                claim="With 20 informative attributes the selected classifier generalizes: "
                                "fresh accuracy is above chance.",
                                expected=f"fresh accuracy > 0.5 at small k (by > {Z:g} SE; differs where it is "
                                         f"≤ 0.5 by > {Z:g} SE)",
                                measured=f"fresh − 0.5 at k = {k_small} ({display[mech]}): {fmt_gap(gap, se)}"
                                         + (f". {found.note()}" if found.note() else ""),
                                status=EXPERIMENT_STATUS[found.state], kind="project", code=code_name(mean_and_se)))
    else:
        claims.append(fresh_at_chance_claim(output_id, records, spec, source, display))
    settings = spec.arm_settings()
    for arm in spec.arms:  # arms this project adds: their own threshold, their own words
        tolerance = arm.tolerance(spec, settings[arm.name])
        if arm.name not in PAPER_ARMS and arm.name in mechanisms and tolerance is not None:
            claims.append(tracks_fresh_claim(output_id, records, arm, tolerance, source))
    return claims


def dwork_verdict(verdicts: Verdicts, arms, k_signal: int) -> str:
    """The figure's verdict from the claims' statuses: does the reused holdout overfit, does Thresholdout track fresh
    data and (with signal attributes) does every mechanism find the signal at ``k_signal``, the smallest k > 0."""
    names = [a.name for a in arms]
    parts = []
    if "standard" in names:
        parts.append("The reused holdout overfits" if verdicts[STANDARD_OVERFITS].status == "reproduced"
                     else "The reused holdout does not measurably overfit")
    if "dwork_code" in names:
        parts.append("Thresholdout tracks fresh data" if verdicts[THRESHOLDOUT_TRACKS].status == "reproduced"
                     else "Thresholdout strays from fresh data beyond its threshold")
    signal = ([verdicts[finds_signal_id(name)].status == "reproduced" for name in names]
              if finds_signal_id(names[0]) in verdicts else [])
    if signal:
        every = "both" if len(signal) == 2 else "all"
        parts.append((f"{every} find the signal" if all(signal)
                      else f"{signal.count(False)} of {len(signal)} miss the signal") + f" at k = {k_signal}")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] if text else "No claim checked"


def ring_failures(fig, verdicts: Verdicts, gaps: pd.DataFrame, arms, spec) -> None:
    """Ring, on Thresholdout's gap panel, the k where its holdout − fresh leaves its threshold (if its claim fails)."""
    from adaptive_repro.report.plotting import legend_below, ring

    names = [a.name for a in arms]
    if ("dwork_code" not in names or len(fig.axes) < 2 * len(names)
            or verdicts[THRESHOLDOUT_TRACKS].status == "reproduced"):
        return
    rows = gaps[(gaps["mechanism"] == "dwork_code") & (gaps["mean"].abs() > spec.arm("dwork_code").tolerance(spec))]
    ring(fig.axes[len(names) + names.index("dwork_code")], rows["k"], rows["mean"],
         label="claim does not hold here: Thresholdout leaves its threshold")
    fig.legends.clear()  # the legend again, with the rings' entry
    legend_below(fig, fig.axes, ncol=2)


def fresh_label(table: pd.DataFrame) -> str:
    """The fresh line's legend name when it lies under the exact population line in every panel (the largest
    difference given), so that no curve is silently hidden; else "" (its display name)."""
    from adaptive_repro.report.plotting import name

    fresh = table[table["dataset"] == "fresh"].set_index(["mechanism", "k"])["mean"]
    pop = table[table["dataset"] == "population"].set_index(["mechanism", "k"])["mean"]
    diff = (fresh - pop).abs().dropna()
    if len(diff) and diff.max() < 0.005:
        return f"{name('fresh')} (under the dotted population line: ≤ {diff.max():.3f} apart)"
    return ""


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of dwork-null / dwork-signal from the aggregated replicate records (the contract of
    catalogue.py): means, SDs and SEs per mechanism, k and data set; one panel per mechanism; the claims above."""
    from adaptive_repro.outputs.accuracy_figures import OUTPUT_TITLES, accuracy_panels, threshold_label
    from adaptive_repro.stats import summarize

    records = inputs["records"]
    (spec,) = inputs["specs"].values()
    table = summarize(records)
    table.insert(1, "n", spec.n)
    table.insert(2, "d", spec.d)
    replicates = records["replicate"].nunique()
    gaps = paired_gap_table(records)  # what the claims test, drawn below the paper's panels
    arms = [arm for arm in spec.arms if arm.name in set(table["mechanism"])]
    settings = spec.arm_settings()
    tolerances = {arm.name: arm.tolerance(spec, settings[arm.name]) for arm in arms}
    claims = dwork_claims(output_id, records, spec, gaps)
    verdicts = Verdicts(claims)
    fig = accuracy_panels(table, arms, dwork_verdict(verdicts, arms, int(min(k for k in records["k"] if k > 0))),
                          f"{OUTPUT_TITLES[output_id]}; n = {spec.n:,}, d = {spec.d:,}, {replicates} replicates",
                          gaps=paired_gap_table(records, k_min=0), tolerances=tolerances,
                          tolerance_label=threshold_label(
                              [arm.display_name for arm in arms if tolerances[arm.name] is not None]),
                          fresh_label=fresh_label(table))
    ring_failures(fig, verdicts, gaps, arms, spec)
    return table, fig, claims
