"""zhao-correlation: what record correlation does to holdout reuse, per correlation structure (docs/METHODS.md §4b).

This project's question, not a claim of Zhao 2017's: Zhao argues that DP-based holdout reuse is justified only for
i.i.d. records and that calibrating for Bayesian DP repairs it. Here every structure (batch chain, regimes,
households, attribute chains) is run at several strengths, indexed by the sign query's variance inflation V (the
data model's expected V at a null attribute: the effective sample size is n / V), with null labels, so any
holdout − fresh gap is overfitting. Per structure the claims ask: does correlation worsen naive overfitting, and like
sqrt(V)? does the DP calibration stay valid, and if not, how does it fail? what does the Bayesian-DP calibration
answer? does the threshold for n / V alone restore validity?
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.decisions import CONFIDENCE
from adaptive_repro.outputs.experiment_claims import Z
from adaptive_repro.outputs.zhao.common import BDP_ARM, DP_ARM, structure_words, theory_table
from adaptive_repro.outputs.zhao.correlation_claims import (
    ANSWERED_MIN,
    REMEDY_ARMS,
    SCRIPT_ARM,
    _assess,
    _standard_fails,
    _valid,
    claims,
    protection_status,
)
from adaptive_repro.outputs.zhao.correlation_sessions import (
    estimated_inflation,
    paired_with_partner,
    stop_shift_columns,
)
from adaptive_repro.report.plotting import COLORS, MAX_WIDTH, SIZES, legend_below, plain_tick_label, pyplot
from adaptive_repro.simulation.zhao_calibration import noise_unit_threshold
from adaptive_repro.stats import clopper_pearson, paired_gap

MIN_DRAWN = 10  # answered replicates needed to draw a gap (the table and claims keep every point)


def point_table(records: pd.DataFrame, spec, diagnostics: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (point, arm): V; the decided gap at the largest k (mean, SE; in i.i.d. and true SE units):
    holdout − population where the model gives the exact population accuracy (``gap_reference``), else holdout −
    fresh, with holdout − fresh beside it (``fresh_gap_*``) and the ratio of their variances (``variance_reduction``:
    what the population reference saves in replicates); per session, how many answered the last query and how
    many of those ended with a gap above the arm's threshold T; the budget used at the largest k, the arm's T and its
    certified Bayesian-DP level; for an arm with a partner (:func:`partner`: the noiseless counterfactual and the DP
    arm, each Bayesian-DP calibration and its DP counterpart), the paired comparison on the same data sets: the
    sessions where exactly one of the two answered, the mean and SE of this arm's final gap minus the partner's over
    the sessions both answered, and the sessions where exactly one of them ended above T; for an arm whose sessions
    set their threshold from the training set, the mean and SD of the V̂ they used (:mod:`.correlation_sessions`)."""
    rows = []
    for point in spec.points:
        recs = records[records["experiment"] == point.name]
        if recs.empty:
            continue
        k_max = max(point.k_grid)
        inflation = point.model.expected_inflation(point.n)
        theory = theory_table(point).set_index("arm") if point.alg1_calibrations() else pd.DataFrame()
        settings = point.arm_settings()
        last = recs[recs["k"] == k_max].pivot_table(index=["mechanism", "replicate"], columns="dataset",
                                                      values="accuracy", dropna=False)
        has_population = "population" in last and last["population"].notna().any()
        answered_by = {arm.name: last.loc[arm.name, "holdout"].notna() for arm in point.arms}
        for arm in point.arms:
            fresh_gap, fresh_se, reps = paired_gap(recs, arm.name, k_max)
            gap, se = (paired_gap(recs, arm.name, k_max, b="population")[:2] if has_population
                       else (fresh_gap, fresh_se))
            threshold = arm.tolerance(point, settings[arm.name])
            sessions = last.loc[arm.name]
            session_gap = sessions["holdout"] - sessions["population" if has_population else "fresh"]
            unit = noise_unit_threshold(1, point.n)  # a sign query's SD under independence
            row = {"structure": point.model.name, "model": point.model.describe(), "point": point.name,
                   "n": point.n, "d": point.d, "V": inflation, "mechanism": arm.name, "k": k_max,
                   "gap_reference": "population" if has_population else "fresh",
                   "gap_mean": gap, "gap_se": se, "replicates": reps, "gap_iid_se_units": gap / unit,
                   "gap_true_se_units": gap / (unit * np.sqrt(inflation)),
                   "fresh_gap_mean": fresh_gap, "fresh_gap_se": fresh_se,
                   "variance_reduction": (fresh_se / se) ** 2 if se > 0 else np.nan,  # fresh over decided gap
                   "largest_gap": float(1.0 - sessions["population"].min()) if has_population else 1.0,
                   "answered": float(answered_by[arm.name].mean()), "answered_n": len(sessions),
                   "answered_count": int(answered_by[arm.name].sum()),
                   "sessions_over_t": int((session_gap > threshold).sum()) if threshold is not None else 0,
                   "budget_used": float(recs.loc[(recs["mechanism"] == arm.name) & (recs["dataset"] == "holdout")
                                                 & (recs["k"] == k_max), "budget_used"].mean()),
                   "threshold": threshold,
                   "sigma": float(getattr(settings[arm.name], "sigma", np.nan)),
                   "certified_bdp": np.nan, "eps_session": np.nan, "feasible": settings[arm.name].feasible,
                   **dict(zip(("v_hat_mean", "v_hat_sd"), estimated_inflation(diagnostics, point, arm.name))),
                   **stop_shift_columns(diagnostics, point, arm.name, answered_by[arm.name]),
                   **paired_with_partner(arm.name, last, answered_by, session_gap, threshold, has_population,
                                          {a.name: a.tolerance(point, settings[a.name]) for a in point.arms})}
            if arm.name in theory.index:
                th = theory.loc[arm.name]
                row |= {"certified_bdp": th["certified_bdp"], "eps_session": th["eps_session"],
                        "budget": th["budget"]}
            rows.append(row)
    return pd.DataFrame(rows)


