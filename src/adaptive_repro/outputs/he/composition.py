"""he-composition-eps and he-composition-delta: He's composition theorems (Theorem 4 / Corollary 2, Corollary 3,
Theorems 5 and 6) against the bounds He quotes (naive, Dwork-Rothblum-Vadhan, Kairouz et al.) and the exact optimal
composition (Kairouz, Oh, Viswanath 2015, Theorem 3.3; :mod:`adaptive_repro.groundtruth`). Every claim is checked at
every delta~ of its block's ``delta_tilde_sweep``; the figures (:mod:`.composition_figures`) use
``delta_tilde``; the claim rows are :mod:`.composition_claims`'s.

build(output_id, params, inputs) -> (table, figure, claims), params = the complete ``theory.he.composition_eps`` or
``theory.he.composition_delta`` block plus ``seed`` (two blocks: the outputs do not compute from the same grid).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import groundtruth as gt
from adaptive_repro.bounds import he
from adaptive_repro.foundation.domain import DOMAINS, check, unchecked
from adaptive_repro.outputs.he.composition_claims import composition_delta_claims, composition_eps_claims

TOL = 1e-9  # relative tolerance of delta' >= exact delta (the exact value is a root-found / log-summed float)


def _bound_rows(eps, delta, T, dt):
    """(method, eps', delta') of the closed forms at one (eps, delta, T, delta~). Theorem 5 (pure DP) only at
    delta = 0, with its free delta' set to delta~.

    The point and the eps' handed on to the delta' formulas are checked once here (adaptive_repro.foundation.domain);
    the bounds are then called without their per-call checks (:func:`~adaptive_repro.foundation.domain.unchecked`),
    which cost about a tenth of he-composition-delta's build."""
    for name, value in (("eps", eps), ("delta", delta), ("T", T), ("delta_tilde", dt)):
        check("he_composition._bound_rows", name, value, DOMAINS[name])
    he_eps = float(unchecked(he.he_theorem4_eps)(eps, T, dt))
    c3_eps = float(unchecked(he.he_corollary3_eps)(eps, T, dt))
    t6_eps = float(unchecked(he.he_theorem6_eps)(eps, T, dt))
    check("he_composition._bound_rows", "eps_prime", [he_eps, c3_eps, t6_eps], DOMAINS["eps_prime"])
    cor3_delta = unchecked(he.he_corollary3_delta)
    rows = [
        ("naive", float(unchecked(he.naive_eps)(eps, T)), float(unchecked(he.naive_delta)(delta, T))),
        ("drv", float(unchecked(he.drv_eps)(eps, T, dt)), float(unchecked(he.drv_delta)(delta, T, dt))),
        ("kairouz", float(unchecked(he.kairouz_eps)(eps, T, dt)), float(unchecked(he.kairouz_delta)(delta, T, dt))),
        ("he", he_eps, float(unchecked(he.he_corollary2_delta)(eps, delta, T, he_eps, dt))),
        ("he_thm6", t6_eps, float(unchecked(he.he_theorem6_delta)(eps, delta, T, t6_eps, dt))),
        ("he_cor3", c3_eps, float(cor3_delta(eps, delta, T, c3_eps))),
        ("he_cor3_derived", c3_eps, float(cor3_delta(eps, delta, T, c3_eps, derived=True))),
    ]
    if delta == 0:
        rows.append(("he_thm5", float(unchecked(he.he_theorem5_eps)(eps, T, dt)), dt))
    return rows


def _row(eps, delta, T, dt, method, ep, dp, lower, floor, exact):
    return {"eps": eps, "delta": delta, "T": int(T), "delta_tilde": dt, "method": method, "eps_prime": ep,
            "delta_prime": dp, "eps_prime_lower": lower, "delta_floor": floor, "exact_delta_at_eps_prime": exact,
            "valid": bool(np.isfinite(dp) and dp >= floor),
            "sound": bool(np.isfinite(dp) and np.isfinite(exact) and dp >= exact * (1 - TOL))}


