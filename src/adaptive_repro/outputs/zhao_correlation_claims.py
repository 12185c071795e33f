"""The claim rows of zhao-correlation (the builder :mod:`adaptive_repro.outputs.zhao_correlation` draws the figure):
each arm's validity test at each point with its power control, the scaling rows with their equivalence margin, and
where the DP calibration stops answering, whether its noise or the data spend the budget."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from adaptive_repro.foundation.registry import Claim, code_name
from adaptive_repro.outputs.experiment_claims import Z, three_way
from adaptive_repro.outputs.zhao_common import BDP_ARM, DP_ARM
from adaptive_repro.stats import clopper_pearson, weighted_slope

ANSWERED_MIN = 0.9  # as zhao-fig3: an arm that answers fewer accuracy queries than this has not validated them
REMEDY_ARMS = ("thresholdout_effective_n", "zhao_alg1_dp_effective_n")
NOISELESS_ARM = "zhao_alg1_dp_noiseless"  # the DP calibration's T with sigma = 0: noise versus data
#: Equivalence margin of the "grows like √V" row: the slope of log gap on log V must lie within ½ ± this margin with
#: its whole Z-SE interval for "holds" (a failure to reject ½ is not evidence of ½).
SLOPE_MARGIN = 0.1
#: The analyst of ``remove_shared_state``, in a claim's words.
ADJUSTED_ANALYST = ("(The analyst removes the part the data set's shared latent state explains from every statistic "
                    "it holds before selecting, docs/METHODS.md §4b.)")


def _gap_text(r) -> str:
    return (f"V = {r.V:.3g}: {r.gap_mean:+.4f} ± {r.gap_se:.4f} ({r.gap_iid_se_units:.1f} i.i.d. SE, "
            f"{r.gap_true_se_units:.1f} true SE)")


def _answered_interval(r) -> tuple[float, float]:
    """Clopper–Pearson interval of the answered fraction at the claims' Z (two-sided), over the replicates."""
    answered = int(round(r.answered * r.answered_n))
    low, high = clopper_pearson(answered, r.answered_n, math.erf(Z / math.sqrt(2)))  # two-sided, ± Z SE
    return float(low), float(high)


def _assess(r) -> tuple[str, str]:
    """"valid", "invalid" or "undecided" for an arm at a point, and why. Valid: it answers at least 90% of the accuracy
    queries at the largest k (the whole Z-level Clopper–Pearson interval at or above 90%) and holdout − fresh is not
    significantly above its threshold T (gap − Z SE ≤ T, as zhao-fig3's reading). Invalid: the interval lies below
    90%, or the gap is significantly above T. Undecided: the interval straddles 90%."""
    if not r.feasible:
        return "invalid", "infeasible calibration (not run)"
    if not (r.answered_n > 0):
        return "invalid", "no replicate"
    low, high = _answered_interval(r)
    share = f"{r.answered:.0%} answered (interval {low:.2f}–{high:.2f})"
    if high < ANSWERED_MIN:
        return "invalid", f"budget spent: {share} at k = {r.k} (⊥ for the rest)"
    if np.isnan(r.gap_mean) or (np.isfinite(r.gap_se) and r.gap_mean - Z * r.gap_se > r.threshold):
        return "invalid", f"overfitting: gap {r.gap_mean:+.4f} ± {r.gap_se:.4f} above T = {r.threshold:.4f}"
    if low < ANSWERED_MIN:
        return "undecided", f"{share}: undecided against {ANSWERED_MIN:.0%}"
    return "valid", f"{share}, gap {r.gap_mean:+.4f} ± {r.gap_se:.4f} within T = {r.threshold:.4f}"


def _valid(r) -> tuple[bool, str]:
    """Whether an arm is not shown invalid at a point (:func:`_assess`), and why: the figure rings the invalid ones."""
    status, why = _assess(r)
    return status != "invalid", why


def _standard_fails(std: pd.Series | None, threshold: float) -> bool:
    """The power control: the unprotected standard holdout at the same point fails the same gap test (gap − Z SE > T
    with the protected arm's T). Where it passes, a protected arm passing that test shows nothing."""
    return std is not None and bool(np.isfinite(std.gap_se) and std.gap_mean - Z * std.gap_se > threshold)


