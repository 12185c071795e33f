"""The Dwork et al. 2015 Figs. 1-2 view of a classifier experiment, shared by the Dwork and Zhao builders: mean
accuracy against the number k of selected variables on train, holdout (as reported), fresh data and the population,
and the holdout - fresh gap with its 95% band (the quantity the experiments' claims test)."""

from __future__ import annotations

import pandas as pd

from adaptive_repro.report.plotting import (
    COLORS,
    legend_below,
    name,
    note,
    panel_width,
    pyplot,
    style,
    verdict_title,
)
from adaptive_repro.stats import ci95_half_width

#: Output IDs -> figure titles in words.
OUTPUT_TITLES = {
    "dwork-null": "Reusing a holdout without signal (as Dwork et al. 2015, Fig. 1)",
    "dwork-signal": "Reusing a holdout with signal attributes (as Dwork et al. 2015, Fig. 2)",
}


#: Line width of the fresh-data curve: wider than the others, so that it shows on both sides of the dotted
#: population curve drawn over it (the two coincide where nothing overfits).
FRESH_LW = 3.6


def accuracy_curves(ax, sub: pd.DataFrame, fresh_label: str = ""):
    """One arm's mean accuracy vs k on ``ax``: train, holdout (as reported), fresh with the 95% band of each mean
    (stats.ci95_half_width, the convention of every experiment figure), the exact population dotted over the wide fresh
    line (Dwork et al. 2015 Figs. 1-2); ``sub`` holds that arm's rows of a summarize() table. Each data set in its
    encoding's colour and marker at every grid k (the gap row below marks the same k; a ⊥ leaves a gap), the exact
    population a plain dotted line; ``fresh_label`` replaces the fresh line's legend name (e.g. to say it is hidden)."""
    for dataset in ("train", "holdout", "fresh", "population"):
        cur = sub[sub["dataset"] == dataset].sort_values("k")
        if cur.empty:
            continue
        extra = {"ms": 3.5} if dataset != "population" else {"marker": None}
        if dataset == "fresh":
            extra["lw"] = FRESH_LW
        label = fresh_label if dataset == "fresh" and fresh_label else name(dataset)
        ax.plot(cur["k"], cur["mean"], ":" if dataset == "population" else "-", label=label,
                **(style(dataset) | extra), zorder={"population": 3, "holdout": 3.5}.get(dataset, 2))  # the reported
        # holdout above the lines it may coincide with
        if dataset != "population":
            half = ci95_half_width(cur["se"].fillna(0.0), cur["replicates"])
            lo, hi = cur["mean"] - half, cur["mean"] + half  # light fill, thin edges: overlapping bands stay apart
            ax.fill_between(cur["k"], lo, hi, color=COLORS[dataset], alpha=0.10, lw=0)
            for edge in (lo, hi):
                ax.plot(cur["k"], edge, "-", color=COLORS[dataset], lw=0.6, alpha=0.8)


#: Ticks of the number of selected variables k on the square-root axis of the accuracy panels (which gives the
#: first few k, where the signal is found, room).
K_TICKS = (0, 20, 50, 100, 200, 300, 400, 500)
#: The same for a narrow panel (about 3 inches), where neighbouring labels of K_TICKS would touch.
K_TICKS_NARROW = (0, 20, 50, 100, 200, 500)


def sqrt_k_axis(ax, k_max: float, ticks: tuple = K_TICKS) -> None:
    """A square-root x axis for k with ``ticks`` up to ``k_max``."""
    import numpy as np

    ax.set_xscale("function", functions=(lambda k: np.sign(k) * np.sqrt(np.abs(k)), lambda r: np.sign(r) * r**2))
    ax.set_xticks([k for k in ticks if k <= k_max])
    ax.set_xlim(-(0.035 * np.sqrt(k_max)) ** 2, (1.035 * np.sqrt(k_max)) ** 2)  # whole markers at k = 0 and k_max


