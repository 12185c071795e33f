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

from adaptive_repro import decisions, privacy
from adaptive_repro.bounds import zhao as zb
from adaptive_repro.foundation.registry import Claim, code_name
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


def answers_at(row) -> decisions.Decision:
    """Whether the calibration answers at one (p, eps, n): a data set answers when Algorithm 1 answers at least 90% of
    its candidate queries, and the calibration when at least 90% of the data sets do, by the Clopper–Pearson interval
    (:func:`decisions.rate_at_least`: 70 of 70 data sets decide it, 30 of 30 do not)."""
    return decisions.rate_at_least(row.data_sets_answering_90_count, row.replicates, TARGET)


def decided_required_n(grp: pd.DataFrame) -> tuple[float, float]:
    """The frontier n_90 of one (calibration, p, eps) as an interval of the grid: (above, n90]. ``n90`` is the
    smallest grid n from which the calibration is decided to answer (:func:`answers_at`) at every larger n (NaN: at no
    n of the grid); ``above`` the largest grid n decided not to answer (0 where none is)."""
    grp = grp.sort_values("n")
    ns = grp["n"].to_numpy(dtype=float)
    states = [answers_at(r).state for r in grp.itertuples()]
    n90 = next((ns[i] for i in range(len(ns)) if all(st == decisions.HOLDS for st in states[i:])), np.nan)
    failing = [ns[i] for i, st in enumerate(states) if st == decisions.FAILS]
    return (max(failing) if failing else 0.0), float(n90)


def frontier_table(records: pd.DataFrame) -> pd.DataFrame:
    keys = ["calibration", "p", "eps", "n"]
    g = records.groupby(keys)
    table = g["answered_fraction"].agg(answered_fraction="mean", replicates="count",
                                       answered_fraction_se=lambda a: float(a.std(ddof=1) / np.sqrt(len(a)))
                                       if len(a) > 1 else np.nan,
                                       data_sets_answering_90_count=lambda a: int(np.sum(a >= TARGET))).reset_index()
    extra = g[["d", "budget", "sigma", "threshold", "eps_dp", "candidates", "gap_units", "over_events"]].mean()
    return table.merge(extra.reset_index(), on=keys)


