"""Simulations of the Lecture 18 notes' mechanisms (J. Sorrell): exponential mechanism, a DP query-selection
mechanism on finite data, and the Monitor algorithm (Algorithm 2). Pure functions of an ``np.random.Generator``,
vectorized over replicates (leading array axes).

Data (this project's choice; the notes fix no distribution): D is uniform on X = {0,1}^d, a data set S is m i.i.d.
draws. The candidate statistical queries are q_j(x) = x_j and their complements 1 - x_j (j < d), so
q(D) = 1/2 and q(S) depends on S only through the attribute counts c_j ~ Binomial(m, 1/2), which are drawn directly
(sufficient statistics, exact in distribution).

Mechanism M (``select_queries``), (eps, delta)-DP: with probability delta it outputs the "leak" query
q_S(x) = 1[x in S] (a statistical query, sensitivity 1/m, q_S(S) = 1, q_S(D) = |distinct(S)| / 2^d); otherwise the
exponential mechanism (notes, Algorithm 1) with score f(q, S) = q(S), Delta = 1/m, over the 2d marginal queries.
Proof of (eps, delta)-DP: for neighbours S, S' and any output set O,
Pr[M(S) in O] <= delta + (1 - delta) e^eps Pr[E(S') in O] <= e^eps Pr[M(S') in O] + delta.
The leak branch makes the delta term of Theorem 0.2 visible: Pr[|q(S) - q(D)| >= 6 eps] >= delta.
"""

from __future__ import annotations

import dataclasses

import numpy as np

#: Rows of replicates simulated at once by the Monitor (bounds memory; fixed so results do not depend on it).
MONITOR_CHUNK_ELEMENTS = 2_000_000


def exponential_mechanism_probabilities(scores, epsilon: float, sensitivity: float) -> np.ndarray:
    """Lecture 18, Algorithm 1: D_Y(y) proportional to exp(eps f(y, S) / (2 Delta)), along the last axis.
    eps = inf gives the uniform distribution over the maximizers."""
    scores = np.asarray(scores, dtype=float)
    if np.isinf(epsilon):
        top = scores == scores.max(axis=-1, keepdims=True)
        return top / top.sum(axis=-1, keepdims=True)
    logits = epsilon * scores / (2.0 * sensitivity)
    logits = logits - logits.max(axis=-1, keepdims=True)
    w = np.exp(logits)
    return w / w.sum(axis=-1, keepdims=True)


def exponential_mechanism(rng: np.random.Generator, scores, epsilon: float, sensitivity: float) -> np.ndarray:
    """Lecture 18, Algorithm 1: sample y ~ D_Y along the last axis of ``scores`` (Gumbel-max trick:
    argmax_y eps f(y)/(2 Delta) + G_y with G_y i.i.d. standard Gumbel has exactly the law D_Y).
    Returns the chosen indices, shape ``scores.shape[:-1]``. eps = inf: argmax (first maximizer)."""
    scores = np.asarray(scores, dtype=float)
    if np.isinf(epsilon):
        return np.argmax(scores, axis=-1)
    logits = epsilon * scores / (2.0 * sensitivity)
    return np.argmax(logits + rng.gumbel(size=scores.shape), axis=-1)


def leak_query_gap(rng: np.random.Generator, m: int, d: int, size: int) -> np.ndarray:
    """q_S(S) - q_S(D) = 1 - |distinct(S)| / 2^d for ``size`` fresh data sets S of m uniform points of {0,1}^d."""
    if size == 0:
        return np.zeros(0)
    pts = np.sort(rng.integers(0, 2**d, size=(size, m), dtype=np.int64), axis=1)
    distinct = 1 + np.count_nonzero(np.diff(pts, axis=1), axis=1)
    return 1.0 - distinct / float(2**d)


@dataclasses.dataclass(frozen=True)
class Selection:
    """Output of the query-selection mechanism M on a batch of data sets (arrays of the batch shape)."""

    gap: np.ndarray  # q(S) - q(D) of the selected query
    leaked: np.ndarray  # True where M output the leak query q_S


