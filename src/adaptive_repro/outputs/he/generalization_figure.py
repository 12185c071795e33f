"""he-generalization's figure: the accuracy term a and the failure probability b of the high-probability bounds He
quotes (:mod:`adaptive_repro.outputs.he.generalization` builds the table and claims and calls this)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from adaptive_repro.outputs.he.common import number_text, tex_number
from adaptive_repro.report.plotting import (
    COLORS,
    SHADE,
    SIZES,
    floor_band,
    legend_below,
    log_axis,
    name,
    power_of_ten_label,
    ring,
    style,
    verdict_title,
)
from adaptive_repro.report.plotting import pyplot as plt

#: Methods of the high-probability panels (plotting keys: one encoding in every He figure) and Oneto et al.'s line
#: style per sample size N (the figure's only line-style meaning).
METHOD_KEYS = {"he_thm1": "he", "nissim_stemmer": "nissim_stemmer", "dwork_et_al": "dwork_bound"}
NAMES = {"he_thm1": "He Theorem 1", "nissim_stemmer": name("nissim_stemmer"), "dwork_et_al": name("dwork_bound")}
N_STYLES = ["--", ":", "-."]
#: Lowest failure probability b drawn; smaller ones (Oneto's 3 e^{-N eps^2} underflows to 0) sit in a strip below.
B_FLOOR = 1e-16


def _plot_floored(ax, x, y, floor: float, y_strip: float | None, **kw) -> None:
    """Plot (x, y) as a line where y >= ``floor`` and as markers (no line) in the strip at ``y_strip`` where
    0 <= y < ``floor`` (b underflowing), so that no line dives to the axis floor."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    above = np.isfinite(y) & (y >= floor)
    ax.plot(np.where(above, x, np.nan), np.where(above, y, np.nan), **kw)
    below = np.isfinite(y) & (y < floor)
    if y_strip is not None and below.any():
        strip = {"color": kw["color"], "marker": kw.get("marker") or "v", "ms": 5, "ls": "", "label": "_strip"}
        ax.plot(x[below], np.full(below.sum(), y_strip), **strip)


