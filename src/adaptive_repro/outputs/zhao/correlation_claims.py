"""The claim rows of zhao-correlation (the builder :mod:`adaptive_repro.outputs.zhao.correlation` draws the figure):
each arm's validity test at each point with its power control, the scaling rows with their equivalence margin, and
where the DP calibration stops answering, whether its noise or the data spend the budget."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.decisions import Z
from adaptive_repro.foundation.registry import Claim, code_name
from adaptive_repro.outputs.zhao.common import BDP_ARM, DP_ARM, DP_EFFECTIVE_N_ARM
from adaptive_repro.outputs.zhao.correlation_stops import STOPPING_ARM, stopped_sessions_row
from adaptive_repro.simulation.zhao_calibration import noise_unit_threshold
from adaptive_repro.stats import clopper_pearson, weighted_slope

ANSWERED_MIN = 0.9  # as zhao-fig3: an arm that answers fewer accuracy queries than this has not validated them
BDP_EFFECTIVE_N_ARM = "zhao_alg1_bdp_effective_n"
REMEDY_ARMS = ("thresholdout_effective_n", DP_EFFECTIVE_N_ARM, "zhao_alg1_dp_v_hat", BDP_EFFECTIVE_N_ARM)
SCRIPT_ARM = "dwork_code"  # Dwork et al.'s Thresholdout as their script runs it: a threshold for i.i.d. records
ESTIMATED_V_ARM = "zhao_alg1_dp_v_hat"  # the threshold for n/V-hat, V-hat from each session's training set
NOISELESS_ARM = "zhao_alg1_dp_noiseless"  # the DP calibration's T with sigma = 0: noise versus data
#: Session epsilons above this are a device that gives the validity test power, not a privacy level (e^3 = 20 already
#: bounds a likelihood ratio loosely); the rows say so (this project's reading, docs/METHODS.md §4b).
PRIVACY_LEVEL_EPSILON_MAX = 3.0


def partner(arm_name: str) -> str | None:
    """The arm ``arm_name`` is compared with on the same data sets (its calibration's ``PARTNER``: the noiseless
    counterfactual with the DP arm, what the noise adds; each Bayesian-DP calibration with its DP counterpart, what
    Bayesian DP buys over DP; the threshold for n/V-hat with the one for n/V known, what estimating V costs), or
    None."""
    from adaptive_repro.simulation.registries import CALIBRATIONS

    own = next((c for c in CALIBRATIONS if c.arm_name == arm_name), None)
    return f"zhao_alg1_{own.PARTNER}" if own is not None and own.PARTNER else None


#: Equivalence margin of the "grows like √V" row: the slope of log gap on log V must lie within ½ ± this margin with
#: its whole Z-SE interval for "holds" (a failure to reject ½ is not evidence of ½).
SLOPE_MARGIN = 0.1
#: The analyst of ``remove_shared_state``, in a claim's words.
ADJUSTED_ANALYST = ("(The analyst removes the part the data set's shared latent state explains from every statistic "
                    "it holds before selecting, docs/METHODS.md §4b.)")


def _v_hat_words(rows: pd.DataFrame) -> str:
    """The V̂ the sessions used against the model's V, per point (where the table has it)."""
    known = [r for r in rows.itertuples() if np.isfinite(getattr(r, "v_hat_mean", np.nan))]
    return (" V̂ used: " + "; ".join(f"{r.v_hat_mean:.3g} ± {r.v_hat_sd:.2g} (SD over sessions) against V = {r.V:.3g}"
                                    for r in known) + ".") if known else ""


def _gap_text(r) -> str:
    return (f"V = {r.V:.3g}: {r.gap_mean:+.4f} ± {r.gap_se:.4f} ({r.gap_iid_se_units:.1f} i.i.d. SE, "
            f"{r.gap_true_se_units:.1f} true SE)")


