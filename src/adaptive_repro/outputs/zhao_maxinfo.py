"""zhao-maxinfo: Zhao 2017 Theorem 3 (BDP implies a bound on approximate max-information) against the bound
eps n log e of Dwork et al.'s Theorem 19 that Zhao compares it with. Pure builders.

Parameters: config block ``theory.zhao.maxinfo`` (src/adaptive_repro/schemas/theory_zhao.schema.yaml), complete, plus
``seed``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.bounds import zhao as zb
from adaptive_repro.outputs.zhao_proof_checks import eq50_row, theorem3_proof_rows
from adaptive_repro.outputs.zhao_quilts import SOURCE
from adaptive_repro.registry import Claim, check_grid, code_name

Q_THM3_WEAKER = (r"Theorem 19 of Dwork et al. [12] give a simple bound $\epsilon n \log e$ that is weaker than that of "
                 r"our Theorem 3.")
CODE = code_name(zb.theorem3_maxinfo_bound)


def maxinfo_table(params) -> pd.DataFrame:
    """Both bounds on the (eps, n) grid of the ``theory.zhao.maxinfo`` block ``params``."""
    eps = np.geomspace(params["eps_min"], params["eps_max"], params["eps_points"])
    rows = []
    for n in params["n_grid"]:
        t3 = zb.theorem3_maxinfo_bound(eps, n, params["beta"])
        dw = zb.dwork_maxinfo_bound(eps, n)
        for e, a, b in zip(eps, t3, dw):
            rows.append(dict(eps=e, n=n, beta=params["beta"], theorem3_bits=a, dwork_thm19_bits=b, ratio=a / b,
                             theorem3_tighter=bool(a < b)))
    return pd.DataFrame(rows)


from adaptive_repro.plotting import COLORS, legend_below, log_axis, ordinal_colors, pyplot  # noqa: E402


def maxinfo_figure(table: pd.DataFrame):
    fig, axes = pyplot().subplots(1, 2, figsize=(13, 5.2))
    ns = sorted(table["n"].unique())
    for n, col in zip(ns, ordinal_colors(len(ns))):
        sub = table[table["n"] == n]
        axes[0].plot(sub["eps"], sub["theorem3_bits"], "-", color=col, label=f"n = {n:,}")
        axes[0].plot(sub["eps"], sub["dwork_thm19_bits"], "--", color=col)
        axes[1].plot(sub["eps"], sub["ratio"], "-", color=col)
    axes[0].plot([], [], "-", color="grey", label="Zhao Theorem 3 (solid)")
    axes[0].plot([], [], "--", color="grey", label="Dwork et al. Theorem 19 (dashed)")
    axes[0].set_xlabel(r"$\varepsilon$")
    axes[0].set_ylabel("bound on max-information (bits)")
    axes[0].set_title(r"Zhao Thm 3: $(2\varepsilon^2 n+\varepsilon\sqrt{2n\ln(2/\beta)})\log e$"
                      "\n" r"Dwork et al. Thm 19: $\varepsilon n\log e$")
    axes[1].axhline(1.0, color=COLORS["reference"], lw=1.2, label="ratio 1 (below: Theorem 3 tighter)")
    axes[1].axvline(0.5, color=COLORS["reference"], ls=":", lw=1.2, label=r"$\varepsilon = 1/2$")
    axes[1].set_xlabel(r"$\varepsilon$")
    axes[1].set_ylabel("Theorem 3 / (ε n log e)")
    axes[1].set_title(rf"ratio < 1 iff $2\varepsilon+\sqrt{{2\ln(2/\beta)/n}}<1$, $\beta$ = {table['beta'].iloc[0]:g}")
    for ax in axes:
        log_axis(ax)
    axes[1].grid(alpha=0.3, which="both")
    fig.suptitle("Zhao Theorem 3 vs Dwork et al. Theorem 19: max-information of an ε-DP algorithm")
    legend_below(fig, axes)
    return fig


def maxinfo_claims(params, table: pd.DataFrame) -> list[Claim]:
    oid = "zhao-maxinfo"
    beta = params["beta"]
    src = f"{SOURCE}, text after Theorem 3"
    chk = check_grid(table["theorem3_tighter"], table, ("eps", "n", "theorem3_bits", "dwork_thm19_bits"))
    claims = [Claim(
        output_id=oid, claim_id="thm3-weaker-everywhere", source=src,
        claim="reading 1 (literal, every eps and n): eps n log e >= Theorem 3's bound at every (eps, n) of the "
              "grid. Theorem 3 / (eps n log e) = 2 eps + sqrt(2 ln(2/beta)/n), so this reading fails for eps >= 1/2 "
              "and for small n; see thm3-weaker-where-used for the reading at the paper's own use",
        expected="Theorem 3 < eps n log e", measured=chk.measured + " ((eps, n) points); " + _region_text(table, beta),
        status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_THM3_WEAKER, code=CODE)]
    n = params["n"]
    taus = np.asarray(params["tau"], dtype=float)
    pts = pd.DataFrame({"tau": taus, "eps": taus / 3, "n": n})
    pts["theorem3_bits"] = zb.theorem3_maxinfo_bound(pts["eps"], n, beta)
    pts["dwork_thm19_bits"] = zb.dwork_maxinfo_bound(pts["eps"], n)
    chk = check_grid(pts["theorem3_bits"] < pts["dwork_thm19_bits"], pts, ("tau", "eps", "n"))
    claims.append(Claim(
        output_id=oid, claim_id="thm3-weaker-where-used",
        source=f"{SOURCE}, text after Theorem 3; Theorem 3 as used by Lemma 1 (eps <= tau/3)",
        claim="reading 2 (where the paper uses Theorem 3): at eps = tau/3 with tau in the configured grid and n = "
              "theory.zhao.maxinfo.n, Theorem 3's bound is below eps n log e",
        expected="Theorem 3 < eps n log e",
        measured=chk.measured + ": " + ", ".join(f"tau={r.tau:g}: {r.theorem3_bits:.3g} vs "
                                                 f"{r.dwork_thm19_bits:.3g} bits" for r in pts.itertuples()),
        status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_THM3_WEAKER, code=CODE))
    region = zb.theorem3_tighter_region(table["eps"], table["n"], beta)
    got = (table["theorem3_bits"] < table["dwork_thm19_bits"]).to_numpy()
    chk = check_grid(np.asarray(region) == got, table, ("eps", "n"))
    claims.append(Claim(
        output_id=oid, claim_id="thm3-region", source="this project (algebra on Zhao Theorem 3)",
        claim="Theorem 3's bound is below eps n log e exactly when 2 eps + sqrt(2 ln(2/beta)/n) < 1 (never for "
              "eps >= 1/2)",
        expected="the region formula agrees with the two bounds at every grid point", measured=chk.measured,
        status=chk.status, counterexample=chk.counterexample, kind="project", strength="identity",
        code=code_name(zb.theorem3_tighter_region)))
    return claims + theorem3_proof_rows(oid, params) + [eq50_row(oid)]


def _region_text(table: pd.DataFrame, beta: float) -> str:
    """Where Theorem 3 is the tighter bound, per n of the grid: eps < (1 - sqrt(2 ln(2/beta)/n))/2 (thm3-region)."""
    parts = []
    for n in sorted(table["n"].unique()):
        limit = (1 - np.sqrt(2 * np.log(2 / beta) / n)) / 2
        parts.append(f"n = {n:,.0f}: eps < {limit:.3g}" if limit > 0 else f"n = {n:,.0f}: no eps")
    return ("Theorem 3 is the tighter bound exactly where 2 eps + sqrt(2 ln(2/beta)/n) < 1, i.e. " + "; ".join(parts)
            + f" (beta = {beta:g}); the sentence holds there and fails outside")


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-maxinfo (the output contract of catalogue.py); ``params`` = the complete
    ``theory.zhao.maxinfo`` block plus ``seed``."""
    if output_id != "zhao-maxinfo":
        raise ValueError(f"{__name__} does not build {output_id!r}")
    table = maxinfo_table(params)
    return table, maxinfo_figure(table), maxinfo_claims(params, table)