def protection_status(rows: pd.DataFrame, std: pd.DataFrame) -> tuple[str, list]:
    """A protected arm's status over its rows (one per point) by the validity test with its power control: "does not
    hold" where some row is invalid (:func:`_assess`); "not checked" where some row is undecided or passes without
    power (the standard holdout ``std`` passes the same gap test at that point, :func:`_standard_fails`); else
    "holds". Also each row's (row, state, reason, powered)."""
    std_at = {r.point: r for r in std.itertuples()} if "point" in std else {}  # no points: no control
    verdicts = [(r, *_assess(r), _standard_fails(std_at.get(getattr(r, "point", None)), r.threshold))
                for r in rows.sort_values("V").itertuples()]
    if any(state == "invalid" for _, state, _, _ in verdicts):
        return "does not hold", verdicts
    if any(state == "undecided" or (state == "valid" and not powered) for _, state, _, powered in verdicts):
        return "not checked", verdicts
    return "holds", verdicts


def claims(table: pd.DataFrame, spec) -> list[Claim]:
    out = []
    arms = {arm.name: arm for arm in spec.points[0].arms}
    base = dict(output_id="zhao-correlation", kind="project", source="this project (Zhao 2017 §1, §4 motivate it)")
    for structure in dict.fromkeys(table["structure"]):
        sub = table[table["structure"] == structure]
        std = sub[sub["mechanism"] == "standard"].sort_values("V")
        fit = std[std["gap_se"] > 0]
        if len(fit) >= 2:
            slope, slope_se = weighted_slope(np.log(fit["V"].to_numpy()), fit["gap_mean"].to_numpy(),
                                              (1.0 / fit["gap_se"] ** 2).to_numpy())
            ok = bool(slope > Z * slope_se)
            status, undecided = three_way(ok, refuted=bool(slope <= 0),
                                          between=f"the slope is positive at {slope / slope_se:.1f} SE, below the "
                                                  f"{Z:g}-SE bar")
            out.append(Claim(**base, claim_id=f"{structure}-correlation-worsens-naive-reuse",
                             claim=f"Under {structure.replace('_', ' ')} correlation, the standard holdout overfits "
                                   "more as correlation grows (holdout − fresh at the largest k, null labels, "
                                   "against log V).",
                             expected=f"weighted slope of the gap against ln V above 0 by > {Z:g} SE",
                             measured=f"slope {slope:+.4f} ± {slope_se:.4f} per unit of ln V; "
                                      + "; ".join(_gap_text(r) for r in std.itertuples())
                                      + (f". {undecided}" if undecided else ""),
                             status=status,
                             counterexample=f"slope {slope:+.4f} ± {slope_se:.4f}" if status == "does not hold" else "",
                             code=code_name(weighted_slope)))
            usable = std[(std["gap_mean"] > 0) & (std["gap_se"] > 0)]
            if len(usable) >= 3:
                x, y = np.log(usable["V"]), np.log(usable["gap_mean"])
                w = (usable["gap_mean"] / usable["gap_se"]) ** 2  # var(log gap) ~ (se/gap)^2
                slope, slope_se = weighted_slope(x.to_numpy(), y.to_numpy(), w.to_numpy())
                off = abs(slope - 0.5)
                if off + Z * slope_se <= SLOPE_MARGIN:
                    status, note = "holds", ""
                elif off > Z * slope_se:
                    status, note = "does not hold", ""
                else:
                    reps = int(std["replicates"].max())
                    need = (f"about {math.ceil(reps * (Z * slope_se / (SLOPE_MARGIN - off)) ** 2):,} replicates "
                            "would decide it" if off < SLOPE_MARGIN else "no replicate count makes it hold")
                    status, note = "not checked", (f"Undecided: ½ is within {Z:g} SE but the {Z:g}-SE interval is "
                                                   f"not inside ½ ± {SLOPE_MARGIN:g}; {need}.")
                out.append(Claim(**base, claim_id=f"{structure}-naive-gap-scales-like-sqrt-v",
                                 claim="The standard holdout's overfitting grows like √V (constant in units of the "
                                       "true SE √V·½/√n): the slope of log gap against log V is ½.",
                                 expected=f"slope − {Z:g} SE and slope + {Z:g} SE both within ½ ± {SLOPE_MARGIN:g} "
                                          f"(holds); |slope − ½| > {Z:g} SE (does not hold)",
                                 measured=f"slope {slope:.2f} ± {slope_se:.2f} over {len(usable)} points "
                                          f"({off / slope_se:.1f} SE from ½); gap in true "
                                          "SE units: " + ", ".join(f"{r.gap_true_se_units:.1f} at V = {r.V:.3g}"
                                                                   for r in usable.itertuples())
                                          + (f". {note}" if note else ""),
                                 status=status,
                                 counterexample=f"slope {slope:.2f} ± {slope_se:.2f}"
                                 if status == "does not hold" else "",
                                 code=code_name(weighted_slope)))
        for arm_name, what in ((DP_ARM, "stays valid"), (BDP_ARM, "stays valid"),
                               *((a, "restores validity") for a in REMEDY_ARMS)):
            rows = sub[sub["mechanism"] == arm_name].sort_values("V")
            if rows.empty:
                continue
            std_at = {r.point: r for r in std.itertuples()}
            status, verdicts = protection_status(rows, std)
            worst = rows.iloc[-1]
            failing = [f"V = {r.V:.3g}: {why}" for r, state, why, _ in verdicts if state == "invalid"]
            unpowered = [r for r, state, _, powered in verdicts if state == "valid" and not powered]
            power = ("; power control (the standard holdout on the same test with this arm's T): "
                     + ", ".join(f"{'fails' if powered else 'passes'} at V = {r.V:.3g}"
                                 for r, _, _, powered in verdicts))
            if unpowered:
                short = ", ".join(f"{std_at[r.point].gap_mean / r.threshold:.2g} × T at V = {r.V:.3g}"
                                  for r in unpowered if r.point in std_at)
                power += (". Not checked (no power at this setting) at V = "
                          + ", ".join(f"{r.V:.3g}" for r in unpowered)
                          + ": the unprotected standard holdout passes the same gap test there (its gap is "
                          + short + "), so passing it shows nothing; a setting where naive reuse overfits beyond T "
                            "would decide it")
            power += "."
            certified = ("; certified Bayesian-DP level " + ", ".join(
                f"{r.certified_bdp:.3g} at V = {r.V:.3g}" for r in rows.itertuples() if np.isfinite(r.certified_bdp))
                + f" (session ε = {worst.eps_session:g})") if np.isfinite(worst.eps_session) else ""
            suffix = "valid" if arm_name in (DP_ARM, BDP_ARM) else "restores"
            mechanism = _bottom_mechanism(rows) if arm_name in (DP_ARM, BDP_ARM) else ""
            if arm_name in REMEDY_ARMS:
                naive = std.iloc[-1] if len(std) else None
                compare = (f" At V = {worst.V:.3g} its gap is {worst.gap_iid_se_units:.1f} i.i.d. SE against the "
                           f"standard holdout's {naive.gap_iid_se_units:.1f}: validity here means within a threshold "
                           f"√V times wider (T = {worst.threshold:.3f}), not less overfitting."
                           if naive is not None and np.isfinite(worst.gap_mean) else "")
                mechanism = (" The threshold is multiplied by √V, V the data model's expected inflation, known to the "
                             "mechanism (an oracle, not estimated from the training set)." + compare)
            out.append(Claim(**base, claim_id=f"{structure}-{arm_name}-{suffix}",
                             claim=f"Under {structure.replace('_', ' ')} correlation, {arms[arm_name].claim_name} "
                                   f"{what} at every strength: ≥ {ANSWERED_MIN:.0%} of accuracy queries answered "
                                   "and holdout − fresh within its threshold T at the largest k.",
                             expected=f"valid at every V (answered ≥ {ANSWERED_MIN:.0%} with its {Z:g}-SE interval, "
                                      f"gap − {Z:g} SE ≤ T) where the standard holdout fails that gap test; "
                                      "does not hold at any clearly invalid point",
                             measured="; ".join(f"V = {r.V:.3g}: {why}" for r, _, why, _ in verdicts) + power
                             + certified + mechanism,
                             status=status, counterexample="; ".join(failing[:2]),
                             code=code_name(_assess)))
        noise_row = _noise_or_data(structure, sub)
        if noise_row is not None:
            out.append(Claim(**base, **noise_row))
    if spec.points[0].remove_shared_state:  # the analyst these rows are about, in every row
        out = [dataclasses.replace(c, claim=c.claim + " " + ADJUSTED_ANALYST) for c in out]
    return out


