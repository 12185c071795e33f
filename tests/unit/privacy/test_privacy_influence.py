"""Max-influence of chains from transition-matrix powers against brute-force enumeration of the joint law (n <= 8)."""

import networkx as nx
import numpy as np
import pytest

from adaptive_repro.privacy import (
    ChainInfluence,
    b_bruteforce,
    binary_chain,
    chain_joint,
    chain_quilts,
    data_model_chain,
    enumerate_quilts,
    is_markov_quilt,
    markov_blanket,
    markov_chain_graph,
    max_influence_bruteforce,
    moralize,
    quilt_from_set,
    spectral_gap,
    stationary_distribution,
)

CHAINS = {
    "binary(p=0.6)": (binary_chain(0.6), 7),
    "binary(p=0.85)": (binary_chain(0.85), 7),
    "binary(p=0.3)": (binary_chain(0.3), 6),
    "data-model(0.7,0.9)": (data_model_chain(0.7, 0.9), 5),
    # a non-reversible 3-state chain: the backward kernel differs from the forward one
    "cyclic3": (np.array([[0.1, 0.7, 0.2], [0.2, 0.1, 0.7], [0.7, 0.2, 0.1]]), 5),
}


@pytest.mark.parametrize("name", list(CHAINS))
def test_chain_influence_matches_bruteforce(name):
    P, n = CHAINS[name]
    ci = ChainInfluence(P)
    joint = chain_joint(P, ci.pi, n)
    assert np.isclose(joint.sum(), 1.0)
    for i in range(n):
        for q in chain_quilts(n, i):
            t = q.as_quilt()
            exact = ci.influence(q.left, q.right)
            brute = max_influence_bruteforce(joint, sorted(t.quilt), i)
            assert exact == pytest.approx(brute, abs=1e-10), (name, i, q)


@pytest.mark.parametrize("name", ["binary(p=0.85)", "data-model(0.7,0.9)", "cyclic3"])
def test_conditioning_on_nearby_never_increases_influence(name):
    """Zhao's b_i = max over L in N_i of I(X_Q <- X_i | X_L) is attained at L = {} on chains."""
    P, n = CHAINS[name]
    n = min(n, 6)
    ci = ChainInfluence(P)
    joint = chain_joint(P, ci.pi, n)
    for i in range(n):
        for q in chain_quilts(n, i):
            t = q.as_quilt()
            assert b_bruteforce(joint, t.quilt, t.nearby, i) == pytest.approx(ci.influence(q.left, q.right), abs=1e-10)


def test_reversible_kernels_and_stationary():
    P = data_model_chain(0.75, 0.6)
    ci = ChainInfluence(P)
    assert ci.reversible and np.allclose(ci.pi, 0.25)
    assert not ChainInfluence(CHAINS["cyclic3"][0]).reversible
    for k in (1, 3, 10):
        assert np.array_equal(ci.forward(k), ci.backward(k))
    # binary chain closed form: one-sided influence at distance k is ln((1+theta^k)/(1-theta^k))
    ci2 = ChainInfluence(binary_chain(0.75))
    for k in (1, 2, 7):
        th = 0.5**k
        assert ci2.influence(None, k) == pytest.approx(np.log((1 + th) / (1 - th)))
        assert ci2.influence(k, k) == pytest.approx(2 * np.log((1 + th) / (1 - th)))
    assert spectral_gap(binary_chain(0.75)) == pytest.approx(0.5)
    assert spectral_gap(data_model_chain(0.9, 0.6)) == pytest.approx(0.2)
    assert np.allclose(stationary_distribution(binary_chain(0.9)), 0.5)


def test_influence_decreases_with_distance():
    ci = ChainInfluence(data_model_chain(0.8, 0.95))
    vals = [ci.influence(None, k) for k in range(1, 60)]
    assert all(b <= a + 1e-15 for a, b in zip(vals, vals[1:]))
    assert vals[-1] < 1e-2 < vals[0]


def test_chain_quilt_enumeration():
    n = 7
    for i in range(n):
        qs = list(chain_quilts(n, i))
        assert len(qs) == (i + 1) * (n - i)  # left: none or 1..i; right: none or 1..n-1-i
        kinds = {q.kind for q in qs}
        assert "empty" in kinds and (n == 1 or "one-sided" in kinds)
        general = {(t.quilt, t.nearby, t.remote) for t in enumerate_quilts(markov_chain_graph(n), i)}
        for q in qs:
            t = q.as_quilt()
            assert t.quilt | t.nearby | t.remote | {i} == set(range(n))
            assert len(t.nearby) == q.nearby_size
            assert is_markov_quilt(markov_chain_graph(n), i, t.quilt, t.remote)
            assert (t.quilt, t.nearby, t.remote) in general
    # Zhao Fig. 1: quilt {X_{i-a}, X_{i+b}} of X_i, nearby in between, remote outside; a = b = 1 is the blanket
    t = quilt_from_set(markov_chain_graph(9), 4, {2, 7})
    assert t.nearby == frozenset({3, 5, 6}) and t.remote == frozenset({0, 1, 8})
    assert markov_blanket(markov_chain_graph(9), 4) == {3, 5}
    assert markov_blanket(markov_chain_graph(9), 0) == {1}


def test_bayesian_network_moralization_and_quilts():
    # v-structure A -> C <- B, C -> D: moralization marries A and B
    g = nx.DiGraph([(0, 2), (1, 2), (2, 3)])
    m = moralize(g)
    assert m.has_edge(0, 1)
    assert markov_blanket(g, 0) == {1, 2}
    quilts = enumerate_quilts(g, 0)
    for t in quilts:
        assert is_markov_quilt(g, 0, t.quilt, t.remote)
        assert t.quilt | t.nearby | t.remote == {1, 2, 3}
    # {C, B} separates A from D; {C} alone does not (A - B edge after moralization goes around? no: B-C, so D only
    # via C)
    assert quilt_from_set(g, 0, {2}).remote == frozenset({3})
    assert quilt_from_set(g, 3, {2}).remote == frozenset({0, 1})
    # a Markov network (undirected) is used as is
    u = nx.cycle_graph(5)
    assert markov_blanket(u, 0) == {1, 4}
    assert quilt_from_set(u, 0, {1, 4}).remote == frozenset({2, 3})
