"""zhao-lemma1: Zhao 2017, Lemma 1's tail bound 4 exp(-tau^2 n / 9) against Monte Carlo on correlated records.

Zhao's Lemma 1 (section 3): "Let X be a random database chosen according to distribution P, and Y be an
eps-Bayesian differential private algorithm for query Q with global sensitivity Delta_Q. [...] If
eps <= tau/(3 n Delta_Q), then P[|Y(X) - Y(P)| >= tau] <= 4 exp(-tau^2/(9 n Delta_Q^2))"; for a statistical query
(Delta_Q = 1/n, eps <= tau/3) P[...] <= 4 exp(-tau^2 n / 9). Theorems 1 and 2 use it "for arbitrary correlations
between data samples". Its proof (Appendix A.2) reads Y(X) as the query output by Y evaluated on X and starts from
"the concentration inequality" P[X x Y in O] <= 2 exp(-tau^2/(2 n Delta_Q^2)) for X drawn independently of Y: a
McDiarmid/Hoeffding bound, which needs independent records.

Simplest case checked here: a data-independent query choice (0-BDP, so eps = 0 <= tau/3 for every tau), the
statistical query q(X) = fraction of records with label +1, labels y_1..y_n a stationary symmetric two-state Markov
chain with stay probability p (data_models.sample_symmetric_chain; p = 0.5 is i.i.d.). q(P) = 1/2 exactly by
stationarity. Then P[|Y(X) - Y(P)| >= tau] = P[|q(X) - 1/2| >= tau], computed exactly by a forward recursion over
(count, current label) (bounds.zhao.chain_count_pmf; the verdicts use it) and measured by Monte Carlo with
Clopper-Pearson intervals (a cross-check of the simulator).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

from adaptive_repro.bounds.zhao import chain_count_pmf, lemma1_tail_bound
from adaptive_repro.foundation.registry import Claim, check_grid, code_name
from adaptive_repro.stats import clopper_pearson

OUTPUT_ID = "zhao-lemma1"
SOURCE = "Zhao 2017, Lemma 1"


#: Colour of the i.i.d. control (p = 0.5): a darker grey than the reference line at 1 and the strip.
CONTROL = "#5a5a5a"

def chain_fraction_of_ones(rng: np.random.Generator, n: int, p_stay: float, replicates: int,
                           chunk_elements: int = 4_000_000) -> np.ndarray:
    """Fraction of +1 labels of ``replicates`` independent stationary symmetric two-state chains of length n with
    stay probability p_stay: the law of ``data_models.sample_symmetric_chain``, vectorized over replicates
    (s_1 a fair sign, s_{i+1} = -s_i with probability 1 - p_stay, so s_i = s_1 (-1)^{#flips before i})."""
    rows = max(1, chunk_elements // n)
    out = []
    for start in range(0, replicates, rows):
        r = min(rows, replicates - start)
        first_plus = rng.random(r) < 0.5
        flips = rng.random((r, n - 1)) >= p_stay
        odd = np.zeros((r, n), dtype=bool)
        odd[:, 1:] = (np.cumsum(flips, axis=1, dtype=np.int32) & 1).astype(bool)
        out.append((odd != first_plus[:, None]).mean(axis=1))
    return np.concatenate(out) if out else np.zeros(0)


def fraction_variance(n: int, p_stay: float) -> float:
    """Exact Var of the fraction of +1 labels: (1/(4 n^2)) sum_{i,j} theta^{|i-j|}, theta = 2 p - 1
    (corr of s_i, s_j)."""
    theta = 2.0 * p_stay - 1.0
    k = np.arange(1, n)
    return (n + 2.0 * np.sum((n - k) * theta**k)) / (4.0 * n**2)


def markov_hoeffding_bound(tau, n, p_stay):
    """Reference only (not in Zhao): Hoeffding's inequality for stationary Markov chains with absolute spectral gap
    1 - lambda (Fan, Jiang & Sun 2021, Theorem 1), two-sided, for a [0,1]-valued statistic:
    P[|mean - mean_pi| >= tau] <= 2 exp(-2 n tau^2 (1 - lambda)/(1 + lambda)); here lambda = |2 p - 1|.
    It is Hoeffding's 2 exp(-2 n tau^2) with n replaced by the effective size n (1 - lambda)/(1 + lambda)."""
    lam = np.abs(2.0 * np.asarray(p_stay, dtype=float) - 1.0)
    return np.minimum(1.0, 2.0 * np.exp(-2.0 * np.asarray(n, float) * np.asarray(tau, float) ** 2
                                        * (1.0 - lam) / (1.0 + lam)))


def build_table(seed: int, p_grid, n_grid, taus, replicates: int, confidence: float) -> pd.DataFrame:
    """One row per (p, n, tau): Monte-Carlo P[|q(X) - 1/2| >= tau] with its interval, Lemma 1's bound, the
    proof's concentration step 2 exp(-tau^2 n / 2), a normal approximation using the chain's exact variance, and
    (reference) the Markov-chain Hoeffding bound of :func:`markov_hoeffding_bound`."""
    from adaptive_repro.foundation.seeds import rng as make_rng

    rows = []
    for p in p_grid:
        for n in n_grid:
            frac = chain_fraction_of_ones(make_rng(seed, OUTPUT_ID, "p", f"{p:.12g}", "n", int(n)), int(n), float(p),
                                          int(replicates))
            dev = np.abs(frac - 0.5)
            sd = np.sqrt(fraction_variance(int(n), float(p)))
            pmf = chain_count_pmf(int(n), float(p))
            exact_dev = np.abs(np.arange(int(n) + 1) / int(n) - 0.5)
            for tau in taus:
                # tolerance guards against floating-point error in frac (multiples of 1/n)
                k = int(np.count_nonzero(dev >= tau - 1e-12))
                lo, hi = clopper_pearson(k, replicates, confidence)
                rows.append(dict(
                    p=float(p), n=int(n), tau=float(tau), theta=2 * float(p) - 1,
                    exact_probability=float(min(1.0, pmf[exact_dev >= tau - 1e-12].sum())),
                    mc_probability=k / replicates, mc_ci_low=float(lo), mc_ci_high=float(hi),
                    bound=float(lemma1_tail_bound(tau, n)),
                    proof_concentration_bound=float(2 * np.exp(-(tau**2) * n / 2)),
                    normal_approximation=float(2 * special.ndtr(-(tau / sd))),  # 2 P[Z > tau/sd]
                    markov_hoeffding_bound=float(markov_hoeffding_bound(tau, n, p)),
                    replicates=int(replicates), confidence=confidence, epsilon_bdp=0.0,
                    query="fraction of +1 labels (data-independent, 0-BDP)",
                ))
    return pd.DataFrame(rows)


Q_LEMMA1 = (r"LEMMA 1. Let X be a random database chosen according to distribution \mathcal{P} , and Y be an ϵ "
            r"-Bayesian differential private algorithm for query Q with global sensitivity Δ_Q . Let $Y(\mathcal{P})$ "
            r"be the expectation of Y(X). If $\epsilon \leq \tau/(3n\Delta_Q)$, then $\mathbb{P}[|Y(X) - "
            r"Y(\mathcal{P})| \geq \tau] \leq 4e^{-\tau^2/(9n\cdot\Delta_Q^2)}$. From Lemma 1, for a statistical "
            r"query [3, 12, 13] with $\Delta_Q = 1/n$, if $\epsilon \le \tau/3$, then $\mathbb{P}[|Y(X) - "
            r"Y(\mathcal{P})| \ge \tau] \le 4e^{-\tau^2 n/9}$.")
Q_PROOF = (r"We let $X\times Y$ be the random variable obtained by drawing X and Y independently from their "
           r"probability distributions. We also define O as the event that $|Y(X)-Y(\mathcal{P})|\geq \tau$. First, we "
           r"use the concentration inequality to obtain $\mathbb{P}\left[X\times Y\in O\right]\leq "
           r"2e^{-\tau^2/(2n\cdot\Delta_Q^2)}$.")
HYPOTHESES = ("Inside Lemma 1's hypotheses: X is drawn from an arbitrary distribution P over databases (the lemma "
              "restricts nothing; Theorems 1-2 apply it 'for arbitrary correlations between data samples'), the "
              "data-independent choice of the query has Bayesian DP leakage (3) equal to 0, so eps = 0 <= tau/3, and "
              "Q has Delta_Q = 1/n. Reading Y(X) as the chosen query evaluated on X (the proof's reading); under the "
              "other reading, Y(X) = Q(X) + noise with symmetric noise independent of X, P[|Y(X) - 1/2| >= tau] >= "
              "P[|Q(X) - 1/2| >= tau]/2, so a point whose exact probability exceeds twice the bound fails both.")
EXACT_CODE = code_name(chain_count_pmf)


def build_claims(frame: pd.DataFrame) -> list[Claim]:
    """Verdicts on the exact probabilities (forward recursion); the Monte Carlo is a cross-check of the simulator."""
    conf = frame["confidence"].iloc[0]
    claims = []
    iid = frame[np.isclose(frame["p"], 0.5)]
    corr = frame[~np.isclose(frame["p"], 0.5)].sort_values(["p", "n", "tau"])
    keys = ("p", "n", "tau", "exact_probability", "bound")
    for cid, sub, what in (("lemma1-iid", iid, "i.i.d. labels (p = 0.5)"),
                           ("lemma1-correlated", corr, "Markov-chain labels (p > 0.5)")):
        if sub.empty:
            continue
        chk = check_grid(sub["exact_probability"] <= sub["bound"], sub, keys)
        both = int((sub["exact_probability"] > 2 * sub["bound"]).sum())
        readings = f"{both} points exceed twice the bound (fail under both readings of Y(X))"
        strength = "tested"
        if cid == "lemma1-iid":  # Hoeffding: 2 exp(-2 tau^2 n) <= 4 exp(-tau^2 n / 9) for every tau, n
            readings = ("this holds under the proof's reading, Y(X) = Q(X); under the other, Y(X) = Q(X) + noise, the "
                        "probability depends on the noise, which Lemma 1 leaves open, so that reading is not checked "
                        "here. On i.i.d. labels Hoeffding's 2 exp(-2 tau^2 n) is below 4 exp(-tau^2 n/9) at every tau "
                        "and n, so this row cannot fail (by construction: the control for lemma1-correlated)")
            strength = "by construction"
        claims.append(Claim(
            output_id=OUTPUT_ID, claim_id=cid, source=SOURCE,
            claim=f"for an eps-BDP choice of a statistical query with eps <= tau/3, P[|Y(X) - Y(P)| >= tau] <= "
                  f"4 exp(-tau^2 n/9); checked with a 0-BDP (data-independent) query, the fraction of +1 labels, on "
                  f"{what}, probability exact by a forward recursion. " + HYPOTHESES,
            expected="exact probability <= 4 exp(-tau^2 n / 9) at every (p, n, tau)",
            measured=f"{chk.measured}; {readings}; max exact/bound ratio "
                     f"{np.max(sub.exact_probability / sub.bound):.3g}",
            status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_LEMMA1, code=EXACT_CODE,
            strength=strength))
    if not corr.empty:
        chk = check_grid(corr["exact_probability"] <= corr["proof_concentration_bound"], corr,
                         ("p", "n", "tau", "exact_probability", "proof_concentration_bound"))
        claims.append(Claim(
            output_id=OUTPUT_ID, claim_id="lemma1-proof-concentration-step",
            source="Zhao 2017, Appendix A.2 (proof of Lemma 1)",
            claim="the proof's first step, for a query drawn independently of X: P[|Q(X) - Q(P)| >= tau] <= "
                  "2 exp(-tau^2/(2 n Delta_Q^2)), on Markov-chain labels. This is McDiarmid's/Hoeffding's inequality, "
                  "which needs independent records: the step where Lemma 1 (and with it Theorem 1's guarantee (9)) "
                  "loses correlated data",
            expected="exact probability <= 2 exp(-tau^2 n / 2) at every (p > 0.5, n, tau)", measured=chk.measured,
            status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_PROOF, code=EXACT_CODE))
    inside = (frame["mc_ci_low"] <= frame["exact_probability"] + 1e-15) & \
             (frame["exact_probability"] <= frame["mc_ci_high"] + 1e-15)
    chk = check_grid(inside, frame, ("p", "n", "tau", "exact_probability", "mc_ci_low", "mc_ci_high"))
    claims.append(Claim(
        output_id=OUTPUT_ID, claim_id="monte-carlo-matches-exact", source="this project (simulator check)",
        claim="the Monte-Carlo chains (data_models' sampler law) reproduce the exact probability: it lies in the "
              f"{conf:.0%} Clopper-Pearson interval (about {1 - conf:.0%} of points may miss by chance)",
        expected="exact probability inside the interval at every point", measured=chk.measured, status=chk.status,
        counterexample=chk.counterexample, kind="project", code=code_name(chain_fraction_of_ones)))
    return claims


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-lemma1 (the output contract of catalogue.py); ``params`` = the complete
    ``theory.zhao.lemma1`` block plus ``seed``."""
    if output_id != OUTPUT_ID:
        raise ValueError(f"{__name__} does not build {output_id!r}")
    frame = build_table(int(params["seed"]), params["p_grid"], params["n_grid"], params["taus"], params["replicates"],
                        float(params["confidence"]))
    return frame, build_figure(frame), build_claims(frame)


TOP = 5.0  # top of the probability axis: above 1, so that the bound's vacuous values (>= 1) show


def correlated_failures(frame: pd.DataFrame) -> pd.DataFrame:
    """The correlated (p > 0.5) grid points where the exact probability exceeds Lemma 1's bound (lemma1-correlated)."""
    corr = frame[~np.isclose(frame["p"], 0.5)]
    return corr[corr["exact_probability"] > corr["bound"]]


def verdict(frame: pd.DataFrame) -> str:
    """The figure's one message, from the numbers lemma1-correlated checks."""
    corr = frame[~np.isclose(frame["p"], 0.5)]
    bad = correlated_failures(frame)
    if bad.empty:
        return f"Lemma 1's bound holds at all {len(corr)} correlated grid points (p ≤ {corr['p'].max():g})"
    ps = sorted(bad["p"].unique())
    where = f"all with p = {ps[0]:g}" if len(ps) == 1 else "at p = " + ", ".join(f"{p:g}" for p in ps)
    return f"Lemma 1's bound fails at {len(bad)} of {len(corr)} correlated grid points, {where}"


#: Marker per stay probability p (with its colour): p's near each other stay apart where colours are close.
P_MARKERS = ["o", "s", "D", "^", "v", "P", "X", "h"]


def build_figure(frame: pd.DataFrame):
    """One panel per tau: the exact P[|q(X) - 1/2| >= tau] against n, one sequential colour per stay probability p,
    Lemma 1's bound in black, the points above it ringed; probabilities below the axis's floor (the smallest bound's
    decade) drawn as open markers in a strip under a break. The Monte
    Carlo cross-check stays in the table."""
    from matplotlib.ticker import FuncFormatter

    from adaptive_repro.report.plotting import (
        COLORS,
        floor_band,
        legend_below,
        log_axis,
        ordinal_colors,
        panel_grid,
        power_of_ten_label,
        ring,
        verdict_title,
    )

    taus = sorted(frame["tau"].unique())
    ps = sorted(frame["p"].unique())
    fig, axes = panel_grid(len(taus), max_cols=4, size=(2.5, 3.7), sharey=True)
    chain_colours = iter(ordinal_colors(sum(not np.isclose(p, 0.5) for p in ps)))
    colors = [CONTROL if np.isclose(p, 0.5) else next(chain_colours) for p in ps]  # the i.i.d. control dark grey
    floor = 10.0 ** np.floor(np.log10(frame["bound"].min()))  # every bound value, hence every failure, above it
    bad = correlated_failures(frame)
    below_any = False
    for j, (ax, tau) in enumerate(zip(axes, taus)):
        sub_t = frame[np.isclose(frame["tau"], tau)]
        spread = 10 ** (0.025 * (len(ps) - 1) / 2)  # the p's set apart in n: the bound runs under all of them
        dense = np.geomspace(sub_t.n.min() / spread, sub_t.n.max() * spread, 120)  # smooth in n: no kinks at grid n
        ax.plot(dense, lemma1_tail_bound(tau, dense), "-", color="black", lw=2.2, zorder=5,
                label="Lemma 1's bound 4 exp(−τ²n/9)")
        ax.axhline(1.0, color=COLORS["reference"], lw=0.8, zorder=1,
                   label="probability 1 (a bound above it is vacuous)")
        strip: dict[float, list[tuple[str, str]]] = {}  # n -> (colour, marker) of the probabilities below the floor
        apart = {p: 10 ** (0.025 * (i - (len(ps) - 1) / 2)) for i, p in enumerate(ps)}  # the p's a little apart
        # in n, so that probabilities near 1 at one n do not hide one another
        for c, m, p in zip(colors, P_MARKERS * len(ps), ps):
            s = sub_t[np.isclose(sub_t["p"], p)].sort_values("n")
            above = s.exact_probability >= floor
            ax.plot(s.n * apart[p], s.exact_probability.where(above), "-", marker=m, color=c, ms=5, zorder=6,
                    label=f"p = {p:g}" + (" (i.i.d.)" if np.isclose(p, 0.5) else ""))
            below_any |= bool((~above).any())
            for n in s.n[~above]:
                strip.setdefault(float(n), []).append((c, m))
        for n, cms in strip.items():  # side by side around n, 0.08 decade apart, so that none touches another
            for i, (c, m) in enumerate(cms):
                ax.plot([n * 10 ** (0.08 * (i - (len(cms) - 1) / 2))], [1.0], m, color=c, mfc="white", ms=5,
                        zorder=6, gid="below-floor")  # y set to the strip's height once the strip exists
        hit = bad[np.isclose(bad["tau"], tau)]
        ring(ax, hit.n * hit.p.map(apart), hit.exact_probability,  # on its point, set apart like it
             label="claim does not hold here: above Lemma 1's bound")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(frame.n.min() / 1.8, frame.n.max() * 2.0)  # room for the strip's side-by-side markers
        log_axis(ax, "x", subs=(1.0,))
        ax.xaxis.set_major_formatter(FuncFormatter(power_of_ten_label))  # 10^k even on an axis of few decades
        log_axis(ax, "y")
        ax.set_title(f"τ = {tau:g}")
        ax.set_xlabel("records n")
    y_band = floor_band(axes, floor, TOP, f"< {_power(floor)}")
    for ax in axes:  # the strip's markers at its height
        for line in ax.lines:
            if line.get_gid() == "below-floor":
                line.set_ydata(np.full(len(line.get_xdata()), y_band))
    axes[0].set_ylabel("exact P[|q(X) − ½| ≥ τ]")
    if below_any:
        axes[0].plot([], [], "o", color="grey", mfc="white",
                     label=f"open, in the grey strip: below {_plain_power(floor)} (set apart in n)")
    verdict_title(fig, verdict(frame),
                  "a data-independent (0-BDP) query on Markov-chain labels with stay probability p")
    found: dict = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            found.setdefault(lab, h)
    order = [lab for lab in found if not lab.startswith("p = ")] + [lab for lab in found if lab.startswith("p = ")]
    legend_below(fig, axes, handles=[found[lab] for lab in order], labels=order, ncol=3)  # the p's in order, last
    return fig


def _power(x: float) -> str:
    """10^k as mathtext (a tick-like label)."""
    return f"$10^{{{int(round(np.log10(x)))}}}$"


def _plain_power(x: float) -> str:
    """10^k in words for a legend (unicode superscripts)."""
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return "10" + str(int(round(np.log10(x)))).translate(sup)