def _noise_or_data(structure: str, sub: pd.DataFrame) -> dict | None:
    """Where the DP calibration stops answering, which cause spends its budget: the same T without noise (the
    noiseless counterfactual) fails there too (the data) or answers (its Laplace noise)."""
    dp = {r.V: r for r in sub[sub["mechanism"] == DP_ARM].itertuples()}
    quiet = {r.V: r for r in sub[sub["mechanism"] == NOISELESS_ARM].itertuples()}
    failing = [v for v in sorted(dp) if v in quiet and _assess(dp[v])[1].startswith("budget spent")]
    if not dp or not quiet:
        return None
    causes = {}
    for v in failing:
        state, why = _assess(quiet[v])
        causes[v] = ("data" if why.startswith("budget spent") else "noise" if state == "valid" else "undecided")
    if not failing:
        status = "not checked"
    elif "noise" in causes.values():
        status = "does not hold"
    elif "undecided" in causes.values():
        status = "not checked"
    else:
        status = "holds"
    measured = "; ".join(
        f"V = {v:.3g}: DP arm {dp[v].answered:.0%} answered ({dp[v].budget_used:.1f} of {dp[v].budget:g} used, "
        f"σ/T = {dp[v].sigma / dp[v].threshold:.2f}), without noise {quiet[v].answered:.0%} "
        f"({quiet[v].budget_used:.1f} used)" + (f": {causes[v]}" if v in causes else "")
        for v in sorted(dp) if v in quiet)
    return dict(claim_id=f"{structure}-dp-budget-spent-by-the-data",
                claim=f"Where the DP calibration stops answering under {structure.replace('_', ' ')} correlation, the "
                      "data spend its budget, not its Laplace noise: the same threshold T without noise (σ = 0, a "
                      "counterfactual arm, not private) stops answering there too.",
                expected=f"at every V where the DP arm's answered interval is below {ANSWERED_MIN:.0%}, the noiseless "
                         "arm's is too (holds); at some such V the noiseless arm answers ≥ 90% (does not hold: the "
                         "noise spends the budget there)",
                measured=measured + ("" if failing else "; the DP arm answers at every V: nothing to attribute"),
                status=status,
                counterexample="; ".join(f"V = {v:.3g}" for v, c in causes.items() if c == "noise"),
                code=code_name(_assess))


