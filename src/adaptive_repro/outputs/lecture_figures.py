"""Figures of lecture-transfer and lecture-monitor (tables and claims: :mod:`.lecture`).

Monitor: colour = the quantity (the Monitor's output, the Monitor with nearly optimal selection, the best data set
S_max), filled/open marker = measured, line = the notes' bound on that quantity; one titled legend per quantity.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.plotting import (
    COLORS,
    OKABE_ITO,
    SIZES,
    log_axis,
    ordinal_colors,
    panel_grid,
    plain_number,
    plain_symlog_yaxis,
    pyplot,
    symlog_minor_ticks,
)


def transfer_figure(frame: pd.DataFrame):
    """Theorem 0.2's bound against the Monte-Carlo probability, over m; colour = ε."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig, ax = pyplot().subplots(figsize=(9.5, 6.2))
    floor = 0.3 / frame["replicates"].max()
    groups = list(frame.groupby("epsilon"))
    colours = ordinal_colors(len(groups))
    for i, (c, (eps, s)) in enumerate(zip(colours, groups)):
        s = s.sort_values("m")
        y = np.maximum(s.mc_probability, floor)
        jitter = 1.0 + 0.04 * (i - (len(groups) - 1) / 2)  # multiplicative x offset so bars do not overlap
        ax.errorbar(s.m * jitter, y, yerr=[y - np.maximum(s.mc_ci_low, floor), np.maximum(s.mc_ci_high, floor) - y],
                    fmt="o", color=c, capsize=3)
        ax.plot(s.m, s.bound, "--", color=c, lw=1.2, alpha=0.8)
        ins = s[s.conditions_hold]
        ax.plot(ins.m, ins.bound, "-", color=c, lw=2.2)
    delta = frame["delta"].iloc[0]
    ax.axhline(delta, color=COLORS["reference"], ls=":")
    ax.set(xscale="log", yscale="log", xlabel="data set size m", ylabel="probability")
    positive = frame.mc_ci_low.to_numpy()[frame.mc_ci_low.to_numpy() > 0]
    ax.set_ylim(min(floor, positive.min() if positive.size else 1e-3) / 3, 2)
    log_axis(ax, "y")
    ms = sorted(frame.m.unique())
    ax.set_xticks(ms, [plain_number(m) for m in ms])
    ax.set_xticks([], minor=True)
    ax.set_title(f"Lecture 18, Theorem 0.2 vs Monte Carlo (d = {frame.d.iloc[0]}, "
                 f"{frame.replicates.iloc[0]} replicates, {frame.confidence.iloc[0]:.0%} Clopper-Pearson bars)\n"
                 "M: exponential mechanism over 2d marginals, or with probability δ the leak query 1[x ∈ S]")
    handles = [Line2D([], [], color="k", marker="o", ls="", label="Monte Carlo Pr[|q(S) − q(D)| ≥ 6ε]"),
               Line2D([], [], color="k", lw=2.2, label=r"Theorem 0.2 bound $\max\{4\delta/\varepsilon,\ "
                                                        r"e^{-\varepsilon^2 m/8}\}$"),
               Line2D([], [], color="k", lw=1.2, ls="--",
                      label=r"the same bound outside the theorem's conditions "
                            r"($\varepsilon \in [\sqrt{12/m}, 1/8]$, $\delta \leq \varepsilon/16$)"),
               Line2D([], [], color=COLORS["reference"], ls=":", label=f"δ = {delta:g} (leak probability)")]
    handles += [Patch(color=c, label=f"ε = {eps:g}") for c, (eps, _) in zip(colours, groups)]
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    return fig


def _wide(frame: pd.DataFrame, col: str) -> pd.DataFrame:
    sub = frame[frame["beta"].isna()]
    return sub.pivot_table(index=["epsilon_prime", "T"], columns="quantity", values=col, aggfunc="first")


#: quantity -> (colour, legend heading, (measured column, label, marker), [(bound column, line style, label)])
MONITOR_GROUPS = [
    ("blue", "Monitor's output", ("monitor_gap", "measured E[q(S_t) − q(D)]", dict(fmt="o", ms=7)),
     [("lemma04_upper", "-", "Lemma 0.4 upper bound"), ("step4_lower_rigorous_best", ":",
                                                        "Step 4 lower bound, rigorous")]),
    ("vermillion", "nearly optimal selection",
     ("monitor_gap_nearly_optimal", "measured (Step 4's assumption;\n× drawn over ● where equal)",
      dict(fmt="x", ms=8, mew=2)),
     [("step4_lower_notes_best", "-.", "Step 4 lower bound (notes)")]),
    ("orange", "best data set", ("s_max", "measured E[S_max]", dict(fmt="s", ms=9, mfc="none", mew=1.5)),
     [("claim03_lower_best", "--", "Claim 0.3 lower bound")]),
]
LINTHRESH = 0.01


