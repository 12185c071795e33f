"""zhao-correlation-frontier: from which n does Algorithm 1 answer 90% of the analyst's attribute queries, per
correlation structure and strength (docs/METHODS.md §4b)? This project's question, not a claim of Zhao 2017's.

Attribute phase only, as zhao-frontier (null labels, exact O(d) sign queries from each data model's own engine). The
four calibrations differ in two ways: sigma (eps-DP as if independent, or the Lemma 2 eps' that makes the session
eps-Bayesian-DP on the data model) and the threshold T (i.i.d. units 1/(2 sqrt(n)), or sqrt(V) times that for the
effective sample size n/V, V known to the mechanism). Why the frontier can be missing (the mechanism the rows state):
T and the records' straying sqrt(V)/(2 sqrt(n)) both shrink like 1/sqrt(n), so the over-threshold events that
|train - holdout| causes on its own do not become rarer with n; only the Laplace noise (sigma ~ 1/(n eps')) does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.foundation.registry import Claim, code_name
from adaptive_repro.outputs.zhao import correlation_causes as causes
from adaptive_repro.outputs.zhao.frontier import TARGET
from adaptive_repro.report.plotting import COLORS, legend_below, log_axis, power_text, pyplot
from adaptive_repro.simulation.zhao_calibration import theorem2_tau_in_true_se
from adaptive_repro.stats import ci95_half_width

#: The legend words of the noise-alone counterfactual drawn behind each Bayesian-DP curve, per calibration.
NOISE_ALONE = {"bdp": "noise alone: Bayesian DP's σ, T (larger V) on i.i.d. records",
               "bdp_effective_n": "noise alone: the same with T for n/V"}
#: marker size of the open star at each Bayesian-DP curve's first n answering 90% (the curves' own markers: 6)
STAR_SIZE = 12
#: The legend entry of both rows' noise-alone bands (each in its row's Bayesian-DP colour).
NOISE_WORDS = "noise alone: each row's Bayesian-DP σ and T on i.i.d. records"
#: Factor in n between the two strengths' points (their rings and stars at one n stay apart).
DODGE = 1.25
#: Opacity of the DP calibrations' curves: context for the Bayesian-DP curves the panel titles and rings judge.
CONTEXT_ALPHA = 0.38
#: line style per strength within the figure (strongest correlation solid)
STRENGTH_STYLES = ("-", "--", ":", "-.")


def frontier_table(records: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, calibration, n): the mean answered fraction of the candidate attribute queries, its SE and
    replicates, the mean candidates and over-threshold events, sigma, T and eps'; ``first_n_answering_90``: the
    smallest grid n from which on the mean answered fraction stays >= 90% (:func:`mean_answering_from`, descriptive;
    the rows decide by the per-data-set counts beside it; nan: none in the grid)."""
    keys = ["experiment", "structure", "calibration", "n"]
    g = records.groupby(keys, sort=False)
    table = g["answered_fraction"].agg(
        answered_fraction="mean", replicates="count",
        answered_fraction_se=lambda a: float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else np.nan,
        answered_median="median", data_sets_answering_90=lambda a: float(np.mean(a >= TARGET)),
        data_sets_answering_under_20=lambda a: float(np.mean(a < 0.2)))
    extra = g[["d", "V", "budget", "sigma", "threshold", "eps_dp", "candidates", "over_events", "gap_units"]].mean()
    counterfactual = g[["answered_fraction_noiseless", "answered_fraction_iid", "max_error_units"]].agg(["mean", _se])
    counterfactual.columns = [c if stat == "mean" else f"{c}_se" for c, stat in counterfactual.columns]
    failures = g["theorem2_failure"].mean().rename("theorem2_failures")
    # per-session outcomes (a data set answers when >= 90% of its candidate queries are answered): the decided rates
    sessions = g[["answered_fraction", "answered_fraction_noiseless", "answered_fraction_iid"]].agg(
        lambda a: int((a.dropna() >= TARGET).sum()))
    sessions.columns = ["data_sets_answering_90_count", "noiseless_data_sets_answering_90_count",
                        "iid_data_sets_answering_90_count"]
    sessions["iid_data_sets"] = g["answered_fraction_iid"].count()
    table = table.join(extra).join(counterfactual).join(failures).join(sessions).reset_index()
    table.insert(table.columns.get_loc("threshold") + 1, "sigma_over_threshold", table["sigma"] / table["threshold"])
    first = table.groupby(["experiment", "calibration"], sort=False).apply(mean_answering_from, include_groups=False)
    table["first_n_answering_90"] = [first[(e, c)] for e, c in zip(table["experiment"], table["calibration"])]
    return table


