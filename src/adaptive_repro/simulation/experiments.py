"""Replicate runner for the linear-threshold-classifier experiments (Dwork2015 protocol, SPEC sections 3-4).

One replicate: draw the population, the train / holdout / fresh data sets, then for every mechanism arm let the
analyst select attributes through the mechanism and measure its nested top-k classifiers. Every random stream is
named by (experiment, replicate, purpose), so results do not depend on how replicates are chunked into jobs.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from adaptive_repro import seeds
from adaptive_repro.simulation import analyst
from adaptive_repro.simulation import data_models
from adaptive_repro.simulation import engines
from adaptive_repro.simulation import mechanisms
from adaptive_repro.simulation import zhao_calibration

DATASETS = ("train", "holdout", "fresh", "population")
RECORD_COLUMNS = ("experiment", "replicate", "mechanism", "engine", "k", "n_selected", "n_kept", "dataset",
                  "accuracy")


@dataclasses.dataclass(frozen=True)
class ExperimentSpec:
    """One experiment's config block (``experiments.<ID>``), with defaults filled by the schema."""

    name: str
    n: int
    d: int
    replicates: int
    k_grid: tuple[int, ...]
    mechanisms: tuple[str, ...]
    signal_attributes: int = 0
    signal_scale: float = 6.0
    threshold_scale: float = 4.0
    noise_scale: float = 1.0
    cut_scale: float = 1.0
    engine: str = "auto"
    # chain data model (SPEC section 4); p_s = p_y = 0.5 and b = 0 is Dwork's i.i.d. model
    p_s: float = 0.5
    p_y: float = 0.5
    b: float = 0.0
    alg1: tuple = ()  # Algorithm 1 settings as sorted (key, value) pairs (zhao_calibration.DEFAULT_ALG1 keys)

    @classmethod
    def from_config(cls, name: str, block: dict, engine: str = "auto") -> "ExperimentSpec":
        fields = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in block.items() if k in fields}
        kwargs["k_grid"] = tuple(block["k_grid"])
        kwargs["mechanisms"] = tuple(block["mechanisms"])
        kwargs.update(block.get("model") or {})
        kwargs["alg1"] = tuple(sorted((block.get("alg1") or {}).items()))
        return cls(name=name, engine=engine, **kwargs)

    @property
    def alg1_block(self) -> dict:
        return {"alg1": dict(self.alg1)}

    def alg1_calibrations(self) -> dict[str, zhao_calibration.Alg1Calibration]:
        """Algorithm 1's calibrated parameters for every zhao_alg1_* arm (deterministic, computed per call)."""
        return {m: zhao_calibration.calibrate(m, self.n, self.d, self.k_grid, self.p_s, self.p_y, self.alg1_block)
                for m in self.mechanisms if m.startswith("zhao_alg1_")}

    @property
    def cut(self) -> float:
        """Selection cut 1/sqrt(n) (SPEC section 3 step 2; the script's 0.01 at n = 10,000)."""
        return self.cut_scale / np.sqrt(self.n)

    def arm_engines(self) -> dict[str, str]:
        """The engine that runs each mechanism arm."""
        return {m: engines.resolve_engine(self.engine, m) for m in self.mechanisms}


def population_for(spec: ExperimentSpec, seed: int, replicate: int) -> data_models.Population:
    """The replicate's population: batch loadings beta ~ N(0, b^2) drawn once per replicate (chain model)."""
    return data_models.chain_population(seeds.rng(seed, spec.name, replicate, "population"), spec.n, spec.d,
                                        spec.p_s, spec.p_y, spec.b, spec.signal_attributes, spec.signal_scale)


DIAGNOSTIC_COLUMNS = ("experiment", "replicate", "mechanism", "queries", "over_events", "bottoms", "z_final",
                      "max_error", "thm2_event")


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


