"""The claim rows of he-composition-eps and he-composition-delta, from the tables :mod:`.composition` computes:
He's composition theorems against the bounds He quotes and the exact optimal composition. A comparison of two deltas
counts only the points where they differ by more than their rounding slack (:func:`.common.rounding`): within it,
double precision decides nothing."""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import groundtruth as gt
from adaptive_repro.bounds import he
from adaptive_repro.foundation.registry import Claim, code_name
from adaptive_repro.outputs.he.common import HE, QUOTES, claim, excess_words, rounding
from adaptive_repro.outputs.he.proof_checks import b4_b5_rows, b5_row


def _largest(values) -> float:
    """The largest finite value (0 if there is none)."""
    values = np.asarray(values, dtype=float)
    return float(values[np.isfinite(values)].max(initial=0.0))


def _extreme(values, reduce, fmt: str = ".3g") -> str:
    """``reduce`` (np.nanmax / np.nanmin) of ``values`` as text, or "none" where no value is finite (no point)."""
    values = np.asarray(values, dtype=float)
    return format(float(reduce(values)), fmt) if np.isfinite(values).any() else "none (no point)"


KEYS = ["eps", "delta", "T", "delta_tilde", "eps_prime", "delta_prime", "exact_delta_at_eps_prime"]


def _method(table, m, extra=None):
    sel = table.method == m
    if extra is not None:
        sel &= extra
    return table[sel].reset_index(drop=True)


def _below_floor_note(t):
    n = int((~t.valid).sum())
    return (f"{n} of the failing points are below the floor 1-(1-delta)^T, which no valid delta' can undercut "
            "(KOV 2015 Thm 3.3 with i = 0: T mechanisms that each reveal the input with probability delta)") if n \
        else "no point below the floor 1-(1-delta)^T"


