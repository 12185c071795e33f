"""The remedy a practitioner would try first on correlated records: keep the mechanism, but set its threshold (and
noise) for the effective sample size n / V, where V is the sign query's variance inflation under the data model
(docs/METHODS.md §4b). V is *known* to the mechanism here: it is the data model's expected V at a null attribute
(``DataModel.expected_inflation``), an oracle no analyst has; an estimate from the training set could only do worse.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from adaptive_repro.simulation.analysts import DWORK_ANALYST, Analyst
from adaptive_repro.simulation.arm import Arm
from adaptive_repro.simulation.mechanisms.base import ArmSetting
from adaptive_repro.simulation.mechanisms.thresholdout import DworkCodeThresholdout, ThresholdoutArm


@dataclasses.dataclass(frozen=True)
class ThresholdoutEffectiveNArm(Arm):
    """Thresholdout (the Dwork et al. script's) with T = threshold_scale sqrt(V/n) and noise SD noise_scale sqrt(V/n):
    the i.i.d. constants at the effective sample size n / V."""

    name: str = "thresholdout_effective_n"
    display_name: str = "Thresholdout for n/V"
    detail: str = "(threshold and noise at the effective n, V known)"
    color: str = "#33BBEE"  # Paul Tol cyan: no hue near the standard holdout's vermillion (the Bayesian-DP blue is
    # never in its row of zhao-correlation)
    marker: str = "D"
    analyst: Analyst = DWORK_ANALYST
    PARAMETERS: ClassVar[dict[str, dict]] = ThresholdoutArm.PARAMETERS  # the same constants, at n / V
    threshold_scale: float = PARAMETERS["threshold_scale"]["default"]
    noise_scale: float = PARAMETERS["noise_scale"]["default"]

    def needs(self) -> frozenset[str]:
        return frozenset({"known_inflation"})

    def scale(self, spec) -> float:
        """sqrt(V / n) with V = the data model's expected V at n records."""
        return float(np.sqrt(spec.model.expected_inflation(spec.n) / spec.n))

    def create(self, rng, spec, setting: ArmSetting) -> DworkCodeThresholdout:
        return DworkCodeThresholdout(rng, threshold=self.threshold_scale * self.scale(spec),
                                     noise_sd=self.noise_scale * self.scale(spec))

    def tolerance(self, spec, setting: ArmSetting | None = None) -> float:
        return self.threshold_scale * self.scale(spec)