def _bottom_mechanism(rows: pd.DataFrame) -> str:
    """Why an Algorithm 1 arm answers ⊥ at the strongest correlation, from its measured budget use and its sigma."""
    worst = rows.iloc[-1]
    if worst.V < 1.5 or not (worst.answered < ANSWERED_MIN):
        return ""
    noise = worst.sigma / worst.threshold
    data = ("over-threshold events spend the budget ({used:.1f} of B = {budget:g} used on average). The training and "
            "holdout answers each stray √V times the i.i.d. SE ½/√n from the population value while T stays in i.i.d. "
            "units, so |train − holdout| exceeds T for many of the analyst's attribute queries"
            ).format(used=worst.budget_used, budget=worst.budget)
    if noise > 0.5:  # noise first: at this sigma/T the same sigma and T spend the budget on i.i.d. records too
        text = (f" Mechanism of the ⊥ (V = {worst.V:.3g}): first the noise: its Laplace scale σ is {noise:.2g} × T, so "
                "the noise alone crosses T (zhao-correlation-frontier's budget rows measure it: the same σ and T on "
                f"i.i.d. records answer < 90% where σ/T is this large); and the data: {data}")
    else:
        text = f" Mechanism of the ⊥ (V = {worst.V:.3g}): {data}"
    return text + "."
