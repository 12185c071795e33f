"""How an experiment's verdict is decided from replicates: one set of rules for every row that decides from simulated
data sets (docs/METHODS.md, "How verdicts are decided").

Every rule has four outcomes (:class:`Decision`):

- **holds**: the statement is inside its margin with the whole interval;
- **does not hold**: it is outside the same margin with the whole interval (the same margin and the same
  confidence both ways, so neither verdict is easier to reach than the other);
- **undecided**: the interval straddles the margin; the decision says how many replicates would decide it if the
  estimate stayed where it is;
- **cannot fail**: the test is vacuous whatever the data (e.g. a threshold at or above the largest gap possible);
  passing it is no evidence.

Intervals are at :data:`CONFIDENCE`, the two-sided level of ± :data:`Z` standard errors (99.73%). Rates of
per-session (per-data-set) outcomes use the exact Clopper-Pearson interval, which does not collapse at 0% or 100% as
a normal interval with an estimated SE does; means use ± Z standard errors of the mean over data sets.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy.stats import mannwhitneyu
from scipy.stats import t as t_distribution

from adaptive_repro.stats import clopper_pearson

#: Standard errors of every interval; a one-sided error of about 0.13% per verdict under a normal approximation.
Z = 3.0
#: The two-sided confidence of ± Z standard errors, the level of the Clopper-Pearson intervals of rates.
CONFIDENCE = math.erf(Z / math.sqrt(2.0))

HOLDS, FAILS, UNDECIDED, CANNOT_FAIL = "holds", "does not hold", "undecided", "cannot fail"
#: The claims registry's status for each state (an undecided or vacuous test decides nothing: "not checked").
STATUS = {HOLDS: "holds", FAILS: "does not hold", UNDECIDED: "not checked", CANNOT_FAIL: "not checked"}
#: Largest replicate count a "needs N" figure is searched to (beyond it the text says "more than").
NEEDS_CAP = 10**7


@dataclasses.dataclass(frozen=True)
class Decision:
    """A verdict with its evidence: ``state`` (one of the four above), ``estimate`` and its interval (``low``,
    ``high``), the rule in words, and for an undecided verdict the replicates that would decide it (``needs``; None
    when no count can, e.g. an estimate exactly on the margin)."""

    state: str
    estimate: float
    low: float
    high: float
    replicates: int
    rule: str
    needs: int | None = None

    @property
    def status(self) -> str:
        """The claims registry's status word (:data:`STATUS`)."""
        return STATUS[self.state]

    @property
    def decided(self) -> bool:
        return self.state in (HOLDS, FAILS)

    def note(self) -> str:
        """The sentence an undecided or vacuous row carries after its measured text."""
        if self.state == CANNOT_FAIL:
            return f"Cannot fail: {self.rule}."
        if self.state != UNDECIDED:
            return ""
        more = ("no replicate count decides it at this estimate (it sits on the margin)" if self.needs is None else
                f"more than {NEEDS_CAP:,} replicates would decide it" if self.needs >= NEEDS_CAP else
                f"about {self.needs:,} replicates would decide it if the estimate stayed")
        return f"Undecided at {self.replicates:,} replicates ({self.rule}): {more}."

    def clause(self) -> str:
        """:meth:`note` without its final full stop, for lists joined by semicolons."""
        return self.note().rstrip(".")


def combined(states, every: bool = True) -> str:
    """One statement's state from the states of its parts (points, arms, k): does not hold where some part does not
    hold; holds where every part holds (``every``, a statement about all of them) or where some part holds
    (``every=False``, "at some point, and at none the other way"); else undecided."""
    states = set(states)
    if FAILS in states:
        return FAILS
    if states and (states == {HOLDS} if every else HOLDS in states):
        return HOLDS
    return UNDECIDED


