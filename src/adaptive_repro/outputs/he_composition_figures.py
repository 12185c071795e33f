"""Figures of he-composition-eps and he-composition-delta (tables and claims: :mod:`.he_composition`).

Both draw He's Theorem 4 / Corollary 2 against Kairouz et al. (as He quotes them) and the exact optimal composition,
at the output's ``delta_tilde``, one panel per ε and one row per δ > 0 (at δ = 0 He's pair is Kairouz's, so nothing
can fail there). Each figure's title is one verdict counted from the rows it draws, and the grid points where He's
guarantee fails are ringed on the data. The rest of each table (naive Tε, the Laplace PLD accountant, Corollary 3,
δ = 0, the δ̃ sweep) stays in the table and the claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.plotting import (
    COLORS,
    DISPLAY_NAMES,
    MAX_WIDTH,
    SHADE,
    SIZES,
    legend_below,
    log_axis,
    note,
    plain_number,
    ring,
    style,
    verdict_title,
)
from adaptive_repro.plotting import pyplot as plt

DT = r"$\tilde{\delta}$"
FLOOR = r"$1-(1-\delta)^T$"
KOV = "Kairouz-Oh-Viswanath Thm 3.3"


def _draw(key: str, **kw) -> dict:
    """Plot keywords of method ``key``: its encoding (:func:`~adaptive_repro.plotting.style`), its display name as
    label, then ``kw`` (line style, marker size, or marker "" for a plain line)."""
    return style(key) | {"label": DISPLAY_NAMES[key]} | kw


#: He's curve: a line with its markers (the rings sit on them); Kairouz's: open diamonds over it.
HE = dict(ls="-", ms=4, zorder=3)
KAIROUZ = dict(ls="", ms=7, mfc="none", mew=1.4, zorder=4)


def _panels(n_rows: int, n_cols: int, yscale: str):
    """A figure of ``n_rows`` x ``n_cols`` panels at most :data:`MAX_WIDTH` wide, shared T (log) and y axes (the
    panels compare the same methods, so one scale), T labelled on the bottom row only."""
    fig, axes = plt().subplots(n_rows, n_cols, figsize=(MAX_WIDTH, 3.3 * n_rows + 1.6), squeeze=False, sharex=True,
                               sharey=True)
    for ax in axes.flat:
        ax.set(xscale="log", yscale=yscale)
    for ax in axes[-1]:
        ax.set_xlabel("number of steps T")
    return fig, axes


def _t_axis(ax, rows: pd.DataFrame):
    """T on a log axis labelled 10^k, with room at both ends for the rings of the first and last T."""
    ax.set_xlim(0.7 * rows["T"].min(), 1.45 * rows["T"].max())
    log_axis(ax, "x")


def _verdict(n_bad: int, n: int, bad: str, good: str) -> str:
    """The title's verdict: ``bad`` at how many of the ``n`` drawn grid points, or ``good`` at all of them."""
    if not n:  # only δ = 0 configured: He's pair is Kairouz's there
        return "No (ε, δ)-DP steps with δ > 0 in this run: He's δ′ is Kairouz's"
    return f"{bad} at {n_bad} of {n} grid points" if n_bad else f"{good} at all {n} grid points"


def _positive(params: dict) -> list[float]:
    """The δ > 0 of the block (one row of panels each)."""
    return [float(d) for d in params["delta"] if float(d) > 0]


