"""Figures of he-composition-eps and he-composition-delta (tables and claims: :mod:`.he_composition`), drawn at
``composition.delta_tilde``."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from adaptive_repro.outputs.he_common import plt

METHOD_STYLE = {
    "naive": dict(color="0.5", ls=":", marker="", label="naive T eps"),
    "drv": dict(color="tab:orange", ls="--", marker="", label="Dwork-Rothblum-Vadhan"),
    "kairouz": dict(color="tab:green", ls="-", marker="", lw=3, alpha=0.5, label="Kairouz et al. (as He quotes)"),
    "he": dict(color="tab:blue", ls="-", marker="", label="He Thm 4 / Cor 2"),
    "he_cor3": dict(color="tab:purple", ls="-.", marker="", label="He Cor 3 (as printed)"),
    "he_cor3_derived": dict(color="tab:pink", ls="--", marker="", label="He Cor 3, delta'' from its derivation"),
    "exact_optimal": dict(color="k", ls="-", marker="o", ms=3, label="exact optimal eps' (KOV Thm 3.3)"),
    "exact_at_he": dict(color="k", ls="", marker="^", ms=4, mfc="none",
                        label="exact optimal delta at He's eps' (KOV Thm 3.3)"),
    "exact_at_cor3": dict(color="k", ls="", marker="o", ms=4, mfc="none",
                          label="exact optimal delta at Cor 3's eps' (KOV Thm 3.3)"),
    "laplace_pld": dict(color="tab:red", ls="", marker="s", ms=5, mfc="none", label="Laplace, PLD accountant"),
    "floor": dict(color="k", ls="-", marker="", lw=1, label="floor 1-(1-delta)^T"),
}

_PLAIN = FuncFormatter(lambda v, _: f"{v:g}")


def _fig_legend(fig, axes, ncol=4):
    handles = {}
    for ax in np.ravel(axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=ncol, fontsize=8,
               bbox_to_anchor=(0.5, 0.0))


def composition_eps_figure(table: pd.DataFrame, curve: pd.DataFrame, params: dict):
    pyplot = plt()
    p = params["composition"]
    dt = float(p["delta_tilde"])
    table = table[table.delta_tilde == dt]
    epss, deltas = p["eps"], p["delta"]
    fig, axes = pyplot.subplots(len(deltas), len(epss), figsize=(3.6 * len(epss), 3.2 * len(deltas) + 0.8),
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
                ax.plot(bad["T"], bad.eps_over_exact, "x", color="red", ms=9, mew=2,
                        label="He Thm 4 / Cor 2 unsound: delta' < exact optimal delta(eps')")
            ax.set(xscale="log", yscale="log", title=f"eps = {eps:g}, delta = {delta:g}")
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(_PLAIN)
            ax.yaxis.set_minor_formatter(NullFormatter())
            if i == len(deltas) - 1:
                ax.set_xlabel("number of steps T")
            if j == 0:
                ax.set_ylabel("eps' / exact optimal eps'")
    _fig_legend(fig, axes)
    fig.suptitle(f"eps' of T-fold composition relative to the exact optimum at delta' = 1-(1-delta)^T(1-delta~), "
                 f"delta~ = {dt:g} (claims: every delta~ of the sweep)", fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 0.97))
    return fig


def composition_delta_figure(table: pd.DataFrame, params: dict):
    pyplot = plt()
    p = params["composition"]
    dt = float(p["delta_tilde"])
    table = table[table.delta_tilde == dt]
    epss = p["eps"]
    pos = [d for d in p["delta"] if d > 0]
    fig, axes = pyplot.subplots(2, len(epss), figsize=(3.6 * len(epss), 7.4), squeeze=False, sharex=True)
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
            ax.axhspan(0.5, 1.0, color="red", alpha=0.08)
            ax.set(xscale="log", yscale="log", title=f"eps = {eps:g}, delta = {delta:g}", ylim=(0.5, 20))
            ax.yaxis.set_major_formatter(_PLAIN)
            ax.yaxis.set_minor_formatter(NullFormatter())
            if j == 0:
                ax.set_ylabel("delta' / floor 1-(1-delta)^T\n(shaded: impossible)")
        ax = axes[1, j]
        c = table[(table.eps == eps) & (table.delta == 0.0)]
        if len(c):
            missing = []
            for m in ["he_cor3", "he_cor3_derived"]:
                s = c[c.method == m].set_index("T").delta_prime
                shown = s.where(s >= ymin)
                ax.plot(shown.index, shown, **METHOD_STYLE[m])
                if shown.notna().sum() == 0:
                    why = "undefined (eps' >= T eps)" if s.isna().all() else f"below {ymin:g}"
                    missing.append(f"{METHOD_STYLE[m]['label']}: {why}")
            s = c[c.method == "he_cor3"].set_index("T")
            ex = s.exact_delta_at_eps_prime.where(s.exact_delta_at_eps_prime >= ymin)
            ax.plot(ex.index, ex, **METHOD_STYLE["exact_at_cor3"])
            ax.axhline(dt, color="tab:green", lw=1, ls="--", label="delta~ (Thm 4 / Kairouz delta')")
            if missing:
                ax.text(0.03, 0.04, "\n".join(missing), transform=ax.transAxes, fontsize=7, va="bottom",
                        bbox=dict(facecolor="white", alpha=0.8, lw=0))
            ax.set(xscale="log", yscale="log", xlabel="number of steps T", title=f"eps = {eps:g}, delta = 0")
            ax.set_ylim(bottom=ymin, top=1)
            if j == 0:
                ax.set_ylabel("delta'")
    _fig_legend(fig, axes, ncol=3)
    fig.suptitle(f"delta' of T-fold composition (delta~ = {dt:g}); top: relative to the floor, bottom: pure DP",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.12, 1, 0.97))
    return fig
