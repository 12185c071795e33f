"""The analyst's per-attribute query: what each arm is asked about every attribute (docs/METHODS.md §3, §4, §4a).

A query gives, for one data set, the analyst's statistic w_j (the scale the selection rule reads) and, for arms that
answer statistical queries with values in [0, 1] (Algorithm 1), the [0, 1] query q_j and the map back to w.
"""

from __future__ import annotations

import abc
import dataclasses

import numpy as np

from adaptive_repro.simulation.data_models import DataModel, Population, statistic_from_query, statistic_from_sign_query


@dataclasses.dataclass(frozen=True)
class Query(abc.ABC):
    """Contract: ``name`` is the config value of ``query``; :meth:`statistics` and :meth:`unit_queries` are the
    analyst's and Algorithm 1's views of one data set (computed once per data set and clip level: cached on the
    data set); :meth:`to_statistic` maps [0, 1] answers back to the statistic's scale (NaN, bottom, stays NaN);
    :meth:`population` is the exact population value of every [0, 1] query. Registered in
    :data:`adaptive_repro.simulation.registries.QUERIES`."""

    name: str

    def statistics(self, dataset, clip: float) -> np.ndarray:
        """w_j for every attribute (what every arm's analyst ranks and selects on)."""
        return self._cached(dataset, clip)[0]

    def unit_queries(self, dataset, clip: float) -> np.ndarray:
        """q_j in [0, 1] for every attribute (what Algorithm 1 answers)."""
        return self._cached(dataset, clip)[1]

    def _cached(self, dataset, clip: float) -> tuple[np.ndarray, np.ndarray]:
        cache = dataset.__dict__.setdefault("_query_cache", {})
        key = (self.name, clip)
        if key not in cache:
            cache[key] = self._compute(dataset, clip)
        return cache[key]

    @abc.abstractmethod
    def _compute(self, dataset, clip: float) -> tuple[np.ndarray, np.ndarray | None]:
        """(w, q) of one data set."""

    @abc.abstractmethod
    def to_statistic(self, answers: np.ndarray, clip: float) -> np.ndarray:
        """[0, 1] answers on the statistic's scale."""

    @abc.abstractmethod
    def population(self, model: DataModel, pop: Population, clip: float) -> np.ndarray:
        """Exact population value of every attribute's [0, 1] query."""


@dataclasses.dataclass(frozen=True)
class MeanQuery(Query):
    """Dwork's w_j = mean of x_ij y_i; Algorithm 1 answers the clipped query 1/2 + mean clip(x y, -C, C)/(2C)
    (docs/METHODS.md §4), computed lazily (only Algorithm 1 arms need it)."""

    name: str = "mean"

    def _compute(self, dataset, clip):
        return dataset.statistics(), None

    def unit_queries(self, dataset, clip: float) -> np.ndarray:
        return dataset.clipped_queries(clip)

    def to_statistic(self, answers, clip):
        return statistic_from_query(answers, clip)

    def population(self, model, pop, clip):
        return model.clipped_query_population(pop, clip)


@dataclasses.dataclass(frozen=True)
class SignQuery(Query):
    """The sign query q_j = (1/n) #{i: x_ij y_i > 0}, on the analyst's scale w = 2 (q - 1/2) (docs/METHODS.md §4a);
    every arm sees it."""

    name: str = "sign"

    def _compute(self, dataset, clip):
        q = dataset.sign_queries()
        return statistic_from_sign_query(q), q

    def to_statistic(self, answers, clip):
        return statistic_from_sign_query(answers)

    def population(self, model, pop, clip):
        return model.sign_query_population(pop)
