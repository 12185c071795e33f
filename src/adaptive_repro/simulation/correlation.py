"""The correlation specs. zhao-correlation (:class:`CorrelationSpec`): one classifier experiment per correlation
structure and strength (docs/METHODS.md §4b), run as one spec so that a replicate runs every point (a few jobs for
the whole grid, not one per point). zhao-correlation-frontier (:class:`CorrelationFrontierSpec`): the attribute phase
of Algorithm 1 per structure, strength and n.

Each point is named ``<output>@<model>:<key>=<value>,...``; its records carry that name in ``experiment`` and have
random streams of their own, so adding a point never changes another's numbers.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable

import numpy as np

from adaptive_repro.foundation import seeds
from adaptive_repro.foundation.record_table import RecordTable
from adaptive_repro.simulation import frontier
from adaptive_repro.simulation.data_models import DataModel
from adaptive_repro.simulation.engines import Engine
from adaptive_repro.simulation.experiments import DIAGNOSTIC_COLUMNS, RECORD_COLUMNS, ExperimentSpec, replicate_tables
from adaptive_repro.simulation.zhao_calibration import Alg1Settings, Calibration, theorem2_tau_for_effective_n


@dataclasses.dataclass(frozen=True)
class CorrelationSpec:
    """The resolved ``experiments.zhao-correlation`` block: its points (one experiment spec per model block)."""

    name: str
    replicates: int
    points: tuple[ExperimentSpec, ...]

    # the attributes the workflow reads from every experiment spec
    @property
    def n(self) -> int:
        return max(p.n for p in self.points)

    @property
    def d(self) -> int:
        return max(p.d for p in self.points)

    @property
    def k_grid(self) -> tuple[int, ...]:
        return self.points[0].k_grid

    @property
    def mechanisms(self) -> tuple[str, ...]:
        return self.points[0].mechanisms

    def arm_engines(self) -> dict[str, str]:
        return {f"{p.name}/{arm}": engine for p in self.points for arm, engine in p.arm_engines().items()}

    def alg1_calibrations(self) -> dict:
        return {}

    def record_experiments(self) -> tuple[str, ...]:
        """One ``experiment`` value per point."""
        return tuple(p.name for p in self.points)

    def plugin_modules(self) -> tuple[str, ...]:
        return tuple(sorted({m for p in self.points for m in p.plugin_modules()}))

    def run_replicates(self, seed: int, replicates, progress: Callable[[int, int], None] | None = None,
                       with_diagnostics: bool = False):
        """Records of several replicates as a DataFrame (and the diagnostics if asked)."""
        records, diagnostics = self.simulate_tables(seed, replicates, progress)
        return (records.to_frame(), diagnostics.to_frame()) if with_diagnostics else records.to_frame()

    def simulate_tables(self, seed: int, replicates,
                        progress: Callable[[int, int], None] | None = None) -> tuple[RecordTable, RecordTable]:
        """Records and diagnostics of every point of several replicates (replicate by replicate, points in order)."""
        replicates = list(replicates)
        settings = {p.name: p.arm_settings() for p in self.points}
        records, diagnostics = [], []
        for i, rep in enumerate(replicates, start=1):
            for point in self.points:
                rec, diag = replicate_tables(point, seed, rep, settings[point.name])
                records.append(rec)
                diagnostics.append(diag)
            if progress is not None:
                progress(i, len(replicates))
        return RecordTable.concat(RECORD_COLUMNS, records), RecordTable.concat(DIAGNOSTIC_COLUMNS, diagnostics)


FRONTIER_RECORD_COLUMNS = ("experiment", "replicate", "structure", "calibration", "n", "d", "V", "budget", "sigma",
                           "threshold", "eps_dp", "candidates", "answered", "answered_fraction", "over_events",
                           "gap_units", "answered_fraction_noiseless", "answered_fraction_iid", "max_error_units",
                           "theorem2_failure")


def answer_validity(answers: np.ndarray, q_train: np.ndarray, true_se: float, tau: float, settings: Alg1Settings,
                    budget: int) -> tuple[float, int]:
    """(the largest |a_i - 1/2| over the answers in true SEs, nan if none; Theorem 2's failure event as 0/1) of one
    session with null labels (every Q_i(P) = 1/2)."""
    answered = ~np.isnan(answers)
    largest = float(np.max(np.abs(answers[answered] - 0.5)) / true_se) if answered.any() else np.nan
    return largest, int(theorem2_failure(answers, q_train, 0.5, tau, settings.c, budget))


def theorem2_failure(answers: np.ndarray, q_train: np.ndarray, population_value: float, tau: float, c: float,
                     budget: int) -> bool:
    """Zhao 2017, Theorem 2's failure event on one session: some i with Z_i < B and |a_i - Q_i(P)| >= tau, Z_i =
    #{j <= i : |Q_j(D) - Q_j(P)| >= c tau} (D the training set); bottom answers (nan) are not answers."""
    z = np.cumsum(np.abs(q_train - population_value) >= c * tau)
    return bool(np.any((z < budget) & (np.abs(answers - population_value) >= tau)))


@dataclasses.dataclass(frozen=True)
class CorrelationFrontierSpec(frontier.AttributePhaseSpec):
    """The resolved ``experiments.zhao-correlation-frontier`` block: for each correlation structure and strength, the
    fraction of candidate attribute queries Algorithm 1 answers as n grows (attribute phase only, as zhao-frontier:
    exact O(d) sign queries from the data model's own exact engine, null labels). Every (point, n) has random streams
    of its own, and the same data sets serve every calibration.

    Beside each calibration's answered fraction, two counterfactuals say what spends the budget: the same T with no
    noise on the same data (the data alone) and the same sigma and T on i.i.d. null records (the noise alone); and
    the validity of what it answers: the largest |a_i - 1/2| over its answers in true SEs sqrt(V)/(2 sqrt(n)) (null
    labels: every Q_i(P) = 1/2) and Theorem 2's failure event at the tau of the threshold for n/V."""

    name: str
    replicates: int
    n_grid: tuple[int, ...]
    d: int
    cut_scale: float
    calibrations: tuple[Calibration, ...]
    alg1: Alg1Settings
    points: tuple[tuple[str, DataModel, Engine], ...]  # (point name, data model, its exact sign-query engine)

    def arm_engines(self) -> dict[str, str]:
        return {f"{name}/{c.arm_name}": engine.name for name, _, engine in self.points for c in self.calibrations}

    def record_experiments(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in self.points)

    def plugin_modules(self) -> tuple[str, ...]:
        objects = [*self.calibrations, *(m for _, m, _ in self.points), *(e for _, _, e in self.points)]
        return tuple(sorted({type(o).__module__ for o in objects}))

    @functools.cached_property
    def calibrated(self) -> dict:
        """Algorithm 1's calibration per (point, n, calibration), computed once (Lemma 2 conversions)."""
        return {(name, n, c.name): c.calibrate(self.alg1, n, self.d, self.k_grid, model)
                for name, model, _ in self.points for n in self.n_grid for c in self.calibrations}

    record_columns = FRONTIER_RECORD_COLUMNS

    def replicate_table(self, seed: int, replicate: int) -> RecordTable:
        rows = []
        for name, model, engine in self.points:
            for n in self.n_grid:
                key = (name, replicate, f"n={n}")
                pop = model.population(seeds.rng(seed, *key, "population"), n, self.d, 0, 0.0)
                q_train, q_holdout = (engine.dataset(seeds.rng(seed, *key, "data", part), model, pop, True)
                                      .sign_queries() for part in ("train", "holdout"))
                asked, gap_units = frontier.candidate_queries(q_train, q_holdout, n, self.cut_scale)
                iid_train, iid_holdout = (frontier.iid_null_sign_queries(seeds.rng(seed, *key, "iid", part), n, self.d)
                                          for part in ("train", "holdout"))
                iid_asked, _ = frontier.candidate_queries(iid_train, iid_holdout, n, self.cut_scale)
                inflation = model.expected_inflation(n)
                true_se = np.sqrt(inflation) / (2.0 * np.sqrt(n))
                tau = theorem2_tau_for_effective_n(self.alg1, n, inflation)
                for calibration in self.calibrations:
                    cal = self.calibrated[(name, n, calibration.name)]
                    mechanism = seeds.rng(seed, *key, "mechanism", calibration.name)
                    answers, over = frontier.algorithm1_answers(mechanism, cal.sigma, cal.threshold, cal.budget,
                                                                q_train[asked], q_holdout[asked])
                    answered = int(np.sum(~np.isnan(answers)))
                    noiseless, _ = frontier.algorithm1_answers(
                        seeds.rng(seed, *key, "mechanism", calibration.name, "noiseless"), 0.0, cal.threshold,
                        cal.budget, q_train[asked], q_holdout[asked])
                    iid, _ = frontier.algorithm1_answers(
                        seeds.rng(seed, *key, "mechanism", calibration.name, "iid"), cal.sigma, cal.threshold,
                        cal.budget, iid_train[iid_asked], iid_holdout[iid_asked])
                    rows.append((name, replicate, model.name, calibration.name, n, self.d, inflation, cal.budget,
                                 cal.sigma, cal.threshold, cal.eps_dp_used, len(asked), answered,
                                 frontier.fraction(answered, len(asked)), over, gap_units,
                                 frontier.fraction(np.sum(~np.isnan(noiseless)), len(asked)),
                                 frontier.fraction(np.sum(~np.isnan(iid)), len(iid_asked)),
                                 *answer_validity(answers, q_train[asked], true_se, tau, self.alg1, cal.budget)))
        return RecordTable(FRONTIER_RECORD_COLUMNS, rows)
