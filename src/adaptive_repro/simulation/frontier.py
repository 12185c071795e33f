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
from typing import Callable

import numpy as np
import pandas as pd
from adaptive_repro import privacy, seeds
from adaptive_repro.simulation import analyst, data_models, mechanisms, sign_engine, zhao_calibration

RECORD_COLUMNS = ("experiment", "replicate", "calibration", "p", "eps", "n", "d", "budget", "sigma", "threshold",
                  "eps_dp", "candidates", "answered", "answered_fraction", "over_events", "gap_units")


def exact_sign_queries(rng: np.random.Generator, pop: data_models.Population) -> np.ndarray:
    """Sign queries q_j = (1/n) #{i : x_ij y_i > 0} of one data set of the chain model, exact in distribution."""
    return sign_engine.ExactSignDataset(rng, pop).sign_queries()


@dataclasses.dataclass(frozen=True)
class FrontierSpec:
    """The ``experiments.zhao-frontier`` config block."""

    name: str
    replicates: int
    n_grid: tuple[int, ...]
    p_grid: tuple[float, ...]
    eps_grid: tuple[float, ...]
    calibrations: tuple[str, ...] = ("dp", "bdp")
    d: int = 10_000
    budget: int = 20
    b: float = 0.1
    threshold_units: float = 6.0
    signal_attributes: int = 0
    signal_scale: float = 6.0
    cut_scale: float = 1.0
    bdp_method: str = "lemma2"
    tau: float = 0.1  # only for Theorem 2's requirement drawn alongside
    beta: float = 0.05
    c: float = 0.5
    engine: str = "exact"
    k_grid: tuple[int, ...] = ()

    @classmethod
    def from_config(cls, name: str, block: dict) -> "FrontierSpec":
        fields = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in block.items() if k in fields}
        return cls(name=name, **kwargs)

    # the attributes the workflow reads from every experiment spec
    @property
    def n(self) -> int:
        return int(max(self.n_grid))

    @property
    def mechanisms(self) -> tuple[str, ...]:
        return tuple(f"zhao_alg1_{c}" for c in self.calibrations)

    def arm_engines(self) -> dict[str, str]:
        return {}

    def alg1_calibrations(self) -> dict:
        return {}

    def calibration(self, calibration: str, p: float, eps: float, n: int) -> tuple[float, float, float]:
        """(sigma, T, eps_dp) of one arm: sigma = 9B/(4 n eps_dp), eps_dp = eps (dp) or Lemma 2's eps' (bdp);
        nan sigma if the conversion is infeasible."""
        if calibration == "dp":
            eps_dp = eps
        else:
            conv = privacy.dp_level_for_bdp(eps, n, p, p, self.bdp_method)
            eps_dp = float(conv.eps_dp) if conv.feasible else np.nan
        sigma = zhao_calibration.sigma_for_dp(self.budget, n, eps_dp) if eps_dp > 0 else np.nan
        return sigma, zhao_calibration.noise_unit_threshold(self.threshold_units, n), eps_dp

    def run_replicate(self, seed: int, replicate: int) -> pd.DataFrame:
        rows = []
        for p in self.p_grid:
            for n in self.n_grid:
                point = (self.name, replicate, f"p={p:g}", f"n={n}")
                pop = data_models.chain_population(seeds.rng(seed, *point, "population"), n, self.d, p, p, self.b,
                                                   self.signal_attributes, self.signal_scale)
                q_train = exact_sign_queries(seeds.rng(seed, *point, "data", "train"), pop)
                q_holdout = exact_sign_queries(seeds.rng(seed, *point, "data", "holdout"), pop)
                w_train = data_models.statistic_from_sign_query(q_train)
                asked = analyst.candidate_attributes(w_train, self.cut_scale / np.sqrt(n))
                gap_units = float(np.mean(np.abs(q_holdout[asked] - q_train[asked])) * 2 * np.sqrt(n)) \
                    if len(asked) else np.nan
                for calibration in self.calibrations:
                    for eps in self.eps_grid:
                        sigma, threshold, eps_dp = self.calibration(calibration, p, eps, n)
                        if np.isnan(sigma):
                            answered, over = 0, 0
                        else:
                            mech = mechanisms.ZhaoAlgorithm1(
                                seeds.rng(seed, *point, "mechanism", calibration, f"eps={eps:g}"), sigma, threshold,
                                self.budget)
                            answers = mech.answer_queries(q_train[asked], q_holdout[asked])
                            answered, over = int(np.sum(~np.isnan(answers))), mech.over_events
                        rows.append((self.name, replicate, calibration, p, eps, n, self.d, self.budget, sigma,
                                     threshold, eps_dp, len(asked), answered,
                                     answered / len(asked) if len(asked) else np.nan, over, gap_units))
        return pd.DataFrame(rows, columns=list(RECORD_COLUMNS))

    def run_replicates(self, seed: int, replicates, progress: Callable[[int, int], None] | None = None,
                       with_diagnostics: bool = False):
        frames = []
        replicates = list(replicates)
        for i, rep in enumerate(replicates, start=1):
            frames.append(self.run_replicate(seed, rep))
            if progress is not None:
                progress(i, len(replicates))
        records = pd.concat(frames, ignore_index=True)
        if with_diagnostics:
            return records, pd.DataFrame(columns=["experiment", "replicate"])
        return records
