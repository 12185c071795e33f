"""Figures of he-composition-eps and he-composition-delta (tables and claims: :mod:`.he_composition`), drawn at
``composition.delta_tilde``."""

from __future__ import annotations

import pandas as pd

from adaptive_repro.plotting import COLORS, DISPLAY_NAMES, SHADE, legend_below, note, plain_log_axis, pyplot as plt

METHOD_STYLE = {
    "naive": dict(color=COLORS["naive"], ls=":", marker="", label=DISPLAY_NAMES["naive"]),
    "drv": dict(color=COLORS["drv"], ls="--", marker="", label=DISPLAY_NAMES["drv"]),
    "kairouz": dict(color=COLORS["kairouz"], ls="-", marker="", lw=3.5, alpha=0.5, label=DISPLAY_NAMES["kairouz"]),
    "he": dict(color=COLORS["he"], ls="-", marker="", label=DISPLAY_NAMES["he"]),
    "he_cor3": dict(color=COLORS["he_cor3"], ls="-.", marker="", label=DISPLAY_NAMES["he_cor3"]),
    "he_cor3_derived": dict(color=COLORS["he_cor3_derived"], ls="--", marker="", label=DISPLAY_NAMES["he_cor3_derived"]),
    "exact_optimal": dict(color=COLORS["exact_optimal"], ls="-", marker="o", ms=3, label=DISPLAY_NAMES["exact_optimal"]),
    "exact_at_he": dict(color="k", ls="", marker="^", ms=5, mfc="none",
                        label="exact optimal δ at He's ε' (KOV Thm 3.3)"),
    "exact_at_cor3": dict(color="k", ls="", marker="o", ms=5, mfc="none",
                          label="exact optimal δ at Cor 3's ε' (KOV Thm 3.3)"),
    "laplace_pld": dict(color=COLORS["laplace_pld"], ls="", marker="s", ms=6, mfc="none",
                        label=DISPLAY_NAMES["laplace_pld"]),
    "floor": dict(color="k", ls="-", marker="", lw=1, label="floor 1 − (1 − δ)^T"),
}

def composition_eps_figure(table: pd.DataFrame, curve: pd.DataFrame, params: dict):
    pyplot = plt()
    p = params["composition"]
    dt = float(p["delta_tilde"])
    table = table[table.delta_tilde == dt]
    epss, deltas = p["eps"], p["delta"]
    fig, axes = pyplot.subplots(len(deltas), len(epss), figsize=(3.5 * len(epss), 3.4 * len(deltas) + 0.8),
                                squeeze=False, sharex=True)
    for i, delta in enumerate(deltas):
        for j, eps in enumerate(epss):
            ax = axes[i, j]
            c = curve[(curve.eps == eps) & (curve.delta == delta)]
            ex = c[c.method == "exact_optimal"].set_index("T").eps_prime
            for m in ["naive", "drv", "kairouz", "he", "exact_optimal"]:
                s = c[c.method == m].set_index("T").eps_prime
                ax.plot(s.index, s / ex, **METHOD_STYLE[m])
            t = table[(table.eps == eps) & (table.delta == delta) & (table.method == "laplace_pld")]
            if len(t):
                ax.plot(t["T"], t.eps_over_exact, **METHOD_STYLE["laplace_pld"])
            bad = table[(table.eps == eps) & (table.delta == delta) & ~table.sound & (table.method == "he")]
            if len(bad):
                ax.plot(bad["T"], bad.eps_over_exact, "x", color=COLORS["violation"], ms=10, mew=2,
                        label="He Thm 4 / Cor 2 unsound: δ' < exact optimal δ(ε')")
            ax.set(xscale="log", yscale="log", title=f"ε = {eps:g}, δ = {delta:g}")
            plain_log_axis(ax, "x")
            plain_log_axis(ax, "y", subs=(1.0, 2.0, 5.0))
            if i == len(deltas) - 1:
                ax.set_xlabel("number of steps T")
            if j == 0:
                ax.set_ylabel("ε' / exact optimal ε'")
    fig.suptitle(f"He et al.: ε' of T-fold composition relative to the exact optimum at δ' = 1 − (1 − δ)^T(1 − δ~),\n"
                 f"δ~ = {dt:g} (claims: every δ~ of the sweep)")
    legend_below(fig, axes)
    return fig


