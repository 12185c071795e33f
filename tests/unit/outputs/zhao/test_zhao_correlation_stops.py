"""zhao-correlation's stopped-sessions rows: which sessions of Algorithm 1 with T for n/V spend the budget."""

import numpy as np
import pandas as pd
import pytest

from adaptive_repro.outputs.zhao import correlation_stops as stops
from adaptive_repro.outputs.zhao.correlation_sessions import stop_shift_columns


class _Point:
    name = "p"


def _diagnostics(shifts):
    return pd.DataFrame({"experiment": "p", "mechanism": stops.STOPPING_ARM, "replicate": range(len(shifts)),
                         "state_share_shift": shifts})


@pytest.mark.parametrize("stopped_shift, state", [(0.2, "holds"), (-0.2, "does not hold")])
def test_columns_rank_the_stopped_sessions_against_the_answering_ones(stopped_shift, state):
    rng = np.random.default_rng(0)
    shifts = np.concatenate([np.full(6, stopped_shift) + rng.uniform(0, 0.01, 6), rng.uniform(0, 0.05, 64)])
    answered = pd.Series([False] * 6 + [True] * 64, index=range(70))
    cols = stop_shift_columns(_diagnostics(shifts), _Point(), stops.STOPPING_ARM, answered)
    assert cols["stop_shift_state"] == state
    assert cols["answer_shift_max"] == pytest.approx(shifts[6:].max())
    every = stop_shift_columns(_diagnostics(shifts), _Point(), stops.STOPPING_ARM, pd.Series(True, index=range(70)))
    assert every["stop_shift_state"] == "" and np.isnan(every["stop_shift_median"])


def _table(states, needs=np.nan):
    return pd.DataFrame([dict(mechanism=stops.STOPPING_ARM, V=v, answered_n=10, answered_count=8 if s else 10,
                              threshold=0.2, stop_shift_median=0.08, answer_shift_median=0.04,
                              answer_shift_max=0.07, stop_shift_auc=1.0, stop_shift_state=s, stop_shift_needs=needs)
                         for v, s in zip((1.0, 8.0, 20.0), states)])


def test_row_states_follow_the_points():
    row = stops.stopped_sessions_row("households", _table(["", "holds", "undecided"], needs=21.0), "DP, T for n/V")
    assert row["status"] == "holds" and "0.40 T" in row["measured"]
    row = stops.stopped_sessions_row("households", _table(["", "holds", "does not hold"]), "DP")
    assert row["status"] == "does not hold" and row["counterexample"] == "V = 20"
    row = stops.stopped_sessions_row("households", _table(["", "undecided", ""], needs=21.0), "DP")
    assert row["status"] == "not checked" and "about 21 sessions would decide it" in row["measured"]
    row = stops.stopped_sessions_row("attribute_chains", _table(["", "", ""]), "DP")
    assert row["status"] == "not applicable"
    assert stops.stopped_sessions_row("households", _table(["", "", ""]).iloc[:0], "DP") is None
