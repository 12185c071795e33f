"""Shared pieces of the Zhao experiment outputs (zhao-fig2, zhao-fig3, zhao-fig3-large-n, zhao-thm2-check,
zhao-sweep): theory alongside, the answered-fraction table, and the figure parts they share: the setting line under a
verdict title, holdout − fresh per arm in the arm's encoding, the claims' requirements as labelled dashed lines and a
sampling-SE axis drawn once.

Zhao 2017 §4 only says that labels are random, attributes are correlated with the label and among themselves, and
records are correlated; the "chain" data model is this project's design (docs/METHODS.md §4).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from adaptive_repro import decisions
from adaptive_repro.outputs.experiment_claims import Z
from adaptive_repro.report.plotting import COLORS, MAX_WIDTH, SIZES, style
from adaptive_repro.simulation import zhao_calibration
from adaptive_repro.simulation.zhao_calibration import (
    BayesianDPCalibration,
    DPCalibration,
    EffectiveNCalibration,
    Theorem2Calibration,
)
from adaptive_repro.stats import summarize

#: The arms the Zhao claims are about, by their registered calibrations (the names are the calibrations' own).
DP_ARM, BDP_ARM, THEOREM2_ARM = (c().arm_name for c in (DPCalibration, BayesianDPCalibration, Theorem2Calibration))
DP_EFFECTIVE_N_ARM = EffectiveNCalibration().arm_name  # the DP calibration with the threshold for n/V (V known)


def prevents_overfitting_id(arm: str) -> str:
    """The ID of an Algorithm 1 arm's Fig. 3 row (fig3.fig3_claims; its figure rings by it)."""
    return f"{arm}-prevents-overfitting"


def certified_bdp_id(arm: str) -> str:
    """The ID of an Algorithm 1 arm's certified-level row (fig3.certified_claims)."""
    return f"{arm}-certified-bdp"


#: Zhao 2017, captions of Figs. 2 and 3 and the experiment section (verbatim).
QUOTE_FIG2 = "Reusing a holdout dataset in the common way can lead to overfitting."
QUOTE_FIG3 = ("Overfitting of reusing a holdout dataset is prevented in our Bayesian differential privacy-based "
              "approach.")
QUOTE_SECTION = ("Figures 2 and 3 illustrate that reusing a holdout dataset in the common way can lead to overfitting, "
                 "and that overfitting is prevented by our approach based on Bayesian differential privacy (BDP).")


def arms_in(spec, names) -> list:
    """The spec's arm objects that occur in ``names`` (e.g. a records column), in the spec's order."""
    present = set(names)
    return [arm for arm in spec.arms if arm.name in present]


def theory_table(spec) -> pd.DataFrame:
    """Theory alongside (docs/METHODS.md §4) for every Algorithm 1 arm, one row per arm, plus the session's eps, the
    DP level the arm's sigma gives (eps*) and the BDP level Lemma 2 certifies for it (privacy.bdp_level_for_dp)."""
    rows = []
    for cal in spec.alg1_calibrations().values():
        row = zhao_calibration.theory_alongside(cal, spec.alg1, spec.n, spec.d, spec.k_grid, spec.model)
        row["eps_session"] = spec.alg1.session_epsilon
        row["certified_bdp"] = (np.nan if not cal.feasible else np.inf if not np.isfinite(row["eps_star"]) else
                                spec.model.bdp_level_for_dp(float(row["eps_star"]), spec.n, spec.d, "lemma2"))
        rows.append(row)
    return pd.DataFrame(rows)


def answered_table(records: pd.DataFrame, n: int) -> pd.DataFrame:
    """summarize(records) plus, per (mechanism, k): ``answered`` (fraction of replicates whose holdout answer is
    not bottom), ``budget_used`` (mean over replicates of the budget spent up to that k's query) and the accuracy in
    sampling-SE units 2 sqrt(n) (acc - 1/2) (``mean_se_units``, ``se_se_units``)."""
    table = summarize(records)
    hold = records[records["dataset"] == "holdout"]
    per_k = hold.groupby(["mechanism", "k"]).agg(answered=("accuracy", lambda a: float(a.notna().mean())),
                                                 budget_used=("budget_used", "mean")).reset_index()
    table = table.merge(per_k, on=["mechanism", "k"], how="left")
    table.insert(1, "n", n)
    table["mean_se_units"] = 2.0 * np.sqrt(n) * (table["mean"] - 0.5)
    table["se_se_units"] = 2.0 * np.sqrt(n) * table["se"]
    return table


