"""The block column drawer of the exact engines (simulation/column_blocks.py) against the laws it must produce.

The reference is the definition: a row of i.i.d. N(0, 1) draws conditioned on exactly K entries above a threshold,
sampled by rejection (draw the row again until the count is K), feasible for short rows. Each statistical
assertion runs at level 1e-6 with a fixed seed (chi-square over the positions of the positives, Kolmogorov-Smirnov
on values and on a row sum that mixes positions and values), so the file fails by chance with probability below
1e-4; each is checked to reject a deliberately broken drawer (positives placed first).
"""
from itertools import combinations

import array_reference  # the array version, this folder (the law of uniform_ranks)
import numpy as np
import pytest
from scipy import stats

from adaptive_repro.simulation import column_blocks, data_models, sign_engine
from adaptive_repro.simulation.models.attribute_chains import AttributeChains, AttributeChainsDataset, chain_paths
from adaptive_repro.simulation.models.regimes import Regimes

LEVEL = 1e-6
ROWS = 30000


@pytest.mark.parametrize("a", [-3.0, -0.2, 0.0, 0.5, 4.0, 40.0])
def test_truncated_normals_follow_scipy_truncnorm(a):
    u = np.random.default_rng(3).random(3000)
    above = column_blocks.normals_above(np.full(3000, a), u)
    assert np.all(above > a) and stats.kstest(above, stats.truncnorm(a, np.inf).cdf).pvalue > LEVEL
    below = column_blocks.normals_at_most(np.full(3000, -a), u)
    assert np.all(below <= -a) and stats.kstest(below, stats.truncnorm(-np.inf, -a).cdf).pvalue > LEVEL


@pytest.mark.parametrize("count, need", [(5, 2), (12, 11), (200, 3)])
def test_uniform_ranks_are_uniform_distinct_subsets(count, need):
    rows = np.arange(ROWS)
    spare = np.random.default_rng(4).random((ROWS, column_blocks.spare_uniforms(count, 1)))
    pair, rank, value_u, short = array_reference.uniform_ranks(spare, np.zeros(ROWS, dtype=np.int64), rows,
                                                               np.full(ROWS, count), np.full(ROWS, need))
    done = np.setdiff1d(rows, short)
    assert short.size < ROWS // 100
    chosen = {r: [] for r in done.tolist()}
    for p, k in zip(pair.tolist(), rank.tolist()):
        chosen[p].append(k)
    assert all(len(set(ranks)) == need == len(ranks) for ranks in chosen.values())
    assert np.all((value_u >= 0) & (value_u < 1))
    if count <= 12:  # every subset equally likely
        subsets = {s: i for i, s in enumerate(combinations(range(count), need))}
        counts = np.bincount([subsets[tuple(sorted(r))] for r in chosen.values()], minlength=len(subsets))
        assert stats.chisquare(counts).pvalue > LEVEL
    else:  # every rank equally likely
        assert stats.chisquare(np.bincount(rank, minlength=count)).pvalue > LEVEL


def rejection_rows(rng, n, a, k, rows):
    """The definition: i.i.d. N(0, 1) rows of length n, kept when exactly k entries exceed a."""
    kept = []
    while sum(len(x) for x in kept) < rows:
        z = rng.standard_normal((rows, n))
        kept.append(z[np.count_nonzero(z > a, axis=1) == k])
    return np.concatenate(kept)[:rows]


def conditioned(rng, n, a, k, members=column_blocks.NO_LABELS, broken=False):
    z = rng.standard_normal((ROWS, n))
    spare = rng.random((ROWS, column_blocks.spare_uniforms(n, 1)))
    short = column_blocks.condition_rows(z, np.full(ROWS, a), np.full(ROWS, k), spare,
                                         np.zeros(ROWS, dtype=np.int64), labels=members)
    z = np.delete(z, short, axis=0)
    if broken:  # positives first: the counts and values right, the positions not uniform
        z = -np.sort(-z, axis=1)
    return z


def law_pvalues(got, want, a):
    """p-values: positions of the entries above a (chi-square against the reference's frequencies), the values
    above and at most a, and the row's weighted sum (positions and values together)."""
    def patterns(z):
        return np.packbits(z > a, axis=1, bitorder="little")[:, 0]
    levels = np.union1d(patterns(got), patterns(want))
    observed = np.array([np.count_nonzero(patterns(got) == v) for v in levels])
    expected = np.array([np.count_nonzero(patterns(want) == v) for v in levels], dtype=float)
    weights = np.arange(1, got.shape[1] + 1)
    p = {"positions": stats.chi2_contingency(np.vstack((observed, expected))).pvalue if levels.size > 1 else 1.0,
         "weighted sum": stats.ks_2samp(got @ weights, want @ weights).pvalue}
    for side, pick in (("above", lambda z: z[z > a]), ("at most", lambda z: z[z <= a])):
        if pick(got).size or pick(want).size:
            p[side] = stats.ks_2samp(pick(got), pick(want)).pvalue
    return p


@pytest.mark.parametrize("n, a, k", [(6, 0.3, 2), (7, -1.0, 6), (5, 1.5, 0)])
def test_conditioned_rows_have_the_law_of_the_definition(n, a, k):
    rng = np.random.default_rng(5)
    want = rejection_rows(rng, n, a, k, ROWS)
    got = conditioned(rng, n, a, k)
    assert np.all(np.count_nonzero(got > a, axis=1) == k)
    p = law_pvalues(got, want, a)
    assert min(p.values()) > LEVEL, p
    if 0 < k < n:  # the comparison has power: placing the positives first fails it
        assert law_pvalues(conditioned(rng, n, a, k, broken=True), want, a)["positions"] < LEVEL