def _answered(r) -> decisions.Decision:
    """The per-session answered rate at the largest k against 90% (:func:`decisions.rate_at_least`)."""
    return decisions.rate_at_least(r.answered_count, r.answered_n, ANSWERED_MIN)


def _gap(r) -> decisions.Decision:
    """The mean final gap (holdout − population where the model has it, else holdout − fresh) within the arm's
    threshold T (:func:`decisions.mean_at_most`); "cannot fail" where T is at or above the largest gap possible."""
    return decisions.mean_at_most(r.gap_mean, r.gap_se, r.replicates, r.threshold, r.largest_gap)


def _sessions_over_t(r) -> str:
    """The share of answered sessions whose final gap exceeds T, with its Clopper–Pearson interval (the guarantees
    bound a per-session probability; the mean gap is the rows' test)."""
    answered = int(r.answered_count)
    if answered == 0:
        return "no session answered"
    low, high = clopper_pearson(r.sessions_over_t, answered, decisions.CONFIDENCE)
    return (f"{r.sessions_over_t}/{answered} sessions end with a gap above T "
            f"({r.sessions_over_t / answered:.1%}, interval {float(low):.1%}–{float(high):.1%})")


def _assess(r) -> tuple[str, str]:
    """"valid", "invalid", "undecided" or "cannot fail" for an arm at a point, and why, by the decision module's rules
    (docs/METHODS.md "How verdicts are decided"). Valid: the answered rate at the largest k is at least 90%
    (Clopper–Pearson) and the mean gap is within T (mean + Z SE ≤ T). Invalid: the answered rate is below 90%, or the
    gap exceeds T (mean − Z SE > T). Cannot fail: T is at or above the largest gap possible. Else undecided, with the
    replicates a decision would need."""
    if not r.feasible:
        return "invalid", "infeasible calibration (not run)"
    if not (r.answered_n > 0):
        return "invalid", "no replicate"
    answered, gap = _answered(r), _gap(r)
    share = (f"{r.answered:.0%} answered ({r.answered_count}/{r.answered_n}, interval "
             f"{answered.low:.2f}–{answered.high:.2f})")
    gap_words = f"gap {r.gap_mean:+.4f} ± {r.gap_se:.4f} against T = {r.threshold:.4f}"
    if answered.state == decisions.FAILS:
        return "invalid", f"budget spent: {share} at k = {r.k} (⊥ for the rest)"
    if np.isnan(r.gap_mean) or gap.state == decisions.FAILS:
        return "invalid", f"overfitting: {gap_words}"
    if gap.state == decisions.CANNOT_FAIL:
        return "cannot fail", f"{share}; {gap_words}: {gap.note()}"
    undecided = [d.note() for d in (answered, gap) if d.state == decisions.UNDECIDED]
    if undecided:
        return "undecided", f"{share}, {gap_words}. " + " ".join(undecided)
    return "valid", f"{share}, {gap_words} (within)"


def _valid(r) -> tuple[bool, str]:
    """Whether an arm is not shown invalid at a point (:func:`_assess`), and why: the figure rings the invalid ones."""
    status, why = _assess(r)
    return status != "invalid", why


def _standard_fails(std: pd.Series | None, threshold: float) -> bool:
    """The power control: the unprotected standard holdout at the same point fails the same gap test (its mean gap
    exceeds the protected arm's T: mean − Z SE > T, :func:`decisions.mean_above`). Where it does not, a protected arm
    passing that test shows nothing."""
    return std is not None and decisions.mean_above(std.gap_mean, std.gap_se, std.replicates,
                                                    threshold).state == decisions.HOLDS


