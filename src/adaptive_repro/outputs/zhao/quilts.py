"""zhao-bdp-conversion: the DP level that implies Bayesian DP on Zhao 2017's Markov chains (Lemmas 2-4, by Markov
quilts), computed by :mod:`adaptive_repro.privacy`. Pure builders: parameters in, DataFrame / Figure / Claims out.

Parameter: the config block ``theory.zhao.bdp_conversion``
(src/adaptive_repro/schemas/theory_zhao.schema.yaml), complete, plus ``seed`` (the output contract of catalogue.py).
Also the helpers shared by the other Zhao theory builders (:mod:`adaptive_repro.outputs.zhao.sample_complexity`,
:mod:`adaptive_repro.outputs.zhao.maxinfo`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.foundation.registry import Claim, check_grid, code_name, verdict
from adaptive_repro.outputs.zhao.proof_checks import eq38_row
from adaptive_repro.privacy import (
    binary_chain,
    convert_chain,
    data_model_chain,
    lemma2_eps_bdp,
    lemma3_blanket_influence,
    lemmas,
)
from adaptive_repro.report.plotting import (
    COLORS,
    OKABE_ITO,
    SIZES,
    floor_band,
    legend_below,
    log_axis,
    ordinal_colors,
    panel_grid,
    power_text,
    ring,
    verdict_title,
)

SOURCE = "Zhao 2017"


# ------------------------------------------------------------------------------------------------------ helpers

def chain_label(kind: str, p=None, p_s=None, p_y=None) -> str:
    return f"binary(p={p:g})" if kind == "binary" else f"data-model(p_s={p_s:g},p_y={p_y:g})"


def _chains(params) -> list[tuple[str, np.ndarray, float]]:
    """(label, transition matrix, 'correlation' = largest |2p-1|) of the configured chains."""
    out = [(chain_label("binary", p=p), binary_chain(p), abs(2 * p - 1)) for p in params["binary_p"]]
    for ch in params["data_model_chains"]:
        out.append((chain_label("dm", p_s=ch["p_s"], p_y=ch["p_y"]), data_model_chain(ch["p_s"], ch["p_y"]),
                    max(abs(2 * ch["p_s"] - 1), abs(2 * ch["p_y"] - 1))))
    return out


# ================================================================================= zhao-bdp-conversion

def conversion_table(params) -> pd.DataFrame:
    """eps' (DP level implying eps-BDP) by Lemma 3, Lemma 2 (exact quilts) and Lemma 4 (each c) per chain and tau."""
    n = params["n"]
    rows = []
    for label, P, corr in _chains(params):
        for tau in params["tau"]:
            eps = tau / 3.0
            base = dict(chain=label, correlation=corr, n=n, tau=tau, eps_bdp=eps)
            for method, cs in (("lemma3", [None]), ("lemma2", [None]), ("lemma4", params["lemma4_c"])):
                for c in cs:
                    r = convert_chain(eps, n, P, method, c)
                    rows.append(dict(base, method=method, c=c, eps_dp=r.eps_dp, feasible=r.feasible,
                                     quilt=r.quilt if method != "lemma4" else "", exact=r.exact, detail=r.detail))
    return pd.DataFrame(rows)


def conversion_curves(params) -> pd.DataFrame:
    """eps' vs stay probability p of the binary chain (figure data)."""
    n = params["n"]
    rows = []
    for p in params["figure_p"]:
        P = binary_chain(p)
        for tau in params["tau"]:
            eps = tau / 3.0
            for method, c in [("lemma3", None), ("lemma2", None)] + [("lemma4", c) for c in params["lemma4_c"]]:
                r = convert_chain(eps, n, P, method, c)
                rows.append(dict(p=p, tau=tau, eps_bdp=eps, method=method, c=c, eps_dp=r.eps_dp, feasible=r.feasible))
    return pd.DataFrame(rows)


def lemma3_gives_up(curves: pd.DataFrame) -> float | None:
    """The smallest correlation 2p - 1 of the figure's binary chains from which on Lemma 3 is infeasible at every tau
    (None: feasible at the largest one drawn)."""
    l3 = curves[curves["method"] == "lemma3"].assign(corr=lambda f: 2 * f["p"] - 1)
    feasible = l3.groupby("corr")["feasible"].any().sort_index()
    last = feasible[feasible].index.max() if feasible.any() else -np.inf
    after = feasible.index[feasible.index > last]
    return float(after.min()) if len(after) else None


