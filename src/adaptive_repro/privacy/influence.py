"""Max-influence (Zhao 2017, eqs. (5)-(6); Song et al. 2017) for finite-state Markov chains and small joint tables.

Definitions (Zhao eq. (6)): I(X_S <- X_i | X_K) = ln max_{x_S, x_i != x_i', x_K} P[x_S | x_i, x_K] / P[x_S | x_i', x_K],
and 0 when S is empty.

Exact formula for a stationary chain X_1 -> ... -> X_n with transition matrix P and stationary law pi: for the quilt
{X_{i-a}, X_{i+b}} of X_i, P[x_{i-a}, x_{i+b} | x_i] = B^a(x_i, x_{i-a}) P^b(x_i, x_{i+b}) with the backward kernel
B^a(x, u) = pi(u) P^a(u, x) / pi(x) (equal to P^a(x, u) for a reversible chain). Hence
    I = ln max_{x != x'} [ max_u B^a(x,u)/B^a(x',u) ] [ max_v P^b(x,v)/P^b(x',v) ]
(both factors are >= 1). Conditioning on nodes L of the nearby set (which lie between X_i and the quilt) decouples the
side that contains them, so the max over L in Zhao's b_i is attained at L = {} (checked by brute force in the tests).
"""

from __future__ import annotations

import itertools

import numpy as np


def _check_stay(function: str, name: str, p: float) -> None:
    if not 0.0 < p < 1.0:  # also refuses nan
        raise ValueError(f"{function}: argument {name} = {p!r} is not allowed; allowed: a stay probability in (0, 1)")


def symmetric_chain_matrix(p: float) -> np.ndarray:
    """Transition matrix of the symmetric two-state chain on {-1, +1} with stay probability p."""
    _check_stay("symmetric_chain_matrix", "p", p)
    return np.array([[p, 1.0 - p], [1.0 - p, p]])


def data_model_matrix(p_s: float, p_y: float) -> np.ndarray:
    """Transition matrix P_s (x) P_y of the data model's 4-state chain (s_i, y_i) (docs/METHODS.md §4)."""
    _check_stay("data_model_matrix", "p_s", p_s)
    _check_stay("data_model_matrix", "p_y", p_y)
    return np.kron(symmetric_chain_matrix(p_s), symmetric_chain_matrix(p_y))


#: How far a probability vector, a joint table or a row of a transition matrix or kernel may sum from 1
#: (floating-point rounding of products like P_s (x) P_y).
SUM_TOLERANCE = 1e-9


def entry_span(p: np.ndarray, noun: str = "entries") -> str:
    """Words for the values of ``p`` (its ``noun``) an error message quotes: their range, and how many are not
    finite."""
    finite = p[np.isfinite(p)]
    span = f"{noun} from {finite.min():g} to {finite.max():g}" if finite.size else f"no finite value among the {noun}"
    return span + (f" ({p.size - finite.size} not finite)" if finite.size < p.size else "")


def checked_distribution(function: str, name: str, p, what: str, shape: tuple | None = None) -> np.ndarray:
    """``p`` as a float array after checking that it is a distribution (``what`` in words, e.g. "a probability vector
    of length 2"): of ``shape`` if given, finite, non-negative, all its entries summing to 1 within
    :data:`SUM_TOLERANCE`. Else a ValueError naming ``function``, the argument ``name`` and what is allowed."""
    p = np.asarray(p, dtype=float)
    allowed = f"{function}: {name} must be {what}, non-negative and summing to 1 within {SUM_TOLERANCE:g}"
    if (shape is not None and p.shape != tuple(shape)) or p.size == 0:
        raise ValueError(f"{allowed}; got shape {p.shape}")
    if not np.all(np.isfinite(p)) or p.min() < 0 or abs(p.sum() - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"{allowed}; got {entry_span(p)}, sum {np.nansum(p):.12g}")
    return p


