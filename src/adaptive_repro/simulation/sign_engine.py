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
whichever arm asks for it and in whatever order, and no n x d matrix is ever held. Arms measured together
(:meth:`ExactSignDataset.accuracies_many`) share one pass over the union of their columns, each column drawn once
and added to the score of every arm that uses it.

Fresh data (``observed=False``) are never queried for sign queries; by default their accuracies are exact binomials:
the score of a record in group g is N(sum_j c_j m_jg, |c|^2), so acc = [Bin(n_+, p_+) + Bin(n_-, p_-)]/n. These are
exact for each (arm, size) but independent across sizes and arms (the direct engine's fresh accuracies share one
data set); ``fresh_accuracy="columns"`` gives the jointly exact version at O(n) per column.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import special

from adaptive_repro.simulation import analyst
from adaptive_repro.simulation.data_models import BatchChain, DataModel, Population
from adaptive_repro.simulation.engines import Dataset, Engine

FRESH_ACCURACY_MODES = ("binomial", "columns")
#: Rounds of rejection sampling in :func:`_sample_indices` before the direct method (never reached in practice).
MAX_REJECTION_ROUNDS = 64


def stream_entropy(rng: np.random.Generator) -> int:
    """A data set's entropy for its column streams: four 32-bit words from ``rng``, as one integer (little-endian).
    A SeedSequence with a spawn key pads its entropy to four words, so this gives the streams of the list of words,
    and it is mixed about twice as fast (a stream is made for every drawn column)."""
    words = rng.integers(0, 2**32, size=4)
    return sum(int(w) << (32 * i) for i, w in enumerate(words))


def substream(entropy: int, *key: int) -> np.random.Generator:
    """The stream with spawn key ``key`` of a data set's entropy (:func:`stream_entropy`): SFC64, the fastest of
    numpy's bit generators to seed."""
    return np.random.Generator(np.random.SFC64(np.random.SeedSequence(entropy, spawn_key=key)))


def standard_normal_above(rng: np.random.Generator, a: float, size: int) -> np.ndarray:
    """``size`` i.i.d. draws of Z ~ N(0, 1) conditioned on Z > a, exact up to floating-point rounding: rejection for
    a <= 0 (acceptance >= 1/2), else the inverse survival function in log space (no underflow for large a)."""
    if a <= 0.0:
        out = np.empty(0)
        while out.size < size:
            draw = rng.standard_normal(2 * (size - out.size) + 8)
            kept = draw[draw > a]
            out = np.concatenate((out, kept)) if out.size else kept  # one round is the rule
        return out[:size]
    log_v = np.log1p(-rng.random(size)) + special.log_ndtr(-a)  # V = (1 - U) P(Z > a), uniform on (0, P(Z > a)]
    return -special.ndtri_exp(log_v)


def standard_normal_at_most(rng: np.random.Generator, b: float, size: int) -> np.ndarray:
    """``size`` i.i.d. draws of Z ~ N(0, 1) conditioned on Z <= b (mirror of :func:`standard_normal_above`)."""
    return -standard_normal_above(rng, -b, size)


def condition_on_count(rng: np.random.Generator, seg: np.ndarray, a: float, positives: int) -> None:
    """Make exactly ``positives`` entries of ``seg`` (i.i.d. N(0, 1) draws) exceed ``a``, in place: a uniform subset
    of the surplus side is replaced by fresh draws truncated to the other side (module docstring), which gives the
    i.i.d. law conditioned on the count. Every exact engine draws its columns' groups with this."""
    above = seg > a
    have = int(np.count_nonzero(above))
    surplus = have - positives
    # Python evaluates the right-hand side first: the fresh draws, then the subset (the streams' fixed order).
    if surplus > 0:  # turn a uniform subset of the positives negative
        seg[_sample_indices(rng, above, have, surplus)] = standard_normal_at_most(rng, a, surplus)
    elif surplus < 0:  # turn a uniform subset of the non-positives positive
        seg[_sample_indices(rng, ~above, seg.size - have, -surplus)] = standard_normal_above(rng, a, -surplus)