def protection_status(rows: pd.DataFrame, std: pd.DataFrame) -> tuple[str, list]:
    """A protected arm's status over its rows (one per point) by the validity test with its power control: "does not
    hold" where some row is invalid (:func:`_assess`); "not checked" where some row is undecided, cannot fail, or
    passes without power (the standard holdout ``std`` passes the same gap test at that point,
    :func:`_standard_fails`); else "holds". Also each row's (row, state, reason, powered)."""
    std_at = {r.point: r for r in std.itertuples()} if "point" in std else {}  # no points: no control
    verdicts = [(r, *_assess(r), _standard_fails(std_at.get(getattr(r, "point", None)), r.threshold))
                for r in rows.sort_values("V").itertuples()]
    if any(state == "invalid" for _, state, _, _ in verdicts):
        return "does not hold", verdicts
    if any(state != "valid" or not powered for _, state, _, powered in verdicts):
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
            reps = int(std["replicates"].max())
            worsens = decisions.mean_above(slope, slope_se, reps, 0.0)
            out.append(Claim(**base, claim_id=f"{structure}-correlation-worsens-naive-reuse",
                             claim=f"Under {structure.replace('_', ' ')} correlation, the standard holdout overfits "
                                   "more as correlation grows (the final gap at the largest k, null labels, against "
                                   "log V).",
                             expected=f"weighted slope of the gap against ln V above 0 by > {Z:g} SE (holds); at or "
                                      f"below 0 by > {Z:g} SE (does not hold)",
                             measured=f"slope {slope:+.4f} ± {slope_se:.4f} per unit of ln V; "
                                      + "; ".join(_gap_text(r) for r in std.itertuples())
                                      + (f". {worsens.note()}" if worsens.note() else ""),
                             status=worsens.status,
                             counterexample=f"slope {slope:+.4f} ± {slope_se:.4f}"
                             if worsens.state == decisions.FAILS else "",
                             code=code_name(weighted_slope)))
            usable, beyond = _room_for_sqrt_v(std[(std["gap_mean"] > 0) & (std["gap_se"] > 0)])
            claim_words = ("The standard holdout's overfitting grows like √V (constant in units of the true SE "
                           "√V·½/√n): the slope of log gap against log V is ½.")
            expected = (f"slope ± {Z:g} SE wholly inside ½ ± {SLOPE_MARGIN:g} (holds); wholly outside it (does not "
                        "hold): one margin both ways; tested at the points where √V growth from the smallest V "
                        "stays below the largest possible gap (else not applicable)")
            true_se = ", ".join(f"{r.gap_true_se_units:.1f} at V = {r.V:.3g}" for r in std.itertuples())
            if len(usable) >= 3:
                x, y = np.log(usable["V"]), np.log(usable["gap_mean"])
                w = (usable["gap_mean"] / usable["gap_se"]) ** 2  # var(log gap) ~ (se/gap)^2
                slope, slope_se = weighted_slope(x.to_numpy(), y.to_numpy(), w.to_numpy())
                sqrt_v = decisions.within(slope, slope_se, reps, 0.5, SLOPE_MARGIN)
                out.append(Claim(**base, claim_id=f"{structure}-naive-gap-scales-like-sqrt-v", claim=claim_words,
                                 expected=expected,
                                 measured=f"slope {slope:.2f} ± {slope_se:.2f} over {len(usable)} points "
                                          f"(interval {sqrt_v.low:.2f}–{sqrt_v.high:.2f}); gap in true "
                                          f"SE units: {true_se}"
                                          + (f". {sqrt_v.note()}" if sqrt_v.note() else ""),
                                 status=sqrt_v.status,
                                 counterexample=f"slope {slope:.2f} ± {slope_se:.2f}"
                                 if sqrt_v.state == decisions.FAILS else "",
                                 code=code_name(decisions.within)))
            else:
                out.append(Claim(**base, claim_id=f"{structure}-naive-gap-scales-like-sqrt-v", claim=claim_words,
                                 expected=expected,
                                 measured=f"not applicable at this setting: {beyond or 'a gap or its SE is 0'}; "
                                          f"{len(usable)} point(s) leave room, a slope needs 3. Gap in true SE "
                                          f"units: {true_se}",
                                 status="not applicable", counterexample="", code=code_name(_room_for_sqrt_v)))
        for arm_name, what in ((DP_ARM, "stays valid"), (BDP_ARM, "stays valid"), (SCRIPT_ARM, "stays valid"),
                               *((a, "restores validity") for a in REMEDY_ARMS)):
            rows = sub[sub["mechanism"] == arm_name].sort_values("V")
            if rows.empty:
                continue
            std_at = {r.point: r for r in std.itertuples()}
            status, verdicts = protection_status(rows, std)
            worst = rows.iloc[-1]
            reference = worst.gap_reference
            failing = [f"V = {r.V:.3g}: {why}" for r, state, why, _ in verdicts if state == "invalid"]
            unpowered = [r for r, state, _, powered in verdicts if state in ("valid", "undecided") and not powered]
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
            certified = (" Certified Bayesian-DP level " + ", ".join(
                f"{r.certified_bdp:.3g} at V = {r.V:.3g}" for r in rows.itertuples() if np.isfinite(r.certified_bdp))
                + f" (session ε = {worst.eps_session:g}{_device_words(worst)}).") \
                if np.isfinite(worst.eps_session) else ""
            suffix = "restores" if arm_name in REMEDY_ARMS else "valid"
            mechanism = _bottom_mechanism(rows) if arm_name in (DP_ARM, BDP_ARM) else ""
            if arm_name in REMEDY_ARMS:
                naive = std.iloc[-1] if len(std) else None
                compare = (f" At V = {worst.V:.3g} its gap is {worst.gap_iid_se_units:.1f} i.i.d. SE against the "
                           f"standard holdout's {naive.gap_iid_se_units:.1f}: validity here means within a threshold "
                           f"√V times wider (T = {worst.threshold:.3f}), not less overfitting."
                           if naive is not None and np.isfinite(worst.gap_mean) else "")
                mechanism = ((" Each session's threshold is T√V̂, V̂ estimated from its training set (the mean over "
                              "the attributes of the sign queries' inflation by batch means along the record order, "
                              "or cluster-robust over the households where the data model knows them, floored at "
                              "1); the gap is judged against T for n/V with V known." + _v_hat_words(rows)
                              if arm_name == ESTIMATED_V_ARM
                              else " The threshold is multiplied by √V, V the data model's expected inflation, known "
                                   "to the mechanism (an oracle, not estimated from the training set).") + compare)
            out.append(Claim(**base, claim_id=f"{structure}-{arm_name}-{suffix}",
                             claim=f"Under {structure.replace('_', ' ')} correlation, {arms[arm_name].claim_name} "
                                   f"{what} at every strength: ≥ {ANSWERED_MIN:.0%} of sessions answer every "
                                   "accuracy query (the one at the largest k is answered, not ⊥) and the mean final "
                                   f"gap (holdout − {reference}) within its threshold T at the largest k.",
                             expected=f"valid at every V (answered ≥ {ANSWERED_MIN:.0%} by its "
                                      f"{decisions.CONFIDENCE:.2%} Clopper–Pearson interval, gap + {Z:g} SE ≤ T) "
                                      "where the standard holdout fails "
                                      f"that gap test (its gap − {Z:g} SE > T); does not hold where the answered "
                                      f"interval lies below {ANSWERED_MIN:.0%} or gap − {Z:g} SE > T; a T at or above "
                                      "the largest possible gap cannot fail",
                             measured="; ".join(f"V = {r.V:.3g}: {why}".rstrip(".")
                                                for r, _, why, _ in verdicts) + power
                             + " Per session: " + "; ".join(f"V = {r.V:.3g}: {_sessions_over_t(r)}"
                                                            for r in rows.itertuples())
                             + "." + certified + mechanism,
                             status=status, counterexample="; ".join(failing[:2]),
                             code=code_name(_assess)))
        noise_row = _noise_or_data(structure, sub)
        if noise_row is not None:
            out.append(Claim(**base, **noise_row))
        if STOPPING_ARM in arms:
            stops = stopped_sessions_row(structure, sub, arms[STOPPING_ARM].claim_name)
            if stops is not None:
                out.append(Claim(**base, **stops))
        for arm_name in (BDP_ARM, BDP_EFFECTIVE_N_ARM):
            bought = bdp_against_dp(structure, sub, arm_name, arms)
            if bought is not None:
                out.append(Claim(**base, **bought))
    if spec.points[0].remove_shared_state:  # the analyst these rows are about, in every row
        out = [dataclasses.replace(c, claim=c.claim + " " + ADJUSTED_ANALYST) for c in out]
    return out