def _number(x: float) -> str:
    """A correlation in a title as the axis writes it: 4×10⁻⁴ below 0.01, else 0.05."""
    return power_text(x) if 0 < x < 0.01 else f"{x:g}"


def conversion_verdict(curves: pd.DataFrame) -> str:
    """The figure's one message, from the curves it draws: from which correlation on the Markov-blanket route
    (Lemma 3) certifies no DP level, per panel (tau) where they differ, and up to which correlation Lemma 2's exact
    quilts still do."""
    x = lemma3_gives_up(curves)
    l2 = curves[(curves["method"] == "lemma2") & curves["feasible"]]
    whole = len(l2) and np.isclose(l2["p"].max(), curves["p"].max())  # to the grid's end, or a limit of its own
    up_to = (f"; Lemma 2's exact quilts still certify one {'over the whole grid, to' if whole else 'up to'} "
             f"2p − 1 = {2 * l2['p'].max() - 1:.2g}" if len(l2) else "")
    if x is None:
        return "Lemma 3 (Markov blanket) certifies a DP level at every correlation drawn" + up_to
    per_tau = {t: lemma3_gives_up(g) for t, g in curves.groupby("tau")}
    found = {t: v for t, v in per_tau.items() if v is not None}
    if len(set(found.values())) == 1:
        return f"Lemma 3 (Markov blanket) certifies no DP level at correlation 2p − 1 ≥ {_number(x)}" + up_to
    taus = sorted(found)  # one threshold per panel, in the panels' order
    return (f"Lemma 3 (Markov blanket) certifies no DP level once 2p − 1 ≥ "
            f"{', '.join(_number(found[t]) for t in taus)} at τ = {', '.join(f'{t:g}' for t in taus)}"
            + up_to.replace("; ", ";\n"))


def _runs(frame: pd.DataFrame, mask: np.ndarray) -> list[pd.DataFrame]:
    """The maximal runs of consecutive rows of ``frame`` where ``mask`` is true (e.g. the stretches of correlation
    where Lemma 3 is infeasible), each drawn as one range rather than as points."""
    runs, start = [], None
    for i, m in enumerate([*mask, False]):
        if m and start is None:
            start = i
        elif not m and start is not None:
            runs.append(frame.iloc[start:i])
            start = None
    return runs


#: Lemma 4's dashes, long and short by turns over c, and its lines thinner as c grows (drawn in that order): curves of
#: neighbouring c that nearly coincide still show both colours.
LEMMA4_DASHES = ((0, (4, 2)), (2, (2, 1.5)))  # the second dash phase-shifted: coinciding curves interleave


