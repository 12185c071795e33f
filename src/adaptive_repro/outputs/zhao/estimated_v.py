"""zhao-estimated-v: does the threshold for n/V still work when V is estimated from the training set, as a
practitioner must (docs/METHODS.md §4c)? This project's question, not a claim of Zhao 2017's.

Five thresholds on the same data sets (:data:`adaptive_repro.simulation.estimated_v.VARIANTS`): the i.i.d. T (the
control that fails), T sqrt(V) with V known (the oracle of zhao-correlation-frontier), T sqrt(V_hat_j) per query from
batch means along the record order, T sqrt(max_j V_hat_j), and V_hat_j after shuffling the records (order unknown);
where the clusters of dependent records are known (households), a sixth: V_hat_j by the cluster-robust variance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.foundation.registry import Claim, code_name
from adaptive_repro.outputs.zhao.frontier import TARGET

#: The variants' words in the figure and the rows (V known is the oracle reference).
WORDS = {"iid": "i.i.d. threshold T", "v_known": "T√V, V known", "v_hat": "T√V̂ per query (batch means)",
         "v_hat_max": "T√(max V̂), worst attribute", "v_hat_order_unknown": "T√V̂, record order unknown",
         "v_hat_clusters": "T√V̂, clusters known"}
BASE = dict(output_id="zhao-estimated-v", kind="project",
            source="this project (Zhao 2017 §1, §4 motivate it; the remedy of zhao-correlation with V estimated)")


def estimated_v_table(records: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, n, variant): the mean answered fraction of the candidate attribute queries, its SE and
    replicates, the per-data-set tail (share answering >= 90% and < 20%), V and the mean and largest estimate V_hat
    over the asked queries, sigma, T, the mean largest error of the answers in true SEs and Theorem 2's failures."""
    g = records.groupby(["experiment", "structure", "n", "variant"], sort=False)
    table = g["answered_fraction"].agg(
        answered_fraction="mean", replicates="count",
        answered_fraction_se=lambda a: float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else np.nan,
        data_sets_answering_90=lambda a: float(np.mean(a >= TARGET)),
        data_sets_answering_90_count=lambda a: int(np.sum(a >= TARGET)),
        data_sets_answering_under_20=lambda a: float(np.mean(a < 0.2)))
    extra = g[["d", "V", "v_hat_mean", "v_hat_max", "sigma", "threshold", "candidates", "max_error_units"]].mean()
    failures = g["theorem2_failure"].mean().rename("theorem2_failures")
    return table.join(extra).join(failures).join(_tail_pairs(records)).reset_index()


def _tail_pairs(records: pd.DataFrame) -> pd.DataFrame:
    """Per (point, n, variant), on the data sets it shares with V̂ per query: how many answer < 20% of the candidate
    queries with V̂ per query only (``tail_v_hat_only``) and with this variant only (``tail_here_only``), the
    discordant pairs a paired comparison of the two tails decides from."""
    keys = ["experiment", "structure", "n"]
    tail = records.assign(tail=records["answered_fraction"] < 0.2)
    base = tail[tail["variant"] == "v_hat"][keys + ["replicate", "tail"]]
    both = tail.merge(base, on=keys + ["replicate"], suffixes=("", "_v_hat"))
    both["tail_v_hat_only"] = both["tail_v_hat"] & ~both["tail"]
    both["tail_here_only"] = both["tail"] & ~both["tail_v_hat"]
    return both.groupby(keys + ["variant"], sort=False)[["tail_v_hat_only", "tail_here_only"]].sum().astype(int)


def _answers(row) -> decisions.Decision:
    """A data set (a session) answers when Algorithm 1 answers at least 90% of its candidate queries; the variant
    answers when at least 90% of the data sets do, by the exact interval (:func:`decisions.rate_at_least`: 20 of 20
    data sets is undecided, its interval reaches 0.72)."""
    return decisions.rate_at_least(row.data_sets_answering_90_count, row.replicates, TARGET)


def _interval(row) -> tuple[float, float]:
    """The Clopper–Pearson interval of the share of data sets that answer (:func:`_answers`)."""
    got = _answers(row)
    return got.low, got.high


def _at(sub: pd.DataFrame, n: int, variant: str):
    return sub[(sub["n"] == n) & (sub["variant"] == variant)].iloc[0]