def _device_words(row) -> str:
    """Why a large session epsilon is there: it buys the test power (a Laplace scale a small fraction of T), and no
    privacy worth the name (empty at PRIVACY_LEVEL_EPSILON_MAX or below)."""
    if not row.eps_session > PRIVACY_LEVEL_EPSILON_MAX:
        return ""
    return (f"; e^ε = {np.exp(row.eps_session):.3g} bounds no likelihood ratio worth the name: a device that keeps the "
            f"Laplace scale at {row.sigma / row.threshold:.2f} T so that the threshold's validity can be tested, not a "
            "privacy level")


def _noise_or_data(structure: str, sub: pd.DataFrame) -> dict | None:
    """Where the DP calibration stops answering, whether the data alone spend its budget: the same threshold T without
    noise (the noiseless counterfactual, on the same data sets) answers < 90% there too (a rate decision), with the
    paired comparison of the two arms on the same data sets beside it (McNemar's exact test: the sessions only the
    noiseless arm answers against those only the DP arm answers), which measures what the noise adds."""
    dp = {r.V: r for r in sub[sub["mechanism"] == DP_ARM].itertuples()}
    quiet = {r.V: r for r in sub[sub["mechanism"] == NOISELESS_ARM].itertuples()}
    if not dp or not quiet:
        return None
    failing = [v for v in sorted(dp) if v in quiet and _answered(dp[v]).state == decisions.FAILS]
    alone = {v: decisions.rate_at_least(quiet[v].answered_count, quiet[v].answered_n, ANSWERED_MIN) for v in failing}
    states = {d.state for d in alone.values()}
    # the data alone spend it: the noiseless arm answers < 90% (its "answers >= 90%" does not hold) at every such V
    status = ("not checked" if not failing or decisions.UNDECIDED in states else
              "does not hold" if decisions.HOLDS in states else "holds")

    def paired(v) -> str:
        q = quiet[v]
        noise = decisions.paired_rates_differ_counts(q.only_this_answered, q.only_partner_answered, q.answered_n)
        verdict = {decisions.HOLDS: "the noise spends budget beyond the data",
                   decisions.FAILS: "the noise spends nothing beyond the data",
                   decisions.UNDECIDED: "what the noise adds is undecided"}[noise.state]
        return (f"paired on the same {q.answered_n} data sets: only without noise {q.only_this_answered}, only with "
                f"noise {q.only_partner_answered} (difference {noise.estimate:+.0%}, interval {noise.low:+.0%} to "
                f"{noise.high:+.0%}: {verdict})")

    measured = "; ".join(
        f"V = {v:.3g}: DP arm {dp[v].answered:.0%} answered ({dp[v].budget_used:.1f} of {dp[v].budget:g} used, "
        f"σ/T = {dp[v].sigma / dp[v].threshold:.2f}), without noise {quiet[v].answered:.0%} "
        f"({quiet[v].budget_used:.1f} used)"
        + (f", interval {alone[v].low:.2f}–{alone[v].high:.2f}; {paired(v)}" if v in alone else "")
        for v in sorted(dp) if v in quiet)
    notes = " ".join(dict.fromkeys(d.note() for d in alone.values() if d.note()))
    return dict(claim_id=f"{structure}-dp-budget-spent-by-the-data",
                claim=f"Where the DP calibration stops answering under {structure.replace('_', ' ')} correlation, the "
                      "data alone spend its budget: the same threshold T without noise (σ = 0, a counterfactual arm, "
                      "not private) answers < 90% of the sessions there too. What the noise adds on the same data "
                      "sets is measured beside it (McNemar's exact test).",
                expected=f"at every V where the DP arm answers < {ANSWERED_MIN:.0%} (Clopper–Pearson), the noiseless "
                         f"arm does too (holds); at some such V the noiseless arm answers ≥ {ANSWERED_MIN:.0%} (does "
                         "not hold: without the noise the data would not spend the budget there)",
                measured=measured + ("" if failing else "; the DP arm answers at every V: nothing to attribute")
                + (f". {notes}" if notes else ""),
                status=status,
                counterexample="; ".join(f"V = {v:.3g}" for v, d in alone.items() if d.state == decisions.HOLDS),
                code=code_name(decisions.rate_at_least))  # the status; the paired test is measured beside it


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


