"""The 95% confidence interval the experiment figures draw."""
import numpy as np
import pytest

from adaptive_repro.stats import Z95, ci95_half_width


def test_ci95_half_width_is_students_t_from_a_printed_table():
    """Student's t, 0.975 quantile, from a printed table: 5 df 2.571, 7 df 2.365, 29 df 2.045; normal in the limit."""
    got = ci95_half_width([1.0, 1.0, 1.0, 2.0], [6, 8, 30, 10**6])
    assert got[:3] == pytest.approx([2.571, 2.365, 2.045], abs=1e-3)
    assert got[3] == pytest.approx(2 * Z95, rel=1e-5)


def test_ci95_half_width_needs_two_runs():
    assert np.isnan(ci95_half_width(0.1, 1)) and np.isnan(ci95_half_width(0.1, 0))
