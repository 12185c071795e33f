"""zhao-lemma1: Zhao 2017, Lemma 1's tail bound 4 exp(-tau^2 n / 9) against Monte Carlo on correlated records.

Zhao's Lemma 1 (papers/001, p. 6): "Let X be a random database chosen according to distribution P, and Y be an
eps-Bayesian differential private algorithm for query Q with global sensitivity Delta_Q. [...] If
eps <= tau/(3 n Delta_Q), then P[|Y(X) - Y(P)| >= tau] <= 4 exp(-tau^2/(9 n Delta_Q^2))"; for a statistical query
(Delta_Q = 1/n, eps <= tau/3) P[...] <= 4 exp(-tau^2 n / 9). Theorems 1 and 2 use it "for arbitrary correlations
between data samples". Its proof (Appendix A.2) reads Y(X) as the query output by Y evaluated on X and starts from
"the concentration inequality" P[X x Y in O] <= 2 exp(-tau^2/(2 n Delta_Q^2)) for X drawn independently of Y: a
McDiarmid/Hoeffding bound, which needs independent records.

Simplest case checked here: a data-independent query choice (0-BDP, so eps = 0 <= tau/3 for every tau), the
statistical query q(X) = fraction of records with label +1, labels y_1..y_n a stationary symmetric two-state Markov
chain with stay probability p (data_models.sample_symmetric_chain; p = 0.5 is i.i.d.). q(P) = 1/2 exactly by
stationarity. Then P[|Y(X) - Y(P)| >= tau] = P[|q(X) - 1/2| >= tau], measured by Monte Carlo with Clopper-Pearson
intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from adaptive_repro.bounds.zhao import lemma1_tail_bound
from adaptive_repro.registry import Claim, verdict

OUTPUT_ID = "zhao-lemma1"
SOURCE = "Zhao 2017, Lemma 1"


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
    """Exact Var of the fraction of +1 labels: (1/(4 n^2)) sum_{i,j} theta^{|i-j|}, theta = 2 p - 1 (corr of s_i, s_j)."""
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


def clopper_pearson(k, n, confidence: float):
    """Two-sided Clopper-Pearson interval for k successes in n trials (vectorized)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    a = 1.0 - confidence
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, stats.beta.ppf(a / 2, k, n - k + 1), 0.0)
        high = np.where(k < n, stats.beta.ppf(1 - a / 2, k + 1, n - k), 1.0)
    return low, high


def build_table(seed: int, p_grid, n_grid, taus, replicates: int, confidence: float) -> pd.DataFrame:
    """One row per (p, n, tau): Monte-Carlo P[|q(X) - 1/2| >= tau] with its interval, Lemma 1's bound, the
    proof's concentration step 2 exp(-tau^2 n / 2), a normal approximation using the chain's exact variance, and
    (reference) the Markov-chain Hoeffding bound of :func:`markov_hoeffding_bound`."""
    from adaptive_repro.seeds import rng as make_rng

    rows = []
    for p in p_grid:
        for n in n_grid:
            frac = chain_fraction_of_ones(make_rng(seed, OUTPUT_ID, "p", f"{p:.12g}", "n", int(n)), int(n), float(p),
                                          int(replicates))
            dev = np.abs(frac - 0.5)
            sd = np.sqrt(fraction_variance(int(n), float(p)))
            for tau in taus:
                # tolerance guards against floating-point error in frac (multiples of 1/n)
                k = int(np.count_nonzero(dev >= tau - 1e-12))
                lo, hi = clopper_pearson(k, replicates, confidence)
                rows.append(dict(
                    p=float(p), n=int(n), tau=float(tau), theta=2 * float(p) - 1,
                    mc_probability=k / replicates, mc_ci_low=float(lo), mc_ci_high=float(hi),
                    bound=float(lemma1_tail_bound(tau, n)),
                    proof_concentration_bound=float(2 * np.exp(-(tau**2) * n / 2)),
                    normal_approximation=float(2 * stats.norm.sf(tau / sd)),
                    markov_hoeffding_bound=float(markov_hoeffding_bound(tau, n, p)),
                    replicates=int(replicates), confidence=confidence, epsilon_bdp=0.0,
                    query="fraction of +1 labels (data-independent, 0-BDP)",
                ))
    return pd.DataFrame(rows)


