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
from adaptive_repro.outputs.he_common import HE, QUOTES, claim
from adaptive_repro.plotting import legend_below, log_axis, note, ordinal_colors
from adaptive_repro.plotting import pyplot as plt
from adaptive_repro.registry import Claim, code_name

KL_METHODS = {
    "lemma5": (r"He Lemma 5: $\varepsilon \tanh(\varepsilon/2)$", he.kl_lemma5),
    "dwork_rothblum": (r"Dwork-Rothblum eq. (9): $\varepsilon(e^{\varepsilon}-1)/2$", he.kl_dwork_rothblum),
    "dwork_et_al": (r"Dwork et al.: $\varepsilon(e^{\varepsilon}-1)$", he.kl_dwork_et_al),
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


def kl_figure(table: pd.DataFrame, params: dict):
    pyplot = plt()
    fig, axes = pyplot.subplots(1, 2, figsize=(13, 5.2))
    wide = table.pivot(index="eps", columns="method", values="kl")
    styles = {"lemma5": "-", "dwork_rothblum": "--", "dwork_et_al": ":", "randomized_response_exact": "o",
              "laplace_exact": "s"}
    colours = dict(zip(styles, ordinal_colors(len(styles))))
    for m, (label, _) in KL_METHODS.items():
        st = styles[m]
        if st.isalpha():
            axes[0].plot(wide.index[::6], wide[m].values[::6], st, ms=5, mfc="none", color=colours[m], label=label)
        else:
            axes[0].plot(wide.index, wide[m], st, color=colours[m], label=label)
    axes[0].set(xlabel="per-step privacy level ε", ylabel="KL divergence D(A(S) ‖ A(S'))",
                title="KL bounds for ε-DP and exact KL")
    axes[1].axhline(1.0, color=colours["lemma5"], lw=1.8)  # Lemma 5 / Lemma 5
    rr = wide["randomized_response_exact"] / wide["lemma5"]
    axes[1].plot(wide.index[::6], rr.values[::6], "o", ms=5, mfc="none", color=colours["randomized_response_exact"])
    for m in ["dwork_rothblum", "dwork_et_al"]:
        axes[1].plot(wide.index, wide[m] / wide["lemma5"], styles[m], color=colours[m])
    lap = wide["laplace_exact"] / wide["lemma5"]
    axes[1].plot(wide.index, lap, "-", lw=1, color=colours["laplace_exact"])
    axes[1].plot(wide.index[::6], lap.values[::6], "s", ms=5, mfc="none", color=colours["laplace_exact"])
    factor = (1 + np.exp(wide.index)) / 2
    axes[1].plot(wide.index, factor, "k:", lw=1.2, label=r"$(1+e^{\varepsilon})/2$ (He's stated factor)")
    said = []
    if np.allclose(wide["dwork_rothblum"] / wide["lemma5"], factor, rtol=1e-9):
        said.append(r"Dwork-Rothblum / Lemma 5 = $(1+e^{\varepsilon})/2$:" + "\nthe two curves coincide")
    said.append(f"randomized response ○ on the line 1\n(attains Lemma 5, within {float((rr - 1).abs().max()):.0e})")
    note(axes[1], "\n".join(said), x=0.03, y=0.6, ha="left")
    ratios = wide[["dwork_rothblum", "randomized_response_exact", "laplace_exact"]].div(wide["lemma5"], axis=0)
    close = wide.index[((ratios - 1).abs() < 0.05).all(axis=1)]
    if len(close) and close.min() == wide.index.min():
        note(axes[0], f"for ε ≤ {close.max():.2g}, Dwork-Rothblum and\nboth exact KLs lie on Lemma 5\n(within 5%: "
                      "see the ratios\non the right)", x=0.97, y=0.04, ha="right", va="bottom")
    axes[1].set(xlabel="per-step privacy level ε", ylabel="ratio to He Lemma 5",
                title="Looseness relative to Lemma 5 (ratio 1 = Lemma 5)")
    for ax in axes:
        log_axis(ax)
    fig.suptitle("He et al. Lemma 5: the KL divergence of an ε-DP step (markers: exact KL of two ε-DP mechanisms)")
    legend_below(fig, axes)
    return fig


def kl_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-kl"
    w = table.pivot(index="eps", columns="method", values="kl").reset_index()
    tol = 1e-12
    ratio = w.dwork_rothblum / w.lemma5
    factor = (1 + np.exp(w.eps)) / 2
    rr_gap = np.max(np.abs(w.lemma5 / w.randomized_response_exact - 1))
    return [
        claim(oid, "lemma5-le-dwork-rothblum", "paper", f"{HE}, Section 4.2.1 (Lemma 5 vs eq. (9))",
              "Lemma 5's KL bound is at most Dwork-Rothblum's (1/2) eps (e^eps - 1)", "Lemma 5 <= eq. (9)",
              w.lemma5 <= w.dwork_rothblum * (1 + tol), w, ["eps", "lemma5", "dwork_rothblum"],
              code=code_name(he.kl_lemma5), quote=QUOTES["kl_looser"], strength="identity"),
        claim(oid, "dwork-rothblum-le-dwork", "paper", f"{HE}, Section 4.2.1",
              "Dwork-Rothblum's bound improves Dwork et al.'s eps (e^eps - 1)", "eq. (9) <= Dwork et al.",
              w.dwork_rothblum <= w.dwork_et_al * (1 + tol), w, ["eps", "dwork_rothblum", "dwork_et_al"],
              code=code_name(he.kl_dwork_rothblum), quote=QUOTES["dr_improved"], strength="identity"),
        claim(oid, "dr-factor", "paper", f"{HE}, Section 4.2.1 after eq. (9)",
              "eq. (9) is larger than Lemma 5 by the factor (1+e^eps)/2", "ratio = (1+e^eps)/2",
              np.isclose(ratio, factor, rtol=1e-9), w, ["eps"], code=code_name(he.kl_dwork_rothblum),
              quote=QUOTES["dr_factor"], note=f"largest ratio on the grid {ratio.max():.4g} at eps={w.eps.max():.3g}",
              strength="identity"),
        claim(oid, "lemma5-valid-rr", "paper", f"{HE}, Lemma 5 (ground truth: randomized response)",
              "Lemma 5 upper-bounds the exact KL of eps-DP randomized response (KL computed from its definition "
              "sum p log(p/q), not from Lemma 5's closed form)", "Lemma 5 >= KL(RR)",
              w.lemma5 >= w.randomized_response_exact * (1 - 1e-9), w, ["eps", "lemma5", "randomized_response_exact"],
              code=code_name(gt.kl_randomized_response), quote=QUOTES["lemma5"],
              note=f"largest |Lemma 5 / KL(RR) - 1| = {rr_gap:.1e}: Lemma 5 is attained (tight); randomized "
              "response's KL equals Lemma 5's closed form for every eps, so this row checks an identity (the Laplace "
              "row is the test that could fail)", strength="identity"),
        claim(oid, "lemma5-valid-laplace", "paper", f"{HE}, Lemma 5 (ground truth: Laplace mechanism)",
              "Lemma 5 upper-bounds the exact KL of the eps-DP Laplace mechanism", "Lemma 5 >= KL(Laplace)",
              w.lemma5 >= w.laplace_exact * (1 - tol), w, ["eps", "lemma5", "laplace_exact"],
              code=code_name(gt.kl_laplace), quote=QUOTES["lemma5"]),
    ]


def build(output_id: str, params: dict, inputs: dict | None = None):
    """(table, figure, claims) of he-kl."""
    if output_id != "he-kl":
        raise ValueError(f"he_kl builds he-kl, not {output_id!r}")
    t = kl_table(params)
    return t, kl_figure(t, params), kl_claims(t, params)