#: In every Zhao figure a dashed grey line is what a claim requires (threshold T, 90% answered, the session's ε, β).
REQUIREMENT = {"color": COLORS["reference"], "ls": "--", "lw": 1.3, "zorder": 1}
#: Colour of the words on a requirement line (the reference grey, darker, so that 9.5 pt text reads).
REQUIREMENT_TEXT = "#505050"
#: Legend entry of the dashed requirement lines.
REQUIREMENT_LABEL = (f"dashed grey: what the claim requires; a protected\narm's gap fails where its mean − {Z:g} SE > "
                     "its T")
#: The gap axis of the experiment figures: one unit (accuracy), with the 95% band of the mean
GAP_AXIS_LABEL = "holdout − fresh\naccuracy (95% CI)"


def title_words(text: str) -> str:
    """``text`` with one-letter variables carrying a subscript (p_s, p_y) set as mathtext ($p_{s}$), so that a title
    reads as notation, not as a code name."""
    return re.sub(r"\b([A-Za-z])_([A-Za-z0-9]+)\b", r"$\1_{\2}$", text)


def title_chars(width_in: float) -> int:
    """How many characters of a verdict title fit on one line of a figure ``width_in`` inches wide."""
    return int(72 * width_in / (SIZES["verdict"] * 0.53))


def setting_line(spec, replicates: int, width_in: float = MAX_WIDTH) -> str:
    """The data setting of a figure (its title's last line), wrapped to ``width_in`` inches: n, d, the data model in
    its own words, signal attributes, query, replicates."""
    nd = f"n = d = {spec.n:,}" if spec.n == spec.d else f"n = {spec.n:,}, d = {spec.d:,}"
    text = (f"{nd}; {spec.model.describe()}; {spec.signal_attributes} signal attributes; {spec.query.name} queries; "
            f"{replicates} replicates")
    return title_words(wrap_verdict(text, width_in))


