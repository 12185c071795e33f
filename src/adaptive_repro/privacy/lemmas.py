"""Zhao 2017 Lemmas 2-4: which DP level eps' implies eps-Bayesian DP (BDP) for correlated records.

Direction (all three lemmas, Zhao section 5.1): "eps-Bayesian differential privacy <== eps'-differential privacy",
i.e. a mechanism that is eps'-DP (records treated as independent) is eps-BDP for the correlated data. So

* ``dp_level_for_bdp(eps)`` = the lemma's eps' (the DP level to *calibrate* for a BDP target eps), and
* ``bdp_level_for_dp(eps_dp)`` = the smallest eps such that the lemma's eps'(eps) >= eps_dp (the BDP level that an
  eps_dp-DP mechanism is guaranteed by the same lemma), which for Lemmas 2-3 has the closed form
  max_i min_Q [(|N_i|+1) eps_dp + 4 b_i] (Lemma 2) and max_i (eps_dp + 4 a_i) (Lemma 3).

Lemma 2 (eq. (10)): eps' = min_i max_{quilt Q of X_i} (eps - 4 b_i) / (|N_i| + 1),
b_i = max_{L in N_i} I(X_Q <- X_i | X_L).
Lemma 3: eps' = min_i (eps - 4 a_i), a_i = I(X_{M_i} <- X_i) (Markov blanket M_i); infeasible when <= 0.
Lemma 4 (eq. (11); s from eq. (33) in the proof of Theorem 2; Lemma 4 itself never defines s): for an aperiodic,
irreducible, reversible time-homogeneous chain, 0 < c < 1/6 and n >= 2d,
    h(eps, g, rho) = min{ (1-6c) eps / (2d-1), (1/3 - 2c) eps / (d+s) },
    d = ceil( (1/g) ln[(e^{c eps}+1) / (rho (e^{c eps}-1))] ),
    s = floor( (1/g) ln[(e^{eps/6}+1) / (rho (e^{eps/6}-1))] ).

Chains (exact, fast): node i of a chain of length n has the quilts of ``quilts.chain_quilts``; influences come from
transition-matrix powers (``influence.ChainInfluence``). All interior nodes (>= K from both ends) have the same value,
and every node can do at least as well as the best two-sided interior quilt (it can use the same quilt node, or drop
that side's quilt node when it is too close to the end: smaller N, influence factor 1 <= the dropped factor). So
min over nodes = the interior value whenever a node with K nodes on both sides exists, where K is the first distance
at which no farther quilt can beat the best found (|N| + 1 >= K + 1 caps its value by eps / (K + 1)).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from adaptive_repro.foundation.domain import POSITIVE, Domain, check_public_functions
from adaptive_repro.privacy.chain_cache import chain_influence, memoized_on_chain
from adaptive_repro.privacy.influence import (
    ChainInfluence,
    checked_distribution,
    data_model_matrix,
    spectral_gap,
    symmetric_chain_matrix,
)
from adaptive_repro.privacy.quilts import ChainQuilt, chain_quilts

METHODS = ("lemma2", "lemma3", "lemma4")
#: chains up to this length are solved node by node over every quilt (exact, O(n^3 S^2)).
SMALL_N = 120
#: when the interior search does not settle, chains up to this length are still solved node by node (exact).
FALLBACK_N = 400
#: the interior search stops at this distance at the latest (then eps' is reported as a lower bound).
MAX_SEARCH = 4000
#: c grid searched for Lemma 4 when c is not given (the lemma holds for every c in (0, 1/6)).
C_GRID = tuple(float(x) for x in np.round(np.linspace(0.002, 0.166, 83), 6))


@dataclasses.dataclass(frozen=True)
class ConversionResult:
    """The DP level eps_dp that implies eps-BDP by one lemma; eps_dp is None when the lemma gives nothing."""

    eps_dp: float | None
    feasible: bool
    method: str
    quilt: str = ""  # lemma2: best quilt (at the worst node); lemma3: the Markov blanket
    detail: str = ""
    c: float | None = None  # lemma4's constant
    exact: bool = True  # False when only a (valid, conservative) bound was computed

    def __post_init__(self):
        if self.feasible and (self.eps_dp is None or not self.eps_dp > 0 or not math.isfinite(self.eps_dp)):
            raise ValueError(f"a feasible conversion needs eps_dp > 0, got {self.eps_dp}")
        if not self.feasible and self.eps_dp is not None:
            raise ValueError("an infeasible conversion has eps_dp = None")


# ------------------------------------------------------------------------------------------------ chains

def binary_chain(p: float) -> np.ndarray:
    """The single symmetric binary chain with stay probability p."""
    return symmetric_chain_matrix(p)


def data_model_chain(p_s: float, p_y: float) -> np.ndarray:
    """The data model's 4-state chain P_s (x) P_y (docs/METHODS.md §4)."""
    return data_model_matrix(p_s, p_y)


