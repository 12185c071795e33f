"""Holdout mechanisms: how the analyst's queries to the holdout are answered.

- ``standard``: the holdout reused as is.
- ``dwork_code``: Thresholdout as the Dwork et al. 2015 supplementary script implements it (docs/METHODS.md §3 step 4):
  Gaussian noise, no budget, no randomized threshold. (The papers' text describes a Laplace-and-budget variant;
  Zhao's Algorithm 1 is that one, see ``zhao_alg1``.)
- ``zhao_alg1_<calibration>``: Zhao 2017 Algorithm 1 (Laplace noise, budget, refreshed threshold), answering
  statistical queries with values in [0, 1]; calibrations in :mod:`adaptive_repro.simulation.zhao_calibration`.

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
    """Thresholdout of the Dwork et al. 2015 script (docs/METHODS.md §3 step 4), fresh noise on every query.

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


BOTTOM = np.nan  # Algorithm 1's "bottom" answer once the budget is spent; the analyst reads it as "not validated"


@dataclasses.dataclass
class ZhaoAlgorithm1:
    """Zhao 2017, Algorithm 1 (lines 1-15), for statistical queries (values in [0, 1]).

    sigma_2 = 4 sigma, sigma_3 = 2 sigma (line 1); T_hat = T + Lap(sigma) (line 2); per query: if B < 1 output
    bottom (lines 3-4); else gamma ~ Lap(sigma_3) (line 6); if |Q(X) - Q(D)| + gamma > T_hat (line 7) then
    B <- B - 1, T_hat <- T + Lap(sigma) (line 8) and output Q(X) + Lap(sigma_2) (line 9); else output Q(D) (line 11).
    X is the holdout, D the training set. The analyst's queries arrive in order; a batch of queries is processed
    in that order with the per-query noise gamma drawn up front (same distribution, fewer Python steps).
    """

    rng: np.random.Generator
    sigma: float
    threshold: float
    budget: int
    name: str = "zhao_alg1"
    over_events: int = 0  # times line 7 fired (budget spent)
    bottoms: int = 0  # queries answered with bottom

    def __post_init__(self):
        self.sigma_2 = 4.0 * self.sigma  # line 1
        self.sigma_3 = 2.0 * self.sigma  # line 1
        self.remaining = self.budget
        self.threshold_hat = self.threshold + self.rng.laplace(0.0, self.sigma)  # line 2

    def answer_queries(self, q_train: np.ndarray, q_holdout: np.ndarray) -> np.ndarray:
        """Answer queries Q_i in order; q_train = Q_i(D), q_holdout = Q_i(X)."""
        q_train, q_holdout = np.atleast_1d(q_train), np.atleast_1d(q_holdout)
        m = len(q_train)
        out = q_train.astype(float).copy()  # line 11 unless line 7 fires
        gamma = self.rng.laplace(0.0, self.sigma_3, m)  # line 6, one fresh draw per query
        gap = np.abs(q_holdout - q_train) + gamma
        i = 0
        while i < m:
            if self.remaining < 1:  # lines 3-4
                out[i:] = BOTTOM
                self.bottoms += m - i
                break
            over = np.flatnonzero(gap[i:] > self.threshold_hat)  # line 7 with the current T_hat
            if len(over) == 0:
                break
            j = i + over[0]
            self.remaining -= 1  # line 8
            self.threshold_hat = self.threshold + self.rng.laplace(0.0, self.sigma)  # line 8
            out[j] = q_holdout[j] + self.rng.laplace(0.0, self.sigma_2)  # line 9
            self.over_events += 1
            i = j + 1
        return out

    def answer_statistics(self, q_train: np.ndarray, q_holdout: np.ndarray) -> np.ndarray:
        return self.answer_queries(q_train, q_holdout)

    def answer_accuracy(self, acc_train: float, acc_holdout: float) -> float:
        return float(self.answer_queries(np.array([acc_train]), np.array([acc_holdout]))[0])


def clamp_unit(answers: np.ndarray) -> np.ndarray:
    """Post-processing of Algorithm 1's answers to statistical queries: clamp to [0, 1], the queries' range (a
    Laplace answer Q(X) + Lap(sigma_2) can leave it). Post-processing costs no privacy; bottom (NaN) stays NaN."""
    return np.clip(np.asarray(answers, dtype=float), 0.0, 1.0)


ZHAO_CALIBRATIONS = ("dp", "bdp", "theorem2")
MECHANISMS = ("standard", "dwork_code") + tuple(f"zhao_alg1_{c}" for c in ZHAO_CALIBRATIONS)


def make_mechanism(name: str, rng: np.random.Generator, n: int, params: dict):
    """Create the mechanism ``name`` for holdout size n; params are the experiment's config block
    (for ``zhao_alg1_*``: a calibrated ``alg1`` dict with sigma, threshold and budget)."""
    if name == "standard":
        return StandardHoldout(rng)
    if name == "dwork_code":
        root_n = np.sqrt(n)
        return DworkCodeThresholdout(rng, threshold=params["threshold_scale"] / root_n,
                                     noise_sd=params["noise_scale"] / root_n)
    if name.startswith("zhao_alg1_"):
        alg1 = params["alg1_calibrated"][name]
        return ZhaoAlgorithm1(rng, sigma=alg1["sigma"], threshold=alg1["threshold"], budget=alg1["budget"], name=name)
    raise ValueError(f"unknown mechanism {name!r}; allowed: {MECHANISMS}")