#: How an arm fails at a point (the start of :func:`_valid`'s reason) -> words for a panel title.
BREAK_WORDS = {"budget": f"< {ANSWERED_MIN:.0%} answered", "overfits": "overfits", "infeasible": "infeasible"}
#: The same in a panel title, where the axis says what the fraction is.
PANEL_BREAK_WORDS = {"budget": f"< {ANSWERED_MIN:.0%}", "overfits": "overfits", "infeasible": "infeasible"}


def first_break(rows: pd.DataFrame) -> tuple[float, str] | None:
    """The smallest V at which an arm's rows (one per V) are not valid (:func:`_valid`, the claims' test) and how it
    fails there (:data:`BREAK_WORDS`' keys: "budget", "overfits", "infeasible"); None if valid at every V."""
    for r in rows.sort_values("V").itertuples():
        ok, why = _valid(r)
        if not ok:
            return float(r.V), next(m for m in BREAK_WORDS if why.startswith(m[:6]))
    return None


def remedy_state(sub: pd.DataFrame) -> tuple[str, float | None]:
    """One structure's arms with a threshold for n/V together, by the claims' own rule (:func:`protection_status`):
    ("fails", the first V where some row is not valid); ("holds", None) where every row is valid with power; else
    ("undecided", None): a pass without power, or an answered fraction within 3 SE of 90%."""
    remedy = sub[sub["mechanism"].isin(REMEDY_ARMS)]
    status, verdicts = protection_status(remedy, sub[sub["mechanism"] == "standard"])
    if status == "does not hold":
        return "fails", min(float(r.V) for r, state, _, _ in verdicts if state == "invalid")
    return ("holds" if status == "holds" else "undecided"), None