def composition_eps_figure(curve: pd.DataFrame, params: dict):
    """He's (ε′, δ′) of T-fold composition against the exact optimum (``curve``: the dense ``T_curve`` grid at
    ``delta_tilde``), one column per ε and two rows per δ > 0: top, ε′ / exact optimal ε′ for Kairouz and He (the same
    ε′); bottom, δ′ / the exact optimal δ at that ε′ (the he-sound claim: below 1, shaded, the pair is not a valid
    guarantee), with the failing points ringed there. Title: at how many drawn points it fails."""
    dt = float(params["delta_tilde"])
    epss, deltas = [float(e) for e in params["eps"]], _positive(params)
    he = curve[(curve.method == "he") & (curve.delta_tilde == dt) & curve.delta.isin(deltas)]
    bad = he[~he.sound.astype(bool)]
    w = curve.pivot_table(index=["eps", "delta", "T", "delta_tilde"], columns="method", values="eps_prime")
    same = np.allclose(w.he, w.kairouz, rtol=1e-9)  # the he-eps-equals-kairouz claim, on the drawn curves
    kairouz_label = DISPLAY_NAMES["kairouz"] + (": the same ε′ as He's" if same else "")
    drawn = curve[curve.method.isin(["he", "kairouz"]) & curve.delta.isin(deltas)]
    ratio = drawn.delta_prime / drawn.exact_delta_at_eps_prime
    ratio = ratio[np.isfinite(ratio)]
    span = max(1.0 - float(ratio.min()), 0.05) if len(ratio) else 0.05
    dlim = (1.0 - 1.5 * span, 1.0 + 1.5 * span)  # a linear zoom on ratio 1 and He's deepest shortfall
    fig, axes = plt().subplots(2 * max(1, len(deltas)), len(epss), figsize=(MAX_WIDTH, 5.4 * max(1, len(deltas)) + 1.4),
                               squeeze=False, sharex=True, sharey="row")
    for i, delta in enumerate(deltas):
        for j, eps in enumerate(epss):
            top, low = axes[2 * i, j], axes[2 * i + 1, j]
            c = curve[(curve.eps == eps) & (curve.delta == delta)]
            ex = c[c.method == "exact_optimal"].set_index("T").eps_prime
            r = {m: c[c.method == m].set_index("T").eps_prime / ex for m in ["he", "kairouz"]}
            top.plot(r["he"].index, r["he"], **_draw("he", **HE))
            top.plot(r["kairouz"].index, r["kairouz"], **_draw("kairouz", **KAIROUZ, label=kairouz_label))
            top.axhline(1.0, **_draw("exact_optimal", lw=1.2, marker="", label=f"exact optimum ({KOV}): ratio 1"))
            top.set_title(f"ε = {eps:g}, δ = {delta:g}")
            d = {m: c[c.method == m].set_index("T") for m in ["he", "kairouz"]}
            dr = {m: d[m].delta_prime / d[m].exact_delta_at_eps_prime for m in d}
            low.axhspan(dlim[0], 1.0, **SHADE)
            low.plot(dr["he"].index, dr["he"], **_draw("he", **HE))
            low.plot(dr["kairouz"].index, dr["kairouz"], **_draw("kairouz", **KAIROUZ, label=kairouz_label))
            low.axhline(1.0, **_draw("exact_optimal", lw=1.2, marker="", label=f"exact optimum ({KOV}): ratio 1"))
            b = bad[(bad.eps == eps) & (bad.delta == delta)]["T"]
            ring(low, b, dr["he"].reindex(b), size=200,
                 label="He's δ′ below the exact optimal δ at its ε′ (shaded): not a valid guarantee")
        axes[2 * i, 0].set_ylabel("ε′ / exact optimal ε′")
        axes[2 * i + 1, 0].set_ylabel("δ′ / exact optimal δ(ε′)")
    for ax in axes[-1]:
        ax.set_xlabel("number of steps T")
    for ax in axes.flat:
        _t_axis(ax, curve)
    for i in range(len(deltas)):
        axes[2 * i + 1, 0].set_ylim(*dlim)
    above = drawn[(drawn.delta_prime / drawn.exact_delta_at_eps_prime) > dlim[1]]
    if len(above):  # small T, where δ̃ dominates δ′: far above the exact δ, not the question here
        note(axes[1, 0], f"above the top\nup to T = {plain_number(above['T'].max())}", x=0.96, y=0.96, ha="right",
             va="top")
    verdict_title(fig, _verdict(len(bad), len(he), "He's (ε′, δ′) is not a valid guarantee",
                                "He's (ε′, δ′) is a valid guarantee"),
                  rf"T-fold composition of (ε, δ)-DP steps against the exact optimum, {DT} = {plain_number(dt)}")
    legend_below(fig, axes, ncol=2)
    return fig


