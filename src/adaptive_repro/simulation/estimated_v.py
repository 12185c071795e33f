"""zhao-estimated-v: Algorithm 1 with the threshold for n/V where V is estimated from the training set, as a
practitioner must (docs/METHODS.md §4c; this project's question, not Zhao 2017's).

Per replicate, point and n: a training and a holdout set drawn record by record (the data model's own ``sample``), the
sign-query indicators u_ij = 1[x_ij y_i > 0] of the training set, and per attribute the variance inflation of its sign
query estimated by batch means along the record order (:func:`batch_means_inflation`). The analyst asks the candidate
attributes most promising first, as in zhao-correlation-frontier, and Algorithm 1 with the DP calibration's sigma
answers them with one of five thresholds (:data:`VARIANTS`), and a sixth where the data model knows its clusters of
dependent records (households): V estimated by the cluster-robust variance (:func:`cluster_robust_inflation`). Algorithm
1 protects the holdout only, so a threshold computed from the training set leaves its privacy guarantee unchanged.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from adaptive_repro.foundation import seeds
from adaptive_repro.foundation.record_table import RecordTable
from adaptive_repro.simulation import frontier
from adaptive_repro.simulation.correlation import answer_validity
from adaptive_repro.simulation.data_models import DataModel
from adaptive_repro.simulation.engines import DirectDataset
from adaptive_repro.simulation.inflation import batch_means_inflation, cluster_robust_inflation, floored
from adaptive_repro.simulation.zhao_calibration import (
    Alg1Settings,
    noise_unit_threshold,
    sigma_for_dp,
    theorem2_tau_for_effective_n,
)

#: The thresholds compared, in figure and table order: name -> what T_i is (T = threshold_units / (2 sqrt(n))).
VARIANTS = {
    "iid": "T (records treated as independent)",
    "v_known": "T sqrt(V), V the data model's mean inflation (V known)",
    "v_hat": "T sqrt(V_hat_j), V_hat_j estimated per query from the training set",
    "v_hat_max": "T sqrt(max_j V_hat_j), the worst attribute's estimate for every query",
    "v_hat_order_unknown": "T sqrt(V_hat_j) estimated after shuffling the records (their order unknown)",
    "v_hat_clusters": "T sqrt(V_hat_j), V_hat_j the cluster-robust estimate over known clusters (households only)",
}

RECORD_COLUMNS = ("experiment", "replicate", "structure", "variant", "n", "d", "V", "v_hat_mean", "v_hat_max",
                  "sigma", "threshold", "candidates", "answered", "answered_fraction", "max_error_units",
                  "theorem2_failure")


@dataclasses.dataclass(frozen=True)
class EstimatedVSpec(frontier.AttributePhaseSpec):
    """The resolved ``experiments.zhao-estimated-v`` block (module docstring)."""

    name: str
    replicates: int
    n_grid: tuple[int, ...]
    d: int
    cut_scale: float
    alg1: Alg1Settings
    points: tuple[tuple[str, DataModel], ...]  # (point name, data model)

    calibrations: ClassVar[tuple] = ()
    record_columns = RECORD_COLUMNS

    @property
    def mechanisms(self) -> tuple[str, ...]:
        return tuple(f"zhao_alg1_dp_{v}" for v in VARIANTS)

    def arm_engines(self) -> dict[str, str]:
        return {f"{name}/{arm}": "direct" for name, _ in self.points for arm in self.mechanisms}

    def record_experiments(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.points)

    def plugin_modules(self) -> tuple[str, ...]:
        return tuple(sorted({type(m).__module__ for _, m in self.points} | {__name__}))

    def replicate_table(self, seed: int, replicate: int) -> RecordTable:
        rows = []
        budget, eps = self.alg1.budget, self.alg1.session_epsilon
        for name, model in self.points:
            for n in self.n_grid:
                key = (name, replicate, f"n={n}")
                pop = model.population(seeds.rng(seed, *key, "population"), n, self.d, 0, 0.0)
                train, holdout = (DirectDataset(seeds.rng(seed, *key, "data", part), pop, model)
                                  for part in ("train", "holdout"))
                q_train, q_holdout = train.sign_queries(), holdout.sign_queries()
                asked, _ = frontier.candidate_queries(q_train, q_holdout, n, self.cut_scale)
                u = train.x * train.y[:, None] > 0
                shuffled = u[seeds.rng(seed, *key, "order").permutation(n)]
                v_hat = floored(batch_means_inflation(u))[asked]
                v_order_unknown = floored(batch_means_inflation(shuffled))[asked]
                inflation = model.expected_inflation(n)
                t = noise_unit_threshold(self.alg1.threshold_units, n)
                sigma = sigma_for_dp(budget, n, eps)
                true_se = np.sqrt(inflation) / (2.0 * np.sqrt(n))
                tau = theorem2_tau_for_effective_n(self.alg1, n, inflation)
                worst = float(v_hat.max()) if len(v_hat) else np.nan
                thresholds = {"iid": np.full(len(asked), t), "v_known": np.full(len(asked), t * np.sqrt(inflation)),
                              "v_hat": t * np.sqrt(v_hat), "v_hat_max": np.full(len(asked), t * np.sqrt(worst)),
                              "v_hat_order_unknown": t * np.sqrt(v_order_unknown)}
                estimates = {"v_hat_order_unknown": v_order_unknown}
                if model.supports("known_clusters"):  # only where the clusters are known (households)
                    estimates["v_hat_clusters"] = floored(cluster_robust_inflation(u, model.record_clusters(n)))[asked]
                    thresholds["v_hat_clusters"] = t * np.sqrt(estimates["v_hat_clusters"])
                for variant in (v for v in VARIANTS if v in thresholds):
                    answers, _ = frontier.algorithm1_answers(
                        seeds.rng(seed, *key, "mechanism", variant), sigma, t, budget, q_train[asked],
                        q_holdout[asked], thresholds[variant])
                    answered = int(np.sum(~np.isnan(answers)))
                    estimate = estimates.get(variant, v_hat)
                    rows.append((name, replicate, model.name, variant, n, self.d, inflation,
                                 float(estimate.mean()) if len(asked) else np.nan,
                                 float(estimate.max()) if len(asked) else np.nan, sigma, t, len(asked), answered,
                                 frontier.fraction(answered, len(asked)),
                                 *answer_validity(answers, q_train[asked], true_se, tau, self.alg1, budget)))
        return RecordTable(RECORD_COLUMNS, rows)
