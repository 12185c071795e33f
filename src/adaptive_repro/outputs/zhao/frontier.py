"""zhao-frontier: the fraction of candidate attribute queries Algorithm 1 answers, against n (docs/METHODS.md §4a).

The figure draws the n at which 90% are answered (measured: a grid point) beside the analytic requirement from the
budget-consumption law and Theorem 2's sample-size requirement. Derivation
(re-derived here; Zhao 2017 Algorithm 1 lines 2, 6-8): while the threshold T_hat = T + delta (delta ~ Lap(sigma))
is fixed, a query with gap g = |Q(X) - Q(D)| spends budget iff gamma > T_hat - g, gamma ~ Lap(2 sigma), with
probability p(x) = 1/2 e^{-x/(2 sigma)} for x = T_hat - g >= 0 and 1 - 1/2 e^{x/(2 sigma)} for x < 0. The number of
queries up to and including the one that spends is geometric with mean 1/p, and line 8 redraws delta after it, so
the expected number of queries per unit of budget is L = E_delta[1/p(T + delta - g)]. With t = (T - g)/sigma >= 0
and u = delta/sigma ~ Lap(1):
  u >= 0:       int_0^inf e^{-u} e^{(t+u)/2} du                       = 2 e^{t/2}
  -t <= u < 0:  int_{-t}^0 e^{u} e^{(t+u)/2} du                       = (2/3)(e^{t/2} - e^{-t})
  u < -t:       1/2 e^{-t} int_{-inf}^0 e^{v} / (1 - 1/2 e^{v/2}) dv  = (4 ln 2 - 2) e^{-t}   (w = e^{v/2})
so L(t) = (8/3) e^{t/2} + (4 ln 2 - 8/3) e^{-t} (L(0) = 4 ln 2 = 2.77). B units of budget answer about B L(t)
queries: the expected answered fraction of m candidate queries is min(1, B L(t)/m), with sigma = 9B/(4 n eps_dp)
(Zhao §3) and T = t_T / (2 sqrt(n)), so t = (t_T - g_u) 2 sqrt(n) eps_dp / (9B) with g_u the gap in units of
1/(2 sqrt(n)). The analytic requirement n_90 solves B L(t) = 0.9 m (with the measured mean gap and candidate count).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from adaptive_repro import privacy
from adaptive_repro.bounds import zhao as zb
from adaptive_repro.foundation.registry import Claim, check_grid, code_name
from adaptive_repro.report.plotting import (
    COLORS,
    legend_below,
    log_axis,
    panel_grid,
    ring,
    style,
    verdict_title,
)

TARGET = 0.9


def queries_per_budget(t):
    """L(t) = (8/3) e^{t/2} + (4 ln 2 - 8/3) e^{-t}: expected queries answered per unit of Algorithm 1's budget at
    t = (T - gap)/sigma >= 0 (module docstring)."""
    t = np.minimum(np.asarray(t, dtype=float), 1400.0)  # beyond: inf-free, every fraction is 1 anyway
    return 8.0 / 3.0 * np.exp(t / 2.0) + (4.0 * np.log(2.0) - 8.0 / 3.0) * np.exp(-t)


def analytic_fraction(n, eps_dp, budget, candidates, gap_units, threshold_units):
    """min(1, B L(t) / m) with t = (t_T - g_u) 2 sqrt(n) eps_dp / (9 B) (module docstring); t < 0 -> L(0)."""
    t = np.maximum((threshold_units - gap_units) * 2.0 * np.sqrt(n) * eps_dp / (9.0 * budget), 0.0)
    return np.minimum(1.0, budget * queries_per_budget(t) / candidates)


def analytic_required_n(eps_dp, budget, candidates, gap_units, threshold_units, target=TARGET) -> float:
    """The n at which B L(t) = target * m (eps_dp taken as constant in n, as Lemma 2's eps' is on this chain)."""
    need = target * candidates / budget
    if need <= queries_per_budget(0.0):
        return 1.0
    from scipy import optimize

    t = optimize.brentq(lambda x: float(queries_per_budget(x)) - need, 0.0, 200.0)
    return float((9.0 * budget * t / (2.0 * eps_dp * (threshold_units - gap_units))) ** 2)


def measured_required_n(grp: pd.DataFrame, target=TARGET) -> float:
    """Smallest grid n from which on the mean answered fraction stays >= target (nan: none)."""
    grp = grp.sort_values("n")
    ok = grp["answered_fraction"].to_numpy() >= target
    for i in range(len(ok)):
        if ok[i:].all():
            return float(grp["n"].iloc[i])
    return np.nan


def frontier_table(records: pd.DataFrame) -> pd.DataFrame:
    keys = ["calibration", "p", "eps", "n"]
    g = records.groupby(keys)
    table = g["answered_fraction"].agg(answered_fraction="mean", replicates="count",
                                       answered_fraction_se=lambda a: float(a.std(ddof=1) / np.sqrt(len(a)))
                                       if len(a) > 1 else np.nan).reset_index()
    extra = g[["d", "budget", "sigma", "threshold", "eps_dp", "candidates", "gap_units", "over_events"]].mean()
    return table.merge(extra.reset_index(), on=keys)


def requirements(table: pd.DataFrame, spec) -> pd.DataFrame:
    """Per (calibration, p, eps): measured and analytic n_90 and Theorem 2's requirement at the config's tau."""
    rows = []
    for (cal, p, eps), grp in table.groupby(["calibration", "p", "eps"]):
        eps_dp = float(grp["eps_dp"].median())
        m, gap = float(grp["candidates"].mean()), float(grp["gap_units"].mean())
        t2 = zb.theorem2_required_n(spec.tau, int(grp["n"].max()), privacy.data_model_chain(p, p), spec.budget,
                                    spec.d, spec.beta, spec.c)
        rows.append({"calibration": cal, "p": p, "eps": eps, "eps_dp": eps_dp, "candidates": m, "gap_units": gap,
                     "measured_n90": measured_required_n(grp),
                     "analytic_n90": analytic_required_n(eps_dp, spec.budget, m, gap, spec.threshold_units)
                     if eps_dp > 0 else np.nan, "theorem2_n_required": t2})
    return pd.DataFrame(rows)


def _sci(x: float) -> str:
    """A size for a title: 1.8×10^5 in mathtext (1000 and below plain)."""
    if not np.isfinite(x) or x <= 0:
        return "—"
    k = int(np.floor(np.log10(x) + 1e-9))
    mant = float(f"{x / 10**k:.2g}")
    if k <= 3:
        return f"{x:,.0f}"
    return f"$10^{{{k}}}$" if mant == 1 else f"${mant:g}\\times10^{{{k}}}$"


def failing_rows(req: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``req`` where a claim of this output fails: the measured n_90 beyond a factor 4 of the analytic one
    (analytic-law-predicts-frontier), or a Bayesian-DP n_90 not below Theorem 2's requirement (or never reached)."""
    ratio = req["measured_n90"] / req["analytic_n90"]
    law = req["measured_n90"].notna() & req["analytic_n90"].notna() & ~((ratio <= 4.0) & (ratio >= 0.25))
    t2 = (req["calibration"] == "bdp") & ~(req["measured_n90"].fillna(np.inf) < req["theorem2_n_required"])
    return req[law | t2]


def verdict(req: pd.DataFrame) -> str:
    """The figure's one message, from the numbers the claims check: the n at which the Bayesian-DP calibration answers
    90% of the queries, and how far below Theorem 2's requirement that is."""
    bdp = req[req["calibration"] == "bdp"]
    have = bdp.dropna(subset=["measured_n90"])
    if have.empty:
        return f"The Bayesian-DP calibration answers {TARGET:.0%} of the queries at no n of the grid"
    span = (f"Bayesian-DP calibration: {TARGET:.0%} answered from n ≈ "
            f"{_sci(have['measured_n90'].min())} to {_sci(have['measured_n90'].max())}")
    below = have["measured_n90"] < have["theorem2_n_required"]
    if len(have) == len(bdp) and below.all():
        factor = float((have["theorem2_n_required"] / have["measured_n90"]).min())
        floored = np.floor(factor * 10) / 10  # a "≥" bound never rounds up
        return f"{span}, ≥ {floored:g}× below Theorem 2's n"
    return f"{span}; below Theorem 2's n at {int(below.sum())} of {len(bdp)} (p, ε)"


def figure(table: pd.DataFrame, req: pd.DataFrame, spec):
    """The frontier: per session ε (panels, shared y), the holdout size n_90 at which each calibration answers 90% of
    the candidate queries against the stay probability p: measured (solid, arm marker; bar back to the previous grid
    n, the measurement's resolution), the budget-consumption law's prediction (dashed, same arm colour), Theorem 2's
    requirement at the spec's tau (dotted grey); points where a claim fails ringed. Each arm in its registered
    encoding (plotting.style); the answered fractions per n stay in the table."""
    eps_grid = sorted(req["eps"].unique())
    fig, axes = panel_grid(len(eps_grid), max_cols=3, size=(5.0, 4.0), sharey=True)
    grid = np.sort(table["n"].unique())
    bad = failing_rows(req)
    for ax, eps in zip(axes, eps_grid):
        at = req[np.isclose(req["eps"], eps)]
        for cal in spec.calibrations:
            r = at[at["calibration"] == cal.name].sort_values("p")
            if r.empty:
                continue
            enc = style(cal)
            m = r.dropna(subset=["measured_n90"])
            prev = np.array([grid[max(0, np.searchsorted(grid, v) - 1)] for v in m["measured_n90"]])
            bars = ax.errorbar(m["p"], m["measured_n90"], yerr=[m["measured_n90"] - prev, np.zeros(len(m))],
                               ls="-", capsize=3, ms=6, color=enc["color"], marker=enc["marker"], barsabove=True,
                               label=f"{cal.display_name}, {cal.purpose}: measured")
            bars.lines[0].set_gid(enc["gid"])  # the data line carries the arm's encoding (caps are '_' markers)
            ax.plot(r["p"], r["analytic_n90"], ls="--", lw=1.4, color=enc["color"], gid=enc["gid"],
                    label="_law")  # one legend entry for every calibration's law (below)
            never = r[r["measured_n90"].isna()]
            if len(never):  # never 90% on the grid: an open marker at its largest n
                ax.plot(never["p"], np.full(len(never), grid[-1]), ls="", marker="^", mfc="white", ms=8,
                        color=enc["color"], label=f"{TARGET:.0%} not reached by the largest n")
        t2 = at.drop_duplicates("p").sort_values("p")
        ax.plot(t2["p"], t2["theorem2_n_required"], ":", color=COLORS["reference"], lw=1.6,
                label=f"Theorem 2's sample-size requirement (τ = {spec.tau:g})")
        hit = bad[np.isclose(bad["eps"], eps)]
        ring(ax, hit["p"], hit["measured_n90"].fillna(grid[-1]), label="claim does not hold here")
        log_axis(ax, "y")
        ax.set_xticks(sorted(req["p"].unique()))
        ax.set_xlim(req["p"].min() - 0.05, req["p"].max() + 0.05)
        ax.set_xlabel("stay probability p of the records' chain")
        ax.set_title(f"session privacy level ε = {eps:g}")
    axes[0].set_ylim(top=axes[0].get_ylim()[1] * 1.6)  # room above the highest line (the panels share y)
    axes[0].set_ylabel(f"holdout size n at which\n{TARGET:.0%} of the queries are answered")
    verdict_title(fig, verdict(req),
                  f"Algorithm 1 on the batch-chain data model: d = {spec.d:,} candidate attributes, "
                  f"B = {spec.budget}, {int(table['replicates'].max())} replicates per n")
    found = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if not lab.startswith("_"):
                found.setdefault(lab, h)
    order = sorted(found, key=lambda lab: (": " not in lab, lab.split(":")[0].split(",")[0], "law" in lab))  # arms
    handles = [found[lab] for lab in order]
    handles.append(Line2D([], [], ls="--", lw=1.4, color="black",
                          label="dashed: budget-consumption law (in its colour)"))
    handles.append(Line2D([], [], ls="", marker="|", ms=11, mew=1.4, color="black",
                          label="bar: down to the previous grid n (resolution)"))
    legend_below(fig, handles=handles, labels=order + [h.get_label() for h in handles[-2:]], ncol=2)
    return fig


