"""Tables, figures and claims of the He et al. theory outputs (SPEC section 2, "He, theory").

Pure functions: ``<output>_table(params) -> DataFrame``, ``<output>_figure(table, params) -> Figure``,
``<output>_claims(table, params) -> list[Claim]``. The workflow scripts (workflow/scripts/he_*.py) only wire
config and files to these. Parameters come from ``config["theory"]["he"]`` with the schema's defaults (:data:`DEFAULTS`)
(the same defaults as src/adaptive_repro/schemas/theory_he.schema.yaml; a test checks they agree).

Every claim is evaluated on the output's grid by code; a claim of the paper that fails is reported as
"does not hold" with its first counter-example, never hidden.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from adaptive_repro.config import SCHEMA_DIR
from adaptive_repro import groundtruth as gt
from adaptive_repro.bounds import he
from adaptive_repro.config import fill_schema_defaults
from adaptive_repro.registry import Claim, verdict

HE = "He, Wang, Tao (papers/003)"

SCHEMA = SCHEMA_DIR / "theory_he.schema.yaml"
#: The defaults of ``theory.he``, read from its schema (the single source of every default).
DEFAULTS: dict[str, Any] = fill_schema_defaults({}, SCHEMA)


def merged_params(he_config: dict | None) -> dict:
    """``config["theory"]["he"]`` (possibly empty or partial) with the schema's defaults filled in, at any depth."""
    return fill_schema_defaults(he_config, SCHEMA)


def _fmt(row: dict | pd.Series, keys) -> str:
    return ", ".join(f"{k}={row[k]:.6g}" if isinstance(row[k], (float, np.floating)) else f"{k}={row[k]}"
                     for k in keys)


def _check(frame: pd.DataFrame, ok: pd.Series | np.ndarray, keys) -> tuple[bool, str, int, int]:
    """(all ok, first counter-example text, #fails, #points) of a boolean column over a frame."""
    ok = np.asarray(ok, dtype=bool)
    bad = np.flatnonzero(~ok)
    ce = _fmt(frame.iloc[bad[0]], keys) if len(bad) else ""
    return (len(bad) == 0), ce, int(len(bad)), int(len(ok))


def _claim(output_id, claim_id, source, text, expected, ok_frame, ok, keys, measured_fn: Callable | None = None):
    allok, ce, nbad, n = _check(ok_frame, ok, keys)
    measured = f"holds at {n - nbad}/{n} grid points"
    if measured_fn is not None:
        measured += "; " + measured_fn()
    return Claim(output_id, claim_id, source, text, expected, measured, verdict(allok, "statement"), ce)


def _fig():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ===============================================================================================================
# he-kl
# ===============================================================================================================

KL_METHODS = {
    "lemma5": ("He Lemma 5: eps tanh(eps/2)", he.kl_lemma5),
    "dwork_rothblum": ("Dwork-Rothblum eq. (9): eps(e^eps-1)/2", he.kl_dwork_rothblum),
    "dwork_et_al": ("Dwork et al.: eps(e^eps-1)", he.kl_dwork_et_al),
    "randomized_response_exact": ("exact KL, randomized response", gt.kl_randomized_response),
    "laplace_exact": ("exact KL, Laplace mechanism", gt.kl_laplace),
}


def kl_table(params: dict) -> pd.DataFrame:
    """Tidy table: eps, method, kl (one row per eps and bound/exact value), kind (bound|exact)."""
    p = params["kl"]
    eps = np.geomspace(p["eps_min"], p["eps_max"], int(p["points"]))
    rows = []
    for method, (_, fn) in KL_METHODS.items():
        kind = "exact" if method.endswith("exact") else "bound"
        for e, v in zip(eps, np.asarray(fn(eps))):
            rows.append({"eps": e, "method": method, "kind": kind, "kl": float(v)})
    return pd.DataFrame(rows)


def kl_figure(table: pd.DataFrame, params: dict):
    plt = _fig()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    wide = table.pivot(index="eps", columns="method", values="kl")
    styles = {"lemma5": "-", "dwork_rothblum": "--", "dwork_et_al": ":", "randomized_response_exact": "o",
              "laplace_exact": "s"}
    for m, (label, _) in KL_METHODS.items():
        st = styles[m]
        if len(st) == 1 and st.isalpha():
            axes[0].plot(wide.index[::6], wide[m].values[::6], st, ms=4, mfc="none", label=label)
        else:
            axes[0].plot(wide.index, wide[m], st, lw=1.8, label=label)
    axes[0].set(xscale="log", yscale="log", xlabel="per-step privacy level eps",
                ylabel="KL divergence D(A(S) || A(S'))", title="KL bounds for eps-DP and exact KL")
    axes[0].legend(fontsize=8)
    for m in ["dwork_rothblum", "dwork_et_al", "laplace_exact"]:
        axes[1].plot(wide.index, wide[m] / wide["lemma5"], label=KL_METHODS[m][0])
    axes[1].plot(wide.index, (1 + np.exp(wide.index)) / 2, "k:", lw=1, label="(1+e^eps)/2 (He's stated factor)")
    axes[1].set(xscale="log", yscale="log", xlabel="per-step privacy level eps", ylabel="ratio to He Lemma 5",
                title="Looseness relative to Lemma 5 (RR attains Lemma 5)")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    return fig


def kl_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-kl"
    w = table.pivot(index="eps", columns="method", values="kl").reset_index()
    tol = 1e-12
    cl = []
    cl.append(_claim(oid, "lemma5-le-dwork-rothblum", f"{HE}, Lemma 5 vs eq. (9)",
                     "Lemma 5's KL bound is at most Dwork-Rothblum's (1/2) eps (e^eps - 1)", "Lemma 5 <= DR",
                     w, w.lemma5 <= w.dwork_rothblum * (1 + tol), ["eps", "lemma5", "dwork_rothblum"]))
    cl.append(_claim(oid, "dwork-rothblum-le-dwork", f"{HE}, Section 4.2.1",
                     "Dwork-Rothblum improves Dwork et al.'s eps (e^eps - 1)", "DR <= Dwork et al.",
                     w, w.dwork_rothblum <= w.dwork_et_al * (1 + tol), ["eps", "dwork_rothblum", "dwork_et_al"]))
    ratio = w.dwork_rothblum / w.lemma5
    factor = (1 + np.exp(w.eps)) / 2
    cl.append(_claim(oid, "dr-factor", f"{HE}, Section 4.2.1 after eq. (9)",
                     "eq. (9) is larger than Lemma 5 by the factor (1+e^eps)/2", "ratio = (1+e^eps)/2",
                     w, np.isclose(ratio, factor, rtol=1e-9), ["eps"],
                     lambda: f"max ratio on grid {ratio.max():.4g} at eps={w.eps.max():.3g}"))
    cl.append(_claim(oid, "lemma5-valid-rr", f"{HE}, Lemma 5 (ground truth: randomized response)",
                     "Lemma 5 upper-bounds the exact KL of eps-DP randomized response",
                     "Lemma 5 >= KL(RR)", w, w.lemma5 >= w.randomized_response_exact * (1 - tol),
                     ["eps", "lemma5", "randomized_response_exact"],
                     lambda: "max relative gap |Lemma5 - KL(RR)|/KL(RR) = "
                             f"{np.max(np.abs(w.lemma5 / w.randomized_response_exact - 1)):.2e} (tight)"))
    cl.append(_claim(oid, "lemma5-valid-laplace", f"{HE}, Lemma 5 (ground truth: Laplace mechanism)",
                     "Lemma 5 upper-bounds the exact KL of the eps-DP Laplace mechanism", "Lemma 5 >= KL(Laplace)",
                     w, w.lemma5 >= w.laplace_exact * (1 - tol), ["eps", "lemma5", "laplace_exact"]))
    return cl


