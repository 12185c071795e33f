"""Closed-form variance inflation V of a sign query on dependent records (docs/METHODS.md §4b): the pair sum of a
sequence with geometric lag correlation, the spread of a null attribute's per-state mean, and V from both. Every data
model with a known V builds it from these."""

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


check_public_functions(globals(), __name__, n=COUNT, p=PROBABILITY, b=NONNEGATIVE, lam=Domain(-1.0, 1.0),
                       spread=NONNEGATIVE)
