"""Figures of he-composition-eps and he-composition-delta (tables and claims: :mod:`.he_composition`), drawn at
``delta_tilde`` of the output's block. Curves that coincide or are absent are named on their panel, with the numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.plotting import COLORS, DISPLAY_NAMES, SHADE, legend_below, log_axis, note
from adaptive_repro.plotting import pyplot as plt

DT = r"$\tilde{\delta}$"
FLOOR = r"$1-(1-\delta)^T$"
KOV = "Kairouz-Oh-Viswanath Thm 3.3"
METHOD_STYLE = {
    "naive": dict(color=COLORS["naive"], ls=":", marker="", label=DISPLAY_NAMES["naive"]),
    "drv": dict(color=COLORS["drv"], ls="--", marker="", label=DISPLAY_NAMES["drv"]),
    "kairouz": dict(color=COLORS["kairouz"], ls="", marker="D", ms=7, mfc="none", mew=1.4,
                    label=DISPLAY_NAMES["kairouz"]),
    "he": dict(color=COLORS["he"], ls="-", marker="", label=DISPLAY_NAMES["he"]),
    "he_cor3": dict(color=COLORS["he_cor3"], ls="-.", marker="",
                    label=DISPLAY_NAMES["he_cor3"] + "; Cor 3 is undefined where ε' ≥ Tε"),
    "he_cor3_derived": dict(color=COLORS["he_cor3_derived"], ls="--", marker="",
                            label=DISPLAY_NAMES["he_cor3_derived"]),
    "exact_optimal": dict(color=COLORS["exact_optimal"], ls="-", marker="o", ms=3, lw=1.2,
                          label=DISPLAY_NAMES["exact_optimal"]),
    "exact_at_he": dict(color="k", ls="", marker="^", ms=5, mfc="none", label=f"exact optimal δ at He's ε' ({KOV})"),
    "exact_at_cor3": dict(color="k", ls="", marker="o", ms=5, mfc="none",
                          label=f"exact optimal δ at Cor 3's ε' ({KOV})"),
    "laplace_pld": dict(color=COLORS["laplace_pld"], ls="", marker="s", ms=6, mfc="none",
                        label=DISPLAY_NAMES["laplace_pld"]),
    "floor": dict(color="k", ls="-", marker="", lw=1, label=f"floor {FLOOR}: no valid δ' below"),
}
BELOW = dict(color=COLORS["violation"], ls="", marker="x", ms=9, mew=2, zorder=4,
             label="He Thm 4 / Cor 2 below the floor: impossible δ'")


def _rel(a: pd.Series, b: pd.Series) -> float:
    """Largest |a/b - 1| over the T where both are finite (nan if none)."""
    r = (a / b - 1).abs().replace([np.inf, -np.inf], np.nan).dropna()
    return float(r.max()) if len(r) else float("nan")


def _pct(r: float) -> str:
    return "0" if r == 0 else (f"{r:.0e}" if r < 1e-3 else f"{100 * r:.2g}%")


def composition_eps_figure(table: pd.DataFrame, curve: pd.DataFrame, params: dict):
    pyplot = plt()
    p = params
    dt = float(p["delta_tilde"])
    table = table[table.delta_tilde == dt]
    epss, deltas = p["eps"], p["delta"]
    fig, axes = pyplot.subplots(len(deltas), len(epss), figsize=(3.5 * len(epss), 4.4 * len(deltas) + 0.8),
                                squeeze=False, sharex=True)
    for i, delta in enumerate(deltas):
        for j, eps in enumerate(epss):
            ax = axes[i, j]
            c = curve[(curve.eps == eps) & (curve.delta == delta)]
            ex = c[c.method == "exact_optimal"].set_index("T").eps_prime
            r = {m: c[c.method == m].set_index("T").eps_prime / ex
                 for m in ["naive", "drv", "kairouz", "he", "exact_optimal"]}
            for m in ["naive", "drv", "he", "exact_optimal", "kairouz"]:
                ax.plot(r[m].index, r[m], **METHOD_STYLE[m], zorder=3 if m == "kairouz" else 2)
            t = table[(table.eps == eps) & (table.delta == delta) & (table.method == "laplace_pld")]
            if len(t):
                ax.plot(t["T"], t.eps_over_exact, **METHOD_STYLE["laplace_pld"])
            bad = table[(table.eps == eps) & (table.delta == delta) & ~table.sound & (table.method == "he")]
            if len(bad):
                ax.plot(bad["T"], bad.eps_over_exact, "x", color=COLORS["violation"], ms=10, mew=2, zorder=4,
                        label="He Thm 4 / Cor 2 unsound: δ' < exact optimal δ(ε')")
            ax.set(xscale="log", yscale="log", title=f"ε = {eps:g}, δ = {delta:g}")
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo, hi * (hi / lo) ** 0.85)  # head room for the note
            log_axis(ax, "x")
            log_axis(ax, "y", subs=(1.0, 2.0, 5.0))
            d = _rel(r["kairouz"], r["he"])
            text = "Kairouz ◇ = He Thm 4\n" + ("(identical ε', to 1e-12)" if d < 1e-12 else f"(ε' within {_pct(d)})") \
                if d < 0.01 else f"Kairouz ◇ and He Thm 4\ndiffer by up to {_pct(d)}"
            on = (r["he"] - 1).abs() < 0.01
            if on.iloc[0]:  # He on the exact curve (under its dots) for the first T
                last = on.index[-1] if on.all() else on.index[on.values.argmin() - 1]
                text += f"\nHe = exact for T ≤ {last:g} (1%)"
            note(ax, text, x=0.03, y=0.97, ha="left", va="top")
            if i == len(deltas) - 1:
                ax.set_xlabel("number of steps T")
            if j == 0:
                ax.set_ylabel("ε' / exact optimal ε'")
    fig.suptitle(f"He et al.: ε' of T-fold composition of (ε, δ)-DP steps, relative to the exact optimum,\n"
                 rf"at $\delta' = 1-(1-\delta)^T(1-\tilde{{\delta}})$ with {DT} = {dt:g} "
                 rf"(claims: every {DT} of the sweep)")
    legend_below(fig, axes, ncol=2)
    return fig


def _absent(s: pd.Series, ymin: float) -> list[str]:
    """Where a curve over T is not drawn: undefined (nan) or below ``ymin`` (log axis), as T ranges."""
    out = []
    und = s[s.isna()].index
    if len(und) == len(s):
        return ["undefined at every T"]
    if len(und) and und.max() < s.dropna().index.min():
        out.append(f"undefined for T < {s.dropna().index.min():g}")
    low = s[(s < ymin)].index
    if len(low) == s.notna().sum():
        out.append(f"< {ymin:g} at every T")
    elif len(low):
        out.append(f"< {ymin:g} for T ≥ {low.min():g}")
    return out


def _below_floor(c: pd.DataFrame) -> pd.DataFrame:
    """Rows of method ``he`` (Theorem 4 / Corollary 2) with delta' below the floor (delta > 0 only)."""
    return c[(c.method == "he") & (c.delta > 0) & ~c.valid.astype(bool)]


