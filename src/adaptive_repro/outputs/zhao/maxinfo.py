"""zhao-maxinfo: Zhao 2017 Theorem 3 (BDP implies a bound on approximate max-information) against the bound
eps n log e of Dwork et al.'s Theorem 19 that Zhao compares it with. Pure builders.

Parameters: config block ``theory.zhao.maxinfo`` (src/adaptive_repro/schemas/theory_zhao.schema.yaml), complete, plus
``seed``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.bounds import zhao as zb
from adaptive_repro.foundation.registry import Claim, check_grid, code_name
from adaptive_repro.outputs.zhao.proof_checks import eq50_row, theorem3_proof_rows
from adaptive_repro.outputs.zhao.quilts import SOURCE

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


from adaptive_repro.report.plotting import (  # noqa: E402
    COLORS,
    MAX_WIDTH,
    SHADE,
    SIZES,
    legend_below,
    log_axis,
    ordinal_colors,
    pyplot,
    ring,
    verdict_title,
)


def usage_points(params) -> pd.DataFrame:
    """Where Zhao uses Theorem 3 (Lemma 1: eps = tau/3) at the block's n: both bounds (row thm3-weaker-where-used)."""
    n, beta = params["n"], params["beta"]
    pts = pd.DataFrame({"tau": np.asarray(params["tau"], dtype=float)})
    pts["eps"], pts["n"] = pts["tau"] / 3, n
    pts["theorem3_bits"] = zb.theorem3_maxinfo_bound(pts["eps"], n, beta)
    pts["dwork_thm19_bits"] = zb.dwork_maxinfo_bound(pts["eps"], n)
    return pts


def maxinfo_verdict(table: pd.DataFrame, pts: pd.DataFrame) -> str:
    """The figure's one message: at how many grid points the literal reading of "weaker" fails (eps n log e is the
    smaller bound), and whether Theorem 3 is the smaller bound where Zhao uses it."""
    bad, used = int((~table["theorem3_tighter"].astype(bool)).sum()), int(
        (pts["theorem3_bits"] < pts["dwork_thm19_bits"]).sum())
    where = (f"Theorem 3 is the smaller at all {len(pts)} points where Zhao uses it" if used == len(pts)
             else f"Theorem 3 is the smaller at only {used} of {len(pts)} points where Zhao uses it")
    head = (f"ε n log e is the smaller bound at {bad} of {len(table)} grid points (literal reading fails);"
            if bad else f"Theorem 3 is the smaller bound at all {len(table)} grid points;")
    return f"{head}\n{where}"


def maxinfo_figure(table: pd.DataFrame, params):
    """Theorem 3 / (eps n log e) = 2 eps + sqrt(2 ln(2/beta)/n) against eps, one sequential colour per n: below 1
    Theorem 3 is the tighter bound; the region above 1 shaded: the literal reading of "weaker" fails at every curve's
    part there; a ring on each curve's first failing eps (curves failing first at the same grid eps share one label,
    their n's written beside it: the large-n curves cross 1 together near eps = 1/2). Zhao's own use
    (eps = tau/3 at n) marked. The bounds themselves stay in the table."""
    fig, ax = pyplot().subplots(figsize=(MAX_WIDTH, 4.6))  # the full width: the title is that wide anyway
    ns = sorted(table["n"].unique())
    for n, col in zip(ns, ordinal_colors(len(ns))):
        sub = table[table["n"] == n]
        ax.plot(sub["eps"], sub["ratio"], "-", color=col, label=f"n = {n:,}")
    ax.axhline(1.0, color=COLORS["reference"], lw=1.2, label="ratio 1: the two bounds are equal")
    log_axis(ax)
    lo, hi = ax.get_ylim()
    ax.axhspan(1.0, hi, **(SHADE | {"alpha": 0.16}), label="ε n log e is the smaller bound: the literal reading fails")
    ax.set_ylim(lo, hi)
    pts = usage_points(params)
    ax.plot(pts["eps"], pts["theorem3_bits"] / pts["dwork_thm19_bits"], "D", color="black", ms=7, ls="", zorder=25,
            label=f"where Zhao uses it: ε = τ/3, n = {int(params['n']):,}")
    _ring_first_failures(ax, table)
    ax.set_xlabel(r"privacy level $\varepsilon$")
    ax.set_ylabel("Theorem 3's bound / (ε · n · log e)")
    verdict_title(fig, maxinfo_verdict(table, pts) + f" (ratio 2ε + √(2 ln(2/β)/n), β = {params['beta']:g})")
    legend_below(fig, [ax], ncol=3)
    return fig


def _ring_first_failures(ax, table: pd.DataFrame) -> None:
    """Ring each n's first grid eps where the literal reading fails, on its own curve; n's whose first failure is at
    the same grid eps share one label there (the large-n curves cross 1 together near eps = 1/2)."""
    first = [(float(g["eps"].iloc[0]), float(g["ratio"].iloc[0]), int(n))
             for n, g in table[~table["theorem3_tighter"].astype(bool)].sort_values("eps").groupby("n")]
    groups: dict[float, list[tuple[float, int]]] = {}
    for eps, ratio, n in sorted(first):
        groups.setdefault(eps, []).append((ratio, n))
    for i, (eps, g) in enumerate(groups.items()):
        ring(ax, [eps] * len(g), [r for r, _ in g], label="claim does not hold here (each n's first failing ε)",
             size=110)  # small: neighbouring n's first failures lie close
        ns = sorted(n for _, n in g)
        words = f"n = {ns[0]:,}" + (f"–{ns[-1]:,}" if len(ns) > 1 else "")
        last = i == len(groups) - 1  # its words below and right (ratio < 1, eps > 1/2: empty); the others' up-left,
        # each a line higher than the one before (neighbouring first failures lie close in eps)
        ax.annotate(words, (eps, min(r for r, _ in g)), xytext=(12, -12) if last else (-12, 12 + 14 * i),
                    textcoords="offset points", ha="left" if last else "right", va="top" if last else "bottom",
                    fontsize=SIZES["note"], arrowprops={"arrowstyle": "-", "lw": 0.7, "shrinkB": 7})


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
    pts = usage_points(params)
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
        expected="the region formula agrees with the two bounds at every grid point",
        measured="identity: Theorem 3's bound < eps n log e rearranges to 2 eps + sqrt(2 ln(2/beta)/n) < 1; "
                 + chk.measured,
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
    return table, maxinfo_figure(table, params), maxinfo_claims(params, table)
