"""Shared pieces of the Zhao experiment outputs: theory alongside, arm titles, the answered-fraction table and the
accuracy panels (with sampling-SE units, the answered fraction and a note on panels whose answers are all bottom).

Zhao 2017 §4 only says that labels are random, attributes are correlated with the label and among themselves, and
records are correlated; the "chain" data model is this project's design (docs/METHODS.md §4).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.plotting import (
    COLORS,
    GAP_YLABEL,
    SIZES,
    accuracy_curves,
    gap_panel,
    legend_below,
    note,
    panel_width,
    pyplot,
    suptitle,
    threshold_label,
)
from adaptive_repro.simulation import zhao_calibration
from adaptive_repro.simulation.zhao_calibration import BayesianDPCalibration, DPCalibration, Theorem2Calibration
from adaptive_repro.stats import summarize

MODEL_NOTE = "batch-chain data model (this project's design)"
#: The arms the Zhao claims are about, by their registered calibrations (the names are the calibrations' own).
DP_ARM, BDP_ARM, THEOREM2_ARM = (c().arm_name for c in (DPCalibration, BayesianDPCalibration, Theorem2Calibration))
#: Zhao 2017, captions of Figs. 2 and 3 and the experiment section (verbatim).
QUOTE_FIG2 = "Reusing a holdout dataset in the common way can lead to overfitting."
QUOTE_FIG3 = ("Overfitting of reusing a holdout dataset is prevented in our Bayesian differential privacy-based "
              "approach.")
QUOTE_SECTION = ("Figures 2 and 3 illustrate that reusing a holdout dataset in the common way can lead to overfitting, "
                 "and that overfitting is prevented by our approach based on Bayesian differential privacy (BDP).")


def arms_in(spec, names) -> list:
    """The spec's arm objects that occur in ``names`` (e.g. a records column), in the spec's order."""
    present = set(names)
    return [arm for arm in spec.arms if arm.name in present]


def theory_table(spec) -> pd.DataFrame:
    """Theory alongside (docs/METHODS.md §4) for every Algorithm 1 arm, one row per arm, plus the session's eps, the
    DP level the arm's sigma gives (eps*) and the BDP level Lemma 2 certifies for it (privacy.bdp_level_for_dp)."""
    rows = []
    for cal in spec.alg1_calibrations().values():
        row = zhao_calibration.theory_alongside(cal, spec.alg1, spec.n, spec.d, spec.k_grid, spec.model)
        row["eps_session"] = spec.alg1.session_epsilon
        row["certified_bdp"] = (spec.model.bdp_level_for_dp(float(row["eps_star"]), spec.n, spec.d, "lemma2")
                                if cal.feasible else np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def answered_table(records: pd.DataFrame, n: int) -> pd.DataFrame:
    """summarize(records) plus, per (mechanism, k): ``answered`` (fraction of replicates whose holdout answer is
    not bottom), ``budget_used`` (mean over replicates of the budget spent up to that k's query) and the accuracy in
    sampling-SE units 2 sqrt(n) (acc - 1/2) (``mean_se_units``, ``se_se_units``)."""
    table = summarize(records)
    hold = records[records["dataset"] == "holdout"]
    per_k = hold.groupby(["mechanism", "k"]).agg(answered=("accuracy", lambda a: float(a.notna().mean())),
                                                 budget_used=("budget_used", "mean")).reset_index()
    table = table.merge(per_k, on=["mechanism", "k"], how="left")
    table.insert(1, "n", n)
    table["mean_se_units"] = 2.0 * np.sqrt(n) * (table["mean"] - 0.5)
    table["se_se_units"] = 2.0 * np.sqrt(n) * table["se"]
    return table


def alg1_label(row, arm) -> str:
    """Calibration of one Algorithm 1 arm on one line (the block beside the legend)."""
    return (f"  {arm.calibration.display_name.replace(' calibration', '')}: σ = {row.sigma:.3g}, "
            f"T = {row.threshold:.3g}, B = {row.budget} ⇒ {row.eps_star:.3g}-DP ⇒ {row.certified_bdp:.3g}-BDP")


CALIBRATION_HEAD = ("Algorithm 1 calibrations (noise σ, threshold T, budget B ⇒\n"
                    "DP level ε* of σ ⇒ Bayesian-DP level certified by Lemma 2):")


def short_model_subtitle(spec, replicates: int) -> str:
    """One line of the data settings, for a figure's suptitle (the table carries every setting)."""
    nd = f"n = d = {spec.n:,}" if spec.n == spec.d else f"n = {spec.n:,}, d = {spec.d:,}"
    return (f"{nd}, {spec.model.describe()}, {spec.signal_attributes} signal attributes, "
            f"{spec.query.name} queries, {replicates} replicates, "
            "this project's data model")


def accuracy_panels(table: pd.DataFrame, spec, title: str, subtitle: str, theory: pd.DataFrame | None = None,
                    gaps: pd.DataFrame | None = None):
    """One column per arm: accuracy vs k (train, holdout as reported, fresh, exact population; mean ± SD) with a
    right axis in sampling-SE units 2 sqrt(n)(acc - 1/2); under it, if ``gaps`` (mechanism, k, mean, se: holdout
    − fresh per replicate, as the claims compute it) is given, that gap with its 95% band; last, the fraction of
    accuracy queries answered and the budget used (only if some arm is an Algorithm 1 arm: the others never answer
    bottom), with the arm's calibration in a box. The gap row shares one y-range. A panel whose holdout answers are all
    bottom says so."""
    plt = pyplot()
    arms = arms_in(spec, table["mechanism"])
    n = spec.n
    shown = table[table["dataset"] != "population"]
    lo = float((shown["mean"] - shown["sd"].fillna(0)).min())
    hi = float((shown["mean"] + shown["sd"].fillna(0)).max())
    lo, hi = lo - 0.08 * (hi - lo), hi + 0.08 * (hi - lo)  # data-driven: at large n the curves are close to 1/2
    w = panel_width(len(arms), 7.0)
    fraction_row = any(a.budgeted for a in arms)  # others never answer ⊥: their fraction is 1
    rows = [3] + ([1.7] if gaps is not None else []) + ([1.2] if fraction_row else [])
    fig, axes = plt.subplots(len(rows), len(arms), figsize=(w * len(arms), 1.55 * sum(rows) + 1.6), sharex=True,
                             squeeze=False, gridspec_kw={"height_ratios": rows})
    theory = theory if theory is not None else pd.DataFrame()
    theory_arms = set(theory.get("arm", []))
    settings = spec.arm_settings()
    boxes = []
    for j, arm_obj in enumerate(arms):
        arm = arm_obj.name
        ax, axb = axes[0][j], axes[-1][j]
        sub = table[table["mechanism"] == arm]
        accuracy_curves(ax, sub, holdout_marker=".")  # the marker shows the answered points (⊥ leaves gaps)
        hold = sub[(sub["dataset"] == "holdout") & (sub["k"] > 0)]
        ax.set_title(arm_obj.title(spec), fontsize=11.5)
        if len(hold) and hold["mean"].isna().all():
            note(ax, "holdout curve absent:\nall accuracy answers ⊥\n(budget spent on\nattribute queries)", x=0.97,
                 y=0.04, ha="right", va="bottom", colour=COLORS["holdout"])
        ax.set_ylim(lo, hi)
        sec = ax.secondary_yaxis("right", functions=(lambda a: 2 * np.sqrt(n) * (a - 0.5),
                                                     lambda z: 0.5 + z / (2 * np.sqrt(n))))
        if j == len(arms) - 1:
            sec.set_ylabel("2√n (accuracy − ½)\n[sampling SE units]")
        row = theory[theory["arm"] == arm].iloc[0] if arm in theory_arms else None
        if gaps is not None:
            t = arm_obj.tolerance(spec, settings[arm])  # the arm's own threshold T (None: it promises none)
            gap_panel(axes[1][j], gaps[gaps["mechanism"] == arm], t, _threshold_label(arms, spec))
        if row is not None:
            boxes.append(alg1_label(row, arm_obj))
        axb.set_xlabel("selected variables k")
        if not fraction_row:
            continue
        cur = sub[(sub["dataset"] == "holdout") & (sub["k"] > 0)].sort_values("k")  # k = 0 is never asked
        axb.plot(cur["k"], cur["answered"], "o-", color=arm_obj.color, label="accuracy queries answered (not ⊥)")
        if arm_obj.budgeted:
            budget = row.budget if row is not None else np.nan
            axb.plot(cur["k"], cur["budget_used"] / budget, "s--", color=arm_obj.color, ms=4,
                     label="budget used / B")
        axb.set_ylim(-0.05, 1.1)
    axes[0][0].set_ylabel("accuracy (mean ± SD)")
    if gaps is not None:
        axes[1][0].set_ylabel(GAP_YLABEL)
        _share_ylim(axes[1])
    if fraction_row:
        axes[-1][0].set_ylabel("fraction")
    suptitle(fig, f"{title}\n{_wrap(subtitle, int(72 * w * len(arms) / (SIZES['suptitle'] * 0.5)))}")
    leg = legend_below(fig, axes, ncol=2 if boxes else None)
    if boxes:  # the calibrations beside the legend, clear of the data (the table carries them too)
        leg.set_loc("upper left")
        leg.set_bbox_to_anchor((0.0, 0.0), transform=fig.transFigure)
        right = leg.get_window_extent(fig.canvas.get_renderer()).transformed(fig.transFigure.inverted()).x1
        fig.text(max(0.56, right + 0.02), -0.005, CALIBRATION_HEAD + "\n" + "\n".join(boxes), ha="left", va="top",
                 fontsize=SIZES["legend"], linespacing=1.4)
    return fig


def _threshold_label(arms, spec) -> str:
    """One legend entry for the gap row's dashed threshold lines, in the arms' own words (:func:`threshold_label`)."""
    settings = spec.arm_settings()
    return threshold_label([arm.display_name for arm in arms
                            if arm.tolerance(spec, settings[arm.name]) is not None])


def _share_ylim(row):
    """One y-range for a row of axes (the union of their ranges, which include each panel's threshold line), so that
    the arms' gaps compare by eye."""
    lows, highs = zip(*(ax.get_ylim() for ax in row))
    for ax in row:
        ax.set_ylim(min(lows), max(highs))


def _wrap(text: str, width: int) -> str:
    """``text`` on lines of at most ``width`` characters, broken after '; ' and else at the ', ' nearest the middle."""
    lines = []
    segments = text.split("; ")
    for k, seg in enumerate(segments):
        seg = seg.strip() + (";" if k < len(segments) - 1 else "")
        while len(seg) > width and ", " in seg:
            cuts = [i for i in range(len(seg)) if seg.startswith(", ", i) and i <= width] or [seg.index(", ")]
            cut = min(cuts, key=lambda i: abs(i - len(seg) / 2)) if len(seg) < 2 * width else max(cuts)
            lines.append(seg[:cut + 1])
            seg = seg[cut + 2:]
        lines.append(seg)
    return "\n".join(lines)
