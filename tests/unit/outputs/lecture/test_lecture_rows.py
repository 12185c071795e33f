"""Lecture 18 rows: the Step 4 paper row is checked under the notes' near-optimality assumption."""
import math

import numpy as np

from adaptive_repro.foundation.registry import claims_frame
from adaptive_repro.outputs.lecture import transfer_and_monitor as lo
from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.catalogue import default_params


def _frame():
    return lo.monitor_table(1, m=200, epsilon=0.25, epsilon_primes=[0.25, 0.02], delta=0.01, d=5, T_grid=[1, 8],
                            betas=[0.1], replicates=300, confidence=0.99, min_total_datasets=600)


def test_nearly_optimal_monitor_gap_respects_the_assumption():
    f = _frame()
    w = f[f["beta"].isna()].pivot_table(index=["epsilon_prime", "T"], columns="quantity", values="value")
    for (ep, T), r in w.iterrows():
        # the assumption-satisfying selection is never worse than S_max - 2 ln T/(eps' m) on any run, so on average
        assert r["monitor_gap_nearly_optimal"] >= r["s_max"] - 2 * math.log(T) / (ep * 200) - 1e-12
        assert r["monitor_gap_nearly_optimal"] >= r["monitor_gap"] - 1e-12
        if T == 1:  # ln 1 = 0: the selection is the optimum itself
            assert np.isclose(r["monitor_gap_nearly_optimal"], r["s_max"])


def test_monitor_rows_kinds_and_step4():
    claims = {c.claim_id: c for c in lo.monitor_claims(_frame())}
    claims_frame(claims.values())
    assert claims["step-4-notes"].kind == "paper" and claims["step-4-notes"].status == "holds"
    assert "simplifying assumption" in claims["step-4-notes"].quote
    assert claims["step-4-without-assumption"].kind == "project"
    assert claims["step-4-rigorous"].kind == "project"
    for cid in ("claim-0.3-best", "claim-0.3-6eps", "lemma-0.4", "theorem-0.1"):
        assert claims[cid].kind == "paper" and claims[cid].quote


def test_build_reads_its_own_block():
    params = default_params("lecture-transfer", {"m_grid": [800], "epsilons": [0.125], "d": 5, "replicates": 300},
                            seed=2)
    table, fig, claims = catalogue.build("lecture-transfer", params)
    assert list(table["m"]) == [800] and claims[0].claim_id == "theorem-0.2" and claims[0].kind == "paper"
    assert claims[0].status == "holds"  # 8 eps^2 m ... bound max(4 delta/eps, e^{-eps^2 m/8}) = 0.21 >> MC
    assert math.exp(-0.125**2 * 800 / 8) > 0.2


def test_monitor_verdict_names_the_failing_bound_and_the_figure_rings_it():
    """The title is computed from the same checks as the claims: a failing bound is named with its count, the bounds
    on the actual Monitor that hold are named as holding, and the failing point is ringed on its panel."""
    import pandas as pd

    idx = pd.MultiIndex.from_tuples([(0.1, 1), (0.1, 8), (0.02, 1)], names=["epsilon_prime", "T"])
    masks = {cid: pd.Series(True, index=idx) for cid in lo.MONITOR_CHECKS}
    assert lo.monitor_verdict(masks) == "Every bound of the Monitor argument holds at all 3 (ε', T) points"
    masks["step-4-without-assumption"] = pd.Series([True, True, False], index=idx)
    verdict = lo.monitor_verdict(masks)
    assert verdict == ("The notes' Step 4 bound on the actual Monitor fails at 1 of 3 (ε', T) points; "
                       "the other 4 checks hold at all 3")
    f = _frame()
    words = lo.ring_words("step-4-without-assumption")
    fig = lo.monitor_figure(f, verdict, [("monitor_gap", "step4_lower_notes_best", words, [(0.02, 1)])])
    rings = [c for ax in fig.axes for c in ax.collections if c.get_gid() == "encoding:violation"]
    # one log axis per eps' (lower bounds below 0 leave its bottom); one ring, in the eps' = 0.02 column
    assert len(fig.axes) == 2 and len(rings) == 1
    assert [ax.get_yscale() for ax in fig.axes] == ["log", "log"]
    assert rings[0].axes is fig.axes[1] and fig.get_suptitle().startswith(verdict)
    assert rings[0].get_label().startswith("claim does not hold here")  # the one ring meaning; the bound beside it
    assert any("the notes' Step 4 lower bound" in t.get_text().replace("\n", " ") for t in fig.axes[1].texts)
    assert fig.get_suptitle().count("\n") == 1  # one verdict line, one settings line


def test_transfer_verdict_follows_the_check():
    params = default_params("lecture-transfer", {"m_grid": [800], "epsilons": [0.125], "d": 5, "replicates": 300},
                            seed=2)
    _, fig, _ = catalogue.build("lecture-transfer", params)
    assert fig.get_suptitle().startswith("Theorem 0.2 holds at all 1 (ε, m) inside its range")
    frame = lo.transfer_table(2, [800], [0.125], 0.001, 5, 300, 0.99).assign(bound=-1.0)  # a bound that must fail
    inr, ok = lo.transfer_check(frame)
    assert lo.transfer_verdict(inr, ok) == "Theorem 0.2 fails at 1 of 1 (ε, m) inside its range (ringed)"
    high = frame.assign(bound=15.6 * frame["mc_ci_high"])  # the factor is floored: "at least" never rounds up
    assert lo.transfer_verdict(*lo.transfer_check(high)).endswith("is at least 15 times below the bound")