# ===============================================================================================================
# he-composition-eps and he-composition-delta
# ===============================================================================================================

COMPOSITION_METHODS = ["naive", "drv", "kairouz", "he", "he_cor3", "exact_optimal", "laplace_pld"]


def _bound_rows(eps, delta, T, dt):
    """(method, eps', delta') of the closed-form bounds at one grid point."""
    he_eps = float(he.he_theorem4_eps(eps, T, dt))
    c3_eps = float(he.he_corollary3_eps(eps, T, dt))
    return [
        ("naive", float(he.naive_eps(eps, T)), float(he.naive_delta(delta, T))),
        ("drv", float(he.drv_eps(eps, T, dt)), float(he.drv_delta(delta, T, dt))),
        ("kairouz", float(he.kairouz_eps(eps, T, dt)), float(he.kairouz_delta(delta, T, dt))),
        ("he", he_eps, float(he.he_corollary2_delta(eps, delta, T, he_eps, dt))),
        ("he_cor3", c3_eps, float(he.he_corollary3_delta(eps, delta, T, c3_eps))),
    ]


def _laplace_eps(eps, T, delta_prime, interval_target, cache):
    key = (eps, T, delta_prime)
    if key not in cache:
        interval = gt.pld_interval(eps, interval_target)
        cache[key] = gt.laplace_pld_eps(eps, T, delta_prime, interval)
    return cache[key]


def composition_rows(eps, delta, T, dt, laplace: bool, interval_target: float, cache: dict) -> list[dict]:
    """All methods' (eps', delta') at one (eps, delta, T, delta~), with floor, validity and soundness columns."""
    floor = float(gt.delta_floor(delta, T))
    rows = []
    for method, ep, dp in _bound_rows(eps, delta, T, dt):
        rows.append({"method": method, "eps_prime": ep, "delta_prime": dp, "eps_prime_lower": np.nan})
    # ground truth at the delta' of Kairouz et al. (= 1 - (1-delta)^T (1-delta~), i.e. delta_g = delta~)
    dp_k = float(he.kairouz_delta(delta, T, dt))
    rows.append({"method": "exact_optimal", "eps_prime": float(gt.kov_eps(eps, delta, T, dp_k)),
                 "delta_prime": dp_k, "eps_prime_lower": np.nan})
    if laplace:
        # the Laplace(1/eps) mechanism (pure eps-DP, hence (eps, delta)-DP) at the same delta'
        hi, lo = _laplace_eps(eps, T, dp_k, interval_target, cache)
        rows.append({"method": "laplace_pld", "eps_prime": hi, "delta_prime": dp_k, "eps_prime_lower": lo})
    out = []
    for r in rows:
        exact_delta = float(gt.kov_delta(eps, delta, T, r["eps_prime"])) if np.isfinite(r["eps_prime"]) else np.nan
        dp = r["delta_prime"]
        out.append({"eps": eps, "delta": delta, "T": int(T), "delta_tilde": dt, **r,
                    "delta_floor": floor,
                    "valid": bool(np.isfinite(dp) and dp >= floor),
                    "exact_delta_at_eps_prime": exact_delta,
                    "sound": bool(np.isfinite(dp) and np.isfinite(exact_delta) and dp >= exact_delta * (1 - 1e-9))})
    return out


def composition_table(params: dict) -> pd.DataFrame:
    """he-composition-eps: one row per (eps, delta, T, delta_tilde, method).

    Columns: eps, delta, T, delta_tilde, method, eps_prime, delta_prime, eps_prime_lower (PLD optimistic
    estimate, Laplace only), delta_floor = 1-(1-delta)^T, valid (delta_prime >= delta_floor),
    exact_delta_at_eps_prime (KOV 2015 Thm 3.3 optimal delta at this eps'), sound (delta_prime >= that: the pair
    is a correct guarantee for every T-fold composition of (eps, delta)-DP mechanisms), eps_over_exact
    (eps_prime / exact_optimal eps_prime at the same grid point).
    Method ``exact_optimal`` is KOV's optimal eps' at Kairouz's delta'; ``laplace_pld`` is the Laplace(1/eps)
    mechanism's eps' (dp_accounting PLD, pessimistic; eps_prime_lower optimistic) at the delta' budget left above
    the floor (the Laplace mechanism is pure DP)."""
    p = params["composition"]
    cache: dict = {}
    rows = []
    for eps in p["eps"]:
        for delta in p["delta"]:
            for T in p["T"]:
                rows += composition_rows(float(eps), float(delta), int(T), float(p["delta_tilde"]),
                                         bool(p["laplace_pld"]), float(p["pld_interval"]), cache)
    df = pd.DataFrame(rows)
    ex = df[df.method == "exact_optimal"].set_index(["eps", "delta", "T"])["eps_prime"]
    df["eps_over_exact"] = df.eps_prime.values / np.array(
        [ex.loc[(a, b, c)] for a, b, c in zip(df.eps, df.delta, df["T"])])
    return df


METHOD_STYLE = {
    "naive": dict(color="0.5", ls=":", marker="", label="naive T eps"),
    "drv": dict(color="tab:orange", ls="--", marker="", label="Dwork-Rothblum-Vadhan"),
    "kairouz": dict(color="tab:green", ls="-", marker="", lw=3, alpha=0.5, label="Kairouz et al. (as He quote)"),
    "he": dict(color="tab:blue", ls="-", marker="", label="He Thm 4 / Cor 2"),
    "he_cor3": dict(color="tab:purple", ls="-.", marker="", label="He Cor 3"),
    "exact_optimal": dict(color="k", ls="-", marker="o", ms=3, label="exact optimal (KOV Thm 3.3)"),
    "laplace_pld": dict(color="tab:red", ls="", marker="s", ms=5, mfc="none", label="Laplace, PLD accountant"),
    "floor": dict(color="k", ls="-", marker="", lw=1, label="floor 1-(1-delta)^T"),
}