def _search_settings() -> tuple:
    return SMALL_N, FALLBACK_N, MAX_SEARCH


def _node_options(ci: ChainInfluence, n: int, i: int):
    """Left/right options of node i: (|N| on that side, log-ratio matrix, distance or None)."""
    z = np.zeros((ci.S, ci.S))
    np.fill_diagonal(z, -np.inf)
    left = [(i, z, None)] + [(a - 1, ci.backward(a), a) for a in range(1, i + 1)]
    r = n - 1 - i
    right = [(r, z, None)] + [(b - 1, ci.forward(b), b) for b in range(1, r + 1)]
    return left, right


def _node_table(ci, n, i):
    """|N|+1 and influence I for every (left, right) option pair of node i (arrays), plus the options."""
    left, right = _node_options(ci, n, i)
    Lm = np.stack([o[1] for o in left])
    Rm = np.stack([o[1] for o in right])
    infl = np.max(Lm[:, None] + Rm[None, :], axis=(2, 3))
    infl[0, 0] = 0.0  # empty quilt: I = 0 by convention
    size = np.array([o[0] for o in left])[:, None] + np.array([o[0] for o in right])[None, :] + 1
    return size, infl, left, right


def _interior_search(ci: ChainInfluence, kmax: int, score, stop):
    """Best two-sided quilt (a, b), 1 <= a, b <= k, growing k until ``stop(best, k)`` or k = kmax.

    ``score(size, infl)`` is maximized. Returns (best, (a, b), k, stopped).
    """
    S = ci.S
    cap = max(kmax, 1)
    B = np.empty((cap + 1, S, S))
    F = np.empty((cap + 1, S, S))
    best, arg = -np.inf, None
    for k in range(1, kmax + 1):
        B[k] = ci.backward(k)
        F[k] = ci.forward(k)
        # pairs (k, b), b = 1..k and (a, k), a = 1..k-1
        i1 = np.max(B[k][None] + F[1:k + 1], axis=(1, 2))
        s1 = score(k + np.arange(1, k + 1) - 1, i1)
        j = int(np.argmax(s1))
        if s1[j] > best:
            best, arg = float(s1[j]), (k, j + 1)
        if k > 1:
            i2 = np.max(B[1:k] + F[k][None], axis=(1, 2))
            s2 = score(np.arange(1, k) + k - 1, i2)
            j = int(np.argmax(s2))
            if s2[j] > best:
                best, arg = float(s2[j]), (j + 1, k)
        if stop(best, k):
            return best, arg, k, True
    return best, arg, kmax, False


def _describe_pair(a, b, n_size, infl):
    return f"{{X_{{i-{a}}}, X_{{i+{b}}}}} (two-sided, |N|={n_size - 1}, b_i={infl:.4g})"


def _lemma2_node_by_node(eps, n, ci, score) -> ConversionResult:
    worst, wq, wi, wb = np.inf, None, None, None
    for i in range(n):
        size, infl, left, right = _node_table(ci, n, i)
        val = score(size, infl)
        k = np.unravel_index(int(np.argmax(val)), val.shape)
        if val[k] < worst:
            worst = float(val[k])
            wq = ChainQuilt(n=n, node=i, left=left[k[0]][2], right=right[k[1]][2])
            wi, wb = i, float(infl[k])
    return ConversionResult(eps_dp=worst, feasible=True, method="lemma2",
                            quilt=f"node X_{wi + 1}: {wq.describe()}, b_i={wb:.4g}",
                            detail=f"exact, all {n} nodes and all quilts")