def wrap_verdict(text: str, width_in: float = MAX_WIDTH) -> str:
    """``text`` on as few lines as fit a figure ``width_in`` inches wide, of even length: each break after the ': ',
    '; ' or ', ' nearest the even share (a verdict reads in clauses), else after the word nearest it."""
    width = title_chars(width_in)
    lines = []
    while len(text) > width:
        target = len(text) / -(-len(text) // width)  # even share of what is left
        fits = [m.end() for m in re.finditer(r"[:;,] | ", text) if m.end() <= width + 1]
        clauses = [i for i in fits if text[i - 2] in ":;," and i >= 0.6 * target]
        cuts = clauses or fits
        if not cuts:
            break
        cut = min(cuts, key=lambda i: abs(i - target))
        lines.append(text[:cut].rstrip())
        text = text[cut:]
    return "\n".join(lines + [text])


def requirement_line(ax, y: float, text: str, x: float = 0.98, ha: str = "right", va: str = "bottom"):
    """What a claim requires at ``y`` (T, 90% answered, ε, β): a dashed grey line with ``text`` on it, at axes
    fraction ``x`` (beyond 1: right of the panel, where a curve lies on the line), instead of a legend entry."""
    from matplotlib.transforms import offset_copy

    ax.axhline(y, **REQUIREMENT)
    tr = blended_transform_factory(ax.transAxes, ax.transData)
    lift = {"bottom": 2.0, "top": -2.0}.get(va, 0.0)  # clear of the dashed line, not struck through by it
    return ax.text(x, y, text, transform=offset_copy(tr, fig=ax.figure, y=lift, units="points"), ha=ha, va=va,
                   fontsize=SIZES["tick"], color=REQUIREMENT_TEXT, clip_on=False)


def short_arm_name(arm) -> str:
    """An arm's name without its parenthesised detail ("Thresholdout", "Standard holdout"); an Algorithm 1 arm by its
    calibration ("DP", "Bayesian-DP")."""
    if arm.calibration is not None:
        return arm.calibration.display_name.replace(" calibration", "")
    return arm.display_name.split(" (")[0]


def _clearance(ax, y: float, start: float, stop: float) -> float:
    """How far (in data units) the lines drawn on ``ax`` stay from the height ``y`` over the axes fraction
    [start, stop] of the x axis (inf where no line passes there): where a label on a line at ``y`` would be clear."""
    to_fraction = ax.transScale + ax.transLimits  # data -> axes fraction, through the axis scale
    nearest = np.inf
    for line in ax.get_lines():
        if line.get_transform() != ax.transData:  # a line across the axes (another requirement), not data
            continue
        x, v = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
        if len(x) == 0 or len(x) != len(v):
            continue
        frac = to_fraction.transform(np.column_stack([x, np.where(np.isfinite(v), v, 0.0)]))[:, 0]
        near = (frac >= start) & (frac <= stop) & np.isfinite(v)
        if near.any():
            nearest = min(nearest, float(np.min(np.abs(v[near] - y))))
    return nearest


def threshold_lines(ax, spec, arms) -> None:
    """Each arm's threshold T (its claim's tolerance) as a requirement line, one line per distinct T naming its arms
    (the Algorithm 1 calibrations of one run share T)."""
    settings = spec.arm_settings()
    groups: dict[float, list] = {}
    for arm in arms:
        t = arm.tolerance(spec, settings[arm.name])
        if t is not None and np.isfinite(t):
            groups.setdefault(float(t), []).append(arm)
    every_alg1 = [a for a in arms if a.calibration is not None]
    for t, group in groups.items():
        alg1 = [a for a in group if a.calibration is not None]
        names = [short_arm_name(a) for a in group if a.calibration is None]
        if alg1:  # "Algorithm 1" when all its calibrations share this T, else which ones
            names.append(("both Algorithm 1 arms" if len(alg1) == 2 else "Algorithm 1")
                         if len(alg1) == len(every_alg1) else
                         f"Algorithm 1, {' and '.join(short_arm_name(a) for a in alg1)}")
        left = _clearance(ax, t, 0.0, 0.3) >= _clearance(ax, t, 0.7, 1.0)  # the end where no curve comes close
        requirement_line(ax, t, f"T ({'; '.join(names)})", x=0.02 if left else 0.98, ha="left" if left else "right")
    if groups:  # room above the highest T for its words
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, max(hi, max(groups) + 0.1 * (max(groups) - lo)))


def gap_curves(ax, gaps: pd.DataFrame, arms, marks: dict[str, list[int]] | None = None) -> list:
    """holdout − fresh accuracy against k for each arm (``gaps``: stats.paired_gap_table, what the claims test): the
    mean in the arm's colour and marker with its 95% CI (stats.ci95_half_width), drawn as a light fill with thin edges
    in the arm's colour so that overlapping bands stay apart; markers only at the indices ``marks[arm]`` (if given: see
    :func:`marker_indices`). Returns the arms with no gap to draw (every accuracy answer ⊥)."""
    from adaptive_repro.stats import ci95_half_width

    silent = []
    for arm in arms:
        g = gaps[gaps["mechanism"] == arm.name].dropna(subset=["mean"]).sort_values("k")
        if g.empty:
            silent.append(arm)
            continue
        se, k = g["se"].fillna(0.0), g["k"]
        half = ci95_half_width(se, g["replicates"])
        lo, hi = g["mean"] - half, g["mean"] + half
        ax.fill_between(k, lo, hi, color=arm.color, alpha=0.10, lw=0)
        for edge in (lo, hi):
            ax.plot(k, edge, "-", color=arm.color, lw=0.6, alpha=0.8)
        markevery = (marks or {}).get(arm.name)
        ax.plot(k, g["mean"], "-", ms=5, markevery=markevery, **style(arm))
    ax.axhline(0, color="black", lw=0.8, zorder=1)
    return silent