def composition_curve(params: dict) -> pd.DataFrame:
    """Dense-T curves of the closed forms and the exact optimum (no PLD), for the figures."""
    p = params["composition"]
    dt = float(p["delta_tilde"])
    rows = []
    for eps in p["eps"]:
        for delta in p["delta"]:
            for T in p["T_curve"]:
                eps, delta, T = float(eps), float(delta), int(T)
                floor = float(gt.delta_floor(delta, T))
                for method, ep, dp in _bound_rows(eps, delta, T, dt):
                    rows.append({"eps": eps, "delta": delta, "T": T, "method": method, "eps_prime": ep,
                                 "delta_prime": dp, "delta_floor": floor,
                                 "exact_delta_at_eps_prime": float(gt.kov_delta(eps, delta, T, ep))})
                dpk = float(he.kairouz_delta(delta, T, dt))
                rows.append({"eps": eps, "delta": delta, "T": T, "method": "exact_optimal",
                             "eps_prime": float(gt.kov_eps(eps, delta, T, dpk)), "delta_prime": dpk,
                             "delta_floor": floor, "exact_delta_at_eps_prime": dpk})
    return pd.DataFrame(rows)


def composition_eps_figure(table: pd.DataFrame, curve: pd.DataFrame, params: dict):
    plt = _fig()
    p = params["composition"]
    epss, deltas = p["eps"], p["delta"]
    fig, axes = plt.subplots(len(deltas), len(epss), figsize=(3.6 * len(epss), 3.2 * len(deltas)), squeeze=False,
                             sharex=True)
    for i, delta in enumerate(deltas):
        for j, eps in enumerate(epss):
            ax = axes[i, j]
            c = curve[(curve.eps == eps) & (curve.delta == delta)]
            ex = c[c.method == "exact_optimal"].set_index("T").eps_prime
            for m in ["naive", "drv", "kairouz", "he", "he_cor3", "exact_optimal"]:
                s = c[c.method == m].set_index("T").eps_prime
                st = dict(METHOD_STYLE[m])
                ax.plot(s.index, s / ex, **st)
            t = table[(table.eps == eps) & (table.delta == delta) & (table.method == "laplace_pld")]
            if len(t):
                ax.plot(t["T"], t.eps_over_exact, **METHOD_STYLE["laplace_pld"])
            bad = table[(table.eps == eps) & (table.delta == delta) & ~table.sound
                        & table.method.isin(["he", "he_cor3"])]
            if len(bad):
                ax.plot(bad["T"], bad.eps_over_exact, "x", color="red", ms=9, mew=2,
                        label="unsound: delta' < exact optimal delta(eps')")
            ax.set(xscale="log", yscale="log", title=f"eps = {eps:g}, delta = {delta:g}")
            if i == len(deltas) - 1:
                ax.set_xlabel("number of steps T")
            if j == 0:
                ax.set_ylabel("eps' / exact optimal eps'")
    handles = {}
    for ax in axes.flat:
        for h, l in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(l, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=4, fontsize=8,
               bbox_to_anchor=(0.5, -0.02))
    fig.suptitle(f"eps' of T-fold composition relative to the exact optimum at delta' = 1-(1-delta)^T(1-delta~), "
                 f"delta~ = {p['delta_tilde']:g}", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.97))
    return fig


def composition_delta_table(params: dict) -> pd.DataFrame:
    """he-composition-delta: delta' of each closed form on the dense T grid, with the floor and the exact optimal
    delta at the same eps' (KOV 2015 Thm 3.3). Columns: eps, delta, T, delta_tilde, method, eps_prime, delta_prime,
    delta_floor, exact_delta_at_eps_prime, valid (delta' >= floor), sound (delta' >= exact), delta_over_floor,
    he_approx (Cor 2 first-order value, method he only), kairouz_minus_he (exact difference, method he only),
    he_gap_claim (He's delta tanh(eps/2) (T - ceil(eps'/eps)), method he only)."""
    c = composition_curve(params)
    c = c[c.method != "exact_optimal"].copy()
    dt = float(params["composition"]["delta_tilde"])
    c.insert(3, "delta_tilde", dt)
    c["valid"] = c.delta_prime >= c.delta_floor
    c["sound"] = c.delta_prime >= c.exact_delta_at_eps_prime * (1 - 1e-9)
    with np.errstate(divide="ignore", invalid="ignore"):
        c["delta_over_floor"] = np.where(c.delta_floor > 0, c.delta_prime / c.delta_floor, np.nan)
    c["he_approx"] = np.nan
    c["kairouz_minus_he"] = np.nan
    c["he_gap_claim"] = np.nan
    k = c[c.method == "kairouz"].set_index(["eps", "delta", "T"]).delta_prime
    isher = c.method == "he"
    h = c[isher]
    c.loc[isher, "he_approx"] = he.he_corollary2_delta_approx(h.eps.values, h.delta.values, h["T"].values,
                                                              h.eps_prime.values, dt)
    c.loc[isher, "kairouz_minus_he"] = np.array([k.loc[(a, b, t)] for a, b, t in zip(h.eps, h.delta, h["T"])]) \
        - h.delta_prime.values
    c.loc[isher, "he_gap_claim"] = he.he_kairouz_delta_gap(h.eps.values, h.delta.values, h["T"].values,
                                                           h.eps_prime.values)
    return c.reset_index(drop=True)


