"""Zhao 2017, Algorithm 1: a budgeted, Laplace-noise reusable holdout for statistical queries (values in [0, 1]).

One arm per calibration (how sigma and T are chosen: :mod:`adaptive_repro.simulation.zhao_calibration`); the
calibration is a field of the arm, so figures and claims take its words from it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from adaptive_repro.simulation.analysts import BUDGET_AWARE_ANALYST, Analyst, QueryLog
from adaptive_repro.simulation.arm import Arm
from adaptive_repro.simulation.mechanisms.base import BOTTOM, HoldoutMechanism
from adaptive_repro.simulation.zhao_calibration import Alg1Calibration, Calibration


@dataclasses.dataclass
class ZhaoAlgorithm1(HoldoutMechanism):
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
    over_events: int = 0  # times line 7 fired (budget spent)
    bottoms: int = 0  # queries answered with bottom
    session_threshold: Callable[[object], float | None] | None = None  # T from the training set (prepare)

    def __post_init__(self):
        self.sigma_2 = 4.0 * self.sigma  # line 1
        self.sigma_3 = 2.0 * self.sigma  # line 1
        self.remaining = self.budget
        self.threshold_hat = self.threshold + self.rng.laplace(0.0, self.sigma)  # line 2

    def prepare(self, train) -> None:
        """Where the calibration sets T per session from the training set, T becomes that value: T_hat keeps its
        Laplace draw (line 2) and moves with T."""
        threshold = self.session_threshold(train) if self.session_threshold is not None else None
        if threshold is not None:
            self.threshold_hat += threshold - self.threshold
            self.threshold = threshold

    def session_diagnostics(self) -> dict:
        """The threshold this session used where it was set from the training set (:meth:`prepare`)."""
        return {"session_threshold": self.threshold} if self.session_threshold is not None else {}

    def answer_queries(self, q_train: np.ndarray, q_holdout: np.ndarray,
                       thresholds: np.ndarray | None = None) -> np.ndarray:
        """Answer queries Q_i in order; q_train = Q_i(D), q_holdout = Q_i(X). ``thresholds``: a threshold T_i per
        query instead of T (line 7 compares with T_i + the current Laplace draw of T_hat - T); T_i may depend on the
        training set D only, which Algorithm 1 does not protect."""
        q_train, q_holdout = np.atleast_1d(q_train), np.atleast_1d(q_holdout)
        m = len(q_train)
        out = q_train.astype(float)  # line 11 unless line 7 fires (a copy)
        gamma = self.rng.laplace(0.0, self.sigma_3, m)  # line 6, one fresh draw per query
        gap = np.abs(q_holdout - q_train) + gamma
        if thresholds is not None:  # |Q(X) - Q(D)| + gamma > T_i + (T_hat - T), as gap - (T_i - T) > T_hat
            gap -= np.asarray(thresholds, dtype=float) - self.threshold
        i = 0
        while i < m:
            if self.remaining < 1:  # lines 3-4
                out[i:] = BOTTOM
                self.bottoms += m - i
                break
            over = gap[i:] > self.threshold_hat  # line 7 with the current T_hat
            first = int(over.argmax())  # the first query over it, if any
            if not over[first]:
                break
            j = i + first
            self.remaining -= 1  # line 8
            self.threshold_hat = self.threshold + self.rng.laplace(0.0, self.sigma)  # line 8
            out[j] = q_holdout[j] + self.rng.laplace(0.0, self.sigma_2)  # line 9
            self.over_events += 1
            i = j + 1
        return out

    def answer_statistics(self, train: np.ndarray, holdout: np.ndarray) -> np.ndarray:
        return self.answer_queries(train, holdout)

    def answer_accuracy(self, acc_train: float, acc_holdout: float) -> float:
        return float(self.answer_queries(np.array([acc_train]), np.array([acc_holdout]))[0])


def theorem2_diagnostics(answers, q_train, q_pop, tau: float, c: float, budget: int) -> dict:
    """Zhao 2017 Theorem 2's event over the query sequence: exists i with Z_i < B and |a_i - Q_i(P)| >= tau, where
    Z_i = |{j <= i : |Q_j(D) - Q_j(P)| >= c tau}|. Bottom answers (NaN) are not errors (no estimate was given)."""
    answers, q_train, q_pop = map(np.asarray, (answers, q_train, q_pop))
    z = np.cumsum(np.abs(q_train - q_pop) >= c * tau)
    error = np.abs(answers - q_pop)
    answered = ~np.isnan(answers)
    event = bool(np.any(answered & (z < budget) & (error >= tau)))
    return {"queries": len(answers), "z_final": int(z[-1]) if len(z) else 0,
            "max_error": float(np.max(error[answered])) if answered.any() else np.nan, "thm2_event": event}


@dataclasses.dataclass(frozen=True)
class Algorithm1Arm(Arm):
    """Algorithm 1 with one calibration. Its name, display name, detail, colour and marker come from the calibration."""

    analyst: Analyst = BUDGET_AWARE_ANALYST
    unit_queries: bool = True
    budgeted: bool = True
    calibration: Calibration | None = None  # set by for_calibration

    def needs(self) -> frozenset[str]:
        """Theorem 2's diagnostics read exact population values and the theory beside every Algorithm 1 arm converts
        between DP and Bayesian DP; the calibration may need more (a known V)."""
        return frozenset({"exact_population", "bdp_conversion"}) | self.calibration.needs()

    def __post_init__(self):
        super().__post_init__()
        if self.calibration is None:
            raise ValueError(f"Algorithm 1 arm {self.name!r} needs a calibration (Algorithm1Arm.for_calibration)")

    @classmethod
    def for_calibration(cls, calibration: Calibration) -> "Algorithm1Arm":
        """The arm ``zhao_alg1_<calibration name>``, named and drawn as its calibration says."""
        return cls(name=f"zhao_alg1_{calibration.name}", display_name=f"Algorithm 1, {calibration.display_name}",
                   detail=f"({calibration.purpose})", color=calibration.color, marker=calibration.marker,
                   calibration=calibration)

    def setting(self, spec) -> Alg1Calibration:
        return self.calibration.calibrate(spec.alg1, spec.n, spec.d, spec.k_grid, spec.model)

    def create(self, rng: np.random.Generator, spec, setting: Alg1Calibration) -> ZhaoAlgorithm1:
        calibration, n = self.calibration, spec.n

        def per_session(train):
            return calibration.session_threshold(setting, spec.alg1, n, spec.model, train)

        return ZhaoAlgorithm1(rng, sigma=setting.sigma, threshold=setting.threshold, budget=setting.budget,
                              session_threshold=per_session if calibration.NEEDS_RECORDS else None)

    @property
    def needs_records(self) -> bool:
        """Whether its mechanism reads the training records in order (only the direct engine keeps them)."""
        return self.calibration.NEEDS_RECORDS

    def total_budget(self, spec, setting: Alg1Calibration) -> int:
        """Algorithm 1's B (line 3): the over-threshold answers it gives before answering bottom."""
        return setting.budget

    def diagnostics(self, spec, queries: QueryLog) -> dict:
        """Zhao 2017 Theorem 2's event over the replicate's queries, at the experiment's tau, c and B."""
        alg1 = spec.alg1
        return theorem2_diagnostics(queries.answers, queries.train, queries.population(), alg1.tau, alg1.c,
                                    alg1.budget)

    def tolerance(self, spec, setting: Alg1Calibration) -> float:
        """Algorithm 1's threshold T: answers within T of the holdout value are its design."""
        return setting.threshold

    def title(self, spec) -> str:
        eps = f", ε = {spec.alg1.session_epsilon:g}" if self.calibration.targets_session_epsilon else ""
        return self.display_name + eps + (f"\n{self.detail}" if self.detail else "")

    @property
    def claim_name(self) -> str:
        return self.calibration.claim_name or self.display_name