def structure_verdict(sub: pd.DataFrame) -> str:
    """One structure's verdict (its answered-fraction panel title when the structures differ): from which V
    Algorithm 1's DP and Bayesian-DP calibrations fail, and what the claims' test says of the arms with a threshold
    for n/V (:func:`remedy_state`); a line per part where they do not fit on one."""
    breaks = {arm: first_break(sub[sub["mechanism"] == arm]) for arm in (DP_ARM, BDP_ARM)
              if (sub["mechanism"] == arm).any()}

    def text(b) -> str:
        return "valid" if b is None else f"{PANEL_BREAK_WORDS[b[1]]} from V = {b[0]:.2g}"

    if breaks and len(set(breaks.values())) == 1:
        parts = [f"Alg. 1 {text(next(iter(breaks.values())))}"]
    else:
        short = {DP_ARM: "DP", BDP_ARM: "BDP"}
        parts = [f"{short[a]} {text(b)}" for a, b in breaks.items()]
    if sub["mechanism"].isin(REMEDY_ARMS).any():
        state, v = remedy_state(sub)
        parts.append(f"n/V fails from V = {v:.2g}" if state == "fails" else f"n/V {state}")
    joined = "; ".join(parts)
    return joined if len(joined) <= PANEL_TITLE_CHARS else "\n".join(parts)  # a quarter of the width: wrap


#: Characters of a bottom-panel verdict on one line (a quarter of the figure's width at the tick font size).
PANEL_TITLE_CHARS = 34


def _dp_breaks(table: pd.DataFrame) -> tuple[dict, dict]:
    """Per structure, where the DP calibration first fails (:func:`first_break`; None: valid at every V), and the
    structures where it fails."""
    structures = dict.fromkeys(table["structure"])
    dp_rows = {s: table[(table["structure"] == s) & (table["mechanism"] == DP_ARM)] for s in structures}
    breaks = {s: first_break(r) for s, r in dp_rows.items() if len(r)}
    return breaks, {s: b for s, b in breaks.items() if b is not None}


def _past_break(table: pd.DataFrame) -> pd.DataFrame:
    """The rows at and beyond the V where the DP calibration first fails, per structure (every row if it never
    fails): where the title and legend report what the calibrations certify and answer."""
    _, broken = _dp_breaks(table)
    if not broken:
        return table
    return pd.concat([table[(table["structure"] == s) & (table["V"] >= v - 1e-9)] for s, (v, _) in broken.items()])


def n_over_v_powered(table: pd.DataFrame) -> bool:
    """Whether the standard holdout fails the validity test of some n/V arm at its point (:func:`_standard_fails`):
    only then can an n/V arm passing it show anything."""
    std = {r.point: r for r in table[table["mechanism"] == "standard"].itertuples()} if "point" in table else {}
    return any(_standard_fails(std.get(getattr(r, "point", None)), r.threshold)
               for r in table[table["mechanism"].isin(REMEDY_ARMS)].itertuples())


def headline(table: pd.DataFrame) -> str:
    """The figure's verdict, the measured answer to the question: from which V correlation breaks DP-calibrated
    Algorithm 1 and how (per structure, :func:`first_break`), in how many structures the arms with a threshold for
    n/V hold, fail or are undecided by the claims' test (:func:`remedy_state`), and where the script's Thresholdout
    overfits; on lines of at most :data:`TITLE_CHARS` characters."""
    n, parts = len(dict.fromkeys(table["structure"])), []
    breaks, broken = _dp_breaks(table)
    if not broken:
        text = (f"Correlation up to V = {table['V'].max():.0f} does not break Algorithm 1 with the DP calibration in "
                f"{len(breaks)} of {n} structures")
    else:
        vs = sorted(v for v, _ in broken.values())
        at = f"V = {vs[0]:.2g}" + ("" if f"{vs[0]:.2g}" == f"{vs[-1]:.2g}" else f"–{vs[-1]:.2g}")
        modes = [m for _, m in broken.values()]
        how = (f"answers < {ANSWERED_MIN:.0%}" if set(modes) == {"budget"} else
               "fails (" + ", ".join(f"{BREAK_WORDS[m]} in {modes.count(m)}" for m in dict.fromkeys(modes)) + ")")
        count = f"all {n}" if len(broken) == n else f"{len(broken)} of {n}"
        text = f"From {at}, DP-calibrated Algorithm 1 (i.i.d. T) {how} in {count} structures"
        if _bdp_breaks_no_later(table, broken):  # the Bayesian-DP calibration fails there too, as soon, same way
            text = f"From {at}, Algorithm 1 (either calibration, i.i.d. T) {how} in {count} structures"
    if table["mechanism"].isin(REMEDY_ARMS).any():
        if n_over_v_powered(table):
            states = [remedy_state(table[table["structure"] == s])[0] for s in dict.fromkeys(table["structure"])]
            counts = [f"{state} in {states.count(state)}" for state in ("holds", "fails", "undecided")
                      if states.count(state)]
            parts.append(f"n/V thresholds (V known): {', '.join(counts)} of {n}")
        else:  # the standard holdout passes the same test everywhere: passing it says nothing
            parts.append("n/V arms untested (no power)")
    parts.append(_script_overfits(table))
    lines = [text]
    for part in filter(None, parts):  # "; " within a line of at most TITLE_CHARS, else a line of its own
        if len(lines[-1]) + 2 + len(part) <= TITLE_CHARS:
            lines[-1] += f"; {part}"
        else:
            lines.append(part if part.startswith("n/V") else part[0].upper() + part[1:])
    return "\n".join(lines)