def _bought_at(r, partner, std) -> tuple[str, decisions.Decision | None, str]:
    """One point of :func:`bdp_against_dp`: (state, the gap decision, the words). "not applicable" where the two
    calibrations coincide (same sigma and T: nothing to compare) or where either arm answers < 90% of the sessions
    (decided, Clopper–Pearson: the comparison is about arms that answer); "no power" where the standard holdout does
    not fail the same gap test at the point; else the gap decision's state."""
    unit = noise_unit_threshold(1, r.n)  # one i.i.d. SE of a sign query: the margin
    rates = {a.mechanism: _answered(a) for a in (r, partner)}
    answered = ", ".join(f"{name} {a.answered_count}/{a.answered_n} answered (interval {rates[a.mechanism].low:.2f}–"
                         f"{rates[a.mechanism].high:.2f})" for name, a in (("Bayesian DP", r), ("DP", partner)))
    words = (f"V = {r.V:.3g}, n = {r.n:,}: σ {r.sigma:.3g} against {partner.sigma:.3g}, T = {r.threshold:.4f}; "
             + answered)
    if r.sigma == partner.sigma and r.threshold == partner.threshold:
        return "not applicable", None, words + "; the two calibrations coincide here (ε' = ε): nothing to compare"
    if any(d.state == decisions.FAILS for d in rates.values()):
        return "not applicable", None, words + f"; an arm answers < {ANSWERED_MIN:.0%}: not a point where both answer"
    # DP's gap minus Bayesian DP's, on the sessions both answered: Bayesian DP buys validity where it is > 1 i.i.d. SE
    gap = decisions.mean_above(-r.paired_gap_diff_mean, r.paired_gap_diff_se, int(r.paired_sessions), unit)
    over = decisions.paired_rates_differ_counts(r.only_partner_over_t, r.only_this_over_t, r.answered_n)
    cost = decisions.paired_rates_differ_counts(r.only_partner_answered, r.only_this_answered, r.answered_n)
    words += (f"; final gap DP − Bayesian DP {-r.paired_gap_diff_mean:+.5f} ± {r.paired_gap_diff_se:.5f} over "
              f"{r.paired_sessions} sessions both answered ({-r.paired_gap_diff_mean / unit:+.2f} ± "
              f"{r.paired_gap_diff_se / unit:.2f} i.i.d. SE: {gap.state if gap.decided else gap.clause()}); "
              f"sessions above T: only DP {r.only_partner_over_t}, only Bayesian DP {r.only_this_over_t} "
              f"({_paired_words(over, 'DP more often')}); answered: only DP {r.only_partner_answered}, only "
              f"Bayesian DP {r.only_this_answered} ({_paired_words(cost, 'DP more often')})")
    if not _standard_fails(std, r.threshold):
        return "no power", gap, words + "; the standard holdout passes the same gap test here: no power"
    return gap.state, gap, words