def checked_transition_matrix(function: str, P, irreducible: bool = False) -> np.ndarray:
    """``P`` as a float array after checking that it is a transition matrix: square, finite, entries in [0, 1], rows
    summing to 1 within :data:`SUM_TOLERANCE`, and (``irreducible``) every state reachable from every other
    (networkx's strong connectivity of the graph of positive entries). Else a ValueError naming ``function``, the
    argument and what is allowed."""
    import networkx as nx

    P = np.asarray(P, dtype=float)
    allowed = (f"{function}: P must be a square transition matrix (entries in [0, 1], rows summing to 1 within "
               f"{SUM_TOLERANCE:g})")
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] == 0:
        raise ValueError(f"{allowed}; got shape {P.shape}")
    if not np.all(np.isfinite(P)) or P.min() < 0.0 or P.max() > 1.0:
        raise ValueError(f"{allowed}; got {entry_span(P)}")
    sums = P.sum(axis=1)
    if np.max(np.abs(sums - 1.0)) > SUM_TOLERANCE:
        raise ValueError(f"{allowed}; got row sums {np.round(sums, 12).tolist()}")
    if irreducible and not nx.is_strongly_connected(nx.from_numpy_array(P > 0, create_using=nx.DiGraph)):
        raise ValueError(f"{function}: P must be irreducible (every state reachable from every other), else its "
                         "stationary law is not unique; got a reducible matrix")
    return P


def stationary_distribution(P: np.ndarray) -> np.ndarray:
    """Stationary law pi (pi P = pi) of an irreducible chain (a ValueError for any other matrix).

    By the Grassmann-Taksar-Heyman elimination (Grassmann, Taksar and Heyman, Operations Research 33(5), 1985): it
    reads only P's off-diagonal entries and never subtracts, so each entry of pi keeps its relative accuracy on nearly
    reducible chains (off-diagonal entries of 1e-300), where an eigenvector of P^T loses it and can turn negative.
    Where a product in double precision would leave the normal range (a true entry below 1e-308 along the way), the
    same elimination runs in mpmath, whose exponents are unbounded, and each entry is rounded to a float at the end."""
    P = checked_transition_matrix("stationary_distribution", P, irreducible=True)
    try:
        with np.errstate(under="raise", over="raise", divide="raise", invalid="raise"):  # numpy scalars obey it
            pi = _gth(P.tolist(), np.float64)
        if all(x > 0 for x in pi):  # an irreducible chain puts positive mass on every state
            return np.array(pi)
    except (FloatingPointError, ZeroDivisionError):
        pass
    import mpmath

    with mpmath.workdps(30):  # sums of positive terms only: 30 digits keep every entry's 15
        return np.array([float(x) for x in _gth(P.tolist(), mpmath.mpf)])


def _gth(P: list[list], number) -> list:
    """The Grassmann-Taksar-Heyman elimination on the off-diagonal entries of P, in the arithmetic ``number``
    (numpy.float64 or mpmath.mpf): pi normalised to sum 1."""
    S = len(P)
    A = [[number(x) for x in row] for row in P]
    outflow = [number(0)] * S  # outflow[k]: row k's mass towards the states below k, once those above are eliminated
    for k in range(S - 1, 0, -1):
        outflow[k] = sum(A[k][:k], number(0))
        for i in range(k):
            for j in range(k):
                A[i][j] += A[i][k] * (A[k][j] / outflow[k])
    pi = [number(1)] + [number(0)] * (S - 1)
    for k in range(1, S):
        pi[k] = sum((pi[i] * A[i][k] for i in range(k)), number(0)) / outflow[k]
    total = sum(pi, number(0))
    return [x / total for x in pi]