def composition_eps_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-composition-eps"
    key = ["eps", "delta", "T", "delta_tilde"]
    w = table.pivot_table(index=key, columns="method", values="eps_prime").reset_index()
    cl = [
        claim(oid, "he-eps-equals-kairouz", "paper", f"{HE}, Section 4.2.2", "Theorem 4's eps' (eqs. (5)-(7), "
              "written from He's sums) equals Kairouz et al.'s eps' as He quotes it (computed separately)",
              "same eps'", np.isclose(w.he, w.kairouz, rtol=1e-9), w, key + ["he", "kairouz"],
              code=code_name(he.he_theorem4_eps), quote=QUOTES["same_eps"], strength="identity",
              note="identity: eqs. (5)-(7) are Kairouz et al.'s closed form with the sums rewritten; "
                   "He's eqs. (5)-(7) are Kairouz et al.'s closed form rewritten: equal by algebra"),
        claim(oid, "kairouz-le-drv", "paper", f"{HE}, Section 4.2.2", "Kairouz et al.'s eps' (the tightest existing "
              "one, as He says) is at most the classic Dwork-Rothblum-Vadhan eps'", "Kairouz <= DRV",
              w.kairouz <= w.drv * (1 + 1e-12), w, key + ["kairouz", "drv"], code=code_name(he.kairouz_eps),
              quote=QUOTES["tightest"], strength="identity",
              note="identity: Kairouz's eps'_3 = T eps tanh(eps/2) + eps sqrt(2T log(1/delta~)) and DRV's = T eps "
                   "(e^eps - 1) + eps sqrt(2T log(1/delta~)) differ only in tanh(eps/2) <= eps/2 <= e^eps - 1, so "
                   "Kairouz <= DRV for every parameter"),
    ]
    t = _method(table, "he", table.delta > 0)
    cl.append(claim(oid, "he-sound", "paper", f"{HE}, Theorem 4 with Corollary 2 (ground truth KOV 2015 Thm 3.3)",
                    "Theorem 4 / Corollary 2's (eps', delta') is a valid guarantee for T (eps, delta)-DP steps: "
                    "delta' >= the exact optimal delta at eps' (delta > 0; at delta = 0 it is Kairouz's pair)",
                    "delta' >= exact delta(eps')", t.sound, t, KEYS, code=code_name(he.he_corollary2_delta),
                    quote=QUOTES["thm4"], note=_below_floor_note(t[~t.sound])))
    t = _method(table, "he_thm6", table.delta > 0)
    cl.append(claim(oid, "thm6-sound", "paper", f"{HE}, Theorem 6 (ground truth KOV 2015 Thm 3.3)",
                    "Theorem 6's eps' with its delta' (the maximum over I of Theorem 4's eq. (8), homogeneous steps) "
                    "is a valid guarantee for T (eps, delta)-DP steps (delta > 0)", "delta' >= exact delta(eps')",
                    t.sound, t, KEYS, code=code_name(he.he_theorem6_delta), quote=QUOTES["thm6"],
                    note=_below_floor_note(t[~t.sound])))
    t = _method(table, "he_thm5")
    cl.append(claim(oid, "theorem5-sound", "paper", f"{HE}, Theorem 5 (ground truth KOV 2015 Thm 3.3)",
                    "Theorem 5 (eps-DP steps): at delta' = each delta~ of the sweep, its eps' satisfies exact "
                    "delta(eps') <= delta'", "delta' >= exact delta(eps')", t.sound, t, KEYS,
                    code=code_name(he.he_theorem5_eps), quote=QUOTES["thm5"]))
    for m, text in [("kairouz", "Kairouz et al.'s (eps', delta') as He quotes it"),
                    ("drv", "Dwork-Rothblum-Vadhan's (eps', delta') (with delta~ in the log)")]:
        t = _method(table, m)
        cl.append(claim(oid, f"{m}-sound", "project", "Kairouz et al. 2015 Thm 3.5; Dwork & Roth 2014 Thm 3.20 "
                        "(ground truth KOV 2015 Thm 3.3)", f"{text} is valid (sanity check of the ground truth "
                        "against theorems known to hold)", "delta' >= exact delta(eps')", t.sound, t, KEYS,
                        code=code_name(gt.kov_delta), strength="identity",
                        note="identity: a proven composition theorem against the exact optimum, so the row fails only "
                             "if the ground truth is computed wrong"))
    e, k = _method(table, "exact_optimal"), _method(table, "kairouz")
    cl.append(claim(oid, "exact-le-kairouz", "project", "KOV 2015 Thm 3.3 vs Thm 3.5 (ground truth)",
                    "the exact optimal eps' is at most Kairouz et al.'s closed form at the same delta'",
                    "exact <= Kairouz", e.eps_prime.values <= k.eps_prime.values * (1 + 1e-9), e, key + ["eps_prime"],
                    code=code_name(gt.kov_eps)))
    lap_all = _method(table, "laplace_pld")  # the PLD accountant gives eps' = inf below its delta resolution
    lap = lap_all[np.isfinite(lap_all.eps_prime) & np.isfinite(lap_all.eps_over_exact) & (lap_all.eps_over_exact > 0)]
    if len(lap_all):
        cl.append(claim(oid, "laplace-le-exact", "project", "dp_accounting PLD vs KOV 2015 Thm 3.3 (ground truth)",
                        "the Laplace mechanism's eps' (PLD, optimistic estimate) is at most the worst-case exact "
                        "optimum (sanity check of the ground truth)", "Laplace <= exact optimal",
                        lap.eps_prime_lower.values <= lap.eps_prime.values / lap.eps_over_exact.values * (1 + 1e-6),
                        lap, key + ["eps_prime_lower"], code=code_name(gt.laplace_pld_eps), strength="identity",
                        note="identity: the exact optimum is the worst case over every eps-DP mechanism, the Laplace "
                             "mechanism among them" + (f"; {len(lap_all) - len(lap)} of {len(lap_all)} points left "
                                                      "out: no finite eps' from the accountant (delta~ below its "
                                                      "resolution)" if len(lap) < len(lap_all) else "")))
    return cl


#: This project's threshold for a "significant" advantage: the claimed gain is at least this share of Kairouz's delta'.
SIGNIFICANT = 0.01