def _needs(decides, replicates: int) -> int | None:
    """Smallest replicate count m >= ``replicates`` at which ``decides(m)`` is true (a search by doubling then
    bisection; ``decides`` must be monotone in m, so the rules evaluate it at the observed rate with a real-valued
    count: with whole counts the rounding makes it flicker near the answer), None if not even at :data:`NEEDS_CAP`."""
    high = max(int(replicates), 1)
    while not decides(high):
        if high >= NEEDS_CAP:
            return None if not decides(NEEDS_CAP) else NEEDS_CAP
        high = min(high * 2, NEEDS_CAP)
    low = max(int(replicates), 1)
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if decides(mid) else (mid + 1, high)
    return high


def rate_at_least(successes: int, trials: int, target: float) -> Decision:
    """"The rate of a per-session outcome is at least ``target``", from ``successes`` of ``trials`` independent
    sessions: holds where the Clopper-Pearson interval at :data:`CONFIDENCE` lies at or above ``target``, does not
    hold where it lies below, else undecided (20 of 20 sessions is undecided against 90%: its interval reaches
    0.72)."""
    successes, trials = int(successes), int(trials)
    rule = f"rate ≥ {target:.0%} with its {CONFIDENCE:.2%} Clopper-Pearson interval"
    if trials <= 0:
        return Decision(UNDECIDED, math.nan, 0.0, 1.0, 0, rule, None)
    low, high = (float(v) for v in clopper_pearson(successes, trials, CONFIDENCE))
    rate = successes / trials
    if low >= target:
        return Decision(HOLDS, rate, low, high, trials, rule)
    if high < target:
        return Decision(FAILS, rate, low, high, trials, rule)

    def decides(m: int) -> bool:  # the observed rate kept exactly (a real count: monotone in m, so bisection holds)
        lo, hi = clopper_pearson(rate * m, m, CONFIDENCE)
        return bool(lo >= target or hi < target)

    return Decision(UNDECIDED, rate, low, high, trials, rule, None if rate == target else _needs(decides, trials))


def rate_at_most(successes: int, trials: int, target: float) -> Decision:
    """"The rate is at most ``target``" (e.g. sessions whose final gap exceeds T at most beta): the mirror of
    :func:`rate_at_least` with the same interval and margin."""
    mirrored = rate_at_least(int(trials) - int(successes), trials, 1.0 - target)
    rule = f"rate ≤ {target:.3g} with its {CONFIDENCE:.2%} Clopper-Pearson interval"
    return dataclasses.replace(mirrored, estimate=1.0 - mirrored.estimate, low=1.0 - mirrored.high,
                               high=1.0 - mirrored.low, rule=rule)


def mean_at_most(mean: float, se: float, replicates: int, bound: float,
                 largest_possible: float | None = None) -> Decision:
    """"The mean is at most ``bound``" (e.g. a protected arm's mean gap within its threshold T): holds where
    mean + Z SE <= bound, does not hold where mean - Z SE > bound, else undecided; cannot fail where ``bound`` is at or
    above the ``largest_possible`` value of the quantity (no data can exceed it)."""
    rule = f"mean ≤ {bound:.4g} with ± {Z:g} SE"
    low, high = mean - Z * se, mean + Z * se
    if largest_possible is not None and bound >= largest_possible:
        return Decision(CANNOT_FAIL, mean, low, high, replicates,
                        f"the bound {bound:.4g} is at or above the largest possible value {largest_possible:.4g}")
    return _against_margin(mean, se, replicates, high <= bound, low > bound, abs(mean - bound), rule)


def mean_above(mean: float, se: float, replicates: int, bound: float = 0.0, df: float | None = None) -> Decision:
    """"The mean exceeds ``bound``" (e.g. the standard holdout overfits: gap > 0): holds where mean - Z SE > bound,
    does not hold where mean + Z SE <= bound, else undecided. With ``df`` (the degrees of freedom of an SE estimated
    from few replicates, e.g. Welch's), Z is replaced by Student's t quantile at the same confidence, which is wider:
    the SE's own uncertainty is counted."""
    z = Z if df is None or not np.isfinite(df) else t_multiplier(df)
    rule = f"mean > {bound:.4g} with ± {z:.3g} SE" + ("" if df is None else f" (Student's t, {df:.1f} df)")
    decided = _against_margin(mean, se, replicates, mean - z * se > bound, mean + z * se <= bound,
                              abs(mean - bound), rule, z)
    if df is None or not np.isfinite(df) or decided.state != UNDECIDED or not decided.needs:
        return decided

    def decides(m: int) -> bool:  # SE falling like 1/sqrt(m), degrees of freedom growing with m
        return t_multiplier(df * (m - 1) / max(replicates - 1, 1)) * se * math.sqrt(replicates / m) <= abs(
            mean - bound)

    return dataclasses.replace(decided, needs=_needs(decides, replicates + 1))