def _sample_indices(rng: np.random.Generator, hits: np.ndarray, count: int, need: int) -> np.ndarray:
    """A uniform ``need``-subset of the indices where the boolean array ``hits`` is True; ``count`` is their number.

    Large subsets of the hits: all hit indices, then ``rng.choice`` without replacement. Otherwise rejection:
    i.i.d. uniform indices restricted to the hits are i.i.d. uniform on them, and the first ``need`` distinct ones
    form a uniform subset (exchangeability), at O(need) cost. (Called once per group of every drawn column, so it
    keeps to a few numpy calls: the distinct hits are the keys of a dict, which keeps their first-seen order.)
    """
    size = hits.size
    if need == 0:
        return np.empty(0, dtype=np.intp)
    if 16 * need > count:  # rejection would need more than size / 16 draws
        return rng.choice(np.flatnonzero(hits), size=need, replace=False)
    distinct: dict[int, None] = {}  # hit indices in order of first appearance
    for _ in range(MAX_REJECTION_ROUNDS):
        draws = rng.integers(0, size, size=int(1.2 * need * size / count) + 8)
        distinct.update(dict.fromkeys(draws[hits[draws]].tolist()))
        if len(distinct) >= need:
            return np.fromiter(distinct, dtype=np.intp, count=need)
    # Each round finds ~1.2 need hits, so this is reached only if ``count`` overstates the hits (a caller's bug):
    # the direct method is exact whatever the count, and says so if the hits are too few.
    found = np.flatnonzero(hits)
    if found.size < need:
        raise ValueError(f"_sample_indices: {need} indices wanted but only {found.size} qualify (count = {count})")
    return rng.choice(found, size=need, replace=False)


def shared_column_order(orders: list[np.ndarray]) -> list[int] | None:
    """One order of the union of several column orders that keeps each order's own, or None if two orders disagree
    (a column first in one and later in the other). Arms rank the attributes they keep by the same training
    statistics, so their orders agree and every column can be drawn once and added to each arm's score in turn."""
    lists = [order.tolist() for order in orders]
    positions = [{j: p for p, j in enumerate(columns)} for columns in lists]
    heads = [0] * len(lists)
    merged: list[int] = []
    while True:
        nexts = [columns[head] for columns, head in zip(lists, heads) if head < len(columns)]
        if not nexts:
            return merged
        # a column can come next once it is next in every order that has it
        ready = next((j for j in nexts if all(pos.get(j, head) == head for pos, head in zip(positions, heads))), None)
        if ready is None:
            return None
        merged.append(ready)
        for k, pos in enumerate(positions):
            if ready in pos:
                heads[k] += 1


