"""Zhao Lemmas 2-4 (BDP <== DP) on chains: exact quilt search vs brute force, infeasibility, preconditions."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_repro.privacy import (
    ChainInfluence,
    bdp_level_for_dp,
    binary_chain,
    chain_joint,
    convert_chain,
    data_model_chain,
    dp_level_for_bdp,
    lemma2_eps_bdp,
    lemma2_eps_dp,
    lemma2_general,
    lemma4_eps_dp,
    lemma4_h,
    lemmas,
    markov_chain_graph,
)


@pytest.mark.parametrize("P,n,eps", [
    (binary_chain(0.7), 5, 1.5),
    (binary_chain(0.9), 5, 0.3),
    (binary_chain(0.55), 4, 0.1),
    (data_model_chain(0.6, 0.8), 4, 1.0),
])
def test_lemma2_chain_matches_general_bruteforce(P, n, eps):
    """All Markov quilts (any node set) and all L in N, from the joint table, vs the chain search."""
    ci = ChainInfluence(P)
    joint = chain_joint(P, ci.pi, n)
    brute, _ = lemma2_general(eps, joint, markov_chain_graph(n))
    assert lemma2_eps_dp(eps, n, P).eps_dp == pytest.approx(brute, rel=1e-10)


@pytest.mark.parametrize("P,eps", [(binary_chain(0.75), 0.1), (binary_chain(0.6), 0.01),
                                   (data_model_chain(0.8, 0.7), 0.05)])
def test_interior_search_equals_node_by_node(P, eps, monkeypatch):
    n = 110
    exact = lemma2_eps_dp(eps, n, P)
    assert "all 110 nodes" in exact.detail
    inv_exact = lemma2_eps_bdp(1e-3, n, P)
    monkeypatch.setattr(lemmas, "SMALL_N", 0)
    fast = lemma2_eps_dp(eps, n, P)
    assert fast.exact and "interior" in fast.detail
    assert fast.eps_dp == pytest.approx(exact.eps_dp, rel=1e-12)
    assert lemma2_eps_bdp(1e-3, n, P) == pytest.approx(inv_exact, rel=1e-12)


def test_lemma3_infeasible_is_reported_not_negative():
    r = dp_level_for_bdp(0.05 / 3, 10_000, 0.75, 0.75, method="lemma3")
    assert r.feasible is False and r.eps_dp is None and "infeasible" in r.detail
    r = convert_chain(0.05 / 3, 10_000, binary_chain(0.5001), "lemma3")
    assert r.feasible and r.eps_dp > 0


def test_lemma2_at_least_lemma3_and_lemma4_preconditions():
    for p in (0.5001, 0.501, 0.55, 0.75):
        for eps in (0.01, 0.1, 1.0):
            P = binary_chain(p)
            l2 = convert_chain(eps, 10_000, P, "lemma2")
            l3 = convert_chain(eps, 10_000, P, "lemma3")
            assert l2.feasible and l2.eps_dp > 0
            if l3.feasible:
                assert l2.eps_dp >= l3.eps_dp - 1e-15
    with pytest.raises(ValueError):
        lemma4_h(0.1, 0.5, 0.5, c=1 / 6)
    with pytest.raises(ValueError):
        lemma4_h(0.1, 0.5, 0.5, c=0.0)
    with pytest.raises(ValueError):
        lemma4_eps_dp(0.1, 100, binary_chain(0.75), c=0.2)
    short = lemma4_eps_dp(0.01, 20, binary_chain(0.9), c=0.1)
    assert not short.feasible and short.eps_dp is None and "n = 20 < 2d" in short.detail
    ok = lemma4_eps_dp(0.05 / 3, 10_000, binary_chain(0.75), c=0.1)
    assert ok.feasible and 0 < ok.eps_dp < 0.05 / 3


def test_lemma4_formula_by_hand():
    eps, g, rho, c = 0.05 / 3, 0.5, 0.5, 0.1
    d = math.ceil(math.log((math.exp(c * eps) + 1) / (rho * (math.exp(c * eps) - 1))) / g)
    s = math.floor(math.log((math.exp(eps / 6) + 1) / (rho * (math.exp(eps / 6) - 1))) / g)
    t = lemma4_h(eps, g, rho, c)
    assert (t.d, t.s) == (d, s)
    assert t.h == pytest.approx(min((1 - 6 * c) * eps / (2 * d - 1), (1 / 3 - 2 * c) * eps / (d + s)))


def test_api_and_round_trip():
    for method in ("lemma2", "lemma3"):
        for eps in (0.003, 0.05, 2.0):
            r = dp_level_for_bdp(eps, 10_000, 0.75, 0.6, method=method)
            if r.feasible:
                back = bdp_level_for_dp(r.eps_dp, 10_000, 0.75, 0.6, method=method)
                assert back <= eps * (1 + 1e-9)
                assert back >= eps * 0.5
    r = dp_level_for_bdp(0.05 / 3, 10_000, 0.75, 0.75, method="lemma4")
    assert r.feasible and r.c is not None
    back = bdp_level_for_dp(r.eps_dp, 10_000, 0.75, 0.75, method="lemma4")
    assert back is not None and back <= 0.05 / 3 * 1.01
    with pytest.raises(ValueError):
        dp_level_for_bdp(0.0, 100, 0.7, 0.7)
    with pytest.raises(ValueError):
        dp_level_for_bdp(0.1, 100, 0.7, 0.7, method="lemma5")


def test_iid_is_no_correction():
    # p_s = p_y = 0.5: records independent, a_i = b_i = 0, every lemma-2/3 eps' equals eps
    assert dp_level_for_bdp(0.2, 1000, 0.5, 0.5, "lemma3").eps_dp == pytest.approx(0.2)
    assert dp_level_for_bdp(0.2, 1000, 0.5, 0.5, "lemma2").eps_dp == pytest.approx(0.2)


def test_fast_at_paper_scale():
    import time
    t = time.perf_counter()
    for p in (0.55, 0.6, 0.75, 0.9, 0.97):
        dp_level_for_bdp(0.01 / 3, 10_000, p, p)
        bdp_level_for_dp(1e-4, 10_000, p, p)
    assert time.perf_counter() - t < 10


@settings(max_examples=25, deadline=None)
@given(p=st.floats(0.52, 0.95), eps=st.floats(0.005, 2.0), n=st.integers(1, 40))
def test_lemma2_positive_and_bounded(p, eps, n):
    r = convert_chain(eps, n, binary_chain(p), "lemma2")
    assert r.feasible and eps / n - 1e-15 <= r.eps_dp <= eps