def mean_answering_from(grp: pd.DataFrame) -> float:
    """Smallest grid n from which on the mean answered fraction stays >= 90% (nan: none): a description beside the
    decided shares, not a verdict."""
    grp = grp.sort_values("n")
    ok = grp["answered_fraction"].to_numpy() >= TARGET
    return next((float(grp["n"].iloc[i]) for i in range(len(ok)) if ok[i:].all()), np.nan)


def _se(values: pd.Series) -> float:
    """The SE of a mean over data sets (nan values dropped; nan with fewer than two)."""
    v = values.dropna()
    return float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else np.nan


def _firsts(table: pd.DataFrame) -> pd.DataFrame:
    """One row per point (experiment), one column per calibration: the first grid n answering 90% (nan: none)."""
    return (table.drop_duplicates(["experiment", "calibration"])
            .pivot(index="experiment", columns="calibration", values="first_n_answering_90"))


def headline(table: pd.DataFrame) -> str:
    """The figure's one verdict, from the measured frontiers (first grid n answering 90%, per point): with which
    threshold the Bayesian-DP calibration answers 90% of the attribute queries and from how many records (the price
    against the DP calibration is on the claim cards)."""
    first = _firsts(table)
    empty = pd.Series(dtype=float)
    plain = first["bdp"] if "bdp" in first else empty
    remedy = first["bdp_effective_n"] if "bdp_effective_n" in first else empty

    def reach(found: pd.Series) -> str:
        ok = found[np.isfinite(found)]
        some = "" if len(ok) == len(found) else f" at {len(ok)} of {len(found)} settings"
        lo, hi = power_text(ok.min()), power_text(ok.max())
        return f"first at n = {lo}{some}" if lo == hi else f"first at n = {lo}–{hi}{some}"

    who = "Bayesian-DP Algorithm 1"
    if np.isfinite(plain).any():
        text = f"{who} answers {TARGET:.0%} {reach(plain)} with a threshold that ignores correlation"
        return text + (f", {reach(remedy)} with one for n/V" if np.isfinite(remedy).any() else "")
    if np.isfinite(remedy).any():
        return f"{who} answers {TARGET:.0%} only with an n/V threshold, {reach(remedy)}"
    either = " with either threshold" if len(remedy) else ""
    return f"{who} never answers {TARGET:.0%} at n ≤ {power_text(table['n'].max())}{either}"


def bdp_verdict(sub: pd.DataFrame, calibration: str) -> str:
    """One structure's verdict for one Bayesian-DP calibration (a panel title's second line): from which grid n it
    answers 90%, the range over the structure's strengths ("never": at no n of the grid)."""
    firsts = _firsts(sub)[calibration]
    if not np.isfinite(firsts.to_numpy(dtype=float)).any():
        return f"Bayesian DP ≥ {TARGET:.0%}: at no n"
    v = sub.drop_duplicates("experiment").set_index("experiment")["V"]
    per_v = [(v[e], n) for e, n in firsts.items()]
    return f"Bayesian DP ≥ {TARGET:.0%} from\nn = " + ", ".join(
        f"{power_text(n) if np.isfinite(n) else 'none'} (V ≈ {vv:.0f})" for vv, n in sorted(per_v, reverse=True))


#: The two rows of the figure, in words: the calibrations with T in i.i.d. units and those with T for n/V (name
#: suffix).
ROWS = (("threshold ignoring\ncorrelation", ""), ("threshold for the\neffective sample size", "_effective_n"))


