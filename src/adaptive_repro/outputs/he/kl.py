"""he-kl: He Lemma 5's KL bound for eps-DP algorithms against the bounds He compares it with (Dwork et al.;
Dwork & Rothblum, eq. (9)) and against exact KL divergences (randomized response, Laplace mechanism).

build(output_id, params, inputs) -> (table, figure, claims), params = the complete ``theory.he.kl`` block plus
``seed``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import groundtruth as gt
from adaptive_repro.bounds import he
from adaptive_repro.foundation.registry import Claim, code_name
from adaptive_repro.outputs.he.common import HE, QUOTES, claim
from adaptive_repro.report.plotting import legend_below, log_axis, ring, style, verdict_title
from adaptive_repro.report.plotting import pyplot as plt

KL_METHODS = {
    "lemma5": (r"He Lemma 5: $\varepsilon \tanh(\varepsilon/2)$", he.kl_lemma5),
    "dwork_rothblum": (r"Dwork–Rothblum eq. (9): $\varepsilon(e^{\varepsilon}-1)/2$", he.kl_dwork_rothblum),
    "dwork_et_al": (r"Dwork–Rothblum–Vadhan 2010 (He's Dwork et al.): $\varepsilon(e^{\varepsilon}-1)$",
                    he.kl_dwork_et_al),
    "randomized_response_exact": ("exact KL, randomized response", gt.kl_randomized_response),
    "laplace_exact": ("exact KL, Laplace mechanism", gt.kl_laplace),
}


def kl_table(params: dict) -> pd.DataFrame:
    """Tidy table: eps, method, kind (bound|exact), kl (one row per eps and bound/exact value)."""
    eps = np.geomspace(params["eps_min"], params["eps_max"], int(params["points"]))
    rows = []
    for method, (_, fn) in KL_METHODS.items():
        kind = "exact" if method.endswith("exact") else "bound"
        for e, v in zip(eps, np.asarray(fn(eps))):
            rows.append({"eps": e, "method": method, "kind": kind, "kl": float(v)})
    return pd.DataFrame(rows)


#: Plotting key of each bound He compares (Lemma 5 is He's method, "he"): one colour per method in every He figure;
#: Dwork et al. [20] is Dwork, Rothblum, Vadhan 2010 (the "drv" of he-composition). The exact KLs are black with their
#: own markers, like every exact reference.
BOUND_KEYS = {"dwork_rothblum": "dwork_rothblum", "dwork_et_al": "drv"}
#: Open markers of the exact KLs (not circles: an open circle is a failing-claim ring in every figure).
EXACT_MARKERS = {"randomized_response_exact": "D", "laplace_exact": "s"}


def kl_wide(table: pd.DataFrame) -> pd.DataFrame:
    """One row per eps, one column per method (the table pivoted), for the claims and the figure."""
    return table.pivot(index="eps", columns="method", values="kl").reset_index()


def kl_checks(w: pd.DataFrame) -> dict[str, pd.Series]:
    """Per eps, whether each claim's inequality holds (the claims' verdicts; the figure rings the False points)."""
    tol = 1e-12
    return {"lemma5-le-dwork-rothblum": w.lemma5 <= w.dwork_rothblum * (1 + tol),
            "dwork-rothblum-le-dwork": w.dwork_rothblum <= w.dwork_et_al * (1 + tol),
            "dr-factor": pd.Series(np.isclose(w.dwork_rothblum / w.lemma5, (1 + np.exp(w.eps)) / 2, rtol=1e-9)),
            "lemma5-valid-rr": w.lemma5 >= w.randomized_response_exact * (1 - 1e-9),
            "lemma5-valid-laplace": w.lemma5 >= w.laplace_exact * (1 - tol)}


def kl_verdict(w: pd.DataFrame, checks: dict) -> str:
    """The figure's one message, from the claims' per-eps checks: does Lemma 5 bound both exact KLs, is it attained,
    and how much larger Dwork-Rothblum's bound is."""
    bad = ~(checks["lemma5-valid-rr"] & checks["lemma5-valid-laplace"])
    if bad.any():
        head = f"Lemma 5 is below an exact KL at {int(bad.sum())} of {len(w)} ε"
    else:
        head = "Lemma 5 bounds both exact KLs"
        if float(np.max(np.abs(w.randomized_response_exact / w.lemma5 - 1))) < 1e-6:
            head += " and is attained by randomized response"
    ratio = w.dwork_rothblum / w.lemma5
    i = int(np.argmax(ratio))
    factor = r"$(1+e^{\varepsilon})/2$ times" if checks["dr-factor"].all() else "up to"
    times = f"{ratio[i]:,.0f}" if ratio[i] >= 100 else f"{ratio[i]:.3g}"
    return f"{head};\nDwork–Rothblum's bound is {factor} larger, {times} times at ε = {w.eps[i]:g}"


