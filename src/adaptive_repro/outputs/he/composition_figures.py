"""Figures of he-composition-eps and he-composition-delta (tables and claims: :mod:`.composition`).

Both draw He's Theorem 4 / Corollary 2 against Kairouz et al. (as He quotes them) and the exact optimal composition,
at the output's ``delta_tilde``, for each (δ > 0, ε): a panel of he-composition-delta (two per row), a row of
he-composition-eps (at δ = 0 He's pair is Kairouz's, so nothing can fail there). Each figure's title is one verdict
counted from the points it draws, and the grid points where He's guarantee fails are ringed on the data. The rest of
each table (naive Tε, the Laplace PLD accountant, Corollary 3, δ = 0, the δ̃ sweep) stays in the table and the
claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.outputs.he.common import POWER_TITLE_PT, tex_number
from adaptive_repro.report.plotting import (
    COLORS,
    DISPLAY_NAMES,
    MAX_WIDTH,
    SHADE,
    SIZES,
    ceiling_band,
    legend_below,
    log_axis,
    ring,
    style,
    verdict_title,
)
from adaptive_repro.report.plotting import pyplot as plt

DT = r"$\tilde{\delta}$"
FLOOR = r"$1-(1-\delta)^T$"
KOV = "Kairouz–Oh–Viswanath Thm 3.3"


def _draw(key: str, **kw) -> dict:
    """Plot keywords of method ``key``: its encoding (:func:`~adaptive_repro.report.plotting.style`), its display
    name as label, then ``kw`` (line style, marker size, or marker "" for a plain line)."""
    return style(key) | {"label": DISPLAY_NAMES[key]} | kw


#: He's curve: a line with its markers (the rings sit on them); Kairouz's: open diamonds over it; the exact optimum's
#: stars above both (small, so that a diamond around a star still shows).
HE = dict(ls="-", ms=4, zorder=3)
KAIROUZ = dict(ls="", ms=7, mfc="none", mew=1.4, zorder=4)
EXACT = dict(ls="", ms=6, zorder=6)
#: Kairouz's diamonds a little right of their T in the δ′ panels (He's ringed points and Kairouz's valid ones at one T
#: stay apart where their values nearly agree).
KAIROUZ_DODGE = 1.25
#: Rings: wide enough that a diamond and a star on the same T show inside, small enough that the rings at T = 5,000
#: and 10⁴ stay apart at report size.
RING_SIZE = 200


def _cells(params: dict) -> list[tuple[float, float]]:
    """The (δ, ε) of each drawn panel or row: δ > 0 only (at δ = 0 He's pair is Kairouz's, so nothing can fail)."""
    return [(float(d), float(e)) for d in params["delta"] if float(d) > 0 for e in params["eps"]]


def _cell_name(delta: float, eps: float, deltas: set) -> str:
    """The name of one panel or row: ε, and δ only if the figure draws more than one δ (else δ is in the title)."""
    return f"ε = {eps:g}" + (f", δ = {tex_number(delta)}" if len(deltas) > 1 else "")


def _settings(cells, dt: float) -> str:
    """The title's settings line's numbers: δ (if one) and δ̃, as 10ᵏ."""
    deltas = sorted({d for d, _ in cells})
    return (f"δ = {tex_number(deltas[0])}, " if len(deltas) == 1 else "") + f"{DT} = {tex_number(dt)}"


def _t_axis(ax, rows: pd.DataFrame):
    """T on a log axis labelled 10^k, with room at both ends for the rings of the first and last T."""
    ax.set_xlim(0.7 * rows["T"].min(), 1.9 * rows["T"].max())  # Kairouz's set-apart diamond at the last T too
    log_axis(ax, "x")


def _above_marks(ax, rows: pd.DataFrame, ratio: pd.Series, top: float, y: float) -> bool:
    """At each T where He's or Kairouz's ratio (``ratio``, indexed like ``rows``) is above ``top`` (small T, where δ̃
    dominates δ′: not the question of the figure), a grey ▲ at ``y`` in the off-scale strip (plotting.ceiling_band);
    True if any."""
    ts = sorted(set(rows.loc[ratio.index[ratio > top], "T"]))
    if ts:
        ax.plot(ts, [y] * len(ts), ls="", marker="^", ms=6, color=COLORS["reference"], zorder=7,
                label="He's and Kairouz's δ′ off scale above (small T: δ̃ dominates)")
    return bool(ts)


def _verdict(n_bad: int, n: int, bad: str, good: str) -> str:
    """The title's verdict: ``bad`` at how many of the ``n`` drawn grid points, or ``good`` at all of them."""
    if not n:  # only δ = 0 configured: He's pair is Kairouz's there
        return "No (ε, δ)-DP steps with δ > 0 in this run: He's δ′ is Kairouz's"
    return f"{bad} at {n_bad} of {n} grid points" if n_bad else f"{good} at all {n} grid points"