def t_multiplier(df: float) -> float:
    """Student's t quantile with ``df`` degrees of freedom at the two-sided :data:`CONFIDENCE` (Z as df grows)."""
    return float(t_distribution.ppf(0.5 + CONFIDENCE / 2.0, df))


def welch_df(se_a: float, reps_a: int, se_b: float, reps_b: int) -> float:
    """Welch–Satterthwaite degrees of freedom of the difference of two independent means with these SEs (each mean
    from at least 2 replicates, each SE finite and >= 0; NaN where both SEs are 0: no spread to count)."""
    if min(int(reps_a), int(reps_b)) < 2 or not (np.isfinite(se_a) and np.isfinite(se_b) and min(se_a, se_b) >= 0):
        raise ValueError(f"welch_df: needs two means of at least 2 replicates each with finite SEs >= 0; got SEs "
                         f"{se_a!r}, {se_b!r} from {reps_a!r} and {reps_b!r} replicates")
    va, vb = se_a ** 2, se_b ** 2
    if va + vb == 0:
        return math.nan
    return (va + vb) ** 2 / (va ** 2 / (reps_a - 1) + vb ** 2 / (reps_b - 1))


def within(estimate: float, se: float, replicates: int, target: float, margin: float) -> Decision:
    """Equivalence: "the estimate equals ``target``" within ±``margin``: holds where the whole ± Z SE interval lies
    inside target ± margin, does not hold where it lies wholly outside it, else undecided (a failure to reject the
    target is not evidence for it, nor a rejection of the point target evidence against it)."""
    off = abs(estimate - target)
    rule = f"{target:g} ± {margin:g} with ± {Z:g} SE"
    return _against_margin(estimate, se, replicates, off + Z * se <= margin, off - Z * se > margin,
                           abs(off - margin), rule)


def _against_margin(estimate: float, se: float, replicates: int, inside: bool, outside: bool, distance: float,
                    rule: str, z: float = Z) -> Decision:
    """The common end of the mean rules: a Decision from the two one-sided tests and, when neither passes, the
    replicates at which Z SE (falling like 1/sqrt(replicates)) would fit in ``distance``."""
    low, high = estimate - z * se, estimate + z * se
    if not (np.isfinite(estimate) and np.isfinite(se)):
        return Decision(UNDECIDED, estimate, low, high, replicates, rule + " (no estimate or SE)", None)
    if inside:
        return Decision(HOLDS, estimate, low, high, replicates, rule)
    if outside:
        return Decision(FAILS, estimate, low, high, replicates, rule)
    needs = None if distance <= 0 else math.ceil(replicates * (Z * se / distance) ** 2)  # large-sample count
    return Decision(UNDECIDED, estimate, low, high, replicates, rule, None if needs is None else min(needs, NEEDS_CAP))


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, int]:
    """Mean and SE of a - b over the data sets both arms ran on (pairs with a missing side dropped): the comparison of
    two arms that share data sets, whose data-set-to-data-set spread cancels in the difference."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diff = (a - b)[np.isfinite(a) & np.isfinite(b)]
    if len(diff) < 2:
        return (float(diff.mean()) if len(diff) else math.nan), math.nan, len(diff)
    return float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(len(diff))), len(diff)


def paired_rates_differ(a: np.ndarray, b: np.ndarray) -> Decision:
    """Two per-session binary outcomes on the same data sets (e.g. answered by the noiseless and by the DP arm):
    "a succeeds more often than b" (:func:`paired_rates_differ_counts` on the discordant pairs)."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    return paired_rates_differ_counts(int(np.sum(a & ~b)), int(np.sum(~a & b)), len(a))


