"""Tables and claims of the lecture outputs (Lecture 18 notes, J. Sorrell; figures: :mod:`.figures`):

- ``lecture-transfer``: Theorem 0.2 (Bassily et al. 2016) vs Monte Carlo of the (eps, delta)-DP query-selection
  mechanism M of :mod:`adaptive_repro.simulation.lecture_mechanisms`, over m.
- ``lecture-monitor``: the Monitor algorithm (Algorithm 2) run with M; Claim 0.3's lower bound, the notes' Step 4
  lower bound (and a rigorous version), Lemma 0.4's upper bound, against the measured E[q(S_t) - q(D)]; Theorem 0.1
  against the Monitor's exponential mechanism.

Parameters: config block ``theory.lecture.transfer`` or ``theory.lecture.monitor``
(src/adaptive_repro/schemas/theory_lecture.schema.yaml), complete, plus ``seed``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.bounds import lecture as bounds
from adaptive_repro.foundation.registry import Claim, check_grid, code_name
from adaptive_repro.foundation.seeds import rng as make_rng
from adaptive_repro.outputs.lecture.figures import monitor_figure, transfer_figure
from adaptive_repro.outputs.lecture.proof_checks import slip_rows
from adaptive_repro.simulation import lecture_mechanisms as sim
from adaptive_repro.stats import clopper_pearson, normal_quantile

# --------------------------------------------------------------------------------------------------------------------
# lecture-transfer

TRANSFER = "lecture-transfer"


def transfer_table(seed: int, m_grid, epsilons, delta: float, d: int, replicates: int,
                   confidence: float) -> pd.DataFrame:
    """One row per (eps, m): Monte-Carlo Pr[|q(S) - q(D)| >= 6 eps] of M with a Clopper-Pearson interval,
    Theorem 0.2's bound and whether its conditions hold; plus the mean gap and the leak frequency."""
    rows = []
    for eps in epsilons:
        for m in m_grid:
            g = make_rng(seed, TRANSFER, "eps", f"{eps:.12g}", "m", int(m))
            sel = sim.select_queries(g, int(m), int(d), float(eps), float(delta), (int(replicates),))
            thr = float(bounds.transfer_threshold(eps))
            k = int(np.count_nonzero(np.abs(sel.gap) >= thr))
            lo, hi = clopper_pearson(k, replicates, confidence)
            k_noleak = int(np.count_nonzero(np.abs(sel.gap[~sel.leaked]) >= thr))
            rows.append(dict(
                m=int(m), epsilon=float(eps), delta=float(delta), d=int(d), threshold=thr,
                conditions_hold=bool(bounds.transfer_conditions(eps, delta, m)),
                mc_probability=k / replicates, mc_ci_low=float(lo), mc_ci_high=float(hi),
                bound=float(bounds.transfer_bound(eps, delta, m)),
                bound_delta_term=4 * float(delta) / float(eps),
                bound_exp_term=float(np.exp(-(eps**2) * m / 8)),
                leak_frequency=float(sel.leaked.mean()),
                mc_probability_without_leak=k_noleak / max(1, int((~sel.leaked).sum())),
                mean_gap=float(sel.gap.mean()), mean_gap_se=float(sel.gap.std(ddof=1) / np.sqrt(replicates)),
                max_gap_without_leak=float(np.abs(sel.gap[~sel.leaked]).max()) if (~sel.leaked).any() else np.nan,
                replicates=int(replicates), confidence=float(confidence),
            ))
    return pd.DataFrame(rows)


Q_THM02 = (r"Theorem 0.2. *Bassily et al. [2016]* Let $\varepsilon \in [\sqrt{\frac{12}{n}}, \frac{1}{8}]$ and "
           r"$\delta \leq \frac{\varepsilon}{16}$. Let $\mathcal{M} : \mathcal{X}^m \rightarrow \mathcal{Q}$ be an "
           r"(ε, δ) -private algorithm, where \mathcal{Q} is the class of all queries such that $|q(S) - q(S')| \leq "
           r"\frac{1}{m}$ for $|S| = m$. Then for any distribution D on \mathcal{X} : $$\Pr_{S \sim D^m, q "
           r"\leftarrow \mathcal{M}(S)} [|q(S) - q(D)| \geq 6\varepsilon] \leq \max\left\{\frac{4\delta}"
           r"{\varepsilon}, e^{-\frac{\varepsilon^2 m}{8}}\right\}$$")


