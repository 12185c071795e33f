"""Columns of the exact sign-query engines drawn a block at a time (docs/METHODS.md §4a; this project's method).

An exact engine's column j in a group g of records is i.i.d. N(m_jg, 1) conditioned on exactly K_jg positives (the
count behind the sign query the analyst saw). :mod:`adaptive_repro.simulation.sign_engine` explains why drawing the
group i.i.d. and then turning a uniform subset of the surplus side into fresh draws truncated to the other side gives
that law. This module does the same for a block of columns with a fixed number of numpy calls per block instead of
several per column and group, which is what kept the engines far above their random-number floor:

1. **One stream per column, cheap to start.** Column j of a data set draws from a SFC64 stream whose three seed
   words are words 3j..3j+2 of a seeding stream (a SFC64 seeded by the data set's SeedSequence; all columns' words
   at once) and which is then advanced 12 steps, as numpy seeds a SFC64. Column j has the same values whichever
   arm asks for it, alone or in any block, in any order. The stream gives n normals, then the uniforms the
   conditioning spends (``spare``).
2. **Uniform subsets by ranks.** In a row (one column's group) with ``have`` entries above the threshold and
   ``target`` wanted, the surplus side has ``count`` candidates and ``need`` = |have - target| must change side. The
   first ``need`` distinct values among i.i.d. uniform ranks floor(u * count) form a uniform ``need``-subset of the
   ranks (exchangeability; uniform up to the 2^-53 grid of the uniforms); the rank-r candidate (in record order) is
   the entry changed. Compiled loops (:mod:`~adaptive_repro.simulation.column_kernels`) count each row's members,
   find the first distinct ranks and map them to records in one pass over the row.
3. **Truncated values by the inverse CDF in log space**, exact up to rounding at any threshold, and clamped to
   their side (so the count is exact even where rounding would land on the threshold).
4. **A row that runs short** of spare uniforms, or of distinct ranks, is redrawn whole from the column's next
   stream (a larger spare; rare by design). Whether a row runs short depends on its counts and on how many ranks
   repeat, an event invariant under relabelling the ranks: given either outcome the chosen subset is uniform and the
   result has the conditioned law, so the retry changes no law.
"""

from __future__ import annotations

import math
from typing import Callable, ClassVar

import numpy as np
from scipy import special

#: Attempts with a four times larger spare each before giving up on a column (a row runs short with probability
#: about 1e-6 to 1e-4 at the first attempt, far less after).
MAX_ATTEMPTS = 8


def spare_uniforms(n: int, rows_per_column: int) -> int:
    """Spare uniforms a column draws for ``rows_per_column`` conditioned rows over n records: a row spends about
    3 * need + 8 (:func:`coupon_draws`), |have - target| has SD <= sqrt(n_g / 2), so this leaves room for a surplus
    about 4-5 standard deviations out (a row that runs short is drawn again: a cost, not a bias)."""
    return int(8 * math.sqrt(n * rows_per_column)) + 24 * rows_per_column + 64


class ColumnStreams:
    """Every column's stream of one data set (module docstring, item 1). ``started`` counts the column streams
    started in this process, all data sets together (what benchmarks/correlation_engines.py reports)."""

    started: ClassVar[int] = 0

    def __init__(self, entropy: int, columns: int):
        self.entropy, self.columns = entropy, columns
        self._bit_generator = np.random.SFC64(0)
        self.generator = np.random.Generator(self._bit_generator)
        self._words: dict[int, np.ndarray] = {}
        self._seed = np.ones(4, dtype=np.uint64)  # three seed words, then the counter 1 (numpy's SFC64 seeding)
        self._state = {"bit_generator": "SFC64", "has_uint32": 0, "uinteger": 0, "state": {"state": self._seed}}

    def _seed_words(self, attempt: int) -> np.ndarray:
        if attempt not in self._words:
            seeder = np.random.SFC64(np.random.SeedSequence(self.entropy, spawn_key=(1, attempt)))
            self._words[attempt] = seeder.random_raw(3 * self.columns).reshape(self.columns, 3)
        return self._words[attempt]

    def start(self, column: int, attempt: int = 0) -> np.random.Generator:
        """The generator, set to the start of ``column``'s stream of attempt ``attempt``."""
        ColumnStreams.started += 1
        self._seed[:3] = self._seed_words(attempt)[column]
        self._bit_generator.state = self._state
        self._bit_generator.random_raw(12)
        return self.generator