def composition_delta_figure(table: pd.DataFrame, params: dict):
    plt = _fig()
    p = params["composition"]
    epss = p["eps"]
    pos = [d for d in p["delta"] if d > 0]
    fig, axes = plt.subplots(2, len(epss), figsize=(3.6 * len(epss), 6.6), squeeze=False, sharex=True)
    dt = float(p["delta_tilde"])
    for j, eps in enumerate(epss):
        ax = axes[0, j]
        if pos:
            delta = pos[0]
            c = table[(table.eps == eps) & (table.delta == delta)]
            for m in ["naive", "drv", "kairouz", "he", "he_cor3"]:
                s = c[c.method == m].set_index("T")
                ax.plot(s.index, s.delta_over_floor, **METHOD_STYLE[m])
            s = c[c.method == "he"].set_index("T")
            st = dict(METHOD_STYLE["exact_optimal"], label="exact optimal delta at He's eps' (KOV Thm 3.3)")
            ax.plot(s.index, s.exact_delta_at_eps_prime / s.delta_floor, **st)
            ax.axhline(1.0, **METHOD_STYLE["floor"])
            ax.axhspan(0.5, 1.0, color="red", alpha=0.08)
            ax.set(xscale="log", yscale="log", title=f"eps = {eps:g}, delta = {delta:g}", ylim=(0.5, 20))
            if j == 0:
                ax.set_ylabel("delta' / floor 1-(1-delta)^T\n(shaded: impossible)")
        ax = axes[1, j]
        c = table[(table.eps == eps) & (table.delta == 0.0)]
        if len(c):
            s = c[c.method == "he_cor3"].set_index("T")
            ax.plot(s.index, s.delta_prime, label="He Cor 3: delta' = delta'' (delta = 0)", color="tab:purple",
                    ls="-.")
            ex = s.exact_delta_at_eps_prime.where(s.exact_delta_at_eps_prime > 0)
            ax.plot(s.index, ex, label="exact optimal delta at Cor 3's eps' (KOV Thm 3.3)",
                    color="k", marker="o", ms=3)
            ax.axhline(dt, color="tab:green", lw=1, ls="--", label="delta~ (Thm 4 / Kairouz delta')")
            ax.set(xscale="log", yscale="log", xlabel="number of steps T", title=f"eps = {eps:g}, delta = 0")
            ax.set_ylim(bottom=1e-40, top=1e-3)
            if j == 0:
                ax.set_ylabel("delta'")
    handles = {}
    for ax in axes.flat:
        for h, l in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(l, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=4, fontsize=8,
               bbox_to_anchor=(0.5, -0.03))
    fig.suptitle(f"delta' of T-fold composition (delta~ = {dt:g}); top: relative to the floor, bottom: pure DP",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.97))
    return fig


def composition_eps_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-composition-eps"
    keys = ["eps", "delta", "T", "eps_prime", "delta_prime", "exact_delta_at_eps_prime"]
    w = table.pivot_table(index=["eps", "delta", "T"], columns="method", values="eps_prime").reset_index()
    cl = []
    cl.append(_claim(oid, "he-eps-equals-kairouz", f"{HE}, Section 4.2.2",
                     "Theorem 4's eps' equals Kairouz et al.'s eps'", "same eps'", w,
                     np.isclose(w.he, w.kairouz, rtol=1e-12), ["eps", "delta", "T", "he", "kairouz"]))
    cl.append(_claim(oid, "kairouz-le-drv", f"{HE}, Section 4.2.2",
                     "Kairouz et al.'s eps' (the tightest existing, as He says) is at most the classic DRV eps'",
                     "Kairouz <= DRV", w, w.kairouz <= w.drv * (1 + 1e-12), ["eps", "delta", "T", "kairouz", "drv"]))
    cl.append(_claim(oid, "he-le-naive", f"{HE}, Theorem 4 eq. (5)-(6)", "Theorem 4's eps' is at most T eps",
                     "He <= T eps", w, w.he <= w.naive * (1 + 1e-12), ["eps", "delta", "T", "he", "naive"]))
    for m, src, text in [
        ("he", "Theorem 4 with Corollary 2", "Theorem 4 / Corollary 2's (eps', delta') is a valid guarantee: delta' "
                                             ">= the exact optimal delta at eps' (KOV 2015 Thm 3.3)"),
        ("he_cor3", "Corollary 3", "Corollary 3's (eps', delta') is a valid guarantee: delta' >= the exact optimal "
                                   "delta at eps' (KOV 2015 Thm 3.3)"),
        ("kairouz", "Section 4.2.2 (Kairouz et al.)", "Kairouz et al.'s (eps', delta') as He quotes it is valid"),
        ("drv", "Section 4.2.2 (DRV)", "DRV's (eps', delta') (with delta~ in the log) is valid"),
    ]:
        t = table[(table.method == m) & np.isfinite(table.delta_prime)].reset_index(drop=True)
        nundef = int(((table.method == m) & ~np.isfinite(table.delta_prime)).sum())
        cl.append(_claim(oid, f"{m}-sound", f"{HE}, {src}", text, "delta' >= exact delta(eps')", t, t.sound, keys,
                         (lambda nundef=nundef: f"{nundef} grid points where delta' is undefined (eps' >= T eps) "
                                                "excluded") if nundef else None))
        if m in ("he", "he_cor3"):
            cl.append(_claim(oid, f"{m}-above-floor", f"{HE}, {src}",
                             f"{m} delta' is at least the floor 1-(1-delta)^T", "delta' >= 1-(1-delta)^T", t,
                             t.valid, ["eps", "delta", "T", "delta_prime", "delta_floor"]))
    e = table[table.method == "exact_optimal"].reset_index(drop=True)
    k = table[table.method == "kairouz"].reset_index(drop=True)
    cl.append(_claim(oid, "exact-le-kairouz", "KOV 2015 Thm 3.3 vs Thm 3.5 (ground truth)",
                     "the exact optimal eps' is at most Kairouz et al.'s closed form at the same delta'",
                     "exact <= Kairouz", e, e.eps_prime.values <= k.eps_prime.values * (1 + 1e-9),
                     ["eps", "delta", "T", "eps_prime"]))
    lap = table[table.method == "laplace_pld"].reset_index(drop=True)
    if len(lap):
        ex = table[table.method == "exact_optimal"].set_index(["eps", "delta", "T"]).eps_prime
        exv = np.array([ex.loc[(a, b, c)] for a, b, c in zip(lap.eps, lap.delta, lap["T"])])
        cl.append(_claim(oid, "laplace-le-exact", "dp_accounting PLD vs KOV 2015 Thm 3.3 (ground truth)",
                         "the Laplace mechanism's eps' (PLD, optimistic estimate) is at most the worst-case exact "
                         "optimum (sanity check of the ground truth)", "Laplace <= exact optimal", lap,
                         lap.eps_prime_lower.values <= exv * (1 + 1e-6), ["eps", "delta", "T", "eps_prime_lower"]))
    return cl


