"""The exact engines' conditioning and chain paths written with numpy arrays alone: the reference that
:mod:`adaptive_repro.simulation.column_kernels`' compiled loops must match to the last bit (test_column_kernels.py).
This is the array version the engines ran before the loops were compiled; it stays here, in the tests, as an
independent second implementation."""

from __future__ import annotations

import numpy as np

from adaptive_repro.simulation import column_blocks


def places(groups: np.ndarray, size: int) -> np.ndarray:
    """The place of each entry among the entries of its group, for sorted group labels in range(size) (0, 1, ...
    within each group); O(len) where a binary search would be O(len log len)."""
    counts = np.bincount(groups, minlength=size)
    return np.arange(groups.size) - (np.cumsum(counts) - counts)[groups]


def uniform_ranks(spare: np.ndarray, used: np.ndarray, rows: np.ndarray, count: np.ndarray,
                  need: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each pair p (a row ``rows[p]`` of ``spare``; rows in order, a row may have several pairs): a uniform
    ``need[p]``-subset of range(count[p]) (module docstring, item 2), then ``need[p]`` uniforms for the new values,
    each pair spending the next stretch of its row's spare uniforms from ``used[row]`` (advanced in place).

    Returns (the pair of each chosen rank, the rank, its value uniform, the rows that ran short)."""
    # twice the expected draws until ``need`` distinct of ``count`` (the coupon collector's), and 8 more
    draws = np.ceil(2.0 * count * np.log((count + 0.5) / (count - need + 0.5))).astype(np.int64) + 8
    spend = draws + need
    before = np.cumsum(spend) - spend
    start = used[rows] + before - before[np.searchsorted(rows, rows)]  # the row's earlier pairs come first
    fits = start + spend <= spare.shape[1]
    used += np.bincount(rows, weights=spend, minlength=used.size).astype(used.dtype)
    pairs = np.flatnonzero(fits)
    at = np.repeat(pairs, draws[pairs])  # the pair of each draw
    offset = np.arange(at.size) - np.repeat(np.cumsum(draws[pairs]) - draws[pairs], draws[pairs])
    u = spare[rows[at], start[at] + offset]
    rank = np.minimum((u * count[at]).astype(np.int64), count[at] - 1)
    _, first = np.unique(at * (int(count.max(initial=0)) + 1) + rank, return_index=True)
    first.sort()  # first appearances, pair by pair, each pair's in the order drawn
    at_first = at[first]
    place = places(at_first, rows.size)
    fine = fits & (np.bincount(at_first, minlength=rows.size) >= need)
    keep = (place < need[at_first]) & fine[at_first]
    chosen, chosen_place = at_first[keep], place[keep]
    value_u = spare[rows[chosen], start[chosen] + draws[chosen] + chosen_place]
    return chosen, rank[first][keep], value_u, np.unique(rows[~fine])


def _redrawn(uniform: bool, down: np.ndarray, threshold: np.ndarray, value_u: np.ndarray) -> np.ndarray:
    """New values on the other side of ``threshold``: at most it where ``down``, above it elsewhere."""
    at_most, above = ((column_blocks.uniforms_at_most, column_blocks.uniforms_above) if uniform
                      else (column_blocks.normals_at_most, column_blocks.normals_above))
    return np.where(down, at_most(threshold, value_u), above(threshold, value_u))


def condition_rows(z: np.ndarray, threshold: np.ndarray, target: np.ndarray, spare: np.ndarray, used: np.ndarray,
                   members: np.ndarray | None = None, uniform: bool = False) -> np.ndarray:
    """Make exactly ``target[r]`` of row r's entries (its ``members`` if given) exceed ``threshold[r]``, in place:
    a uniform subset of the surplus side is redrawn truncated to the other side (module docstring). ``z``'s entries
    are i.i.d. N(0, 1) draws (``uniform``: Uniform(0, 1) draws). Returns the rows that ran short (to be redrawn
    whole)."""
    above = z > threshold[:, None]
    if members is not None:
        above &= members
    have = np.count_nonzero(above, axis=1)
    size = np.full(z.shape[0], z.shape[1]) if members is None else np.count_nonzero(members, axis=1)
    surplus = have - np.asarray(target)
    rows = np.flatnonzero(surplus)
    if rows.size == 0:
        return rows
    down = surplus[rows] > 0  # too many above: candidates are the entries above
    count = np.where(down, have[rows], size[rows] - have[rows])
    pair, rank, value_u, short = uniform_ranks(spare, used, rows, count, np.abs(surplus[rows]))
    candidates = above[rows] if rows.size < z.shape[0] else above
    candidates ^= ~down[:, None]  # rows with too few above: the entries not above are the candidates
    if members is not None:
        candidates &= members[rows]
    flat = np.flatnonzero(candidates)  # candidate positions, row by row in record order
    first = np.cumsum(count) - count
    record = flat[first[pair] + rank] - pair * z.shape[1]
    z[rows[pair], record] = _redrawn(uniform, down[pair], threshold[rows[pair]], value_u)
    return short


def chain_paths(plus: np.ndarray, plus_runs: np.ndarray, runs: np.ndarray, first_plus: np.ndarray,
                gap_draws: np.ndarray, spare: np.ndarray, used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row r: a uniform two-state path of n = gap_draws.shape[1] records with ``runs[r]`` runs, ``plus[r]`` records
    in state +1 in ``plus_runs[r]`` runs, starting in state +1 if ``first_plus[r]``, as a boolean row (True: +1),
    and the rows that ran short of spare uniforms (:func:`column_blocks.condition_rows`).

    Given the runs of each state, their lengths are independent uniform compositions, and a composition of P into
    R parts is a uniform (R - 1)-subset of its P - 1 gaps. Slots 1..P-1 of a row are the gaps between its +1
    records taken in order, slots P+1..n-1 those of its -1 records; each side's i.i.d. uniform ``gap_draws`` are
    conditioned to have exactly (runs - 1) above a threshold (the cuts). The k-th cut of a side ends its k-th run;
    runs alternate from the first state, so the path is each run's state repeated its length (one ``np.repeat`` for
    all rows: each has n records)."""
    n = gap_draws.shape[1]
    rows = np.arange(gap_draws.shape[0])
    slots = np.arange(n)[None, :]
    short, cut = [], np.zeros(gap_draws.shape, dtype=bool)
    for members, parts, gaps in (((slots >= 1) & (slots < plus[:, None]), plus_runs, plus - 1),
                                 (slots > plus[:, None], runs - plus_runs, n - plus - 1)):
        cuts = np.maximum(parts - 1, 0)
        threshold = 1.0 - cuts / np.maximum(gaps, 1)
        short.append(condition_rows(gap_draws, threshold, cuts, spare, used, members, uniform=True))
        cut |= members & (gap_draws > threshold[:, None])
    short = np.concatenate(short)
    cut[short] = False  # a row that ran short is drawn again: any path of the right length will do meanwhile
    row, slot = np.divmod(np.flatnonzero(cut), n)
    plus_side = slot < plus[row]
    slot[~plus_side] -= plus[row[~plus_side]]  # a cut at slot s ends a run after s records of its side
    lengths = []
    for side, parts, total in ((plus_side, plus_runs, plus), (~plus_side, runs - plus_runs, n - plus)):
        r = row[side]
        ends = np.repeat(total[:, None], max(1, int(parts.max(initial=1))), axis=1)  # records of the side so far
        ends[r, places(r, rows.size)] = slot[side]
        lengths.append(np.diff(ends, axis=1, prepend=0))  # the side's run lengths, then zeros
    width = 2 * max(lengths[0].shape[1], lengths[1].shape[1])
    interleaved = np.zeros((rows.size, width), dtype=np.int64)
    for first, (a, b) in ((first_plus, lengths), (~first_plus, lengths[::-1])):  # runs alternate from the first
        interleaved[first, 0:2 * a.shape[1]:2] = a[first]
        interleaved[first, 1:2 * b.shape[1]:2] = b[first]
    state_plus = (np.arange(width) % 2 == 0)[None, :] == first_plus[:, None]
    return np.repeat(state_plus.ravel(), interleaved.ravel()).reshape(gap_draws.shape), short