def figure(table: pd.DataFrame, spec):
    """A row per threshold (ignoring correlation, for n/V), a column per structure, one shared y axis: the answered
    fraction against n, colour and marker = the calibration's arm, line style = strength (V); a large open marker of
    the arm's shape at each Bayesian-DP curve's first n answering 90% (the verdict's frontier); where the
    Bayesian-DP calibration (T in i.i.d. units) is decided below 90% at the largest n (its claim's test,
    :func:`answers_from`) the point is ringed. Panel titles:
    the structure (top row) and the Bayesian-DP calibration's verdict."""
    models = {model.name: model for _, model, _ in spec.points}
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.lines import Line2D

    from adaptive_repro.outputs.zhao.common import structure_words
    from adaptive_repro.report.plotting import MAX_WIDTH, SIZES, ring, style, verdict_title

    plt = pyplot()
    structures = list(dict.fromkeys(table["structure"]))
    rows = [(words, [c for c in spec.calibrations if c.name.endswith(ROWS[1][1]) == bool(suffix)])
            for words, suffix in ROWS]
    rows = [(words, cals) for words, cals in rows if cals]
    fig, axes = plt.subplots(len(rows), len(structures), figsize=(MAX_WIDTH, 1.3 + 2.6 * len(rows)),
                             sharex=True, sharey=True, squeeze=False,
                             gridspec_kw={"height_ratios": [1.3, 1][:len(rows)]})
    n_max = table["n"].max()
    ring_label = f"claim does not hold here: Bayesian DP below {TARGET:.0%} at the largest n"
    strength_handles: dict = {}
    first_markers: dict = {}
    for i, (row_words, calibrations) in enumerate(rows):
        for j, structure in enumerate(structures):
            ax = axes[i][j]
            sub = table[table["structure"] == structure]
            strengths = sorted(sub["experiment"].unique(),
                               key=lambda e: -sub.loc[sub["experiment"] == e, "V"].iloc[0])
            for s_index, (line_style, point) in enumerate(zip(STRENGTH_STYLES, strengths)):
                for calibration in calibrations:
                    c = sub[(sub["experiment"] == point) & (sub["calibration"] == calibration.name)].sort_values("n")
                    grid_n = c["n"].to_numpy()  # the grid n (the star's n), before the strengths are set apart
                    c = c.assign(n=c["n"] * DODGE ** (s_index - (len(strengths) - 1) / 2))
                    v = c["V"].iloc[0]
                    encoding = style(calibration)
                    first = c["first_n_answering_90"].iloc[0]
                    frontier = np.isfinite(first) and calibration.name.startswith("bdp")  # the verdict's frontier
                    verdicts_arm = calibration.name.startswith("bdp")  # the Bayesian-DP arms: what the titles judge
                    ax.plot(c["n"], c["answered_fraction"], line_style, lw=1.4, ms=6, mew=0.6,
                            zorder=4 if verdicts_arm else 3, alpha=1.0 if verdicts_arm else CONTEXT_ALPHA,
                            markevery=_marked(grid_n, s_index, first if frontier else None),
                            **_strength_fill(s_index, encoding["color"]),
                            label=calibration.display_name if point == strengths[0] else None, **encoding)
                    if verdicts_arm:  # bars on the judged curves only: the DP context's stay in the table
                        half = ci95_half_width(c["answered_fraction_se"].fillna(0), c["replicates"])
                        ax.errorbar(c["n"], c["answered_fraction"], yerr=half, fmt="none", ecolor=encoding["color"],
                                    elinewidth=0.9, capsize=0, zorder=2, alpha=0.6)  # light: crossing bars apart
                    if calibration.name.startswith("bdp") and "answered_fraction_iid" in c and s_index == 0:
                        # the noise alone: the same sigma and T on i.i.d. records (at the strongest strength's sigma)
                        words = NOISE_ALONE.get(calibration.name, f"noise alone: {calibration.display_name}")
                        ax.plot(c["n"], c["answered_fraction_iid"], color=encoding["color"], lw=2.6, alpha=0.3,
                                solid_capstyle="butt", zorder=1, label=words)
                    if frontier:
                        at = c[grid_n == first]
                        ax.plot(at["n"], at["answered_fraction"], ls="", marker="*", ms=STAR_SIZE, mew=1.4,
                                zorder=27 if s_index else 26,  # the open star above the filled one
                                mec=encoding["color"], mfc=encoding["color"] if s_index == 0 else "white")
                        first_markers.setdefault(calibration.display_name, Line2D(
                            [], [], ls="", marker="*", ms=STAR_SIZE, mfc="none", mec=encoding["color"], mew=1.2))
                    elif calibration.name == "bdp" and answers_from(c)[0] == decisions.FAILS:  # its claim fails
                        last = c[c["n"] == c["n"].max()]  # where fewer than 90% of data sets answer at n_max
                        ring(ax, last["n"], last["answered_fraction"], label=ring_label,
                             size=60)  # small: two strengths' last points can lie close
                strength_handles.setdefault(line_style, Line2D(
                    [], [], ls=line_style, color=COLORS["reference"], marker="o", ms=6, mew=0.6,
                    **_strength_fill(s_index, COLORS["reference"]),
                    label=f"V ≈ {v:.0f}" + (" (V: variance inflation of a query)" if not s_index else "")))
            ax.axhline(TARGET, color=COLORS["reference"], lw=1.0, ls=":", label=f"{TARGET:.0%} answered")
            bdp = next((c.name for c in calibrations if c.name.startswith("bdp")), None)
            verdict_line = bdp_verdict(sub, bdp) if bdp else ""
            name = structure_words(models[structure]).split(":")[0] if i == 0 else ""
            ax.set_title("\n".join(t for t in (name, verdict_line) if t), fontsize=SIZES["tick"])
            log_axis(ax, "x")
            ax.set_xlim(table["n"].min() / 1.8, n_max * 4)  # the stars and rings at the largest n fully in view
            ax.set_ylim(-0.03, 1.08)  # whole markers and stars at 100%
            if i == len(rows) - 1:
                ax.set_xlabel("records n")
        axes[i][0].set_ylabel(f"{row_words}:\nfraction answered")
    setting = (f"d = {spec.d:,}, budget B = {spec.alg1.budget}, session ε = {spec.alg1.session_epsilon:g}, "
               f"null labels, {spec.replicates} replicates; bars (Bayesian DP): 95% CI of the mean")
    verdict_title(fig, headline(table), setting)
    found: dict = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            found.setdefault(lab, h)
    # column 1: the calibrations and the 90% line; column 2: the strengths (line styles) and the point marks
    target = f"{TARGET:.0%} answered"
    rings = {lab: found.pop(lab) for lab in [ring_label] if lab in found}
    if target in found:
        found[target] = found.pop(target)  # after the calibrations: the end of column 1
    found |= {h.get_label(): h for h in strength_handles.values()}
    for display_name, handle in first_markers.items():  # the star in the arm's colour, as drawn
        which = f" ({display_name})" if len(first_markers) > 1 else ""
        found[f"first n with ≥ {TARGET:.0%} answered (filled: larger V){which}"] = handle
    noise = [found.pop(words) for words in NOISE_ALONE.values() if words in found]
    if noise:  # one entry: a solid swatch per row, in that row's Bayesian-DP colour, as pale as drawn
        from matplotlib.patches import Patch

        found[NOISE_WORDS] = tuple(Patch(facecolor=line.get_color(), alpha=line.get_alpha(), lw=0) for line in noise)
    found |= rings
    legend_below(fig, handles=list(found.values()), labels=list(found), ncol=2,
                 handler_map={tuple: HandlerTuple(ndivide=None, pad=0.3)})
    return fig