def _bdp_breaks_no_later(table: pd.DataFrame, dp_broken: dict) -> bool:
    """Whether, in every structure where the DP calibration fails (``dp_broken``: structure -> (V, how)), the
    Bayesian-DP calibration fails too, the same way, at the same V or before: then the title's verdict is both's."""
    for structure, (v, how) in dp_broken.items():
        rows = table[(table["structure"] == structure) & (table["mechanism"] == BDP_ARM)]
        bdp = first_break(rows) if len(rows) else None
        if bdp is None or bdp[0] > v + 1e-9 or bdp[1] != how:
            return False
    return bool(dp_broken)


#: Characters of one line of the verdict title (the figure's width at the title's font size).
TITLE_CHARS = 112


def _script_overfits(table: pd.DataFrame) -> str:
    """The title's verdict on the Dwork et al. script's Thresholdout (its threshold ignores correlation) where it
    overfits beyond its T (the claims' gap test), each structure with the first V where it does, e.g. "the script's
    Thresholdout overfits beyond its T from V = 8 in attribute chains; from V = 20 in regimes" (the legend names the
    script: Dwork et al.'s); empty where it does not."""
    bad = [(r.structure, r.V) for r in table[table["mechanism"] == SCRIPT_ARM].itertuples()
           if _assess(r)[1].startswith("overfitting")]
    if not bad:
        return ""
    first: dict[str, float] = {}
    for structure, v in bad:
        first[structure] = min(v, first.get(structure, v))
    by_v: dict[str, list[str]] = {}
    for structure, v in sorted(first.items(), key=lambda item: item[1]):
        by_v.setdefault(f"{v:.2g}", []).append(structure.replace("_", " "))
    where = "; ".join(f"from V = {v} in {', '.join(names)}" for v, names in by_v.items())
    return f"the script's Thresholdout overfits beyond its T {where}"


def certified_label(table: pd.DataFrame, arm) -> str:
    """An Algorithm 1 arm's legend entry with the Bayesian-DP level Lemma 2 certifies for it where the DP
    calibration has failed (the range over those points, in words), e.g. "..., DP calibration: certifies only
    ε = 21–355"; the plain display name without certified levels."""
    levels = _past_break(table).query("mechanism == @arm.name")["certified_bdp"].dropna()
    if not len(levels):
        return arm.display_name
    lo, hi = levels.min(), levels.max()
    eps = table["eps_session"].dropna()
    only = "only " if len(eps) and lo > eps.max() * (1 + 1e-6) else ""
    def eps(v: float) -> str:  # 1,830 rather than 1.83e+03
        return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"

    return f"{arm.display_name}: certifies {only}ε = {eps(lo)}" + ("" if eps(lo) == eps(hi) else f"–{eps(hi)}")


def v_groups(table: pd.DataFrame) -> dict[float, tuple[int, float]]:
    """Each V of the run -> (its position on the x axis, its tick value): the structures' V at one strength differ by a
    few percent (e.g. 7.9 and 8.0), so values within 15% of each other share one position, ticked at their geometric
    mean rounded to 2 digits. Positions are evenly spaced categories: arms side by side at one V stay on it."""
    groups: list[list[float]] = []
    for v in sorted(set(table["V"].astype(float))):
        if groups and v <= groups[-1][0] * 1.15:
            groups[-1].append(v)
        else:
            groups.append([v])
    return {v: (i, float(f"{np.exp(np.mean(np.log(g))):.2g}")) for i, g in enumerate(groups) for v in g}