def conversion_figure(curves: pd.DataFrame, n: int, table: pd.DataFrame | None = None):
    """eps' vs correlation 2p - 1 of the binary chain (log-log), one panel per tau: Lemma 2 black, Lemma 3 with
    markers, the correlations where it is infeasible as a range in a strip under an axis break, Lemma 4 dashed in
    sequential colours for c (long and short dashes by turns, thinner as c grows, so close curves stay apart); on
    that range, rings at the tabulated binary chains where Lemma 3 is infeasible, the points its claim (row
    lemma3-feasible) tests."""
    curves = curves.assign(corr=2 * curves["p"] - 1)
    taus = sorted(curves["tau"].unique())
    fig, axes = panel_grid(len(taus), max_cols=3, size=(3.33, 3.7), sharey=True)
    cs = sorted(c for c in curves["c"].dropna().unique())
    c_colours = ordinal_colors(len(cs))
    l3_colour = OKABE_ITO["orange"]
    feasible = curves[curves["feasible"]]
    floor = 0.6 * feasible["eps_dp"].min()  # just under the lowest level drawn: no empty decade
    top = feasible["eps_dp"].max() * 2.5  # just over the highest level drawn
    strip = []
    for ax, tau in zip(axes, taus):
        sub = curves[np.isclose(curves["tau"], tau)]
        ax.axhline(tau / 3, color=COLORS["reference"], ls=":", lw=1.4, label="ε = τ/3 (independent records)")
        l2 = sub[(sub["method"] == "lemma2") & sub["feasible"]]
        ax.plot(l2["corr"], l2["eps_dp"], "-", color="black", lw=2, label="Lemma 2 (exact quilts)", zorder=4)  # over
        # Lemma 3's markers where the two coincide (small correlation), so neither hides the other
        for j, c in enumerate(cs):
            l4 = sub[(sub["method"] == "lemma4") & np.isclose(sub["c"], c) & sub["feasible"]]
            ax.plot(l4["corr"], l4["eps_dp"], ls=LEMMA4_DASHES[j % 2], lw=2.8 - 1.2 * j / max(len(cs) - 1, 1),
                    color=c_colours[j], label=f"Lemma 4's h, c = {c:g}")
        l3 = sub[sub["method"] == "lemma3"]
        ok = l3[l3["feasible"]]
        ax.plot(ok["corr"], ok["eps_dp"], "-o", color=l3_colour, ms=4, label="Lemma 3 (Markov blanket)")
        for run in _runs(l3.sort_values("corr"), ~l3.sort_values("corr")["feasible"].to_numpy()):
            strip.append(ax.plot(run["corr"], np.ones(len(run)), "-", color=l3_colour, lw=4, solid_capstyle="butt",
                                 marker="|" if len(run) == 1 else None, ms=9, mew=4,
                                 label="Lemma 3: no positive ε′ (infeasible)")[0])
        if table is not None:  # the claim's points: the tabulated binary chains
            tab = table[(table["method"] == "lemma3") & ~table["feasible"] & np.isclose(table["tau"], tau)
                        & table["chain"].str.startswith("binary")]
            strip.append(ring(ax, tab["correlation"], np.ones(len(tab)),
                              label="claim does not hold here: Lemma 3 infeasible", size=26))
        ax.set_xscale("log")
        ax.set_yscale("log")
        log_axis(ax)
        ax.set_xlabel("correlation 2p − 1")
        ax.set_title(rf"$\tau={tau:g}$, $\varepsilon=\tau/3$")
    y = floor_band(axes, floor, top, "none")
    for ax in axes:  # the strip's break line solid: dashed lines here are Lemma 4's
        ax.lines[-1].set_linestyle("-")
    for artist in strip:  # the strip's markers at its height
        if artist is None:
            continue
        if hasattr(artist, "set_ydata"):
            artist.set_ydata(np.full(len(artist.get_xdata()), y))
        else:
            artist.set_offsets(np.column_stack([artist.get_offsets()[:, 0], np.full(len(artist.get_offsets()), y)]))
    for ax, tau in zip(axes, taus):  # where the infeasible range starts, named on it
        start = lemma3_gives_up(curves[np.isclose(curves["tau"], tau)])
        if start is not None:  # just above the strip at the start, clear of the bar and the rings
            ax.annotate(f"from {_number(start)}", (start, y), textcoords="offset points", xytext=(0, 9),
                        ha="left", va="bottom", fontsize=SIZES["tick"], color="black")
    axes[0].set_ylabel("DP level ε′ implying ε-BDP")
    verdict_title(fig, conversion_verdict(curves), f"a binary symmetric chain of n = {n:,} records, stay probability p")
    legend_below(fig, axes, ncol=3)
    return fig


Q_LEMMA4_LOWER = (r"As noted, $h(\epsilon, g, \rho)$ is a lower bound of ϵ' , which implies that "
                  r"$1/[h(\epsilon, g, \rho)]$ is an upper bound of $1/\epsilon'$ (i.e., the term in (32)).")
Q_LEMMA3 = (r"Letting X_{Q_i} in (10) take just the Markov blanket of X_i since the Markov blanket is a special case "
            r"of the Markov quilt as discussed on Page 4, we can replace (10) by")
Q_SEC52 = (r"The above result and Lemma 2 together imply that Algorithm 1 is $\epsilon$-Bayesian differential private "
           r"for $\epsilon=\min\limits_{i\in\{1,\ldots,n\}}~{}\max\limits_{\text{\rm Markov quilt }X_{Q_{i}}\text{ of "
           r"}X_{i}}\frac{\frac{9B\Delta_{Q}}{4\sigma}-4b_{i}}{|N_{i}|+1}$.")  # the HTML extraction's LaTeX
Q_EQ12 = (r"$$n \geq \max_{i \in \{1, \dots, n\}} \min_{\text{Markov quilt } X_{Q_i} \text{ of } X_i} "
          r"\frac{9B \cdot (|N_i| + 1)}{4\sigma \cdot (\tau/3 - 4b_i)}. \tag{12}$$")