def composition_delta_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-composition-delta"
    w = table.pivot_table(index=["eps", "delta", "T"], columns="method", values="delta_prime").reset_index()
    cl = []
    excess = (w.he - w.kairouz) / w.kairouz
    cl.append(_claim(oid, "he-delta-le-kairouz", f"{HE}, Section 1 and 4.2.2",
                     "Corollary 2's delta' is at most Kairouz et al.'s delta' (same eps')", "He <= Kairouz",
                     w, w.he <= w.kairouz * (1 + 1e-12), ["eps", "delta", "T", "he", "kairouz"],
                     lambda: f"max relative excess of He over Kairouz {np.nanmax(excess):.3g} (where ceil(eps'/eps) "
                             "= T, i.e. eps' = T eps, He's delta' is the larger)"))
    h = table[(table.method == "he") & (table.delta > 0)].reset_index(drop=True)
    m = he.ceil_ratio(h.eps_prime.values, h.eps.values, h["T"].values)
    h = h[np.asarray(m) < h["T"].values].reset_index(drop=True)  # the claimed gap is 0 when m = T
    rel = np.abs(h.kairouz_minus_he / h.he_gap_claim - 1)
    cl.append(_claim(oid, "he-gap-approx", f"{HE}, Section 1 and 4.2.2",
                     "Kairouz's delta' exceeds He's by approximately delta (e^eps-1)/(e^eps+1) (T - ceil(eps'/eps)) "
                     "(checked within 10%, where ceil(eps'/eps) < T)", "relative error <= 0.1", h, rel <= 0.1,
                     ["eps", "delta", "T", "kairouz_minus_he", "he_gap_claim"],
                     lambda: f"max relative error {np.nanmax(rel):.3g}; to first order the exact difference is the "
                             "claimed gap minus delta~ (1-(1-delta)^T), a term He's expansion drops "
                             "(tests/test_bounds_he.py::test_he_minus_kairouz_first_order)"))
    rel2 = np.abs(h.he_approx / h.delta_prime - 1)
    cl.append(_claim(oid, "cor2-first-order", f"{HE}, Corollary 2 (second line)",
                     "Corollary 2's first-order form (T-m) 2 delta/(1+e^eps) + m delta + delta~ matches its exact "
                     "form (checked: within 1%)", "relative error <= 0.01", h, rel2 <= 0.01,
                     ["eps", "delta", "T", "he_approx", "delta_prime"],
                     lambda: f"max relative error {np.nanmax(rel2):.3g}"))
    for m, src in [("he", "Corollary 2"), ("he_cor3", "Corollary 3")]:
        t = table[(table.method == m) & (table.delta > 0) & np.isfinite(table.delta_prime)].reset_index(drop=True)
        cl.append(_claim(oid, f"{m}-above-floor", f"{HE}, {src}",
                         f"{src}'s delta' is at least 1-(1-delta)^T, below which no guarantee is possible",
                         "delta' >= floor", t, t.valid, ["eps", "delta", "T", "eps_prime", "delta_prime",
                                                          "delta_floor"],
                         lambda t=t: f"min delta'/floor {np.nanmin(t.delta_over_floor):.4g}"))
    t = table[(table.method == "he_cor3") & (table.delta == 0)].reset_index(drop=True)
    defined = np.isfinite(t.delta_prime)
    cl.append(_claim(oid, "cor3-defined", f"{HE}, Corollary 3",
                     "Corollary 3's delta'' is defined (eps' < T eps) on the grid", "finite delta''", t, defined,
                     ["eps", "T", "eps_prime"]))
    td = t[defined].reset_index(drop=True)
    cl.append(_claim(oid, "cor3-sound-pure", f"{HE}, Corollary 3 (ground truth KOV 2015 Thm 3.3)",
                     "for eps-DP steps (delta = 0), Corollary 3's delta'' is at least the exact optimal delta at its "
                     "eps'", "delta'' >= exact delta(eps')", td, td.sound,
                     ["eps", "T", "eps_prime", "delta_prime", "exact_delta_at_eps_prime"]))
    return cl


# ===============================================================================================================
# he-generalization
# ===============================================================================================================


def generalization_table(params: dict) -> pd.DataFrame:
    """Tidy: one row per (eps, delta, N, k, empirical_risk, method, quantity) with value and vacuous.

    quantity a / b: "P[gap < a] > 1 - b" of Theorem 1 (He), Theorem 1 as stated in the introduction (factor 2),
    Nissim-Stemmer, Dwork et al., Oneto et al. (risk form, N and empirical risk from the grid);
    quantity on_average: Theorem 2, Corollary 1, Nissim-Stemmer's on-average bound (k from the grid);
    quantity min_N: Theorem 1's sample-size precondition. vacuous: b <= 0 region (eps >= 2) or a >= 1
    (loss in [0, 1] makes gap < a trivial)."""
    p = params["generalization"]
    rows = []

    def add(**kw):
        rows.append(kw)

    for eps in p["eps"]:
        for delta in p["delta"]:
            base = dict(eps=float(eps), delta=float(delta), N=np.nan, k=np.nan, empirical_risk=np.nan)
            van = bool(he.ln2_over_eps_vacuous(eps))
            for method, a, b in [
                ("he_thm1", he.theorem1_a(eps), he.theorem1_b(eps, delta)),
                ("he_thm1_intro", he.theorem1_a(eps), he.theorem1_b_intro(eps, delta)),
                ("nissim_stemmer", he.nissim_stemmer_a(eps), he.nissim_stemmer_b(eps, delta)),
                ("dwork_et_al", he.dwork_generalization_a(eps), he.dwork_generalization_b(eps, delta)),
            ]:
                v = van and method != "dwork_et_al"
                add(**base, method=method, quantity="a", value=float(a), vacuous=bool(a >= 1))
                add(**base, method=method, quantity="b", value=float(b), vacuous=v)
            add(**base, method="he_thm1", quantity="min_N", value=float(he.theorem1_min_sample_size(eps, delta)),
                vacuous=False)
            for N in p["N"]:
                for r in p["oneto_empirical_risk"]:
                    b2 = dict(base, N=float(N), empirical_risk=float(r))
                    a = float(he.oneto_a_risk(eps, N, r))
                    add(**b2, method="oneto_et_al", quantity="a", value=a, vacuous=bool(a >= 1))
                    add(**b2, method="oneto_et_al", quantity="b", value=float(he.oneto_b(eps, N)), vacuous=False)
            for k in p["k"]:
                b3 = dict(base, k=float(k))
                for method, fn in [("he_thm2", he.theorem2_bound), ("he_cor1", he.corollary1_bound),
                                   ("nissim_stemmer", he.nissim_stemmer_on_average)]:
                    v = float(fn(eps, delta, k))
                    add(**b3, method=method, quantity="on_average", value=v, vacuous=bool(v >= 1))
    return pd.DataFrame(rows)