def select_queries(rng: np.random.Generator, m: int, d: int, epsilon: float, delta: float,
                   size: tuple[int, ...]) -> Selection:
    """Run M (module docstring) on ``size`` independent data sets S ~ D^m; return the selected query's
    generalization gap q(S) - q(D)."""
    size = tuple(np.atleast_1d(size).tolist()) if not isinstance(size, tuple) else size
    counts = rng.binomial(m, 0.5, size=size + (d,))
    q_s = np.concatenate([counts / m, 1.0 - counts / m], axis=-1)  # queries x_j, then 1 - x_j
    idx = exponential_mechanism(rng, q_s, epsilon, 1.0 / m)
    gap = np.take_along_axis(q_s, idx[..., None], axis=-1)[..., 0] - 0.5
    leaked = rng.random(size) < delta
    gap[leaked] = leak_query_gap(rng, m, d, int(leaked.sum()))
    return Selection(gap=gap, leaked=leaked)


def monitor_scores(gaps) -> np.ndarray:
    """Lecture 18, Algorithm 2, lines 4-7: the candidates Y = {(t, q_t), (t, 1 - q_t)} have scores
    f((t, q), S) = q(S_t) - q(D): gap_t for q_t and -gap_t for its complement. Last axis: t = 0..T-1, then
    the complements."""
    gaps = np.asarray(gaps, dtype=float)
    return np.concatenate([gaps, -gaps], axis=-1)


@dataclasses.dataclass(frozen=True)
class MonitorRun:
    """Per-replicate results of the Monitor (arrays of shape (replicates,))."""

    t_star: np.ndarray  # chosen data set index t*
    complement: np.ndarray  # True if the chosen query is 1 - q_t*
    score: np.ndarray  # q*(S_t*) - q*(D), the measured generalization error of the Monitor's output
    s_max: np.ndarray  # S_max = max_{(t,q) in Y} q(S_t) - q(D) = max_t |gap_t|


def monitor(rng: np.random.Generator, gaps, epsilon_prime: float, m: int) -> MonitorRun:
    """Lecture 18, Algorithm 2, lines 7-10: exponential mechanism with score f, Delta = 1/|S_1| = 1/m and eps',
    over the candidates of :func:`monitor_scores`, given the gaps q_t(S_t) - q_t(D) (shape (..., T))."""
    scores = monitor_scores(gaps)
    T = scores.shape[-1] // 2
    choice = exponential_mechanism(rng, scores, epsilon_prime, 1.0 / m)
    score = np.take_along_axis(scores, choice[..., None], axis=-1)[..., 0]
    return MonitorRun(t_star=choice % T, complement=choice >= T, score=score, s_max=scores.max(axis=-1))


def simulate_monitor(rng: np.random.Generator, m: int, d: int, epsilon: float, delta: float, epsilon_prime: float,
                     T: int, replicates: int) -> tuple[MonitorRun, np.ndarray]:
    """Run the Monitor ``replicates`` times on fresh (S_1, ..., S_T) ~ (D^m)^T with M = :func:`select_queries`.
    Returns the Monitor's results and the M-gaps q_t(S_t) - q_t(D), shape (replicates, T) (used for p_alpha).
    Replicates are simulated in chunks of fixed size (MONITOR_CHUNK_ELEMENTS), from one stream in order."""
    rows = max(1, MONITOR_CHUNK_ELEMENTS // (T * 2 * d))
    runs, gaps_all = [], []
    for start in range(0, replicates, rows):
        r = min(rows, replicates - start)
        gaps = select_queries(rng, m, d, epsilon, delta, (r, T)).gap
        runs.append(monitor(rng, gaps, epsilon_prime, m))
        gaps_all.append(gaps)
    run = MonitorRun(*(np.concatenate([getattr(x, f.name) for x in runs])
                       for f in dataclasses.fields(MonitorRun)))
    return run, np.concatenate(gaps_all)

