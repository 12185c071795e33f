"""Figures of lecture-transfer and lecture-monitor (tables, claims and the verdicts the figures state:
:mod:`.transfer_and_monitor`).

Monitor: colour = the quantity (the Monitor's output, the Monitor with nearly optimal selection, the best data set
S_max), marker = measured, line = the notes' bound on that quantity (one line style per bound); one titled legend
column per quantity; points where a bound fails are ringed; a log axis, out of whose bottom the lower bounds below 0
(trivially met) leave. Theorem 0.1's check stays in the table and claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.report.plotting import (
    COLORS,
    OKABE_ITO,
    SIZES,
    grid_axis,
    legend_below,
    log_axis,
    note_in_empty,
    ordinal_colors,
    pyplot,
    ring,
    verdict_title,
)


def transfer_figure(frame: pd.DataFrame, verdict: str, failing: pd.DataFrame):
    """Theorem 0.2's bound against the Monte-Carlo probability, over m; colour = ε; ``failing``: the rows where the
    bound fails (ringed); ``verdict``: the title
    (:func:`adaptive_repro.outputs.lecture.transfer_and_monitor.transfer_verdict`)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig, ax = pyplot().subplots(figsize=(8.6, 4.6))
    floor = 0.3 / frame["replicates"].max()
    groups = list(frame.groupby("epsilon"))
    colours = ordinal_colors(len(groups) + 1)[:len(groups)]  # the map stops before its palest end
    for i, (c, (eps, s)) in enumerate(zip(colours, groups)):
        s = s.sort_values("m")
        y = np.maximum(s.mc_probability, floor)
        jitter = 1.0 + 0.04 * (i - (len(groups) - 1) / 2)  # multiplicative x offset so bars do not overlap
        ax.errorbar(s.m * jitter, y, yerr=[y - np.maximum(s.mc_ci_low, floor), np.maximum(s.mc_ci_high, floor) - y],
                    fmt="o", color=c, capsize=3, zorder=3)
        ax.plot(s.m, s.bound, "--", color=c, lw=1.2, alpha=0.8)
        ins = s[s.conditions_hold]
        ax.plot(ins.m, ins.bound, "-", color=c, lw=2.2)
    ring(ax, failing["m"], np.maximum(failing["mc_probability"], floor), label="claim does not hold here: Theorem 0.2")
    delta = frame["delta"].iloc[0]
    ax.axhline(delta, color=COLORS["reference"], ls=":", zorder=1)  # behind the measured points
    ax.set(xlabel="data set size m", ylabel="probability")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(np.maximum(frame.mc_ci_low, floor).min() / 1.4, 2)  # down to the lowest bar drawn, no empty strip
    log_axis(ax, "y")
    grid_axis(ax, "x", frame["m"].unique())  # m doubles from 250: each point on its own tick
    handles = [Line2D([], [], color="k", marker="o", ls="", label="Monte Carlo Pr[|q(S) − q(D)| ≥ 6ε]"),
               Line2D([], [], color="k", lw=2.2, label=r"Theorem 0.2 bound $\max\{4\delta/\varepsilon,\ "
                                                        r"e^{-\varepsilon^2 m/8}\}$"),
               Line2D([], [], color="k", lw=1.2, ls="--",
                      label=r"the same bound outside the theorem's range "
                            r"($\varepsilon \in [\sqrt{12/m}, 1/8]$, $\delta \leq \varepsilon/16$)"),
               Line2D([], [], color=COLORS["reference"], ls=":", label=f"δ = {delta:g} (leak probability)")]
    handles += [Patch(color=c, label=f"ε = {eps:g}") for c, (eps, _) in zip(colours, groups)]
    handles += [h for h in ax.get_legend_handles_labels()[0] if h.get_gid() == "encoding:violation"]
    verdict_title(fig, verdict, f"query selection by an (ε, δ)-DP mechanism, d = {frame.d.iloc[0]}, "
                                f"{frame.replicates.iloc[0]:,} runs per point, "
                                f"{frame.confidence.iloc[0]:.0%} Clopper–Pearson bars")
    legend_below(fig, handles=handles, labels=[h.get_label() for h in handles], ncol=2)
    return fig


def _wide(frame: pd.DataFrame, col: str) -> pd.DataFrame:
    sub = frame[frame["beta"].isna()]
    return sub.pivot_table(index=["epsilon_prime", "T"], columns="quantity", values=col, aggfunc="first")