def _title(fig, verdict: str, subject: str):
    """The verdict title, at the size at which its powers of ten read (:data:`.common.POWER_TITLE_PT`)."""
    verdict_title(fig, verdict, subject).set_fontsize(POWER_TITLE_PT)


def composition_eps_figure(curve: pd.DataFrame, params: dict):
    """He's (ε′, δ′) of T-fold composition against the exact optimum (``curve``: the dense ``T_curve`` grid at
    ``delta_tilde``), one row per (δ > 0, ε): left, a narrow strip of ε′ / exact optimal ε′ (He's equals Kairouz's,
    the he-eps-equals-kairouz claim); right, wide, δ′ / the exact optimal δ at that ε′ (the he-sound claim: below 1,
    shaded, the pair is not a valid guarantee), with the failing points ringed. Title: ε′ as Kairouz's, and at how
    many drawn points the pair fails."""
    dt = float(params["delta_tilde"])
    cells = _cells(params)
    deltas = {d for d, _ in cells}
    he = curve[(curve.method == "he") & (curve.delta_tilde == dt) & curve.delta.isin(deltas)]
    bad = he[~he.sound.astype(bool)]
    w = curve.pivot_table(index=["eps", "delta", "T", "delta_tilde"], columns="method", values="eps_prime")
    same = np.allclose(w.he, w.kairouz, rtol=1e-9)  # the he-eps-equals-kairouz claim, on the drawn curves
    kairouz_label = DISPLAY_NAMES["kairouz"] + (": the same ε′ as He's" if same else "")
    n = max(1, len(cells))
    fig, axes = plt().subplots(n, 2, figsize=(MAX_WIDTH, 1.15 * n + 2.3), squeeze=False, sharex=True,
                               gridspec_kw={"width_ratios": [1, 2.4]})
    exact_label = f"exact optimum ({KOV}): ratio 1"
    for i, (delta, eps) in enumerate(cells):
        top, low = axes[i]
        if i:
            top.sharey(axes[0, 0])  # ε′ / exact on one axis; δ′ / exact zoomed per row (below)
        c = curve[(curve.eps == eps) & (curve.delta == delta)]
        drawn = c[c.method.isin(["he", "kairouz"])]
        ratio = (drawn.delta_prime / drawn.exact_delta_at_eps_prime).replace([np.inf, -np.inf], np.nan).dropna()
        span = max(1.0 - float(ratio.min()), 0.008) if len(ratio) else 0.05  # this row's deepest shortfall
        dlim = (1.0 - 2.4 * span, 1.0 + 1.5 * max(span, 0.02))  # a linear zoom on 1 and that shortfall (+ its label)
        low.set_ylim(*dlim)
        _zoom_ticks(low, *dlim)
        off_scale = ceiling_band([low], dlim[1], dlim[1] - dlim[0])
        ex = c[c.method == "exact_optimal"].set_index("T").eps_prime
        r = {m: c[c.method == m].set_index("T").eps_prime / ex for m in ["he", "kairouz"]}
        top.plot(r["he"].index, r["he"], **_draw("he", **HE))
        top.plot(r["kairouz"].index, r["kairouz"], **_draw("kairouz", **KAIROUZ, label=kairouz_label))  # open: He shows
        top.axhline(1.0, **_draw("exact_optimal", lw=1.2, marker="", label=exact_label))
        top.set_ylabel(_cell_name(delta, eps, deltas), rotation=0, ha="right", va="center",
                       fontsize=SIZES["title"])
        d = {m: c[c.method == m].set_index("T") for m in ["he", "kairouz"]}
        dr = {m: d[m].delta_prime / d[m].exact_delta_at_eps_prime for m in d}
        low.axhspan(dlim[0], 1.0, **SHADE)
        low.plot(dr["he"].index, dr["he"].where(dr["he"] <= dlim[1]), **_draw("he", **HE))
        low.plot(dr["kairouz"].index * KAIROUZ_DODGE, dr["kairouz"].where(dr["kairouz"] <= dlim[1]),
                 **_draw("kairouz", **KAIROUZ, label=kairouz_label))
        low.axhline(1.0, **_draw("exact_optimal", lw=1.2, marker="", label=exact_label))
        b = bad[(bad.eps == eps) & (bad.delta == delta)]["T"]
        ring(low, b, dr["he"].reindex(b), size=RING_SIZE,
             label="claim does not hold here: He's δ′ below the exact δ at its ε′")
        _lowest_label(low, dr["he"].reindex(b))
        both = pd.concat([dr["he"], dr["kairouz"]])
        _above_marks(low, pd.DataFrame({"T": both.index}, index=range(len(both))),
                     pd.Series(both.values, index=range(len(both))), dlim[1], off_scale)
    axes[0, 0].set_title("ε′ / exact optimal ε′")
    axes[0, 1].set_title("δ′ / exact optimal δ at that ε′ (scale per row; shaded below 1: not valid)")
    for ax in axes[-1]:
        ax.set_xlabel("number of steps T")
    for ax in axes.flat:
        _t_axis(ax, curve)
    top_hi = max(1.05, float(np.nanmax([axes[i, 0].dataLim.y1 for i in range(n)])) * 1.04)
    axes[0, 0].set_ylim(0.97, top_hi)
    step = round((top_hi - 1.0) * 0.75, 1) / 2 or (top_hi - 1.0) / 2  # three round ticks from 1
    axes[0, 0].set_yticks(np.round([1.0, 1.0 + step, 1.0 + 2 * step], 2))
    equal = "equals Kairouz's" if same else "differs from Kairouz's"
    _title(fig, _verdict(len(bad), len(he), f"He's ε′ {equal}, but (ε′, δ′) is not a valid guarantee",
                         f"He's ε′ {equal}, and (ε′, δ′) is a valid guarantee"),
           f"T-fold composition of (ε, δ)-DP steps against the exact optimum, {_settings(cells, dt)}")
    legend_below(fig, axes, ncol=2)
    return fig


