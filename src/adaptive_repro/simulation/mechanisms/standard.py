"""The standard holdout: the holdout reused as is (the naive reuse every paper starts from)."""

from __future__ import annotations

import dataclasses

import numpy as np

from adaptive_repro.simulation.analysts import DWORK_ANALYST, Analyst
from adaptive_repro.simulation.arm import Arm
from adaptive_repro.simulation.mechanisms.base import ArmSetting, HoldoutMechanism


@dataclasses.dataclass
class StandardHoldout(HoldoutMechanism):
    """Every query is answered with the holdout's exact value."""

    rng: np.random.Generator

    def answer_statistics(self, train: np.ndarray, holdout: np.ndarray) -> np.ndarray:
        return holdout

    def answer_accuracy(self, acc_train: float, acc_holdout: float) -> float:
        return acc_holdout


@dataclasses.dataclass(frozen=True)
class StandardArm(Arm):
    name: str = "standard"
    display_name: str = "Standard holdout"
    detail: str = "(reused as is)"
    color: str = "#D55E00"  # Okabe-Ito vermillion
    marker: str = "o"
    analyst: Analyst = DWORK_ANALYST

    @property
    def claim_name(self) -> str:
        return f"{self.display_name} {self.detail}"

    def create(self, rng: np.random.Generator, spec, setting: ArmSetting) -> StandardHoldout:
        return StandardHoldout(rng)
