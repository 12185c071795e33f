"""The compiled loops (simulation/column_kernels.py) give exactly what the array version of the exact engines gave
(array_reference.py in this folder, an independent implementation): the same values, the same spent uniforms and
the same rows run short, over random blocks that include rows with nothing to change, rows that run short of
spare uniforms, every member on one side, empty and full ranges, and paths with one state only."""

import array_reference
import numpy as np
import pytest

from adaptive_repro.simulation import column_blocks
from adaptive_repro.simulation.models.attribute_chains import chain_paths


def random_block(rng, rows, n):
    z = rng.standard_normal((rows, n))
    spare = rng.random((rows, int(rng.integers(5, 400))))  # narrow spares run short
    used = rng.integers(0, 4, rows)
    return z, spare, used


@pytest.mark.parametrize("seed", range(20))
def test_conditioning_over_labels_matches_the_array_version(seed):
    rng = np.random.default_rng(seed)
    z, spare, used = random_block(rng, 40, int(rng.integers(1, 300)))
    labels = rng.random(z.shape) < rng.random()
    label = bool(rng.integers(0, 2))
    members = labels if label else ~labels
    threshold = rng.normal(size=z.shape[0]) * 2
    target = np.minimum(rng.integers(0, z.shape[1] + 1, z.shape[0]), np.count_nonzero(members, axis=1))
    want_z, want_used = z.copy(), used.copy()
    want_short = array_reference.condition_rows(want_z, threshold, target, spare, want_used, members)
    short = column_blocks.condition_rows(z, threshold, target, spare, used, labels=labels, label=label)
    np.testing.assert_array_equal(short, want_short)
    np.testing.assert_array_equal(used, want_used)
    np.testing.assert_array_equal(z, want_z)


@pytest.mark.parametrize("seed", range(20))
def test_conditioning_over_ranges_matches_the_array_version(seed):
    rng = np.random.default_rng(100 + seed)
    z, spare, used = random_block(rng, 30, int(rng.integers(1, 300)))
    lo, hi = np.sort(rng.integers(0, z.shape[1] + 1, 2))
    threshold = rng.normal(size=z.shape[0])
    target = rng.integers(0, hi - lo + 1, z.shape[0])
    want_z, want_used = z.copy(), used.copy()
    want_short = array_reference.condition_rows(want_z[:, lo:hi], threshold, target, spare, want_used)
    rows = np.ones(z.shape[0], dtype=np.int64)
    short = column_blocks.condition_rows(z, threshold, target, spare, used, lo * rows, hi * rows)
    np.testing.assert_array_equal(short, want_short)
    np.testing.assert_array_equal(used, want_used)
    np.testing.assert_array_equal(z, want_z)


@pytest.mark.parametrize("seed", range(20))
def test_chain_paths_match_the_array_version(seed):
    rng = np.random.default_rng(200 + seed)
    rows, n = 40, int(rng.integers(1, 400))
    runs = 1 + rng.binomial(n - 1, rng.random(), size=rows)
    first_plus = rng.random(rows) < 0.5
    plus_runs = np.where(first_plus, (runs + 1) // 2, runs // 2)
    minus_runs = runs - plus_runs
    extra = rng.binomial(n - runs, rng.beta(np.maximum(plus_runs, 1), np.maximum(minus_runs, 1)))
    plus = np.where(plus_runs == 0, 0, np.where(minus_runs == 0, n, plus_runs + extra))
    gaps = rng.random((rows, n))
    spare = rng.random((rows, int(rng.integers(5, 60 + 4 * n))))
    want_gaps, want_used, used = gaps.copy(), np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64)
    want_path, want_short = array_reference.chain_paths(plus, plus_runs, runs, first_plus, want_gaps, spare, want_used)
    path, short = chain_paths(plus, plus_runs, runs, first_plus, gaps, spare, used)
    np.testing.assert_array_equal(short, want_short)
    np.testing.assert_array_equal(used, want_used)
    np.testing.assert_array_equal(path, want_path)
    done = np.setdiff1d(np.arange(rows), short)
    assert np.array_equal(np.count_nonzero(path[done], axis=1), plus[done])
    changes = np.count_nonzero(np.diff(path[done].astype(int), axis=1), axis=1)
    assert np.array_equal(changes + 1, runs[done])
