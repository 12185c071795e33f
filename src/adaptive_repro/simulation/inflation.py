"""Variance inflation V of a sign query on dependent records. Closed forms (docs/METHODS.md §4b): the pair sum of a
sequence with geometric lag correlation, the spread of a null attribute's per-state mean, and V from both; every data
model with a known V builds it from these. Estimates from a data set's records in order (§4c): batch means, and the
cluster-robust variance where the clusters are known."""

from __future__ import annotations

import numpy as np

from adaptive_repro.foundation.domain import COUNT, NONNEGATIVE, PROBABILITY, Domain, check_public_functions


def lag_sum(n: int, lam: float) -> float:
    """S(n, lam) = sum_{k=1}^{n-1} (n - k) lam^k = lam [n (1 - lam) - (1 - lam^n)] / (1 - lam)^2: the pair sum of a
    stationary sequence whose lag-k correlation is lam^k (used by every variance inflation below)."""
    if lam == 0.0:
        return 0.0
    if lam == 1.0:
        return n * (n - 1) / 2.0
    one_minus_power = -np.expm1(n * np.log(lam)) if lam > 0 else 1.0 - lam**n  # 1 - lam^n without cancellation
    return float(lam * (n * (1.0 - lam) - one_minus_power) / (1.0 - lam) ** 2)


def null_loading_spread(b: float) -> float:
    """E[(Phi(beta) - 1/2)^2] for beta ~ N(0, b^2) = arcsin(b^2 / (1 + b^2)) / (2 pi) (P[Z_1 < beta, Z_2 < beta] for
    standard normals Z_1, Z_2 is the bivariate normal orthant probability 1/4 + arcsin(rho)/(2 pi),
    rho = b^2/(1 + b^2)): the expected squared half-difference a^2 at a null attribute."""
    rho = b * b / (1.0 + b * b) if b < 1e150 else 1.0  # (b^2 overflows beyond 1e154; rho is 1 to double precision)
    return float(np.arcsin(rho) / (2.0 * np.pi))


def sign_query_inflation(p: np.ndarray, spread: np.ndarray, n: int, lam: float) -> np.ndarray:
    """V = n Var(q_j) / (p_j (1 - p_j)) of a sign query whose record indicators have mean p_j and, across records
    k apart, covariance spread_j lam^k (``spread`` = the variance over the latent state of P[u_ij > 0 | state]):
    V = 1 + 2 spread S(n, lam) / (n p (1 - p)) (docs/METHODS.md §4b)."""
    p, spread = np.asarray(p, dtype=float), np.asarray(spread, dtype=float)
    return 1.0 + 2.0 * spread * lag_sum(n, lam) / (n * p * (1.0 - p))


# ------------------------------------------------ V estimated from a data set's records (docs/METHODS.md §4c)

def batch_means_inflation(u: np.ndarray) -> np.ndarray:
    """Per column of u (records in order x queries), the variance inflation of its mean estimated by non-overlapping
    batch means: V_hat = b Var(batch means) / Var(u), batch size b = floor(sqrt(n)) (the consistent batch-means choice
    b_n = n^(1/2); Flegal and Jones 2010, Ann. Statist. 38(2), Prop. 3 and §3), over the first floor(n/b) b
    records. Biased low when the dependence reaches beyond b records; 1 for i.i.d. columns in expectation; nan for a
    constant column. At least 1 after :func:`floored`."""
    n = u.shape[0]
    b = max(1, int(np.floor(np.sqrt(n))))
    m = n // b
    if m < 2:
        raise ValueError(f"batch means need at least 2 batches of {b} records; got n = {n}")
    batches = u[: m * b].reshape(m, b, -1).mean(axis=1)
    total = u.var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return b * batches.var(axis=0, ddof=1) / total


def cluster_robust_inflation(u: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """Per column of u (records x queries), the variance inflation of its mean with the records in known clusters,
    dependent within and independent across: V_hat = sum_g (sum_{i in g} (u_i - mean))^2 / sum_i (u_i - mean)^2, the
    cluster-robust variance of a mean (Liang and Zeger 1986, Biometrika 73(1); CR0, no small-sample factor) over its
    i.i.d. variance. ``clusters``: a label per record. nan for a constant column; at least 1 after
    :func:`floored`."""
    centred = u - u.mean(axis=0)
    _, index = np.unique(clusters, return_inverse=True)
    sums = np.zeros((index.max() + 1, u.shape[1]))
    np.add.at(sums, index, centred)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (sums**2).sum(axis=0) / (centred**2).sum(axis=0)


def floored(v_hat: np.ndarray) -> np.ndarray:
    """V_hat_j floored at 1 (a threshold never below the i.i.d. one; nan, a constant column, counts as 1)."""
    return np.fmax(np.nan_to_num(v_hat, nan=1.0), 1.0)


check_public_functions(globals(), __name__, n=COUNT, p=PROBABILITY, b=NONNEGATIVE, lam=Domain(-1.0, 1.0),
                       spread=NONNEGATIVE)