def kl_figure(table: pd.DataFrame, params: dict):
    """One panel: every KL bound and both exact KLs divided by Lemma 5, against eps (Lemma 5 is the line at 1, so
    "tighter", "attained" and "by how much" read off one axis; the table holds the absolute values). Colours: Lemma 5
    in He's, the other bounds in their own, exact KLs black with markers; points where a claim fails are ringed."""
    pyplot = plt()
    w = kl_wide(table)
    checks = kl_checks(w)
    fig, ax = pyplot.subplots(figsize=(9.4, 4.4))
    every = max(1, len(w) // 30)  # markers of the exact KLs: about 15 per curve, the two curves' alternating
    ax.plot(w.eps, w.lemma5 / w.lemma5, color=style("he")["color"], gid="encoding:he", lw=2.4, zorder=3,
            label=KL_METHODS["lemma5"][0] + " (= 1)")
    for m, key in BOUND_KEYS.items():
        ax.plot(w.eps, w[m] / w.lemma5, color=style(key)["color"], gid=f"encoding:{key}", label=KL_METHODS[m][0])
    for i, (m, mk) in enumerate(EXACT_MARKERS.items()):  # at alternate grid points: both stay seen where they meet
        at = slice(i * every, None, 2 * every)
        ax.plot(w.eps[at], (w[m] / w.lemma5)[at], mk, ms=5 if mk == "D" else 5.5, mfc="none", color="black",
                label=KL_METHODS[m][0] + (" (attains Lemma 5)" if m.startswith("randomized") and
                                          checks["lemma5-valid-rr"].all() else ""))
    factor = (1 + np.exp(w.eps)) / 2
    on_dr = " (on the Dwork–Rothblum curve)" if checks["dr-factor"].all() else ""
    # dashed black over the curves, so that it shows where it lies on the Dwork–Rothblum ratio
    ax.plot(w.eps, factor, lw=1.3, ls=(0, (3, 2)), color="black", zorder=4,
            label=rf"$(1+e^{{\varepsilon}})/2$, He's stated factor{on_dr}")
    for cid, (num, den) in {"lemma5-valid-rr": ("randomized_response_exact", "lemma5"),
                            "lemma5-valid-laplace": ("laplace_exact", "lemma5"),
                            "lemma5-le-dwork-rothblum": ("lemma5", "lemma5"),
                            "dwork-rothblum-le-dwork": ("dwork_rothblum", "lemma5"),
                            "dr-factor": ("dwork_rothblum", "lemma5")}.items():
        bad = ~checks[cid].to_numpy()
        ring(ax, w.eps[bad], (w[num] / w[den])[bad], label="claim does not hold here")
    ax.set(xlabel="privacy level ε of the algorithm", ylabel="KL divergence ÷ Lemma 5's bound")
    log_axis(ax)
    _inset_near_one(ax, w, every)
    verdict_title(fig, kl_verdict(w, checks))
    legend_below(fig, [ax], ncol=2)
    return fig


def _inset_near_one(ax, w: pd.DataFrame, every: int) -> None:
    """A linear inset of the ratios between 0.6 and 2.3 (top left, where the main panel is empty): how far the exact
    KLs lie below Lemma 5 and the two older bounds above it, which the main log axis squeezes into its bottom."""
    inset = ax.inset_axes([0.07, 0.42, 0.4, 0.5])
    inset.plot(w.eps, np.ones(len(w)), color=style("he")["color"], lw=2.0, zorder=3)
    for m, key in BOUND_KEYS.items():
        inset.plot(w.eps, w[m] / w.lemma5, color=style(key)["color"], lw=1.4)
    for i, (m, mk) in enumerate(EXACT_MARKERS.items()):
        at = slice(i * every, None, 2 * every)
        inset.plot(w.eps[at], (w[m] / w.lemma5)[at], mk, ms=4, mfc="none", color="black")
    inset.set_ylim(0.6, 2.3)
    inset.set_title("near 1, linear", fontsize=9.5)
    inset.set_xscale("log")
    log_axis(inset, "x")
    inset.tick_params(labelsize=9)
    inset.set_facecolor("white")


#: This project's reading of "considerably looser": a bound at least this factor above Lemma 5's.
CONSIDERABLY = 1.1


def kl_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-kl"
    w = kl_wide(table)
    ok = kl_checks(w)
    ratio = w.dwork_rothblum / w.lemma5
    rr_gap = np.max(np.abs(w.lemma5 / w.randomized_response_exact - 1))
    return [
        claim(oid, "lemma5-le-dwork-rothblum", "paper", f"{HE}, Section 4.2.1 (Lemma 5 vs eq. (9))",
              "Lemma 5's KL bound is at most Dwork-Rothblum's (1/2) eps (e^eps - 1)", "Lemma 5 <= eq. (9)",
              ok["lemma5-le-dwork-rothblum"], w, ["eps", "lemma5", "dwork_rothblum"],
              code=code_name(he.kl_lemma5), quote=QUOTES["kl_looser"], strength="identity",
              note="identity: eq. (9) / Lemma 5 = (1 + e^eps)/2 >= 1 for every eps >= 0"),
        claim(oid, "considerably-looser", "paper", f"{HE}, Section 4.2.1 (Lemma 5 vs eq. (9) and Dwork et al.)",
              "the word 'considerably' (the other reading, '<=', is row lemma5-le-dwork-rothblum): this project takes "
              f"it as at least {CONSIDERABLY - 1:.0%} above Lemma 5 at every eps of the grid, for both eq. (9) "
              "(ratio (1 + e^eps)/2) and Dwork et al.'s eps (e^eps - 1) (ratio 1 + e^eps >= 2)",
              f"both ratios >= {CONSIDERABLY:g}",
              (ratio >= CONSIDERABLY) & (w.dwork_et_al / w.lemma5 >= CONSIDERABLY), w.assign(ratio=ratio),
              ["eps", "ratio"], code=code_name(he.kl_dwork_rothblum), quote=QUOTES["kl_looser"],
              note=f"eq. (9) is {CONSIDERABLY - 1:.0%} or more above Lemma 5 only from eps = "
                   f"{np.log(2 * CONSIDERABLY - 1):.3g} (where (1 + e^eps)/2 = {CONSIDERABLY:g}); at the grid's "
                   f"smallest eps = {w.eps.min():.3g} it is {ratio.min():.5g} times Lemma 5; Dwork et al.'s is at "
                   "least twice Lemma 5 everywhere"),
        claim(oid, "dwork-rothblum-le-dwork", "paper", f"{HE}, Section 4.2.1",
              "Dwork-Rothblum's bound improves Dwork et al.'s eps (e^eps - 1)", "eq. (9) <= Dwork et al.",
              ok["dwork-rothblum-le-dwork"], w, ["eps", "dwork_rothblum", "dwork_et_al"],
              code=code_name(he.kl_dwork_rothblum), quote=QUOTES["dr_improved"], strength="identity",
              note="identity: (1/2) eps (e^eps - 1) <= eps (e^eps - 1) for every eps >= 0"),
        claim(oid, "dr-factor", "paper", f"{HE}, Section 4.2.1 after eq. (9)",
              "eq. (9) is larger than Lemma 5 by the factor (1+e^eps)/2", "ratio = (1+e^eps)/2",
              ok["dr-factor"], w, ["eps"], code=code_name(he.kl_dwork_rothblum),
              quote=QUOTES["dr_factor"],
              note="identity: (1/2) eps (e^eps - 1) / (eps tanh(eps/2)) = (1 + e^eps)/2 for every eps > 0; "
                   f"largest ratio on the grid {ratio.max():.4g} at eps={w.eps.max():.3g}",
              strength="identity"),
        claim(oid, "lemma5-valid-rr", "paper", f"{HE}, Lemma 5 (ground truth: randomized response)",
              "Lemma 5 upper-bounds the exact KL of eps-DP randomized response (KL computed from its definition "
              "sum p log(p/q), not from Lemma 5's closed form)", "Lemma 5 >= KL(RR)",
              ok["lemma5-valid-rr"], w, ["eps", "lemma5", "randomized_response_exact"],
              code=code_name(gt.kl_randomized_response), quote=QUOTES["lemma5"],
              note="identity: the KL of eps-randomized response is eps tanh(eps/2), Lemma 5's closed form; "
                   f"largest |Lemma 5 / KL(RR) - 1| = {rr_gap:.1e}: Lemma 5 is attained (tight); randomized "
              "response's KL equals Lemma 5's closed form for every eps, so this row checks an identity (the Laplace "
              "row is the test that could fail)", strength="identity"),
        claim(oid, "lemma5-valid-laplace", "paper", f"{HE}, Lemma 5 (ground truth: Laplace mechanism)",
              "Lemma 5 upper-bounds the exact KL of the eps-DP Laplace mechanism", "Lemma 5 >= KL(Laplace)",
              ok["lemma5-valid-laplace"], w, ["eps", "lemma5", "laplace_exact"],
              code=code_name(gt.kl_laplace), quote=QUOTES["lemma5"]),
    ]


def build(output_id: str, params: dict, inputs: dict | None = None):
    """(table, figure, claims) of he-kl."""
    if output_id != "he-kl":
        raise ValueError(f"he.kl builds he-kl, not {output_id!r}")
    t = kl_table(params)
    return t, kl_figure(t, params), kl_claims(t, params)