#: quantity -> (colour, legend heading, (measured column, label, marker, multiplicative offset in T),
#: [(bound column, line style, label)]); the offsets keep the three measured markers at one T apart
MONITOR_GROUPS = [
    ("blue", "Monitor's output", ("monitor_gap", "measured E[q(S_t) − q(D)]", dict(fmt="o", ms=7), 1 / 1.18),
     [("lemma04_upper", "-", "Lemma 0.4 upper bound"), ("step4_lower_rigorous_best", ":",
                                                        "Step 4 lower bound, rigorous")]),
    ("reddish purple", "nearly optimal selection",
     ("monitor_gap_nearly_optimal", "measured (Step 4's assumption)", dict(fmt="x", ms=8, mew=2), 1.0),
     [("step4_lower_notes_best", "-.", "Step 4 lower bound (notes)")]),
    ("orange", "best data set", ("s_max", "measured E[S_max]", dict(fmt="s", ms=8, mfc="none", mew=1.5), 1.18),
     [("claim03_lower_best", "--", "Claim 0.3 lower bound")]),
]
#: The 99% band of a bound (from p_alpha's interval): light, so that it does not read as data, but visible
BAND_ALPHA = 0.15


def _log_floor(v: pd.DataFrame, lo: pd.DataFrame) -> float:
    """The bottom of the log axis: the power of ten below every positive value the figure draws (measured values,
    their interval ends, bounds)."""
    values = np.concatenate([v.to_numpy().ravel(), lo.to_numpy().ravel()])
    positive = values[np.isfinite(values) & (values > 0)]
    return 10.0 ** np.floor(np.log10(positive.min() / 1.2)) if positive.size else 1e-3