def marker_indices(curves: dict[str, tuple], x_span: float, y_span: float, min_gap: float = 0.06) -> dict:
    """Which points of each curve carry a marker, so that no marker hides another without moving any point:
    ``curves`` maps a name to (x, y) arrays; a point keeps its marker if it is at least ``min_gap`` of ``x_span`` past
    the curve's last marker (dense small k are thinned), and where several curves coincide at one x (|Δy| <
    ``min_gap`` of ``y_span``) the marker goes to one of them, in turn from point to point. Lines still join every
    point."""
    names = list(curves)
    values = {name: dict(zip(np.asarray(x, float), np.asarray(y, float))) for name, (x, y) in curves.items()}
    turn = {xi: j for j, xi in enumerate(sorted(set().union(*values.values())))}  # whose marker, in turn
    marks: dict[str, list[int]] = {}
    for rank, name in enumerate(names):
        x, y = (np.asarray(a, float) for a in curves[name])
        keep, last = [], -np.inf
        for i, (xi, yi) in enumerate(zip(x, y)):
            if xi - last < min_gap * x_span:
                continue
            peers = [m for m in names if np.isfinite(values[m].get(xi, np.nan))
                     and abs(values[m][xi] - yi) < min_gap * y_span]
            if len(peers) > 1 and peers[turn[xi] % len(peers)] != name:
                continue
            keep.append(i)
            last = xi
        marks[name] = keep
    return marks


def arm_handle(arm, label: str | None = None) -> Line2D:
    """A legend handle drawn as the arm is (colour, marker, solid line)."""
    return Line2D([], [], ls="-", label=label or arm.display_name, **style(arm))


def style_handle(ls: str, label: str, color=None, marker=None, mfc=None) -> Line2D:
    """A legend handle for a line style's one meaning in a figure (e.g. dotted = budget used), in black."""
    return Line2D([], [], ls=ls, color=color or "black", marker=marker, mfc=mfc, label=label)


#: The answered share Fig. 3's reading needs at every k > 0 (claims and rings of the Fig. 3 outputs).
ANSWERED_MIN = 0.9  # "the bdp arm answers most queries": at least 90% of accuracy queries at every k > 0


def answered_decision(row) -> decisions.Decision:
    """Whether an arm answers at least 90% of the accuracy queries at one k: its sessions answering (``replicates``,
    the non-⊥ holdout answers) out of all (``replicates`` + ``missing``), by :func:`decisions.rate_at_least`."""
    return decisions.rate_at_least(int(row["replicates"]), int(row["replicates"] + row["missing"]), ANSWERED_MIN)


def gap_decision(gap: tuple, tolerance: float) -> decisions.Decision:
    """Whether a mean gap (k, mean, SE, replicates) is within the arm's threshold T (:func:`decisions.mean_at_most`;
    no SE: undecided)."""
    _, mean, se, replicates = gap
    return decisions.mean_at_most(mean, se, replicates, tolerance)


def shortfalls(hold: pd.DataFrame, gaps: list, tolerance: float) -> tuple[pd.DataFrame, list]:
    """Where Fig. 3's reading fails for one arm (the decision module's "does not hold"): the rows of ``hold`` (its
    holdout rows at k > 0, with ``replicates`` answered and ``missing``) whose answered rate is below 90%, and the gaps
    (k, mean, SE, replicates) above the arm's threshold T (mean − Z SE > T). The claims judge these; the figure rings
    them."""
    failing = [i for i, r in hold.iterrows() if answered_decision(r).state == decisions.FAILS]
    bad_gap = [g for g in gaps if gap_decision(g, tolerance).state == decisions.FAILS]
    return hold.loc[failing], bad_gap


def undecided(hold: pd.DataFrame, gaps: list, tolerance: float) -> list[str]:
    """Where Fig. 3's reading is neither shown nor refuted for one arm: each undecided answered rate or gap, with the
    replicates that would decide it."""
    notes = [f"answered at k = {int(r['k'])}: {answered_decision(r).clause()}" for _, r in hold.iterrows()
             if answered_decision(r).state == decisions.UNDECIDED]
    notes += [f"gap at k = {g[0]}: {gap_decision(g, tolerance).clause()}" for g in gaps
              if gap_decision(g, tolerance).state == decisions.UNDECIDED]
    return notes


def structure_words(model) -> str:
    """A data model's kind in words for a figure panel: its ``PANEL_WORDS``, else its name with spaces."""
    return model.PANEL_WORDS or model.name.replace("_", " ")