def generalization_figure(table: pd.DataFrame, params: dict, c: dict, title: str, subtitle: str,
                          oneto_possible: bool):
    """The high-probability bounds P[|gap| < a] > 1 - b as He quotes them, against eps: left the accuracy term a,
    right the failure probability b (at the grid's middle delta, drawn as a line: no (eps, delta)-DP bound can have
    b below it; b below :data:`B_FLOOR` in a strip). Colour = method. Ringed: He's a at the points where the claims
    compare it with Dwork et al.'s (both bounds say something: grid points and the middle of each δ's window) and it
    lies above (row thm1-tighter-than-dwork; 9 eps > 4 eps at every eps).
    Oneto et al.'s curves (line style = N) only where that row is applicable (its quoted b above delta somewhere);
    Nissim-Stemmer's "tightest" and Theorem 2 are in the claims and table. ``c``: the claims' comparisons
    (he_generalization.comparisons); ``title`` and ``subtitle``: the verdict; ``oneto_possible``: whether Oneto et
    al.'s quoted b can be compared (else not drawn)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    pyplot = plt()
    p = params
    wo = c["oneto"]
    delta = sorted(p["delta"])[len(p["delta"]) // 2]
    fig, axes = pyplot.subplots(1, 2, figsize=(9.8, 4.6), sharex=True)
    hp = table[table.N.isna() & table.k.isna()]
    Ns = sorted(wo.N.unique()) or [max(p["N"])]
    drawn = set(zip(wo.eps[wo.delta == delta], wo.N[wo.delta == delta]))  # Oneto's points drawn: comparable ones
    oneto = table[(table.method == "oneto_et_al") & (table.quantity == "a") & (table.empirical_risk == 0)]
    oneto_a = oneto.value[np.array([(e, n) in drawn for e, n in zip(oneto.eps, oneto.N)], dtype=bool)]
    a_all = pd.concat([hp[hp.quantity == "a"].value, oneto_a])
    axes[0].set(yscale="log", ylim=(float(a_all.min()) / 3, float(a_all.max()) * 3))
    axes[1].set(yscale="log")
    log_axis(axes[0])
    log_axis(axes[1])
    b_rows = hp[(hp.quantity == "b") & (hp.delta == delta)]
    a_rows = hp[(hp.quantity == "a") & (hp.delta == hp.delta.min())].set_index(["method", "eps"]).value
    says = (a_rows.reindex(list(zip(b_rows.method, b_rows.eps))).to_numpy() < 1) & (b_rows.value.to_numpy() < 1)
    if (says & (b_rows.value.to_numpy() < B_FLOOR)).any():  # a b that says something underflows: the strip
        y_strip = floor_band([axes[1]], B_FLOOR, 10.0, f"< {power_of_ten_label(B_FLOOR)}", decades=3.4, max_ticks=5)
    else:  # no strip: the axis ends two decades below the lowest b that says something (faint lines run on below)
        y_strip = None
        informative_b = b_rows.value.to_numpy()[says]
        axes[1].set_ylim(float(informative_b.min()) / 100 if len(informative_b) else B_FLOOR, 10.0)
    # methods one above the other within the strip (levels ~0.75 decades apart), so that markers at one ε never
    # hide each other
    strip_at = {key: None if y_strip is None else y_strip * 10 ** (2.2 * (i / 3 - 0.5))
                for i, key in enumerate([*METHOD_KEYS, "oneto_et_al"])}
    axes[1].yaxis.set_major_formatter(FuncFormatter(power_of_ten_label))  # 10^k as on the left panel
    for ax, q in ((axes[0], "a"), (axes[1], "b")):
        d = hp[(hp.quantity == q) & ((hp.delta == delta) if q == "b" else (hp.delta == hp.delta.min()))]
        for m, key in METHOD_KEYS.items():
            s = d[d.method == m].sort_values("eps")
            # solid only where the bound says something (a < 1 and b < 1): in the b panel at its δ, in the a panel
            # (a does not depend on δ) at some δ of the grid; faint dashed elsewhere
            a_of = hp[(hp.quantity == "a") & (hp.method == m) & (hp.delta == hp.delta.min())].set_index("eps")
            b_min = hp[(hp.quantity == "b") & (hp.method == m)].groupby("eps").value.min()
            says = (s.eps.map(a_of.value).to_numpy() < 1) & ((s.value.to_numpy() < 1) if q == "b" else
                                                              (s.eps.map(b_min).to_numpy() < 1))
            ax.plot(s.eps, s.value.where(s.value >= B_FLOOR), color=style(key)["color"], ls="--", lw=1.1,
                    alpha=0.45, label="_vacuous", zorder=1)
            s = s.assign(value=s.value.where(says))
            _plot_floored(ax, s.eps, s.value, B_FLOOR if q == "b" else 0.0, strip_at[m] if q == "b" else None,
                          ms=4, label=NAMES[m], **style(key))
        for i, N in enumerate(sorted(p["N"])):
            if N not in Ns or not oneto_possible:  # not compared (the subtitle says why): not drawn
                continue
            s = table[(table.method == "oneto_et_al") & (table.quantity == q) & (table.N == N)
                      & (table.empirical_risk == 0) & (table.delta == delta)].sort_values("eps")
            s = s[s.eps.isin(wo.eps[(wo.N == N) & (wo.delta == delta)])]  # only where comparable with Theorem 1
            if s.empty:
                continue
            _plot_floored(ax, s.eps, s.value, B_FLOOR if q == "b" else 0.0,
                          strip_at["oneto_et_al"] if q == "b" else None, ls=N_STYLES[i % len(N_STYLES)],
                          label=f"Oneto et al., N = {number_text(N)}, empirical risk 0 (where comparable)",
                          **(style("oneto") | {"marker": None}))
    axes[1].axhline(delta, color=COLORS["reference"], ls=":", lw=1.4, zorder=1,
                    label=f"δ = {number_text(delta)}: no (ε, δ)-DP bound with a < 1 has a b below it")
    top = max(p["eps"])
    axes[1].set_ylim(top=axes[1].get_ylim()[1] * 4)  # whole markers for the b above 1 (Dwork et al. at small ε)
    for ax in axes:
        ax.axhspan(1, ax.get_ylim()[1], **SHADE)
        ax.set_xlabel("ε")
        log_axis(ax, "x")
    if top > 2:  # between the strip and b = 1 only: the b >= 1 band above is shaded already, the strip stays clear
        axes[1].fill_between([2, top * 1.5], B_FLOOR / 10**0.25, 1, **SHADE)
        axes[1].set_xlim(right=top * 1.5)
    # round ticks every 5 decades above a strip (every 2 without one): no two labels crowded
    bottom, step = axes[1].get_ylim()[0], 5 if y_strip is not None else 2
    axes[1].set_yticks([10.0**k for k in range(0, int(np.log10(B_FLOOR)) - 1, -step) if 10.0**k >= bottom * 0.999])
    axes[0].set(ylabel="a (lower is tighter)")
    axes[0].set_title(r"accuracy a in $P[\,|\mathrm{gap}| < a\,] > 1-b$ (solid: b < 1 at some δ)",
                      fontsize=SIZES["title"])
    axes[1].set(ylabel="b (lower is tighter)")
    axes[1].set_title(f"failure probability b, δ = {tex_number(delta)}", fontsize=SIZES["title"])
    verdict_title(fig, title, subtitle)
    found: dict = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if not lab.startswith("_"):
                found.setdefault(lab, h)
    found["shaded: the bound says nothing (a ≥ 1, b ≥ 1;\nHe's and Nissim–Stemmer's b ≤ 0 for ε ≥ 2)"] = Patch(**SHADE)
    found["faint dashed: that bound says nothing there (a ≥ 1 or b ≥ 1)"] = Line2D([], [], color="#777777", ls="--",
                                                                               lw=1.1, alpha=0.6)
    lost = c["dwork"][~c["dwork"].ok.astype(bool)]  # where both bounds say something and He's is not tighter
    if len(lost):  # ringed on He's a there (the window's ε is off the grid: both say something only for δ < 8^-9)
        deltas = ", ".join(tex_number(d) for d in sorted(lost.delta.unique()))
        label = f"claim does not hold here: He's a above Dwork et al.'s,\nwhere both say something (δ = {deltas})"
        found[label] = ring(axes[0], lost.eps, lost.he_thm1_a, label=label, size=90)
        first = lost.iloc[0]  # why only here: named beside it, in the empty lower right
        axes[0].annotate(f"ε = {first.eps:.3g}, δ = {tex_number(first.delta)}:\nboth bounds say something\nonly "
                         "near here", (first.eps, first.he_thm1_a), xytext=(30, -40), textcoords="offset points",
                         ha="left", va="top", fontsize=SIZES["note"],
                         arrowprops={"arrowstyle": "-", "lw": 0.7, "shrinkB": 6})
    legend_below(fig, axes, handles=list(found.values()), labels=list(found), ncol=2)
    return fig