Q_LEMMA4_SYMBOLS = (r"With $d\stackrel{{\scriptstyle\text{def}}}{{=}}\Big{\lceil}\frac{1}{g}\ln\frac{e^{c\epsilon}+1}"
                    r"{\rho(e^{c\epsilon}-1)}\Big{\rceil}$, $t\stackrel{{\scriptstyle\text{def}}}{{=}}\big{\lfloor}"
                    r"\frac{1}{g}\ln\frac{1}{\rho}\big{\rfloor}$ and $\xi_{t+1}\stackrel{{\scriptstyle\text{def}}}{{=}}"
                    r"\frac{e^{-g(t+1)}}{\rho}$, then for $n\geq 2d$, $\epsilon$-Bayesian differential "
                    r"privacy is implied by $h(\epsilon,g,\rho)$-differential privacy, where [...] "
                    r"$$h(\epsilon, g, \rho) \stackrel{def}{=} \min \left\{ \frac{(1 - 6c)\epsilon}{2d - 1}, "
                    r"\frac{(\frac{1}{3} - 2c)\epsilon}{d + s} \right\}.$$")
#: Lemma 4 as stated (Zhao section 5.1): the symbols it defines and the symbols its h of eq. (11) uses.
LEMMA4_DEFINED = ("g", "rho", "c", "d", "t", "xi_{t+1}")
LEMMA4_H_USES = ("eps", "c", "d", "s")


def lemma4_statement_symbols() -> tuple[list[str], list[str]]:
    """(symbols h of Lemma 4's eq. (11) uses that the lemma does not define, symbols it defines that h does not
    use), from the two symbol lists typed from the statement (eps is the lemma's argument)."""
    undefined = [s for s in LEMMA4_H_USES if s not in LEMMA4_DEFINED + ("eps",)]
    unused = [s for s in LEMMA4_DEFINED if s not in LEMMA4_H_USES + ("g", "rho")]
    return undefined, unused