def transfer_check(frame: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The (eps, m) rows inside Theorem 0.2's range and, per row, whether the bound holds there (the Monte-Carlo
    interval's lower end is not above it): what the claim and the figure's verdict and rings read."""
    inr = frame[frame["conditions_hold"]].sort_values(["epsilon", "m"])
    return inr, (inr["mc_ci_low"] <= inr["bound"]).to_numpy()


def transfer_verdict(inr: pd.DataFrame, ok: np.ndarray) -> str:
    """The figure's verdict in words from :func:`transfer_check`: where the bound fails, or by how much at least the
    measured probability (the upper end of its interval) stays below it."""
    if not len(inr):
        return "Theorem 0.2 is checked nowhere: no (ε, m) of the grid is inside its range"
    if ok.all():
        factor = int(np.floor(float((inr["bound"] / inr["mc_ci_high"]).min())))  # floored: "at least" stays true
        margin = (f"is at least {factor} times below the bound" if factor >= 2 else
                  "stays below the bound" if factor == 1 else "is within Monte-Carlo error of the bound")
        return (f"Theorem 0.2 holds at all {len(inr)} (ε, m) inside its range:\nthe top of each measured "
                f"probability's bar {margin}")
    return f"Theorem 0.2 fails at {int((~ok).sum())} of {len(inr)} (ε, m) inside its range (ringed)"


def transfer_claims(frame: pd.DataFrame) -> list[Claim]:
    conf = frame["confidence"].iloc[0]
    inr, ok = transfer_check(frame)
    chk = check_grid(ok, inr, ("epsilon", "delta", "m", "mc_probability", "bound"))
    big = inr.sort_values("m").groupby("epsilon").tail(1)
    ratio = ", ".join(f"eps={r.epsilon:g}, m={int(r.m)}: MC {r.mc_probability:.2g} vs bound {r.bound:.2g}"
                      for r in big.itertuples())
    return [Claim(
        output_id=TRANSFER, claim_id="theorem-0.2", source="Lecture 18, Theorem 0.2 (Bassily et al. 2016)",
        claim="for an (eps, delta)-DP M selecting a sensitivity-1/m query, eps in [sqrt(12/m), 1/8] (the notes' n "
              "read as m), delta <= eps/16: Pr[|q(S) - q(D)| >= 6 eps] <= max{4 delta/eps, exp(-eps^2 m/8)}; a point "
              f"fails only if the {conf:.0%} Clopper-Pearson interval lies above the bound",
        expected="MC probability <= bound at every (eps, m) inside the theorem's range",
        measured=f"{chk.measured} inside the range ({len(frame) - len(inr)} points outside it not checked)"
                 + (f"; largest m: {ratio}" if ratio else "") + "; by construction: the simulated mechanism misses "
                 "by 6 eps only through its designed leak of probability delta, and inside the range the bound is at "
                 "least 4 delta/eps >= 32 delta (eps <= 1/8)",
        status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_THM02,
        code=code_name(sim.select_queries), strength="by construction")]


# --------------------------------------------------------------------------------------------------------------------
# lecture-monitor

MONITOR = "lecture-monitor"
ALPHA_GRID = np.round(np.arange(0.0, 1.0 + 1e-9, 0.0005), 6)


def _row(**kw):
    base = dict(alpha=np.nan, beta=np.nan, ci_low=np.nan, ci_high=np.nan)
    base.update(kw)
    return base


def monitor_replicates(T: int, replicates: int, min_total_datasets: int) -> int:
    """Monitor runs at T: at least ``replicates`` and at least ``min_total_datasets / T`` (cheap small T get more)."""
    return max(int(replicates), -(-int(min_total_datasets) // int(T)))


def monitor_table(seed: int, m: int, epsilon: float, epsilon_primes, delta: float, d: int, T_grid, betas,
                  replicates: int, confidence: float, min_total_datasets: int = 0) -> pd.DataFrame:
    """Tidy table, one row per (epsilon_prime, T, quantity[, alpha or beta]); ``value`` with ``ci_low``/``ci_high``
    (normal intervals for means, Clopper-Pearson for probabilities, bounds evaluated at p_alpha's interval).
    Runs per T: :func:`monitor_replicates`."""
    z = normal_quantile(confidence)
    rows = []
    for ep in epsilon_primes:
        for T in T_grid:
            replicates_T = monitor_replicates(T, replicates, min_total_datasets)
            g = make_rng(seed, MONITOR, "eps_prime", f"{ep:.12g}", "T", int(T))
            run, gaps = sim.simulate_monitor(g, int(m), int(d), float(epsilon), float(delta), float(ep), int(T),
                                             replicates_T)
            common = dict(epsilon_prime=float(ep), T=int(T), m=int(m), epsilon=float(epsilon), delta=float(delta),
                          d=int(d), replicates=replicates_T, confidence=float(confidence))

            def mean_row(name, x):
                mu, se = float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0
                rows.append(_row(**common, quantity=name, value=mu, ci_low=mu - z * se, ci_high=mu + z * se))

            mean_row("monitor_gap", run.score)  # E[q(S_t*) - q(D)] measured
            # the notes' Step 4 assumption: E returns an output within 2 ln T/(eps' m) of S_max. The Monitor with E
            # replaced by "E's output if it is that close, else the optimum" satisfies it on every run.
            near = 2.0 * np.log(T) / (ep * m)
            mean_row("monitor_gap_nearly_optimal", np.where(run.s_max - run.score <= near + 1e-12, run.score,
                                                            run.s_max))
            mean_row("s_max", run.s_max)  # E[S_max] measured
            # p_alpha from all replicates x T data sets (i.i.d. draws of M's gap)
            flat = np.sort(gaps.ravel())
            n_all = flat.size
            k_all = n_all - np.searchsorted(flat, ALPHA_GRID - 1e-12, side="left")
            p_all = k_all / n_all
            lb_all = bounds.claim03_lower_bound(ALPHA_GRID, p_all, T)
            a_star = int(np.argmax(lb_all))
            a6 = int(np.argmin(np.abs(ALPHA_GRID - 6 * epsilon)))
            for label, ai in (("best", a_star), ("6eps", a6)):
                alpha, k = float(ALPHA_GRID[ai]), int(k_all[ai])
                p = k / n_all
                plo, phi = clopper_pearson(k, n_all, confidence)
                rows.append(_row(**common, quantity=f"p_alpha_{label}", alpha=alpha, value=p,
                                 ci_low=float(plo), ci_high=float(phi)))
                for name, fn, args in (
                    ("claim03_lower", bounds.claim03_lower_bound, ()),
                    ("step4_lower_notes", bounds.monitor_lower_bound_notes, (ep, m)),
                    ("step4_lower_rigorous", bounds.monitor_lower_bound, (ep, m)),
                ):
                    v = [float(fn(alpha, q, T, *args)) for q in (p, float(plo), float(phi))]
                    rows.append(_row(**common, quantity=f"{name}_{label}", alpha=alpha, value=v[0], ci_low=v[1],
                                     ci_high=v[2]))
            up = float(bounds.lemma04_upper_bound(epsilon + ep, delta, T))
            rows.append(_row(**common, quantity="lemma04_upper", value=up, ci_low=up, ci_high=up))
            # Theorem 0.1 on the Monitor's exponential mechanism: |Y| = 2T, Delta = 1/m, eps'
            loss = run.s_max - run.score
            for beta in betas:
                gap = float(bounds.exponential_mechanism_gap(1.0 / m, ep, 2 * T, beta))
                k = int(np.count_nonzero(loss >= gap - 1e-12))
                lo, hi = clopper_pearson(k, replicates_T, confidence)
                rows.append(_row(**common, quantity="thm01_failure_probability", beta=float(beta),
                                 value=k / replicates_T, ci_low=float(lo), ci_high=float(hi)))
                rows.append(_row(**common, quantity="thm01_utility_gap", beta=float(beta), value=gap, ci_low=gap,
                                 ci_high=gap))
            exp_loss = float(bounds.exponential_mechanism_expected_loss(1.0 / m, ep, 2 * T))
            mean_row("expected_utility_loss", loss)
            rows.append(_row(**common, quantity="expected_utility_loss_bound", value=exp_loss, ci_low=exp_loss,
                             ci_high=exp_loss))
    cols = ["epsilon_prime", "T", "quantity", "alpha", "beta", "value", "ci_low", "ci_high", "m", "epsilon", "delta",
            "d", "replicates", "confidence"]
    return pd.DataFrame(rows)[cols]


def _wide(frame: pd.DataFrame, col: str = "value") -> pd.DataFrame:
    sub = frame[frame["beta"].isna()]
    return sub.pivot_table(index=["epsilon_prime", "T"], columns="quantity", values=col, aggfunc="first")


def check_mask(frame: pd.DataFrame, measured: str, bound: str, side: str) -> pd.Series:
    """Per (eps', T), whether ``measured`` respects ``bound`` up to Monte-Carlo error: for a lower bound, measured
    ci_high >= the bound at p_alpha's ci_low; for an upper bound, measured ci_low <= the bound."""
    if side == "lower":
        return _wide(frame, "ci_high")[measured] >= _wide(frame, "ci_low")[bound]
    return _wide(frame, "ci_low")[measured] <= _wide(frame, "value")[bound]


#: The checks the Monitor figure draws: claim id -> (measured quantity, bound, side, words for the verdict). The
#: first three bound the actual Monitor's output, the figure's subject; the last two hold by construction and are
#: named in the verdict only if Monte-Carlo error makes them fail.
MONITOR_CHECKS = {
    "step-4-without-assumption": ("monitor_gap", "step4_lower_notes_best", "lower",
                                  "the notes' Step 4 bound on the actual Monitor"),
    "step-4-rigorous": ("monitor_gap", "step4_lower_rigorous_best", "lower", "the rigorous Step 4 bound"),
    "lemma-0.4": ("monitor_gap", "lemma04_upper", "upper", "Lemma 0.4's upper bound"),
    "step-4-notes": ("monitor_gap_nearly_optimal", "step4_lower_notes_best", "lower", "Step 4 under its assumption"),
    "claim-0.3-best": ("s_max", "claim03_lower_best", "lower", "Claim 0.3"),
}
MONITOR_MAIN = ("step-4-without-assumption", "step-4-rigorous", "lemma-0.4")


def monitor_masks(frame: pd.DataFrame) -> dict[str, pd.Series]:
    """:func:`check_mask` of every check of :data:`MONITOR_CHECKS`, by claim id."""
    return {cid: check_mask(frame, q, b, side) for cid, (q, b, side, _) in MONITOR_CHECKS.items()}


def monitor_verdict(masks: dict[str, pd.Series]) -> str:
    """The figure's one-line verdict from :func:`monitor_masks`: which bounds fail at how many (eps', T) points, and
    how many of the other checked bounds hold at all of them."""
    n = len(masks[MONITOR_MAIN[0]])
    failed = [(MONITOR_CHECKS[c][3], int((~m).sum())) for c, m in masks.items() if not m.all()]
    if not failed:
        return f"Every bound of the Monitor argument holds at all {n} (ε', T) points"
    text = "; ".join(f"{w} fails at {k} of {n} (ε', T) point{'s' if n > 1 else ''}" for w, k in failed)
    held = len(masks) - len(failed)
    if held:
        text += f"; the other {held} check{'s hold' if held > 1 else ' holds'} at all {n}"
    return text[0].upper() + text[1:]


#: Names of the measured quantities and bounds of :data:`MONITOR_CHECKS`, for the ring's legend entry.
MEASURED_WORDS = {"monitor_gap": "the Monitor's measured gap", "monitor_gap_nearly_optimal":
                  "the measured gap under Step 4's assumption", "s_max": "measured E[S_max]"}
BOUND_WORDS = {"step4_lower_notes_best": "the notes' Step 4 lower bound",
               "step4_lower_rigorous_best": "the rigorous Step 4 lower bound",
               "lemma04_upper": "Lemma 0.4's upper bound", "claim03_lower_best": "Claim 0.3's lower bound"}


def ring_words(cid: str) -> str:
    """The ring's legend entry of check ``cid``: which measured value is on the wrong side of which bound."""
    q, b, side, _ = MONITOR_CHECKS[cid]
    return f"fails here: {MEASURED_WORDS[q]}\n{'below' if side == 'lower' else 'above'} {BOUND_WORDS[b]}"


def _where_notes_bound_fails(frame) -> str:
    """Where the notes' Step 4 bound fails on the actual Monitor: when every failing point has T = 1 (the notes'
    2 ln T/(eps' m) slack is 0 there), whether the bound with ln(2T) (the rigorous row's) holds at those points."""
    failing = ~check_mask(frame, "monitor_gap", "step4_lower_notes_best", "lower")
    if not failing.any():
        return ""
    points = list(failing[failing].index)
    if any(T != 1 for _, T in points):
        return ""
    rigorous = check_mask(frame, "monitor_gap", "step4_lower_rigorous_best", "lower")
    held = int(rigorous[failing].sum())
    return (f"; all {len(points)} failing points have T = 1, where the notes' slack 2 ln T/(eps' m) is 0; with "
            f"ln(2T) in its place (row step-4-rigorous) the bound holds at {held} of these {len(points)}")


def _lower_check(frame, measured, bound, rows_filter=None):
    """measured >= bound up to MC error: measured ci_high >= bound evaluated at p_alpha's ci_low (check_grid)."""
    v, hi = _wide(frame, "value"), _wide(frame, "ci_high")
    ok = check_mask(frame, measured, bound, "lower")
    if rows_filter is not None:
        ok = ok[rows_filter(ok.index)]
    idx = list(ok.index)
    return check_grid(ok.to_numpy(), describe=lambda i: (
        f"eps'={idx[i][0]:g}, T={idx[i][1]}: measured {v.loc[idx[i], measured]:.4g} (upper CI "
        f"{hi.loc[idx[i], measured]:.4g}) < bound {v.loc[idx[i], bound]:.4g}"))


Q_CLAIM03 = (r"Claim 0.3. *Let* $$p_\alpha = \Pr_{\substack{S \sim D^m \\ q \leftarrow \mathcal{M}(S)}} [q(S) - q(D) "
             r"\geq \alpha].$$ Let $S_{max} = \max_{(t,q) \in Y} f((t,q), S) = \max_{(t,q) \in Y} q(S_t) - q(D)$. "
             r"Then $$\mathbb{E}_{\substack{S \sim (D^m)^T \\ \text{Monitor}(S)}} [S_{max}] \geq \alpha(1 - (1 - "
             r"p_\alpha)^T).$$")
Q_STEP4 = (r"Step 4 (For the remainder of the analysis, we'll make the simplifying assumption that \mathcal{E} always "
           r"returns an output with nearly optimal score, rather than “except with probability β ”). [...] "
           r"\Rightarrow \mathbb{E}_{\substack{S \sim (D^m)^T \\ (t, q) \sim \text{Monitor}(S)}} [q(S_t) - q(D)] "
           r"&> \alpha(1 - (1 - p_\alpha)^T) - \frac{2 \log T}{\varepsilon m} && \text{by Step 2}")
Q_LEMMA04 = (r"If the algorithm Monitor: $(\mathcal{X}^m)^T \rightarrow [T] \times \mathcal{Q}$ is (ε, δ) -DP and $S = "
             r"(S_1, \dots, S_T) \sim (D^m)^T$, then* $$\mathbb{E}_{\substack{S \sim (D^m)^T \\ (t,q) \sim "
             r"\text{Monitor}(S)}} [q(S_t) - q(D)] \leq (e^\varepsilon - 1) + T\delta$$")
Q_THM01 = (r"Then except with probability β , $$f(\mathcal{E}(S, \mathcal{Y}, f, \Delta, \varepsilon), S) > OPT(S) - "
           r"\frac{2\Delta}{\varepsilon} (\ln |\mathcal{Y}| + \log(1/\beta))$$")


def monitor_claims(frame: pd.DataFrame) -> list[Claim]:
    conf = frame["confidence"].iloc[0]
    src = "Lecture 18"
    mc = f"(a point fails only beyond {conf:.0%} Monte-Carlo error)"
    claims = []
    for label, what in (("best", "alpha maximizing the bound (grid step 0.0005)"), ("6eps", "alpha = 6 eps")):
        chk = _lower_check(frame, "s_max", f"claim03_lower_{label}")
        claims.append(Claim(output_id=MONITOR, claim_id=f"claim-0.3-{label}", source=f"{src}, Claim 0.3",
                            claim=f"E[S_max] >= alpha (1 - (1 - p_alpha)^T), {what} {mc}",
                            expected="measured E[S_max] >= bound at every (eps', T)",
                            measured=chk.measured + "; true by construction: the T queries are independent, so "
                            "P[S_max >= alpha] = 1 - (1 - p_alpha)^T, and E[S_max] >= alpha P[S_max >= alpha] "
                            "(Markov); only Monte-Carlo error could make it fail",
                            status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_CLAIM03,
                            code=code_name(bounds.claim03_lower_bound), strength="by construction"))
    chk = _lower_check(frame, "monitor_gap_nearly_optimal", "step4_lower_notes_best")
    claims.append(Claim(
        output_id=MONITOR, claim_id="step-4-notes", source=f"{src}, Step 4 (under its stated assumption)",
        claim="under the notes' assumption that the exponential mechanism always returns a nearly optimal output "
              "(within 2 ln T/(eps' m) of S_max; eps' is its privacy level, the notes write eps and later take "
              "eps' = eps): E[q(S_t) - q(D)] > alpha (1 - (1 - p_alpha)^T) - 2 ln T/(eps' m). Measured on the "
              "Monitor whose selection satisfies the assumption on every run (E's output if within 2 ln T/(eps' m) "
              f"of S_max, else the optimum) {mc}",
        expected="measured gap >= the notes' bound at every (eps', T)",
        measured=chk.measured + "; true by construction: the selection is forced to satisfy the assumption, and "
        "then the bound follows from Claim 0.3 (row step-4-without-assumption tests the actual Monitor)",
        status=chk.status, counterexample=chk.counterexample, kind="paper", quote=Q_STEP4,
        code=code_name(bounds.monitor_lower_bound_notes), strength="by construction"))
    chk = _lower_check(frame, "monitor_gap", "step4_lower_notes_best")
    claims.append(Claim(
        output_id=MONITOR, claim_id="step-4-without-assumption",
        source="this project (Lecture 18, Step 4 without its assumption)",
        claim="the notes' Step 4 bound alpha (1 - (1 - p_alpha)^T) - 2 ln T/(eps' m) for the actual Monitor, "
              "whose exponential mechanism is near-optimal only except with probability beta (Theorem 0.1), at every "
              f"eps' of the grid {mc}",
        expected="measured Monitor gap >= the notes' bound at every (eps', T)",
        measured=chk.measured + _where_notes_bound_fails(frame),
        status=chk.status, counterexample=chk.counterexample, kind="project",
        code=code_name(bounds.monitor_lower_bound_notes)))
    chk = _lower_check(frame, "monitor_gap", "step4_lower_rigorous_best")
    claims.append(Claim(
        output_id=MONITOR, claim_id="step-4-rigorous",
        source="this project (Claim 0.3 + Theorem 0.1 integrated over beta)",
        claim=f"E[q(S_t) - q(D)] >= alpha (1 - (1 - p_alpha)^T) - (2/(eps' m))(ln(2T) + 1), no assumption {mc}",
        expected="measured Monitor gap >= bound at every (eps', T)", measured=chk.measured, status=chk.status,
        counterexample=chk.counterexample, kind="project", code=code_name(bounds.monitor_lower_bound)))
    v = _wide(frame, "value")
    okm = check_mask(frame, "monitor_gap", "lemma04_upper", "upper")
    idx = list(okm.index)
    chk = check_grid(okm.to_numpy(), describe=lambda i: (
        f"eps'={idx[i][0]:g}, T={idx[i][1]}: measured {v.loc[idx[i], 'monitor_gap']:.4g} > bound "
        f"{v.loc[idx[i], 'lemma04_upper']:.4g}"))
    slack = (v["lemma04_upper"] - v["monitor_gap"]).min()
    claims.append(Claim(
        output_id=MONITOR, claim_id="lemma-0.4",
        source=f"{src}, Lemma 0.4 (with Step 1: the Monitor is (eps + eps', delta)-DP)",
        claim=f"E[q(S_t) - q(D)] <= (e^(eps + eps') - 1) + T delta for the Monitor {mc}",
        expected="measured Monitor gap <= bound at every (eps', T)",
        measured=f"{chk.measured}; smallest slack {slack:.3g}", status=chk.status,
        counterexample=chk.counterexample, kind="paper", quote=Q_LEMMA04,
        code=code_name(bounds.lemma04_upper_bound)))
    th = frame[frame["quantity"] == "thm01_failure_probability"]
    chk = check_grid(th["ci_low"] <= th["beta"], th, ("epsilon_prime", "T", "beta", "value"))
    claims.append(Claim(
        output_id=MONITOR, claim_id="theorem-0.1", source=f"{src}, Theorem 0.1",
        claim="exponential mechanism: f(output) > OPT - (2 Delta/eps')(ln|Y| + ln(1/beta)) except with probability "
              f"beta (Monitor: |Y| = 2T, Delta = 1/m; the notes' log(1/beta) read as ln) {mc}",
        expected="failure frequency <= beta at every (eps', T, beta)",
        measured=f"{chk.measured}; max frequency/beta {(th.value / th.beta).max():.3g}", status=chk.status,
        counterexample=chk.counterexample, kind="paper", quote=Q_THM01,
        code=code_name(bounds.exponential_mechanism_gap)))
    return claims


def transfer_output_figure(frame: pd.DataFrame):
    """lecture-transfer's figure: the table with its verdict and the failing points (:func:`transfer_check`)."""
    inr, ok = transfer_check(frame)
    return transfer_figure(frame, transfer_verdict(inr, ok), inr[~ok])


def monitor_output_figure(frame: pd.DataFrame):
    """lecture-monitor's figure: the table with its verdict and the failing (eps', T) points of each check."""
    masks = monitor_masks(frame)
    failing = [(MONITOR_CHECKS[c][0], MONITOR_CHECKS[c][1], ring_words(c), list(m.index[~m.to_numpy()]))
               for c, m in masks.items() if not m.all()]
    return monitor_figure(frame, monitor_verdict(masks), failing)


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of lecture-transfer or lecture-monitor (the output contract of catalogue.py); ``params``
    = the complete ``theory.lecture.transfer`` or ``theory.lecture.monitor`` block plus ``seed``."""
    p, seed, conf = params, int(params["seed"]), float(params["confidence"])
    if output_id == TRANSFER:
        frame = transfer_table(seed, p["m_grid"], p["epsilons"], p["delta"], p["d"], p["replicates"], conf)
        return frame, transfer_output_figure(frame), transfer_claims(frame)
    if output_id == MONITOR:
        frame = monitor_table(seed, p["m"], p["epsilon"], p["epsilon_primes"], p["delta"], p["d"], p["T_grid"],
                              p["betas"], p["replicates"], conf, p["min_total_datasets"])
        return frame, monitor_output_figure(frame), monitor_claims(frame) + slip_rows(output_id, p)
    raise ValueError(f"{__name__} does not build {output_id!r}")
