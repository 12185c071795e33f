"""The Dwork2015 builder on small synthetic record tables: the contract, the table's numbers, and verdicts that follow
the records (an overfitting standard arm, a Thresholdout arm that tracks fresh data)."""
import numpy as np
import pandas as pd
import pytest

from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.validation import experiment_spec

N, K_GRID, REPLICATES = 10_000, (0, 10, 50), 40


def records(standard_gap: float, thresholdout_gap: float, seed: int = 0) -> pd.DataFrame:
    """Per-replicate accuracies: fresh ~ 0.5, holdout = fresh + gap (+ noise), train above both."""
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(REPLICATES):
        for mech, gap in (("standard", standard_gap), ("dwork_code", thresholdout_gap)):
            for k in K_GRID:
                fresh = 0.5 if k == 0 else 0.5 + rng.normal(0, 0.005)
                values = {"train": 0.5 if k == 0 else 0.6, "holdout": 0.5 if k == 0 else fresh + gap * k / 50
                          + rng.normal(0, 0.002), "fresh": fresh, "population": 0.5}
                for dataset, acc in values.items():
                    rows.append(("dwork-null", rep, mech, "fast", k, k, 60, dataset, acc))
    return pd.DataFrame(rows, columns=["experiment", "replicate", "mechanism", "engine", "k", "n_selected", "n_kept",
                                       "dataset", "accuracy"])


def build(frame):
    spec = experiment_spec("dwork-null", dict(n=N, d=N, replicates=REPLICATES, k_grid=list(K_GRID),
                                              mechanisms=["standard", "dwork_code"]))
    return catalogue.build("dwork-null", {"seed": 1}, {"records": frame, "diagnostics": pd.DataFrame(),
                                                       "specs": {"dwork-null": spec}})


def test_table_is_the_mean_sd_and_se_of_the_records():
    frame = records(0.1, 0.0)
    table, fig, claims = build(frame)
    row = table[(table.mechanism == "standard") & (table.k == 50) & (table.dataset == "holdout")].iloc[0]
    values = frame[(frame.mechanism == "standard") & (frame.k == 50) & (frame.dataset == "holdout")]["accuracy"]
    assert np.isclose(row["mean"], values.mean()) and np.isclose(row["sd"], values.std(ddof=0))
    assert np.isclose(row["se"], values.std(ddof=0) / np.sqrt(REPLICATES)) and row["n"] == N
    assert len(fig.axes) >= 2


@pytest.mark.slow
def test_verdicts_follow_the_records():
    _, _, claims = build(records(standard_gap=0.1, thresholdout_gap=0.0))
    status = {c.claim_id: c.status for c in claims}
    assert status["standard-overfits"] == "reproduced" and status["thresholdout-tracks-fresh"] == "reproduced"
    # the holdout below fresh (decided: no overfitting); Thresholdout off by 0.2
    _, _, claims = build(records(standard_gap=-0.05, thresholdout_gap=0.2))
    status = {c.claim_id: c.status for c in claims}
    assert status["standard-overfits"] == "differs" and status["thresholdout-tracks-fresh"] == "differs"
    # no gap at all: "overfits" (gap > 0) is neither shown nor refuted, with one margin (0) both ways
    _, _, claims = build(records(standard_gap=0.0, thresholdout_gap=0.2))
    row = next(c for c in claims if c.claim_id == "standard-overfits")
    assert row.status == "not checked" and "Undecided" in row.measured
    _, _, claims = build(records(standard_gap=0.0, thresholdout_gap=0.0))  # both within T: no power
    row = next(c for c in claims if c.claim_id == "thresholdout-tracks-fresh")
    assert row.status == "not checked" and "no power" in row.measured
    assert all(c.kind in ("paper", "project") and c.code for c in claims)
    assert all(c.quote for c in claims if c.kind == "paper")


def test_figure_shows_the_gap_the_claims_test_with_its_95_percent_band():
    """Below the paper's mean ± SD panels, holdout − fresh per replicate: its mean (computed here from the records,
    paired by replicate) and Thresholdout's tolerance T = 4/√n."""
    frame = records(standard_gap=0.1, thresholdout_gap=0.0)
    _, fig, _ = build(frame)
    gap_axes = [ax for ax in fig.axes if ax.get_ylabel().startswith("holdout − fresh")]
    assert len(gap_axes) == 1  # labelled once, on the first column
    row = fig.axes[len(fig.axes) // 2:]  # second row: one gap panel per mechanism (standard, then Thresholdout)
    wide = frame[(frame.mechanism == "standard") & (frame.k == 50)].pivot(index="replicate", columns="dataset",
                                                                          values="accuracy")
    expected = (wide["holdout"] - wide["fresh"]).mean()
    mean_line = next(line for line in row[0].lines if line.get_label().startswith("holdout − fresh"))
    assert np.isclose(mean_line.get_ydata()[-1], expected)
    tolerance = [line for line in row[1].lines if "threshold T" in line.get_label()]
    assert len(tolerance) == 1 and np.isclose(tolerance[0].get_ydata()[0], 4 / np.sqrt(N))
    assert not any("threshold T" in line.get_label() for line in row[0].lines)  # the standard holdout has none


@pytest.mark.slow
def test_verdict_title_follows_the_claims():
    _, fig, _ = build(records(standard_gap=0.1, thresholdout_gap=0.0))
    assert fig.get_suptitle().startswith("The reused holdout overfits; Thresholdout tracks fresh data\n")
    _, fig, _ = build(records(standard_gap=0.0, thresholdout_gap=0.2))
    title = fig.get_suptitle()
    assert title.startswith("The reused holdout does not measurably overfit; Thresholdout strays from fresh data")
    rings = [c for c in fig.axes[3].collections if c.get_gid() == "encoding:violation"]
    assert len(rings) == 1  # Thresholdout's gap panel: the k where it leaves its threshold