def _checked_classifiers(ranked, weights, sizes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ranked, weights, sizes) as arrays, sizes checked to lie in [0, len(ranked)]."""
    ranked = np.asarray(ranked, dtype=np.intp)
    weights = np.asarray(weights, dtype=float)
    sizes = np.asarray(sizes, dtype=np.intp)
    if sizes.size and (sizes.min() < 0 or sizes.max() > ranked.size):
        raise ValueError(f"sizes must be in [0, {ranked.size}], got {sizes.min()}..{sizes.max()}")
    return ranked, weights, sizes


class _NestedScore:
    """The score of one family of nested classifiers on an :class:`ExactSignDataset`, grown column by column in
    the family's order: score_i = sum_j c_j (u_ij - m_{j, g(i)}) and offset_g = sum_j c_j m_jg over its first
    ``done`` columns, with the accuracy recorded at every size of the family (sign(x_i . c) = y_i iff
    score_i + offset_g > 0)."""

    def __init__(self, dataset: ExactSignDataset, weights: np.ndarray, sizes: np.ndarray):
        self.dataset, self.weights, self.sizes = dataset, weights, sizes
        self.score = np.zeros(dataset.pop.n)
        self.offset = np.zeros(len(dataset.group_sizes))
        self.done = 0
        self.checkpoints = set(sizes.tolist())
        self.at_size: dict[int, float] = {}
        self._record()

    def add(self, z: np.ndarray, means: np.ndarray) -> None:
        """Add the next column (centered values ``z``, group means ``means``) with its weight."""
        c = self.weights[self.done]
        if c == 1.0:
            self.score += z
        elif c == -1.0:
            self.score -= z
        elif c != 0.0:
            self.score += c * z
        self.offset += c * means
        self.done += 1
        self._record()

    def _record(self) -> None:
        """The accuracy after ``done`` columns, if that is a size of the family."""
        if self.done in self.checkpoints:
            bounds, n = self.dataset.bounds, self.dataset.pop.n
            self.at_size[self.done] = sum(np.count_nonzero(self.score[bounds[g]:bounds[g + 1]] > -self.offset[g])
                                          for g in range(len(self.offset))) / n

    def accuracies(self) -> np.ndarray:
        """The accuracy at each size of the family."""
        return np.array([self.at_size[int(s)] for s in self.sizes], dtype=float)


class ExactSignDataset(Dataset):
    """One data set of a grouped model, exact in law for sign queries and nested linear classifiers' accuracies.

    A grouped model (the batch chain, and any model whose records fall into groups sharing one latent state for every
    attribute) gives ``group_sizes(rng, pop)`` (drawn exactly) and ``group_means(pop)`` (d x G: the mean of
    u_ij = x_ij y_i in group g; u_ij ~ N(mean, 1) independently given the groups). Records are ordered by group
    (positions do not matter, module docstring); for the batch chain the first ``n_plus`` have r = +1.
    """

    engine = "exact"

    def __init__(self, rng: np.random.Generator, pop: Population, observed: bool = True, *,
                 model: DataModel | None = None, fresh_accuracy: str = "binomial"):
        if fresh_accuracy not in FRESH_ACCURACY_MODES:
            raise ValueError(f"fresh_accuracy {fresh_accuracy!r} not allowed; allowed: {FRESH_ACCURACY_MODES}")
        self.pop = pop
        self.observed = observed
        self.fresh_accuracy = fresh_accuracy
        model = BatchChain() if model is None else model
        self.group_sizes = np.asarray(model.group_sizes(rng, pop), dtype=np.int64)
        self.bounds = np.concatenate(([0], np.cumsum(self.group_sizes)))  # group g is records bounds[g]:bounds[g+1]
        self._starts, self._stops = self.bounds[:-1].tolist(), self.bounds[1:].tolist()
        self.means = model.group_means(pop)  # m[j, g]: the mean of u_ij in group g
        self.positives = rng.binomial(self.group_sizes[None, :], special.ndtr(self.means))  # K_jg, shape (d, G)
        self._entropy = stream_entropy(rng)
        self._own_rng: np.random.Generator | None = None

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
        return substream(self._entropy, int(j))

    def own_rng(self) -> np.random.Generator:
        """A stream of the data set's own for fresh binomial accuracies when the caller passes none (spawn key
        (0, 0): never a column's (j,), never the construction stream); created once, then continued."""
        if self._own_rng is None:
            self._own_rng = substream(self._entropy, 0, 0)
        return self._own_rng

    def centered_column(self, j: int) -> np.ndarray:
        """u_ij - m_{j, g(i)} for every record (group "+" first), with exactly K_jg positives u_ij > 0 in group g
        (drawn afresh from its stream at every call; arms measured together share one draw)."""
        rng = self.column_rng(int(j))
        z = rng.standard_normal(self.pop.n)
        for start, stop, mean, positives in zip(self._starts, self._stops, self.means[j].tolist(),
                                                self.positives[j].tolist()):
            if start == stop:
                continue  # an empty group draws nothing
            condition_on_count(rng, z[start:stop], -mean, positives)  # u_ij > 0 iff z_i > -m_jg
        return z

    def column(self, j: int) -> np.ndarray:
        """u_ij = x_ij y_i for every record (in group order)."""
        z = self.centered_column(j)
        for g in range(len(self.group_sizes)):
            z[self.bounds[g]:self.bounds[g + 1]] += self.means[j, g]
        return z

    def accuracies(self, ranked, weights, sizes, rng: np.random.Generator | None = None) -> np.ndarray:
        """Accuracy of each nested classifier sign(sum_{j in ranked[:size]} weights_j x_ij) (0.5 for size 0).

        Observed sets (and fresh ones with ``fresh_accuracy="columns"``) accumulate the score column by column and
        ignore ``rng`` (the data are fixed). Fresh sets draw exact binomials from ``rng`` (module docstring).
        """
        return self.accuracies_many([(ranked, weights, sizes)], [rng])[0]

    def accuracies_many(self, classifiers, rngs) -> list[np.ndarray]:
        """:meth:`accuracies` of several families of nested classifiers (one per arm). On columns, each column is
        drawn once for all the families whose orders agree (:func:`shared_column_order`)."""
        checked = [_checked_classifiers(*c) for c in classifiers]
        if not self.observed and self.fresh_accuracy == "binomial":
            accs = [self._binomial_accuracies(*c, self.own_rng() if rng is None else rng)
                    for c, rng in zip(checked, rngs)]
        else:
            accs = self._column_accuracies(checked)
        empty = analyst.EMPTY_CLASSIFIER_ACCURACY
        return [np.where(sizes == 0, empty, acc) for (_, _, sizes), acc in zip(checked, accs)]

    def _column_accuracies(self, classifiers: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
        """Accuracies from the columns: one pass over the columns in an order every family's agrees with, each
        column added to the score of every family that uses it (family by family if their orders disagree)."""
        used = [ranked[:int(sizes.max(initial=0))] for ranked, _, sizes in classifiers]
        order = shared_column_order(used)
        if order is None:
            return [self._column_accuracies([c])[0] for c in classifiers]
        scores = [_NestedScore(self, weights, sizes) for _, weights, sizes in classifiers]
        users: dict[int, list[_NestedScore]] = {}
        for score, columns in zip(scores, used):
            for j in columns.tolist():
                users.setdefault(j, []).append(score)
        for j in order:
            z = self.centered_column(j)
            for score in users[j]:
                score.add(z, self.means[j])
        return [score.accuracies() for score in scores]

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