def worst_case_removes_tail(sub: pd.DataFrame, grid: list) -> decisions.Decision:
    """"max V̂ leaves fewer data sets in the tail (answering < 20%) than V̂ per query": McNemar's exact test on the
    discordant data sets pooled over the n of the grid (:func:`decisions.paired_rates_differ_counts`); with no
    discordant data set it is undecided (no tail to remove)."""
    rows = [_at(sub, n, "v_hat_max") for n in grid]
    return decisions.paired_rates_differ_counts(sum(int(r.tail_v_hat_only) for r in rows),
                                                sum(int(r.tail_here_only) for r in rows),
                                                sum(int(r.replicates) for r in rows))


def _answers_row(sub: pd.DataFrame, grid: list, variant: str, how: str, claim_id: str, where: str,
                 control_fails: bool, per_n) -> Claim:
    """"V estimated per query answers as V known": at every n, at least 90% of the data sets answer (each answering
    >= 90% of its candidate queries), by :func:`_answers`; the i.i.d. threshold's share decided below 90% at every n
    (the control)."""
    got = {n: _answers(_at(sub, n, variant)) for n in grid}
    state = decisions.combined(d.state for d in got.values())
    status = decisions.STATUS[state] if state != decisions.HOLDS or control_fails else "not checked"
    note = ("" if control_fails else " Not checked (no power at this setting): the i.i.d. threshold's share of "
            f"answering data sets is not decided below {TARGET:.0%} at every n, so answering shows nothing there.")
    if control_fails and status == "not checked":
        note = " " + " ".join(dict.fromkeys(d.note() for d in got.values() if d.note()))
    bias = (" Batch means (batch size √n) are biased low where the dependence reaches beyond a batch."
            if variant == "v_hat" else "")
    return Claim(
        **BASE, claim_id=claim_id,
        claim=f"{where}, with V estimated per query from the training set ({how}), Algorithm 1 (the DP calibration's "
              f"σ) answers ≥ {TARGET:.0%} of the candidate attribute queries in at least {TARGET:.0%} of the data "
              "sets at every n of the grid, as with V known, where the i.i.d. threshold fails. (How much is "
              "answered only: the answers' accuracy is in the table's max_error_units.)",
        expected=f"the share of data sets answering ≥ {TARGET:.0%}, with its {decisions.CONFIDENCE:.2%} "
                 f"Clopper–Pearson interval, ≥ {TARGET:.0%} at every n (holds), below it at some n (does not hold); "
                 f"the i.i.d. threshold's share below {TARGET:.0%} at every n (the control)",
        measured=f"V̂ per query: {per_n(variant)}. V known: {per_n('v_known')}. Control, i.i.d. T: {per_n('iid')}."
                 + bias + note,
        status=status, counterexample=per_n(variant) if status == "does not hold" else "",
        code=code_name(_answers))


