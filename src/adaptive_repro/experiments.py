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

from adaptive_repro import analyst, data_models, engines, mechanisms, seeds

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

    @classmethod
    def from_config(cls, name: str, block: dict, engine: str = "auto") -> "ExperimentSpec":
        fields = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in block.items() if k in fields}
        kwargs["k_grid"] = tuple(block["k_grid"])
        kwargs["mechanisms"] = tuple(block["mechanisms"])
        return cls(name=name, engine=engine, **kwargs)

    @property
    def cut(self) -> float:
        """Selection cut 1/sqrt(n) (SPEC section 3 step 2; the script's 0.01 at n = 10,000)."""
        return self.cut_scale / np.sqrt(self.n)

    def arm_engines(self) -> dict[str, str]:
        """The engine that runs each mechanism arm."""
        return {m: engines.resolve_engine(self.engine, m) for m in self.mechanisms}


def population_for(spec: ExperimentSpec, seed: int, replicate: int) -> data_models.Population:
    """The replicate's population (the i.i.d. model has nothing random in it)."""
    return data_models.iid_population(spec.n, spec.d, spec.signal_attributes, spec.signal_scale)


def run_replicate(spec: ExperimentSpec, seed: int, replicate: int) -> pd.DataFrame:
    """All records of one replicate: per arm, per k, per data set (train, holdout as reported, fresh, population)."""
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
    rows = []
    for mech_name in spec.mechanisms:
        engine = arm_engines[mech_name]
        sets = datasets[engine]
        w_train, w_holdout = sets["train"].statistics(), sets["holdout"].statistics()
        mech = mechanisms.make_mechanism(mech_name, seeds.rng(seed, spec.name, replicate, "mechanism", mech_name),
                                         spec.n, dataclasses.asdict(spec))
        reported = mech.answer_statistics(w_train, w_holdout)
        ranked = analyst.select_attributes(w_train, reported, spec.cut)
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
    return pd.DataFrame(rows, columns=list(RECORD_COLUMNS))


def run_replicates(spec: ExperimentSpec, seed: int, replicates: Iterable[int],
                   progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Records of several replicates; ``progress(done, total)`` is called after each one."""
    replicates = list(replicates)
    frames = []
    for i, rep in enumerate(replicates, start=1):
        frames.append(run_replicate(spec, seed, rep))
        if progress is not None:
            progress(i, len(replicates))
    return pd.concat(frames, ignore_index=True)


def chunk_replicates(replicates: int, per_job: int) -> list[range]:
    """Replicate indices split into jobs of ``per_job`` (the last one may be shorter)."""
    return [range(start, min(start + per_job, replicates)) for start in range(0, replicates, per_job)]