def _lowest_label(ax, rows: pd.DataFrame):
    """Write He's lowest δ′/floor beside its point (a ring near the floor line cannot show how far below it is)."""
    if len(rows):
        low = rows.loc[rows.delta_over_floor.idxmin()]
        ax.annotate(f"{low.delta_over_floor:.4g}", (low["T"], low.delta_over_floor), xytext=(-4, -11),
                    textcoords="offset points", ha="right", va="top", fontsize=SIZES["note"],
                    color=COLORS["violation"])  # the rings' colour


def composition_delta_figure(table: pd.DataFrame, params: dict):
    """δ′ / floor 1−(1−δ)^T on a linear axis against T for He's Corollary 2 and Kairouz et al., with the exact optimal
    δ at He's ε′, one panel per ε (rows: δ > 0); the floor is the least δ′ any valid guarantee can have (shaded
    below), so He's points under it are ringed (the he-above-floor claim). Title: at how many drawn points."""
    dt = float(params["delta_tilde"])
    epss, deltas = [float(e) for e in params["eps"]], _positive(params)
    shown = table[(table.delta_tilde == dt) & table.delta.isin(deltas)]
    he = shown[shown.method == "he"]
    bad = he[~he.valid.astype(bool)]
    low = min(1.0, float(np.nanmin(he.delta_over_floor))) if len(he) else 1.0
    span = max(1.0 - low, 0.02)
    ylim = (1.0 - 1.3 * span, 1.0 + 0.9 * span)  # the floor with He's deepest dip; above: where δ̃ dominates
    fig, axes = _panels(max(1, len(deltas)), len(epss), "linear")
    for i, delta in enumerate(deltas):
        for j, eps in enumerate(epss):
            ax = axes[i, j]
            c = shown[(shown.eps == eps) & (shown.delta == delta)]
            h, k = c[c.method == "he"], c[c.method == "kairouz"]
            ax.plot(h["T"], h.delta_over_floor, **_draw("he", **HE))
            ax.plot(k["T"], k.delta_over_floor, **_draw("kairouz", **KAIROUZ))
            ax.plot(h["T"], h.exact_delta_at_eps_prime / h.delta_floor,
                    **_draw("exact_optimal", ls="", ms=7, label=f"exact optimal δ at He's ε′ ({KOV})"))
            ax.axhline(1.0, color=COLORS["reference"], lw=1.2, label=f"floor {FLOOR}: no valid δ′ below (shaded)")
            ax.axhspan(ylim[0], 1.0, **SHADE)
            b = bad[(bad.eps == eps) & (bad.delta == delta)]
            ring(ax, b["T"], b.delta_over_floor, size=220, label="He's δ′ below the floor: not a valid guarantee")
            _lowest_label(ax, b)
            ax.set_title(f"ε = {eps:g}, δ = {delta:g}")
        axes[i, 0].set_ylabel(f"δ′ / floor {FLOOR}")
    for ax in axes.flat:
        _t_axis(ax, table)
        ax.set_ylim(*ylim)
    above = shown[shown.method.isin(["he", "kairouz"]) & (shown.delta_over_floor > ylim[1])]
    if len(above):  # where δ̃ dominates the floor, so He and Kairouz are far above it: not the question here
        last = above.groupby(["eps", "delta"])["T"].max()
        where = f"for T ≤ {plain_number(last.max())}" if last.nunique() == 1 and len(last) == len(epss) * len(deltas) \
            else f"at small T (up to {plain_number(last.max())})"
        note(axes[0, 0], f"He, Kairouz above\nthe top {where}", x=0.04, y=0.96, ha="left", va="top")
    verdict_title(fig, _verdict(len(bad), len(he), f"He's δ′ is below the floor {FLOOR} that no valid δ′ can undercut,",
                                f"He's δ′ is at least the floor {FLOOR}"),
                  f"δ′ of T-fold composition relative to the floor, He vs Kairouz et al., {DT} = {plain_number(dt)}")
    legend_below(fig, axes, ncol=2)
    return fig