def paired_rates_differ_counts(a_only: int, b_only: int, trials: int) -> Decision:
    """"a succeeds more often than b" on the same ``trials`` data sets, from the discordant pairs (``a_only``: a
    succeeds and b does not; ``b_only``: the reverse), by the exact sign test on them (McNemar's exact test): holds
    where the Clopper-Pearson interval of a's share of the discordant pairs lies above ½, does not hold where it lies
    at or below ½ (b at least as often), else undecided. The estimate is the difference of the two rates, its
    interval the share's interval scaled by the discordant fraction (conditional on the discordant count)."""
    a_only, b_only, trials = int(a_only), int(b_only), int(trials)
    discordant = a_only + b_only
    rule = (f"McNemar's exact test: of {discordant} data sets where exactly one succeeds, the share where a does, "
            f"against ½ with its {CONFIDENCE:.2%} Clopper-Pearson interval")
    diff = (a_only - b_only) / trials if trials else math.nan
    if discordant == 0:
        return Decision(UNDECIDED, diff, 0.0, 0.0, trials, rule + " (no discordant pair)", None)
    low, high = (float(v) for v in clopper_pearson(a_only, discordant, CONFIDENCE))
    scale = discordant / trials  # the difference of rates is scale * (2 share - 1)
    d_low, d_high = scale * (2 * low - 1), scale * (2 * high - 1)
    if low > 0.5:
        return Decision(HOLDS, diff, d_low, d_high, trials, rule)
    if high <= 0.5:
        return Decision(FAILS, diff, d_low, d_high, trials, rule)
    share = a_only / discordant

    def decides(m: int) -> bool:  # discordant count and share kept exactly (real counts: monotone in m)
        k = scale * m
        lo, hi = clopper_pearson(share * k, k, CONFIDENCE)
        return bool(lo > 0.5 or hi <= 0.5)

    return Decision(UNDECIDED, diff, d_low, d_high, trials, rule, None if share == 0.5 else _needs(decides, trials))


def ranks_above(a: np.ndarray, b: np.ndarray) -> Decision:
    """"Values of group a tend to exceed those of group b" (two groups of independent sessions, e.g. the state-share
    shift of the sessions that stopped answering against those that answered): the Mann-Whitney U test, one-sided
    each way at the level of ± Z SE (scipy.stats.mannwhitneyu; exact for small groups without ties). Holds where
    "a tends to exceed b" is significant, does not hold where "a tends to fall below b" is (one margin both ways:
    P(a > b) = ½), else undecided. The estimate is P(a > b) + ½ P(a = b) (the AUC, U / (|a| |b|)); the interval is
    not computed (NaN); ``needs`` scales the groups at their sizes' ratio until U's z-score reaches Z."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    rule = (f"Mann-Whitney U test of {len(a)} against {len(b)} sessions, one-sided each way at "
            f"{(1 - CONFIDENCE) / 2:.2%}")
    trials = len(a) + len(b)
    if len(a) == 0 or len(b) == 0:
        return Decision(UNDECIDED, math.nan, math.nan, math.nan, trials, rule + " (a group is empty)", None)
    level = (1.0 - CONFIDENCE) / 2.0
    above = mannwhitneyu(a, b, alternative="greater")
    below = mannwhitneyu(a, b, alternative="less")
    auc = float(above.statistic) / (len(a) * len(b))
    if above.pvalue < level:
        return Decision(HOLDS, auc, math.nan, math.nan, trials, rule)
    if below.pvalue < level:
        return Decision(FAILS, auc, math.nan, math.nan, trials, rule)
    spread = math.sqrt(len(a) * len(b) * (trials + 1) / 12.0)
    z = abs(float(above.statistic) - len(a) * len(b) / 2.0) / spread
    needs = None if z == 0 else min(math.ceil(trials * (Z / z) ** 2), NEEDS_CAP)
    return Decision(UNDECIDED, auc, math.nan, math.nan, trials, rule, needs)