def composition_points(eps, delta, T, dt, laplace=False, interval=1e-3, cache=None) -> list[dict]:
    """All methods at one grid point, plus ``exact_optimal`` (KOV Thm 3.3's optimal eps' at Kairouz's delta' =
    1-(1-delta)^T(1-delta~)) and, if ``laplace``, the Laplace(1/eps) mechanism's eps' at that delta' (dp_accounting
    PLD; eps_prime pessimistic, eps_prime_lower optimistic). Each row has the floor 1-(1-delta)^T and the exact
    delta at its eps' (KOV 2015 Thm 3.3), computed once for the point (one kov_delta call for all finite eps')."""
    points = [(m, ep, dp, np.nan) for m, ep, dp in _bound_rows(eps, delta, T, dt)]
    dpk = float(he.kairouz_delta(delta, T, dt))
    points.append(("exact_optimal", float(gt.kov_eps(eps, delta, T, dpk)), dpk, np.nan))
    if laplace:
        key = (eps, T, dpk)
        if key not in cache:
            cache[key] = gt.laplace_pld_eps(eps, T, dpk, gt.pld_interval(eps, interval))
        hi, lo = cache[key]
        points.append(("laplace_pld", hi, dpk, lo))
    floor = float(gt.delta_floor(delta, T))
    eps_primes = np.array([ep for _, ep, _, _ in points])
    finite = np.isfinite(eps_primes)
    exact = np.full(len(points), np.nan)
    exact[finite] = gt.kov_delta(eps, delta, T, eps_primes[finite])
    return [_row(eps, delta, T, dt, m, ep, dp, lower, floor, float(ex))
            for (m, ep, dp, lower), ex in zip(points, exact)]


def laplace_cache(params: dict) -> dict:
    """{(eps, T, Kairouz's delta' at ``delta_tilde``): (pessimistic, optimistic) Laplace PLD eps'} for every
    (eps, delta, T) of the ``T`` grid, the cache :func:`composition_points` reads: each (eps, T)'s two PLDs are
    composed once for all delta (composing is the slow part; the delta' differ with delta, the PLD does not)."""
    dt, cache = float(params["delta_tilde"]), {}
    for eps in map(float, params["eps"]):
        for T in map(int, params["T"]):
            dpks = [float(he.kairouz_delta(float(delta), T, dt)) for delta in params["delta"]]
            his, los = gt.laplace_pld_eps(eps, T, dpks, gt.pld_interval(eps, float(params["pld_interval"])))
            cache.update({(eps, T, d): (float(h), float(lo)) for d, h, lo in zip(dpks, his, los)})
    return cache


def composition_table(params: dict) -> pd.DataFrame:
    """he-composition-eps: one row per (eps, delta, T, delta_tilde, method) on the ``T`` grid and every
    delta~ of ``delta_tilde_sweep`` (and ``delta_tilde``). Columns: eps, delta, T, delta_tilde, method, eps_prime,
    delta_prime, eps_prime_lower (PLD optimistic, Laplace only), delta_floor = 1-(1-delta)^T,
    exact_delta_at_eps_prime (KOV 2015 Thm 3.3), valid (delta' >= floor), sound (delta' >= exact: a correct
    guarantee for every T-fold composition of (eps, delta)-DP mechanisms), eps_over_exact. The Laplace PLD rows are
    computed at ``delta_tilde`` only (the slow part)."""
    p = params
    fig_dt = float(p["delta_tilde"])
    dts = sorted({fig_dt, *map(float, p["delta_tilde_sweep"])}, reverse=True)
    cache = laplace_cache(p) if p["laplace_pld"] else {}
    rows = []
    for eps in p["eps"]:
        for delta in p["delta"]:
            for T in p["T"]:
                for dt in dts:
                    rows += composition_points(float(eps), float(delta), int(T), dt,
                                               bool(p["laplace_pld"]) and dt == fig_dt, float(p["pld_interval"]),
                                               cache)
    df = pd.DataFrame(rows)
    ex = df[df.method == "exact_optimal"].set_index(["eps", "delta", "T", "delta_tilde"]).eps_prime
    with np.errstate(divide="ignore", invalid="ignore"):  # exact eps' = 0 (delta~ covers all the loss): inf or nan
        df["eps_over_exact"] = df.eps_prime.values / ex.reindex(
            pd.MultiIndex.from_frame(df[["eps", "delta", "T", "delta_tilde"]])).values
    return df


