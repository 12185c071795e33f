"""The arm contract's two open points closed (simulation/arm.py): what an accuracy answer estimates (``REPORTS``) and
per-attribute answers as an optional capability (``ANSWERS_STATISTICS``). A leaderboard-style arm written to the
contract (it reports the best holdout accuracy so far, rounded to a step, and answers nothing per attribute) runs
through an experiment without choosing any rule the contract leaves open."""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pytest

from adaptive_repro.simulation import experiments
from adaptive_repro.simulation.analysts import DWORK_ANALYST, TRAINING_ONLY_ANALYST, Analyst
from adaptive_repro.simulation.arm import BEST_SO_FAR, Arm
from adaptive_repro.simulation.mechanisms.base import HoldoutMechanism
from adaptive_repro.simulation.registries import ARMS

STEP = 0.01


@dataclasses.dataclass
class RoundedLeaderboard(HoldoutMechanism):
    """Reports the best holdout accuracy so far, moved only when a classifier beats it by more than the step, then
    rounded to a multiple of the step (a throw-away leaderboard in the Ladder's style)."""

    step: float
    best: float = -np.inf

    def answer_accuracy(self, acc_train, acc_holdout):
        if acc_holdout > self.best + self.step:
            self.best = round(acc_holdout / self.step) * self.step
        return self.best


@dataclasses.dataclass(frozen=True)
class LeaderboardArm(Arm):
    REPORTS: ClassVar[str] = BEST_SO_FAR
    ANSWERS_STATISTICS: ClassVar[bool] = False
    name: str = "rounded_leaderboard"
    display_name: str = "Rounded leaderboard"
    detail: str = "(best so far, step 0.01)"
    color: str = "#44AA99"
    marker: str = "8"
    analyst: Analyst = TRAINING_ONLY_ANALYST

    def create(self, rng, spec, setting):
        return RoundedLeaderboard(STEP)


@pytest.fixture
def leaderboard():
    ARMS.register(LeaderboardArm())  # the one registration line
    yield ARMS.get("rounded_leaderboard")
    ARMS.unregister("rounded_leaderboard")


def test_a_leaderboard_arm_runs_and_its_references_are_what_it_reports(leaderboard):
    from adaptive_repro.pipeline import validation

    spec = validation.experiment_spec("dwork-null", dict(n=500, d=200, replicates=3, k_grid=[0, 5, 10, 20, 40],
                                                         mechanisms=["standard", "rounded_leaderboard"]))
    records = experiments.run_replicates(spec, 7, range(3))
    mine = records[records["mechanism"] == "rounded_leaderboard"]
    standard = records[records["mechanism"] == "standard"]
    for replicate, one in mine.groupby("replicate"):
        by = {name: g.sort_values("k")["accuracy"].to_numpy() for name, g in one.groupby("dataset")}
        asked = by["holdout"][1:]  # k = 0 is the empty classifier, never asked
        assert np.all(np.diff(asked) >= 0), "a leaderboard's reports never go down"
        np.testing.assert_allclose(asked / STEP, np.round(asked / STEP), atol=1e-9)  # multiples of the step
        for name in ("train", "fresh", "population"):  # the references: the best so far of each data set
            assert np.all(np.diff(by[name][1:]) >= 0), name
        # the analyst kept every attribute whose training statistic passes the cut, whatever the holdout says: at
        # least as many as the standard holdout's analyst, who also needs the holdout to agree
        theirs = standard[standard["replicate"] == replicate]
        assert one["n_kept"].iloc[0] >= theirs["n_kept"].iloc[0]


def test_an_accuracy_only_arm_facing_an_analyst_that_asks_statistics_is_refused():
    with pytest.raises(TypeError, match="answers no per-attribute statistics but its analyst 'dwork' asks them"):
        dataclasses.replace(LeaderboardArm(), analyst=DWORK_ANALYST)
    with pytest.raises(NotImplementedError, match="accuracy queries only"):
        RoundedLeaderboard(STEP).answer_statistics(np.zeros(2), np.zeros(2))


def test_an_arm_reporting_the_classifier_accuracy_keeps_its_records_as_measured():
    standard = ARMS.get("standard")
    values = {"holdout": np.array([0.5, 0.46, 0.7, 0.6]), "fresh": np.array([0.5, 0.45, 0.6, 0.55])}
    sizes = np.array([0, 5, 10, 20])  # k = 0: the empty classifier, never asked, not part of the best so far
    assert standard.estimated_values(values, sizes) is values
    best = LeaderboardArm().estimated_values(values, sizes)
    np.testing.assert_array_equal(best["fresh"], [0.5, 0.45, 0.6, 0.6])
    np.testing.assert_array_equal(best["holdout"], values["holdout"])