def _strength_fill(s_index: int, color: str) -> dict:
    """Marker fill per strength: filled for the strongest, open (white) for the others, so that where two strengths'
    curves coincide (both at 100% answered) both are seen."""
    return {"mfc": color, "mec": "white"} if s_index == 0 else {"mfc": "white", "mec": color}


def _marked(n: np.ndarray, s_index: int, first: float | None) -> list[int]:
    """Which points of a curve carry a marker: every other grid n, the strengths alternating (so that coinciding
    curves do not stack markers), never the frontier point (its open star stands there alone)."""
    return [i for i, x in enumerate(n) if i % 2 == s_index % 2 and (first is None or x != first)]


def session_decision(row) -> decisions.Decision:
    """Whether at least 90% of the data sets answer at least 90% of their candidate queries at one (point,
    calibration, n), by :func:`decisions.rate_at_least` over the data sets."""
    return decisions.rate_at_least(row.data_sets_answering_90_count, row.replicates, TARGET)


def answers_from(rows: pd.DataFrame) -> tuple[str, float, str]:
    """A calibration's rows over the n grid, decided per n (:func:`session_decision`): ("holds", the smallest grid n
    from which every n holds, ""); ("does not hold", nan, "") where the largest n is decided below 90% (no n of the
    grid answers from there on); else ("undecided", nan, the note of the largest n's decision)."""
    ordered = rows.sort_values("n")
    got = [(int(r.n), session_decision(r)) for r in ordered.itertuples()]
    if not got:
        return decisions.UNDECIDED, np.nan, "no grid point"
    if got[-1][1].state == decisions.FAILS:
        return decisions.FAILS, np.nan, ""
    start = np.nan
    for n, d in reversed(got):
        if d.state != decisions.HOLDS:
            break
        start = float(n)
    if np.isfinite(start):
        return decisions.HOLDS, start, ""
    return decisions.UNDECIDED, np.nan, f"At n = {got[-1][0]:,}: {got[-1][1].clause()}"