def is_reversible(P: np.ndarray, pi: np.ndarray | None = None, tol: float = 1e-12) -> bool:
    """Detailed balance pi(x) P(x, y) = pi(y) P(y, x) (P a transition matrix; without ``pi``, irreducible)."""
    if not 0.0 <= tol < np.inf:
        raise ValueError(f"is_reversible: argument tol = {tol!r} is not allowed; allowed: a finite number >= 0")
    P = checked_transition_matrix("is_reversible", P, irreducible=pi is None)
    pi = stationary_distribution(P) if pi is None else checked_distribution(
        "is_reversible", "pi", pi, f"a probability vector of length {P.shape[0]}", (P.shape[0],))
    flow = pi[:, None] * P
    return bool(np.allclose(flow, flow.T, atol=tol))


def spectral_gap(P: np.ndarray) -> float:
    """g = 1 - max{|lambda_2|, ..., |lambda_S|} (Zhao Lemma 4), P a transition matrix (a reducible one has a second
    eigenvalue 1, so g = 0)."""
    P = checked_transition_matrix("spectral_gap", P)
    lam = np.linalg.eigvals(P)
    k = int(np.argmin(np.abs(lam - 1.0)))  # drop one eigenvalue 1 (lambda_1)
    rest = np.delete(lam, k)
    return float(np.clip(1.0 - (np.max(np.abs(rest)) if rest.size else 0.0), 0.0, 1.0))  # rounding may pass 0