def _zoom_ticks(ax, lo: float, hi: float) -> None:
    """Round y ticks, 3 to 5 of them, on a panel zoomed to (``lo``, ``hi``) around the line at 1 (1 among them)."""
    steps = [m * 10.0**e for e in range(-4, 4) for m in (1, 2, 5)]  # 1-2-5 steps over any range a config gives
    step = next((s for s in steps if (hi - lo) / s <= 4.5), (hi - lo) / 4)
    k = np.arange(np.ceil((lo - 1.0) / step - 1e-9), np.floor((hi - 1.0) / step + 1e-9) + 1)
    ax.set_yticks(np.round(1.0 + k * step, 6))  # within the panel: none in the off-scale strip above


def _lowest_label(ax, ratio: pd.Series):
    """Write He's lowest ratio (``ratio`` indexed by T: δ′/floor or δ′/exact) beside its point: a ring near the line
    at 1 cannot show how far below it is."""
    if len(ratio):
        T = ratio.idxmin()
        ax.annotate(f"{ratio[T]:.4g}", (T, ratio[T]), xytext=(2, -11), textcoords="offset points", ha="right",
                    va="top", fontsize=SIZES["note"], color=COLORS["violation"])  # the rings' colour


#: A panel's dip below the floor, as a fraction of its height, under which an inset magnifies it.
DIP_SEEN = 0.03


def _dip_inset(ax, he: pd.DataFrame, kairouz: pd.DataFrame, bad: pd.DataFrame) -> None:
    """A linear inset (upper left, at the small T where the panel is empty) around the floor at the failing T: He's
    points below it, ringed, the deepest value written, Kairouz's diamonds and the exact stars as in the panel."""
    inset = ax.inset_axes([0.13, 0.4, 0.27, 0.32])  # upper left: small T, between the floor's stars and the strip
    inset.set_zorder(30)  # above the panel's own markers
    dip = 1.0 - float(bad.delta_over_floor.min())
    lo, hi = 1.0 - 2.6 * dip, 1.0 + 1.6 * dip
    t_lo, t_hi = float(bad["T"].min()) / 2.5, float(bad["T"].max()) * 1.8
    inset.axhspan(lo, 1.0, **SHADE)
    inset.axhline(1.0, color=COLORS["reference"], lw=1.2)
    near = lambda frame: frame[(frame["T"] >= t_lo / 2) & (frame["T"] <= t_hi)]
    h, k = near(he), near(kairouz)
    inset.plot(h["T"], h.delta_over_floor, **_draw("he", **HE))
    inset.plot(k["T"] * KAIROUZ_DODGE, k.delta_over_floor, **_draw("kairouz", **KAIROUZ))
    inset.plot(h["T"], h.exact_delta_at_eps_prime / h.delta_floor, **_draw("exact_optimal", **EXACT))
    ring(inset, bad["T"], bad.delta_over_floor, size=RING_SIZE * 0.6, label=None)
    _lowest_label(inset, bad.set_index("T").delta_over_floor)
    inset.set(xscale="log", xlim=(t_lo, t_hi * KAIROUZ_DODGE), ylim=(lo, hi))
    from matplotlib.ticker import NullLocator

    ts = sorted(bad["T"])
    inset.set_xticks(ts, [tex_number(t) for t in ts])  # ticked at the failing T only: room for their labels
    inset.xaxis.set_minor_locator(NullLocator())
    _zoom_ticks(inset, lo, hi)
    inset.tick_params(labelsize=9)
    inset.set_title("near the floor, magnified", fontsize=9.5)
    inset.set_facecolor("white")


