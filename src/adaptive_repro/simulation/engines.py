"""Two engines, one answer (docs/METHODS.md §7).

A data set object gives the analyst what it may see: the per-attribute statistics w and the accuracies of nested
top-k linear classifiers.

- :class:`DirectDataset` materializes the n x d data: the reference and test oracle, for every model and query.
- :class:`SufficientDataset` simulates the same quantities exactly in distribution from sufficient statistics,
  with O(d + n |k grid|) random numbers, for the Gaussian models (i.i.d. and chain) and queries that are plain
  means (w_j and accuracies). Derivation (docs/METHODS.md §7, checked here): given labels y and batch states s, the
  noise column z_j ~ N(0, I_n) splits into independent parts y (y.z_j)/n and (I - yy^T/n) z_j. The analyst's
  statistic is w_j = (beta_j (s.y) + mu_j n + sqrt(n) g_j)/n with g_j = y.z_j/sqrt(n) ~ N(0, 1). Selection depends
  on the data only through g, so for a selected set S with weights c the margins are
      y_i (x_i . c) = B_c r_i + M + (c . g_S)/sqrt(n) + v_i - mean(v),   r_i = s_i y_i,
  where v_i = y_i [W c]_i ~ i.i.d. N(0, |c|^2) (W independent of g), M = sum c_j mu_j, B_c = sum c_j beta_j.
  For nested top-k sets, v is a running sum of one N(0, |block|) vector per block of the k grid (|c_j| = 1).
  On a fresh set (never seen by the analyst) the margin is B_c r_i + M + v_i with no conditioning.

Exactness: the sufficient-statistic engine is exact for mechanisms whose queries are these plain means; clipped
queries (``zhao_alg1``) need the individual x_ij y_i, so those arms run on the direct engine.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Sequence

import numpy as np

from adaptive_repro.simulation import analyst
from adaptive_repro.simulation.data_models import (
    DataModel,
    Population,
    clipped_statistic_queries,
    sample_labels_and_states,
)


class Dataset(abc.ABC):
    """One data set as the analyst may see it: per-attribute statistics or queries, nested classifiers' accuracies.

    Contract: ``engine`` names the engine; :meth:`accuracies` is required; the per-attribute views an engine cannot
    give raise a ValueError saying which engine can (the defaults below)."""

    engine: str = ""

    def statistics(self) -> np.ndarray:
        """Dwork's w_j = (1/n) sum_i x_ij y_i for every attribute."""
        raise ValueError(f"the {self.engine} engine has no plain-mean statistics; use engine 'direct' (or 'fast')")

    def clipped_queries(self, clip: float) -> np.ndarray:
        """Algorithm 1's clipped [0, 1] queries (docs/METHODS.md §4)."""
        raise ValueError(f"the {self.engine} engine has no clipped queries (clip = {clip}); use engine 'direct'")

    def sign_queries(self) -> np.ndarray:
        """Sign queries q_j = (1/n) #{i: x_ij y_i > 0} (docs/METHODS.md §4a)."""
        raise ValueError(f"the {self.engine} engine has no sign queries; use engine 'exact' or 'direct'")

    def state_share_shift(self, other: Dataset) -> float:
        """The part of the training − holdout difference of a sign query that the shares of the shared latent states
        alone make, root-mean-square over the attributes (this data set against ``other``; why some sessions spend
        Algorithm 1's budget, docs/METHODS.md §4b); NaN for an engine that keeps no shared state."""
        return float("nan")

    @abc.abstractmethod
    def accuracies(self, ranked, weights, sizes, rng: np.random.Generator | None = None) -> np.ndarray:
        """Accuracy of each nested top-``size`` classifier (``rng``: an engine's own draws, if it makes any)."""

    def accuracies_many(self, classifiers: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
                        rngs: Sequence[np.random.Generator | None]) -> list[np.ndarray]:
        """:meth:`accuracies` of several families of nested classifiers (``(ranked, weights, sizes)``, one per arm),
        each with its own ``rng``. One at a time here; an engine that draws data columns overrides it to draw each
        column once for all the families (the same numbers as one at a time)."""
        return [self.accuracies(*classifier, rng) for classifier, rng in zip(classifiers, rngs)]


@dataclasses.dataclass(frozen=True)
class Engine(abc.ABC):
    """How a data set is simulated (registered once in :data:`adaptive_repro.simulation.registries.ENGINES`).

    Contract: ``name`` is the config name (also the key of the data sets' random streams); :meth:`dataset` draws one
    data set of ``model`` for population ``pop`` (``observed`` False for the fresh set, which the analyst never
    queries for statistics). Which engine is exact for which model, query and arm is the data model's to say
    (:meth:`adaptive_repro.simulation.data_models.DataModel.engines`)."""

    name: str

    @abc.abstractmethod
    def dataset(self, rng: np.random.Generator, model: DataModel, pop: Population, observed: bool) -> Dataset:
        """One data set."""