class ChainInfluence:
    """Log-ratio matrices of a stationary finite-state chain, by distance k = 1, 2, ... (computed lazily).

    ``forward(k)[x, x'] = ln max_v P^k(x, v) / P^k(x', v)`` and ``backward(k)`` the same for B^k; diagonal = -inf
    (x != x' in the definition). ``influence(a, b)`` is I({X_{i-a}, X_{i+b}} <- X_i) with a or b None for no quilt
    node on that side.
    """

    def __init__(self, P: np.ndarray, pi: np.ndarray | None = None):
        P = checked_transition_matrix("ChainInfluence", P, irreducible=pi is None)
        self.P = P
        self.pi = stationary_distribution(P) if pi is None else checked_distribution(
            "ChainInfluence", "pi", pi, f"a probability vector of length {P.shape[0]}", (P.shape[0],))
        self.S = P.shape[0]
        self.reversible = is_reversible(P, self.pi)
        self._power = np.eye(self.S)
        self._fwd: list[np.ndarray] = [None]  # index k
        self._bwd: list[np.ndarray] = [None]

    @staticmethod
    def _log_ratio(K: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            L = np.log(K)
        r = np.max(L[:, None, :] - L[None, :, :], axis=2)
        np.fill_diagonal(r, -np.inf)
        return r

    def _extend(self, k: int) -> None:
        while len(self._fwd) <= k:
            self._power = self._power @ self.P
            f = self._log_ratio(self._power)
            self._fwd.append(f)
            if self.reversible:
                self._bwd.append(f)
            else:
                B = (self.pi[None, :] * self._power.T) / self.pi[:, None]
                self._bwd.append(self._log_ratio(B))

    def forward(self, k: int) -> np.ndarray:
        self._extend(k)
        return self._fwd[k]

    def backward(self, k: int) -> np.ndarray:
        self._extend(k)
        return self._bwd[k]

    def pair_matrix(self, a: int | None, b: int | None) -> np.ndarray:
        z = np.zeros((self.S, self.S))
        np.fill_diagonal(z, -np.inf)
        left = z if a is None else self.backward(a)
        right = z if b is None else self.forward(b)
        return left + right

    def influence(self, a: int | None, b: int | None) -> float:
        """I(X_Q <- X_i) for the quilt at distances (a, b); 0 for the empty quilt."""
        if a is None and b is None:
            return 0.0
        return float(np.max(self.pair_matrix(a, b)))


class ProductChainInfluence(ChainInfluence):
    """The log-ratio matrices of ``copies`` independent copies of one chain P, run side by side (the state space
    S^copies is never formed).

    For product states the ratio P^k(x, v) / P^k(x', v) factorizes over copies, so ln max_v is a sum over copies of
    each copy's ln max; a copy with x_c = x'_c contributes 0, and every single-chain entry off the diagonal is >= 0,
    so the maximum over x != x' is ``copies`` times the single chain's. Scaling the single chain's matrices by
    ``copies`` therefore gives every quilt's max-influence exactly (checked against the Kronecker product in the
    tests)."""

    def __init__(self, P: np.ndarray, copies: int, pi: np.ndarray | None = None):
        if copies < 1:
            raise ValueError(f"copies must be >= 1, got {copies}")
        super().__init__(P, pi)
        self.copies = int(copies)

    def forward(self, k: int) -> np.ndarray:
        return self.copies * super().forward(k)

    def backward(self, k: int) -> np.ndarray:
        return self.copies * super().backward(k)


# ---------------------------------------------------------------- brute force (small n), the tests' oracle

#: Largest joint :func:`chain_joint` enumerates (8 bytes a cell: about 0.5 GB).
MAX_JOINT_CELLS = 2**26


def chain_joint(P: np.ndarray, pi: np.ndarray, n: int) -> np.ndarray:
    """Joint law of (X_1..X_n) of the stationary chain as an array of shape (S,)*n, by full enumeration (S^n cells:
    at most :data:`MAX_JOINT_CELLS`)."""
    P = checked_transition_matrix("chain_joint", P)
    S = P.shape[0]
    pi = checked_distribution("chain_joint", "pi", pi, f"a probability vector of length {S}", (S,))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1 or S ** int(n) > MAX_JOINT_CELLS:
        raise ValueError(f"chain_joint: argument n = {n!r} is not allowed; allowed: an integer >= 1 with "
                         f"{S}^n <= {MAX_JOINT_CELLS:g} cells")
    joint = pi.copy()
    for _ in range(n - 1):
        joint = joint[..., None] * P.reshape((1,) * (joint.ndim - 1) + (S, S))
    return joint


def _marginal(joint: np.ndarray, keep: list[int]) -> np.ndarray:
    """Marginal over the axes ``keep`` (in that order)."""
    drop = tuple(ax for ax in range(joint.ndim) if ax not in keep)
    m = joint.sum(axis=drop)
    kept_sorted = sorted(keep)
    return np.transpose(m, [kept_sorted.index(k) for k in keep])


def max_influence_bruteforce(joint: np.ndarray, S_set, i: int, K_set=()) -> float:
    """Zhao eq. (6) from the definition: ln max over x_S, x_i != x_i', x_K of P[x_S|x_i,x_K]/P[x_S|x_i',x_K]."""
    S_set, K_set = list(S_set), list(K_set)
    if not S_set:
        return 0.0
    if i in S_set or i in K_set or set(S_set) & set(K_set):
        raise ValueError(f"max_influence_bruteforce: S_set = {S_set}, K_set = {K_set} and i = {i} are not allowed; "
                         "allowed: S, K and {i} disjoint")
    m = _marginal(joint, [i] + K_set + S_set)  # axes: x_i, x_K..., x_S...
    cond = _marginal(joint, [i] + K_set)
    sdim = len(S_set)
    states = m.shape[0]
    best = -np.inf
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 where (x_i, x_K) is impossible: nan, skipped below
        c = m / cond.reshape(cond.shape + (1,) * sdim)  # P[x_S | x_i, x_K]
        logc = np.log(c)
        for x, xp in itertools.permutations(range(states), 2):
            d = logc[x] - logc[xp]
            d = d[~np.isnan(d)]  # +inf (possible under x_i only) counts; nan (impossible under both) does not
            if d.size:
                best = max(best, float(d.max()))
    return best


def b_bruteforce(joint: np.ndarray, quilt, nearby, i: int) -> float:
    """Zhao's b_i = max over L subset of N_i of I(X_Q <- X_i | X_L) (Theorem 1 / Lemma 2), by enumeration."""
    nearby = sorted(nearby)
    best = 0.0 if not quilt else -np.inf
    for k in range(len(nearby) + 1):
        for L in itertools.combinations(nearby, k):
            best = max(best, max_influence_bruteforce(joint, sorted(quilt), i, list(L)))
    return best