def significant_row(oid: str, g: pd.DataFrame) -> Claim:
    """Section 4.2.2's 'T is usually overwhelmingly large, which guarantees our advantage is significant', at the
    points ``g`` where the claimed gain delta tanh(eps/2)(T - m) is positive (He's rows with m < T): per eps, is the
    largest gain over the T grid at least :data:`SIGNIFICANT` of Kairouz's delta'? Whether He's delta' is valid where
    the gain is large is a separate question, row he-above-floor's; this row does not count it again."""
    g = g.assign(rel_gain=g.he_gap_claim / g.kairouz_delta)
    top = g.loc[g.groupby("eps").rel_gain.idxmax()].reset_index(drop=True)
    per_eps = "; ".join(f"eps = {r.eps:g}: at most {r.rel_gain:.3g} (tanh(eps/2) = {np.tanh(r.eps / 2):.3g}; "
                        f"largest at T = {r.T:g}, He's delta' {'valid' if r.sound else 'invalid'})"
                        for r in top.itertuples())
    return claim(oid, "advantage-significant-large-T", "paper", f"{HE}, Section 4.2.2",
                 "reading: for large T the claimed gain delta tanh(eps/2)(T - m) over Kairouz et al.'s delta' is "
                 f"significant, which this project takes as >= {SIGNIFICANT:.0%} of Kairouz's delta' at the best T "
                 "of the grid, for every eps. The gain relative to Kairouz's delta' 1-(1-delta)^T(1-delta~) is at "
                 "most tanh(eps/2) T delta/(1-(1-delta)^T) <= tanh(eps/2)/(1-delta)^(T-1), about tanh(eps/2) "
                 "whatever T is, so it is significant only where tanh(eps/2) is. Whether the gain is real (He's "
                 "delta' valid there) is row he-above-floor's question, not this row's",
                 f"gain >= {SIGNIFICANT:.0%} of Kairouz's delta' at some T, for every eps",
                 top.rel_gain >= SIGNIFICANT, top, ["eps", "delta", "T", "delta_tilde", "rel_gain"],
                 code=code_name(he.he_kairouz_delta_gap), quote=QUOTES["overwhelming"],
                 note=f"largest relative gain per eps over T <= {g['T'].max():g}: {per_eps}")


