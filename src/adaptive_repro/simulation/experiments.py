"""One experiment's spec and its replicate runner (Dwork2015 protocol, docs/METHODS.md §3-4).

One replicate: the data model draws the population, each engine its train / holdout / fresh data sets; every arm's
analyst selects attributes through the arm's mechanism, every arm's nested top-k classifiers are measured (arms
sharing a data set together), and each analyst asks its accuracy queries. The runner only calls the spec's plug-in
objects (arms, data model, query, engines: their contracts are in :mod:`mechanisms.base`, :mod:`data_models`,
:mod:`queries`, :mod:`engines`, :mod:`analysts`); it never branches on their names. Every random stream is named by
(experiment, replicate, purpose), so results do not depend on how replicates are chunked into jobs. Specs are built
from the validated config by :mod:`adaptive_repro.pipeline.specs`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from adaptive_repro.foundation import seeds
from adaptive_repro.foundation.record_table import RecordTable
from adaptive_repro.simulation import analyst
from adaptive_repro.simulation.analysts import ArmContext, Selection
from adaptive_repro.simulation.arm import Arm
from adaptive_repro.simulation.data_models import DataModel, Population
from adaptive_repro.simulation.engines import Dataset, Engine
from adaptive_repro.simulation.mechanisms.base import ArmSetting
from adaptive_repro.simulation.queries import Query
from adaptive_repro.simulation.zhao_calibration import Alg1Calibration, Alg1Settings

if TYPE_CHECKING:  # the simulation itself writes plain rows (record_table); pandas only for run_replicate(s)
    import pandas as pd

DATASETS = ("train", "holdout", "fresh", "population")
RECORD_COLUMNS = ("experiment", "replicate", "mechanism", "engine", "k", "n_selected", "n_kept", "dataset",
                  "accuracy", "budget_used")
DIAGNOSTIC_COLUMNS = ("experiment", "replicate", "mechanism", "queries", "over_events", "bottoms",
                      "attribute_queries", "attribute_answered", "attribute_over_events", "accuracy_queries",
                      "accuracy_answered", "z_final", "max_error", "thm2_event", "session_threshold",
                      "state_share_shift")


@dataclasses.dataclass(frozen=True)
class ExperimentSpec:
    """One experiment (``experiments.<ID>``, or one point of a sweep): every value of its resolved config block,
    the plug-ins resolved to objects. No defaults here: :func:`adaptive_repro.pipeline.specs.experiment_spec`
    builds it from the resolved config (where the schema's defaults were filled in)."""

    name: str
    n: int
    d: int
    replicates: int
    k_grid: tuple[int, ...]
    arms: tuple[Arm, ...]
    arm_engine_objects: tuple[Engine, ...]  # the engine of each arm, aligned with ``arms``
    model: DataModel
    query: Query
    alg1: Alg1Settings
    signal_attributes: int
    signal_scale: float
    cut_scale: float
    remove_shared_state: bool  # the analyst removes the shared latent state's part of its statistics (§4b)
    engine: str  # the config's request (auto, direct, fast, ...); the arms' engines are resolved from it

    @property
    def mechanisms(self) -> tuple[str, ...]:
        """The arms' config names, in config order."""
        return tuple(arm.name for arm in self.arms)

    def arm(self, name: str) -> Arm:
        """The arm called ``name``."""
        return {arm.name: arm for arm in self.arms}[name]

    def arm_engines(self) -> dict[str, str]:
        """The engine that runs each arm."""
        return {arm.name: engine.name for arm, engine in zip(self.arms, self.arm_engine_objects)}

    def arm_settings(self) -> dict[str, ArmSetting]:
        """Every arm's set-up for this experiment (deterministic; computed once per spec object: a calibration may
        convert BDP to DP by Lemma 2, and builders ask for the settings several times)."""
        return dict(self._settings)

    @functools.cached_property
    def _settings(self) -> dict[str, ArmSetting]:
        return {arm.name: arm.setting(self) for arm in self.arms}

    def alg1_calibrations(self) -> dict[str, Alg1Calibration]:
        """Algorithm 1's calibrated parameters for every arm that has a calibration."""
        return {arm.name: self._settings[arm.name] for arm in self.arms if arm.calibration is not None}

    @property
    def cut(self) -> float:
        """Selection cut 1/sqrt(n) (docs/METHODS.md §3 step 2; the script's 0.01 at n = 10,000)."""
        return self.cut_scale / np.sqrt(self.n)

    def record_experiments(self) -> tuple[str, ...]:
        """The values of the records' ``experiment`` column this spec writes."""
        return (self.name,)

    def plugin_modules(self) -> tuple[str, ...]:
        """The modules of every plug-in this experiment uses (its simulation's code, with the runner's)."""
        objects = [*self.arms, *self.arm_engine_objects, self.model, self.query,
                   *(arm.analyst for arm in self.arms), *(arm.calibration for arm in self.arms)]
        return tuple(sorted({type(o).__module__ for o in objects if o is not None}))

    def run_replicates(self, seed: int, replicates: Iterable[int], progress: Callable[[int, int], None] | None = None,
                       with_diagnostics: bool = False):
        return run_replicates(self, seed, replicates, progress, with_diagnostics)

    def simulate_tables(self, seed: int, replicates: Iterable[int],
                        progress: Callable[[int, int], None] | None = None) -> tuple[RecordTable, RecordTable]:
        return simulate_tables(self, seed, replicates, progress)


def run_replicate(spec: ExperimentSpec, seed: int, replicate: int,
                  settings: dict[str, ArmSetting] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`replicate_tables` as DataFrames."""
    records, diagnostics = replicate_tables(spec, seed, replicate, settings)
    return records.to_frame(), diagnostics.to_frame()


def replicate_tables(spec: ExperimentSpec, seed: int, replicate: int,
                     settings: dict[str, ArmSetting] | None = None) -> tuple[RecordTable, RecordTable]:
    """Records of one replicate (per arm, per k, per data set: train, holdout as reported, fresh, population) and
    the diagnostics rows of the arms whose analyst records them.

    Every arm plays its attribute phase, then all arms' classifiers are measured together
    (:func:`measure_classifiers`), then every arm plays its accuracy phase. Each arm's mechanism and score streams
    are its own and the data sets' are shared, so this interleaving gives the numbers of running the arms one after
    another."""
    settings = spec.arm_settings() if settings is None else settings
    model, query, clip = spec.model, spec.query, spec.alg1.clip
    pop = model.population(seeds.rng(seed, spec.name, replicate, "population"), spec.n, spec.d,
                           spec.signal_attributes, spec.signal_scale)
    k_grid = np.asarray(spec.k_grid)
    datasets: dict[str, dict[str, Dataset]] = {}
    for engine in sorted(set(spec.arm_engine_objects), key=lambda e: e.name):
        datasets[engine.name] = {
            name: engine.dataset(seeds.rng(seed, spec.name, replicate, "data", engine.name, name), model, pop,
                                 observed=(name != "fresh"))
            for name in ("train", "holdout", "fresh")
        }
    # once per replicate, for every arm
    shared_state = functools.cache(lambda: analyst.SharedStateFit(model.shared_state_means(pop)))
    played: list[tuple[Arm, Engine, ArmContext, Selection]] = []
    for arm, engine in zip(spec.arms, spec.arm_engine_objects):
        if not settings[arm.name].feasible:
            continue  # no setting meets the arm's target: the arm is reported as infeasible by the theory table
        mech = arm.create(seeds.rng(seed, spec.name, replicate, "mechanism", arm.name), spec, settings[arm.name])
        mech.prepare(datasets[engine.name]["train"])
        ctx = ArmContext(mech, spec, datasets[engine.name], lambda: query.population(model, pop, clip),
                         shared_state)
        played.append((arm, engine, ctx, arm.analyst.select(ctx)))
    measured = measure_classifiers(spec, seed, replicate, pop, [(arm, ctx.sets, sel) for arm, _, ctx, sel in played])
    shifts = {name: sets["train"].state_share_shift(sets["holdout"]) for name, sets in datasets.items()}
    rows, diagnostics = [], []
    for (arm, engine, ctx, selection), acc in zip(played, measured):
        outcome = arm.analyst.report(ctx, selection, acc)
        values = arm.estimated_values(outcome.values, outcome.sizes)
        for dataset in DATASETS:
            for k, size, value, used in zip(k_grid, outcome.sizes, values[dataset], outcome.budget_used):
                rows.append((spec.name, replicate, arm.name, engine.name, int(k), int(size), outcome.n_kept, dataset,
                             float(value), float(used)))
        if outcome.diagnostics is not None:
            checks = arm.diagnostics(spec, outcome.queries) if outcome.queries is not None else {}
            diagnostics.append({"experiment": spec.name, "replicate": replicate, "mechanism": arm.name,
                                **outcome.diagnostics, **checks, "state_share_shift": shifts[engine.name]})
    return RecordTable(RECORD_COLUMNS, rows), RecordTable.from_dicts(DIAGNOSTIC_COLUMNS, diagnostics)


def measure_classifiers(spec: ExperimentSpec, seed: int, replicate: int, pop: Population,
                        arms: list[tuple[Arm, dict[str, Dataset], Selection]]) -> list[dict[str, np.ndarray]]:
    """Accuracies of every arm's selected classifiers on its train, holdout and fresh sets (each arm on its own score
    streams) and in the population. Arms sharing a data set are measured by one call
    (:meth:`~adaptive_repro.simulation.engines.Dataset.accuracies_many`), so an engine that draws data columns
    draws each once for all of them."""
    measured: list[dict[str, np.ndarray]] = [{} for _ in arms]
    for name in ("train", "holdout", "fresh"):
        sharing: dict[int, list[int]] = {}  # data set (by identity) -> the arms that use it
        for i, (_, sets, _) in enumerate(arms):
            sharing.setdefault(id(sets[name]), []).append(i)
        for users in sharing.values():
            dataset = arms[users[0]][1][name]
            classifiers = [arms[i][2].classifiers for i in users]
            rngs = [seeds.rng(seed, spec.name, replicate, "scores", arms[i][0].name, name) for i in users]
            for i, acc in zip(users, dataset.accuracies_many(classifiers, rngs)):
                measured[i][name] = acc
    for acc, (_, _, selection) in zip(measured, arms):
        acc["population"] = (spec.model.population_accuracies(*selection.classifiers, pop)
                             if spec.model.supports("exact_population")  # else no population rows' values
                             else np.full(len(selection.classifiers[2]), np.nan))
    return measured


def run_replicates(spec: ExperimentSpec, seed: int, replicates: Iterable[int],
                   progress: Callable[[int, int], None] | None = None,
                   with_diagnostics: bool = False):
    """Records of several replicates as a DataFrame (and the diagnostics if asked); ``progress(done, total)`` is
    called after each replicate."""
    records, diagnostics = simulate_tables(spec, seed, replicates, progress)
    return (records.to_frame(), diagnostics.to_frame()) if with_diagnostics else records.to_frame()


def simulate_tables(spec: ExperimentSpec, seed: int, replicates: Iterable[int],
                    progress: Callable[[int, int], None] | None = None) -> tuple[RecordTable, RecordTable]:
    """Records and diagnostics of several replicates, in replicate order; ``progress(done, total)`` is called after
    each replicate."""
    replicates = list(replicates)
    settings = spec.arm_settings()
    records, diagnostics = [], []
    for i, rep in enumerate(replicates, start=1):
        rec, diag = replicate_tables(spec, seed, rep, settings)
        records.append(rec)
        diagnostics.append(diag)
        if progress is not None:
            progress(i, len(replicates))
    return RecordTable.concat(RECORD_COLUMNS, records), RecordTable.concat(DIAGNOSTIC_COLUMNS, diagnostics)


def chunk_replicates(replicates: int, per_job: int) -> list[range]:
    """Replicate indices split into jobs of ``per_job`` (the last one may be shorter)."""
    return [range(start, min(start + per_job, replicates)) for start in range(0, replicates, per_job)]