def requirements(table: pd.DataFrame, spec) -> pd.DataFrame:
    """Per (calibration, p, eps): the measured n_90 as an interval (``measured_n90_above``, ``measured_n90``]
    (:func:`decided_required_n`), the analytic n_90 and Theorem 2's requirement at the config's tau."""
    rows = []
    for (cal, p, eps), grp in table.groupby(["calibration", "p", "eps"]):
        eps_dp = float(grp["eps_dp"].median())
        m, gap = float(grp["candidates"].mean()), float(grp["gap_units"].mean())
        t2 = zb.theorem2_required_n(spec.tau, int(grp["n"].max()), privacy.data_model_chain(p, p), spec.budget,
                                    spec.d, spec.beta, spec.c)
        above, n90 = decided_required_n(grp)
        rows.append({"calibration": cal, "p": p, "eps": eps, "eps_dp": eps_dp, "candidates": m, "gap_units": gap,
                     "measured_n90_above": above, "measured_n90": n90,
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


#: The factor within which the budget-consumption law must place the frontier (same order of magnitude: the law
#: counts expected queries at the mean gap, which high threshold draws dominate, so it is optimistic).
LAW_FACTOR = 4.0


def _bounds(r) -> tuple[float, float]:
    """The measured frontier's interval (lower, upper]: upper infinite where no grid n is decided to answer."""
    upper = r.measured_n90 if np.isfinite(r.measured_n90) else np.inf
    return float(r.measured_n90_above), float(upper)


def law_state(r) -> str:
    """Whether the analytic n_90 predicts the measured frontier within :data:`LAW_FACTOR` at one (calibration, p,
    eps): holds where the frontier's whole interval lies in [analytic / 4, 4 analytic], does not hold where it lies
    wholly outside, else undecided (a decision state of :mod:`adaptive_repro.decisions`)."""
    lower, upper = _bounds(r)
    low, high = r.analytic_n90 / LAW_FACTOR, r.analytic_n90 * LAW_FACTOR
    if not np.isfinite(r.analytic_n90):
        return decisions.UNDECIDED
    if lower >= low and upper <= high:
        return decisions.HOLDS
    if upper < low or lower >= high:
        return decisions.FAILS
    return decisions.UNDECIDED


def below_theorem2_state(r) -> str:
    """Whether the calibration answers below Theorem 2's required n: holds where the frontier's interval ends below it,
    does not hold where it starts at or above it, else undecided."""
    lower, upper = _bounds(r)
    if upper < r.theorem2_n_required:
        return decisions.HOLDS
    if lower >= r.theorem2_n_required:
        return decisions.FAILS
    return decisions.UNDECIDED


def failing_rows(req: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``req`` where a claim of this output is decided not to hold: the law outside its factor
    (analytic-law-predicts-frontier) or a Bayesian-DP frontier not below Theorem 2's requirement."""
    law = np.array([law_state(r) == decisions.FAILS for r in req.itertuples()], dtype=bool)
    t2 = np.array([r.calibration == "bdp" and below_theorem2_state(r) == decisions.FAILS for r in req.itertuples()],
                  dtype=bool)
    return req[law | t2]


def verdict(req: pd.DataFrame) -> str:
    """The figure's one message, from the numbers the claims check: the smallest n from which the Bayesian-DP
    calibration is decided to answer (:func:`decided_required_n`), how far below Theorem 2's requirement that is,
    and at how many points the budget law predicts the frontier (:func:`law_state`)."""
    bdp = req[req["calibration"] == "bdp"]
    have = bdp.dropna(subset=["measured_n90"])
    if have.empty:
        return "The Bayesian-DP calibration is decided to answer at no n of the grid"
    span = ("Bayesian-DP calibration answers (decided) from n ≈ "
            f"{_sci(have['measured_n90'].min())} to {_sci(have['measured_n90'].max())}")
    below = have["measured_n90"] < have["theorem2_n_required"]
    laws = [law_state(r) for r in req[np.isfinite(req["analytic_n90"])].itertuples()]
    law = (f"\nThe budget law places the frontier within ×{LAW_FACTOR:g} at {laws.count(decisions.HOLDS)} of "
           f"{len(laws)} (calibration, p, ε)" if laws else "")
    if len(have) == len(bdp) and below.all():
        factor = float((have["theorem2_n_required"] / have["measured_n90"]).min())
        floored = np.floor(factor * 10) / 10  # a "≥" bound never rounds up
        return f"{span}, ≥ {floored:g}× below Theorem 2's n{law}"
    return f"{span}; below Theorem 2's n at {int(below.sum())} of {len(bdp)} (p, ε){law}"


def figure(table: pd.DataFrame, req: pd.DataFrame, spec):
    """The frontier: per session ε (panels, shared y), the holdout size n_90 at which each calibration answers 90% of
    the candidate queries against the stay probability p: measured (solid, arm marker, at the smallest grid n from
    which it is decided to answer; bar down to the largest grid n decided not to answer: the
    frontier's interval), the budget-consumption law's prediction (dashed, same arm colour), Theorem 2's
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
            lower = np.maximum(m["measured_n90_above"], grid[0])  # the frontier's interval, at most the grid's start
            bars = ax.errorbar(m["p"], m["measured_n90"], yerr=[m["measured_n90"] - lower, np.zeros(len(m))],
                               ls="-", capsize=3, ms=6, color=enc["color"], marker=enc["marker"], barsabove=True,
                               label=f"{cal.display_name}, {cal.purpose}: measured")
            bars.lines[0].set_gid(enc["gid"])  # the data line carries the arm's encoding (caps are '_' markers)
            ax.plot(r["p"], r["analytic_n90"], ls="--", lw=1.4, color=enc["color"], gid=enc["gid"],
                    label="_law")  # one legend entry for every calibration's law (below)
            never = r[r["measured_n90"].isna()]
            if len(never):  # never 90% on the grid: an open marker at its largest n
                ax.plot(never["p"], np.full(len(never), grid[-1]), ls="", marker="^", mfc="white", ms=8,
                        color=enc["color"], label="not decided to answer by the largest n")
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
    axes[0].set_ylabel(f"n from which ≥ {TARGET:.0%} of data sets\nanswer ≥ {TARGET:.0%} of their queries")
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
                          label="bar: down to the largest n decided not to answer"))
    legend_below(fig, handles=handles, labels=order + [h.get_label() for h in handles[-2:]], ncol=2)
    return fig


def _interval_words(r) -> str:
    lower, upper = _bounds(r)
    if np.isfinite(upper):
        return f"({lower:.3g}, {upper:.3g}]"
    return "no grid n (not decided to answer at any)" + (f"; above {lower:.3g}" if lower > 0 else "")


def claims(table: pd.DataFrame, req: pd.DataFrame, spec) -> list[Claim]:
    """Project questions: does the budget-consumption law predict the measured frontier (within a factor of 4), and
    how far below Theorem 2's requirement do the arms answer? Both from the frontier's decided interval
    (:func:`decided_required_n`), in three states."""
    out = []
    reps = int(table["replicates"].max())
    rule = (f"a calibration answers at an n when ≥ {TARGET:.0%} of the {reps} data sets answer ≥ {TARGET:.0%} of their "
            f"candidate queries by the {decisions.CONFIDENCE:.2%} Clopper–Pearson interval; the frontier lies between "
            "the largest grid n decided not to answer and the smallest from which every n is decided to answer")
    have = req[np.isfinite(req["analytic_n90"])]
    states = [law_state(r) for r in have.itertuples()]
    undecided = [r for r, st in zip(have.itertuples(), states) if st == decisions.UNDECIDED]
    failing = [r for r, st in zip(have.itertuples(), states) if st == decisions.FAILS]
    out.append(Claim(output_id="zhao-frontier", claim_id="analytic-law-predicts-frontier",
                     source="this project (docs/METHODS.md §4a), from Zhao 2017 "
                     "Algorithm 1 lines 2, 6-8",
                     claim="The budget-consumption law B·L(t) ≥ 0.9 m predicts the n at which Algorithm 1 answers "
                     "90% of the candidate attribute queries.",
                     expected=f"the measured frontier's interval within a factor {LAW_FACTOR:g} of the analytic n_90 "
                     f"at every (calibration, p, ε) (holds); wholly outside it at some (does not hold); {rule}",
                     measured=f"holds at {states.count(decisions.HOLDS)}/{len(states)} points; measured interval "
                     "against analytic: " + ", ".join(
                         f"{r.calibration} p={r.p:g} ε={r.eps:g}: {_interval_words(r)} / {r.analytic_n90:.3g}"
                         for r in have.itertuples())
                     + (". Undecided at " + ", ".join(f"{r.calibration} p={r.p:g} ε={r.eps:g}" for r in undecided)
                        + ": more data sets per n, or a finer grid, would decide them" if undecided else ""),
                     status=decisions.STATUS[decisions.combined(states)],
                     counterexample=", ".join(f"{r.calibration} p={r.p:g} ε={r.eps:g}" for r in failing[:2]),
                     kind="project", code=code_name(law_state)))
    bdp = req[req["calibration"] == "bdp"]
    if not bdp.empty:
        t2_states = [below_theorem2_state(r) for r in bdp.itertuples()]
        text = "; ".join(f"p={r.p:g} ε={r.eps:g}: answers from n in {_interval_words(r)}, Theorem 2 needs "
                         f"{r.theorem2_n_required:.3g} (τ = {spec.tau:g})" for r in bdp.itertuples())
        out.append(Claim(output_id="zhao-frontier", claim_id="bdp-answers-below-theorem2-n",
                         source="Zhao 2017, Theorem 2",
                         claim="The Bayesian-DP calibrated Algorithm 1 starts answering at an n far below Theorem 2's "
                         "sample-size requirement (the theorem's n is sufficient for its guarantee, not for "
                         "answering).",
                         expected=f"the measured frontier's interval below Theorem 2's requirement at every (p, ε) "
                                  f"(holds); at or above it at some (does not hold); {rule}",
                         measured=text, status=decisions.STATUS[decisions.combined(t2_states)],
                         counterexample=", ".join(f"p={r.p:g} ε={r.eps:g}" for r, st in zip(bdp.itertuples(),
                                                                                           t2_states)
                                                  if st == decisions.FAILS),
                         kind="project", code=code_name(below_theorem2_state)))
    return out


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-frontier from its aggregated records."""
    (spec,) = inputs["specs"].values()
    table = frontier_table(inputs["records"])
    req = requirements(table, spec)
    table = table.merge(req[["calibration", "p", "eps", "measured_n90_above", "measured_n90", "analytic_n90",
                             "theorem2_n_required"]],
                        on=["calibration", "p", "eps"])
    table["analytic_fraction"] = analytic_fraction(table["n"], table["eps_dp"], spec.budget, table["candidates"],
                                                   table["gap_units"], spec.threshold_units)
    return table, figure(table, req, spec), claims(table, req, spec)