def composition_delta_claims(table: pd.DataFrame, params: dict) -> list[Claim]:
    oid = "he-composition-delta"
    cl = []
    hk = ["eps", "delta", "T", "delta_tilde", "m"]
    h = _method(table, "he", table.delta > 0)
    Td = h["T"] * h.delta
    second = Td**2 + h.delta_tilde * h.delta_floor  # size of the terms a first-order expansion drops
    h["he_minus_kairouz"] = h.delta_prime - h.kairouz_delta
    positive_gap = h[h.m < h["T"]]
    lt = positive_gap[(positive_gap.delta_prime < 1) & (positive_gap.kairouz_delta < 1)].reset_index(drop=True)
    decided = lt[(lt.delta_prime - lt.kairouz_delta).abs() > rounding(lt.delta_prime, lt.kairouz_delta)]
    cl.append(claim(oid, "he-delta-lt-kairouz", "paper", f"{HE}, Section 4.2.2 (and the gap sentence of Section 1)",
                    "strict reading of 'strictly tighter': wherever He's claimed improvement delta tanh(eps/2) "
                    "(T - m), m = ceil(eps'/eps), is positive (m < T), Corollary 2's delta' is smaller than Kairouz et "
                    "al.'s 1-(1-delta)^T(1-delta~) (the other reading, the gap to first order in delta as Section 1 "
                    "states it 'approximately', is row he-gap-first-order). Since He's eps' equals Kairouz's closed "
                    "form, a valid delta' can undercut Kairouz's by at most delta~ (1-delta)^T <= delta~ (a valid "
                    "delta' is at least the exact delta(eps'), itself at least the floor 1-(1-delta)^T, and Kairouz's "
                    "is the "
                    "floor plus delta~ (1-delta)^T): a larger gap means an invalid delta' "
                    "(row he-above-floor)",
                    "He < Kairouz", decided.delta_prime < decided.kairouz_delta, decided,
                    hk + ["he_minus_kairouz", "kairouz_delta"],
                    code=code_name(he.he_corollary2_delta), quote=QUOTES["strictly_tighter_422"],
                    note=f"compared at the {len(decided)} of {len(positive_gap)} points with m < T where both delta' "
                         "are below 1 (informative; eps' is the same for both, so the comparison is like for like)"
                         + (f" and differ by more than their rounding slack ({len(lt) - len(decided)} within it "
                            "decide nothing)" if len(decided) < len(lt) else "") + "; "
                         "it fails where the second-order terms delta~ (1-(1-delta)^T) and O((T delta)^2) exceed the "
                         "claimed first-order gap (large delta~, small T - m); where the gap does hold strongly, He's "
                         "delta' is below the floor 1-(1-delta)^T (row he-above-floor), which is the real finding"
                         + excess_words(decided.delta_prime, decided.kairouz_delta)))
    eq = h[h.m >= h["T"]]
    d = (eq.delta_prime - eq.kairouz_delta).abs()
    cl.append(claim(oid, "he-delta-eq-kairouz-at-m-eq-T", "paper", f"{HE}, Section 4.2.2",
                    "where m = ceil(eps'/eps) = T the claimed improvement is 0: Corollary 2's delta' equals Kairouz "
                    "et al.'s up to the second-order terms He's expansion drops, |He - Kairouz| <= (T delta)^2 + "
                    "delta~ (1-(1-delta)^T); it exceeds Kairouz's by a second-order amount there (e.g. delta delta~ "
                    "at T = 1); compared with a rounding slack of 8 ulp of the larger delta'",
                    "equal to second order",
                    (d <= second[eq.index] + rounding(eq.delta_prime, eq.kairouz_delta)).to_numpy(),
                    eq.reset_index(drop=True),
                    hk + ["delta_prime", "kairouz_delta"], code=code_name(he.he_corollary2_delta),
                    quote=QUOTES["same_eps"],
                    note=f"{int((eq.delta_prime > eq.kairouz_delta).sum())}/{len(eq)} of these points have He's "
                         "delta' above Kairouz's"))
    res = (lt.kairouz_minus_he - lt.he_gap_claim)
    sec_lt = (lt["T"] * lt.delta) ** 2 + lt.delta_tilde * lt.delta_floor
    with np.errstate(divide="ignore", invalid="ignore"):  # (T delta)^2 underflows to 0 at delta = 1e-300
        q = (res + lt.delta_tilde * lt.delta_floor) / (-(lt["T"] * lt.delta) ** 2 / 4)
    q = q[np.isfinite(q)]
    q_span = (f"lies between {q.min():.3g} and {q.max():.3g}" if len(q)
              else "is not computed here (no grid point with delta > 0, m < T and (T delta)^2 a normal float)")
    cl.append(claim(oid, "he-gap-first-order", "paper", f"{HE}, Section 1 and Section 4.2.2",
                    "Kairouz's delta' exceeds Corollary 2's by delta (e^eps-1)/(e^eps+1) (T - m) to first order in "
                    "delta and delta~: the residual (Kairouz - He) - gap is at most (T delta)^2 + delta~ "
                    "(1-(1-delta)^T) in absolute value (where m < T), with a rounding slack of 8 ulp of the larger "
                    "delta'",
                    "|residual| <= second-order terms",
                    res.abs() <= sec_lt + rounding(lt.kairouz_delta, lt.delta_prime, lt.he_gap_claim), lt,
                    hk + ["kairouz_minus_he", "he_gap_claim"], code=code_name(he.he_kairouz_delta_gap),
                    quote=QUOTES["same_eps"],
                    note="the miss is second order: (residual + delta~ (1-(1-delta)^T)) / (-(T delta)^2/4) "
                         f"{q_span}, i.e. about -(T delta)^2/4 at small eps, "
                         "plus -delta~ (1-(1-delta)^T) (Kairouz multiplies by 1-delta~, He adds delta~)"))
    # the exact difference is a difference of two deltas, rounded by up to their slack: a point decides the 10% only
    # where its miss |difference - gap| is beyond 10% of the gap by more than that slack, either way
    miss, slack = (lt.kairouz_minus_he - lt.he_gap_claim).abs(), rounding(lt.kairouz_delta, lt.delta_prime)
    decided = lt[(miss > 0.1 * lt.he_gap_claim + slack) | (miss + slack <= 0.1 * lt.he_gap_claim)]
    rel = (decided.kairouz_minus_he / decided.he_gap_claim - 1).abs()
    left_out = len(lt) - len(decided)
    cl.append(claim(oid, "he-gap-approx-10pct", "project", f"{HE}, Section 4.2.2 (numerical accuracy)",
                    "the first-order gap is within 10% of the exact difference Kairouz - He (where m < T); it is "
                    "not where the dropped second-order terms, about (T delta)^2/4 + delta~ (1-(1-delta)^T), are "
                    "comparable with the gap delta tanh(eps/2)(T - m) (small eps, large T delta or large delta~)",
                    "relative error <= 0.1", rel <= 0.1, decided.reset_index(drop=True),
                    hk + ["kairouz_minus_he", "he_gap_claim"], code=code_name(he.he_kairouz_delta_gap),
                    note=f"largest relative error {_extreme(rel, np.nanmax)}"
                         + (f"; {left_out} of {len(lt)} points left out: there the difference of the two deltas, "
                            "rounded by up to 8 ulp of the larger, cannot tell whether it is within 10% of the gap"
                            if left_out else "")))
    cl.append(significant_row(oid, positive_gap.reset_index(drop=True)))
    err = (h.he_approx - h.delta_prime).abs()
    cl.append(claim(oid, "cor2-first-order", "paper", f"{HE}, Corollary 2 (second line)",
                    "Corollary 2's first-order form (T-m) 2 delta/(1+e^eps) + m delta + delta~ differs from its exact "
                    "form by second-order terms only: |difference| <= (T delta)^2 (with a rounding slack of 8 ulp of "
                    "the larger value)", "|difference| <= (T delta)^2",
                    err <= Td**2 + rounding(h.he_approx, h.delta_prime), h, hk + ["he_approx", "delta_prime"],
                    code=code_name(he.he_corollary2_delta_approx), quote=QUOTES["cor2_approx"],
                    note=f"largest |difference|/(T delta)^2 {_extreme((err / Td**2)[Td**2 > 0], np.nanmax)} (where "
                         "(T delta)^2 is a normal float)"))
    on_floor = h[~np.isfinite(h.delta_prime)
                 | ((h.delta_prime - h.delta_floor).abs() > rounding(h.delta_prime, h.delta_floor))]
    cl.append(claim(oid, "he-above-floor", "paper", f"{HE}, Corollary 2 (ground truth KOV 2015 Thm 3.3, i = 0)",
                    "Corollary 2's delta' is at least 1-(1-delta)^T, below which no valid delta' exists; to first "
                    "order it is T delta - delta tanh(eps/2)(T - m) + delta~, below the floor T delta wherever the "
                    "claimed improvement exceeds delta~", "delta' >= floor", on_floor.valid, on_floor,
                    hk + ["delta_prime", "delta_floor"], code=code_name(he.he_corollary2_delta), quote=QUOTES["cor2"],
                    note=f"smallest delta'/floor {_extreme(h.delta_over_floor, np.nanmin, '.4g')}"
                         + (f"; {len(h) - len(on_floor)} of {len(h)} points within the rounding slack of the floor "
                            "decide nothing" if len(on_floor) < len(h) else "")))
    c = _method(table, "he_cor3", table.delta == 0)
    defined = np.isfinite(c.delta_prime)
    cl.append(claim(oid, "cor3-defined", "project", f"{HE}, Corollary 3",
                    "Corollary 3's delta'' formula is defined (eps' < T eps) at Corollary 3's eps'; where eps' >= "
                    "T eps the privacy loss cannot exceed eps', so delta'' = 0 is the natural value and such points "
                    "are excluded from the soundness rows", "finite delta''", defined, c,
                    ["eps", "T", "delta_tilde", "eps_prime"],
                    code=code_name(he.he_corollary3_delta_pp)))
    cd = c[defined].reset_index(drop=True)
    gap = cd.log_delta_pp_derived - cd.log_delta_pp_printed
    # the two logs differ by eps' + T eps; where that is below their rounding, double precision cannot tell them apart
    seen = (cd.eps_prime + cd.eps * cd["T"]).to_numpy() > 1e3 * rounding(cd.log_delta_pp_derived,
                                                                         cd.log_delta_pp_printed)
    cl.append(claim(oid, "cor3-exponent-vs-derivation", "paper", f"{HE}, Corollary 3 and App. B.4 eqs. (36)-(38)",
                    "the printed delta'' equals eq. (36) evaluated at eq. (37)'s minimizer (its own derivation), "
                    "compared where the difference the derivation predicts, eps' + T eps, is above the logs' rounding",
                    "log printed = log derived",
                    (np.abs(gap) < 0.5 * (cd.eps_prime + cd.eps * cd["T"])).to_numpy()[seen],  # nearer 0 than the
                    # derivation's eps' + T eps: a tolerance relative to the difference the row is about
                    cd[seen].reset_index(drop=True),
                    ["eps", "T", "eps_prime"], code=code_name(he.he_corollary3_log_delta_pp_derived),
                    quote=QUOTES["b4"], strength="identity",
                    note="identity: log(derived) - log(printed) = eps' + T eps > 0 for every parameter; at every point "
                         "(largest deviation "
                         f"{_largest(np.abs(gap - cd.eps_prime - cd.eps * cd['T'])):.2g}): (37) gives "
                         "e^{-eps' t - T t eps} = e^{+(eps'+T eps)/2}(...), the printed exponent has the "
                         "opposite sign"))
    keys0 = ["eps", "T", "delta_tilde", "eps_prime", "delta_prime", "exact_delta_at_eps_prime"]
    cl.append(claim(oid, "cor3-sound-as-printed", "paper", f"{HE}, Corollary 3 (ground truth KOV 2015 Thm 3.3)",
                    "reading 1 (Corollary 3 as stated: eps-DP steps, delta = 0, delta' = delta''): the printed "
                    "delta'' is at least the exact optimal delta at Corollary 3's eps'", "delta'' >= exact delta(eps')",
                    cd.sound, cd, keys0, code=code_name(he.he_corollary3_delta_pp), quote=QUOTES["cor3"] + " [...] "
                    + QUOTES["cor3_pp"]))
    c2 = _method(table, "he_cor3_derived", (table.delta == 0) & np.isfinite(table.delta_prime))
    cl.append(claim(oid, "cor3-sound-sign-corrected", "project", f"{HE}, Corollary 3 with App. B.4 eqs. (36)-(37)",
                    "with delta'' as its derivation gives it (eq. (36) at (37), exponent +(eps'+T eps)/2; a Chernoff "
                    "bound), Corollary 3's pure-DP pair is valid", "delta'' >= exact delta(eps')", c2.sound, c2, keys0,
                    code=code_name(he.he_corollary3_delta_pp_derived)))
    c3 = _method(table, "he_cor3", (table.delta > 0) & np.isfinite(table.delta_prime))
    cl.append(claim(oid, "cor3-approx-dp-sound", "paper", f"{HE}, Corollary 3 (ground truth KOV 2015 Thm 3.3)",
                    "reading 2 ((eps, delta)-DP steps with delta > 0, as Corollary 3's formula, its proof (App. B.4, "
                    "P_0 with mass delta) and Theorems 7/8 use it; outside the stated hypothesis of eps-DP steps): "
                    "Corollary 3's (eps', delta') is valid", "delta' >= exact delta(eps')", c3.sound, c3, KEYS,
                    code=code_name(he.he_corollary3_delta), quote=QUOTES["cor3"],
                    note=_below_floor_note(c3[~c3.sound]) + "; the part before delta'' is Corollary 2's"))
    return cl + [b5_row(oid, cd)] + b4_b5_rows(oid, cd)
