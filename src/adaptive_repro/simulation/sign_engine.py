"""Exact engine for the chain model with sign queries (docs/METHODS.md §4a; this project's method, not a paper's).

Sign query: q_j(X) = (1/n) sum_i 1[x_ij y_i > 0], a statistical query in [0, 1] with Delta_Q = 1/n.

Reduction (derived and checked by exact enumeration in tests/unit/test_sign_engine.py):

1. Only r_i = s_i y_i matters. With x_ij = beta_j s_i + mu_j y_i + z_ij (docs/METHODS.md §4), u_ij = x_ij y_i =
   beta_j r_i + mu_j + zeta_ij where zeta_ij = z_ij y_i are i.i.d. N(0, 1) independently of (s, y). The analyst sees
   sign queries (1/n) sum_i 1[u_ij > 0] and accuracies (1/n) sum_i 1[sum_j c_j u_ij > 0] (sign(x_i.c) = y_i iff
   y_i x_i.c > 0; a zero score is wrong, as in the direct engine), both functions of u only.
2. r is a stationary symmetric two-state chain with stay probability p_r = (1 + theta)/2, theta = (2p_s-1)(2p_y-1):
   r_{i+1} = r_i f_i g_i with independent flip signs f_i (of s) and g_i (of y), so f_i g_i are i.i.d. with mean
   (2p_s-1)(2p_y-1), independent of r_1 = s_1 y_1, which is a fair sign.
3. Both views are symmetric functions of the records, and given r the rows are independent with a law that depends
   on r_i only, so only n_plus = #{r_i = +1} matters: records 0..n_plus-1 form group "+" (r = +1), the rest group "-".
4. n_plus exactly in O(1) (:func:`sample_n_plus`): the number of runs is K = 1 + Bin(n-1, 1-p_r); given K the flip
   positions are a uniform (K-1)-subset of the n-1 gaps, so the run lengths are a uniform composition of n into K
   parts, i.e. 1 + a Dirichlet-multinomial(n-K; 1, ..., 1) vector. Runs alternate states, so j = ceil(K/2) runs are
   "+" if the (fair) first state is +1, else floor(K/2), and by aggregation n_plus = j + BetaBinomial(n-K, j, K-j).
5. Given r, K_jg = #{i in g: u_ij > 0} ~ Bin(n_g, Phi(m_jg)), m_jg = mu_j + beta_j r_g, independent over j and g:
   O(d) draws give every sign query. Given K_jg, the positive set of column j in group g is a uniform K_jg-subset and
   the values are independent N(m_jg, 1) truncated to their sign.

Drawing a column given K_jg in O(n) without a permutation (:meth:`ExactSignDataset.centered_column`): draw the group
i.i.d. N(m_jg, 1); it has K' positives at a uniform K'-subset with truncated values. If K' > K, turn a uniform
(K' - K)-subset of the positives into fresh negative truncated draws (if K' < K, the reverse). The kept positives
are a uniform K-subset of a uniform K'-subset, hence uniform, and every value keeps its truncated law independently.
|K - K'| = O(sqrt(n)), and the subset is drawn by rejection on uniformly drawn indices (first distinct hits).

Columns are regenerated from their own stream (the data set's entropy, spawn key j), so column j has the same values
whichever arm asks for it and in whatever order, and no n x d matrix is ever held.

Fresh data (``observed=False``) are never queried for sign queries; by default their accuracies are exact binomials:
the score of a record in group g is N(sum_j c_j m_jg, |c|^2), so acc = [Bin(n_+, p_+) + Bin(n_-, p_-)]/n. These are
exact for each (arm, size) but independent across sizes and arms (the direct engine's fresh accuracies share one
data set); ``fresh_accuracy="columns"`` gives the jointly exact version at O(n) per column.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from adaptive_repro.lazy import LazyModule
from adaptive_repro.simulation import analyst
from adaptive_repro.simulation.data_models import BatchChain, DataModel, Population
from adaptive_repro.simulation.engines import Dataset, Engine

special = LazyModule("scipy.special")  # imported when a simulation first needs it, not by a job reading specs

FRESH_ACCURACY_MODES = ("binomial", "columns")
#: Rounds of rejection sampling in :func:`_sample_indices` before the direct method (never reached in practice).
MAX_REJECTION_ROUNDS = 64


def standard_normal_above(rng: np.random.Generator, a: float, size: int) -> np.ndarray:
    """``size`` i.i.d. draws of Z ~ N(0, 1) conditioned on Z > a, exact up to floating-point rounding: rejection for
    a <= 0 (acceptance >= 1/2), else the inverse survival function in log space (no underflow for large a)."""
    if a <= 0.0:
        out = np.empty(0)
        while out.size < size:
            draw = rng.standard_normal(2 * (size - out.size) + 8)
            out = np.concatenate((out, draw[draw > a]))
        return out[:size]
    log_v = np.log1p(-rng.random(size)) + special.log_ndtr(-a)  # V = (1 - U) P(Z > a), uniform on (0, P(Z > a)]
    return -special.ndtri_exp(log_v)


def standard_normal_at_most(rng: np.random.Generator, b: float, size: int) -> np.ndarray:
    """``size`` i.i.d. draws of Z ~ N(0, 1) conditioned on Z <= b (mirror of :func:`standard_normal_above`)."""
    return -standard_normal_above(rng, -b, size)


def _sample_indices(rng: np.random.Generator, values: np.ndarray, a: float, above: bool, count: int,
                    need: int) -> np.ndarray:
    """A uniform ``need``-subset of the indices i with values[i] > a (``above``) or values[i] <= a (not ``above``);
    ``count`` is the number of such indices.

    Large subsets of the hits: all hit indices, then ``rng.choice`` without replacement. Otherwise rejection:
    i.i.d. uniform indices restricted to the hits are i.i.d. uniform on them, and the first ``need`` distinct ones
    form a uniform subset (exchangeability), at O(need) cost.
    """
    size = values.size
    if need == 0:
        return np.empty(0, dtype=np.intp)
    if 16 * need > count:  # rejection would need more than size / 16 draws
        return rng.choice(np.flatnonzero((values > a) == above), size=need, replace=False)
    found = np.empty(0, dtype=np.intp)
    first_seen = np.empty(size, dtype=np.intp)  # uninitialized: only entries at drawn indices are read
    for _ in range(MAX_REJECTION_ROUNDS):
        draws = rng.integers(0, size, size=int(1.2 * need * size / count) + 8)
        found = np.concatenate((found, draws[(values[draws] > a) == above]))
        order = np.arange(found.size)
        first_seen[found[::-1]] = order[::-1]  # the last write wins: each index's first position in ``found``
        distinct = found[first_seen[found] == order]
        if distinct.size >= need:
            return distinct[:need]
    # Each round finds ~1.2 need hits, so this is reached only if ``count`` overstates the hits (a caller's bug):
    # the direct method is exact whatever the count, and says so if the hits are too few.
    hits = np.flatnonzero((values > a) == above)
    if hits.size < need:
        raise ValueError(f"_sample_indices: {need} indices wanted but only {hits.size} qualify (count = {count})")
    return rng.choice(hits, size=need, replace=False)


class ExactSignDataset(Dataset):
    """One data set of a grouped model, exact in law for sign queries and nested linear classifiers' accuracies.

    A grouped model (the batch chain, and any model whose records fall into groups sharing one latent state for every
    attribute) gives ``group_sizes(rng, pop)`` (drawn exactly) and ``group_means(pop)`` (d x G: the mean of
    u_ij = x_ij y_i in group g; u_ij ~ N(mean, 1) independently given the groups). Records are ordered by group
    (positions do not matter, module docstring); for the batch chain the first ``n_plus`` have r = +1.
    """

    engine = "exact"

    def __init__(self, rng: np.random.Generator, pop: Population, observed: bool = True, *,
                 model: DataModel | None = None, fresh_accuracy: str = "binomial", cache_bytes: int = 128 * 2**20):
        if fresh_accuracy not in FRESH_ACCURACY_MODES:
            raise ValueError(f"fresh_accuracy {fresh_accuracy!r} not allowed; allowed: {FRESH_ACCURACY_MODES}")
        self.pop = pop
        self.observed = observed
        self.fresh_accuracy = fresh_accuracy
        n = pop.n
        model = BatchChain() if model is None else model
        self.group_sizes = np.asarray(model.group_sizes(rng, pop), dtype=np.int64)
        self.bounds = np.concatenate(([0], np.cumsum(self.group_sizes)))  # group g is records bounds[g]:bounds[g+1]
        self.means = model.group_means(pop)  # m[j, g]: the mean of u_ij in group g
        self.positives = rng.binomial(self.group_sizes[None, :], special.ndtr(self.means))  # K_jg, shape (d, G)
        self._entropy = [int(v) for v in rng.integers(0, 2**32, size=4)]
        self._own_rng: np.random.Generator | None = None
        # Columns kept for later arms, first come first kept up to cache_bytes (the top-ranked columns, asked first,
        # are the ones arms share). A cached column is the same array the stream would regenerate.
        self._cache: dict[int, np.ndarray] = {}
        self._cache_slots = int(cache_bytes // (8 * n))

    @property
    def n_plus(self) -> int:
        """Size of the first group (batch chain: #{i: r_i = +1})."""
        return int(self.group_sizes[0])

    def sign_queries(self) -> np.ndarray:
        """q_j = (1/n) #{i: x_ij y_i > 0} for every attribute j, shape (d,)."""
        return self.positives.sum(axis=1) / self.pop.n

    def statistics(self):
        raise ValueError("the exact engine answers sign queries only (docs/METHODS.md §4a); plain-mean statistics "
                         "need engine 'direct' (or 'fast')")

    def clipped_queries(self, clip: float):
        raise ValueError(f"the exact engine answers sign queries only (docs/METHODS.md §4a); clipped queries "
                         f"(clip = {clip}) need engine 'direct'")

    def column_rng(self, j: int) -> np.random.Generator:
        """Column j's own stream: the same numbers whichever arm asks, in any order."""
        return np.random.Generator(np.random.SFC64(np.random.SeedSequence(self._entropy, spawn_key=(int(j),))))

    def own_rng(self) -> np.random.Generator:
        """A stream of the data set's own for fresh binomial accuracies when the caller passes none (spawn key
        (0, 0): never a column's (j,), never the construction stream); created once, then continued."""
        if self._own_rng is None:
            self._own_rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence(self._entropy,
                                                                                       spawn_key=(0, 0))))
        return self._own_rng

    def centered_column(self, j: int) -> np.ndarray:
        """u_ij - m_{j, g(i)} for every record (group "+" first), with exactly K_jg positives u_ij > 0 in group g
        (read-only: it may be the cached array)."""
        j = int(j)
        if j in self._cache:
            return self._cache[j]
        rng = self.column_rng(j)
        z = rng.standard_normal(self.pop.n)
        start = 0
        for g, size in enumerate(self.group_sizes):
            seg = z[start:start + size]
            start += size
            a = -self.means[j, g]  # u_ij > 0 iff z_i > a
            have = int(np.count_nonzero(seg > a))
            surplus = have - int(self.positives[j, g])
            if surplus > 0:  # turn a uniform subset of the positives negative
                seg[_sample_indices(rng, seg, a, True, have, surplus)] = standard_normal_at_most(rng, a, surplus)
            elif surplus < 0:  # turn a uniform subset of the non-positives positive
                seg[_sample_indices(rng, seg, a, False, size - have, -surplus)] = standard_normal_above(
                    rng, a, -surplus)
        z.flags.writeable = False
        if len(self._cache) < self._cache_slots:
            self._cache[j] = z
        return z

    def column(self, j: int) -> np.ndarray:
        """u_ij = x_ij y_i for every record (in group order)."""
        z = self.centered_column(j).copy()
        for g in range(len(self.group_sizes)):
            z[self.bounds[g]:self.bounds[g + 1]] += self.means[j, g]
        return z

    def accuracies(self, ranked, weights, sizes, rng: np.random.Generator | None = None) -> np.ndarray:
        """Accuracy of each nested classifier sign(sum_{j in ranked[:size]} weights_j x_ij) (0.5 for size 0).

        Observed sets (and fresh ones with ``fresh_accuracy="columns"``) accumulate the score column by column and
        ignore ``rng`` (the data are fixed). Fresh sets draw exact binomials from ``rng`` (module docstring).
        """
        ranked = np.asarray(ranked, dtype=np.intp)
        weights = np.asarray(weights, dtype=float)
        sizes = np.asarray(sizes, dtype=np.intp)
        if sizes.size and (sizes.min() < 0 or sizes.max() > ranked.size):
            raise ValueError(f"sizes must be in [0, {ranked.size}], got {sizes.min()}..{sizes.max()}")
        if not self.observed and self.fresh_accuracy == "binomial":
            acc = self._binomial_accuracies(ranked, weights, sizes, self.own_rng() if rng is None else rng)
        else:
            acc = self._column_accuracies(ranked, weights, sizes)
        return np.where(sizes == 0, analyst.EMPTY_CLASSIFIER_ACCURACY, acc)

    def _column_accuracies(self, ranked, weights, sizes) -> np.ndarray:
        n, bounds = self.pop.n, self.bounds
        at_size = {}
        score = np.zeros(n)  # sum_j c_j (u_ij - m_{j, g(i)})
        offset = np.zeros(len(self.group_sizes))  # sum_j c_j m_jg per group
        done = 0
        for size in np.unique(sizes):
            for j, c in zip(ranked[done:size], weights[done:size]):
                z = self.centered_column(j)
                if c == 1.0:
                    score += z
                elif c == -1.0:
                    score -= z
                elif c != 0.0:
                    score += c * z
                offset += c * self.means[j]
            done = size
            # sign(x_i . c) = y_i iff score_i + offset_g > 0
            at_size[size] = sum(np.count_nonzero(score[bounds[g]:bounds[g + 1]] > -offset[g])
                                for g in range(len(offset))) / n
        return np.array([at_size[s] for s in sizes], dtype=float)

    def _binomial_accuracies(self, ranked, weights, sizes, rng: np.random.Generator) -> np.ndarray:
        groups = len(self.group_sizes)
        mean = np.vstack((np.zeros((1, groups)), np.cumsum(weights[:, None] * self.means[ranked], axis=0)))[sizes]
        norm = np.sqrt(np.concatenate(([0.0], np.cumsum(weights**2))))[sizes]
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(norm[:, None] > 0, special.ndtr(mean / norm[:, None]), (mean > 0).astype(float))
        return rng.binomial(self.group_sizes[None, :], p).sum(axis=1) / self.pop.n


@dataclasses.dataclass(frozen=True)
class ExactSignEngine(Engine):
    """The exact sign-query engine of grouped models (the batch chain, regimes, households; module docstring)."""

    name: str = "exact"

    def dataset(self, rng: np.random.Generator, model: DataModel, pop: Population, observed: bool) -> ExactSignDataset:
        return ExactSignDataset(rng, pop, observed=observed, model=model)