def _paired_words(decision: decisions.Decision, what: str) -> str:
    """A McNemar decision of :func:`decisions.paired_rates_differ_counts` in a few words."""
    if decision.state == decisions.HOLDS:
        return f"{what}, decided"
    if decision.state == decisions.FAILS:
        return f"not {what}, decided"
    return "no session differs" if decision.estimate == 0 and decision.low == decision.high else "undecided"


def bdp_against_dp(structure: str, sub: pd.DataFrame, arm_name: str, arms: dict) -> dict | None:
    """What Bayesian DP buys over DP at the classifier level (this project's question; Zhao 2017 §1 and §4 argue that
    the Bayesian-DP calibration repairs DP-based reuse under correlation): the Bayesian-DP arm ``arm_name`` against
    its DP partner (:func:`partner`) on the same data sets, at every point where both answer. The decided quantity
    is the paired difference of their final gaps (DP − Bayesian DP) against a margin of one i.i.d. SE ½/√n
    (:func:`decisions.mean_above`: holds where it exceeds the margin by Z SE, does not hold where it stays below it
    by Z SE); the sessions above T and the answered sessions are compared beside it (McNemar's exact test). Holds
    where it holds at every point that is applicable and powered; does not hold where it does not hold at one; not
    applicable where no point is."""
    rows = sub[sub["mechanism"] == arm_name].sort_values("V")
    partner_name = partner(arm_name)
    partners = {r.point: r for r in sub[sub["mechanism"] == partner_name].itertuples()}
    if rows.empty or not partners:
        return None
    std = {r.point: r for r in sub[sub["mechanism"] == "standard"].itertuples()}
    points = [_bought_at(r, partners[r.point], std.get(r.point)) for r in rows.itertuples() if r.point in partners]
    states = [state for state, _, _ in points]
    decided = [s for s in states if s != "not applicable"]
    status = ("not applicable" if not decided else
              "does not hold" if decisions.FAILS in decided else
              "holds" if all(s == decisions.HOLDS for s in decided) else "not checked")
    what = arms[arm_name].claim_name
    partner_words = arms[partner_name].claim_name if partner_name in arms else partner_name
    return dict(claim_id=f"{structure}-{arm_name}-buys-validity-over-dp",
                claim=f"Under {structure.replace('_', ' ')} correlation, {what} buys validity over {partner_words} "
                      "at the "
                      "classifier level: on the same data sets, at every strength where both answer, its sessions end "
                      "with a smaller final gap by more than one i.i.d. SE ½/√n.",
                expected=f"DP − Bayesian DP final gap − {Z:g} SE > ½/√n at every applicable point where the standard "
                         f"holdout fails the gap test (holds); + {Z:g} SE ≤ ½/√n at one (does not hold); not "
                         f"applicable where an arm answers < {ANSWERED_MIN:.0%} (Clopper–Pearson) or the two "
                         "calibrations coincide",
                measured="; ".join(f"{words} [{state}]" for state, _, words in points) + ".",
                status=status,
                counterexample="; ".join(words.split(";")[0] for state, _, words in points
                                         if state == decisions.FAILS),
                code=code_name(bdp_against_dp))


def _room_for_sqrt_v(points: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The standard holdout's points (increasing V) where the √V law has room: its prediction from the smallest V,
    gap_1 √(V / V_1), stays below the largest possible gap (holdout accuracy 1: 1 − the population accuracy). A gap
    cannot grow past that ceiling, so a slope below ½ there is no counter-example. Returns the points and, if any
    are left out, the words saying why."""
    points = points.sort_values("V")
    if points.empty:
        return points, "no point with a positive gap"
    first = points.iloc[0]
    predicted = first.gap_mean * np.sqrt(points["V"] / first.V)
    room = predicted < points["largest_gap"]
    beyond = points[~room]
    words = (f"√V growth from the gap at V = {first.V:.3g} ({first.gap_mean:.3f}) would reach "
             + ", ".join(f"{g:.2f} at V = {v:.3g}" for g, v in zip(predicted[~room], beyond["V"]))
             + f" against a largest possible gap of {points['largest_gap'].min():.2f}") if len(beyond) else ""
    return points[room], words
