"""zhao-frontier: how large must n be for Algorithm 1 to answer the analyst's attribute queries (docs/METHODS.md §4a)?

Only the attribute-query phase matters: per replicate and (p, n) the train and holdout sign queries of all d
attributes are drawn exactly in O(d) (:func:`exact_sign_queries`), the analyst asks the candidate attributes
(|q_train - 1/2| > 1/(2 sqrt(n))) most promising first, and Algorithm 1 (calibration ``dp`` or ``bdp`` at the
session's eps) answers them until its budget is spent. The same data serve every calibration and eps.

Sign queries are drawn exactly in O(d) by the exact sign-query engine (:mod:`adaptive_repro.simulation.sign_engine`:
n_+ = #{i : r_i = +1} in O(1), then two binomials per attribute), so n up to 3e8 costs the same as n = 1,000.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, ClassVar

import numpy as np

from adaptive_repro.foundation import seeds
from adaptive_repro.foundation.record_table import RecordTable
from adaptive_repro.simulation import analyst, sign_engine
from adaptive_repro.simulation.data_models import BatchChain, Population, statistic_from_sign_query
from adaptive_repro.simulation.mechanisms.algorithm1 import ZhaoAlgorithm1
from adaptive_repro.simulation.zhao_calibration import Alg1Settings, Calibration

RECORD_COLUMNS = ("experiment", "replicate", "calibration", "p", "eps", "n", "d", "budget", "sigma", "threshold",
                  "eps_dp", "candidates", "answered", "answered_fraction", "over_events", "gap_units")


def exact_sign_queries(rng: np.random.Generator, pop: Population) -> np.ndarray:
    """Sign queries q_j = (1/n) #{i : x_ij y_i > 0} of one data set of the chain model, exact in distribution."""
    return sign_engine.ExactSignDataset(rng, pop).sign_queries()


def candidate_queries(q_train: np.ndarray, q_holdout: np.ndarray, n: int, cut_scale: float) -> tuple[np.ndarray, float]:
    """The attribute queries the analyst asks (those whose training sign query passes the cut cut_scale/sqrt(n), most
    promising first; :func:`analyst.candidate_attributes`) and their mean |holdout - train| in units of 1/(2 sqrt(n))
    (nan if none)."""
    w_train = statistic_from_sign_query(q_train)
    asked = analyst.candidate_attributes(w_train, cut_scale / np.sqrt(n))
    gap_units = float(np.mean(np.abs(q_holdout[asked] - q_train[asked])) * 2 * np.sqrt(n)) if len(asked) else np.nan
    return asked, gap_units


def answer_with_algorithm1(rng: np.random.Generator, cal, q_train: np.ndarray,
                           q_holdout: np.ndarray) -> tuple[int, int]:
    """(answered, over-threshold events) of Algorithm 1 at calibration ``cal`` on the asked queries in order; an
    infeasible calibration (sigma nan) answers nothing."""
    answers, over = algorithm1_answers(rng, cal.sigma, cal.threshold, cal.budget, q_train, q_holdout)
    return int(np.sum(~np.isnan(answers))), over