def v_positions(values, table: pd.DataFrame) -> np.ndarray:
    """The x positions of ``values`` (V of ``table``'s rows, :func:`v_groups`)."""
    groups = v_groups(table)
    return np.array([groups[float(v)][0] for v in values], dtype=float)


def v_ticks(ax, table: pd.DataFrame) -> None:
    """The V axis: one evenly spaced category per strength (:func:`v_groups`), ticked with its V in plain numbers."""
    ticks = sorted(set(v_groups(table).values()))
    ax.set_xticks([i for i, _ in ticks], [plain_tick_label(v, None) for _, v in ticks])
    ax.set_xlim(-0.5, len(ticks) - 0.5)


#: Offset between the arms' markers at one V, in categories (:func:`v_ticks`): every marker stays within its V's
#: category, and the error bars and rings stay apart.
DODGE = 0.2
#: The legend entry of the largest possible gap's bars.
CEILING_LABEL = "largest possible gap (holdout accuracy 1)"
#: The same for the answered fractions, wider: failing arms often sit together at 0 there, each with its ring.
DODGE_ANSWERED = 0.14
#: Line style of a threshold T: dashed for an i.i.d. T, dash-dotted for a T for n/V (two arms of one colour family
#: stay apart where their colours are close).
T_STYLES = {False: "--", True: "-."}
#: The legend entry of the thresholds' line styles (the arms' entries pair marker and T line in the arm's colour).
T_LEGEND = "each arm's T at each V (top): dashed i.i.d. T, dash-dot T for n/V"


def marker_fill(arm) -> dict:
    """Marker fill and edge of an arm in this figure: open (white inside, the arm's colour around) for the arms with a
    threshold for n/V, filled with a white edge for the others, so that an n/V arm stays apart from its parent arm
    (Thresholdout's teal and its dark partner) where their markers crowd."""
    if arm.name in REMEDY_ARMS:
        return {"mfc": "white", "mec": arm.color, "mew": 1.3}
    return {"mec": "white", "mew": 0.6}


def answering_arms(table: pd.DataFrame, arms) -> list:
    """The protected arms that answer at least :data:`ANSWERED_MIN` of the accuracy queries at every point: their
    gap is a gap of answered queries everywhere, so the figure's gap row draws them (the others stop answering, and
    their gaps stay in the table)."""
    return [a for a in arms if (table.loc[table["mechanism"] == a.name, "answered"] >= ANSWERED_MIN).all()]


def threshold_in_iid_se(table: pd.DataFrame, arm) -> pd.DataFrame:
    """``arm``'s threshold T against V in i.i.d. SEs of a query, T / (1/(2 sqrt(n))) (columns V, t_iid)."""
    rows = table[table["mechanism"] == arm.name].groupby("V", as_index=False)[["threshold", "n"]].first()
    return rows.assign(t_iid=rows["threshold"] / (0.5 / np.sqrt(rows["n"])))


#: Half the width of a threshold's or a ceiling's bar at its V (categories, :func:`v_ticks`): it spans the arms
#: drawn side by side there.
LEVEL_HALF_WIDTH = 0.42


def level_segments(positions, levels) -> tuple[np.ndarray, np.ndarray]:
    """x and y of short horizontal bars, one per V category (a value per V, not a line between Vs), separated by NaN
    so that one line draws them all."""
    xs, ys = [], []
    for x, y in zip(positions, levels):
        xs += [x - LEVEL_HALF_WIDTH, x + LEVEL_HALF_WIDTH, np.nan]
        ys += [y, y, np.nan]
    return np.array(xs, dtype=float), np.array(ys, dtype=float)


