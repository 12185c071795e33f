"""he-sgld and he-federated: He Theorem 7 (SGLD, Algorithm 1) and Theorem 8 (DP federated learning, Algorithm 2),
both of the form of :func:`adaptive_repro.bounds.hea.subsampled_composition`, against the exact optimal composition
of their per-step guarantee (2 q eps~, q delta), q = tau/N (KOV 2015 Thm 3.3), at every delta~ of the sweep; plus
Section 5's combination with Theorem 1, the stated rates (Remarks 1/2, Section 5) and Wang et al.'s condition.
build(output_id, params, inputs) -> (table, figure, claims); params: ``theory.he.sgld``/``federated`` plus ``seed``.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from adaptive_repro import groundtruth as gt
from adaptive_repro.bounds import he
from adaptive_repro.bounds import he_applications as hea
from adaptive_repro.bounds import he_generalization as heg
from adaptive_repro.foundation.registry import Claim, check_grid, code_name, format_point
from adaptive_repro.outputs.he.common import (
    HE,
    POWER_TITLE_PT,
    QUOTES,
    claim,
    number_text,
    sigma_colours,
    sigma_marker_size,
    tex_number,
)
from adaptive_repro.outputs.he.proof_checks import eq15_row, per_step_checked, per_step_row
from adaptive_repro.report.plotting import (
    COLORS,
    SHADE,
    SIZES,
    legend_below,
    log_axis,
    ring,
    style,
    verdict_title,
)
from adaptive_repro.report.plotting import pyplot as plt

TOL = 1e-9


def _theorem(which, p, N, T, sigma, dt):
    tau, delta = float(p["tau"]), float(p["delta"])
    if which == "sgld":
        return hea.theorem7_sgld(N, tau, T, p["L"], sigma, delta, dt)
    return hea.theorem8_federated(N, tau, T, sigma, delta, dt)


def wang_delta_tilde(p: dict) -> float:
    """The delta~ of the Wang comparison (row wang-direction): the second value of the sweep, or the only one."""
    dts = list(p["delta_tilde"])
    return float(dts[1] if len(dts) > 1 else dts[0])


def application_table(params: dict, which: str) -> pd.DataFrame:
    """One row per (N, T, sigma, delta_tilde): eps_tilde, per_step_eps = 2 q eps~, eps_prime, m, delta_prime_free
    (additive delta~ = the input), delta_tilde_formula (the displayed delta~) / delta_prime_formula,
    delta_tilde_derived(_2q) / delta_prime_derived(_2q) (the displayed delta~ as Corollary 3's derivation gives it, at
    q eps~ / 2 q eps~), delta_floor = 1 - (1 - q delta)^T, exact_delta_at_eps_prime (KOV 2015 Thm 3.3 for T
    (2 q eps~, q delta)-DP steps), sound* (delta' >= exact), naive_eps = T * per_step_eps, thm1_b and thm1_min_N
    (Theorem 1 at (eps', delta_prime_free)), wang_min_T (Wang et al.'s threshold at eps = eps')."""
    p = params
    rows = []
    for N in p["N"]:
        for T in p["T"]:
            for sigma in p["sigma"]:
                for dt in p["delta_tilde"]:
                    r = _theorem(which, p, N, T, sigma, float(dt))
                    q, delta = float(p["tau"]) / N, float(p["delta"])
                    row = {"N": int(N), "tau": float(p["tau"]), "T": int(T), "sigma": float(sigma), "delta": delta,
                           "delta_tilde": float(dt), **{k: float(v) for k, v in r.items()}}
                    exact = float(gt.kov_delta(row["per_step_eps"], q * delta, int(T), row["eps_prime"]))
                    # Theorem 1 takes an (eps, delta)-DP algorithm: none with delta' > 1
                    e, d, no = row["eps_prime"], row["delta_prime_free"], row["delta_prime_free"] > 1
                    row.update(delta_floor=float(gt.delta_floor(q * delta, T)), exact_delta_at_eps_prime=exact,
                               naive_eps=T * row["per_step_eps"],
                               thm1_b=math.nan if no else float(heg.theorem1_b(e, d)),
                               thm1_min_N=math.nan if no else float(heg.theorem1_min_sample_size(e, d)),
                               wang_min_T=float(hea.wang_sgld_min_T(row["eps_prime"], delta, N, p["tau"])))
                    row["valid"] = row["delta_prime_free"] >= row["delta_floor"]
                    for s in ["free", "formula", "derived", "derived_2q"]:
                        v = row[f"delta_prime_{s}"]
                        row[f"sound_{s}"] = bool(np.isfinite(v) and v >= exact * (1 - TOL))
                    rows.append(row)
    return pd.DataFrame(rows)


def he_max_T(eps_target: float, params: dict, which: str, N: float, sigma: float, dt: float) -> float:
    """Largest (real) T with Theorem 7/8's eps'(T) <= eps_target (eps' increases with T); inf if beyond 1e15."""
    from scipy import optimize

    p = params

    def f(logT):
        return math.log(_theorem(which, p, N, math.exp(logT), sigma, dt)["eps_prime"]) - math.log(eps_target)

    lo, hi = math.log(1e-9), math.log(1e15)
    if f(hi) < 0:
        return math.inf
    if f(lo) > 0:
        return 0.0
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-10))


def wang_direction_table(params: dict, which: str) -> pd.DataFrame:
    """For each target eps (``wang_eps``), N and sigma at :func:`wang_delta_tilde`: He's largest admissible T
    (Theorem 7/8's eps'(T) <= eps) and Wang et al.'s smallest admissible T as He quotes it."""
    p = params
    dt = wang_delta_tilde(p)
    rows = []
    for eps in p["wang_eps"]:
        for N in p["N"]:
            for sigma in p["sigma"]:
                rows.append({"eps_target": float(eps), "N": float(N), "sigma": float(sigma), "delta_tilde": dt,
                             "he_max_T": he_max_T(float(eps), params, which, float(N), float(sigma), dt),
                             "wang_min_T": float(hea.wang_sgld_min_T(eps, p["delta"], N, p["tau"]))})
    return pd.DataFrame(rows)


def _failing_sigma_text(steps: pd.DataFrame) -> str:
    """Where the printed per-step eps~ is below the exact eps, in words: "σ ≤ x" when every checked sigma up to x
    fails (a contiguous range from the smallest), else "k of n σ values"."""
    bad = steps[~steps.ok]
    top = float(bad.sigma.max())
    if bool((~steps.ok[steps.sigma <= top]).all()):
        return f"σ ≤ {top:.3g}"
    return f"{len(bad)} of {len(steps)} σ values"


def application_verdict(table: pd.DataFrame, steps: pd.DataFrame, thm: str) -> str:
    """The figure's one message: is Theorem 7/8's (eps', delta') established by its two steps, the per-step eps~
    (``steps``: :func:`per_step_checked`, the points of row per-step-eps-exact) and the composition (the table's
    ``sound_free``, row sound)? Numbers from the same points as the claims, in one short line."""
    n_bad = int((~table.sound_free.astype(bool)).sum())
    parts = []
    if not steps.ok.all():
        shortfall = 1 - steps.printed / steps.exact_replace_one
        low, at = float(shortfall.max()), float(steps.sigma[shortfall.idxmax()])
        if np.isclose(at, steps.sigma.min()):  # still growing at the scan's edge: a value there, not a maximum
            parts.append(f"ε̃ below the exact ε at {_failing_sigma_text(steps)}, by {100 * low:.2g}% at the "
                         f"scan's smallest σ = {at:.2g}")
        else:
            parts.append(f"ε̃ up to {100 * low:.2g}% below the exact ε at {_failing_sigma_text(steps)}")
    if n_bad:
        short = float((1 - table.delta_prime_free / table.exact_delta_at_eps_prime).max())
        parts.append(f"δ′ up to {100 * short:.2g}% below the exact δ at {n_bad} of {len(table)} points (all N)")
    if not parts:
        return f"{thm}'s per-step ε̃ and δ′ are at least the exact values at every point checked"
    return f"{thm} is not established: " + ",\n".join(parts)


#: Least top of the left panel (printed / exact per-step ε): the line at 1 with room above it.
PER_STEP_TOP = 1.6
#: Legend label of the shading, one meaning in every panel (left: printed / exact per-step eps below 1; right:
#: delta' short of the exact delta, above 0).
SHADE_LABEL = "shaded: the claim does not hold for a point here"


def per_step_panel(ax, steps: pd.DataFrame, sigma_colours: dict, unit: str = "step") -> None:
    """Step 1: printed per-step eps~ over the exact eps of one Gaussian step against sigma (scan: He's line for the
    paper's replace-one neighbours, faint for add/remove; configured sigma: markers in their sigma colours); ratios
    below 1 fail (shaded), and the largest failing sigma of a contiguous failing range is named below the crossing."""
    scan, grid = steps[steps.scan], steps[~steps.scan]
    he_colour = style("he")["color"]
    lo, hi = float(scan.sigma.min()) / 1.25, float(scan.sigma.max()) * 1.25
    ax.axhspan(0, 1, **SHADE, label=SHADE_LABEL)
    ax.axhline(1, color=COLORS["reference"], lw=1.2)
    positive = lambda exact: exact.where(exact > 0)  # exact eps~ = 0 (delta alone covers the step): no ratio
    ratio = scan.printed / positive(scan.exact_replace_one)
    ax.plot(scan.sigma, ratio, color=he_colour, gid="encoding:he",
            label="printed ε̃ / exact ε, replace-one neighbours (the paper's)")
    faint = scan.printed / positive(scan.exact_add_remove)  # the paper's curve sets the range, with the faint low end
    ax.plot(scan.sigma, faint, color=he_colour, alpha=0.4, lw=1.4,
            label=f"the same, add/remove neighbours (faint; {faint.min():.2g} to {faint.max():.2g})")
    for r in grid[grid.exact_replace_one > 0].itertuples():
        ax.plot([r.sigma], [r.printed / r.exact_replace_one], "o", ms=7, color=sigma_colours[r.sigma], zorder=25)
        if r.printed / r.exact_replace_one < 1:  # the claim fails at this configured sigma
            ring(ax, r.sigma, r.printed / r.exact_replace_one, label="claim does not hold here", size=110)
    text = _failing_sigma_text(steps) if not steps.ok.all() else ""
    if text.startswith("σ ≤"):  # a contiguous failing range: name where it ends, below the line at 1
        top = float(steps.sigma[~steps.ok].max())
        right_half = np.log(top / lo) / np.log(hi / lo) > 0.6  # little room to its right: write it to the left
        ax.text(top, 1.04, text, ha="right" if right_half else "center", va="bottom", fontsize=SIZES["note"])  # above
        # the end of the failing range and its tick, clear of the configured sigma's dots below the line
        ax.plot([top], [1.0], marker="|", ms=14, mew=2, color="black", zorder=6)  # the end of the failing range
    ax.set(xscale="log", xlabel="noise σ", ylabel=f"printed ε̃ / exact ε of one {unit}", xlim=(lo, hi))
    ax.set_title(f"one {unit}", fontsize=SIZES["title"])
    low, high, faint_low = (float(v) if np.isfinite(v) else d for v, d in  # pandas skips NaN (all NaN: the default)
                            ((ratio.min(), 1.0), (ratio.max(), 0.0), (faint.min(), 0.0)))
    ax.set_ylim(max(0.0, np.floor(10 * low - 1.5) / 10), max(PER_STEP_TOP, high * 1.12, faint_low * 1.15))
    log_axis(ax, "x")


def _shown_delta_tildes(table: pd.DataFrame) -> list[float]:
    """The delta~ with a failing composition point (drawn), or the smallest delta~ if none fails."""
    bad = sorted(table.delta_tilde[~table.sound_free.astype(bool)].unique())
    return [float(d) for d in bad] or [float(table.delta_tilde.min())]


#: Line style and marker of each drawn delta~ (smallest first) on the composition panels: a point without its line
#: (neighbours off the panel) still says its delta~ by its marker.
DT_STYLES = ["-", "--", ":", "-."]
DT_MARKERS = ["o", "s", "D", "v"]
#: Half-height of a composition panel's y range around 0, in multiples of its largest shortfall (at least 1e-3 %).
HALF_RANGE = 1.35
#: The axis reaches this factor beyond the half-height, so a point at the top keeps its whole marker in view.
TOP_ROOM = 1.1
#: Factor in T between the drawn delta~ (paired points at one T stay apart), and between neighbouring σ within one.
DODGE, SIGMA_DODGE = 1.3, 1.1


def composition_panel(ax, table: pd.DataFrame, sigma_colours: dict, unit: str = "iterations") -> dict:
    """Step 2 at the N with the largest shortfall (returns the other N -> their largest shortfall in %, for the
    legend): delta' over the exact delta(eps') of T (2 q eps~, q delta)-DP steps (KOV 2015 Thm 3.3), in percent, on a
    linear axis around 0; below 0 fails row sound (shaded). Colour = sigma, line style and marker = delta~ (a little
    apart in T); a value above the top is a triangle on the top edge."""
    t = table.assign(excess=100 * (table.delta_prime_free / table.exact_delta_at_eps_prime - 1))
    dts = _shown_delta_tildes(table)
    shown_all = t[t.delta_tilde.isin(dts)]
    shortfall = (-shown_all.groupby("N").excess.min()).clip(lower=0)
    N = float(shortfall.idxmax())
    shown = shown_all[shown_all.N == N]
    short = float(shortfall.loc[N])
    half = HALF_RANGE * max(short, 1e-3)
    ax.axhspan(-half * TOP_ROOM, 0, **SHADE)
    ax.axhline(0, color=COLORS["reference"], lw=1.2)
    for (dt, sigma), g in shown.groupby(["delta_tilde", "sigma"]):
        g = g.sort_values("T")
        i = dts.index(dt)
        rank = sorted(sigma_colours).index(sigma)  # small σ largest, below; each σ a little apart in T as well
        x = g["T"] * DODGE ** (i - (len(dts) - 1) / 2) * SIGMA_DODGE ** (rank - (len(sigma_colours) - 1) / 2)
        colour, ls, marker = sigma_colours[sigma], DT_STYLES[i % len(DT_STYLES)], DT_MARKERS[i % len(DT_MARKERS)]
        ms = sigma_marker_size(rank, len(sigma_colours))
        ax.plot(x, g.excess.where(g.excess <= half), color=colour, ls=ls, marker=marker, lw=1.3, ms=ms, zorder=4 + rank)
        failing = g.excess < 0  # the claim fails at these points: ringed, as in every figure, its marker drawn above
        ring(ax, x[failing], g.excess[failing], label="claim does not hold here", size=190)  # (a square stays square)
        ax.plot(x[failing], g.excess[failing], ls="", marker=marker, color=colour, ms=ms, zorder=21, gid="above-ring")
    above = sorted(set(shown["T"][shown.excess > half]))
    if above:  # one grey triangle per T with a point above the top, whatever its sigma and delta~
        ax.plot(above, [half * TOP_ROOM] * len(above), ls="", marker="^", ms=6, color=COLORS["reference"], zorder=9)
    ax.set(xscale="log", xlabel=f"{unit} T", ylim=(-half * TOP_ROOM, half * TOP_ROOM * 1.04))
    ax.set_xlim(t["T"].min() / 2, t["T"].max() * 2)
    log_axis(ax, "x")
    worst = f"up to {short:.2g}% short" if short > 0 else "no shortfall"
    ax.set_title(f"T {unit}, N = {number_text(N)} (the largest shortfall): {worst}", fontsize=SIZES["title"])
    ax.set_ylabel(f"(δ′ − exact δ) / exact δ of T {unit} (%)")
    return {n: v for n, v in shortfall.items() if n != N}  # the other N, not drawn: the legend names them


def application_figure(table: pd.DataFrame, params: dict, which: str):
    """Theorem 7/8 checked step by step against exact accounting: left, the printed per-step eps~ against the exact
    eps of one Gaussian step (row per-step-eps-exact); right, delta' over the exact composition of T steps at the
    theorem's eps' (row sound) at the N with the largest shortfall. Verdict title with the sizes of both failures;
    sigma has one colour in both panels, shading one meaning (the claim fails there)."""
    pyplot = plt()
    p = params
    thm = "Theorem 7" if which == "sgld" else "Theorem 8"
    steps = per_step_checked(params, which)
    dts = _shown_delta_tildes(table)
    sigmas = sorted(float(s) for s in p["sigma"])
    colours = sigma_colours(sigmas)
    fig = pyplot.figure(figsize=(9.8, 5.0))
    grid = fig.add_gridspec(1, 2, width_ratios=[1, 1.35])
    left, right = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    per_step_panel(left, steps, colours, "step" if which == "sgld" else "round")
    others = composition_panel(right, table, colours, "iterations" if which == "sgld" else "rounds")
    setting = (f"{'SGLD' if which == 'sgld' else 'federated learning'}: τ = {number_text(p['tau'])}, "
               f"δ = {tex_number(p['delta'])}" + (f", L = {number_text(p['L'])}" if which == "sgld" else "")
               + ", q = τ/N")
    verdict_title(fig, application_verdict(table, steps, thm), setting).set_fontsize(POWER_TITLE_PT)
    first = [h for h in left.get_legend_handles_labels()[0] if h.get_label() != "claim does not hold here"]
    rings = [c for ax in [left, right] for c in ax.collections if c.get_gid() == "encoding:violation"]
    first += [copy.copy(rings[0])] if rings else []  # one entry: the report's ring, its label as drawn
    second = [Line2D([], [], color=c, lw=2, marker="o", ms=sigma_marker_size(i, len(colours)),
                     label=f"σ = {number_text(s)}") for i, (s, c) in enumerate(colours.items())]
    third = [Line2D([], [], color="black", lw=1.3, ls=DT_STYLES[i % len(DT_STYLES)], marker=DT_MARKERS[i % 4], ms=5,
                    label=f"δ̃ = {number_text(d)}") for i, d in enumerate(dts)]
    third.append(Line2D([], [], ls="", marker="^", ms=6, color=COLORS["reference"],
                        label="a point above the panel's top (any σ)"))
    rest = sorted(set(table.delta_tilde) - set(dts))
    words = []  # what is not drawn, in one entry
    if rest:  # no failing point there
        low = float((table.delta_prime_free / table.exact_delta_at_eps_prime)[table.delta_tilde.isin(rest)].min())
        words.append("δ̃ = " + ", ".join(number_text(d) for d in rest) + f" (δ′ ≥ {low:.3g} × exact)")
    if others:  # the other N: the same shape, smaller
        words.append("N = " + ", ".join(number_text(n) for n in others) + " (" + ", ".join(
            f"≤ {v:.2g}%" if v > 0 else "none" for v in others.values()) + " short)")
    if words:
        third.append(Line2D([], [], ls="", label="not drawn: " + ";\n".join(words)))
    rows = max(map(len, (first, second, third)))
    blank = Line2D([], [], ls="", label=" ")
    handles = [h for column in (first, second, third) for h in column + [blank] * (rows - len(column))]
    legend_below(fig, handles=handles, labels=[h.get_label() for h in handles], ncol=3)
    return fig


def _slopes(table, value, over, by):
    """Least-squares slope of log(value) against log(over) within each group of ``by`` (nan-free groups)."""
    rows = []
    for key, g in table.groupby(by):
        g = g[np.isfinite(g[value]) & (g[value] > 0)]
        if g[over].nunique() >= 2:
            rows.append(dict(zip(by, key), slope=float(np.polyfit(np.log(g[over]), np.log(g[value]), 1)[0])))
    return pd.DataFrame(rows, columns=[*by, "slope"])


def _floor_note(td, s):
    bad = td[~td[f"sound_{s}"]]
    n = int((bad[f"delta_prime_{s}"] < bad.delta_floor).sum())
    return (f"{n}/{len(bad)} failing points are below the floor 1-(1-q delta)^T, i.e. fail whatever delta~ is "
            "(the Corollary 2 part of delta' is below the floor there)")


def application_claims(table: pd.DataFrame, params: dict, which: str) -> list[Claim]:
    oid = "he-sgld" if which == "sgld" else "he-federated"
    thm = "Theorem 7" if which == "sgld" else "Theorem 8"
    src = f"{HE}, {thm}"
    code = code_name(hea.theorem7_sgld if which == "sgld" else hea.theorem8_federated)
    g = ["N", "T", "sigma", "delta_tilde"]
    keys = g + ["eps_prime", "delta_prime_free", "exact_delta_at_eps_prime"]
    t = table
    cl = [
        claim(oid, "eps-le-naive", "project", f"{src} vs basic composition (Dwork & Roth 2014, Thm 3.16)",
              f"{thm}'s eps' is at most T times the per-step level 2 q eps~ (basic composition)", "eps' <= T 2 q eps~",
              t.eps_prime <= t.naive_eps * (1 + 1e-12), t, g + ["eps_prime", "naive_eps"], code=code,
              note=f"loose is not invalid: at small T (T < 8 log(1/delta~)) {thm}'s eps' exceeds basic composition, "
                   "which is also valid, so the smaller of the two can be used; He's Theorem 4 has T eps in its "
                   f"min, {thm} does not"),
        claim(oid, "delta-above-floor", "project", src, f"a question of this project: is {thm}'s delta' "
              "(additive delta~ = the free delta~) at least 1-(1-q delta)^T, the floor below which no valid delta' "
              "exists for T generic (., q delta)-DP steps?", "delta' >= floor", t.valid, t,
              g + ["delta_prime_free", "delta_floor"], code=code,
              note=f"this tests the composition step He's proof applies to generic (2 q eps~, q delta)-DP steps, not "
                   f"{thm} itself: the floor needs steps with a catastrophic event of probability q delta, and "
                   "(subsampled) Gaussian steps of SGLD have none, so the theorem's numbers can still hold for the "
                   "algorithm; a failure here is a gap in the proof, not a counter-example to the theorem"),
        claim(oid, "sound", "project", f"{src} (ground truth KOV 2015 Thm 3.3)",
              f"a question of this project: is {thm}'s (eps', delta'), with the free delta~ as additive term "
              "(Theorem 4 / Corollary 2 reading), a valid composition of T generic (2 q eps~, q delta)-DP steps?",
              "delta' >= exact delta(eps')", t.sound_free, t, keys, code=code,
              note=f"{int((~t.valid).sum())} points below the floor; this checks the composition step He's proof "
                   f"applies to the per-step guarantee, not whether the algorithm itself is (eps', delta')-DP "
                   "(Gaussian steps have no catastrophic event; their true delta can be far smaller)"),
    ]
    dfd = np.isfinite(t.delta_tilde_formula)
    cl.append(claim(oid, "delta-tilde-defined", "project", src,
                    f"{thm}'s displayed delta~ is defined (eps' < q T eps~, which needs T > 8 log(1/delta~) roughly); "
                    "undefined points are excluded from the rows below", "finite", dfd, t, g + ["eps_prime"],
                    code=code_name(he.he_corollary3_log_delta_pp)))
    td = t[dfd].reset_index(drop=True)
    cl.append(claim(oid, "delta-tilde-consistent", "project", src,
                    "where the displayed delta~ (a function of eps') is defined, it does not exceed the delta~ used "
                    "inside eps' (the circular definition is self-consistent)", "formula <= input delta~",
                    td.delta_tilde_formula <= td.delta_tilde * (1 + 1e-12), td,
                    g + ["delta_tilde_formula"], code=code_name(hea.subsampled_composition)))
    k2 = g + ["eps_prime"]
    cl.append(claim(oid, "sound-delta-tilde-as-printed", "project", f"{src} (ground truth KOV 2015 Thm 3.3)",
                    f"a question of this project: with the displayed delta~ as additive term (Corollary 3 reading), is "
                    f"{thm}'s (eps', delta') a valid composition of T generic (2 q eps~, q delta)-DP steps (where "
                    "delta~ is defined)? (the composition step of the proof, not the algorithm itself)",
                    "delta' >= exact delta(eps')", td.sound_formula, td,
                    k2 + ["delta_prime_formula", "exact_delta_at_eps_prime"],
                    code=code_name(hea.subsampled_composition), quote=QUOTES["delta_tilde"],
                    note=_floor_note(td, "formula") + "; the displayed delta~ inherits Corollary 3's exponent sign "
                         "(row cor3-exponent-vs-derivation of he-composition-delta) and uses q eps~ where eps' uses "
                         "2 q eps~"))
    for s, lvl in [("derived", "q eps~ (as displayed)"), ("derived_2q", "2 q eps~ (the level eps' and m use)")]:
        cl.append(claim(oid, f"sound-delta-tilde-sign-corrected{'-2q' if s.endswith('2q') else ''}", "project",
                        f"{src} with Corollary 3's derivation (App. B.4 eqs. (36)-(37))",
                        f"with the displayed delta~ re-derived from eqs. (36)-(37) (exponent +(eps'+qT eps~)/2) at "
                        f"per-step level {lvl}, {thm}'s (eps', delta') is valid", "delta' >= exact delta(eps')",
                        td[f"sound_{s}"], td, k2 + [f"delta_prime_{s}", "exact_delta_at_eps_prime"],
                        code=code_name(he.he_corollary3_delta_pp_derived), note=_floor_note(td, s)))
    ok = (t.eps_prime < 2) & (t.N >= t.thm1_min_N)
    cl.append(claim(oid, "theorem1-precondition", "project", f"{HE}, Section 5 ({thm} combined with Theorem 1)",
                    f"Theorem 1 applies at {thm}'s (eps', delta') (free delta~): N >= 2/eps'^2 ln(16/(e^-eps' delta')) "
                    "and eps' < 2 (b > 0)", "precondition met", ok, t, g + ["eps_prime", "thm1_min_N"],
                    code=code_name(heg.theorem1_min_sample_size), quote=QUOTES["combine"],
                    note=f"the bound is also vacuous (a = 9 eps' >= 1) at {int((9 * t.eps_prime >= 1).sum())}/{len(t)} "
                         "points; eps' shrinks like 1/N, so the required N grows like N^2 and the precondition "
                         "fails at large N and small T"))
    sN = _slopes(t, "eps_prime", "N", ["T", "sigma", "delta_tilde"])
    sT = _slopes(t, "eps_prime", "T", ["N", "sigma", "delta_tilde"])
    rq = QUOTES["remark" if which == "sgld" else "remark2"]
    slopes = pd.DataFrame({"over": ["N"] * len(sN) + ["T"] * len(sT),
                           "group": [format_point(r, ["T", "sigma", "delta_tilde"]) for _, r in sN.iterrows()]
                           + [format_point(r, ["N", "sigma", "delta_tilde"]) for _, r in sT.iterrows()],
                           "slope": np.r_[sN.slope.values, sT.slope.values]})
    rem = f"Remark {1 if which == 'sgld' else 2}"
    cl.append(claim(oid, "rate-a-remark", "paper", f"{HE}, {rem}",
                    f"the accuracy term a = 9 eps' of {thm} combined with Theorem 1 is O(T/sqrt(N)): fitted log-log "
                    "slope in N <= -1/2 and in T <= 1 on the grid", "slope_N <= -1/2, slope_T <= 1",
                    np.r_[sN.slope.values <= -0.5, sT.slope.values <= 1 + 1e-9], slopes, ["over", "group", "slope"],
                    code=code, quote=rq, strength="identity",
                    note="identity: the terms of 9 eps' scale as sqrt(T)/N and T/N^2, so the slopes lie in [-2, -1] "
                         "and [1/2, 1] for every parameter; "
                         f"slopes in N {sN.slope.min():.3g}..{sN.slope.max():.3g}, in T {sT.slope.min():.3g}.."
                         f"{sT.slope.max():.3g}: the formula gives about sqrt(T)/N, smaller than the stated rate"))
    cl.append(claim(oid, "rate-a-section5", "paper", f"{HE}, Section 5 (introduction)",
                    f"at fixed T, the accuracy term 9 eps' of {thm} is O(sqrt(log N/N)): fitted slope in N <= -1/2",
                    "slope_N <= -1/2", sN.slope.values <= -0.5, sN, ["T", "sigma", "delta_tilde", "slope"], code=code,
                    quote=QUOTES["sec5"], strength="identity",
                    note="identity: at fixed T the terms of 9 eps' scale as 1/N and 1/N^2, slopes in N between -2 and "
                         "-1 for every parameter; "
                         f"Section 5's rate has no T, {rem}'s grows linearly in T: the two agree only at fixed T"))
    bN = _slopes(t, "thm1_b", "N", ["T", "sigma", "delta_tilde"])
    fixed = check_grid(bN.slope.values <= 0, bN, ["T", "sigma", "delta_tilde", "slope"])
    cl.append(Claim(output_id=oid, claim_id="rate-b-fixed-delta", kind="paper", source=f"{HE}, {rem} (failure "
                    "probability)", quote=rq, code=code_name(heg.theorem1_b),
                    claim=f"{rem}'s failure probability 1 - O(T/sqrt(N)): Theorem 1's b = e^-eps' delta'/eps' "
                    "ln(2/eps') at the theorem's (eps', delta') is O(T/sqrt(N)). The remark leaves delta and delta~ "
                    "free (it does not say how they scale with N; the theorem's displayed delta~ ties it to eps' but "
                    "eps' takes delta~ as an input), so the statement has no checkable reading: not applicable. "
                    "Measured for information at delta, delta~ held fixed (fitted slope of b in N)",
                    expected="slope_N <= 0 if delta, delta~ were meant fixed", status="not applicable",
                    measured=f"with delta, delta~ fixed: {fixed.measured}; slopes in N {bN.slope.min():.3g}.."
                    f"{bN.slope.max():.3g}: b increases with N because delta' >= delta~ stays fixed while eps' ~ 1/N, "
                    "so the rate needs delta~ (and delta) decreasing in N, which the remark does not specify",
                    counterexample=""))
    if which == "sgld":
        w = wang_direction_table(params, which)
        w = w[w.sigma == params["sigma"][0]].reset_index(drop=True)
        cl.append(claim(oid, "wang-direction", "project", f"{HE}, Section 5.1 (Wang et al. [68] as He quotes it)",
                        "at a fixed privacy target eps, Wang et al.'s condition T > eps^2 N/(32 tau log(2/delta)) (as "
                        "He quotes it) bounds T from below while Theorem 7 (eps' increasing in T) bounds T from above; "
                        "He only quotes the condition and does not compare", "opposite directions",
                        np.isfinite(w.he_max_T) & (w.wang_min_T > 0), w, ["N", "eps_target", "wang_min_T", "he_max_T"],
                        code=code_name(hea.wang_sgld_min_T), strength="identity",
                        note="a question of this project, not a claim of He; identity: Theorem 7's eps' increases in T "
                             "for every parameter (each of its terms does) and Wang's condition is a lower bound on T, "
                             "so the directions are opposite wherever both are finite"))
    return cl + [per_step_row(oid, params, which, table)] + ([eq15_row(oid, table)] if which == "federated" else [])


def build(output_id: str, params: dict, inputs: dict | None = None):
    """(table, figure, claims) of he-sgld or he-federated."""
    which = {"he-sgld": "sgld", "he-federated": "federated"}.get(output_id)
    if which is None:
        raise ValueError(f"he.applications builds he-sgld and he-federated, not {output_id!r}")
    t = application_table(params, which)
    return t, application_figure(t, params, which), application_claims(t, params, which)