def composition_delta_figure(table: pd.DataFrame, params: dict):
    """δ′ / floor 1−(1−δ)^T on a linear axis against T for He's Corollary 2 and Kairouz et al., with the exact optimal
    δ at He's ε′, one panel per (δ > 0, ε) in rows of two; the floor is the least δ′ any valid guarantee can have
    (shaded below), so He's points under it are ringed (the he-above-floor claim). Title: at how many drawn points."""
    dt = float(params["delta_tilde"])
    cells = _cells(params)
    deltas = {d for d, _ in cells}
    shown = table[(table.delta_tilde == dt) & table.delta.isin(deltas)]
    he = shown[shown.method == "he"]
    bad = he[~he.valid.astype(bool)]
    low = min(1.0, float(np.nanmin(he.delta_over_floor))) if len(he) else 1.0
    span = max(1.0 - low, 0.02)
    top = 1.0 + 0.9 * span  # shared by the panels; above it: where δ̃ dominates (each panel's bottom: its own dip)
    exact = he.exact_delta_at_eps_prime / he.delta_floor
    on_floor = len(exact) and np.allclose(exact, 1.0, rtol=1e-3)
    exact_label = f"exact optimal δ at He's ε′ ({KOV})" + (": on the floor here" if on_floor else "")
    ncols = min(2, max(1, len(cells)))
    nrows = -(-max(1, len(cells)) // ncols)
    fig, grid = plt().subplots(nrows, ncols, figsize=(MAX_WIDTH, 2.45 * nrows + 2.0), squeeze=False, sharex=True)
    axes = list(grid.flat)
    for ax, (delta, eps) in zip(axes, cells):
        c = shown[(shown.eps == eps) & (shown.delta == delta)]
        h, k = c[c.method == "he"], c[c.method == "kairouz"]
        cell_low = min(1.0, float(h.delta_over_floor.min())) if len(h) else 1.0  # each panel down to its own dip
        bottom = 1.0 - 2.0 * max(1.0 - cell_low, 0.04)  # room under the dip for its value label
        ax.set_ylim(bottom, top)
        _zoom_ticks(ax, bottom, top)
        off_scale = ceiling_band([ax], top, top - bottom)
        ax.axhspan(bottom, 1.0, **SHADE)
        ax.axhline(1.0, color=COLORS["reference"], lw=1.2, label=f"floor {FLOOR}: no valid δ′ below (shaded)")
        inside = lambda v: v.where(v <= top)  # above the top: a ▲ in the off-scale strip (_above_marks)
        ax.plot(h["T"], inside(h.delta_over_floor), **_draw("he", **HE))
        ax.plot(k["T"] * KAIROUZ_DODGE, inside(k.delta_over_floor), **_draw("kairouz", **KAIROUZ))
        ax.plot(h["T"], h.exact_delta_at_eps_prime / h.delta_floor, **_draw("exact_optimal", **EXACT,
                                                                            label=exact_label))
        b = bad[(bad.eps == eps) & (bad.delta == delta)]
        ring(ax, b["T"], b.delta_over_floor, size=RING_SIZE, label="claim does not hold here: He's δ′ below the floor")
        if len(b) and 1.0 - cell_low < DIP_SEEN * (top - bottom):  # a dip too shallow to see: magnified
            _dip_inset(ax, h, k, b)
        else:
            _lowest_label(ax, b.set_index("T").delta_over_floor)
        both = pd.concat([h, k])
        _above_marks(ax, both, both.delta_over_floor, top, off_scale)
        ax.set_title(_cell_name(delta, eps, deltas))
    for ax in axes[len(cells):]:
        ax.set_visible(False)
    for ax in grid[:, 0]:
        ax.set_ylabel(f"δ′ / floor {FLOOR}")
    for ax in grid[-1]:
        ax.set_xlabel("number of steps T")
    for ax in axes:
        _t_axis(ax, table)
    _title(fig, _verdict(len(bad), len(he), f"He's δ′ is below the floor {FLOOR} that no valid δ′ can undercut,",
                         f"He's δ′ is at least the floor {FLOOR}"),
           f"δ′ of T-fold composition relative to the floor (each panel its own y range), {_settings(cells, dt)}")
    legend_below(fig, axes, ncol=2)
    return fig
