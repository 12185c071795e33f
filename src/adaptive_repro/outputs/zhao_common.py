"""Shared pieces of the Zhao experiment outputs: theory alongside, arm titles, the answered-fraction table and the
accuracy panels (with sampling-SE units, the answered fraction and a note on panels whose answers are all bottom).

Zhao 2017 §4 only says that labels are random, attributes are correlated with the label and among themselves, and
records are correlated; the "chain" data model is this project's design (docs/METHODS.md §4).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from adaptive_repro import privacy  # noqa: E402
from adaptive_repro.simulation import zhao_calibration  # noqa: E402
from adaptive_repro.stats import summarize  # noqa: E402

MODEL_NOTE = "data model 'chain' (this project's design, docs/METHODS.md §4)"
#: Zhao 2017, captions of Figs. 2 and 3 and the experiment section (verbatim).
QUOTE_FIG2 = "Reusing a holdout dataset in the common way can lead to overfitting."
QUOTE_FIG3 = "Overfitting of reusing a holdout dataset is prevented in our Bayesian differential privacy-based approach."
QUOTE_SECTION = ("Figures 2 and 3 illustrate that reusing a holdout dataset in the common way can lead to overfitting, "
                 "and that overfitting is prevented by our approach based on Bayesian differential privacy (BDP).")
ARM_ORDER = ("standard", "dwork_code", "zhao_alg1_dp", "zhao_alg1_bdp", "zhao_alg1_theorem2")


def arm_title(arm: str, eps: float | None = None) -> str:
    """A panel title in words."""
    e = "" if eps is None else f" ε = {eps:g}"
    return {"standard": "Standard holdout (reused as is)",
            "dwork_code": "Thresholdout (Dwork et al. 2015 script)",
            "zhao_alg1_dp": f"Algorithm 1, DP calibration{e}\n(as if records were independent)",
            "zhao_alg1_bdp": f"Algorithm 1, Bayesian-DP calibration{e}\n(Lemma 2 on the records' chain)",
            "zhao_alg1_theorem2": "Algorithm 1, Theorem 2's σ and T"}.get(arm, arm)


def ordered_arms(arms) -> list[str]:
    arms = list(dict.fromkeys(arms))
    return sorted(arms, key=lambda a: ARM_ORDER.index(a) if a in ARM_ORDER else len(ARM_ORDER))


def theory_table(spec) -> pd.DataFrame:
    """Theory alongside (docs/METHODS.md §4) for every Algorithm 1 arm, one row per arm, plus the session's eps, the
    DP level the arm's sigma gives (eps*) and the BDP level Lemma 2 certifies for it (privacy.bdp_level_for_dp)."""
    rows = []
    for cal in spec.alg1_calibrations().values():
        row = zhao_calibration.theory_alongside(cal, spec.n, spec.d, spec.k_grid, spec.p_s, spec.p_y,
                                                spec.alg1_block)
        row["eps_session"] = zhao_calibration.alg1_settings(spec.alg1_block)["epsilon"]
        row["certified_bdp"] = (privacy.bdp_level_for_dp(float(row["eps_star"]), spec.n, spec.p_s, spec.p_y, "lemma2")
                                if cal.feasible else np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def model_subtitle(spec, replicates: int) -> str:
    return (f"n = {spec.n:,}, d = {spec.d:,}, {replicates} replicates, stay probabilities p_s = {spec.p_s:g}, "
            f"p_y = {spec.p_y:g}, batch SD b = {spec.b:g}, {spec.signal_attributes} signal attributes, "
            f"{'sign' if spec.query == 'sign' else 'mean'} queries; {MODEL_NOTE}")


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


def alg1_label(row) -> str:
    """Certified levels of one Algorithm 1 arm, for its panel."""
    return (f"σ = {row.sigma:.3g}, T = {row.threshold:.3g}, B = {row.budget}\n"
            f"DP level ε* = {row.eps_star:.3g} ⇒ certified BDP (Lemma 2) = {row.certified_bdp:.3g}")


def accuracy_panels(table: pd.DataFrame, spec, title: str, subtitle: str, theory: pd.DataFrame | None = None):
    """One column per arm: accuracy vs k (train, holdout as reported, fresh, exact population; mean ± SD) with a
    right axis in sampling-SE units 2 sqrt(n)(acc - 1/2), and under it the fraction of accuracy queries answered
    and the budget used. A panel whose holdout answers are all bottom says so."""
    arms = ordered_arms(table["mechanism"])
    n = spec.n
    eps = zhao_calibration.alg1_settings(spec.alg1_block)["epsilon"]
    shown = table[table["dataset"] != "population"]
    lo = float((shown["mean"] - shown["sd"].fillna(0)).min())
    hi = float((shown["mean"] + shown["sd"].fillna(0)).max())
    lo, hi = lo - 0.08 * (hi - lo), hi + 0.08 * (hi - lo)  # data-driven: at large n the curves are close to 1/2
    fig, axes = plt.subplots(2, len(arms), figsize=(4.6 * len(arms), 5.6), sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1]})
    curves = (("train", "training", "tab:blue", "-"), ("holdout", "holdout (as reported)", "tab:green", "-"),
              ("fresh", "fresh data", "tab:red", "-"), ("population", "population (exact)", "black", ":"))
    theory = theory if theory is not None else pd.DataFrame()
    for j, arm in enumerate(arms):
        ax, axb = axes[0][j], axes[1][j]
        sub = table[table["mechanism"] == arm]
        for dataset, label, colour, style in curves:
            cur = sub[sub["dataset"] == dataset].sort_values("k")
            ax.plot(cur["k"], cur["mean"], style, color=colour, label=label, lw=1.8, marker="." if dataset == "holdout" else None)
            if dataset != "population":
                ax.fill_between(cur["k"], cur["mean"] - cur["sd"], cur["mean"] + cur["sd"], color=colour, alpha=0.15)
        hold = sub[(sub["dataset"] == "holdout") & (sub["k"] > 0)]
        title_text = arm_title(arm, eps if arm in ("zhao_alg1_dp", "zhao_alg1_bdp") else None)
        if arm in set(theory.get("arm", [])):
            title_text += "\n" + alg1_label(theory[theory["arm"] == arm].iloc[0])
        ax.set_title(title_text, fontsize=8)
        if len(hold) and hold["mean"].isna().all():
            ax.text(0.5, 0.5, "all accuracy answers ⊥\n(budget spent on attribute queries)", transform=ax.transAxes,
                    ha="center", va="center", fontsize=10, color="tab:green",
                    bbox={"facecolor": "white", "edgecolor": "tab:green"})
        ax.set_ylim(lo, hi)
        ax.grid(alpha=0.3)
        sec = ax.secondary_yaxis("right", functions=(lambda a: 2 * np.sqrt(n) * (a - 0.5),
                                                     lambda z: 0.5 + z / (2 * np.sqrt(n))))
        if j == len(arms) - 1:
            sec.set_ylabel("2√n (accuracy − ½)  [sampling SE units]", fontsize=8)
        cur = sub[(sub["dataset"] == "holdout") & (sub["k"] > 0)].sort_values("k")  # k = 0 is never asked
        axb.plot(cur["k"], cur["answered"], "o-", color="tab:green", label="accuracy queries answered (not ⊥)")
        if arm.startswith("zhao_alg1_"):
            budget = theory[theory["arm"] == arm]["budget"].iloc[0] if arm in set(theory.get("arm", [])) else np.nan
            axb.plot(cur["k"], cur["budget_used"] / budget, "s--", color="tab:purple", ms=3,
                     label="budget used / B")
        axb.set_ylim(-0.05, 1.1)
        axb.grid(alpha=0.3)
        axb.set_xlabel("number of selected variables k")
    axes[0][0].set_ylabel("accuracy (mean ± SD)")
    axes[1][0].set_ylabel("fraction")
    handles, labels = axes[0][0].get_legend_handles_labels()
    hb, lb = axes[1][-1].get_legend_handles_labels()
    fig.legend(handles + hb, labels + lb, loc="lower center", ncol=6, fontsize=8, bbox_to_anchor=(0.5, -0.01))
    fig.suptitle(f"{title}\n{subtitle}", fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig
