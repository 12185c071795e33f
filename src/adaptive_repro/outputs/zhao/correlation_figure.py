"""zhao-correlation's figure (docs/METHODS.md §4b): per structure, the final gap of the standard holdout and the
protected arms against V in one unit with each arm's threshold, and the sessions the budgeted arms answer; every
point marked by the rows' own verdict (a ring where it does not hold, a dashed grey ring where it is undecided)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.decisions import CONFIDENCE
from adaptive_repro.outputs.experiment_claims import Z
from adaptive_repro.outputs.zhao.common import BDP_ARM, DP_ARM, structure_words
from adaptive_repro.outputs.zhao.correlation_claims import (
    ANSWERED_MIN,
    REMEDY_ARMS,
    _answered,
    _assess,
    _standard_fails,
    _valid,
)
from adaptive_repro.outputs.zhao.correlation_verdicts import certified_label, headline, structure_verdict
from adaptive_repro.report.plotting import COLORS, MAX_WIDTH, SIZES, legend_below, plain_tick_label, pyplot
from adaptive_repro.simulation.zhao_calibration import noise_unit_threshold
from adaptive_repro.stats import clopper_pearson

MIN_DRAWN = 10  # answered replicates needed to draw a gap (the table and claims keep every point)


def v_groups(table: pd.DataFrame) -> dict[float, tuple[int, float]]:
    """Each V of the run -> (its position on the x axis, its tick value): the structures' V at one strength differ by a
    few percent (e.g. 7.9 and 8.0), so values within 15% of each other share one position, ticked at their geometric
    mean rounded to 2 digits. Positions are evenly spaced categories: arms side by side at one V stay on it."""
    groups: list[list[float]] = []
    for v in sorted(set(table["V"].astype(float))):
        if groups and v <= groups[-1][0] * 1.15:
            groups[-1].append(v)
        else:
            groups.append([v])
    return {v: (i, float(f"{np.exp(np.mean(np.log(g))):.2g}")) for i, g in enumerate(groups) for v in g}


def v_positions(values, table: pd.DataFrame) -> np.ndarray:
    """The x positions of ``values`` (V of ``table``'s rows, :func:`v_groups`)."""
    groups = v_groups(table)
    return np.array([groups[float(v)][0] for v in values], dtype=float)


def v_ticks(ax, table: pd.DataFrame) -> None:
    """The V axis: one evenly spaced category per strength (:func:`v_groups`), ticked with its V in plain numbers."""
    ticks = sorted(set(v_groups(table).values()))
    ax.set_xticks([i for i, _ in ticks], [plain_tick_label(v, None) for _, v in ticks])
    ax.set_xlim(-0.5, len(ticks) - 0.5)


#: Offset between the arms' markers at one V, in categories (:func:`v_ticks`): every marker stays within its V's
#: category, and the error bars and rings stay apart.
DODGE = 0.26
#: The legend entry of the largest possible gap's bars.
CEILING_LABEL = "shaded: above the largest possible gap"
#: The same for the answered fractions, wider: failing arms often sit together at 0 there, each with its ring.
DODGE_ANSWERED = 0.14
#: Line style of a threshold T: dashed for an i.i.d. T, dash-dotted for a T for n/V (two arms of one colour family
#: stay apart where their colours are close).
T_STYLES = {False: "--", True: "-."}
#: The legend entry of the thresholds' line styles (the arms' entries pair marker and T line in the arm's colour).
T_LEGEND = "each arm's T per V (top): dashed i.i.d. T, dash-dot T for n/V"


def marker_fill(arm) -> dict:
    """Marker fill and edge of an arm in this figure: open (white inside, the arm's colour around) for the arms with a
    threshold for n/V, filled with a white edge for the others, so that an n/V arm stays apart from its parent arm
    (Thresholdout's teal and its dark partner) where their markers crowd."""
    if arm.name in REMEDY_ARMS:
        return {"mfc": "white", "mec": arm.color, "mew": 1.3}
    return {"mec": "white", "mew": 0.6}


def answering_arms(table: pd.DataFrame, arms) -> list:
    """The protected arms that answer at least :data:`ANSWERED_MIN` of the accuracy queries at every point: their
    gap is a gap of answered queries everywhere, so the figure's gap row draws them (the others stop answering, and
    their gaps stay in the table)."""
    return [a for a in arms if (table.loc[table["mechanism"] == a.name, "answered"] >= ANSWERED_MIN).all()]


def iid_se(n: pd.Series) -> np.ndarray:
    """The figure's unit at each row's n: a sign query's SD under independence, 1/(2 sqrt(n))."""
    return np.array([noise_unit_threshold(1, v) for v in n], dtype=float)


def threshold_in_iid_se(table: pd.DataFrame, arm) -> pd.DataFrame:
    """``arm``'s threshold T against V in i.i.d. SEs of a query, T / (1/(2 sqrt(n))) (columns V, t_iid)."""
    rows = table[table["mechanism"] == arm.name].groupby("V", as_index=False)[["threshold", "n"]].first()
    return rows.assign(t_iid=rows["threshold"] / iid_se(rows["n"]))


#: Half the width of a threshold's or a ceiling's bar at its V (categories, :func:`v_ticks`): it spans the arms
#: drawn side by side there.
LEVEL_HALF_WIDTH = 0.42


def level_segments(positions, levels) -> tuple[np.ndarray, np.ndarray]:
    """x and y of short horizontal bars, one per V category (a value per V, not a line between Vs), separated by NaN
    so that one line draws them all."""
    xs, ys = [], []
    for x, y in zip(positions, levels):
        xs += [x - LEVEL_HALF_WIDTH, x + LEVEL_HALF_WIDTH, np.nan]
        ys += [y, y, np.nan]
    return np.array(xs, dtype=float), np.array(ys, dtype=float)


#: The legend entry of the rings on points where the rows' verdict is undecided.
UNDECIDED_LABEL = "dashed grey ring: undecided here"


def undecided_on(r, std, drawn_below: bool) -> str:
    """Where the rows' verdict of an arm at a point (:func:`_assess` with its power control) is undecided and why:
    "answered" (its answer rate; only where the arm is drawn in the answered row, ``drawn_below``), "gap" (its gap,
    a threshold that cannot fail, or an undecided answer rate of an arm drawn only above), "no power" (it passes, and
    so does the standard holdout at the same point), or "" where it is decided."""
    state, _ = _assess(r)
    if state == "invalid":
        return ""
    if state == "valid":
        return "" if _standard_fails(std, r.threshold) else "no power"
    if drawn_below and _answered(r).state == decisions.UNDECIDED:
        return "answered"
    return "gap"


#: The legend entry of the squares on points that pass a test the standard holdout passes too.
NO_POWER_LABEL = "dashed grey square: passes, as the standard holdout does (no power)"


def no_power_square(ax, x, y, size: float = 150) -> None:
    """A dashed grey square around each point that passes a test the unprotected standard holdout passes too."""
    if len(x):
        ax.scatter(x, y, s=size, marker="s", facecolors="none", edgecolors=COLORS["reference"], linewidths=1.2,
                   linestyles=(0, (2, 1.5)), zorder=26, label=NO_POWER_LABEL, clip_on=False)


def undecided_ring(ax, x, y, size: float = 130) -> None:
    """A dashed grey ring around each point where the verdict is undecided (one meaning in this figure), wider than
    the markers and above them, so that it shows around the point."""
    if len(x):
        ax.scatter(x, y, s=size, facecolors="none", edgecolors=COLORS["reference"], linewidths=1.2,
                   linestyles=(0, (2, 1.5)), zorder=26, label=UNDECIDED_LABEL, clip_on=False)


def figure(table: pd.DataFrame, spec):
    """Per structure (columns, titled with the data model in words), two rows, each with the arms it is about:

    * top, holdout − population (else − fresh) at the largest k in one unit fixed across V, the i.i.d. SE ½/√n of a
      query (± Z SE of the mean, the interval the verdicts use; drawn where at least MIN_DRAWN replicates were
      answered), for the standard holdout, the protected arms that answer throughout (:func:`answering_arms`) and the
      arms with a threshold for n/V (over their answering sessions), side by side within each V's category; each
      protected arm's threshold T as a short bar at each V in its colour (dashed i.i.d. T, dash-dot T for n/V), and
      the largest possible gap as a grey bar, in the same unit;
    * bottom, the fraction of sessions whose accuracy query at the largest k is answered (not ⊥), for the budgeted
      arms (Clopper–Pearson interval over the sessions at the verdicts' level), with the 90% line.

    A ring marks where the claim "<arm> is valid" fails (answered interval below 90%, or gap − 3 SE > T:
    :func:`_valid`, the claims' test), on the row that shows why. The bottom panels are titled with each structure's
    verdict
    (:func:`structure_verdict`) when the structures' verdicts differ."""
    models = {point.model.name: point.model for point in spec.points}
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.lines import Line2D

    from adaptive_repro.report.plotting import ring, style, verdict_title

    plt = pyplot()
    structures = list(dict.fromkeys(table["structure"]))
    arms = spec.points[0].arms
    protected = [a for a in arms if table.loc[table["mechanism"] == a.name, "threshold"].notna().any()]
    top_arms = [a for a in arms if a.name == "standard" or a in answering_arms(table, protected)
                or (a in protected and a.name in REMEDY_ARMS)]
    bottom_arms = [a for a in protected if a.budgeted and not (a.calibration and a.calibration.COUNTERFACTUAL)]
    verdicts = {s: structure_verdict(table[table["structure"] == s]) for s in structures}
    per_panel = len(set(verdicts.values())) > 1
    fig, axes = plt.subplots(2, len(structures), figsize=(MAX_WIDTH, 6.6 if per_panel else 6.3),
                             sharex=True, sharey="row", squeeze=False, gridspec_kw={"height_ratios": [3, 1.8]})
    ring_label = f"claim does not hold here: < {ANSWERED_MIN:.0%} answered or gap − {Z:g} SE > T"
    keyed: dict[str, Line2D] = {}  # arm display name -> its threshold's line key
    answered_line = {"color": COLORS["population"], "lw": 1.0, "ls": ":"}
    lowest = 0.0  # the lowest end of a drawn interval: the shared gap axis shows every interval whole
    for j, structure in enumerate(structures):
        sub = table[table["structure"] == structure]
        std_at = {r.point: r for r in sub[sub["mechanism"] == "standard"].itertuples()}
        top, bottom = axes[0][j], axes[1][j]
        for rank, arm in enumerate(top_arms):
            a = sub[sub["mechanism"] == arm.name].sort_values("V")
            x = v_positions(a["V"], table) + DODGE * (rank - (len(top_arms) - 1) / 2)
            unit = iid_se(a["n"])
            gap, band = a["gap_mean"] / unit, Z * a["gap_se"] / unit  # the verdicts' ± Z SE
            shown = a["replicates"] >= MIN_DRAWN  # a gap from a handful of answered replicates is not drawn
            encoding = style(arm) | marker_fill(arm)
            gid = encoding.pop("gid")  # on the data line only: the error bars' caps are not the arm's marker
            bars = top.errorbar(x[shown], gap[shown], yerr=band[shown], ms=5.5, capsize=0,
                                elinewidth=1.0, lw=1.3, label=arm.display_name, **encoding,
                                zorder=21 if arm.name == "standard" else None)  # the control above the rings
            ends = np.asarray((gap - band)[shown], dtype=float)
            lowest = min([lowest, *ends[np.isfinite(ends)]])
            bars.lines[0].set_gid(gid)
            if arm not in protected:
                continue
            t, t_style = threshold_in_iid_se(sub, arm), T_STYLES[arm.name in REMEDY_ARMS]
            top.plot(*level_segments(v_positions(t["V"], table), t["t_iid"]), color=arm.color, lw=1.1, ls=t_style,
                     zorder=1.5)
            keyed[arm.display_name] = Line2D([], [], color=arm.color, lw=1.1, ls=t_style)
            over = [(xi, g) for xi, g, r in zip(x, gap, a.itertuples())
                    if not _valid(r)[0] and _valid(r)[1].startswith("overfitting") and r.replicates >= MIN_DRAWN]
            ring(top, [xi for xi, _ in over], [g for _, g in over], label=ring_label, size=75)
            where = [(xi, g, undecided_on(r, std_at.get(r.point), arm in bottom_arms))
                     for xi, g, r in zip(x, gap, a.itertuples()) if r.replicates >= MIN_DRAWN]
            undecided_ring(top, [xi for xi, _, w in where if w == "gap"], [g for _, g, w in where if w == "gap"])
            no_power_square(top, [xi for xi, _, w in where if w == "no power"],
                            [g for _, g, w in where if w == "no power"])
        for rank, arm in enumerate(bottom_arms):
            a = sub[sub["mechanism"] == arm.name].sort_values("V")
            x = v_positions(a["V"], table) + DODGE_ANSWERED * (rank - (len(bottom_arms) - 1) / 2)
            label = certified_label(table, arm) if arm.name in (DP_ARM, BDP_ARM) else arm.display_name
            bottom.plot(x, a["answered"], "-", ms=5.5, lw=1.5, label=label, zorder=25,
                        **(style(arm) | marker_fill(arm)))  # above the rings' white halo: a ringed point stays seen
            lo, hi = clopper_pearson(np.round(a["answered"] * a["answered_n"]), a["answered_n"], CONFIDENCE)
            bottom.errorbar(x, a["answered"], yerr=[a["answered"] - lo, hi - a["answered"]], fmt="none",
                            ecolor=arm.color, elinewidth=1.0, capsize=0, zorder=24)
            low = [(xi, r) for xi, r in zip(x, a.itertuples())
                   if not _valid(r)[0] and not _valid(r)[1].startswith("overfitting")]
            ring(bottom, [xi for xi, _ in low], [np.nan_to_num(r.answered) for _, r in low], label=ring_label,
                 size=55)  # the neighbouring arms' rings at 0 stay apart (DODGE_ANSWERED)
            open_bottom = [(xi, r.answered) for xi, r in zip(x, a.itertuples())
                           if undecided_on(r, std_at.get(r.point), True) == "answered"]
            undecided_ring(bottom, [xi for xi, _ in open_bottom], [y for _, y in open_bottom], size=100)
        ceiling = sub[sub["mechanism"] == "standard"].sort_values("V")
        if len(ceiling):  # no gap can exceed 1 − the population accuracy (holdout accuracy 1): shade what lies above
            xs, ys = level_segments(v_positions(ceiling["V"], table),
                                    ceiling["largest_gap"] / iid_se(ceiling["n"]))
            roof = 1.15 * np.nanmax(ys)
            for i in range(0, len(xs), 3):
                top.fill_between(xs[i:i + 2], ys[i:i + 2], roof, color=COLORS["reference"], alpha=0.18, lw=0,
                                 zorder=1.1, label=CEILING_LABEL if i == 0 else "_ceiling")
            top.set_ylim(top=roof)
        top.set_ylim(bottom=min(top.get_ylim()[0], 1.08 * lowest))
        top.axhline(0, color=COLORS["reference"], lw=0.8)
        bottom.axhline(ANSWERED_MIN, **answered_line, zorder=1.5)
        top.set_title(structure_words(models[structure]))
        if per_panel:
            bottom.set_title(verdicts[structure], fontsize=SIZES["tick"])
        v_ticks(bottom, table)
        bottom.set_xlabel("variance inflation V")
        bottom.set_ylim(-0.08, 1.1)
    reference = table["gap_reference"].iloc[0] if "gap_reference" in table and len(table) else "fresh"
    axes[0][0].set_ylabel(f"holdout − {reference} at k = {max(spec.k_grid)}\n(i.i.d. SEs ½/√n)")
    axes[1][0].set_ylabel("last query\nanswered (not ⊥)")
    first = spec.points[0]
    verdict_title(fig, headline(table),
                  f"n = {first.n:,}, d = {first.d:,}, null labels, {spec.replicates} replicates"
                  + (", the analyst removes the shared state" if first.remove_shared_state else ""))
    handles, labels = [], []
    for ax in list(axes[0]) + list(axes[1]):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h), labels.append(lab)
    for i, label in enumerate(labels):  # an arm with a threshold: its marker and its dashed T in one entry
        if label in keyed:
            handles[i] = (handles[i], keyed[label])
    keys = {f"{ANSWERED_MIN:.0%} answered (bottom)": Line2D([], [], **answered_line)}
    if keyed:  # one entry for what every arm's dashed line is
        keys[T_LEGEND] = tuple(Line2D([], [], color="black", ls=t_style, lw=1.1) for t_style in T_STYLES.values())
    keys[f"bars: intervals, ± {Z:g} SE (answered: Clopper–Pearson {CONFIDENCE:.2%})"] = Line2D(
        [], [], color=COLORS["reference"], lw=1.0, marker="|", ms=9, ls="none")
    if CEILING_LABEL in labels:
        keys[CEILING_LABEL] = handles[labels.index(CEILING_LABEL)]
    if NO_POWER_LABEL in labels:
        keys[NO_POWER_LABEL] = handles[labels.index(NO_POWER_LABEL)]
    if UNDECIDED_LABEL in labels:
        keys[UNDECIDED_LABEL] = handles[labels.index(UNDECIDED_LABEL)]
    if ring_label in labels:  # last, after the lines' keys
        keys[ring_label] = handles[labels.index(ring_label)]
    kept = [(h, lab) for h, lab in zip(handles, labels) if lab not in keys]
    handles, labels = [h for h, _ in kept], [lab for _, lab in kept]
    legend_below(fig, handles=handles + list(keys.values()), labels=labels + list(keys), ncol=2,
                 handler_map={tuple: HandlerTuple(ndivide=None, pad=0.4)}, handlelength=1.6, columnspacing=1.0)
    return fig