def figure(table: pd.DataFrame, spec):
    """Per structure (columns, titled with the data model in words), two rows, each with the arms it is about:

    * top, holdout − population (else − fresh) at the largest k in one unit fixed across V, the i.i.d. SE ½/√n of a
      query (± Z SE of the mean, the interval the verdicts use; drawn where at least MIN_DRAWN replicates were
      answered), for the standard holdout, the protected arms that answer throughout (:func:`answering_arms`) and the
      arms with a threshold for n/V (over their answering sessions), side by side within each V's category; each
      protected arm's threshold T as a short bar at each V in its colour (dashed i.i.d. T, dash-dot T for n/V), and
      the largest possible gap as a grey bar, in the same unit;
    * bottom, the fraction of sessions whose accuracy query at the largest k is answered (not ⊥), for the budgeted
      arms (Clopper–Pearson interval over the sessions at the verdicts' level), with the 90% line.

    A ring marks where the claim "<arm> is valid" fails (answered interval below 90%, or gap − 3 SE > T:
    :func:`_valid`, the claims' test), on the row that shows why. The bottom panels are titled with each structure's
    verdict
    (:func:`structure_verdict`) when the structures' verdicts differ."""
    models = {point.model.name: point.model for point in spec.points}
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.lines import Line2D

    from adaptive_repro.report.plotting import ring, style, verdict_title

    plt = pyplot()
    structures = list(dict.fromkeys(table["structure"]))
    arms = spec.points[0].arms
    protected = [a for a in arms if table.loc[table["mechanism"] == a.name, "threshold"].notna().any()]
    top_arms = [a for a in arms if a.name == "standard" or a in answering_arms(table, protected)
                or (a in protected and a.name in REMEDY_ARMS)]
    bottom_arms = [a for a in protected if a.budgeted and not (a.calibration and a.calibration.COUNTERFACTUAL)]
    verdicts = {s: structure_verdict(table[table["structure"] == s]) for s in structures}
    per_panel = len(set(verdicts.values())) > 1
    fig, axes = plt.subplots(2, len(structures), figsize=(MAX_WIDTH, 6.6 if per_panel else 6.3),
                             sharex=True, sharey="row", squeeze=False, gridspec_kw={"height_ratios": [3, 1.8]})
    ring_label = f"claim does not hold here: < {ANSWERED_MIN:.0%} answered or gap − {Z:g} SE > T"
    keyed: dict[str, Line2D] = {}  # arm display name -> its threshold's line key
    answered_line = {"color": COLORS["population"], "lw": 1.0, "ls": ":"}
    for j, structure in enumerate(structures):
        sub = table[table["structure"] == structure]
        top, bottom = axes[0][j], axes[1][j]
        for rank, arm in enumerate(top_arms):
            a = sub[sub["mechanism"] == arm.name].sort_values("V")
            x = v_positions(a["V"], table) + DODGE * (rank - (len(top_arms) - 1) / 2)
            unit = 0.5 / np.sqrt(a["n"])  # the i.i.d. SE of a query
            gap, band = a["gap_mean"] / unit, Z * a["gap_se"] / unit  # the verdicts' ± Z SE
            shown = a["replicates"] >= MIN_DRAWN  # a gap from a handful of answered replicates is not drawn
            encoding = style(arm) | marker_fill(arm)
            gid = encoding.pop("gid")  # on the data line only: the error bars' caps are not the arm's marker
            bars = top.errorbar(x[shown], gap[shown], yerr=band[shown], ms=5.5, capsize=0,
                                elinewidth=1.0, lw=1.3, label=arm.display_name, **encoding)
            bars.lines[0].set_gid(gid)
            if arm not in protected:
                continue
            t, t_style = threshold_in_iid_se(sub, arm), T_STYLES[arm.name in REMEDY_ARMS]
            top.plot(*level_segments(v_positions(t["V"], table), t["t_iid"]), color=arm.color, lw=1.1, ls=t_style,
                     zorder=1.5)
            keyed[arm.display_name] = Line2D([], [], color=arm.color, lw=1.1, ls=t_style)
            over = [(xi, g) for xi, g, r in zip(x, gap, a.itertuples())
                    if not _valid(r)[0] and _valid(r)[1].startswith("overfitting") and r.replicates >= MIN_DRAWN]
            ring(top, [xi for xi, _ in over], [g for _, g in over], label=ring_label, size=75)
        for rank, arm in enumerate(bottom_arms):
            a = sub[sub["mechanism"] == arm.name].sort_values("V")
            x = v_positions(a["V"], table) + DODGE_ANSWERED * (rank - (len(bottom_arms) - 1) / 2)
            label = certified_label(table, arm) if arm.name in (DP_ARM, BDP_ARM) else arm.display_name
            bottom.plot(x, a["answered"], "-", ms=5.5, lw=1.5, label=label, zorder=25,
                        **(style(arm) | marker_fill(arm)))  # above the rings' white halo: a ringed point stays seen
            lo, hi = clopper_pearson(np.round(a["answered"] * a["answered_n"]), a["answered_n"], CONFIDENCE)
            bottom.errorbar(x, a["answered"], yerr=[a["answered"] - lo, hi - a["answered"]], fmt="none",
                            ecolor=arm.color, elinewidth=1.0, capsize=0, zorder=24)
            low = [(xi, r) for xi, r in zip(x, a.itertuples())
                   if not _valid(r)[0] and not _valid(r)[1].startswith("overfitting")]
            ring(bottom, [xi for xi, _ in low], [np.nan_to_num(r.answered) for _, r in low], label=ring_label,
                 size=55)  # the neighbouring arms' rings at 0 stay apart (DODGE_ANSWERED)
        ceiling = sub[sub["mechanism"] == "standard"].sort_values("V")
        if len(ceiling):  # no gap can exceed 1 − the population accuracy (holdout accuracy 1)
            top.plot(*level_segments(v_positions(ceiling["V"], table),
                                     ceiling["largest_gap"] / (0.5 / np.sqrt(ceiling["n"]))),
                     color=COLORS["reference"], lw=2.0, ls="-", alpha=0.5, zorder=1.2, label=CEILING_LABEL)
        top.axhline(0, color=COLORS["reference"], lw=0.8)
        bottom.axhline(ANSWERED_MIN, **answered_line, zorder=1.5)
        top.set_title(structure_words(models[structure]))
        if per_panel:
            bottom.set_title(verdicts[structure], fontsize=SIZES["tick"])
        v_ticks(bottom, table)
        bottom.set_xlabel("variance inflation V")
        bottom.set_ylim(-0.08, 1.1)
    reference = table["gap_reference"].iloc[0] if "gap_reference" in table and len(table) else "fresh"
    axes[0][0].set_ylabel(f"holdout − {reference} at k = {max(spec.k_grid)}\n(i.i.d. SEs ½/√n)")
    axes[1][0].set_ylabel("last query\nanswered (not ⊥)")
    first = spec.points[0]
    verdict_title(fig, headline(table),
                  f"n = {first.n:,}, d = {first.d:,}, null labels, {spec.replicates} replicates"
                  + (", the analyst removes the shared state" if first.remove_shared_state else ""))
    handles, labels = [], []
    for ax in list(axes[0]) + list(axes[1]):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h), labels.append(lab)
    for i, label in enumerate(labels):  # an arm with a threshold: its marker and its dashed T in one entry
        if label in keyed:
            handles[i] = (handles[i], keyed[label])
    keys = {f"{ANSWERED_MIN:.0%} answered (bottom)": Line2D([], [], **answered_line)}
    if keyed:  # one entry for what every arm's dashed line is
        keys[T_LEGEND] = tuple(Line2D([], [], color="black", ls=t_style, lw=1.1) for t_style in T_STYLES.values())
    keys[f"bars: the verdicts' intervals (± {Z:g} SE; answered: Clopper–Pearson {CONFIDENCE:.2%})"] = Line2D(
        [], [], color=COLORS["reference"], lw=1.0, marker="|", ms=9, ls="none")
    if CEILING_LABEL in labels:
        keys[CEILING_LABEL] = handles[labels.index(CEILING_LABEL)]
    if ring_label in labels:  # last, after the lines' keys
        keys[ring_label] = handles[labels.index(ring_label)]
    kept = [(h, lab) for h, lab in zip(handles, labels) if lab not in keys]
    handles, labels = [h for h, _ in kept], [lab for _, lab in kept]
    legend_below(fig, handles=handles + list(keys.values()), labels=labels + list(keys), ncol=2,
                 handler_map={tuple: HandlerTuple(ndivide=None, pad=0.4)}, handlelength=1.6, columnspacing=1.0)
    return fig


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-correlation from the records of every point."""
    (spec,) = inputs["specs"].values()
    table = point_table(inputs["records"], spec, inputs.get("diagnostics"))
    return table, figure(table, spec), claims(table, spec)
