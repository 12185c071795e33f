"""The remedy a practitioner would try first on correlated records: keep the mechanism, but set its threshold (and
noise) for the effective sample size n / V, where V is the sign query's variance inflation under the data model
(docs/METHODS.md §4b). V is *known* to the mechanism here: it is the data model's expected V at a null attribute
(``DataModel.expected_inflation``), an oracle no analyst has; an estimate from the training set could only do worse.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from adaptive_repro.simulation.mechanisms.base import ArmSetting
from adaptive_repro.simulation.mechanisms.thresholdout import ThresholdoutArm


@dataclasses.dataclass(frozen=True)
class ThresholdoutEffectiveNArm(ThresholdoutArm):
    """Thresholdout (the Dwork et al. script's) with T = threshold_scale sqrt(V/n) and noise SD noise_scale sqrt(V/n):
    the i.i.d. constants (the same ``PARAMETERS``, set in its own ``arms`` block) at the effective sample size n / V."""

    name: str = "thresholdout_effective_n"
    display_name: str = "Thresholdout for n/V (V known)"
    detail: str = "(threshold and noise at the effective n, V known)"
    color: str = "#0B5345"  # dark teal: the dark partner of Thresholdout's teal (every n/V arm is its parent's dark
    # partner)
    marker: str = "D"

    def needs(self) -> frozenset[str]:
        return frozenset({"known_inflation"})

    def scale(self, spec) -> float:
        """sqrt(V / n) with V = the data model's expected V at n records."""
        return float(np.sqrt(spec.model.expected_inflation(spec.n) / spec.n))

    def tolerance(self, spec, setting: ArmSetting | None = None) -> float:
        return self.threshold_scale * self.scale(spec)

    def noise_sd(self, spec) -> float:
        return self.noise_scale * self.scale(spec)