def claims(table: pd.DataFrame) -> list[Claim]:
    """Per point: V estimated per query answers as V known (against the i.i.d. threshold, which must fail for the
    check to have power); the worst attribute's estimate removes the per-data-set tail; with the record order
    unknown the remedy fails."""
    out = []
    for _, sub in table.groupby("experiment", sort=False):
        structure, v = sub["structure"].iloc[0], float(sub["V"].max())
        tag, where = f"{structure}-v{v:.0f}", f"Under {structure.replace('_', ' ')} correlation at V ≈ {v:.3g}"
        grid = sorted(sub["n"].unique())

        def per_n(variant: str, what: str = "answered") -> str:
            return "; ".join(
                f"n = {n:,}: {r.answered_fraction:.0%} answered on average, {r.data_sets_answering_90_count}/"
                f"{r.replicates} data sets ≥ {TARGET:.0%} (interval {_interval(r)[0]:.2f}–{_interval(r)[1]:.2f}), "
                f"{r.data_sets_answering_under_20:.0%} < 20%" + (
                    f", V̂ {r.v_hat_mean:.2g} (largest {r.v_hat_max:.3g}) against V = {r.V:.3g}"
                    if variant.startswith("v_hat") else "")
                for n in grid for r in [_at(sub, n, variant)])

        control_fails = all(_answers(_at(sub, n, "iid")).state == decisions.FAILS for n in grid)
        for variant, how, suffix in (("v_hat", "batch means along the record order", "v-hat-answers"),
                                     ("v_hat_clusters", "the cluster-robust variance over the known households "
                                      "(Liang–Zeger, CR0)", "cluster-v-hat-answers")):
            if (sub["variant"] == variant).any():
                out.append(_answers_row(sub, grid, variant, how, f"{tag}-{suffix}", where, control_fails, per_n))
        tail = {n: _at(sub, n, "v_hat").data_sets_answering_under_20 for n in grid}
        tail_max = {n: _at(sub, n, "v_hat_max").data_sets_answering_under_20 for n in grid}
        removed = worst_case_removes_tail(sub, grid)
        reps = int(sub["replicates"].max())
        out.append(Claim(
            **BASE, claim_id=f"{tag}-worst-case-v-hat-removes-the-tail",
            claim=f"{where}, using the worst attribute's estimate max_j V̂_j for every query leaves fewer data sets "
                  "answering < 20% of the queries than V̂_j per query, on the same data sets.",
            expected="of the data sets where exactly one of the two answers < 20% (pooled over the n of the grid), "
                     f"the share where it is V̂ per query, with its {decisions.CONFIDENCE:.2%} Clopper–Pearson "
                     "interval, above ½ (holds); at or below ½ (does not hold)",
            measured="data sets answering < 20%: V̂ per query " + ", ".join(
                f"{tail[n]:.0%} at n = {n:,}" for n in grid) + "; max V̂ " + ", ".join(
                f"{tail_max[n]:.0%} at n = {n:,}" for n in grid) + f" ({reps} data sets per n); discordant: "
                     + ", ".join(f"{int(r.tail_v_hat_only)} with V̂ per query only and {int(r.tail_here_only)} with "
                                 f"max V̂ only at n = {n:,}" for n in grid for r in [_at(sub, n, "v_hat_max")])
                     + ". Worst attribute: " + per_n("v_hat_max")
                     + ". The price: its T is √(max V̂) times the i.i.d. one for every query (mean largest error "
                     + ", ".join(f"{_at(sub, n, 'v_hat_max').max_error_units:.2f} true SE at n = {n:,}" for n in grid)
                     + ")." + (" No data set answers < 20% with exactly one of the two: no tail to remove, "
                               "undecided." if removed.state == decisions.UNDECIDED and removed.low == removed.high == 0
                               else f" {removed.note()}" if removed.note() else ""),
            status=removed.status, counterexample="" if removed.state != decisions.FAILS else ", ".join(
                f"{tail_max[n]:.0%} at n = {n:,}" for n in grid),
            code=code_name(worst_case_removes_tail)))
        unknown = [_answers(_at(sub, n, "v_hat_order_unknown")) for n in grid]
        fails = all(d.state == decisions.FAILS for d in unknown)
        works = any(d.state == decisions.HOLDS for d in unknown)
        out.append(Claim(
            **BASE, claim_id=f"{tag}-v-hat-needs-the-record-order",
            claim=f"{where}, without the record order (records shuffled before estimating) V̂ ≈ 1 and Algorithm 1 "
                  f"answers < {TARGET:.0%} of the candidate attribute queries at every n, as with the i.i.d. "
                  "threshold: the remedy needs the dependence order.",
            expected=f"the share of data sets answering ≥ {TARGET:.0%}, with its Clopper–Pearson interval, below "
                     f"{TARGET:.0%} at every n (holds); at or above it at some n (does not hold)",
            measured=f"order unknown: {per_n('v_hat_order_unknown')}."
                     + "".join(dict.fromkeys(f" {d.note()}" for d in unknown if d.note())),
            status="holds" if fails else "does not hold" if works else "not checked",
            code=code_name(estimated_v_table)))
    return out


def headline(table: pd.DataFrame) -> str:
    """The figure's one verdict: at how many (point, n) V estimated per query answers in >= 90% of the data sets
    (:func:`_answers`, the claims' rule), against V known and the record order unknown."""
    def count(variant: str) -> tuple[int, int]:
        rows = table[table["variant"] == variant]
        return sum(_answers(r).state == decisions.HOLDS for r in rows.itertuples()), len(rows)

    (est, total), (known, _), (unknown, _) = count("v_hat"), count("v_known"), count("v_hat_order_unknown")
    v_hat = table[table["variant"] == "v_hat"].itertuples()
    undecided = sum(_answers(r).state == decisions.UNDECIDED for r in v_hat)
    return (f"T√V̂ per query: ≥ {TARGET:.0%} of data sets answer ≥ {TARGET:.0%} (exact interval) at {est} of {total} "
            "settings"
            + (f", {undecided} undecided" if undecided else "")
            + f";\nwith V known at {known}, with the record order unknown at {unknown}")