def monitor_figure(frame: pd.DataFrame):
    from matplotlib.lines import Line2D

    eps_primes = sorted(frame["epsilon_prime"].unique(), reverse=True)
    fig, axes = panel_grid(len(eps_primes) + 1, max_cols=3, size=(4.7, 4.6))
    o = OKABE_ITO
    v, lo, hi = _wide(frame, "value"), _wide(frame, "ci_low"), _wide(frame, "ci_high")
    ymin = min(-0.05, float(lo.min().min()) * 1.4)
    legends = []
    for ax, ep in zip(axes, eps_primes):
        vv, ll, hh = v.loc[ep], lo.loc[ep], hi.loc[ep]
        T = vv.index.values
        for colour, title, (q, qlab, style), bounds in MONITOR_GROUPS:
            c = o[colour]
            h = [ax.errorbar(T, vv[q], yerr=[vv[q] - ll[q], hh[q] - vv[q]], capsize=3, color=c, zorder=3, **style)]
            h[0].set_label(qlab)
            for b, ls, lab in bounds:
                h += ax.plot(T, vv[b], ls=ls, color=c, lw=2, label=lab)
                if b != "lemma04_upper":
                    ax.fill_between(T, ll[b], hh[b], color=c, alpha=0.15, lw=0)
            if ax is axes[0]:
                legends.append((title, h))
        ax.set_xscale("log")
        log_axis(ax, "x")
        plain_symlog_yaxis(ax, linthresh=LINTHRESH, linscale=1.5)
        ax.set_ylim(ymin, 1.5)
        symlog_minor_ticks(ax, LINTHRESH)
        ax.axhline(0, color=COLORS["reference"], lw=0.8)
        ax.axhspan(-LINTHRESH, LINTHRESH, color=COLORS["reference"], alpha=0.08, lw=0)
        ax.set_xlabel("number of data sets T")
        ax.set_title(f"Monitor, ε' = {ep:g}")
    axes[0].set_ylabel("generalization error\n(grey band: linear scale, log beyond)")
    ax = axes[-1]
    beta_colours = [o["reddish purple"], o["sky blue"], o["black"], o["grey"]]
    th = frame[frame["quantity"] == "thm01_failure_probability"]
    betas = sorted(th.beta.unique())
    markers = "osD^v"
    for (ep, beta), s in th.groupby(["epsilon_prime", "beta"]):
        s = s.sort_values("T")
        ie, ib = eps_primes.index(ep), betas.index(beta)
        jitter = 1.0 + 0.08 * (ie - (len(eps_primes) - 1) / 2)
        c, mk = beta_colours[ib % 4], markers[ie % len(markers)]
        pos = s.value > 0
        x = s["T"].values * jitter
        ax.errorbar(x[pos], s.value[pos], yerr=[s.value[pos] - s.ci_low[pos], s.ci_high[pos] - s.value[pos]],
                    fmt=mk, color=c, capsize=2, ms=5)
        ax.plot(x[~pos], s.ci_high[~pos], mk, mfc="white", color=c, ms=5)
    ax.set(xscale="log", yscale="log")
    ax.set_ylim(top=2)
    for ib, beta in enumerate(betas):
        ax.axhline(beta, color=beta_colours[ib % 4], ls="--", lw=1.5)
        ax.text(0.55, beta * 1.12, f"β = {beta:g}", transform=ax.get_yaxis_transform(), ha="center", va="bottom",
                color=beta_colours[ib % 4], fontsize=SIZES["note"])
    log_axis(ax)
    ax.set_xlabel("number of data sets T (|Y| = 2T)")
    ax.set_ylabel("failure frequency")
    ax.set_title("Theorem 0.1: how often the exponential\nmechanism misses its utility bound")
    shape = [Line2D([], [], color="k", marker=markers[i % len(markers)], ls="", label=f"ε' = {ep:g}")
             for i, ep in enumerate(eps_primes)]
    shape += [Line2D([], [], color="k", marker="o", mfc="white", ls="", label="no failure: upper end of the interval"),
              Line2D([], [], color="k", ls="--", label="bound β of Theorem 0.1 (colour = β)")]
    fig.suptitle(f"Lecture 18, the Monitor argument: {frame.replicates.min()}-{frame.replicates.max()} runs per "
                 f"point, {frame.confidence.iloc[0]:.0%} intervals (ε = {frame.epsilon.iloc[0]:g}, "
                 f"m = {frame.m.iloc[0]}, δ = {frame.delta.iloc[0]:g})\n"
                 r"means: normal intervals; probabilities: Clopper-Pearson; shaded: the bounds at the ends of "
                 r"$p_\alpha$'s interval")
    fig.tight_layout(rect=(0, 0, 1, 1))
    # legends below the panels: one per quantity under the Monitor panels, one under the Theorem 0.1 panel
    boxes = [a.get_position() for a in axes]
    rows = max(len(h) for _, h in legends) + 1
    blank = Line2D([], [], ls="", marker="")
    handles, labels = [], []
    for title, h in legends:  # one column per quantity, headed by its name (a handle-less entry)
        col = [(blank, title)] + [(x, x.get_label()) for x in h]
        col += [(blank, "")] * (rows - len(col))
        handles += [x for x, _ in col]
        labels += [lab for _, lab in col]
    leg = fig.legend(handles, labels, loc="upper center", ncol=len(legends), frameon=False, handletextpad=0.5,
                     bbox_to_anchor=((boxes[0].x0 + boxes[len(eps_primes) - 1].x1) / 2, 0.0), columnspacing=1.2)
    for i, text in enumerate(leg.get_texts()):
        if i % rows == 0:
            text.set_fontweight("bold")
    fig.legend(handles=shape, loc="upper left", bbox_to_anchor=(boxes[-1].x0, 0.0), frameon=False,
               title="marker = ε', colour = β", alignment="left")
    return fig