def generalization_figure(table: pd.DataFrame, params: dict):
    plt = _fig()
    p = params["generalization"]
    delta = sorted(p["delta"])[len(p["delta"]) // 2]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    t = table[table.delta == delta]
    labels = {"he_thm1": "He Thm 1", "he_thm1_intro": "He Thm 1 as in the introduction (2x)",
              "nissim_stemmer": "Nissim-Stemmer", "dwork_et_al": "Dwork et al.", "oneto_et_al": "Oneto et al."}
    ax = axes[0]
    for m in ["he_thm1", "nissim_stemmer", "dwork_et_al"]:
        s = t[(t.method == m) & (t.quantity == "a")]
        ax.plot(s.eps, s.value, marker="o", ms=3, label=labels[m])
    N = max(p["N"])
    for r in p["oneto_empirical_risk"]:
        s = t[(t.method == "oneto_et_al") & (t.quantity == "a") & (t.N == N) & (t.empirical_risk == r)]
        ax.plot(s.eps, s.value, marker="s", ms=3, ls="--", label=f"Oneto et al. (N={N:g}, emp. risk={r:g})")
    ax.axhline(1, color="k", lw=0.8, ls=":", label="a = 1 (vacuous above, loss in [0,1])")
    ax.set(xscale="log", yscale="log", xlabel="eps", ylabel="a in P[gap < a] > 1 - b", title="accuracy term a")
    ax.legend(fontsize=7)
    ax = axes[1]
    for m in ["he_thm1", "he_thm1_intro", "nissim_stemmer", "dwork_et_al"]:
        s = t[(t.method == m) & (t.quantity == "b")]
        ax.plot(s.eps, s.value, marker="o", ms=3, label=labels[m])
    for Nn in p["N"]:
        s = t[(t.method == "oneto_et_al") & (t.quantity == "b") & (t.N == Nn) & (t.empirical_risk == 0)]
        ax.plot(s.eps, s.value, ls="--", label=f"Oneto et al. (N={Nn:g})")
    ax.axvspan(2, max(p["eps"]), color="red", alpha=0.08, label="eps >= 2: ln(2/eps) <= 0, b <= 0")
    ax.set(xscale="log", yscale="log", xlabel="eps", ylabel="b (failure probability)",
           title=f"failure probability b, delta = {delta:g}")
    ax.set_ylim(1e-16, 10)
    ax.legend(fontsize=7)
    ax = axes[2]
    for k in p["k"]:
        for m, ls in [("he_thm2", "-"), ("nissim_stemmer", "--")]:
            s = t[(t.method == m) & (t.quantity == "on_average") & (t.k == k)]
            ax.plot(s.eps, s.value, ls=ls, label=f"{'He Thm 2' if m == 'he_thm2' else 'Nissim-Stemmer'}, k={k:g}")
    ax.set(xscale="log", yscale="log", xlabel="eps", ylabel="on-average generalization bound",
           title=f"multi-database on-average bound, delta = {delta:g}")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def generalization_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-generalization"
    cl = []
    hp = table[table.quantity.isin(["a", "b"]) & table.N.isna()]
    w = hp.pivot_table(index=["eps", "delta"], columns=["method", "quantity"], values="value").reset_index()
    w.columns = ["_".join(c).strip("_") for c in w.columns]
    fin = w.eps < 2
    wf = w[fin].reset_index(drop=True)
    cl.append(_claim(oid, "thm1-a-vs-ns", f"{HE}, Section 1 and 4.1.2", "Theorem 1 tightens a from 13 eps to 9 eps",
                     "9 eps < 13 eps", w, w.he_thm1_a < w.nissim_stemmer_a, ["eps"]))
    cl.append(_claim(oid, "thm1-b-vs-ns", f"{HE}, Section 1 and 4.1.2",
                     "Theorem 1's b is smaller than Nissim-Stemmer's 2 delta/eps log(2/eps) (where eps < 2)",
                     "b_He < b_NS", wf, wf.he_thm1_b < wf.nissim_stemmer_b, ["eps", "delta"]))
    cl.append(_claim(oid, "thm1-b-statement-vs-intro", f"{HE}, Theorem 1 vs Section 1 / 4.1.2",
                     "Theorem 1's b (e^-eps delta/eps ln(2/eps)) is the b the introduction states "
                     "(2 e^-eps delta/eps log(2/eps))", "equal", wf,
                     np.isclose(wf.he_thm1_b, wf.he_thm1_intro_b, rtol=1e-12, atol=0.0),
                     ["eps", "delta", "he_thm1_b", "he_thm1_intro_b"]))
    wb = table[(table.method == "he_thm1") & (table.quantity == "b")].reset_index(drop=True)
    cl.append(_claim(oid, "thm1-satisfiable", f"{HE}, Theorem 1",
                     "Theorem 1's statement P[...] > 1 - b is satisfiable (b > 0) on the whole eps grid",
                     "b > 0", wb, np.isfinite(wb.value) & (wb.value > 0), ["eps", "delta"],
                     lambda: "b <= 0 exactly where eps >= 2 (ln(2/eps) <= 0); the function returns nan there"))
    cl.append(_claim(oid, "thm1-tighter-than-dwork", f"{HE}, Abstract and Section 6 ('strictly tighter')",
                     "Theorem 1 is at least as tight as Dwork et al.'s (4 eps, 8 delta^eps) in both a and b",
                     "a_He <= 4 eps and b_He <= 8 delta^eps", wf,
                     (wf.he_thm1_a <= wf.dwork_et_al_a) & (wf.he_thm1_b <= wf.dwork_et_al_b),
                     ["eps", "delta", "he_thm1_a", "dwork_et_al_a"]))
    on = table[(table.method == "oneto_et_al")]
    ow = on.pivot_table(index=["eps", "delta", "N", "empirical_risk"], columns="quantity", values="value").reset_index()
    hw = w.set_index(["eps", "delta"])
    ow["he_a"] = [hw.loc[(e, d), "he_thm1_a"] for e, d in zip(ow.eps, ow.delta)]
    ow["he_b"] = [hw.loc[(e, d), "he_thm1_b"] for e, d in zip(ow.eps, ow.delta)]
    ow = ow[ow.eps < 2].reset_index(drop=True)
    cl.append(_claim(oid, "thm1-tighter-than-oneto", f"{HE}, Abstract and Section 6 ('strictly tighter')",
                     "Theorem 1's a is at most Oneto et al.'s a (their first bound) on the grid", "a_He <= a_Oneto",
                     ow, ow.he_a <= ow.a, ["eps", "delta", "N", "empirical_risk", "he_a", "a"]))
    oa = table[table.quantity == "on_average"]
    aw = oa.pivot_table(index=["eps", "delta", "k"], columns="method", values="value").reset_index()
    cl.append(_claim(oid, "thm2-le-ns", f"{HE}, Section 4.1.2 (Comparison of Theorem 2)",
                     "Theorem 2's on-average bound is at most Nissim-Stemmer's k delta + 2 eps", "He <= NS", aw,
                     aw.he_thm2 <= aw.nissim_stemmer * (1 + 1e-12), ["eps", "delta", "k"]))
    ratio = aw.nissim_stemmer / aw.he_thm2
    aw["ratio"] = ratio
    aw["e_eps"] = np.exp(aw.eps)
    cl.append(_claim(oid, "thm2-factor-e-eps", f"{HE}, Section 1 and 4.1.2",
                     "Theorem 2 is tighter than Nissim-Stemmer by a factor of e^eps", "NS / He >= e^eps", aw,
                     ratio >= aw.e_eps * (1 - 1e-12), ["eps", "delta", "k", "ratio", "e_eps"]))
    cl.append(_claim(oid, "cor1-le", f"{HE}, Corollary 1", "1 - e^-eps <= eps, so Corollary 1 >= Theorem 2",
                     "Thm 2 <= Cor 1", aw, aw.he_thm2 <= aw.he_cor1 * (1 + 1e-12), ["eps", "delta", "k"]))
    return cl


# ===============================================================================================================
# he-sgld and he-federated
# ===============================================================================================================


def application_table(params: dict, which: str) -> pd.DataFrame:
    """he-sgld (which='sgld', Theorem 7) or he-federated (which='federated', Theorem 8): one row per
    (N, tau, T, sigma); columns eps_tilde, per_step_eps = 2 q eps~, eps_prime, m, delta_prime_free (additive
    delta~ = input), delta_tilde_formula (Theorem 7/8's displayed delta~), delta_prime_formula, delta_floor =
    1 - (1 - q delta)^T, valid (delta_prime_free >= floor), exact_delta_at_eps_prime (KOV 2015 Thm 3.3 for T-fold
    (2 q eps~, q delta)-DP steps), sound (delta_prime_free >= exact), naive_eps = T * per_step_eps,
    wang_min_T (Wang et al.'s threshold eps'^2 N/(32 tau log(2/delta)) at eps = eps_prime), wang_condition."""
    p = params[which]
    rows = []
    for N in p["N"]:
        for T in p["T"]:
            for sigma in p["sigma"]:
                tau, delta, dt = float(p["tau"]), float(p["delta"]), float(p["delta_tilde"])
                if which == "sgld":
                    r = he.theorem7_sgld(N, tau, T, p["L"], sigma, delta, dt)
                else:
                    r = he.theorem8_federated(N, tau, T, sigma, delta, dt)
                q = tau / N
                row = {"N": int(N), "tau": tau, "T": int(T), "sigma": float(sigma), "delta": delta,
                       "delta_tilde": dt, **{k: float(v) for k, v in r.items()}}
                if which == "sgld":
                    row["L"] = float(p["L"])
                floor = float(gt.delta_floor(q * delta, T))
                step = row["per_step_eps"]
                exact = float(gt.kov_delta(step, q * delta, int(T), row["eps_prime"]))
                row.update(delta_floor=floor, valid=row["delta_prime_free"] >= floor,
                           exact_delta_at_eps_prime=exact, sound=row["delta_prime_free"] >= exact * (1 - 1e-9),
                           sound_formula=bool(np.isfinite(row["delta_prime_formula"])
                                              and row["delta_prime_formula"] >= exact * (1 - 1e-9)),
                           naive_eps=T * step,
                           wang_min_T=float(he.wang_sgld_min_T(row["eps_prime"], delta, N, tau)))
                row["wang_condition"] = bool(T > row["wang_min_T"])
                rows.append(row)
    return pd.DataFrame(rows)


def application_curve(params: dict, which: str) -> pd.DataFrame:
    p = params[which]
    T = np.unique(np.round(np.geomspace(1, max(p["T"]), 60)).astype(int))
    rows = []
    for N in p["N"]:
        for sigma in p["sigma"]:
            tau, delta, dt = float(p["tau"]), float(p["delta"]), float(p["delta_tilde"])
            if which == "sgld":
                r = he.theorem7_sgld(N, tau, T, p["L"], sigma, delta, dt)
            else:
                r = he.theorem8_federated(N, tau, T, sigma, delta, dt)
            for i, t in enumerate(T):
                rows.append({"N": N, "sigma": sigma, "T": t, "eps_prime": r["eps_prime"][i],
                             "delta_prime_free": r["delta_prime_free"][i],
                             "delta_prime_formula": r["delta_prime_formula"][i],
                             "delta_floor": float(gt.delta_floor(tau / N * delta, t))})
    return pd.DataFrame(rows)


def he_max_T(eps_target: float, params: dict, which: str, N: float, sigma: float) -> float:
    """Largest (real) T with Theorem 7/8's eps'(T) <= eps_target (eps' is increasing in T); inf if > 1e15."""
    from scipy import optimize

    p = params[which]
    tau, delta, dt = float(p["tau"]), float(p["delta"]), float(p["delta_tilde"])

    def f(logT):
        T = math.exp(logT)
        if which == "sgld":
            r = he.theorem7_sgld(N, tau, T, p["L"], sigma, delta, dt)
        else:
            r = he.theorem8_federated(N, tau, T, sigma, delta, dt)
        return math.log(r["eps_prime"]) - math.log(eps_target)

    lo, hi = math.log(1e-9), math.log(1e15)
    if f(hi) < 0:
        return math.inf
    if f(lo) > 0:
        return 0.0
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-10))