def run_replicate(spec: ExperimentSpec, seed: int, replicate: int,
                  calibrations: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Records of one replicate (per arm, per k, per data set: train, holdout as reported, fresh, population) and
    per-arm diagnostics of Algorithm 1 (budget spent, bottoms, Theorem 2's event)."""
    calibrations = spec.alg1_calibrations() if calibrations is None else calibrations
    alg1 = zhao_calibration.alg1_settings(spec.alg1_block)
    pop = population_for(spec, seed, replicate)
    k_grid = np.asarray(spec.k_grid)
    arm_engines = spec.arm_engines()
    datasets: dict[str, dict[str, object]] = {}
    for engine in sorted(set(arm_engines.values())):
        datasets[engine] = {
            name: engines.make_dataset(engine, seeds.rng(seed, spec.name, replicate, "data", engine, name), pop,
                                       observed=(name != "fresh"))
            for name in ("train", "holdout", "fresh")
        }
    rows, diagnostics = [], []
    params = dataclasses.asdict(spec) | {"alg1_calibrated": {
        arm: {"sigma": cal.sigma, "threshold": cal.threshold, "budget": cal.budget}
        for arm, cal in calibrations.items()}}
    for mech_name in spec.mechanisms:
        if mech_name in calibrations and not calibrations[mech_name].feasible:
            continue  # no sigma gives the target: the arm is reported as infeasible by the theory table
        engine = arm_engines[mech_name]
        sets = datasets[engine]
        w_train, w_holdout = sets["train"].statistics(), sets["holdout"].statistics()
        mech = mechanisms.make_mechanism(mech_name, seeds.rng(seed, spec.name, replicate, "mechanism", mech_name),
                                         spec.n, params)
        is_alg1 = isinstance(mech, mechanisms.ZhaoAlgorithm1)
        if is_alg1:  # statistical queries in [0, 1] (SPEC section 4): clipped x*y, Delta_Q = 1/n
            # Algorithm 1 answers queries in order and stops after B over-threshold answers, so the order matters:
            # the analyst asks about the most promising attributes (largest |w_train|) first. (In index order the
            # budget would run out after the first attributes, which in the signal model are the informative ones.)
            asked = np.argsort(-np.abs(w_train), kind="stable")
            q_train = sets["train"].clipped_queries(alg1["clip"])[asked]
            q_holdout = sets["holdout"].clipped_queries(alg1["clip"])[asked]
            q_answers = mech.answer_statistics(q_train, q_holdout)  # in the order asked
            reported = np.empty(spec.d)
            reported[asked] = data_models.statistic_from_query(q_answers, alg1["clip"])
        else:
            reported = mech.answer_statistics(w_train, w_holdout)
        ranked = analyst.select_attributes(w_train, reported, spec.cut)  # NaN ("bottom") is never kept
        weights = analyst.classifier_signs(w_train, ranked)
        sizes = analyst.selected_sizes(len(ranked), k_grid)
        acc = {name: sets[name].accuracies(ranked, weights, sizes,
                                           seeds.rng(seed, spec.name, replicate, "scores", mech_name, name))
               for name in ("train", "holdout", "fresh")}
        acc["population"] = data_models.population_accuracies(ranked, weights, sizes, pop)
        reported_acc = np.array([
            analyst.EMPTY_CLASSIFIER_ACCURACY if size == 0 else mech.answer_accuracy(a_tr, a_ho)
            for size, a_tr, a_ho in zip(sizes, acc["train"], acc["holdout"])])
        values = {"train": acc["train"], "holdout": reported_acc, "fresh": acc["fresh"],
                  "population": acc["population"]}
        for dataset in DATASETS:
            for k, size, value in zip(k_grid, sizes, values[dataset]):
                rows.append((spec.name, replicate, mech_name, engine, int(k), int(size), len(ranked), dataset,
                             float(value)))
        if is_alg1:
            answered_k = sizes > 0  # accuracy queries are asked only for non-empty classifiers
            diag = theorem2_diagnostics(
                np.concatenate([q_answers, reported_acc[answered_k]]),
                np.concatenate([q_train, acc["train"][answered_k]]),
                np.concatenate([data_models.clipped_query_population(pop, alg1["clip"])[asked],
                                acc["population"][answered_k]]),
                alg1["tau"], alg1["c"], alg1["budget"])
            diagnostics.append({"experiment": spec.name, "replicate": replicate, "mechanism": mech_name,
                                "over_events": mech.over_events, "bottoms": mech.bottoms, **diag})
    return (pd.DataFrame(rows, columns=list(RECORD_COLUMNS)),
            pd.DataFrame(diagnostics, columns=list(DIAGNOSTIC_COLUMNS)))


def run_replicates(spec: ExperimentSpec, seed: int, replicates: Iterable[int],
                   progress: Callable[[int, int], None] | None = None,
                   with_diagnostics: bool = False):
    """Records of several replicates (and Algorithm 1 diagnostics if asked); ``progress(done, total)`` is called
    after each replicate."""
    replicates = list(replicates)
    calibrations = spec.alg1_calibrations()
    frames, diags = [], []
    for i, rep in enumerate(replicates, start=1):
        records, diagnostics = run_replicate(spec, seed, rep, calibrations)
        frames.append(records)
        diags.append(diagnostics)
        if progress is not None:
            progress(i, len(replicates))
    records = pd.concat(frames, ignore_index=True)
    if with_diagnostics:
        return records, pd.concat(diags, ignore_index=True)
    return records


def chunk_replicates(replicates: int, per_job: int) -> list[range]:
    """Replicate indices split into jobs of ``per_job`` (the last one may be shorter)."""
    return [range(start, min(start + per_job, replicates)) for start in range(0, replicates, per_job)]


#: Classifier experiments of the catalogue (SPEC section 2) and the kind of each.
EXPERIMENT_OUTPUTS = ("dwork-null", "dwork-signal", "zhao-fig2", "zhao-fig3", "zhao-sweep", "zhao-thm2-check")
SWEEP_SEPARATOR = "@"


def sweep_point_name(output_id: str, p: float, n: int) -> str:
    """Name (and random-stream key) of one sweep point, e.g. ``zhao-sweep@p=0.75,n=1000``."""
    return f"{output_id}{SWEEP_SEPARATOR}p={p:g},n={n}"


def expand_experiments(config: dict) -> dict[str, ExperimentSpec]:
    """Every simulated experiment of the config, keyed by its name; a sweep becomes one experiment per (p, n)
    point with p_s = p_y = p (Zhao sweep: correlation strength and n)."""
    specs = {}
    engine = config.get("engine", "auto")
    for name, block in config.get("experiments", {}).items():
        if "p_grid" in block:
            base = {k: v for k, v in block.items() if k not in ("p_grid", "n_grid")}
            for p in block["p_grid"]:
                for n in block["n_grid"]:
                    point = base | {"n": n, "model": dict(block.get("model") or {}) | {"p_s": p, "p_y": p}}
                    specs[sweep_point_name(name, p, n)] = ExperimentSpec.from_config(
                        sweep_point_name(name, p, n), point, engine)
        else:
            specs[name] = ExperimentSpec.from_config(name, block, engine)
    return specs


def output_of(experiment_name: str) -> str:
    """The catalogue output an experiment (or sweep point) belongs to."""
    return experiment_name.split(SWEEP_SEPARATOR)[0]