def composition_delta_figure(table: pd.DataFrame, params: dict):
    pyplot = plt()
    p = params["composition"]
    dt = float(p["delta_tilde"])
    table = table[table.delta_tilde == dt]
    epss = p["eps"]
    pos = [d for d in p["delta"] if d > 0]
    fig, axes = pyplot.subplots(2, len(epss), figsize=(3.5 * len(epss), 8.0), squeeze=False, sharex=True)
    ymin = 1e-40
    for j, eps in enumerate(epss):
        ax = axes[0, j]
        if pos:
            delta = pos[0]
            c = table[(table.eps == eps) & (table.delta == delta)]
            for m in ["naive", "drv", "kairouz", "he", "he_cor3"]:
                s = c[c.method == m].set_index("T")
                ax.plot(s.index, s.delta_over_floor, **METHOD_STYLE[m])
            s = c[c.method == "he"].set_index("T")
            ax.plot(s.index, s.exact_delta_at_eps_prime / s.delta_floor, **METHOD_STYLE["exact_at_he"])
            ax.axhline(1.0, **METHOD_STYLE["floor"])
            hidden = []  # curves drawn under others: say so on the panel
            w = c.pivot_table(index="T", columns="method", values="delta_over_floor")
            if "naive" in w and (w["naive"] - 1).abs().max() < 0.01:
                hidden.append("naive Tε ≈ floor line")
            small = w[w.index <= 10]
            if len(small) and all(m in w for m in ("drv", "kairouz", "he")) and \
                    max((small[m] / small["he"] - 1).abs().max() for m in ("drv", "kairouz")) < 0.01:
                hidden.append(f"DRV ≈ Kairouz ≈ He\nfor T ≤ {int(small.index.max())}")
            if hidden:
                note(ax, "\n".join(hidden), x=0.97, y=0.97, ha="right", va="top")
            ax.axhspan(0.5, 1.0, **SHADE)
            ax.set(xscale="log", yscale="log", title=f"ε = {eps:g}, δ = {delta:g}", ylim=(0.5, 20))
            plain_log_axis(ax, "x")
            plain_log_axis(ax, "y", subs=(1.0, 2.0, 5.0))
            if j == 0:
                ax.set_ylabel("δ' / floor 1 − (1 − δ)^T\n(shaded: impossible)")
        ax = axes[1, j]
        c = table[(table.eps == eps) & (table.delta == 0.0)]
        if len(c):
            missing = []
            for m in ["he_cor3", "he_cor3_derived"]:
                s = c[c.method == m].set_index("T").delta_prime
                shown = s.where(s >= ymin)
                ax.plot(shown.index, shown, **METHOD_STYLE[m])
                if shown.notna().sum() == 1:  # one point: no line to draw, so a marker and a note
                    ax.plot(shown.index, shown, ls="", marker="o", ms=5, color=METHOD_STYLE[m]["color"])
                    below = s[s < ymin]
                    missing.append(f"{METHOD_STYLE[m]['label']}:\none point; below {ymin:g}\nfor T ≥ {below.index.min():g}"
                                   if len(below) else f"{METHOD_STYLE[m]['label']}: one point")
                if shown.notna().sum() == 0:
                    why = "undefined (ε' ≥ Tε)" if s.isna().all() else f"below {ymin:g}"
                    missing.append(f"{METHOD_STYLE[m]['label']}:\n{why}")
            s = c[c.method == "he_cor3"].set_index("T")
            ex = s.exact_delta_at_eps_prime.where(s.exact_delta_at_eps_prime >= ymin)
            ax.plot(ex.index, ex, **METHOD_STYLE["exact_at_cor3"])
            ax.axhline(dt, color=COLORS["kairouz"], lw=1.2, ls="--", label="δ~ (Thm 4 / Kairouz δ')")
            if missing:
                note(ax, "\n".join(missing), x=0.03, y=0.04, ha="left", va="bottom")
            ax.set(xscale="log", yscale="log", xlabel="number of steps T", title=f"ε = {eps:g}, δ = 0")
            plain_log_axis(ax, "x")
            ax.set_ylim(bottom=ymin, top=1)
            plain_log_axis(ax, "y")
            if j == 0:
                ax.set_ylabel("δ'")
    fig.suptitle(f"He et al.: δ' of T-fold composition (δ~ = {dt:g});\ntop: relative to the floor, bottom: pure DP")
    legend_below(fig, axes)
    return fig