def conversion_claims(params, table: pd.DataFrame) -> list[Claim]:
    oid = "zhao-bdp-conversion"
    n = params["n"]
    claims = []
    conv = code_name(lemmas.convert_chain)

    l3 = table[table["method"] == "lemma3"]
    chk = check_grid(l3["feasible"], l3, ("chain", "eps_bdp"))
    bad = l3[~l3["feasible"]]
    claims.append(Claim(
        output_id=oid, claim_id="lemma3-feasible",
        source="this project (Zhao 2017, Lemma 3 at the configured chains and eps = tau/3)",
        claim="Lemma 3's eps' = min_i (eps - 4 a_i) is positive (usable) at this project's chains and eps = tau/3; "
              "the paper claims no particular setting, so a failure is a limitation of the Markov-blanket route, "
              "not an error",
        expected="eps > 4 a_i", measured=f"feasible in {int(l3['feasible'].sum())} of {len(l3)} (chain, tau) rows",
        status=chk.status,
        counterexample="" if bad.empty else f"{bad.iloc[0]['chain']}, eps={bad.iloc[0]['eps_bdp']:.4g}: "
                                            f"{bad.iloc[0]['detail']}",
        kind="project", code=conv))

    l4 = table[table["method"] == "lemma4"]
    chk = check_grid(l4["feasible"], l4, ("chain", "eps_bdp", "c"))
    claims.append(Claim(
        output_id=oid, claim_id="lemma4-preconditions",
        source="this project (Zhao 2017, Lemma 4's hypotheses at the configured settings)",
        claim="Lemma 4's preconditions (0 < c < 1/6, n >= 2d, aperiodic irreducible reversible chain) hold at this "
              "project's chains, eps = tau/3 and n",
        expected=f"n = {n} >= 2d", measured=chk.measured, status=chk.status, counterexample=chk.counterexample,
        kind="project", code=conv))

    # Lemma 4 lower-bounds the exact quilt eps' (proof of Theorem 2: "h is a lower bound of eps'")
    grid_p = sorted(set(params["figure_p"]) | set(params["binary_p"]) | {0.5001, 0.5003})
    chains = [(chain_label("binary", p=p), binary_chain(p)) for p in grid_p]
    chains += [(lab, P) for lab, P, _ in _chains(params) if lab.startswith("data-model")]
    ok, desc = [], []
    for label, P in chains:
        for eps in params["claim_eps"]:
            for nn in params["claim_n"]:
                e2 = convert_chain(eps, nn, P, "lemma2")
                if not e2.exact:  # only a lower bound of eps': no valid comparison
                    continue
                for c in params["lemma4_c"]:
                    r4 = convert_chain(eps, nn, P, "lemma4", c)
                    if not r4.feasible:
                        continue
                    ok.append(r4.eps_dp <= e2.eps_dp * (1 + 1e-12))
                    desc.append(f"{label}, n={nn}, eps={eps:g}, c={c:g}: h={r4.eps_dp:.4g} vs exact {e2.eps_dp:.4g}")
    chk = check_grid(ok, describe=lambda i: desc[i])
    claims.append(Claim(
        output_id=oid, claim_id="lemma4-below-exact", source=f"{SOURCE}, section 5.3 (after eq. (39)); Lemma 4",
        claim="h(eps, g, rho) (s from eq. (33)) is at most Lemma 2's exact-quilt eps' on chains where both apply",
        expected="h <= eps'_Lemma2",
        measured=f"{chk.measured} (feasible (chain, n, eps, c) points with an exact eps'); identity: Lemma 4 bounds "
                 "the influence of the quilts it uses from above, so h is Lemma 2's objective at one quilt with a "
                 "larger b, at most Lemma 2's max over quilts",
        status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_LEMMA4_LOWER, code=conv,
        strength="identity"))

    # Lemma 3 <= Lemma 2 (the blanket is one of the quilts)
    ok, desc, tot = [], [], 0
    for label, P in chains:
        for eps in params["claim_eps"]:
            tot += 1
            r3 = convert_chain(eps, n, P, "lemma3")
            if not r3.feasible:
                continue
            r2 = convert_chain(eps, n, P, "lemma2")
            ok.append(r3.eps_dp <= r2.eps_dp * (1 + 1e-12))
            desc.append(f"{label}, eps={eps:g}: Lemma 3 {r3.eps_dp:.4g} vs Lemma 2 {r2.eps_dp:.4g}")
    chk = check_grid(ok, describe=lambda i: desc[i])
    claims.append(Claim(
        output_id=oid, claim_id="lemma2-vs-lemma3", source=f"{SOURCE}, Lemmas 2-3",
        claim="Lemma 3 is Lemma 2 restricted to the Markov blanket, so its eps' is never larger than Lemma 2's",
        expected="eps'_L3 <= eps'_L2",
        measured=f"{chk.measured} (the {len(ok)} of {tot} (chain, eps) points where Lemma 3 is feasible); by "
                 "construction: Lemma 2's search includes the blanket, Lemma 3's only quilt",
        status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_LEMMA3, code=conv,
        strength="by construction"))

    # where Lemma 3 is feasible at all: the largest stay probability p* with eps > 4 a_i (binary chain)
    from scipy.optimize import brentq
    eps_min = min(params["tau"]) / 3
    f = lambda p: eps_min - 4 * lemma3_blanket_influence(n, binary_chain(p))
    p_star = brentq(f, 0.5 + 1e-12, 0.999)
    claims.append(Claim(
        output_id=oid, claim_id="lemma3-some-feasible", source="this project (Zhao 2017, Lemma 3)",
        claim="Lemma 3 gives a positive eps' for some correlated binary chain at the smallest configured eps = tau/3",
        expected="eps > 4 a_i for weak enough correlation",
        measured=f"binary chain, eps={eps_min:.4g}: feasible only for 0.5 < p < p* = {p_star:.6f} "
                 f"(correlation 2p-1 < {2 * p_star - 1:.2g}); identity: the blanket influence a_i falls to 0 as p "
                 "-> 1/2 (an independent chain), so eps > 4 a_i near p = 1/2 at every eps > 0; what is measured is "
                 "how near",
        status=verdict(p_star > 0.5, "statement"), kind="project", code=code_name(lemmas.lemma3_blanket_influence),
        strength="identity"))

    # Section 5.2's BDP-level sentence (a harmless slip) and eq. (12) (the right inversion)
    ok, desc, ok12, desc12 = [], [], [], []
    for label, P, _ in _chains(params):
        for eps_star in params["claim_eps"]:
            said = convert_chain(eps_star, n, P, "lemma2").eps_dp  # min_i max_Q (eps* - 4b)/(|N|+1)
            true = lemma2_eps_bdp(eps_star, n, P)  # max_i min_Q ((|N|+1) eps* + 4 b)
            ok.append(said >= true * (1 - 1e-12))
            desc.append(f"{label}, eps*={eps_star:g}: the sentence's eps = {said:.4g} < {true:.4g}, the BDP level "
                        f"Lemma 2 certifies for an eps*-DP mechanism")
        for tau in params["tau"]:
            ep = convert_chain(tau / 3, n, P, "lemma2").eps_dp  # (12)'s second term is 9B/(4 sigma eps')
            n12 = 9 * params["B"] / (4 * 1.0 * ep)  # at sigma = 1 (sigma scales both sides)
            eps_star = 9 * params["B"] / (4 * 1.0 * n12)  # Algorithm 1's DP level at n = (12)
            bdp = lemma2_eps_bdp(eps_star, n, P)
            ok12.append(bdp <= tau / 3 * (1 + 1e-9))
            desc12.append(f"{label}, tau={tau:g}: BDP level {bdp:.6g} > tau/3 = {tau / 3:.6g} at n = (12)")
    chk = check_grid(ok, describe=lambda i: desc[i])
    chk12 = check_grid(ok12, describe=lambda i: desc12[i])
    claims.append(Claim(
        output_id=oid, claim_id="sec52-bdp-level",
        source=f"{SOURCE}, proof of Theorem 1 (section 5.2, first paragraph)",
        claim="an eps*-DP Algorithm 1 is eps-BDP for eps = min_i max_Q (eps* - 4 b_i)/(|N_i|+1) (this applies "
              "Lemma 2's formula eps -> eps' to eps*, i.e. inverts Lemma 2 the wrong way; the right inverse is "
              "max_i min_Q ((|N_i|+1) eps* + 4 b_i)). A harmless slip: eq. (12) and n_# use the right inversion "
              "(row eq12-right-inversion), so Theorems 1-2 are unaffected",
        expected="the sentence's eps >= Lemma 2's certified BDP level",
        measured=chk.measured + "; identity: (eps* - 4 b)/(|N|+1) <= eps* <= (|N|+1) eps* + 4 b, both strict when a "
                                "record has a nearby set or an influence b > 0, as on every correlated chain",
        status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_SEC52,
        code=code_name(lemmas.lemma2_eps_bdp), strength="identity"))
    claims.append(Claim(
        output_id=oid, claim_id="eq12-right-inversion", source=f"{SOURCE}, proof of Theorem 1, eq. (12)",
        claim="at n = (12)'s bound, Algorithm 1's DP level eps* = 9B/(4 sigma n) is certified tau/3-BDP by Lemma 2's "
              "right inverse max_i min_Q ((|N_i|+1) eps* + 4 b_i) (so (12), n_# and Theorems 1-2 do not depend on "
              "the slip of sec52-bdp-level)",
        expected="BDP level <= tau/3", measured=chk12.measured + " ((chain, tau) points); by construction: (12)'s n "
                                                                  "is solved from Lemma 2's conversion at tau/3, so "
                                                                  "eps* is that conversion's eps' and its certified "
                                                                  "level is tau/3 again",
        status=chk12.status, counterexample=chk12.counterexample, kind="paper", quote=Q_EQ12,
        code=code_name(lemmas.lemma2_eps_bdp), strength="by construction"))

    undefined, unused = lemma4_statement_symbols()
    ok = not undefined and not unused
    claims.append(Claim(
        output_id=oid, claim_id="lemma4-statement-symbols",
        source=f"{SOURCE}, Lemma 4 (eq. (11)) and proof of Theorem 2 (eq. (33))",
        claim="Lemma 4's h(eps, g, rho) is determined by the quantities the lemma defines",
        expected="every symbol of h defined, every defined symbol used",
        measured="identity: the printed statement decides it; "
                 f"h uses {', '.join(LEMMA4_H_USES)}; the lemma defines {', '.join(LEMMA4_DEFINED)}: undefined in "
                 f"the statement: {', '.join(undefined) or 'none'}; defined but unused: "
                 f"{', '.join(unused) or 'none'}. This "
                 "project takes s = floor((1/g) ln[(e^{eps/6}+1)/(rho (e^{eps/6}-1))]) from eq. (33) of the proof of "
                 "Theorem 2; with it h lower-bounds Lemma 2's eps' (row lemma4-below-exact)",
        status=verdict(ok, "statement"),
        counterexample="" if ok else "s undefined in the statement; t, xi_{t+1} unused",
        kind="slip", quote=Q_LEMMA4_SYMBOLS, code=code_name(lemma4_statement_symbols), strength="identity"))
    claims.append(eq38_row(oid, params, _chains(params)))
    return claims


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-bdp-conversion (the output contract of catalogue.py); ``params`` = the complete
    ``theory.zhao.bdp_conversion`` block plus ``seed``."""
    if output_id == "zhao-bdp-conversion":
        table = conversion_table(params)
        return (table, conversion_figure(conversion_curves(params), params["n"], table),
                conversion_claims(params, table))
    raise ValueError(f"{__name__} does not build {output_id!r}")