def composition_curve(params: dict, dts=None) -> pd.DataFrame:
    """Dense-T (``T_curve``) closed forms and exact optimum (no PLD) at each delta~ of ``dts`` (default: the sweep
    and ``delta_tilde``)."""
    p = params
    if dts is None:
        dts = sorted({float(p["delta_tilde"]), *map(float, p["delta_tilde_sweep"])}, reverse=True)
    rows = []
    for eps in p["eps"]:
        for delta in p["delta"]:
            for T in p["T_curve"]:
                for dt in dts:
                    rows += composition_points(float(eps), float(delta), int(T), float(dt))
    return pd.DataFrame(rows)


def composition_delta_table(params: dict) -> pd.DataFrame:
    """he-composition-delta: the dense-T table of :func:`composition_curve` without ``exact_optimal``, plus
    delta_over_floor, m = ceil(eps'/eps) (clamped to [0, T]) and, for method ``he``: kairouz_delta, he_approx
    (Corollary 2's first-order line), kairouz_minus_he and he_gap_claim (He's delta tanh(eps/2) (T - m)); for
    method ``he_cor3``: log_delta_pp_printed and log_delta_pp_derived (App. B.4 eq. (36) at (37)), both nan where
    eps' >= T eps."""
    c = composition_curve(params)
    c = c[c.method != "exact_optimal"].copy().reset_index(drop=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        c["delta_over_floor"] = np.where(c.delta_floor > 0, c.delta_prime / c.delta_floor, np.nan)
    c["m"] = he.ceil_ratio(c.eps_prime.values, c.eps.values, c["T"].values)
    for col in ["kairouz_delta", "he_approx", "kairouz_minus_he", "he_gap_claim", "log_delta_pp_printed",
                "log_delta_pp_derived"]:
        c[col] = np.nan
    key = ["eps", "delta", "T", "delta_tilde"]
    k = c[c.method == "kairouz"].set_index(key).delta_prime
    ish = c.method == "he"
    h = c[ish]
    c.loc[ish, "kairouz_delta"] = k.reindex(pd.MultiIndex.from_frame(h[key])).values
    c.loc[ish, "he_approx"] = he.he_corollary2_delta_approx(h.eps.values, h.delta.values, h["T"].values,
                                                            h.eps_prime.values, h.delta_tilde.values)
    c.loc[ish, "kairouz_minus_he"] = c.loc[ish, "kairouz_delta"] - h.delta_prime.values
    c.loc[ish, "he_gap_claim"] = he.he_kairouz_delta_gap(h.eps.values, h.delta.values, h["T"].values,
                                                         h.eps_prime.values)
    isc = c.method == "he_cor3"
    s = c[isc]
    c.loc[isc, "log_delta_pp_printed"] = he.he_corollary3_log_delta_pp(s.eps.values, s["T"].values,
                                                                       s.eps_prime.values)
    c.loc[isc, "log_delta_pp_derived"] = he.he_corollary3_log_delta_pp_derived(s.eps.values, s["T"].values,
                                                                               s.eps_prime.values)
    return c


def build(output_id: str, params: dict, inputs: dict | None = None):
    """(table, figure, claims) of he-composition-eps or he-composition-delta."""
    from adaptive_repro.outputs.he import composition_figures as figs

    if output_id == "he-composition-eps":
        t = composition_table(params)
        curve = composition_curve(params, [float(params["delta_tilde"])])
        return t, figs.composition_eps_figure(curve, params), composition_eps_claims(t, params)
    if output_id == "he-composition-delta":
        t = composition_delta_table(params)
        return t, figs.composition_delta_figure(t, params), composition_delta_claims(t, params)
    raise ValueError(f"he.composition builds he-composition-eps and he-composition-delta, not {output_id!r}")
