"""Figures of the classifier experiments, drawn like Dwork et al. 2015 Figs. 1-2 (mean curves, +-SD bands)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

CURVES = (  # dataset, label, colour, line style
    ("train", "training", "tab:blue", "-"),
    ("holdout", "holdout (reported)", "tab:green", "-"),
    ("fresh", "fresh", "tab:red", "-"),
    ("population", "population (exact)", "black", ":"),
)

MECHANISM_TITLES = {
    "standard": "Standard holdout",
    "dwork_code": "Thresholdout (Dwork 2015 script)",
    "zhao_alg1": "Zhao Algorithm 1",
}


def accuracy_panels(table: pd.DataFrame, title: str, subtitle: str, ylim=None):
    """One panel per mechanism arm: mean accuracy vs k with +-SD bands for train / holdout / fresh.

    ``table`` is :func:`adaptive_repro.stats.summarize` output for one experiment; arms are the distinct
    values of its ``arm`` column if present, else of ``mechanism``.
    """
    arm_col = "arm" if "arm" in table.columns else "mechanism"
    if ylim is None:  # the Dwork2015 range 0.45-0.75, widened to show every band
        shown = table[table["dataset"] != "population"]
        ylim = (min(0.45, float((shown["mean"] - shown["sd"]).min()) - 0.02),
                max(0.75, float((shown["mean"] + shown["sd"]).max()) + 0.02))
    order = list(MECHANISM_TITLES) + ["zhao_alg1_dp", "zhao_alg1_bdp", "zhao_alg1_theorem2"]
    arms = sorted(dict.fromkeys(table[arm_col]), key=lambda a: order.index(a) if a in order else len(order))
    fig, axes = plt.subplots(1, len(arms), figsize=(5.2 * len(arms), 4.2), sharey=True, squeeze=False)
    for ax, arm in zip(axes[0], arms):
        sub = table[table[arm_col] == arm]
        for dataset, label, colour, style in CURVES:
            cur = sub[sub["dataset"] == dataset].sort_values("k")
            if cur.empty:
                continue
            ax.plot(cur["k"], cur["mean"], style, color=colour, label=label, lw=1.8)
            if dataset != "population":
                ax.fill_between(cur["k"], cur["mean"] - cur["sd"], cur["mean"] + cur["sd"], color=colour, alpha=0.15)
        ax.set_title(MECHANISM_TITLES.get(arm, arm))
        ax.set_xlabel("number of selected variables k")
        ax.grid(alpha=0.3)
        ax.set_ylim(*ylim)
    axes[0][0].set_ylabel("accuracy (mean ± SD over replicates)")
    axes[0][-1].legend(loc="upper left", fontsize=8)
    fig.suptitle(f"{title}\n{subtitle}", fontsize=10)
    fig.tight_layout()
    return fig
