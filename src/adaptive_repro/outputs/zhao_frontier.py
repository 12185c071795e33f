"""zhao-frontier: the fraction of candidate attribute queries Algorithm 1 answers, against n (docs/METHODS.md §4a).

The measured fraction is drawn beside the analytic requirement from the budget-consumption law. Derivation
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

from adaptive_repro import privacy
from adaptive_repro.bounds import zhao as zb
from adaptive_repro.plotting import (
    COLORS,
    OKABE_ITO,
    _plain,
    legend_below,
    log_axis,
    note_in_empty,
    panel_width,
    pyplot,
    suptitle,
)
from adaptive_repro.registry import Claim, check_grid, code_name

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


def dp_label(table: pd.DataFrame) -> str:
    """The legend label of the one DP-calibration curve: it stands for every p (its σ ignores the correlation), with
    the largest difference between the p's measured answered fractions at the same ε and n."""
    dp = table[table["calibration"] == "dp"]
    ps = sorted(dp["p"].unique())
    label = "DP calibration, as if records were independent (measured)"
    if len(ps) < 2:
        return label
    by_point = dp.groupby(["eps", "n"])
    spread = by_point["answered_fraction"].agg(lambda a: a.max() - a.min())
    where = spread.idxmax()
    se = by_point["answered_fraction_se"].max()[where]
    return (f"{label}; one curve (p = {max(ps):g}) for p = {', '.join(f'{p:g}' for p in ps)}: same σ, answered\n"
            f"    fractions differ by ≤ {spread.max():.3f} (at ε = {where[0]:g}, n = {where[1]:,.0f}; "
            f"SE there up to {se:.3f})")


def optimism_note(req: pd.DataFrame) -> str:
    """How optimistic the analytic law is: the range of measured / analytic n_90 over the rows having both."""
    have = req.dropna(subset=["measured_n90", "analytic_n90"])
    if have.empty:
        return ""
    ratio = have["measured_n90"] / have["analytic_n90"]
    return (f"\n    optimistic: measured n at {TARGET:.0%} answered is {ratio.min():.1f}–{ratio.max():.1f}× "
            "the analytic n (measured n: a grid point)")


def figure(table: pd.DataFrame, req: pd.DataFrame, spec):
    plt = pyplot()
    eps_grid = sorted(table["eps"].unique())
    w = panel_width(len(eps_grid), 6.2)
    fig, axes = plt.subplots(1, len(eps_grid), figsize=(w * len(eps_grid), 5.0), sharey=True, squeeze=False)
    p_colours = [OKABE_ITO[c] for c in ("blue", "orange", "bluish green", "vermillion", "sky blue", "black")]
    colours = dict(zip(sorted(table["p"].unique()), p_colours))
    n_fine = np.logspace(np.log10(table["n"].min()), np.log10(table["n"].max()), 200)
    boxes = []
    dp_colour = next((c.color for c in spec.calibrations if c.name == "dp"), COLORS["reference"])
    by_name = {c.name: c for c in spec.calibrations}
    styles = {name: ("o", "-") if i == 0 else ("s", "-.") for i, name in  # calibrations drawn per p: marker, line
              enumerate(c.name for c in spec.calibrations if c.name != "dp")}
    for ax, eps in zip(axes[0], eps_grid):
        for (cal, p), grp in table[table["eps"] == eps].groupby(["calibration", "p"]):
            if cal == "dp" and p != max(colours):  # dp's sigma does not depend on p: one curve (at the largest p)
                continue
            grp = grp.sort_values("n")
            colour = dp_colour if cal == "dp" else colours[p]
            label = dp_label(table) if cal == "dp" else f"{by_name[cal].display_name}, p = {p:g} (measured)"
            marker, line = ("o", "-") if cal == "dp" else styles[cal]
            ax.errorbar(grp["n"], grp["answered_fraction"], yerr=grp["answered_fraction_se"], color=colour,
                        marker=marker, ls=line, ms=4, capsize=2, label=label)
            r = req[(req["calibration"] == cal) & (req["p"] == p) & (req["eps"] == eps)].iloc[0]
            ax.plot(n_fine, analytic_fraction(n_fine, r["eps_dp"], spec.budget, r["candidates"], r["gap_units"],
                                              spec.threshold_units), "--", color=colour, lw=1.2)
            if cal == "bdp":
                ax.axvline(r["theorem2_n_required"], color=colour, ls=":", lw=1.2)
        ax.axhline(TARGET, color=COLORS["reference"], lw=0.8)
        log_axis(ax, "x")
        t2 = req[req["calibration"] == "bdp"]["theorem2_n_required"]
        ax.set_xlim(table["n"].min() / 1.5, max(table["n"].max(), t2.replace(np.inf, np.nan).max()) * 1.5)
        boxes.append((ax, "Theorem 2 needs n ≥\n" + "\n".join(
            f"{_plain(float(f'{v:.2g}'))} (p = {p:g})" for p, v in zip(req[req["calibration"] == "bdp"]["p"].unique(),
                                                     req[(req["calibration"] == "bdp") & (req["eps"] == eps)][
                                                         "theorem2_n_required"])) + f"\nat τ = {spec.tau:g}"))
        ax.set_xlabel("holdout size n (records)")
        ax.set_title(f"session privacy level ε = {eps:g}")
    axes[0][0].set_ylabel("fraction of candidate\nattribute queries answered")
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles += [plt.Line2D([], [], color="grey", ls="--"), plt.Line2D([], [], color="grey", ls=":"),
                plt.Line2D([], [], color=COLORS["reference"], lw=0.8)]
    labels += ["analytic: min(1, B·L(t)/m), L(t) = (8/3)·exp(t/2) + (4 ln 2 − 8/3)·exp(−t), t = (T − gap)/σ"
               + optimism_note(req),
               f"Theorem 2's sample-size requirement at τ = {spec.tau:g} (Bayesian-DP colours)"
               + (": " + boxes[0][1].split("\n", 1)[1].replace("\n", ", ").rsplit(", at", 1)[0]
                  if len({text for _, text in boxes}) == 1 else ""),
               f"{TARGET:.0%} answered (the frontier's target)"]
    suptitle(fig, f"How large must n be for Algorithm 1 to answer? d = {spec.d:,}, B = {spec.budget}, "
                  f"T = {spec.threshold_units:g}/(2√n), batch SD b = {spec.b:g},\n"
                  f"{int(table['replicates'].max())} replicates; batch-chain data model (this project's design)")
    legend_below(fig, handles=handles, labels=labels, ncol=1)
    for ax, text in boxes if len({text for _, text in boxes}) > 1 else []:  # differ by ε: on each panel
        note_in_empty(ax, text)
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