def _zoom_panel(ax, w: pd.DataFrame, bad: pd.DataFrame):
    """delta'/floor on a linear axis near 1: where He Theorem 4 / Corollary 2 (x) and Corollary 3 dip below it."""
    for m in ["naive", "drv", "he", "he_cor3", "kairouz"]:
        ax.plot(w.index, w[m], **METHOD_STYLE[m], zorder=3 if m == "kairouz" else 2)
    ax.plot(bad["T"], bad.delta_over_floor, **BELOW)
    ax.axhline(1.0, **METHOD_STYLE["floor"])
    low = np.nanmin(np.r_[w["he"].values, w["he_cor3"].values, 1.0])
    span = max(1.0 - low, 2e-3)
    ax.axhspan(1.0 - 2.3 * span, 1.0, **SHADE)
    ax.set(xscale="log", ylim=(1.0 - 2.3 * span, 1.0 + 0.6 * span), title="zoom near the floor (linear axis)")
    log_axis(ax, "x")
    he = w["he"].dropna()
    text = f"× He Thm 4 / Cor 2 below:\n{len(bad)} of {len(he)} T"
    if len(bad):
        text += f" (T ≥ {bad['T'].min():g}),\nlowest {bad.delta_over_floor.min():.4g} × floor"
    c3 = w["he_cor3"].dropna()
    text += f"\nCor 3 below: {int((c3 < 1).sum())} of {len(c3)} T"
    note(ax, text, x=0.03, y=0.04, ha="left", va="bottom")


