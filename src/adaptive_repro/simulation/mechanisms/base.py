"""The contract of a holdout mechanism (docs/ARCHITECTURE.md, "How to add a mechanism").

A :class:`HoldoutMechanism` answers one replicate's queries; the arm that creates it and names it in the config
(:class:`adaptive_repro.simulation.arm.Arm`) sits above the mechanisms, analysts and calibrations it combines.
"""

from __future__ import annotations

import abc
import dataclasses

import numpy as np

#: A budgeted mechanism's answer once its budget is spent ("bottom"); the analyst reads it as "not validated".
BOTTOM = np.nan


class HoldoutMechanism(abc.ABC):
    """Answers one replicate's queries to the holdout, in the order the analyst asks them.

    Contract: created once per (replicate, arm) with its own random stream; ``answer_accuracy`` gets one
    classifier's training and holdout accuracy and returns the reported value (what it estimates is the arm's
    ``REPORTS``; :data:`BOTTOM` where the mechanism refuses); ``answer_statistics``, optional (the arm's
    ``ANSWERS_STATISTICS``), does the same for a batch of per-attribute queries (training values, holdout values),
    answered in order, one answer per query. ``over_events`` counts the budget spent so far and ``bottoms`` the
    refused queries (both 0 for unbudgeted mechanisms).
    """

    over_events: int = 0
    bottoms: int = 0

    def prepare(self, train) -> None:
        """Called once per replicate with the training data set (an engine's ``Dataset``) before any query. A
        mechanism that sets itself from the training set, which holdout reuse does not protect (a threshold for n/V
        with V estimated), reads it here; by default nothing."""

    def answer_statistics(self, train: np.ndarray, holdout: np.ndarray) -> np.ndarray:
        """Answers to a batch of per-attribute queries (training values, holdout values). Optional: a mechanism that
        answers accuracy queries only (a leaderboard) leaves it, and its arm declares ``ANSWERS_STATISTICS = False``
        (then only an analyst that does not ask statistics may face it, checked when the arm is made)."""
        raise NotImplementedError(f"{type(self).__name__} answers accuracy queries only (no per-attribute answers)")

    @abc.abstractmethod
    def answer_accuracy(self, acc_train: float, acc_holdout: float) -> float:
        """Answer to one accuracy query."""

    def session_diagnostics(self) -> dict:
        """The mechanism's own values of this session for its diagnostics row (keys: columns of
        ``experiments.DIAGNOSTIC_COLUMNS``), e.g. a threshold it set from the training set; by default none."""
        return {}


@dataclasses.dataclass(frozen=True)
class ArmSetting:
    """How an arm is set up for one experiment (computed once per experiment, deterministic). ``feasible`` False
    means no setting meets the arm's target: the arm is not run (the theory table says why, in ``note``)."""

    feasible: bool = True
    note: str = ""


def clamp_unit(answers: np.ndarray) -> np.ndarray:
    """Post-processing of answers to statistical queries: clamp to [0, 1], the queries' range (a Laplace answer
    Q(X) + Lap(sigma_2) can leave it). Post-processing costs no privacy; bottom (NaN) stays NaN."""
    return np.clip(np.asarray(answers, dtype=float), 0.0, 1.0)