@memoized_on_chain(_search_settings)
def lemma2_eps_dp(eps: float, n: int, P) -> ConversionResult:
    """Zhao Lemma 2 (eq. (10)) on a stationary chain, exact: min over nodes of max over quilts of (eps-4b)/(|N|+1)."""
    ci = chain_influence(P, "lemma2_eps_dp")
    score = lambda size, infl: (eps - 4.0 * infl) / size
    if n <= SMALL_N:
        return _lemma2_node_by_node(eps, n, ci, score)
    kmax = min((n - 1) // 2, MAX_SEARCH)
    best, (a, b), K, stopped = _interior_search(ci, kmax, score, lambda best, k: best >= eps / (k + 1))
    infl = ci.influence(a, b)
    if stopped:
        return ConversionResult(eps_dp=best, feasible=True, method="lemma2",
                                quilt=_describe_pair(a, b, a + b - 1, infl),
                                detail=f"exact: interior nodes (>= {K} from both ends) are the worst nodes")
    if n <= FALLBACK_N:
        return _lemma2_node_by_node(eps, n, ci, score)
    lower = max(best, eps / n)
    q = _describe_pair(a, b, a + b - 1, infl) if lower == best else "{} (empty, |N|=n-1)"
    return ConversionResult(eps_dp=lower, feasible=True, method="lemma2", quilt=q, exact=False,
                            detail=f"lower bound (valid for every node): search stopped at distance {K}")


@memoized_on_chain(_search_settings)
def lemma2_eps_bdp(eps_dp: float, n: int, P) -> float:
    """Inverse of Lemma 2: the BDP level of an eps_dp-DP mechanism, max_i min_Q [(|N_i|+1) eps_dp + 4 b_i].

    An upper bound (conservative) when the interior search does not settle.
    """
    ci = chain_influence(P, "lemma2_eps_bdp")
    score = lambda size, infl: -(size * eps_dp + 4.0 * infl)

    def node_by_node():
        worst = -np.inf
        for i in range(n):
            size, infl, _, _ = _node_table(ci, n, i)
            worst = max(worst, float(np.min(size * eps_dp + 4.0 * infl)))
        return worst

    if n <= SMALL_N:
        return node_by_node()
    kmax = min((n - 1) // 2, MAX_SEARCH)
    best, _, K, stopped = _interior_search(ci, kmax, score, lambda best, k: (k + 1) * eps_dp >= -best)
    if not stopped and n <= FALLBACK_N:
        return node_by_node()
    return min(-best, n * eps_dp)


def lemma3_blanket_influence(n: int, P) -> float:
    """max_i a_i, a_i = I(X_{M_i} <- X_i) over the Markov blankets of a chain of length n (interior if n >= 3)."""
    return _blanket_influence(n, chain_influence(P, "lemma3_blanket_influence"))


def _blanket_influence(n: int, ci: ChainInfluence) -> float:
    if n == 1:
        return 0.0
    if n == 2:
        return max(ci.influence(None, 1), ci.influence(1, None))
    return ci.influence(1, 1)


def lemma3_eps_dp(eps: float, n: int, P) -> ConversionResult:
    """Zhao Lemma 3: eps' = min_i (eps - 4 a_i); infeasible (None) when eps' <= 0."""
    a = _blanket_influence(n, chain_influence(P, "lemma3_eps_dp"))
    val = eps - 4.0 * a
    quilt = "{X_{i-1}, X_{i+1}} (Markov blanket, |N|=0)" if n >= 3 else "Markov blanket"
    if val > 0:
        return ConversionResult(eps_dp=val, feasible=True, method="lemma3", quilt=quilt,
                                detail=f"max_i a_i = {a:.6g}")
    return ConversionResult(eps_dp=None, feasible=False, method="lemma3", quilt=quilt,
                            detail=f"infeasible: eps - 4 max_i a_i = {eps:.4g} - 4*{a:.4g} = {val:.4g} <= 0")


def lemma3_eps_bdp(eps_dp: float, n: int, P) -> float:
    """Inverse of Lemma 3: max_i (eps_dp + 4 a_i)."""
    return eps_dp + 4.0 * _blanket_influence(n, chain_influence(P, "lemma3_eps_bdp"))


@dataclasses.dataclass(frozen=True)
class Lemma4Terms:
    h: float
    d: int
    s: int
    t: int
    g: float
    rho: float
    c: float


def lemma4_h(eps: float, g: float, rho: float, c: float) -> Lemma4Terms:
    """Zhao Lemma 4, eq. (11): h(eps, g, rho) with d (ceil), s (floor, from eq. (33)), and the unused t (floor).

    Raises ValueError unless 0 < c < 1/6, 0 < g <= 1, 0 < rho <= 1/2 and eps > 0 (preconditions of the lemma).
    The lemma's n >= 2d is checked by the caller (``lemma4_eps_dp``).
    """
    if not 0.0 < c < 1.0 / 6.0:
        raise ValueError(f"Lemma 4 needs 0 < c < 1/6, got c = {c}")
    if not 0.0 < g <= 1.0:
        raise ValueError(f"Lemma 4 needs a spectral gap 0 < g <= 1, got g = {g}")
    if not 0.0 < rho <= 0.5:
        raise ValueError(f"rho (least stationary probability) must be in (0, 1/2], got {rho}")
    ce = math.expm1(c * eps)
    e6 = math.expm1(eps / 6.0)
    d = math.ceil(math.log((ce + 2.0) / (rho * ce)) / g)
    s = math.floor(math.log((e6 + 2.0) / (rho * e6)) / g)
    t = math.floor(math.log(1.0 / rho) / g)
    h = min((1.0 - 6.0 * c) * eps / (2 * d - 1), (1.0 / 3.0 - 2.0 * c) * eps / (d + s))
    return Lemma4Terms(h=float(h), d=int(d), s=int(s), t=int(t), g=float(g), rho=float(rho), c=float(c))


def _chain_constants(P, function: str):
    ci = chain_influence(P, function)
    g = spectral_gap(ci.P)
    rho = float(np.min(ci.pi))
    irreducible_aperiodic = bool(np.all(np.linalg.matrix_power(ci.P, ci.S) > 0))
    return ci, g, rho, irreducible_aperiodic


def lemma4_chain_constants(P) -> tuple[float, float]:
    """(g, rho) of Lemma 4 for a chain: its spectral gap and the probability of its least probable stationary state,
    as :func:`lemma4_eps_dp` computes them."""
    _, g, rho, _ = _chain_constants(P, "lemma4_chain_constants")
    return float(g), float(rho)


def lemma4_eps_dp(eps: float, n: int, P, c: float | None = None) -> ConversionResult:
    """Zhao Lemma 4: h(eps, g, rho)-DP implies eps-BDP if the chain is aperiodic, irreducible, reversible,
    0 < c < 1/6 and n >= 2d. Infeasible (None) when a precondition fails. c = None: the best c of C_GRID."""
    ci, g, rho, ok = _chain_constants(P, "lemma4_eps_dp")
    if not ok or not ci.reversible:
        return ConversionResult(None, False, "lemma4", c=c,
                                detail="infeasible: chain not aperiodic-irreducible-reversible")
    if c is not None and not 0.0 < c < 1.0 / 6.0:
        raise ValueError(f"Lemma 4 needs 0 < c < 1/6, got c = {c}")
    grid = [c] if c is not None else list(C_GRID)
    best = None
    for cc in grid:
        terms = lemma4_h(eps, g, rho, cc)
        if n >= 2 * terms.d and (best is None or terms.h > best.h):
            best = terms
    if best is None:
        terms = lemma4_h(eps, g, rho, grid[0])
        return ConversionResult(None, False, "lemma4", c=c,
                                detail=f"infeasible: n = {n} < 2d = {2 * terms.d} (g={g:.4g}, rho={rho:.4g})")
    return ConversionResult(best.h, True, "lemma4", c=best.c,
                            detail=f"d={best.d}, s={best.s}, g={g:.4g}, rho={rho:.4g}, 2d={2 * best.d} <= n={n}")


def lemma4_eps_bdp(eps_dp: float, n: int, P, c: float | None = None) -> float | None:
    """Inverse of Lemma 4: the smallest eps (to relative precision 1e-3) with h(eps) >= eps_dp and n >= 2d(eps),
    for the given c or the best c of C_GRID; None if there is none up to 1e6 eps_dp (e.g. n too short).

    h is not exactly monotone in eps (ceil/floor), so a log grid finds the first good point and bisection refines
    it between that point and the previous grid point; the returned eps is checked to satisfy the condition.
    """
    ci, g, rho, ok = _chain_constants(P, "lemma4_eps_bdp")
    if not ok or not ci.reversible:
        return None
    grid_c = [c] if c is not None else list(C_GRID)

    def good(e):
        for cc in grid_c:
            t = lemma4_h(e, g, rho, cc)
            if n >= 2 * t.d and t.h >= eps_dp:
                return True
        return False

    grid = np.geomspace(eps_dp, eps_dp * 1e6, 601)
    prev = None
    for e in grid:
        e = float(e)
        if good(e):
            if prev is None:
                return e
            lo, hi = prev, e
            while hi / lo > 1 + 1e-3:
                mid = math.sqrt(lo * hi)
                lo, hi = (lo, mid) if good(mid) else (mid, hi)
            return hi
        prev = e
    return None


# ---------------------------------------------------------------------------------------------- the API

def convert_chain(eps_bdp: float, n: int, P, method: str = "lemma2", c: float | None = None) -> ConversionResult:
    """The DP level that implies eps_bdp-BDP on a stationary chain with transition matrix P (any lemma)."""
    if method == "lemma2":
        return lemma2_eps_dp(eps_bdp, n, P)
    if method == "lemma3":
        return lemma3_eps_dp(eps_bdp, n, P)
    if method == "lemma4":
        return lemma4_eps_dp(eps_bdp, n, P, c)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def dp_level_for_bdp(eps_bdp: float, n: int, p_s: float, p_y: float, method: str = "lemma2",
                     c: float | None = None) -> ConversionResult:
    """The DP level eps' such that any eps'-DP mechanism is eps_bdp-BDP on the data model's chain (docs/METHODS.md §4).

    The records' dependence is the 4-state chain (s_i, y_i) with transition matrix P_s (x) P_y. ``method``:
    'lemma2' (best Markov quilt, exact), 'lemma3' (Markov blanket), 'lemma4' (h(eps, g, rho); c in (0, 1/6),
    None = best c on a grid). Infeasible results have eps_dp = None and feasible = False.
    """
    return convert_chain(eps_bdp, n, data_model_chain(p_s, p_y), method, c)


def bdp_level_for_dp(eps_dp: float, n: int, p_s: float, p_y: float, method: str = "lemma2",
                     c: float | None = None) -> float | None:
    """The BDP level that an eps_dp-DP mechanism achieves on the data model's chain by the same lemma (inverse).

    lemma2: max_i min_Q [(|N_i|+1) eps_dp + 4 b_i]; lemma3: eps_dp + 4 max_i a_i; lemma4: smallest eps (grid) with
    h(eps, g, rho) >= eps_dp and n >= 2d, None if none.
    """
    P = data_model_chain(p_s, p_y)
    if method == "lemma2":
        return lemma2_eps_bdp(eps_dp, n, P)
    if method == "lemma3":
        return lemma3_eps_bdp(eps_dp, n, P)
    if method == "lemma4":
        return lemma4_eps_bdp(eps_dp, n, P, c)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


# ------------------------------------------------------------- general graphs (small; brute force, the oracle)

def lemma2_general(eps: float, joint: np.ndarray, graph, max_quilt_size: int | None = None) -> tuple[float, dict]:
    """Lemma 2 on any small dependency graph with a joint probability table (axes = nodes 0..n-1), by enumeration
    of all Markov quilts and all L subsets of the nearby set. Returns (eps', {node: best Quilt})."""
    from adaptive_repro.privacy.influence import b_bruteforce
    from adaptive_repro.privacy.quilts import enumerate_quilts

    joint = checked_distribution("lemma2_general", "joint", joint, "a probability table (one axis per node)")
    if joint.ndim != graph.number_of_nodes():
        raise ValueError(f"lemma2_general: joint has {joint.ndim} axes, the graph {graph.number_of_nodes()} nodes; "
                         "allowed: one axis per node")
    worst, best_q = np.inf, {}
    for i in range(joint.ndim):
        vbest, qbest = -np.inf, None
        for q in enumerate_quilts(graph, i, max_quilt_size):
            b = b_bruteforce(joint, q.quilt, q.nearby, i)
            v = (eps - 4.0 * b) / (len(q.nearby) + 1)
            if v > vbest:
                vbest, qbest = v, q
        best_q[i] = qbest
        worst = min(worst, vbest)
    return float(worst), best_q


__all__ = ["ConversionResult", "METHODS", "binary_chain", "data_model_chain", "convert_chain", "dp_level_for_bdp",
           "bdp_level_for_dp", "lemma2_eps_dp", "lemma2_eps_bdp", "lemma3_eps_dp", "lemma3_eps_bdp",
           "lemma3_blanket_influence", "lemma4_h", "lemma4_eps_dp", "lemma4_eps_bdp", "lemma2_general",
           "Lemma4Terms", "chain_quilts"]


# argument domains (adaptive_repro.foundation.domain); the lemmas need a privacy level > 0 and Lemma 4's constants
check_public_functions(globals(), __name__, eps=POSITIVE, eps_dp=POSITIVE, eps_bdp=POSITIVE,
                       c=Domain(0.0, 1.0 / 6.0, low_open=True, high_open=True), g=Domain(0.0, 1.0, low_open=True),
                       rho=Domain(0.0, 0.5, low_open=True))