def composition_delta_figure(table: pd.DataFrame, params: dict):
    pyplot = plt()
    p = params
    dt = float(p["delta_tilde"])
    pos = [d for d in p["delta"] if d > 0]
    sweep = _below_floor(table[table.delta == pos[0]]) if pos else table.iloc[:0]
    n_sweep = int(((table.method == "he") & (table.delta == pos[0])).sum()) if pos else 0
    table = table[table.delta_tilde == dt]
    epss = p["eps"]
    fig, axes = pyplot.subplots(len(epss), 3, figsize=(14.0, 3.0 * len(epss) + 1.3), squeeze=False, sharex=True,
                                gridspec_kw={"width_ratios": [1.0, 0.8, 1.2]})
    axes = axes.T  # row 0: delta > 0, row 1: its zoom near the floor, row 2: pure DP (delta = 0); one row per eps
    ymin = 1e-40
    for j, eps in enumerate(epss):
        ax = axes[0, j]
        if pos:
            delta = pos[0]
            c = table[(table.eps == eps) & (table.delta == delta)]
            w = c.pivot_table(index="T", columns="method", values="delta_over_floor", dropna=False)
            for m in ["naive", "drv", "he", "he_cor3", "kairouz"]:
                ax.plot(w.index, w[m], **METHOD_STYLE[m], zorder=3 if m == "kairouz" else 2)
            s = c[c.method == "he"].set_index("T")
            ax.plot(s.index, s.exact_delta_at_eps_prime / s.delta_floor, **METHOD_STYLE["exact_at_he"])
            bad = _below_floor(c)
            ax.plot(bad["T"], bad.delta_over_floor, **BELOW)
            ax.axhline(1.0, **METHOD_STYLE["floor"])
            said = [f"naive Tε ≈ floor, within {_pct(_rel(w['naive'], w['naive'] ** 0))}",
                    f"DRV ≈ Kairouz ◇, within {_pct(_rel(w['drv'], w['kairouz']))}"]
            close = w.index[(w["he"] / w["kairouz"] - 1).abs() < 0.01]
            if len(close):
                said.append("He ≈ Kairouz ◇, within 1%" + (f", for T ≤ {close.max():g}"
                                                            if close.max() < w.index.max() else ""))
            said += [f"Cor 3: {x}" for x in _absent(w["he_cor3"], 0)]
            c3 = _rel(w["he_cor3"], w["he_cor3"] ** 0)
            if c3 < 0.05:
                said.append(f"Cor 3 ≈ floor, within {_pct(c3)}")
            note(ax, "\n".join(said), x=0.97, y=0.97, ha="right", va="top")
            ax.axhspan(0.4, 1.0, **SHADE)
            ax.set(xscale="log", yscale="log", title=f"ε = {eps:g}, δ = {delta:g}", ylim=(0.4, 60))
            log_axis(ax, "x")
            log_axis(ax, "y", subs=(1.0, 2.0, 5.0))
            ax.set_ylabel(f"δ' / floor {FLOOR}")
            _zoom_panel(axes[1, j], w, bad)
        ax = axes[2, j]
        c = table[(table.eps == eps) & (table.delta == 0.0)]
        if len(c):
            missing = []
            for m in ["he_cor3", "he_cor3_derived"]:
                s = c[c.method == m].set_index("T").delta_prime
                shown = s.where(s >= ymin)
                ax.plot(shown.index, shown, **METHOD_STYLE[m])
                if shown.notna().sum() == 1:  # one point: no line to draw, so a marker
                    ax.plot(shown.index, shown, ls="", marker="o", ms=5, color=METHOD_STYLE[m]["color"])
                why = _absent(s, ymin)
                if m == "he_cor3_derived" and why and missing and why[0] == missing[0].split(": ", 1)[1]:
                    missing[0] = "Cor 3 (both): " + why.pop(0)  # same eps', so the same undefined range
                short = "Cor 3 printed" if m == "he_cor3" else "Cor 3 derived"
                missing += [f"{short}: {x}" for x in why]
                if shown.notna().sum() == 1:
                    missing[-1] += f" (dot: T = {shown.first_valid_index():g})"
                near = s.index[(s / dt - 1).abs() < 0.1]
                if len(near):  # drawn under the delta~ line there
                    missing.append(f"{short} ≈ {DT} (10%), T ≥ {near.min():g}")
            s = c[c.method == "he_cor3"].set_index("T")
            ex = s.exact_delta_at_eps_prime.where(s.exact_delta_at_eps_prime >= ymin)
            ax.plot(ex.index, ex, **METHOD_STYLE["exact_at_cor3"])
            ax.axhline(dt, color=COLORS["kairouz"], lw=1.2, ls="--",
                       label=f"{DT}: δ' of DRV, Kairouz, He Thm 4 at δ = 0")
            missing.append("naive Tε: δ' = 0, not shown")
            note(ax, "\n".join(missing), x=0.03, y=0.03, ha="left", va="bottom")
            ax.set(xscale="log", yscale="log", title=f"ε = {eps:g}, δ = 0")
            log_axis(ax, "x")
            ax.set_ylim(bottom=ymin, top=1)
            log_axis(ax, "y")
            ax.set_ylabel("δ'")
    for ax in axes[:, -1]:
        ax.set_xlabel("number of steps T")
    shown = table[(table.method == "he") & (table.delta == pos[0])] if pos else table.iloc[:0]
    fig.suptitle(f"He et al.: δ' of T-fold composition ({DT} = {dt:g}); right: pure DP (δ = 0)\nleft, middle: δ' "
                 f"relative to the floor {FLOOR} (shaded: below it, impossible)\n× He Thm 4 / Cor 2 below the floor: "
                 f"{len(_below_floor(shown))} of {len(shown)} (ε, T) points here, {len(sweep)} of {n_sweep} "
                 f"(ε, T, {DT}) over the {DT} sweep of the claims")
    legend_below(fig, axes, ncol=2)
    return fig