def wang_direction_table(params: dict, which: str) -> pd.DataFrame:
    """For each target eps (``wang_eps``), N and sigma: He's largest admissible T (Theorem 7/8's eps'(T) <= eps) and
    Wang et al.'s smallest admissible T as He quotes it (T > eps^2 N/(32 tau log(2/delta)))."""
    p = params[which]
    rows = []
    for eps in p.get("wang_eps", [0.1, 1.0]):
        for N in p["N"]:
            for sigma in p["sigma"]:
                rows.append({"eps_target": float(eps), "N": float(N), "sigma": float(sigma),
                             "he_max_T": he_max_T(float(eps), params, which, float(N), float(sigma)),
                             "wang_min_T": float(he.wang_sgld_min_T(eps, p["delta"], N, p["tau"]))})
    return pd.DataFrame(rows)


def application_figure(table: pd.DataFrame, params: dict, which: str):
    plt = _fig()
    p = params[which]
    curve = application_curve(params, which)
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    lss = ["-", "--", ":", "-."]
    for i, N in enumerate(p["N"]):
        for j, sigma in enumerate(p["sigma"]):
            c = curve[(curve.N == N) & (curve.sigma == sigma)]
            axes[0].plot(c["T"], c.eps_prime, color=colors[j % 10], ls=lss[i % 4], label=f"N={N:g}, sigma={sigma:g}")
            axes[1].plot(c["T"], c.delta_prime_free / c.delta_floor, color=colors[j % 10], ls=lss[i % 4])
    axes[0].set(xscale="log", yscale="log", xlabel="iterations T", ylabel="eps'",
                title=f"{'Theorem 7 (SGLD)' if which == 'sgld' else 'Theorem 8 (federated)'}: eps'")
    axes[0].legend(fontsize=7, ncol=2)
    axes[1].axhline(1, color="k", lw=1)
    axes[1].axhspan(0.5, 1, color="red", alpha=0.08)
    axes[1].set(xscale="log", yscale="log", xlabel="iterations T", ylabel="delta' / floor 1-(1-q delta)^T",
                title="delta' / floor (shaded: impossible)", ylim=(0.5, None))
    w = wang_direction_table(params, which)
    for i, eps in enumerate(sorted(w.eps_target.unique())):
        s = w[w.eps_target == eps]
        for j, sigma in enumerate(p["sigma"]):
            ss = s[s.sigma == sigma]
            axes[2].plot(ss.N, ss.he_max_T, color=colors[j % 10], ls=lss[i % 4], marker="o", ms=3,
                         label=f"{'Thm 7' if which == 'sgld' else 'Thm 8'}: largest T with eps' <= {eps:g}, "
                               f"sigma={sigma:g}")
        if which == "sgld":
            ss = s[s.sigma == p["sigma"][0]]
            axes[2].plot(ss.N, ss.wang_min_T, color="k", ls=lss[i % 4], lw=2,
                         label=f"Wang et al. (as quoted): smallest T, eps={eps:g}")
    axes[2].set(xscale="log", yscale="log", xlabel="sample size N", ylabel="iterations T",
                title=("largest T within the privacy target" if which != "sgld"
                       else "admissible T: He (at most), Wang (at least)"))
    axes[2].legend(fontsize=6)
    fig.suptitle(f"tau = {p['tau']}, delta = {p['delta']:g}, delta~ = {p['delta_tilde']:g}"
                 + (f", L = {p['L']}" if which == "sgld" else ""), fontsize=10)
    fig.tight_layout()
    return fig


