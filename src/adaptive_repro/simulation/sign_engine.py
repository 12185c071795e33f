"""Exact engine for the chain model with sign queries (docs/METHODS.md §4a; this project's method, not a paper's).

Sign query: q_j(X) = (1/n) sum_i 1[x_ij y_i > 0], a statistical query in [0, 1] with Delta_Q = 1/n.

Reduction (derived and checked by exact enumeration in tests/unit/simulation/test_sign_engine.py):

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

Drawing a column given K_jg in O(n) without a permutation: draw the group i.i.d. N(m_jg, 1); it has K' positives
at a uniform K'-subset with truncated values. If K' > K, turn a uniform (K' - K)-subset of the positives into fresh
negative truncated draws (if K' < K, the reverse). The kept positives are a uniform K-subset of a uniform K'-subset,
hence uniform, and every value keeps its truncated law independently. |K - K'| = O(sqrt(n)).
:mod:`adaptive_repro.simulation.column_blocks` does this for a block of columns at once, each column from its own
stream (so column j has the same values whichever arm asks for it, and in whatever order), and no n x d matrix is
ever held. Arms measured together (:meth:`ExactSignDataset.accuracies_many`) share one pass over the union of
their columns, each column drawn once and added to the score of every arm that uses it.

Fresh data (``observed=False``) are never queried for sign queries; by default their accuracies are exact binomials:
the score of a record in group g is N(sum_j c_j m_jg, |c|^2), so acc = [Bin(n_+, p_+) + Bin(n_-, p_-)]/n. These are
exact for each (arm, size) but independent across sizes and arms (the direct engine's fresh accuracies share one
data set); ``fresh_accuracy="columns"`` gives the jointly exact version at O(n) per column.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import special

from adaptive_repro.simulation import analyst, column_blocks
from adaptive_repro.simulation.data_models import BatchChain, DataModel, Population
from adaptive_repro.simulation.engines import Dataset, Engine

FRESH_ACCURACY_MODES = ("binomial", "columns")


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


def checked_classifiers(ranked, weights, sizes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ranked, weights, sizes) as arrays, sizes checked to lie in [0, len(ranked)] and no column used twice."""
    ranked = np.asarray(ranked, dtype=np.intp)
    weights = np.asarray(weights, dtype=float)
    sizes = np.asarray(sizes, dtype=np.intp)
    if sizes.size and (sizes.min() < 0 or sizes.max() > ranked.size):
        raise ValueError(f"sizes must be in [0, {ranked.size}], got {sizes.min()}..{sizes.max()}")
    used = ranked[:int(sizes.max(initial=0))]
    if np.unique(used).size < used.size:
        raise ValueError("ranked: a nested classifier uses each attribute once; a column is repeated")
    return ranked, weights, sizes


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
        self.positive_probabilities = special.ndtr(self.means)  # Phi(m_jg): P[u_ij > 0] in group g
        self.positives = rng.binomial(self.group_sizes[None, :], self.positive_probabilities)  # K_jg, shape (d, G)
        self._entropy = stream_entropy(rng)
        self._streams = column_blocks.ColumnStreams(self._entropy, len(self.means))
        self._own_rng: np.random.Generator | None = None

    @property
    def n_plus(self) -> int:
        """Size of the first group (batch chain: #{i: r_i = +1})."""
        return int(self.group_sizes[0])

    def state_share_shift(self, other: Dataset) -> float:
        """sqrt(mean_j (sum_g (s_g - s'_g) Phi(m_jg))^2), s_g and s'_g the groups' shares of this data set's and
        ``other``'s records: given the groups, E[q_j] = sum_g s_g Phi(m_jg) (module docstring, step 5), so this is the
        root-mean-square over attributes of the expected sign-query difference the groups' shares alone make."""
        if not isinstance(other, ExactSignDataset) or other.means.shape != self.means.shape:
            return float("nan")
        shares = self.group_sizes / self.pop.n - other.group_sizes / other.pop.n
        return float(np.sqrt(np.mean((self.positive_probabilities @ shares) ** 2)))

    def sign_queries(self) -> np.ndarray:
        """q_j = (1/n) #{i: x_ij y_i > 0} for every attribute j, shape (d,)."""
        return self.positives.sum(axis=1) / self.pop.n

    def statistics(self):
        raise ValueError("the exact engine answers sign queries only (docs/METHODS.md §4a); plain-mean statistics "
                         "need engine 'direct' (or 'fast')")

    def clipped_queries(self, clip: float):
        raise ValueError(f"the exact engine answers sign queries only (docs/METHODS.md §4a); clipped queries "
                         f"(clip = {clip}) need engine 'direct'")

    def own_rng(self) -> np.random.Generator:
        """A stream of the data set's own for fresh binomial accuracies when the caller passes none (spawn key
        (0, 0): never a column's (j,), never the construction stream); created once, then continued."""
        if self._own_rng is None:
            self._own_rng = substream(self._entropy, 0, 0)
        return self._own_rng

    def centered_block(self, columns) -> np.ndarray:
        """u_ij - m_{j, g(i)} for each of ``columns`` (one row each) and every record (group "+" first), with exactly
        K_jg positives u_ij > 0 in group g (:mod:`~adaptive_repro.simulation.column_blocks`: column j has the same
        values alone or in any block)."""
        groups = [(g, start, stop) for g, (start, stop) in enumerate(zip(self._starts, self._stops)) if stop > start]

        def condition(cols, z, extras, spare, used):  # u_ij > 0 iff z_ij > -m_jg
            rows = np.ones(cols.size, dtype=np.int64)
            return np.concatenate([column_blocks.condition_rows(z, -self.means[cols, g], self.positives[cols, g],
                                                                spare, used, start * rows, stop * rows)
                                   for g, start, stop in groups])

        columns = np.atleast_1d(np.asarray(columns, dtype=np.int64))
        return column_blocks.draw_rows(self._streams, columns, self.pop.n, 0, len(groups), condition)

    def centered_column(self, j: int) -> np.ndarray:
        """Column j's row of :meth:`centered_block`."""
        return self.centered_block([j])[0]

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
        drawn once for all the families whose orders agree (:func:`column_blocks.shared_column_order`)."""
        checked = [checked_classifiers(*c) for c in classifiers]
        if not self.observed and self.fresh_accuracy == "binomial":
            accs = [self._binomial_accuracies(*c, self.own_rng() if rng is None else rng)
                    for c, rng in zip(checked, rngs)]
        else:
            accs = self._column_accuracies(checked)
        empty = analyst.EMPTY_CLASSIFIER_ACCURACY
        return [np.where(sizes == 0, empty, acc) for (_, _, sizes), acc in zip(checked, accs)]

    def _column_accuracies(self, classifiers: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
        """Accuracies from the columns, drawn a block at a time (:func:`column_blocks.nested_accuracies`: each column
        once for all the families whose orders agree)."""
        used = [ranked[:int(sizes.max(initial=0))] for ranked, _, sizes in classifiers]
        offsets = [np.vstack((np.zeros((1, len(self.group_sizes))),
                              np.cumsum(weights[:columns.size, None] * self.means[columns], axis=0)))
                   for columns, (_, weights, _) in zip(used, classifiers)]  # offset_g after each size
        bounds, n = self.bounds, self.pop.n

        def accuracy_at(family: int, score: np.ndarray, size: int) -> float:
            offset = offsets[family][size]  # sign(x_i . c) = y_i iff score_i + offset_g > 0
            return sum(np.count_nonzero(score[bounds[g]:bounds[g + 1]] > -offset[g])
                       for g in range(len(offset))) / n

        return column_blocks.nested_accuracies(classifiers, self.centered_block, n, accuracy_at)

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