def algorithm1_answers(rng: np.random.Generator, sigma: float, threshold: float, budget: int, q_train: np.ndarray,
                       q_holdout: np.ndarray, thresholds: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Algorithm 1's answers (nan: bottom) to the asked queries in order, and its over-threshold events; sigma nan
    (an infeasible calibration) answers nothing, sigma 0 is the noiseless counterfactual (same T, no noise);
    ``thresholds``: a threshold per query instead of ``threshold``."""
    if np.isnan(sigma):
        return np.full(len(q_train), np.nan), 0
    mech = ZhaoAlgorithm1(rng, sigma, threshold, budget)
    return mech.answer_queries(q_train, q_holdout, thresholds), mech.over_events


def fraction(part: int, whole: int) -> float:
    """part / whole (an answered fraction), nan if whole is 0 (no candidate query)."""
    return float(part) / whole if whole else np.nan


def iid_null_sign_queries(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Sign queries of d independent attributes on n i.i.d. records with labels independent of them: n q_j ~
    Bin(n, 1/2), independently (the null every correlated model reduces to at V = 1)."""
    return rng.binomial(n, 0.5, d) / n


class AttributePhaseSpec:
    """What the workflow reads from a spec of attribute-query phases (zhao-frontier, zhao-correlation-frontier):
    the largest n of ``n_grid``, no classifier k grid, one arm per calibration in ``calibrations``, and replicates
    run one after another by the subclass's ``replicate_table(seed, replicate)`` (no diagnostics)."""

    #: The records' columns (the subclass's).
    record_columns: ClassVar[tuple[str, ...]] = ()

    n_grid: tuple[int, ...]
    calibrations: tuple[Calibration, ...]

    @property
    def n(self) -> int:
        return int(max(self.n_grid))

    @property
    def k_grid(self) -> tuple[int, ...]:
        return ()

    @property
    def mechanisms(self) -> tuple[str, ...]:
        return tuple(c.arm_name for c in self.calibrations)

    def alg1_calibrations(self) -> dict:
        return {}

    def run_replicates(self, seed: int, replicates, progress: Callable[[int, int], None] | None = None,
                       with_diagnostics: bool = False):
        """Records of several replicates as a DataFrame (and the empty diagnostics if asked)."""
        records, diagnostics = self.simulate_tables(seed, replicates, progress)
        return (records.to_frame(), diagnostics.to_frame()) if with_diagnostics else records.to_frame()

    def simulate_tables(self, seed: int, replicates,
                        progress: Callable[[int, int], None] | None = None) -> tuple[RecordTable, RecordTable]:
        """Records of several replicates in order, and no diagnostics; ``progress(done, total)`` after each."""
        replicates = list(replicates)
        tables = []
        for i, rep in enumerate(replicates, start=1):
            tables.append(self.replicate_table(seed, rep))
            if progress is not None:
                progress(i, len(replicates))
        return (RecordTable.concat(self.record_columns, tables),
                RecordTable(("experiment", "replicate"), []))

    def replicate_table(self, seed: int, replicate: int) -> RecordTable:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class FrontierSpec(AttributePhaseSpec):
    """The resolved ``experiments.zhao-frontier`` config block (built by
    :func:`adaptive_repro.pipeline.specs.frontier_spec`; no defaults here: the schema has them)."""

    name: str
    replicates: int
    n_grid: tuple[int, ...]
    p_grid: tuple[float, ...]
    eps_grid: tuple[float, ...]
    calibrations: tuple[Calibration, ...]
    d: int
    budget: int
    b: float
    threshold_units: float
    signal_attributes: int
    signal_scale: float
    cut_scale: float
    bdp_method: str
    tau: float  # only for Theorem 2's requirement drawn alongside
    beta: float
    c: float

    def arm_engines(self) -> dict[str, str]:
        return {c.arm_name: "exact" for c in self.calibrations}

    def record_experiments(self) -> tuple[str, ...]:
        return (self.name,)

    def plugin_modules(self) -> tuple[str, ...]:
        return tuple(sorted({type(c).__module__ for c in self.calibrations}))

    def model(self, p: float) -> BatchChain:
        """The data model at one grid point: the batch chain with p_s = p_y = p and the block's b."""
        return BatchChain(p_s=p, p_y=p, b=self.b)

    def settings(self, eps: float) -> Alg1Settings:
        """Algorithm 1's settings at the session's eps (sign queries: no clipping constant)."""
        return Alg1Settings(tau=self.tau, beta=self.beta, c=self.c, budget=self.budget, epsilon=eps,
                            threshold_units=self.threshold_units, bdp_method=self.bdp_method, clip=float("nan"))

    record_columns = RECORD_COLUMNS

    def replicate_table(self, seed: int, replicate: int) -> RecordTable:
        rows = []
        for p in self.p_grid:
            model = self.model(p)
            for n in self.n_grid:
                point = (self.name, replicate, f"p={p:g}", f"n={n}")
                pop = model.population(seeds.rng(seed, *point, "population"), n, self.d, self.signal_attributes,
                                       self.signal_scale)
                q_train = exact_sign_queries(seeds.rng(seed, *point, "data", "train"), pop)
                q_holdout = exact_sign_queries(seeds.rng(seed, *point, "data", "holdout"), pop)
                asked, gap_units = candidate_queries(q_train, q_holdout, n, self.cut_scale)
                for calibration in self.calibrations:
                    for eps in self.eps_grid:
                        cal = calibration.calibrate(self.settings(eps), n, self.d, self.k_grid, model)
                        answered, over = answer_with_algorithm1(
                            seeds.rng(seed, *point, "mechanism", calibration.name, f"eps={eps:g}"), cal,
                            q_train[asked], q_holdout[asked])
                        rows.append((self.name, replicate, calibration.name, p, eps, n, self.d, self.budget,
                                     cal.sigma, cal.threshold, cal.eps_dp_used, len(asked), answered,
                                     answered / len(asked) if len(asked) else np.nan, over, gap_units))
        return RecordTable(RECORD_COLUMNS, rows)