def application_claims(table: pd.DataFrame, params: dict, which: str) -> list[Claim]:
    oid = "he-sgld" if which == "sgld" else "he-federated"
    thm = "Theorem 7" if which == "sgld" else "Theorem 8"
    src = f"{HE}, {thm}"
    keys = ["N", "T", "sigma", "eps_prime", "delta_prime_free", "exact_delta_at_eps_prime"]
    cl = []
    srt = table.sort_values(["N", "sigma", "T"])
    inc = srt.groupby(["N", "sigma"]).eps_prime.apply(lambda s: bool(np.all(np.diff(s.values) > 0)))
    incf = inc.reset_index()
    cl.append(_claim(oid, "eps-increasing-in-T", src, f"{thm}'s eps' grows with the number of iterations T",
                     "increasing", incf, incf.eps_prime.values, ["N", "sigma"]))
    cl.append(_claim(oid, "eps-le-naive", src, f"{thm}'s eps' is at most T times the per-step level 2 q eps~",
                     "eps' <= T 2 q eps~", table, table.eps_prime <= table.naive_eps * (1 + 1e-12),
                     ["N", "T", "sigma", "eps_prime", "naive_eps"]))
    cl.append(_claim(oid, "delta-above-floor", src,
                     f"{thm}'s delta' is at least 1-(1-q delta)^T, the floor for T-fold (., q delta)-DP steps",
                     "delta' >= floor", table, table.valid, ["N", "T", "sigma", "delta_prime_free", "delta_floor"]))
    cl.append(_claim(oid, "sound", f"{src} (ground truth KOV 2015 Thm 3.3)",
                     f"{thm}'s (eps', delta') is a valid composition of T (2 q eps~, q delta)-DP steps",
                     "delta' >= exact delta(eps')", table, table.sound, keys))
    dfd = np.isfinite(table.delta_tilde_formula)
    cl.append(_claim(oid, "delta-tilde-defined", src,
                     f"{thm}'s displayed delta~ is defined (eps' < q T eps~)", "finite", table, dfd,
                     ["N", "T", "sigma", "eps_prime"]))
    cons = dfd & (table.delta_tilde_formula <= table.delta_tilde * (1 + 1e-12))
    cl.append(_claim(oid, "delta-tilde-consistent", src,
                     f"the displayed delta~ (a function of eps') does not exceed the delta~ used inside eps' "
                     "(the circular definition is self-consistent)", "formula <= input delta~", table, cons,
                     ["N", "T", "sigma", "delta_tilde_formula", "delta_tilde"]))
    td = table[dfd].reset_index(drop=True)
    cl.append(_claim(oid, "sound-formula-delta-tilde", f"{src} (ground truth KOV 2015 Thm 3.3)",
                     f"with the displayed delta~ as additive term (Corollary 3 reading), {thm}'s delta' is valid "
                     "(where the displayed delta~ is defined)", "delta' >= exact delta(eps')", td, td.sound_formula,
                     ["N", "T", "sigma", "eps_prime", "delta_prime_formula", "exact_delta_at_eps_prime"],
                     lambda: f"{int((~dfd).sum())} grid points where delta~ is undefined excluded"))
    if which == "sgld":
        # Wang et al. (as quoted): the condition is upward-closed in T (more iterations => privacy), while Theorem 7's
        # eps' increases with T. Agreement would need the condition to become harder to satisfy as T grows.
        w = wang_direction_table(params, which)
        w = w[w.sigma == params[which]["sigma"][0]].reset_index(drop=True)
        cl.append(_claim(oid, "wang-direction", f"{HE}, Section 5.1 (Wang et al. [68] as quoted)",
                         "Wang et al.'s condition T > eps^2 N/(32 tau log(2/delta)) agrees with Theorem 7 in direction:"
                         " at a fixed privacy target eps, the set of admissible T is bounded above (Theorem 7's eps' "
                         "grows with T), not below", "Wang's admissible T bounded above", w,
                         ~np.isfinite(w.wang_min_T) | (w.wang_min_T <= 0),
                         ["N", "eps_target", "wang_min_T", "he_max_T"],
                         lambda: "as quoted, Wang's condition is a lower bound on T; Theorem 7's is an upper bound"))
    return cl


# ===============================================================================================================
# dispatcher used by workflow/scripts/he_output.py
# ===============================================================================================================

OUTPUT_IDS = ("he-kl", "he-composition-eps", "he-composition-delta", "he-generalization", "he-sgld", "he-federated")


def build(output_id: str, he_config: dict | None):
    """(table, figure, claims) of one He output from ``config["theory"]["he"]`` (merged over the defaults)."""
    params = merged_params(he_config)
    if output_id == "he-kl":
        t = kl_table(params)
        return t, kl_figure(t, params), kl_claims(t, params)
    if output_id == "he-composition-eps":
        t = composition_table(params)
        return t, composition_eps_figure(t, composition_curve(params), params), composition_eps_claims(t, params)
    if output_id == "he-composition-delta":
        t = composition_delta_table(params)
        return t, composition_delta_figure(t, params), composition_delta_claims(t, params)
    if output_id == "he-generalization":
        t = generalization_table(params)
        return t, generalization_figure(t, params), generalization_claims(t, params)
    if output_id in ("he-sgld", "he-federated"):
        which = "sgld" if output_id == "he-sgld" else "federated"
        t = application_table(params, which)
        return t, application_figure(t, params, which), application_claims(t, params, which)
    raise ValueError(f"unknown He output {output_id!r}; known: {OUTPUT_IDS}")