def test_conditioning_members_leaves_the_others_alone():
    rng = np.random.default_rng(6)
    members = np.tile(np.array([True, False, True, True, False, True, False]), (ROWS, 1))
    z = rng.standard_normal((ROWS, 7))
    before = z.copy()
    spare = rng.random((ROWS, column_blocks.spare_uniforms(7, 1)))
    short = column_blocks.condition_rows(z, np.full(ROWS, 0.2), np.full(ROWS, 3), spare,
                                         np.zeros(ROWS, dtype=np.int64), labels=members)
    ok = np.setdiff1d(np.arange(ROWS), short)
    np.testing.assert_array_equal(z[:, ~members[0]], before[:, ~members[0]])
    assert np.all(np.count_nonzero((z > 0.2) & members, axis=1)[ok] == 3)
    want = rejection_rows(rng, 4, 0.2, 3, ROWS)
    p = law_pvalues(z[ok][:, members[0]], want, 0.2)
    assert min(p.values()) > LEVEL, p


def test_short_rows_are_drawn_again_from_the_next_stream():
    streams = column_blocks.ColumnStreams(2024, 10)
    seen = []

    def condition(cols, z, extras, spare, used):  # the first attempt's spare is "too short" for column 3
        seen.append(spare.shape[1])
        return np.flatnonzero(cols == 3) if len(seen) == 1 else np.empty(0, dtype=np.intp)

    rows = column_blocks.draw_rows(streams, np.array([1, 3, 5]), 50, 0, 1, condition)
    assert seen == [column_blocks.spare_uniforms(50, 1), 4 * column_blocks.spare_uniforms(50, 1)]
    np.testing.assert_array_equal(rows[1], streams.start(3, attempt=1).standard_normal(50))
    np.testing.assert_array_equal(rows[0], streams.start(1).standard_normal(50))


@pytest.fixture(scope="module", params=["batch_chain", "regimes", "attribute_chains"])
def dataset(request):
    if request.param == "attribute_chains":
        pop = AttributeChains(lam=1.0, rho=0.7).population(np.random.default_rng(3), 500, 60, 3, 2.0)
        return AttributeChainsDataset(np.random.default_rng(4), pop)
    model = data_models.BatchChain(p_s=0.8, p_y=0.9, b=1.5) if request.param == "batch_chain" else \
        Regimes(states=6, stay=0.9, b=1.0)
    pop = model.population(np.random.default_rng(1), 700, 60, 5, 6.0)
    return sign_engine.ExactSignDataset(np.random.default_rng(2), pop, model=model)


def block_of(dataset, columns):
    if isinstance(dataset, AttributeChainsDataset):
        return dataset.block(columns)
    return dataset.centered_block(columns)


def test_a_column_is_the_same_alone_and_in_any_block(dataset):
    forward = block_of(dataset, np.arange(60))
    backward = block_of(dataset, np.arange(60)[::-1])
    np.testing.assert_array_equal(forward, backward[::-1])
    for j in (0, 17, 59):
        np.testing.assert_array_equal(block_of(dataset, [j])[0], forward[j])


def test_chain_paths_are_uniform_given_runs_and_counts():
    rng = np.random.default_rng(7)
    for n, plus, runs, plus_runs, first in [(8, 4, 4, 2, True), (8, 3, 3, 1, False), (9, 5, 5, 3, True)]:
        size = (ROWS, n)
        path, short = chain_paths(np.full(ROWS, plus), np.full(ROWS, plus_runs), np.full(ROWS, runs),
                                  np.full(ROWS, first), rng.random(size), rng.random((ROWS, 200)),
                                  np.zeros(ROWS, dtype=np.int64))
        path = np.delete(path, short, axis=0)
        assert np.all(path.sum(axis=1) == plus) and np.all(path[:, 0] == first)
        assert np.all(1 + np.count_nonzero(np.diff(path, axis=1), axis=1) == runs)
        _, counts = np.unique(np.packbits(path, axis=1), axis=0, return_counts=True)
        assert stats.chisquare(counts).pvalue > LEVEL, (n, plus, runs, counts)


def test_redrawn_values_land_strictly_on_their_side_at_the_extremes():
    """Rounding of the inverse CDFs at u near 0 (or v near 1) must not put a value on the threshold itself, which
    would change the count the row was conditioned on."""
    a = np.array([-5.0, 0.3, 1.0, 9.0, 40.0])
    for u in (0.0, 2.0**-53, 64 * 2.0**-53, 0.5, 1 - 2.0**-53):
        assert np.all(column_blocks.normals_above(a, np.full(5, u)) > a)
        assert np.all(column_blocks.normals_at_most(a, np.full(5, u)) <= a)
        t = np.array([0.1, 0.5, 0.75, 0.999])
        assert np.all(column_blocks.uniforms_above(t, np.full(4, u)) > t)
        assert np.all(column_blocks.uniforms_at_most(t, np.full(4, u)) <= t)


def test_a_repeated_column_is_refused(dataset):
    with pytest.raises(ValueError, match="repeated"):
        dataset.accuracies([3, 3], [1.0, 1.0], [2])


def test_shared_column_order_keeps_every_order_or_says_they_disagree():
    a, b, c = np.array([9, 4, 7, 1]), np.array([4, 3, 1, 8]), np.array([9, 3])
    merged = column_blocks.shared_column_order([a, b, c])
    assert sorted(merged) == [1, 3, 4, 7, 8, 9]
    for order in (a, b, c):  # each order is a subsequence of the merged one
        assert [j for j in merged if j in set(order.tolist())] == order.tolist()
    assert column_blocks.shared_column_order([np.array([1, 2]), np.array([2, 1])]) is None
    assert column_blocks.shared_column_order([np.array([], dtype=int), np.array([5])]) == [5]