def normals_above(a: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Z ~ N(0, 1) conditioned on Z > a, one per pair (a, u) with u uniform on [0, 1): the inverse survival function
    in log space, kept strictly above a (rounding can return a itself for u near 0, which would change the count)."""
    return np.maximum(-special.ndtri_exp(np.log1p(-u) + special.log_ndtr(-a)), np.nextafter(a, np.inf))


def normals_at_most(a: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Z ~ N(0, 1) conditioned on Z <= a, one per pair (a, u) with u uniform on [0, 1), kept at most a."""
    return np.minimum(special.ndtri_exp(np.log1p(-u) + special.log_ndtr(a)), a)


def coupon_draws(count: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Uniform ranks a row draws to find ``need`` distinct of ``count``: twice the coupon collector's expected
    draws, and 8 more (module docstring, item 2)."""
    return np.ceil(2.0 * count * np.log((count + 0.5) / (count - need + 0.5))).astype(np.int64) + 8


def _redrawn(uniform: bool, down: np.ndarray, threshold: np.ndarray, value_u: np.ndarray) -> np.ndarray:
    """New values on the other side of ``threshold``: at most it where ``down``, above it elsewhere."""
    at_most, above = (uniforms_at_most, uniforms_above) if uniform else (normals_at_most, normals_above)
    return np.where(down, at_most(threshold, value_u), above(threshold, value_u))


#: ``labels`` meaning "every entry in the row's range is a member"
NO_LABELS = np.empty((0, 0), dtype=bool)


def condition_rows(z: np.ndarray, threshold: np.ndarray, target: np.ndarray, spare: np.ndarray, used: np.ndarray,
                   lo: np.ndarray | None = None, hi: np.ndarray | None = None, labels: np.ndarray = NO_LABELS,
                   label: bool = True, uniform: bool = False) -> np.ndarray:
    """Make exactly ``target[r]`` of row r's members exceed ``threshold[r]``, in place: a uniform subset of the
    surplus side is redrawn truncated to the other side (module docstring). Row r's members are its entries
    ``lo[r] <= i < hi[r]`` (the whole row by default) whose ``labels[r, i]`` equal ``label`` (if ``labels`` are
    given). ``z``'s entries are i.i.d. N(0, 1) draws (``uniform``: Uniform(0, 1) draws); each row spends its spare
    uniforms from ``used[r]`` on (advanced in place). Returns the rows that ran short (to be redrawn whole).

    The counting and choosing run in compiled loops (:mod:`~adaptive_repro.simulation.column_kernels`, imported
    here so that only the engines that draw columns load numba)."""
    from adaptive_repro.simulation import column_kernels

    rows_total, width = z.shape
    lo = np.zeros(rows_total, dtype=np.int64) if lo is None else np.asarray(lo, dtype=np.int64)
    hi = np.full(rows_total, width, dtype=np.int64) if hi is None else np.asarray(hi, dtype=np.int64)
    threshold = np.asarray(threshold, dtype=float)
    have, size = column_kernels.count_members_above(z, threshold, lo, hi, labels, label)
    surplus = have - np.asarray(target)
    rows = np.flatnonzero(surplus)
    if rows.size == 0:
        return rows
    down = surplus[rows] > 0  # too many above: candidates are the entries above
    count = np.where(down, have[rows], size[rows] - have[rows])
    need = np.abs(surplus[rows])
    pair, record, value_u, short = column_kernels.choose_surplus(
        z, threshold, lo, hi, labels, label, rows, down, count, need, coupon_draws(count, need), spare, used)
    z[rows[pair], record] = _redrawn(uniform, down[pair], threshold[rows[pair]], value_u)
    return short


def uniforms_above(t: np.ndarray, v: np.ndarray) -> np.ndarray:
    """U ~ Uniform(0, 1) conditioned on U > t, one per pair (t, v) with v uniform on [0, 1), kept strictly above t."""
    return np.maximum(t + (1.0 - t) * (1.0 - v), np.nextafter(t, np.inf))


def uniforms_at_most(t: np.ndarray, v: np.ndarray) -> np.ndarray:
    """U ~ Uniform(0, 1) conditioned on U <= t, one per pair (t, v) with v uniform on [0, 1)."""
    return t * (1.0 - v)


def block_columns(n: int) -> int:
    """Columns per block: about 16 MB of normals, at most 256 columns."""
    return max(1, min(256, (1 << 21) // max(n, 1)))


def shared_column_order(orders: list[np.ndarray]) -> list[int] | None:
    """One order of the union of several column orders that keeps each order's own, or None if there is none (two
    orders that disagree, or a cycle through several). Arms rank the attributes they keep by the same training
    statistics, so their orders agree and every column can be drawn once and added to each arm's score in turn.

    A topological order (Kahn's algorithm) of the graph whose edges join each order's consecutive columns: it keeps
    every order, and it exists iff the graph has no cycle, i.e. iff no two orders disagree."""
    orders = [np.asarray(order, dtype=np.int64) for order in orders]
    columns, node = np.unique(np.concatenate(orders) if orders else np.empty(0, np.int64), return_inverse=True)
    ends = np.cumsum([order.size for order in orders], dtype=np.int64)
    edge = np.ones(node.size, dtype=bool)
    edge[ends[ends < node.size]] = False  # no edge from one order's last column to the next order's first
    edge[0:1] = False
    source, target = node[np.flatnonzero(edge) - 1], node[edge]
    indegree = np.bincount(target, minlength=columns.size).tolist()
    by_source = np.argsort(source, kind="stable")
    starts = np.searchsorted(source[by_source], np.arange(columns.size + 1)).tolist()
    successors = target[by_source].tolist()
    ready = [v for v in range(columns.size) if indegree[v] == 0][::-1]
    merged: list[int] = []
    while ready:
        v = ready.pop()
        merged.append(v)
        for w in successors[starts[v]:starts[v + 1]]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    return columns[merged].tolist() if len(merged) == columns.size else None


def nested_accuracies(families: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
                      draw_block: Callable[[np.ndarray], np.ndarray], n: int,
                      accuracy_at: Callable[[int, np.ndarray, int], float]) -> list[np.ndarray]:
    """Accuracies of families of nested classifiers (ranked, weights, sizes) from columns drawn a block at a time in
    one order every family's agrees with (:func:`shared_column_order`; family by family if their orders disagree):
    each family's score grows column by column in its own order (no BLAS call: the sums, and so the accuracies, are
    the same whatever the blocks), and ``accuracy_at(family, score, size)`` is recorded at every size."""
    used = [ranked[:int(sizes.max(initial=0))] for ranked, _, sizes in families]
    order = shared_column_order(used)
    if order is None:
        return [nested_accuracies([family], draw_block, n, lambda _, score, size, f=f: accuracy_at(f, score, size))[0]
                for f, family in enumerate(families)]
    position = {j: p for p, j in enumerate(order)}
    places = [np.array([position[j] for j in columns.tolist()], dtype=np.int64) for columns in used]
    scores = [np.zeros(n) for _ in families]
    done = [0] * len(families)
    at_size: list[dict[int, float]] = [{} for _ in families]
    for f, (_, _, sizes) in enumerate(families):
        if 0 in sizes:
            at_size[f][0] = accuracy_at(f, scores[f], 0)
    step = block_columns(n)
    for first in range(0, len(order), step):
        block = draw_block(np.asarray(order[first:first + step], dtype=np.int64))
        for f, (_, weights, sizes) in enumerate(families):
            checkpoints = set(sizes.tolist())
            end = int(np.searchsorted(places[f], first + step))
            score, rows = scores[f], (places[f][done[f]:end] - first).tolist()
            for i, row, c in zip(range(done[f], end), rows, weights[done[f]:end].tolist()):
                if c == 1.0:
                    score += block[row]
                elif c == -1.0:
                    score -= block[row]
                elif c != 0.0:
                    score += c * block[row]
                if i + 1 in checkpoints:
                    at_size[f][i + 1] = accuracy_at(f, score, i + 1)
            done[f] = end
    return [np.array([at_size[f][int(s)] for s in sizes], dtype=float) for f, (_, _, sizes) in enumerate(families)]


def draw_rows(streams: ColumnStreams, columns: np.ndarray, n: int, extra: int, rows_per_column: int,
              condition: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray],
              ) -> np.ndarray:
    """One row of n values per column: each column's stream gives n normals, ``extra`` uniforms, then its spare
    uniforms (:func:`spare_uniforms` for ``rows_per_column`` conditioned rows), and ``condition(columns, z, extras,
    spare, used)`` turns the normals into the column's values in place, returning the rows that ran short; those
    are drawn again from their columns' next streams with four times the spare (module docstring, item 4)."""
    out = np.empty(0)
    todo = np.arange(columns.size)
    for attempt in range(MAX_ATTEMPTS):
        cols = columns[todo]
        z = np.empty((cols.size, n))
        extras = np.empty((cols.size, extra))
        spare = np.empty((cols.size, spare_uniforms(n, rows_per_column) * 4**attempt))
        for r, j in enumerate(cols.tolist()):
            generator = streams.start(j, attempt)
            generator.standard_normal(out=z[r])
            generator.random(out=extras[r])
            generator.random(out=spare[r])
        done = np.ones(cols.size, dtype=bool)
        done[condition(cols, z, extras, spare, np.zeros(cols.size, dtype=np.int64))] = False
        if attempt == 0:
            out = z  # most blocks are done at the first attempt: no copy
        else:
            out[todo[done]] = z[done]
        todo = todo[~done]
        if todo.size == 0:
            return out
    raise RuntimeError(f"draw_rows: columns {columns[todo].tolist()} ran short in {MAX_ATTEMPTS} attempts")
