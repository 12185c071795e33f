"""Thresholdout as the Dwork et al. 2015 supplementary script implements it (docs/METHODS.md §3 step 4): Gaussian
noise, no budget, no randomized threshold. (The papers' text describes a Laplace-and-budget variant; Zhao's
Algorithm 1 is that one, :mod:`adaptive_repro.simulation.mechanisms.algorithm1`.)"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from adaptive_repro.simulation.analysts import DWORK_ANALYST, Analyst
from adaptive_repro.simulation.arm import Arm
from adaptive_repro.simulation.mechanisms.base import ArmSetting, HoldoutMechanism


@dataclasses.dataclass
class DworkCodeThresholdout(HoldoutMechanism):
    """Thresholdout of the Dwork et al. 2015 script, fresh noise on every query.

    Statistics: if |w_train - w_hold| > T + N(0, tau^2) report w_hold + N(0, tau^2), else w_train.
    Accuracy:   if |acc_train - acc_hold| < T + N(0, tau^2) report acc_train, else acc_hold + N(0, tau^2).
    With T = threshold_scale/sqrt(n), tau = noise_scale/sqrt(n) (0.04 and 0.01 at n = 10,000; the arm's parameters).
    """

    rng: np.random.Generator
    threshold: float
    noise_sd: float

    def answer_statistics(self, train: np.ndarray, holdout: np.ndarray) -> np.ndarray:
        d = len(train)
        over = np.abs(train - holdout) > self.threshold + self.rng.normal(0.0, self.noise_sd, d)
        noisy_holdout = holdout + self.rng.normal(0.0, self.noise_sd, d)
        return np.where(over, noisy_holdout, train)

    def answer_accuracy(self, acc_train: float, acc_holdout: float) -> float:
        if abs(acc_train - acc_holdout) < self.threshold + self.rng.normal(0.0, self.noise_sd):
            return acc_train
        return acc_holdout + self.rng.normal(0.0, self.noise_sd)


@dataclasses.dataclass(frozen=True)
class ThresholdoutArm(Arm):
    name: str = "dwork_code"
    display_name: str = "Thresholdout (Dwork et al. 2015 script)"
    detail: str = ""
    color: str = "#1A9988"  # teal: no hue near the standard vermillion or the Algorithm 1 arms' pinks and blues
    marker: str = "s"
    analyst: Analyst = DWORK_ANALYST
    PARAMETERS: ClassVar[dict[str, dict]] = {
        "threshold_scale": {"type": "number", "exclusiveMinimum": 0, "default": 4.0,
                            "description": "threshold T = threshold_scale / sqrt(n) (the script's 0.04 at n = 10,000)"},
        "noise_scale": {"type": "number", "exclusiveMinimum": 0, "default": 1.0,
                        "description": "Gaussian noise SD tau = noise_scale / sqrt(n) (the script's 0.01)"},
    }
    threshold_scale: float = PARAMETERS["threshold_scale"]["default"]
    noise_scale: float = PARAMETERS["noise_scale"]["default"]

    def create(self, rng: np.random.Generator, spec, setting: ArmSetting) -> DworkCodeThresholdout:
        return DworkCodeThresholdout(rng, threshold=self.tolerance(spec, setting), noise_sd=self.noise_sd(spec))

    def tolerance(self, spec, setting: ArmSetting | None = None) -> float:
        """Thresholdout's T = threshold_scale/sqrt(n), as on the Dwork figures (also the claims' tolerance)."""
        return self.threshold_scale / np.sqrt(spec.n)

    def noise_sd(self, spec) -> float:
        """The Gaussian noise SD noise_scale/sqrt(n)."""
        return self.noise_scale / np.sqrt(spec.n)
