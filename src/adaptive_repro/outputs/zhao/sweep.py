"""zhao-sweep: overfitting against correlation strength p = p_s = p_y and batch SD b, per arm, and the BDP level
Lemma 2 certifies for the DP calibration against p (beyond the paper; docs/METHODS.md §4, 4a).

Overfitting is holdout − fresh accuracy at the largest k, in two units: sampling-SE units 2 sqrt(n)(holdout − fresh)
(n is fixed here, so this is the accuracy gap rescaled) and Monte-Carlo standard errors (gap / SE, a z-score).
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from adaptive_repro import decisions
from adaptive_repro.foundation.registry import Claim, code_name, verdict
from adaptive_repro.outputs.experiment_claims import Z
from adaptive_repro.outputs.zhao.common import (
    DP_ARM,
    GAP_AXIS_LABEL,
    arms_in,
    marker_indices,
    requirement_line,
    short_arm_name,
    theory_table,
    title_words,
    wrap_verdict,
)
from adaptive_repro.report.plotting import (
    COLORS,
    MAX_WIDTH,
    SIZES,
    log_axis,
    note,
    pyplot,
    ring,
    style,
    verdict_title,
)
from adaptive_repro.stats import ci95_half_width, paired_gap


def sweep_table(records: pd.DataFrame, specs: dict) -> pd.DataFrame:
    rows = []
    for name, spec in specs.items():
        recs = records[records["experiment"] == name]
        if recs.empty:
            continue
        k_max = max(spec.k_grid)
        theory = theory_table(spec).set_index("arm") if spec.alg1_calibrations() else pd.DataFrame()
        for mech in dict.fromkeys(recs["mechanism"]):
            gap, se, reps = paired_gap(recs, mech, k_max)
            hold = recs[(recs["mechanism"] == mech) & (recs["dataset"] == "holdout") & (recs["k"] == k_max)]
            row = {"p": spec.model.p_s, "b": spec.model.b, "n": spec.n, "d": spec.d, "mechanism": mech, "k": k_max,
                   "gap_mean": gap, "gap_se": se, "replicates": reps,
                   "gap_se_units": 2.0 * np.sqrt(spec.n) * gap, "gap_z": gap / se if se and se > 0 else np.nan,
                   "answered": float(hold["accuracy"].notna().mean()), "budget_used": float(hold["budget_used"].mean())}
            if mech in theory.index:
                th = theory.loc[mech]
                row |= {"sigma": th["sigma"], "eps_session": th["eps_session"], "eps_star": th["eps_star"],
                        "certified_bdp": th["certified_bdp"], "eps_dp_lemma2": th["eps_dp_lemma2"],
                        "theorem2_n_required": th["theorem2_n_required"]}
            rows.append(row)
    return pd.DataFrame(rows).sort_values(["mechanism", "b", "p"]).reset_index(drop=True)


def standard_trend(table: pd.DataFrame):
    """How the standard holdout's gap at the largest k changes from the smallest to the largest p, per b: (p_lo,
    p_hi, [(b, change, SE)], rises, falls, decisions). Each b is decided by :func:`decisions.mean_above` on the change
    with Student's t at Welch's degrees of freedom (each point's SE comes from a few replicates) in place of Z
    (rises: change − t SE > 0; falls: change + t SE ≤ 0, the same margin both ways); what the claim judges and the
    figure rings. None without a standard arm."""
    sub = table[table["mechanism"] == "standard"]
    if sub.empty:
        return None
    p_lo, p_hi = sub["p"].min(), sub["p"].max()
    diffs, per_b = [], {}
    for b, grp in sub.groupby("b"):
        lo, hi = grp.set_index("p").loc[p_lo], grp.set_index("p").loc[p_hi]
        change, se = hi["gap_mean"] - lo["gap_mean"], float(np.hypot(hi["gap_se"], lo["gap_se"]))
        diffs.append((b, change, se))
        counted = min(hi["replicates"], lo["replicates"]) >= 2 and np.isfinite(se)  # else no SE: undecided anyway
        df = decisions.welch_df(hi["gap_se"], int(hi["replicates"]), lo["gap_se"], int(lo["replicates"])) \
            if counted else None
        per_b[b] = decisions.mean_above(change, se, int(min(hi["replicates"], lo["replicates"])), df=df)
    up = [x for x in diffs if per_b[x[0]].state == decisions.HOLDS]
    down = [x for x in diffs if per_b[x[0]].state == decisions.FAILS]
    return p_lo, p_hi, diffs, up, down, per_b


def worsens_decision(per_b: dict) -> decisions.Decision:
    """"Correlation makes the reused holdout overfit more": holds where the gap's rise is decided at some b and its
    fall at none, does not hold where its fall is decided at some b (a counter-example), else undecided, needing the
    replicates that would decide the first b (:func:`standard_trend`'s per-b decisions)."""
    first = min(per_b.values(), key=lambda d: (d.needs is None, d.needs or 0))
    state = decisions.combined((d.state for d in per_b.values()), every=False)
    return dataclasses.replace(first, state=state, rule="per b, the change of the gap from the smallest to the "
                               "largest p against 0 with ± t SE (Student's t at Welch's degrees of freedom, the "
                               "level of ± 3 SE)", needs=first.needs if state == decisions.UNDECIDED else None)


def sweep_verdict(table: pd.DataFrame) -> str:
    """The figure's one message: whether stronger correlation makes the standard holdout overfit more, from
    :func:`standard_trend` (the claim's numbers); without a standard arm, what the DP calibration is certified."""
    trend = standard_trend(table)
    if trend is None:
        dp = table[table["mechanism"] == DP_ARM].drop_duplicates("p") if "certified_bdp" in table else table.iloc[:0]
        if dp.empty:
            return "Overfitting against correlation strength"
        return f"Lemma 2 certifies the DP calibration at up to {dp['certified_bdp'].max():.3g}-Bayesian DP"
    p_lo, p_hi, diffs, up, down, per_b = trend
    undecided = [x for x in diffs if x not in up and x not in down]

    def bs(changes) -> str:
        return ", ".join(f"{b:g}" for b, _, _ in changes)

    span = f"from p = {p_lo:g} to {p_hi:g}"
    open_part = f"; undecided at b = {bs(undecided)}" if undecided else ""
    if up and not down:
        return (f"Stronger correlation makes the reused holdout overfit more: its gap rises {span} at b = {bs(up)}"
                + open_part)
    if up:
        return f"Correlation's effect on the reused holdout depends on b: its gap rises {span} at b = {bs(up)} and " \
               f"falls at b = {bs(down)}"
    if down:
        return (f"Stronger correlation does not make the reused holdout overfit more: its gap falls {span} at "
                f"b = {bs(down)}" + open_part)
    reps = min(d.replicates for d in per_b.values())
    return (f"Whether stronger correlation makes the reused holdout overfit more is undecided at {reps} replicates: "
            f"its gap changes {span} by " + ", ".join(f"{d:+.3f} at b = {b:g}" for b, d, _ in diffs))


#: Height of each arm's "answered" strip relative to its gap panel.
STRIP_RATIO = 0.6
#: Text of the note where an arm answered nothing at some p (no gap to draw there).
NO_ANSWER = "no gap where every answer is ⊥"


#: Shift in p between neighbouring batch SDs' points (side by side at one p, in every arm panel and strip).
DODGE = 0.025
#: The words beside the first ring of each claim the figure rings (how it does not hold here).
WORSENS = "correlation-worsens-overfitting"  # the IDs of the two rows the figure rings (one place each)
DP_CERTIFIED = "dp-calibration-certified-bdp"
RING_WORDS = {WORSENS: ("gap falls", "fails"), DP_CERTIFIED: ("level above ε", "fails")}


#: The rings' one legend entry (one meaning in every figure: a claim does not hold here, whether it fails or differs
#: from the paper; which claim and how is written beside its first ring).
RING_LEGEND = "claim does not hold here (named beside the ring)"
#: Line style per batch SD b, with :func:`batch_sd_greys`: b is drawn in no arm's colour.
B_LINE_STYLES = ["-", "--", ":"]


def batch_sd_greys(n: int) -> list[str]:
    """``n`` greys from black to light grey (dark = small b), readable on white: colour stays the arms'."""
    return [f"#{v:02x}{v:02x}{v:02x}" for v in np.linspace(0x00, 0x99, n).round().astype(int)]


def figure(table: pd.DataFrame, spec):
    """A row of arm panels: above, overfitting holdout − fresh accuracy at the largest k against p (one line per
    batch SD b in greys and line styles, side by side, the arm's marker, 95% bars), on one y axis shared by every arm;
    below, in a strip shared by every arm, the fraction of replicates whose accuracy query at the largest k was
    answered (not ⊥), so a missing gap reads as "answered 0" there and a note on the panel says why no point is drawn
    (an arm that answers every query: said in words). Under them, the Bayesian-DP level Lemma 2 certifies for each
    calibration against p (in the arms' colours and markers, each named beside its line; the gap panels draw b in greys,
    so that no colour means two things), with the session's ε, beside the legend. Points where a claim does not hold are
    ringed, the claim named beside the ring (:data:`RING_LEGEND`)."""
    plt = pyplot()
    n = spec.n
    arms = arms_in(spec, table["mechanism"])
    ncols = max(2, min(len(arms), 4))
    arm_rows = -(-len(arms) // ncols)
    fig = plt.figure(figsize=(MAX_WIDTH, 3.4 * arm_rows + 3.1))
    outer = fig.add_gridspec(arm_rows + 1, ncols, height_ratios=[1.45] * arm_rows + [1], hspace=0.45, wspace=0.12)
    cells = [outer[i // ncols, i % ncols].subgridspec(2, 1, height_ratios=[1, STRIP_RATIO], hspace=0.08)
             for i in range(len(arms))]
    first = fig.add_subplot(cells[0][0])
    axes = [first] + [fig.add_subplot(c[0], sharey=first) for c in cells[1:]]
    strips = [fig.add_subplot(cells[0][1], sharex=first)]
    strips += [fig.add_subplot(c[1], sharex=ax, sharey=strips[0]) for c, ax in zip(cells[1:], axes[1:])]
    b_values = sorted(table["b"].unique())
    b_colours = dict(zip(b_values, batch_sd_greys(len(b_values))))
    b_styles = {b: B_LINE_STYLES[i % len(B_LINE_STYLES)] for i, b in enumerate(b_values)}
    dodge = {b: DODGE * (i - (len(b_values) - 1) / 2) for i, b in enumerate(b_values)}
    for ax, strip, arm in zip(axes, strips, arms):
        sub = table[table["mechanism"] == arm.name]
        marker = style(arm)["marker"]
        for b, grp in sub.groupby("b"):
            grp = grp.sort_values("p").assign(x=lambda g, b=b: g["p"] + dodge[b])  # side by side
            drawn = grp[grp["answered"] > 0]
            half = ci95_half_width(drawn["gap_se"], drawn["replicates"])
            ax.errorbar(drawn["x"], drawn["gap_mean"], yerr=half, ls=b_styles[b], marker=marker, ms=5.5, capsize=0,
                        elinewidth=1.1, color=b_colours[b], lw=1.4)
            if not (sub["answered"] == 1).all():  # an arm that answers everything: said in words, not drawn
                strip.plot(grp["x"], grp["answered"], ls=b_styles[b], marker=marker, ms=4, lw=1.0, color=b_colours[b])
        if (sub["answered"] == 1).all():  # no strip: said on the gap panel, whose k axis is labelled instead
            strip.set_visible(False)
            ax.tick_params(labelbottom=True)
            ax.set_xlabel(title_words("stay probability p = p_s = p_y"))
            ax.text(0.03, 0.04, "answers every query", transform=ax.transAxes, ha="left", va="bottom",
                    fontsize=SIZES["tick"], color="#555555")
        silent_p = sorted(sub.loc[sub["answered"] == 0, "p"].unique())
        if silent_p:  # why no point is drawn there (never a point at 0, which would read "no overfitting")
            ax.text(float(np.mean(silent_p)), 0.5, NO_ANSWER.replace(" every", "\nevery"),
                    transform=blended_transform_factory(ax.transData, ax.transAxes), ha="center", va="center",
                    fontsize=SIZES["note"], color="#555555")
        ax.axhline(0, color=COLORS["reference"], lw=0.9)
        name = arm.display_name
        ax.set_title(name.replace(" (", "\n(", 1) if " (" in name else name.replace(", ", ",\n", 1))
        if strip.get_visible():
            ax.tick_params(labelbottom=False)
    std_ax = next((ax for ax, a in zip(axes, arms) if a.name == "standard"), None)
    _ring_trend(std_ax, table)
    strips[0].set_ylim(-0.2, 1.2)
    strips[0].set_yticks([0, 0.5, 1], ["0%", "50%", "100%"])
    for i, (ax, strip) in enumerate(zip(axes, strips)):
        if i % ncols == 0:
            ax.set_ylabel(GAP_AXIS_LABEL)  # one gap unit in every experiment figure
        else:
            ax.tick_params(labelleft=False)
            strip.tick_params(labelleft=False)
    shown = [s for s in strips if s.get_visible()]
    if shown:  # the last drawn strip carries the strips' ticks and label, on its right (the figure's margin)
        shown[-1].tick_params(labelleft=False, labelright=True)
        shown[-1].yaxis.set_label_position("right")
        shown[-1].set_ylabel("answered")
    cert = fig.add_subplot(outer[arm_rows, :max(1, ncols // 2)])
    _certified_against_p(cert, table, spec)
    grid_p = sorted(table["p"].unique())
    for ax in strips + [cert]:
        ax.set_xlabel(title_words("stay probability p = p_s = p_y"))
        ax.set_xlim(table["p"].min() - 0.07, table["p"].max() + 0.07)
        ax.set_xticks(grid_p, [f"{p:g}" for p in grid_p])
    handles = [Line2D([], [], color=b_colours[b], ls=b_styles[b], label=f"batch SD b = {b:g}") for b in b_values]
    rings = [c for ax in axes + [cert] for c in ax.collections if c.get_gid() == "encoding:violation"]
    if rings:
        handles.append(copy.copy(rings[0]))
        handles[-1].set_label(RING_LEGEND)
    verdict_title(fig, wrap_verdict(sweep_verdict(table), 1.05 * MAX_WIDTH),  # 112 characters fit 10 in
                  wrap_verdict(f"n = {n:,}, d = {spec.d:,}, null labels, {spec.model.describe().split(':')[0]}, "
                               f"{spec.replicates} replicates per point; gap at the largest k = {max(spec.k_grid)}, "
                               "bars: 95% CI",
                               1.05 * MAX_WIDTH))
    fig.subplots_adjust(left=0.09, right=0.91, top=0.8, bottom=0.08)
    spare = fig.add_subplot(outer[arm_rows, max(1, ncols // 2):])  # the legend beside the certified panel
    spare.set_axis_off()
    spare.legend(handles, [h.get_label() for h in handles], loc="center left", bbox_to_anchor=(0.08, 0.5),
                 frameon=False, title="gap panels: grey and line style = batch SD,\nmarker = the panel's arm",
                 title_fontsize=SIZES["legend"],
                 alignment="left")
    return fig


def _ring_trend(ax, table: pd.DataFrame) -> bool:
    """Ring, on the standard holdout's panel, the largest-p points of the b where its gap's fall is decided: where the
    claim "correlation worsens overfitting" does not hold. Whether a ring was drawn."""
    trend = standard_trend(table)
    if ax is None or trend is None:
        return False
    p_lo, p_hi, diffs, up, down, _ = trend
    failing = {b for b, _, _ in down}
    if not failing:
        return False
    sub = table[(table["mechanism"] == "standard") & (table["p"] == p_hi) & table["b"].isin(failing)]
    b_values = sorted(table["b"].unique())
    x = [p_hi + DODGE * (b_values.index(b) - (len(b_values) - 1) / 2) for b in sub["b"]]
    ring(ax, x, sub["gap_mean"], label="claim does not hold here", size=120)
    if len(sub):  # the claim named beside its ring (one ring meaning across figures: a claim fails or differs here)
        i = int(np.argmin(sub["gap_mean"].to_numpy()))
        ax.annotate(RING_WORDS[WORSENS][1] + ":\n" + RING_WORDS[WORSENS][0], (x[i], sub["gap_mean"].iloc[i]),
                    textcoords="axes fraction", xytext=(0.62, 0.5), ha="center", va="center", fontsize=SIZES["note"],
                    color=COLORS["violation"], arrowprops={"arrowstyle": "-", "color": "black", "lw": 0.8,
                                                           "shrinkB": 7})
    return len(sub) > 0


def _certified_arms(table: pd.DataFrame) -> list[str]:
    """The Algorithm 1 arms with a certified Bayesian-DP level in the table, DP calibration first."""
    if "certified_bdp" not in table:
        return []
    names = list(dict.fromkeys(table.dropna(subset=["certified_bdp"])["mechanism"]))
    return sorted(names, key=lambda m: m != DP_ARM)


def _certified_against_p(ax, table: pd.DataFrame, spec) -> bool:
    """The Bayesian-DP level Lemma 2 certifies for each calibration's σ against p (log axis), one line per
    calibration in its arm's colour and marker and its name beside its last point (where two
    levels coincide, one marker: :func:`marker_indices`), with the session's ε dashed; a DP-calibration level above ε
    (its claim fails) ringed. Whether a ring was drawn."""
    arms = _certified_arms(table)
    if not arms:
        note(ax, "no Algorithm 1 arm in this run:\nno certified level to show")
        ax.set_xticks([]), ax.set_yticks([])
        return False
    curves = {m: table[table["mechanism"] == m].drop_duplicates("p").sort_values("p") for m in arms}
    levels = np.log10(table["certified_bdp"].dropna())
    marks = marker_indices({m: (r["p"].to_numpy(), np.log10(r["certified_bdp"].to_numpy())) for m, r in curves.items()},
                           float(np.ptp(table["p"])), float(np.ptp(levels)) or 1.0)  # equal levels: one marker
    for m, rows in curves.items():
        colour = style(spec.arm(m))["color"]
        ax.plot(rows["p"], rows["certified_bdp"], ls="-", ms=8, lw=1.4, color=colour, markevery=marks[m],
                marker=style(spec.arm(m))["marker"], mec="white", mew=0.5, zorder=30)  # above the ring's halo
        last = rows.iloc[-1]
        ax.annotate(f"{short_arm_name(spec.arm(m))} calibration", (last["p"], last["certified_bdp"]),
                    textcoords="offset points", xytext=(-14, 0 if m == DP_ARM else 8), ha="right",
                    va="center" if m == DP_ARM else "bottom", fontsize=SIZES["tick"], color=colour)
    dp = table[table["mechanism"] == DP_ARM].drop_duplicates("p")
    eps = float(table["eps_session"].dropna().iloc[0])
    above = dp[dp["certified_bdp"] > eps * (1 + 1e-6)]
    ring(ax, above["p"], above["certified_bdp"], label="claim does not hold here", size=150)
    if len(above):  # the claim named beside its first ring
        first = above.sort_values("p").iloc[0]
        ax.annotate(RING_WORDS[DP_CERTIFIED][1] + ": " + RING_WORDS[DP_CERTIFIED][0],
                    (first["p"], first["certified_bdp"]), textcoords="offset points", xytext=(12, -2), ha="left",
                    va="top", fontsize=SIZES["note"], color=COLORS["violation"])
    levels = table["certified_bdp"].dropna()
    ax.set_ylim(min(eps, levels.min()) / 1.8, max(eps, levels.max()) * 1.8)
    log_axis(ax, "y")
    requirement_line(ax, eps, f"ε = {eps:g}", x=0.02, ha="left", va="top")  # under the line: the Bayesian-DP arm
    # lies on it
    ax.set_title("Certified Bayesian-DP level")
    ax.set_ylabel("level (Lemma 2)")
    return len(above) > 0


def claims(table: pd.DataFrame) -> list[Claim]:
    out = []
    trend = standard_trend(table)
    if trend is not None:
        p_lo, p_hi, diffs, up, down, per_b = trend
        decided = worsens_decision(per_b)
        text = "; ".join(f"b = {b:g}: {dlt:+.4f} ± {se:.4f}" for b, dlt, se in diffs)
        if decided.state == decisions.FAILS:
            text += (" — in this data model correlation does not make the standard holdout overfit more (its gap "
                     f"falls from p = {p_lo:g} to p = {p_hi:g} at b = {', '.join(f'{b:g}' for b, _, _ in down)})")
        if decided.note():
            text += ". " + decided.note()
        out.append(Claim(output_id="zhao-sweep", claim_id=WORSENS,
                         source="Zhao 2017 §1 (motivation)",
                         claim="Correlated records make overfitting of the reused holdout worse.",
                         expected=f"holdout − fresh at the largest k: its change from p = {p_lo:g} to p = {p_hi:g} "
                         "above 0 by more than t SE for some b and below 0 by t SE for none (holds); below 0 by t SE "
                         f"for some b (does not hold); t is Student's quantile at Welch's degrees of freedom at the "
                         f"level of ± {Z:g} SE",
                         measured=text, status=decided.status,
                         counterexample=f"b = {down[0][0]:g}" if down else "", kind="project",
                         code=code_name(worsens_decision)))
    dp = table[table["mechanism"] == DP_ARM].drop_duplicates("p") if "certified_bdp" in table else pd.DataFrame()
    if not dp.empty:
        ok = bool((dp["certified_bdp"] <= dp["eps_session"] * (1 + 1e-6)).all())
        worst = dp.loc[dp["certified_bdp"].idxmax()]
        out.append(Claim(output_id="zhao-sweep", claim_id=DP_CERTIFIED,
                         source="Zhao 2017 §3 (ε*), Lemma 2",
                         claim="The DP calibration (σ for ε as if records were independent) is ε-Bayesian-DP at every "
                         "correlation of the sweep.",
                         expected="certified BDP (Lemma 2) ≤ ε at every p",
                         measured="; ".join(f"p = {r.p:g}: {r.certified_bdp:.3g}" for r in dp.itertuples()) +
                         f" (ε = {dp['eps_session'].iloc[0]:g})",
                         status=verdict(ok, "statement"),
                         counterexample="" if ok else f"p = {worst['p']:g}: {worst['certified_bdp']:.3g}",
                         kind="project", code="adaptive_repro.privacy.bdp_level_for_dp"))
    return out


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-sweep from the records of every sweep point."""
    specs = inputs["specs"]
    table = sweep_table(inputs["records"], specs)
    spec = next(iter(specs.values()))
    claim_list = claims(table)
    return table, figure(table, spec), claim_list