def figure(table: pd.DataFrame, spec):
    """A row per n, a column per structure: the share of data sets answering >= 90% of their queries (bars: the
    claims' exact interval; a ring where the per-query estimate's row does not hold) per threshold (y, one row
    each, in :data:`WORDS` order), ○ the weaker strength (V ≈ 8), ● the stronger (V ≈ 20), in the threshold's
    colour; dotted: 90% answered."""
    from matplotlib.lines import Line2D

    from adaptive_repro.outputs.zhao.common import structure_words
    from adaptive_repro.report.plotting import (
        COLORS,
        MAX_WIDTH,
        SIZES,
        legend_below,
        pyplot,
        ring,
        style,
        verdict_title,
    )
    from adaptive_repro.simulation.registries import CALIBRATIONS

    encodings = {"iid": style(CALIBRATIONS.get("dp", "")), "v_known": style(CALIBRATIONS.get("dp_effective_n", "")),
                 **{v: style(v) for v in ("v_hat", "v_hat_max", "v_hat_order_unknown", "v_hat_clusters")}}
    models = {model.name: model for _, model in spec.points}
    plt = pyplot()
    structures = list(dict.fromkeys(table["structure"]))
    grid = sorted(table["n"].unique())
    fig, axes = plt.subplots(len(grid), len(structures), figsize=(MAX_WIDTH, 1.6 + 2.0 * len(grid)), sharex=True,
                             sharey=True, squeeze=False)
    variants = [v for v in WORDS if (table["variant"] == v).any()]
    for i, n in enumerate(grid):
        for j, structure in enumerate(structures):
            ax = axes[i][j]
            sub = table[(table["structure"] == structure) & (table["n"] == n)]
            strengths = sorted(sub["experiment"].unique(), key=lambda e: sub.loc[sub["experiment"] == e, "V"].iloc[0])
            for s_index, point in enumerate(strengths):
                for y, variant in enumerate(variants):
                    rows = sub[(sub["experiment"] == point) & (sub["variant"] == variant)]
                    if rows.empty:  # a threshold this structure has no estimate for (clusters unknown): said
                        if s_index == 0:
                            ax.text(0.5, y, "no known clusters", ha="center", va="center", color="#777777",
                                    fontsize=SIZES["tick"], style="italic")
                        continue
                    r = rows.iloc[0]
                    enc = encodings[variant]
                    offset = 0.2 if s_index else -0.2  # the two strengths one above the other in the row
                    share = r.data_sets_answering_90
                    low, high = _interval(r)  # the claims' exact interval
                    ax.errorbar(share, y + offset, ls="", ms=5.5, mew=1.2,
                                xerr=[[share - low], [high - share]],
                                mfc=enc["color"] if s_index else "white", mec=enc["color"], ecolor=enc["color"],
                                color=enc["color"], marker=enc["marker"], gid=enc["gid"])
                    if variant == "v_hat" and _answers(r).state == decisions.FAILS:  # the claims' rule: ringed
                        ring(ax, share, y + offset, label="claim does not hold here")  # (the title counts the rest)
            ax.axvline(TARGET, color=COLORS["reference"], lw=1.0, ls=":")
            ax.set_yticks(range(len(variants)), [WORDS[v] for v in variants])  # shared: shown on the first column
            ax.set_ylim(len(variants) - 0.5, -0.5)
            ax.set_xlim(-0.03, 1.05)
            if i == 0:
                ax.set_title(structure_words(models[structure]).split(":")[0], fontsize=SIZES["tick"])
            if i == len(grid) - 1:
                ax.set_xlabel("share of data sets")
            if j == len(structures) - 1:
                ax.yaxis.set_label_position("right")
                ax.set_ylabel(f"n = {n:,}", fontsize=SIZES["tick"])
    setting = (f"Algorithm 1, the DP calibration's σ (ε = {spec.alg1.session_epsilon:g}, B = {spec.alg1.budget}), "
               f"d = {spec.d}, null labels, {spec.replicates} replicates; "
               f"bars: exact {decisions.CONFIDENCE:.2%}")
    verdict_title(fig, headline(table), setting)
    grey = COLORS["reference"]
    handles = [Line2D([], [], ls="", marker="o", mfc="white", mec=grey, ms=5.5, label="weaker strength (V ≈ 8), upper"),
               Line2D([], [], ls="", marker="o", mfc=grey, mec=grey, ms=5.5, label="stronger (V ≈ 20), lower"),
               Line2D([], [], ls=":", color=grey, label=f"{TARGET:.0%} of data sets")]
    legend_below(fig, handles=handles, labels=[h.get_label() for h in handles], ncol=3)
    return fig


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-estimated-v from its records."""
    (spec,) = inputs["specs"].values()
    table = estimated_v_table(inputs["records"])
    return table, figure(table, spec), claims(table)
