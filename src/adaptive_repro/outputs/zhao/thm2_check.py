"""zhao-thm2-check (Zhao 2017, Theorem 2's failure event counted over replicates).

Zhao 2017 §4 only says that labels are random, attributes are correlated with the label and among themselves, and
records are correlated; the "chain" data model used here is this project's design (docs/METHODS.md §4).
"""

from __future__ import annotations

import math

import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.foundation.registry import Claim, Verdicts
from adaptive_repro.outputs.zhao.common import (
    REQUIREMENT,
    REQUIREMENT_TEXT,
    THEOREM2_ARM,
    setting_line,
    short_arm_name,
    theory_table,
    wrap_verdict,
)
from adaptive_repro.report.plotting import MAX_WIDTH, SIZES, legend_below, pyplot, ring, style, verdict_title
from adaptive_repro.simulation.mechanisms.algorithm1 import theorem2_diagnostics


def event_rate_id(arm: str) -> str:
    """The ID of an arm's Theorem 2 event-rate row (its figure rings by it)."""
    return f"{arm}-event-rate"


#: The function that computes the measured event (named from the object, so a move renames it).
EVENT_CODE = f"{theorem2_diagnostics.__module__}.{theorem2_diagnostics.__qualname__}"
#: Zhao 2017, Theorem 2: the words before its displayed inequality P[exists i: Z_i < B and |a_i - Q_i(P)| >= tau]
#: <= beta (verbatim; the inequality itself is a formula).
QUOTE_THM2 = (r"Then for arbitrary correlations between data samples, we have $$\mathbb{P}\left[\exists i \in \{1, 2, "
              r"\dots, m\} : \begin{array}{l} Z_i < B \text{ and} \\ |a_i - Q_i(\mathcal{P})| \ge \tau \end{array}"
              r"\right] \le \beta,$$")


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-thm2-check from the Algorithm 1 diagnostics."""
    (spec,) = inputs["specs"].values()
    return thm2_check(inputs["diagnostics"], spec, theory_table(spec))


def thm2_check(diagnostics: pd.DataFrame, spec, theory: pd.DataFrame):
    """zhao-thm2-check: frequency of "exists i: Z_i < B and |a_i - Q_i(P)| >= tau" over replicates against beta."""
    settings = spec.alg1
    beta = settings.beta
    rows = []
    for arm, grp in diagnostics.groupby("mechanism", sort=False):
        events, trials = int(grp["thm2_event"].sum()), len(grp)
        rate = decisions.rate_at_most(events, trials, beta)  # its interval: the one the claims decide by
        low, high = rate.low, rate.high
        th = theory[theory["arm"] == arm].iloc[0]
        rows.append({"mechanism": arm, "n": spec.n, "d": spec.d, **spec.model.table_labels(), "tau": settings.tau,
                     "beta": beta, "budget": settings.budget,
                     "replicates": trials, "events": events, "frequency": events / trials, "ci_low": low,
                     "ci_high": high,
                     "mean_over_events": grp["over_events"].mean(), "mean_bottoms": grp["bottoms"].mean(),
                     "answered_fraction": 1.0 - grp["bottoms"].sum() / max(grp["queries"].sum(), 1),
                     "sigma": th["sigma"], "threshold": th["threshold"],
                     "theorem2_n_required": th["theorem2_n_required"],
                     "n_meets_theorem2": spec.n >= th["theorem2_n_required"]})
    table = pd.DataFrame(rows)
    claims = thm2_claims(table, beta, spec)
    return table, thm2_figure(table, Verdicts(claims), spec), claims


def thm2_verdict(table: pd.DataFrame, beta: float, spec) -> str:
    """The figure's one message: for which calibrations Theorem 2's failure event is decided within β and for which
    it exceeds β (:func:`event_rate`, as the claims decide); calibrations left undecided are named as such."""
    states = {short_arm_name(spec.arm(r.mechanism)): event_rate(r, beta).state for r in table.itertuples()}
    within = [arm for arm, state in states.items() if state == decisions.HOLDS]
    above = [arm for arm, state in states.items() if state == decisions.FAILS]
    open_ = [arm for arm, state in states.items() if state not in (decisions.HOLDS, decisions.FAILS)]
    event = "Theorem 2's failure event"
    t2 = table[table["mechanism"] == THEOREM2_ARM]
    outside = ("; the Theorem 2 row is outside its hypotheses (n below its requirement), not a test of the theorem"
               if len(t2) and not bool(t2["n_meets_theorem2"].iloc[0]) else "")
    undecided = (f"; undecided for {' and '.join(open_)} (more replicates would decide)" if open_ else "")
    if not above and not open_:
        return f"{event} stays within β = {beta:g} with every calibration" + outside
    if not within and not open_:
        return f"{event} exceeds β = {beta:g} with every calibration" + outside
    if not within:
        return f"{event} exceeds β = {beta:g} with {' and '.join(above)}" + undecided + outside
    plural = len(within) > 1
    return (f"Only the {' and '.join(within)} calibration{'s' if plural else ''} keep{'' if plural else 's'} "
            f"{event} within β = {beta:g}" + (f"; {' and '.join(above)} exceed{'' if len(above) > 1 else 's'} it"
                                              if above else "") + undecided + outside)


#: How an event rate stands against beta, in words, by its decision's state (otherwise "not decided against").
WHERE = {decisions.HOLDS: "within", decisions.FAILS: "above"}


def event_rate(row, beta: float) -> decisions.Decision:
    """Whether Theorem 2's failure event has probability at most β at one arm, from its events over the replicates
    (independent data sets): :func:`decisions.rate_at_most`, the exact interval at decisions.CONFIDENCE."""
    return decisions.rate_at_most(row.events, row.replicates, beta)



def typeset_count(x: float) -> str:
    """A large count as a label shows it: 1.4×10⁹ from 10⁵ on (two significant digits, unicode superscripts),
    below that with thousands separators (12,345)."""
    if x < 1e5:
        return f"{x:,.0f}"
    k = math.floor(math.log10(x))
    mant = f"{x / 10.0 ** k:.2g}"
    if mant == "10":  # 9.96e5 rounds up to the next power
        k, mant = k + 1, "1"
    power = "10" + str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return power if mant == "1" else f"{mant}×{power}"

def thm2_figure(table: pd.DataFrame, verdicts: Verdicts, spec):
    """One wide panel, a row per Algorithm 1 calibration (named on the y axis): the frequency of Theorem 2's failure
    event with its Clopper–Pearson interval at decisions.CONFIDENCE on x, in the arm's encoding, labelled beside the
    point with events/replicates (and the answered share when answers were refused: ⊥ is not an error); β a dashed
    vertical line; a rate whose claim fails is ringed and its label says why (no legend)."""
    beta = float(table["beta"].iloc[0])
    rows = len(table)
    fig, ax = pyplot().subplots(figsize=(MAX_WIDTH, 1.0 + 0.62 * rows + 1.1))
    for i, r in enumerate(table.itertuples()):
        y = rows - 1 - i  # the first calibration on top
        arm = spec.arm(r.mechanism)
        ax.errorbar([r.frequency], [y], xerr=[[r.frequency - r.ci_low], [r.ci_high - r.frequency]], capsize=4,
                    ls="none", color=arm.color)
        ax.plot([r.frequency], [y], ls="none", ms=8, **style(arm), zorder=25)  # above a ring's white halo
        failing = verdicts[event_rate_id(r.mechanism)].status == "does not hold"
        if failing:
            ring(ax, r.frequency, y, label="claim does not hold here: the event rate is above β")
        notes = [f"{r.answered_fraction:.0%} of queries answered"] + (
            [f"noise σ = {r.sigma / r.tau:.2g} τ"] if r.sigma > r.tau else [])  # why it errs beyond τ so often
        label = f"{r.events}/{r.replicates}" + (f" ({'; '.join(notes)})" if notes else "")
        # just above its row, running from the interval's end that leaves room: never over the row names or past
        # the right edge; on a white box, so that the β line it may cross stops under the words
        left_end = r.ci_low < 0.5
        ax.annotate(label, (r.frequency if r.ci_low < beta else r.ci_low if left_end else r.ci_high, y),
                    xytext=(-4 if r.ci_low < beta else 0, 9), textcoords="offset points",
                    ha="left" if left_end else "right", va="bottom", fontsize=SIZES["text"],
                    bbox={"fc": "white", "ec": "none", "pad": 1}, zorder=30)
    ax.axvline(beta, **REQUIREMENT)
    ax.text(beta, -0.5, f" β = {beta:g}", ha="left", va="center", fontsize=SIZES["tick"],
            color=REQUIREMENT_TEXT)
    n_req = float(table["theorem2_n_required"].min())
    names = [short_arm_name(spec.arm(m)) + (f"\n(needs n ≥ {typeset_count(n_req)})" if m == THEOREM2_ARM else "")
             for m in table["mechanism"]]
    ax.set_yticks(range(rows), names[::-1])
    ax.set_ylim(-0.6, rows - 0.25)
    ax.set_xlim(-0.03, 1.07)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(r"rate of Theorem 2's failure event P[$\exists i$: $Z_i < B$ and $|a_i - Q_i(P)| \geq \tau$]"
                  f" over replicates, {decisions.CONFIDENCE:.2%} Clopper–Pearson interval")
    ax.set_ylabel("Algorithm 1\ncalibration")
    verdict_title(fig, wrap_verdict(thm2_verdict(table, beta, spec), 1.05 * MAX_WIDTH),  # 113 characters fit
                  setting_line(spec, int(table["replicates"].max()), 1.15 * MAX_WIDTH))  # its mathtext is short
    legend_below(fig, [ax])  # the ring's one entry, if a claim fails
    return fig


def thm2_claims(table: pd.DataFrame, beta: float, spec) -> list[Claim]:
    """Theorem 2's event rate per arm. The theorem2 arm uses Theorem 2's sigma and T: a paper row, "not applicable"
    below the required n (the guarantee is stated only from the required n on), with the measured rate and where its
    interval lies against beta. The other arms' sigma and T are not Theorem 2's (sigma = (1-c)tau/(12 ln(4m/beta)),
    T = (1+c)tau/2): whether the theorem's event stays rarer than beta for them is this project's question, judged on
    the measured rate (:func:`event_rate`: holds where the whole exact interval is at most beta, does not hold where it
    is above, else not checked)."""
    claims = []
    for r in table.itertuples():
        rate = event_rate(r, beta)
        measured = (f"{r.events}/{r.replicates} = {r.frequency:.3f} ({decisions.CONFIDENCE:.2%} Clopper-Pearson "
                    f"interval {r.ci_low:.3f}–{r.ci_high:.3f})" + (f"; {rate.note()}" if rate.note() else ""))
        if r.mechanism != THEOREM2_ARM:
            noise_miss = math.exp(-r.tau / r.sigma)  # P[|Lap(sigma)| >= tau]: one answer off by the noise alone
            claims.append(Claim(
                output_id="zhao-thm2-check", claim_id=event_rate_id(r.mechanism),
                source="this project (Theorem 2's failure event, Zhao 2017, outside its hypotheses)",
                claim=f"{spec.arm(r.mechanism).claim_name}: does Theorem 2's failure event still have probability "
                "≤ β with this arm's σ and T? (Theorem 2 does not cover it: σ and T are not Theorem 2's, and n = "
                f"{r.n:,} is below its requirement {r.theorem2_n_required:.3g})",
                expected=f"≤ β = {beta:g}", measured=measured + f"; σ = {r.sigma:.3g}, T = {r.threshold:.3g}"
                + (f" (by construction: σ is {r.sigma / r.tau:.3g} τ, so the Laplace noise alone puts an answer τ or "
                   f"more off with probability e^(−τ/σ) = {noise_miss:.2f} > β at every answered query; the event "
                   "is then all but certain, whatever the data)" if noise_miss > beta else ""),
                status=rate.status, counterexample="" if rate.state != decisions.FAILS else f"{r.mechanism}, n = "
                f"{r.n}, tau = {r.tau:g}: interval above β", kind="project", code=EVENT_CODE,
                strength="by construction" if noise_miss > beta else "tested"))
            continue
        met = bool(r.n_meets_theorem2)
        claim = "With Theorem 2's σ and T, P[∃i: Z_i < B and |a_i − Q_i(P)| ≥ τ] ≤ β."
        if met:
            status = rate.status
            note = f"{r.mechanism}, n = {r.n}, tau = {r.tau:g}" if rate.state == decisions.FAILS else ""
        else:  # the guarantee is stated only from the required n on: the measured rate is reported, not judged
            status, note = "not applicable", ""
            measured += (f"; hypotheses not met: n = {r.n:,} < {r.theorem2_n_required:.3g} (Theorem 2's requirement); "
                         f"at this n the event rate is {WHERE.get(rate.state, 'not decided against')} β")
        claims.append(Claim(output_id="zhao-thm2-check", claim_id=event_rate_id(r.mechanism),
                            source="Zhao 2017, Theorem 2", claim=claim, expected=f"≤ β = {beta:g}", measured=measured,
                            status=status, counterexample=note, kind="paper", quote=QUOTE_THM2, code=EVENT_CODE))
    return claims