def claims(table: pd.DataFrame, req: pd.DataFrame, spec) -> list[Claim]:
    """Project questions: does the budget-consumption law predict the measured requirement (within a factor of 2,
    about one grid step), and how far below Theorem 2's requirement do the arms answer?"""
    out = []
    have = req.dropna(subset=["measured_n90", "analytic_n90"])
    ratio = have["measured_n90"] / have["analytic_n90"]
    grid = check_grid((ratio <= 4.0) & (ratio >= 0.25), have.reset_index(drop=True), ["calibration", "p", "eps"])
    out.append(Claim(output_id="zhao-frontier", claim_id="analytic-law-predicts-frontier",
                     source="this project (docs/METHODS.md §4a), from Zhao 2017 "
                     "Algorithm 1 lines 2, 6-8",
                     claim="The budget-consumption law B·L(t) ≥ 0.9 m predicts the n at which Algorithm 1 answers "
                     "90% of the candidate attribute queries.",
                     expected="measured n_90 within a factor 4 of the analytic n_90 (same order of magnitude; the law "
                     "counts expected queries at the mean gap, which high threshold draws dominate, so it is "
                     "optimistic)",
                     measured=grid.measured + "; measured/analytic: " + ", ".join(
                         f"{r.calibration} p={r.p:g} ε={r.eps:g}: {r.measured_n90:.3g}/{r.analytic_n90:.3g}"
                         for r in have.itertuples()),
                     status=grid.status, counterexample=grid.counterexample, kind="project",
                     code=code_name(analytic_required_n)))
    bdp = req[req["calibration"] == "bdp"]
    if not bdp.empty:
        text = "; ".join(f"p={r.p:g} ε={r.eps:g}: answers from n ≈ {r.measured_n90:.3g}, Theorem 2 needs "
                         f"{r.theorem2_n_required:.3g} (τ = {spec.tau:g})" for r in bdp.itertuples())
        ok = bdp["measured_n90"].fillna(np.inf) < bdp["theorem2_n_required"]
        grid = check_grid(ok, bdp.reset_index(drop=True), ["p", "eps"])
        out.append(Claim(output_id="zhao-frontier", claim_id="bdp-answers-below-theorem2-n",
                         source="Zhao 2017, Theorem 2",
                         claim="The Bayesian-DP calibrated Algorithm 1 starts answering at an n far below Theorem 2's "
                         "sample-size requirement (the theorem's n is sufficient for its guarantee, not for "
                         "answering).",
                         expected="measured n_90 < Theorem 2's requirement", measured=text, status=grid.status,
                         counterexample=grid.counterexample, kind="project", code=code_name(zb.theorem2_required_n)))
    return out


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-frontier from its aggregated records."""
    (spec,) = inputs["specs"].values()
    table = frontier_table(inputs["records"])
    req = requirements(table, spec)
    table = table.merge(req[["calibration", "p", "eps", "measured_n90", "analytic_n90", "theorem2_n_required"]],
                        on=["calibration", "p", "eps"])
    table["analytic_fraction"] = analytic_fraction(table["n"], table["eps_dp"], spec.budget, table["candidates"],
                                                   table["gap_units"], spec.threshold_units)
    return table, figure(table, req, spec), claims(table, req, spec)
