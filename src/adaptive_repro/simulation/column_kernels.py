"""Compiled loops of the exact engines' column draws (numba): one pass over a block's values for the counting,
choosing and placing of :mod:`~adaptive_repro.simulation.column_blocks` (instead of masks, counts, candidate lists
and ranks built as arrays).

tests/unit/simulation/test_column_kernels.py checks that they compute exactly what an array implementation of the
same rules (kept in the tests) computes from the same uniforms in the same order, to the last bit. The floating-point
work that defines a drawn value (the truncated normals' inverse CDF) stays in numpy and scipy; the loops only count,
choose and place.

A row r of a block is conditioned over its members: the entries i with ``lo[r] <= i < hi[r]`` and, where ``labels``
is given (a 0/1 array of the block's shape), ``labels[r, i] == label``.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def count_members_above(z, threshold, lo, hi, labels, label):  # pragma: no cover - compiled
    """Per row: (the members above the row's threshold, the members)."""
    rows = z.shape[0]
    have = np.zeros(rows, dtype=np.int64)
    size = np.zeros(rows, dtype=np.int64)
    masked = labels.shape[0] > 0
    for r in range(rows):
        t = threshold[r]
        h = 0
        s = 0
        if masked:
            for i in range(lo[r], hi[r]):
                member = labels[r, i] == label
                s += member
                h += member & (z[r, i] > t)
        else:
            s = max(hi[r] - lo[r], 0)
            for i in range(lo[r], hi[r]):
                h += z[r, i] > t
        have[r] = h
        size[r] = s
    return have, size


@numba.njit(cache=True, nogil=True)
def choose_surplus(z, threshold, lo, hi, labels, label, rows, down, count, need, draws, spare,
                   used):  # pragma: no cover - compiled
    """For each listed row (ascending): a uniform ``need``-subset of the ``count`` members on its surplus side (above
    the threshold where ``down``, else not above), by the first ``need`` distinct ranks floor(u * count) among
    ``draws`` spare uniforms from ``used[row]`` on (column_blocks.uniform_ranks), then ``need`` uniforms for the
    new values; ``used[row]`` advances by draws + need whether or not the row fits its spare.

    Returns (the index p of each chosen entry's row in ``rows``, its record, its value uniform, the rows that ran
    short), chosen entries row by row, each row's in the order its ranks were drawn."""
    width = spare.shape[1]
    total = 0
    for p in range(rows.size):
        total += need[p]
    out_pair = np.empty(total, dtype=np.int64)
    out_record = np.empty(total, dtype=np.int64)
    out_u = np.empty(total, dtype=np.float64)
    short = np.empty(rows.size, dtype=np.int64)
    shorts = 0
    chosen = 0
    biggest = 0
    for p in range(rows.size):
        biggest = max(biggest, count[p])
    seen = np.zeros(biggest + 1, dtype=np.bool_)  # ranks drawn so far in the current row
    masked = labels.shape[0] > 0
    for p in range(rows.size):
        r = rows[p]
        start = used[r]
        spend = draws[p] + need[p]
        used[r] += spend
        if start + spend > width:
            short[shorts] = r
            shorts += 1
            continue
        c = count[p]
        distinct = 0
        for k in range(draws[p]):
            rank = np.int64(spare[r, start + k] * c)
            if rank > c - 1:
                rank = c - 1
            if not seen[rank]:
                seen[rank] = True
                out_pair[chosen + distinct] = rank  # the rank, for now
                distinct += 1
                if distinct == need[p]:
                    break
        if distinct < need[p]:
            for q in range(distinct):
                seen[out_pair[chosen + q]] = False
            short[shorts] = r
            shorts += 1
            continue
        t = threshold[r]
        side = np.int64(down[p])
        order = np.argsort(out_pair[chosen:chosen + distinct])  # the chosen ranks, smallest first
        k = 0
        wanted = out_pair[chosen + order[0]]
        candidate = np.int64(0)
        for i in range(lo[r], hi[r]):  # the rank-th candidate in record order, counted in integers (no branches)
            is_candidate = np.int64(z[r, i] > t) == side
            if masked:
                is_candidate = is_candidate & (labels[r, i] == label)
            if candidate == wanted and is_candidate:
                out_record[chosen + order[k]] = i
                k += 1
                if k == distinct:
                    break
                wanted = out_pair[chosen + order[k]]
            candidate += np.int64(is_candidate)
        for q in range(need[p]):
            seen[out_pair[chosen + q]] = False
            out_pair[chosen + q] = p
            out_u[chosen + q] = spare[r, start + draws[p] + q]
        chosen += need[p]
    return out_pair[:chosen], out_record[:chosen], out_u[:chosen], short[:shorts]


@numba.njit(cache=True, nogil=True)
def _side_cuts(gaps, ends, first, stop, t, short):  # pragma: no cover - compiled
    """The runs of one side of a path (slots first..stop-1 of ``gaps``; a cut where a gap is above t; none if
    ``short``): ``ends`` gets each run's end, in records of the side, and the number of runs is returned."""
    count = 0
    if not short:
        for s in range(first, stop):  # the side's cuts, in order, without branches
            ends[count] = s - first + 1
            count += np.int64(gaps[s] > t)
    total = max(stop - first + 1, 0)
    ends[count] = total
    return count + 1 if total > 0 else 0


@numba.njit(cache=True, nogil=True)
def two_state_paths(gap_draws, cut_plus, cut_minus, plus, first_plus, short):  # pragma: no cover - compiled
    """Row r: the path (True: state +1) whose +1 runs end at the +1 side's cuts (slots 1..plus-1 of ``gap_draws``
    above ``cut_plus[r]``) and whose -1 runs end at the -1 side's cuts (slots plus+1..n-1 above ``cut_minus[r]``),
    runs alternating from the first state; a ``short`` row has no cuts (attribute_chains.chain_paths)."""
    rows, n = gap_draws.shape
    path = np.empty((rows, n), dtype=np.bool_)
    ends = np.empty((2, n + 1), dtype=np.int64)  # per side: its records so far at the end of each run
    for r in range(rows):
        p = plus[r]
        plus_runs = _side_cuts(gap_draws[r], ends[0], 1, p, cut_plus[r], short[r])
        minus_runs = _side_cuts(gap_draws[r], ends[1], p + 1, n, cut_minus[r], short[r])
        i = 0
        taken_plus = taken_minus = 0  # runs written per side
        done_plus = done_minus = 0  # records written per side
        on_plus = first_plus[r]
        while i < n:
            if on_plus and taken_plus < plus_runs:
                end = ends[0, taken_plus]
                path[r, i:i + end - done_plus] = True
                i += end - done_plus
                done_plus = end
                taken_plus += 1
            elif not on_plus and taken_minus < minus_runs:
                end = ends[1, taken_minus]
                path[r, i:i + end - done_minus] = False
                i += end - done_minus
                done_minus = end
                taken_minus += 1
            on_plus = not on_plus
    return path


@numba.njit(cache=True, nogil=True)
def add_state_means(z, is_plus, mean_plus, mean_minus):  # pragma: no cover - compiled
    """z[r, i] += mean_plus[r] where is_plus[r, i], else mean_minus[r] (in place)."""
    for r in range(z.shape[0]):
        plus, minus = mean_plus[r], mean_minus[r]
        for i in range(z.shape[1]):
            z[r, i] += plus if is_plus[r, i] else minus