def accuracy_panels(table: pd.DataFrame, arms, title: str, subtitle: str, ylim=None,
                    gaps: pd.DataFrame | None = None, tolerances: dict | None = None, tolerance_label: str = "",
                    fresh_label: str = ""):
    """Dwork et al. 2015 Figs. 1-2 style: one panel per mechanism arm, mean accuracy vs k (square-root axis) with
    the 95% bands of the means for train / holdout / fresh and the exact population accuracy (the paper's view).
    With ``gaps`` (stats.paired_gap_table), a row below shows holdout − fresh with the 95% band of its mean, the
    quantity the claims test, and each arm's tolerance from ``tolerances`` (arm -> value). ``title`` is the
    figure's verdict and ``subtitle`` what is plotted (:func:`verdict_title`); the axes are row-major (accuracy
    row, then gap row); ``fresh_label``: the fresh line's legend name, if not its display name.

    ``table`` is :func:`adaptive_repro.stats.summarize` output for one experiment; ``arms`` the arm objects to draw
    (their ``name`` is the table's ``mechanism``, their ``display_name`` the panel title).
    """
    arm_col = "mechanism"
    if ylim is None:  # from just under chance (0.5) to just over the highest band: no empty strip
        shown = table[table["dataset"] != "population"]
        half = ci95_half_width(shown["se"].fillna(0.0), shown["replicates"])
        ylim = (min(0.49, float((shown["mean"] - half).min()) - 0.01),
                max(0.6, float((shown["mean"] + half).max()) + 0.02))
    w = panel_width(len(arms), 5.4)
    rows = [3, 1.6] if gaps is not None else [3]
    fig, axes = pyplot().subplots(len(rows), len(arms), figsize=(w * len(arms), 1.1 * sum(rows) + 1.6), sharex=True,
                             sharey="row", squeeze=False, gridspec_kw={"height_ratios": rows})
    for j, arm_obj in enumerate(arms):
        ax, arm = axes[0][j], arm_obj.name
        accuracy_curves(ax, table[table[arm_col] == arm], fresh_label)
        ax.set_title(arm_obj.display_name)
        ax.set_ylim(*ylim)
        if gaps is not None:
            gap_panel(axes[1][j], gaps[gaps["mechanism"] == arm], (tolerances or {}).get(arm), tolerance_label)
        axes[-1][j].set_xlabel("number of selected variables k (square-root axis)")
    sqrt_k_axis(axes[0][0], float(table["k"].max()))
    axes[0][0].set_ylabel("accuracy (mean, 95% CI)")
    if gaps is not None:
        axes[1][0].set_ylabel(GAP_YLABEL)
    verdict_title(fig, title, subtitle)
    legend_below(fig, axes, ncol=2)
    return fig


GAP_LABEL = "holdout − fresh: mean, 95% CI (Student t)"
GAP_YLABEL = "holdout − fresh\n(mean, 95% CI)"


def threshold_label(names_with_threshold) -> str:
    """The legend entry of the gap rows' dashed threshold lines: the arm's name when one arm has a threshold, else a
    phrase true of every arm (each dashed line is its own arm's T)."""
    if len(names_with_threshold) == 1:
        return f"threshold T of {names_with_threshold[0].split(' (')[0]} (its claim's tolerance)"
    return "threshold T of each arm (its own; the tolerance its claim uses)"


def gap_panel(ax, gaps: pd.DataFrame, tolerance: float | None = None, tolerance_label: str = ""):
    """Reported holdout minus fresh accuracy of one arm (``gaps``: k, mean, se, from stats.paired_gap_table: what the
    experiments' claims test) as the mean with its 95% CI (stats.ci95_half_width), a zero line and the claim's
    tolerance."""
    import numpy as np

    g = gaps.dropna(subset=["mean"]).sort_values("k")
    ax.axhline(0, color="black", lw=0.9)
    has_tolerance = tolerance is not None and np.isfinite(tolerance)
    if has_tolerance:
        ax.axhline(tolerance, color=COLORS["reference"], ls="--", lw=1.4, label=tolerance_label)
    if g.empty:
        note(ax, "no gap drawn:\nevery holdout answer ⊥", x=0.5, y=0.75, colour=COLORS["holdout"])
        if has_tolerance:
            ax.set_ylim(-tolerance, 2.5 * tolerance)
        return
    se = g["se"].fillna(0.0)
    half = ci95_half_width(se, g["replicates"])
    ax.fill_between(g["k"], g["mean"] - half, g["mean"] + half, color=COLORS["reference"], alpha=0.35,
                    lw=0)
    ax.plot(g["k"], g["mean"], ".-", color="black", label=GAP_LABEL)
    ax.set_ylim(min(ax.get_ylim()[0], -0.1 * ax.get_ylim()[1]), None)  # zero always in view