def _with_zero_crossings(T: np.ndarray, y: np.ndarray, steps: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A bound's line, densified where it changes sign (interpolated linearly in y and log T up to its zero), so that
    on the log axis it sinks out of the bottom where it crosses 0 instead of stopping at a grid T."""
    xs, ys = [float(T[0])], [float(y[0])]
    for t0, t1, y0, y1 in zip(T[:-1], T[1:], y[:-1], y[1:]):
        if y0 * y1 < 0:
            frac = np.linspace(0.0, 1.0, steps + 1)[1:-1]
            xs += list(np.exp(np.log(t0) + (np.log(t1) - np.log(t0)) * frac))
            ys += list(y0 + (y1 - y0) * frac)
        xs.append(float(t1))
        ys.append(float(y1))
    return np.asarray(xs), np.asarray(ys)


def _name_violated_bound(ax, x: float, y: float, words: str, measured: float, bound_value: float) -> None:
    """Beside a ring, which bound its point violates (the ring legend's words without "fails here:") and the two
    values compared: the bound's line has the colour of the quantity the notes state it for, which need not be the
    ringed point's colour, and may start at that T."""
    import textwrap

    side, bound = words.split("\n", 1)[-1].split(" ", 1)
    relation = "<" if side == "below" else ">"
    text = textwrap.fill(f"{side} {bound}:", 28) + f"\n{measured:.2g} {relation} {bound_value:.2g}"
    ax.annotate(text, (x, y), xytext=(24, -4), textcoords="offset points", ha="left", va="top",
                fontsize=SIZES["note"], arrowprops=dict(arrowstyle="-", color="k", lw=0.8, shrinkA=0, shrinkB=7))


def monitor_figure(frame: pd.DataFrame, verdict: str, failing: list):
    """One column per ε': the measured Monitor gap, the gap under Step 4's assumption and E[S_max] against the notes'
    bounds, against T, on a log axis. A lower bound below 0 holds trivially: its line leaves the bottom (a note says
    so; the values are in the table); a measured value <= 0 would be drawn as a down-triangle on the bottom edge.
    Measured markers are offset slightly in T so that none hides another. ``failing``: (measured quantity, bound
    column, ring words, [(ε', T), ...]) of each bound that fails somewhere, ringed on the measured point (one legend
    entry, the bound named beside the ring with the measured value and the bound's at that T); ``verdict``: the title
    (:func:`.lecture.monitor_verdict`). The bands of the lower bounds are explained in the caption."""
    from matplotlib.lines import Line2D

    eps_primes = sorted(frame["epsilon_prime"].unique(), reverse=True)
    fig, axes = pyplot().subplots(1, len(eps_primes), figsize=(min(9.8, 4.9 * len(eps_primes)), 4.3), sharex=True,
                                  sharey=True, squeeze=False)
    axes = axes[0]
    v, lo, hi = _wide(frame, "value"), _wide(frame, "ci_low"), _wide(frame, "ci_high")
    quantities = [q for _, _, (q, *_), bounds in MONITOR_GROUPS for q in [q] + [b for b, *_ in bounds]]
    floor = _log_floor(v[quantities], lo[[q for _, _, (q, *_), _ in MONITOR_GROUPS]])
    legends, rings = [], []
    for ax, ep in zip(axes, eps_primes):
        vv, ll, hh = v.loc[ep], lo.loc[ep], hi.loc[ep]
        T = vv.index.values
        for colour, title, (q, qlab, marker, shift), bounds in MONITOR_GROUPS:
            c = OKABE_ITO[colour]
            pos = (vv[q] > 0).to_numpy()
            bar = ax.errorbar(T[pos] * shift, vv[q][pos], yerr=[(vv[q] - ll[q])[pos], (hh[q] - vv[q])[pos]],
                              capsize=3, color=c, zorder=3, label=qlab, **marker)
            if (~pos).any():  # a measured value <= 0: on the bottom edge, pointing down
                ax.plot(T[~pos] * shift, np.full(int((~pos).sum()), floor), "v", ms=8, color=c, clip_on=False,
                        zorder=3)
            h = [bar]
            for b, ls, lab in bounds:
                h += ax.plot(*_with_zero_crossings(T, vv[b].to_numpy()), ls=ls, color=c, lw=2, label=lab)
                if b != "lemma04_upper":  # the band where both its ends are above 0 (below, the bound is trivial),
                    # between grid T in log T like the line, so that it sinks out of the bottom with it
                    dense = np.geomspace(T.min(), T.max(), 400)
                    low, high = (np.interp(np.log(dense), np.log(T), e[b].to_numpy()) for e in (ll, hh))
                    ax.fill_between(dense, low, high, where=low > 0, color=c, alpha=BAND_ALPHA, lw=0)
            if ax is axes[0]:
                legends.append((title, h))
        shift = {q: sh for _, _, (q, _, _, sh), _ in MONITOR_GROUPS}
        for q, bound, words, points in failing:
            at = [t for e, t in points if e == ep]
            if at:
                x = np.asarray(at) * shift.get(q, 1.0)
                y = np.maximum(vv.loc[at, q].to_numpy(), floor)
                rings.append(ring(ax, x, y, label="claim does not hold here (named beside it)"))
                _name_violated_bound(ax, x[0], y[0], words, float(vv.loc[at[0], q]), float(vv.loc[at[0], bound]))
        ax.set_yscale("log")
        ax.set_ylim(floor, 1.6)
        log_axis(ax, "y")
        ax.set_xscale("log")
        log_axis(ax, "x")
        ax.set_xlabel("number of data sets T")
        ax.set_title(f"Monitor with ε' = {ep:g}")
    for ax in axes[1:]:
        ax.tick_params(labelleft=False)
    axes[0].set_ylabel("generalization error")
    verdict_title(fig, verdict, f"ε = {frame.epsilon.iloc[0]:g}, m = {int(frame.m.iloc[0]):,}, "
                                f"δ = {frame.delta.iloc[0]:g}; "
                                f"{frame.replicates.min():,}–{frame.replicates.max():,} runs per point, "
                                f"{frame.confidence.iloc[0]:.0%} intervals")
    fig.tight_layout()
    bounds = [(b, lab) for *_, bs in MONITOR_GROUPS for b, _, lab in bs]
    for ax, ep in zip(axes, eps_primes):  # why a lower bound's line is short or absent, in the panel where it is
        below = v.loc[ep][[b for b, _ in bounds]] < 0
        absent = [f"{lab}: < 0 at all T" for b, lab in bounds if below[b].all()]
        crossing = bool((below.any() & ~below.all()).any())
        text = "lower bounds < 0 hold trivially" + (";\n" + "\n".join(absent) if absent else "") + (
            ":\ntheir lines leave the bottom" if crossing and not absent else "")
        if not (absent or crossing):
            text = ""
        if text:
            note_in_empty(ax, text)
    from matplotlib.patches import Patch

    band = tuple(Patch(facecolor=OKABE_ITO[colour], alpha=BAND_ALPHA + 0.1, lw=0) for colour, _, _, bounds in
                 MONITOR_GROUPS if any(b != "lemma04_upper" for b, *_ in bounds))  # one swatch per band colour
    band_label = f"band: the bound over p_α's {frame.confidence.iloc[0]:.0%} interval"
    columns = [(title, [(x, x.get_label()) for x in h]) for title, h in legends]  # (handle, label) per entry
    for extra in [(band, band_label)] + [(r, r.get_label()) for r in rings[:1]]:  # each under the shortest column:
        min(columns, key=lambda g: len(g[1]))[1].append(extra)  # three columns of at most four rows
    # legend below the panels: one column per quantity, headed by its name (a handle-less entry in bold)
    rows = max(len(entries) for _, entries in columns) + 1
    blank = Line2D([], [], ls="", marker="")
    handles, labels = [], []
    for title, entries in columns:
        col = [(blank, title)] + entries
        col += [(blank, "")] * (rows - len(col))
        handles += [x for x, _ in col]
        labels += [lab for _, lab in col]
    from matplotlib.legend_handler import HandlerTuple

    leg = fig.legend(handles, labels, loc="upper center", ncol=len(columns), frameon=False, handletextpad=0.5,
                     bbox_to_anchor=(0.5, 0.0), columnspacing=1.2, handler_map={tuple: HandlerTuple(ndivide=None)})
    for i, text in enumerate(leg.get_texts()):
        if i % rows == 0:
            text.set_fontweight("bold")
    return fig