def _first_failure(frame: pd.DataFrame, bound_col: str) -> tuple[bool, str, int]:
    bad = frame[frame["mc_ci_low"] > frame[bound_col]]
    if bad.empty:
        return True, "", 0
    r = bad.sort_values(["p", "n", "tau"]).iloc[0]
    return False, (f"p={r.p:g}, n={int(r.n)}, tau={r.tau:g}: P={r.mc_probability:.4g} "
                   f"(CI {r.mc_ci_low:.4g}-{r.mc_ci_high:.4g}) > bound {r[bound_col]:.3g}"), len(bad)


def build_claims(frame: pd.DataFrame) -> list[Claim]:
    conf = frame["confidence"].iloc[0]
    claims = []
    iid = frame[np.isclose(frame["p"], 0.5)]
    corr = frame[~np.isclose(frame["p"], 0.5)]
    for cid, sub, what in (("lemma1-iid", iid, "i.i.d. labels (p = 0.5)"),
                           ("lemma1-correlated", corr, "Markov-chain labels (p > 0.5)")):
        if sub.empty:
            continue
        ok, ce, nbad = _first_failure(sub, "bound")
        claims.append(Claim(
            OUTPUT_ID, cid, SOURCE,
            f"for an eps-BDP choice of a statistical query with eps <= tau/3, P[|Y(X) - Y(P)| >= tau] <= "
            f"4 exp(-tau^2 n/9); checked with a 0-BDP query on {what}",
            "MC probability <= 4 exp(-tau^2 n / 9) at every (p, n, tau)",
            f"{nbad} of {len(sub)} grid points exceed the bound beyond the {conf:.0%} Clopper-Pearson interval; "
            f"max MC/bound ratio {np.max(sub.mc_probability / sub.bound):.3g}",
            verdict(ok, "statement"), ce))
    if not corr.empty:
        ok, ce, nbad = _first_failure(corr, "proof_concentration_bound")
        claims.append(Claim(
            OUTPUT_ID, "lemma1-proof-concentration-step", "Zhao 2017, Appendix A.2 (proof of Lemma 1)",
            "first step of the proof: for a query drawn independently of X, P[|Q(X) - Q(P)| >= tau] <= "
            "2 exp(-tau^2/(2 n Delta_Q^2)) (a concentration inequality for independent records), on Markov-chain labels",
            "MC probability <= 2 exp(-tau^2 n / 2) at every (p > 0.5, n, tau)",
            f"{nbad} of {len(corr)} grid points exceed it beyond MC error",
            verdict(ok, "statement"), ce))
    return claims


def build_figure(frame: pd.DataFrame):
    """One panel per tau: P[|q(X) - 1/2| >= tau] vs n, one colour per p, MC with CP error bars, bound in black."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    taus = sorted(frame["tau"].unique())
    ps = sorted(frame["p"].unique())
    fig, axes = plt.subplots(1, len(taus), figsize=(3.6 * len(taus), 3.6), sharey=True, squeeze=False)
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(ps)))
    floor = 0.3 / frame["replicates"].max()
    for ax, tau in zip(axes[0], taus):
        sub_t = frame[np.isclose(frame["tau"], tau)]
        for c, p in zip(colors, ps):
            s = sub_t[np.isclose(sub_t["p"], p)].sort_values("n")
            y = np.maximum(s.mc_probability, floor)
            ax.errorbar(s.n, y, yerr=[y - np.maximum(s.mc_ci_low, floor), np.maximum(s.mc_ci_high, floor) - y],
                        fmt="-", color=c, capsize=2, label=f"MC, p = {p:g}")
            pos = s.mc_probability > 0
            ax.plot(s.n[pos], y[pos], "o", color=c, ms=4)
            ax.plot(s.n[~pos], y[~pos], "o", color=c, mfc="white", ms=4)
            ax.plot(s.n, s.normal_approximation.clip(lower=floor), ":", color=c, lw=1)
        s = sub_t.drop_duplicates("n").sort_values("n")
        ax.plot(s.n, s.bound, "k-", lw=2, label="Lemma 1: 4 exp(-τ²n/9)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(floor * 0.5, 5)
        ax.set_title(f"τ = {tau:g}")
        ax.set_xlabel("records n")
    axes[0][0].set_ylabel("P[|q(X) − q(P)| ≥ τ]  (0-BDP query)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, -0.08))
    fig.suptitle("Zhao Lemma 1 vs Monte Carlo on Markov-chain labels (stay prob. p; dotted: normal approx.; "
                 f"bars: {frame.confidence.iloc[0]:.0%} Clopper-Pearson; hollow: zero count, drawn at the floor)", fontsize=9)
    fig.tight_layout()
    return fig
