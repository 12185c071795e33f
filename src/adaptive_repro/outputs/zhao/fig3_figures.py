"""The figures of zhao-fig2, zhao-fig3 and zhao-fig3-large-n (Zhao 2017 Figs. 2-3), from the builder's table, paired
gaps, theory rows and claims (:mod:`adaptive_repro.outputs.zhao.fig3`): the verdict titles, computed from the claims'
statuses and numbers, and the panels that show them on the data."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from adaptive_repro.foundation.registry import Claim, Verdicts
from adaptive_repro.outputs.accuracy_figures import K_TICKS_NARROW, accuracy_curves, sqrt_k_axis
from adaptive_repro.outputs.experiment_claims import STANDARD_OVERFITS, Z, tracks_fresh_id
from adaptive_repro.outputs.zhao.common import (
    ANSWERED_MIN,
    BDP_ARM,
    DP_ARM,
    GAP_AXIS_LABEL,
    REQUIREMENT,
    REQUIREMENT_LABEL,
    arm_handle,
    arms_in,
    certified_bdp_id,
    gap_curves,
    marker_indices,
    prevents_overfitting_id,
    requirement_line,
    short_arm_name,
    shortfalls,
    style_handle,
    threshold_lines,
    title_words,
    wrap_verdict,
)
from adaptive_repro.report.plotting import SIZES, legend_below, log_axis, pyplot, ring, style, verdict_title
from adaptive_repro.stats import paired_gap


def standard_verdict(verdicts: Verdicts, records: pd.DataFrame) -> str:
    """The standard holdout's verdict in words, from its claim's status and the numbers it is computed from
    (paired_gap at the largest k; z = the mean gap over its SE over replicates, the claim's test statistic)."""
    claim = verdicts[STANDARD_OVERFITS]
    k_max = int(records["k"].max())
    gap, se, _ = paired_gap(records, "standard", k_max)
    z = f" (z = {gap / se:.1f})" if se and np.isfinite(se) and se > 0 else ""
    finding = "overfits" if claim.status == "reproduced" else "does not overfit significantly"
    return f"On correlated records the reused holdout {finding}: holdout − fresh = {gap:+.3f}{z} at k = {k_max}"


def short_setting(spec, replicates: int) -> str:
    """The one settings line under a verdict title of these figures: n, d, the data model, replicates (signal
    attributes and the query are in the caption)."""
    nd = f"n = d = {spec.n:,}" if spec.n == spec.d else f"n = {spec.n:,}, d = {spec.d:,}"
    return title_words(f"{nd}; {spec.model.describe()}; {replicates} replicates")


def fig3_verdict(verdicts: Verdicts, table: pd.DataFrame, spec, records) -> str:
    """zhao-fig3's one message, from the claims' statuses and the table: what Algorithm 1 calibrated for Bayesian DP
    did (answered nothing, answered too little, overfitted, or prevented overfitting) and, when it prevented
    overfitting, whether the DP calibration did too (then the run does not separate the calibrations). The setting
    (n, the data model) is the title's second line."""
    if BDP_ARM not in spec.mechanisms:
        return standard_verdict(verdicts, records) if "standard" in spec.mechanisms else "Algorithm 1"
    bdp = verdicts[prevents_overfitting_id(BDP_ARM)]
    who = "Algorithm 1 calibrated for Bayesian DP"
    if bdp.status == "not checked":  # it passes, but so does the unprotected standard holdout (the row says so)
        return f"{who} stays within its T, but so does the standard holdout: no power at this setting"
    if bdp.status == "reproduced":
        if DP_ARM not in spec.mechanisms:
            return f"{who} prevents overfitting"
        if verdicts[prevents_overfitting_id(DP_ARM)].status == "reproduced":
            certified = certified_bdp_id(DP_ARM)  # made when the DP calibration is feasible
            return (f"Both calibrations of Algorithm 1 prevent overfitting (no mean gap {Z:g} SE above T), so this run "
                    "does not separate them" + (
                "; only the Bayesian-DP one is certified at the session's ε (c)"
                if certified in verdicts and verdicts[certified].status == "does not hold" else ""))
        return f"Only the Bayesian-DP calibration of Algorithm 1 prevents overfitting (no mean gap {Z:g} SE above T)"
    return _bdp_failure(table, spec, who) + _dp_certified_above(verdicts)


def _dp_certified_above(verdicts: Verdicts) -> str:
    """The title's second finding where the DP calibration's certified level is ringed (above the session's ε)."""
    certified = certified_bdp_id(DP_ARM)
    if certified in verdicts and verdicts[certified].status == "does not hold":
        return "; the DP calibration is certified only above the session's ε (c)"
    return ""


def _bdp_failure(table: pd.DataFrame, spec, who: str) -> str:
    """How Algorithm 1 calibrated for Bayesian DP failed: not run, answered nothing (and whether the attribute
    queries spent the budget), answered too little, or overfitted."""
    hold = table[(table["mechanism"] == BDP_ARM) & (table["dataset"] == "holdout")].sort_values("k")
    asked = hold[hold["k"] > 0]
    if asked.empty:
        return f"{who} was not run (infeasible calibration)"
    if asked["answered"].max() == 0:
        arm = spec.arm(BDP_ARM)
        budget = arm.total_budget(spec, spec.arm_settings()[BDP_ARM])
        spent = float(hold["budget_used"].iloc[0]) >= budget  # k = 0: after the attribute queries
        return f"{who} answers no accuracy query" + (
            f": attribute queries use up B = {budget:g}" if spent else "")
    if asked["answered"].min() < ANSWERED_MIN:
        share = int(np.floor(asked["answered"].min() * 100 + 1e-9))
        return f"{who} answers only {share}% of the accuracy queries at some k"
    return f"{who} overfits beyond its threshold T"


def fig2_figure(table: pd.DataFrame, gaps: pd.DataFrame, verdicts: Verdicts, spec, records, replicates: int):
    """zhao-fig2: (a) the standard holdout's accuracy curves (train, holdout as reported, fresh, population; the
    paper's view) with the 95% band of each mean, (b) holdout − fresh per arm with its 95% band, each arm's threshold
    T, and the gap in units of one accuracy's SE; the verdict is the standard holdout's claim; a failing point is
    ringed."""
    plt = pyplot()
    arms = arms_in(spec, table["mechanism"])
    fig, (ax_acc, ax_gap) = plt.subplots(1, 2, figsize=(10, 4.6), gridspec_kw={"width_ratios": [1, 1.1]})
    std = next((a for a in arms if a.name == "standard"), arms[0])
    rows = table[table["mechanism"] == std.name]
    accuracy_curves(ax_acc, rows)  # 95% bands of the means, as in panel (b)
    ax_acc.set_title(f"(a) {std.display_name}: accuracy, colour = data set")  # the arm's colour is (b)'s
    ax_acc.set_ylabel("accuracy\n(mean, 95% CI)")
    gap_curves(ax_gap, gaps, arms)  # a marker at every k: the grid read off each curve
    sqrt_k_axis(ax_gap, float(table["k"].max()))  # the scale first: the threshold labels look where curves are
    threshold_lines(ax_gap, spec, arms)
    _ring_standard(ax_gap, verdicts, gaps)
    ax_gap.set_title("(b) holdout − fresh, colour = arm")
    ax_gap.set_ylabel(GAP_AXIS_LABEL)  # one unit: the title's z is the gap over its replicate SE
    for ax in (ax_acc, ax_gap):
        sqrt_k_axis(ax, float(table["k"].max()))  # as the Dwork et al. figures: the peak at small k gets room
        ax.set_xlabel("selected variables k (square-root axis)")
    verdict = standard_verdict(verdicts, records) if "standard" in set(table["mechanism"]) else "Fig. 2's setting"
    verdict_title(fig, wrap_verdict(verdict), short_setting(spec, replicates))
    # one column per panel: (a) the data sets as accuracy_curves draws them, (b) the arms and their thresholds
    handles = [copy.copy(h) for h in ax_acc.get_legend_handles_labels()[0]]
    for h in handles:
        h.set_label(f"(a) {h.get_label()}")
    handles.append(Patch(facecolor="#bbbbbb", edgecolor="#777777", lw=0.6,
                         label="(a, b) shading: 95% CI of the mean (Student t)"))
    handles += [arm_handle(a, f"(b) {a.display_name}: holdout − fresh") for a in arms]
    with_t = [short_arm_name(a) for a in arms if _has_threshold(a, spec)]
    if with_t:  # context, not a requirement: zhao-fig2's claim is about the standard holdout only
        handles += [style_handle("--", f"(b) {' and '.join(with_t)}'s threshold T", color=REQUIREMENT["color"])]
    legend_below(fig, handles=handles, labels=[h.get_label() for h in handles], ncol=2, rect_top=0.98)
    return fig


def _has_threshold(arm, spec) -> bool:
    """Whether ``arm`` has a finite threshold T (what :func:`threshold_lines` draws for it)."""
    t = arm.tolerance(spec, spec.arm_settings()[arm.name])
    return t is not None and bool(np.isfinite(t))


#: The ring's words per claim status: a ring marks a failing or differing claim, and says which.
RING_WORDS = {"does not hold": "claim does not hold here",
              "differs": "claim does not hold here (differs from the paper)"}


def ring_label(claim: Claim | None) -> str:
    """The legend words of a ring on ``claim``'s point, by its status (:data:`RING_WORDS`; a failing check without a
    row of its own, e.g. an arm judged by no claim, reads "claim does not hold here")."""
    return RING_WORDS.get(claim.status if claim else "", RING_WORDS["does not hold"])


def arm_claim(verdicts: Verdicts, arm) -> Claim | None:
    """The row that judges a budgeted arm: Algorithm 1's Fig. 3 row, else a plug-in arm's tracks-fresh row; None for
    an arm no row judges (a calibration that does not aim at the session's ε)."""
    for claim_id in (prevents_overfitting_id(arm.name), tracks_fresh_id(arm.name)):
        if claim_id in verdicts:
            return verdicts[claim_id]
    return None


def _ring_standard(ax, verdicts: Verdicts, gaps: pd.DataFrame) -> None:
    """Ring the standard holdout's gap at the largest k if its claim (it overfits there) fails."""
    g = gaps[gaps["mechanism"] == "standard"].dropna(subset=["mean"]).sort_values("k")
    if not len(g):
        return
    claim = verdicts[STANDARD_OVERFITS]
    if claim.status != "reproduced":
        ring(ax, g["k"].iloc[-1], g["mean"].iloc[-1], label=ring_label(claim))


def fig3_figure(table: pd.DataFrame, gaps: pd.DataFrame, theory: pd.DataFrame, verdicts: Verdicts, spec, records,
                replicates: int):
    """zhao-fig3 / zhao-fig3-large-n: (a) holdout − fresh per arm with the 95% band of its mean and each arm's
    threshold T; (b) per budgeted arm (any mechanism that answers ⊥), on two stacked sub-axes, the
    fraction of accuracy queries answered (against 90% required) and the budget used / B; markers thinned where arms
    coincide or k is dense, points never moved; (c) the Bayesian-DP level Lemma 2 certifies for each calibration's σ
    against the session's ε. Points where a claim fails are ringed; the title is :func:`fig3_verdict`."""
    plt = pyplot()
    arms = arms_in(spec, table["mechanism"])
    budgeted = [a for a in arms if a.budgeted]
    certified = theory.dropna(subset=["certified_bdp"]) if "certified_bdp" in theory else theory.iloc[:0]
    if len(certified):  # the calibrations that aim at the session's ε (their certified-level claims)
        certified = certified[certified["arm"].map(lambda a: spec.arm(a).calibration.targets_session_epsilon)]
    ratios = [1.35] + ([1.0] if budgeted else []) + ([0.5] if len(certified) else [])  # (c): two points, narrow
    fig = plt.figure(figsize=(10, 5.0))
    grid = fig.add_gridspec(2, len(ratios), width_ratios=ratios)
    ax_gap = fig.add_subplot(grid[:, 0])
    silent = gap_curves(ax_gap, gaps, arms)  # a marker at every k: the grid read off each curve
    k_max = float(table["k"].max())
    sqrt_k_axis(ax_gap, k_max, K_TICKS_NARROW)  # the scale first: the threshold labels look where curves are
    threshold_lines(ax_gap, spec, arms)
    _ring_standard(ax_gap, verdicts, gaps)
    for arm in budgeted:  # gaps significantly above T (the claims' reading): ringed on the curve
        hold, arm_rows, tolerance = _arm_rows(table, gaps, spec, arm)
        bad_gap = shortfalls(hold, arm_rows, tolerance)[1]
        ring(ax_gap, [g[0] for g in bad_gap], [g[1] for g in bad_gap],
             label=ring_label(arm_claim(verdicts, arm)))
    ax_gap.set_title("(a) holdout − fresh, per arm")
    ax_gap.set_ylabel(GAP_AXIS_LABEL)  # one gap unit and one k axis, as zhao-fig2 and Dwork's figures
    ax_gap.set_xlabel("selected variables k (square-root axis)")
    if budgeted:
        ax_answered = fig.add_subplot(grid[0, 1])
        ax_budget = fig.add_subplot(grid[1, 1], sharex=ax_answered)
        _answered_panels(ax_answered, ax_budget, table, gaps, spec, budgeted, verdicts)
        sqrt_k_axis(ax_answered, k_max, K_TICKS_NARROW)  # the same k ticks as (a)
    if len(certified):
        _certified_panel(fig.add_subplot(grid[:, -1]), certified, spec, verdicts)
    verdict_title(fig, wrap_verdict(fig3_verdict(verdicts, table, spec, records)),
                  short_setting(spec, replicates))
    handles = [arm_handle(a, a.display_name + (" (every accuracy answer ⊥: no gap)" if a in silent else ""))
               for a in arms]
    if budgeted:  # the budget sub-axis: its own line style, in each arm's colour
        handles.append(style_handle(":", "dotted, open markers: budget used / B (b, lower)", marker="v", mfc="white"))
    handles += [style_handle("--", REQUIREMENT_LABEL, color=REQUIREMENT["color"])]
    rings = [h for ax in fig.axes for h in ax.collections if h.get_gid() == "encoding:violation"]
    if rings:  # one entry; its words say which statuses the rings mark
        words = [w for w in RING_WORDS.values() if w in {h.get_label() for h in rings}]
        handles.append(copy.copy(rings[0]))
        handles[-1].set_label(" / ".join(words) if len(words) < 2 else "claim does not hold here (fails or differs)")
    legend_below(fig, handles=handles, labels=[h.get_label() for h in handles], ncol=2, rect_top=0.98)
    return fig


def _arm_rows(table: pd.DataFrame, gaps: pd.DataFrame, spec, arm):
    """One budgeted arm's holdout rows at k > 0, its gaps as (k, mean, SE, replicates) over answered replicates,
    and its threshold T: the inputs of :func:`shortfalls`, as the claims use them."""
    hold = table[(table["mechanism"] == arm.name) & (table["dataset"] == "holdout") & (table["k"] > 0)]
    g = gaps[(gaps["mechanism"] == arm.name) & (gaps["k"] > 0) & gaps["mean"].notna()].sort_values("k")
    tolerance = arm.tolerance(spec, spec.arm_settings()[arm.name])
    return hold, [(int(r.k), r.mean, r.se, int(r.replicates)) for r in g.itertuples()], tolerance


def _answered_panels(ax_answered, ax_budget, table: pd.DataFrame, gaps: pd.DataFrame, spec, arms,
                     verdicts: Verdicts) -> None:
    """Per budgeted arm, in its colour and marker: above, the fraction of accuracy queries answered at each k
    (k = 0 is never asked) against 90% required (dashed), the k where it answers less ringed (only the first, labelled
    "at every k", when it answers less at every k: the claim fails for the whole arm, and a chain of rings would hide
    the curve); below, the budget used / B (dotted, open marker; at k = 0: after the attribute queries). Points stay
    at their k; where arms coincide or k is dense, markers are thinned (:func:`marker_indices`) so none hides
    another."""
    kmax = float(table["k"].max())
    holds, budgets = {}, {}
    for arm in arms:
        hold = _arm_rows(table, gaps, spec, arm)[0].sort_values("k")
        holds[arm.name] = (np.sqrt(hold["k"].to_numpy()), hold["answered"].to_numpy())  # the square-root k axis
        every = table[(table["mechanism"] == arm.name) & (table["dataset"] == "holdout")].sort_values("k")
        if len(every):
            budget = arm.total_budget(spec, spec.arm_settings()[arm.name])
            budgets[arm.name] = (every["k"].to_numpy(), every["budget_used"].to_numpy() / float(budget))
    answered_marks = marker_indices(holds, np.sqrt(kmax), 1.2)
    budget_marks = marker_indices({a: (np.sqrt(k), y) for a, (k, y) in budgets.items()}, np.sqrt(kmax), 1.2)
    for arm in arms:
        hold, arm_rows, tolerance = _arm_rows(table, gaps, spec, arm)
        hold = hold.sort_values("k")
        label = ring_label(arm_claim(verdicts, arm))
        ax_answered.plot(hold["k"], hold["answered"], "-", ms=6, markevery=answered_marks[arm.name], zorder=22,
                         **style(arm))  # above the ring's white halo: a ringed marker keeps its shape
        bad = shortfalls(hold, arm_rows, tolerance)[0].sort_values("k")
        if len(bad) and len(bad) == len(hold):  # fails at every k: one ring at the first, said in words
            first = bad.iloc[0]
            ring(ax_answered, first["k"], first["answered"], label=label, size=90)
            words = "⊥ at every k" if (bad["answered"] == 0).all() else f"< {ANSWERED_MIN:.0%} at every k"
            ax_answered.annotate(words, (first["k"], first["answered"]), textcoords="offset points",
                                 xytext=(10, 6), ha="left", va="bottom", fontsize=SIZES["note"])
        else:
            ring(ax_answered, bad["k"], bad["answered"], label=label, size=90)
        if arm.name in budgets:
            ax_budget.plot(*budgets[arm.name], ":", ms=5, mfc="white", markevery=budget_marks[arm.name],
                           **style(arm))
    requirement_line(ax_answered, ANSWERED_MIN, f"{ANSWERED_MIN:.0%} required", x=0.5, ha="center", va="top")
    for ax, label in ((ax_answered, "fraction answered"), (ax_budget, "budget used / B")):
        ax.set_ylim(-0.1, 1.12)
        ax.set_yticks([0, 0.5, 1])
        ax.set_ylabel(label)
    ax_answered.set_title("(b) answered; budget used")
    ax_answered.tick_params(labelbottom=False)
    ax_budget.set_xlabel("selected variables k (square-root axis)")


def _certified_panel(ax, certified: pd.DataFrame, spec, verdicts: Verdicts) -> None:
    """Per calibration aiming at the session's ε, the Bayesian-DP level Lemma 2 certifies for its σ (log axis), in
    the arm's encoding, labelled with its value; ε dashed; a level above ε (its claim fails) ringed."""
    x = np.arange(len(certified))
    eps = float(certified["eps_session"].iloc[0])
    for i, r in enumerate(certified.itertuples()):
        arm = spec.arm(r.arm)
        ax.plot([i], [r.certified_bdp], ls="none", ms=9, **style(arm))
        above = r.certified_bdp > eps * (1 + 1e-6)  # its claim (certified at the session's ε) fails: said beside it
        ax.annotate(f"{r.certified_bdp:.3g}" + ("\nfails: > ε" if above else ""), (i, r.certified_bdp),
                    textcoords="offset points", xytext=(9, 3), va="bottom", fontsize=10)  # above the point: a level
        # on ε is not struck through by its line
        if above:
            ring(ax, i, r.certified_bdp, label=ring_label(verdicts[certified_bdp_id(r.arm)]))
    ax.set_xticks(x, [short_arm_name(spec.arm(a)).replace("-DP", "\nDP") for a in certified["arm"]])
    ax.set_xlim(-0.5, len(certified) - 0.2)
    lo, hi = min(eps, certified["certified_bdp"].min()), max(eps, certified["certified_bdp"].max())
    ax.set_ylim(lo / 1.8, hi * 1.8)
    log_axis(ax, "y")
    requirement_line(ax, eps, f"ε = {eps:g}", x=0.03, ha="left")
    ax.set_title("(c) certified level")
    ax.set_ylabel("Bayesian-DP level (Lemma 2)")
    ax.grid(False, axis="x")
