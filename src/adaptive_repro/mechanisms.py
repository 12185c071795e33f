"""Holdout mechanisms: how the analyst's queries to the holdout are answered.

- ``standard``: the holdout reused as is.
- ``dwork_code``: Thresholdout as the Dwork et al. 2015 supplementary script implements it (SPEC section 3 step 4):
  Gaussian noise, no budget, no randomized threshold. (The papers' text describes a Laplace-and-budget variant;
  Zhao's Algorithm 1 is that one, see ``zhao_alg1``.)

A mechanism is created once per (replicate, arm) with its own random stream and answers, in order, first the
per-attribute statistics and then one accuracy query per k.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass
class StandardHoldout:
    """The naive reuse: every query is answered with the holdout's exact value."""

    rng: np.random.Generator
    name: str = "standard"

    def answer_statistics(self, w_train: np.ndarray, w_holdout: np.ndarray) -> np.ndarray:
        return w_holdout

    def answer_accuracy(self, acc_train: float, acc_holdout: float) -> float:
        return acc_holdout


@dataclasses.dataclass
class DworkCodeThresholdout:
    """Thresholdout of the Dwork et al. 2015 script (SPEC section 3 step 4), fresh noise on every query.

    Statistics: if |w_train - w_hold| > T + N(0, tau^2) report w_hold + N(0, tau^2), else w_train.
    Accuracy:   if |acc_train - acc_hold| < T + N(0, tau^2) report acc_train, else acc_hold + N(0, tau^2).
    With T = threshold_scale/sqrt(n), tau = noise_scale/sqrt(n) (0.04 and 0.01 at n = 10,000).
    """

    rng: np.random.Generator
    threshold: float
    noise_sd: float
    name: str = "dwork_code"

    def answer_statistics(self, w_train: np.ndarray, w_holdout: np.ndarray) -> np.ndarray:
        d = len(w_train)
        over = np.abs(w_train - w_holdout) > self.threshold + self.rng.normal(0.0, self.noise_sd, d)
        noisy_holdout = w_holdout + self.rng.normal(0.0, self.noise_sd, d)
        return np.where(over, noisy_holdout, w_train)

    def answer_accuracy(self, acc_train: float, acc_holdout: float) -> float:
        if abs(acc_train - acc_holdout) < self.threshold + self.rng.normal(0.0, self.noise_sd):
            return acc_train
        return acc_holdout + self.rng.normal(0.0, self.noise_sd)


MECHANISMS = ("standard", "dwork_code")


def make_mechanism(name: str, rng: np.random.Generator, n: int, params: dict):
    """Create the mechanism ``name`` for holdout size n; params are the experiment's config block."""
    if name == "standard":
        return StandardHoldout(rng)
    if name == "dwork_code":
        root_n = np.sqrt(n)
        return DworkCodeThresholdout(rng, threshold=params.get("threshold_scale", 4.0) / root_n,
                                     noise_sd=params.get("noise_scale", 1.0) / root_n)
    raise ValueError(f"unknown mechanism {name!r}; allowed: {MECHANISMS}")