def _first_text(first: float) -> str:
    return f"n = {first:,.0f}" if np.isfinite(first) else "no n of the grid"


def claims(table: pd.DataFrame, spec) -> list[Claim]:
    """Per point: does the Bayesian-DP calibration answer 90% at some n of the grid (and if not, why), and the price
    in records of its certified level with the threshold for n/V (against the DP calibration with the same T)."""
    out = []
    base = dict(output_id="zhao-correlation-frontier", kind="project",
                source="this project (Zhao 2017 §1, §4 motivate it)")
    n_max = int(table["n"].max())
    shared_state = {name: model.SHARED_STATE for name, model, _ in spec.points} if spec is not None else {}
    for point, sub in table.groupby("experiment", sort=False):
        structure, v = sub["structure"].iloc[0], float(sub["V"].max())
        tag = f"{structure}-v{v:.0f}"
        first = {c: float(g["first_n_answering_90"].iloc[0]) for c, g in sub.groupby("calibration")}
        at_max = sub[sub["n"] == n_max].set_index("calibration")
        eps_dp = sub.groupby("calibration")["eps_dp"].median()

        def fraction(c: str) -> str:
            r = at_max.loc[c]
            return f"{r.answered_fraction:.0%} ± {r.answered_fraction_se:.0%}"

        def per_data_set(c: str) -> str:
            r = at_max.loc[c]
            return (f"per data set: {r.data_sets_answering_90:.0%} answer ≥ {TARGET:.0%}, "
                    f"{r.data_sets_answering_under_20:.0%} under 20%, median {r.answered_median:.0%}")

        where = f"Under {structure.replace('_', ' ')} correlation at V ≈ {v:.3g}"
        if "bdp" in first:
            state, decided_n, note = answers_from(sub[sub["calibration"] == "bdp"])
            status = decisions.STATUS[state]
            why = note
            if state == decisions.FAILS and "dp" in first:
                dp = at_max.loc["dp"]
                units = dp.threshold * 2 * np.sqrt(n_max)
                shared = shared_state.get(point, True)
                why = (f"The DP calibration, whose σ is smaller at every n ({dp.sigma / dp.threshold:.2g} × T at "
                       f"n = {n_max:,}), answers {fraction('dp')} there ({per_data_set('dp')}): the over-threshold "
                       f"events come from |train − holdout| itself, not from the noise. Its SD is √(2V) times the "
                       f"i.i.d. SE ½/√n and T is {units:g} i.i.d. SE, both shrinking like 1/√n, so more records do "
                       f"not bring the answered fraction to {TARGET:.0%}. " + (
                           "Every attribute shares the records' latent state, so a data set's sampling error is one "
                           "shift of all attributes at once: data sets split into those that answer nearly all "
                           "queries and those that spend the budget early." if shared else
                           "Each attribute has its own latent chain, so the crossings are spread over the "
                           "attributes the analyst asks first (the most extreme ones)."))
            out.append(Claim(**base, claim_id=f"{tag}-bdp-answers-at-some-n",
                             claim=f"{where}, Algorithm 1 with the Bayesian-DP calibration (T in i.i.d. units) answers "
                                   f"≥ {TARGET:.0%} of the candidate attribute queries from some n of the grid on.",
                             expected=f"a grid n ≤ {n_max:,} from which on ≥ {TARGET:.0%} of the data sets answer "
                                      f"≥ {TARGET:.0%} of their queries at every n (Clopper–Pearson, holds); fewer at "
                                      f"n = {n_max:,} (does not hold)",
                             measured=f"Bayesian-DP calibration (ε' = {eps_dp['bdp']:.3g}): decided from "
                                      f"{_first_text(decided_n)} (mean answered fraction ≥ {TARGET:.0%} from "
                                      f"{_first_text(first['bdp'])}); answered at n = {n_max:,}: {fraction('bdp')} "
                                      f"({per_data_set('bdp')})."
                                      + (f" {why}" if why else ""),
                             status=status,
                             counterexample=f"{fraction('bdp')} answered at n = {n_max:,}"
                             if status == "does not hold" else "",
                             code=code_name(frontier_table)))
        if {"bdp_effective_n", "dp_effective_n"} <= set(first):
            b, d = first["bdp_effective_n"], first["dp_effective_n"]
            state, decided_n, note = answers_from(sub[sub["calibration"] == "bdp_effective_n"])
            ok = state == decisions.HOLDS
            smallest = int(table["n"].min())
            price = "" if not (ok and np.isfinite(d)) else (
                f"; {b / d:,.0f} times the records" if d > smallest
                else f"; at least {b / d:,.0f} times the records (a lower bound: the DP calibration already answers "
                     "at the grid's smallest n, so its own frontier is censored there)")
            status = decisions.STATUS[state]
            if ok and decided_n >= n_max:  # reached only at the grid's last point: one more point could undo it
                status = "not checked"
                price += (f". Not established: the decided frontier is the grid's last point (n = {n_max:,}); a "
                          "larger n in n_grid would show whether the answered fraction stays ≥ 90%")
            elif note:
                price += f". {note}"
            out.append(Claim(**base, claim_id=f"{tag}-bdp-effective-n-frontier",
                             claim=f"{where}, with the threshold for the effective sample size n/V (V known), "
                                   f"Algorithm 1 with the Bayesian-DP calibration answers ≥ {TARGET:.0%} of the "
                                   "candidate attribute queries from some n of the grid on; the price of its certified "
                                   "Bayesian-DP level is the ratio of that n to the DP calibration's.",
                             expected=f"a grid n ≤ {n_max:,} from which on ≥ {TARGET:.0%} of the data sets answer "
                                      f"≥ {TARGET:.0%} of their queries at every n (Clopper–Pearson, holds); fewer at "
                                      f"n = {n_max:,} (does not hold)",
                             measured=f"Bayesian-DP (ε' = {eps_dp['bdp_effective_n']:.3g}), T for n/V: decided from "
                                      f"{_first_text(decided_n)}, mean answered ≥ {TARGET:.0%} from "
                                      f"{_first_text(b)}; DP (ε = {eps_dp['dp_effective_n']:.3g}), T for n/V: "
                                      f"{_first_text(d)}{price} (grid points; σ ∝ 1/(n ε') while T ∝ 1/√n, so the "
                                      f"n needed grows like 1/ε'²; ε' is Lemma 2's at d = {int(sub['d'].iloc[0]):,} "
                                      f"attributes and can depend on d). At n = {n_max:,}, Bayesian-DP with T for n/V "
                                      f"{per_data_set('bdp_effective_n')}; DP with T for n/V "
                                      f"{per_data_set('dp_effective_n')} (V is the mean over attributes: the most "
                                      "extreme attributes, asked first, can have a larger inflation).",
                             status=status,
                             counterexample="" if state != decisions.FAILS
                             else f"{fraction('bdp_effective_n')} answered at n = {n_max:,}",
                             code=code_name(frontier_table)))
    return out


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-correlation-frontier from its records."""
    (spec,) = inputs["specs"].values()
    records = inputs["records"]
    table = frontier_table(records)
    names = {c.name: c.display_name for c in spec.calibrations}
    tau_units = theorem2_tau_in_true_se(spec.alg1)
    rows = (claims(table, spec) + causes.budget_claims(table, names)
            + causes.validity_claims(table, records, tau_units))
    return table, figure(table, spec), rows

