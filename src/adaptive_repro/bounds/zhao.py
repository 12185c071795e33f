"""Bounds of Zhao 2017, "Adaptive Statistical Learning with Bayesian Differential Privacy" (papers/001)."""

from __future__ import annotations

import numpy as np


def lemma1_tail_bound(tau, n):
    """Zhao 2017, Lemma 1 specialised to statistical queries (Delta_Q = 1/n, eps <= tau/3), text below Lemma 1:
    P[|Y(X) - Y(P)| >= tau] <= 4 exp(-tau^2 n / 9)."""
    tau = np.asarray(tau, dtype=float)
    n = np.asarray(n, dtype=float)
    return 4.0 * np.exp(-(tau**2) * n / 9.0)