class DirectDataset(Dataset):
    """One materialized data set (x, y, latent state), drawn by the data model itself."""

    engine = "direct"

    def __init__(self, rng: np.random.Generator, pop: Population, model: DataModel):
        self.pop = pop
        self.x, self.y, self.s = model.sample(rng, pop)
        self._clipped: dict[float, np.ndarray] = {}

    def statistics(self) -> np.ndarray:
        return analyst.attribute_statistics(self.x, self.y)

    def clipped_queries(self, clip: float) -> np.ndarray:
        """Algorithm 1's [0, 1] statistical queries (data_models.clipped_statistic_queries), computed once per
        clip level and shared by every Algorithm 1 arm (each costs a pass over the n x d data)."""
        if clip not in self._clipped:
            self._clipped[clip] = clipped_statistic_queries(self.x, self.y, clip)
        return self._clipped[clip]

    def sign_queries(self) -> np.ndarray:
        """Sign queries q_j = (1/n) #{i: x_ij y_i > 0} (docs/METHODS.md §4a): statistical queries in [0, 1],
        Delta_Q = 1/n; the materialized reference for sign_engine.ExactSignDataset. Computed once per data set."""
        if getattr(self, "_sign_queries", None) is None:
            self._sign_queries = np.count_nonzero(self.x * self.y[:, None] > 0, axis=0) / self.pop.n
        return self._sign_queries

    def accuracies(self, ranked, weights, sizes, rng=None) -> np.ndarray:
        """Accuracy of each nested classifier; ``rng`` is unused (the data are fixed)."""
        scores = analyst.nested_scores(self.x, ranked, weights, sizes)
        return analyst.accuracy_from_scores(scores, self.y, sizes)


class SufficientDataset(Dataset):
    """One data set simulated through its sufficient statistics (see the module docstring)."""

    engine = "fast"

    def __init__(self, rng: np.random.Generator, pop: Population, observed: bool = True):
        self.pop = pop
        y, s = sample_labels_and_states(rng, pop)
        self.r = s * y  # only the products r_i = s_i y_i enter the margins
        # g_j = y.z_j / sqrt(n); a fresh set is never queried for statistics, so its g is not needed.
        self.g = rng.standard_normal(pop.d) if observed else None

    def statistics(self) -> np.ndarray:
        if self.g is None:
            raise ValueError("statistics of an unobserved (fresh) data set are never needed by the analyst")
        n = self.pop.n
        return (self.pop.beta * self.r.sum() + self.pop.mu * n + np.sqrt(n) * self.g) / n

    def label_orthogonal_noise(self, v: np.ndarray) -> np.ndarray:
        """y_i [(I - yy^T/n) W c]_i = v_i - mean(v) on a set the analyst has seen (its y.z_j are fixed by g);
        a fresh set is unconditioned, so its noise is v itself."""
        return v - v.mean() if self.g is not None else v

    def accuracies(self, ranked, weights, sizes, rng: np.random.Generator) -> np.ndarray:
        """Accuracy of each nested classifier, drawing one N(0, |block|) vector per k-grid block from ``rng``."""
        if np.any(np.abs(weights) != 1):
            raise ValueError("the fast engine needs classifier weights +-1 (sign of w_train)")
        n, pop = self.pop.n, self.pop
        sizes = np.asarray(sizes)
        m_k = np.concatenate(([0.0], np.cumsum(weights * pop.mu[ranked])))[sizes]
        b_k = np.concatenate(([0.0], np.cumsum(weights * pop.beta[ranked])))[sizes]
        if self.g is not None:
            cg_k = np.concatenate(([0.0], np.cumsum(weights * self.g[ranked])))[sizes] / np.sqrt(n)
        else:
            cg_k = np.zeros(len(sizes))
        acc = np.empty(len(sizes))
        v = np.zeros(n)
        start = 0
        for i, size in enumerate(sizes):
            if size > start:
                v = v + np.sqrt(size - start) * rng.standard_normal(n)
                start = size
            margin = b_k[i] * self.r + m_k[i] + cg_k[i] + self.label_orthogonal_noise(v)
            acc[i] = np.mean(margin > 0)
        return np.where(sizes == 0, analyst.EMPTY_CLASSIFIER_ACCURACY, acc)


@dataclasses.dataclass(frozen=True)
class DirectEngine(Engine):
    """Materializes the n x d data: the reference and test oracle, for every model and query."""

    name: str = "direct"

    def dataset(self, rng, model, pop, observed) -> DirectDataset:
        return DirectDataset(rng, pop, model)


@dataclasses.dataclass(frozen=True)
class FastEngine(Engine):
    """Sufficient statistics of the batch-chain model (module docstring): exact for plain-mean queries."""

    name: str = "fast"

    def dataset(self, rng, model, pop, observed) -> SufficientDataset:
        return SufficientDataset(rng, pop, observed=observed)
