"""Bounds of the Lecture 18 notes (J. Sorrell): exponential mechanism, transfer theorem, Monitor.

Notation of the notes: m = size of a data set S ~ D^m, Delta = sensitivity of the score, |Y| = number of outputs of
the exponential mechanism, T = number of data sets given to the Monitor. All functions are vectorized (numpy
broadcasting) and return float arrays (0-d arrays for scalar input).
"""

from __future__ import annotations

import numpy as np

from adaptive_repro.foundation.domain import check_public_functions


def _f(x):
    return np.asarray(x, dtype=float)


def exponential_mechanism_gap(sensitivity, epsilon, n_outputs, beta):
    """Lecture 18, Theorem 0.1: except with probability beta the exponential mechanism's output y has
    f(y, S) > OPT(S) - (2 Delta / eps) (ln|Y| + ln(1/beta)).  Returns that utility gap
    (2 Delta/eps)(ln|Y| + ln(1/beta)).

    (The notes write "ln|Y| + log(1/beta)"; the proof of the standard statement uses the natural log in both.)
    """
    sensitivity, epsilon, n_outputs, beta = map(_f, (sensitivity, epsilon, n_outputs, beta))
    return 2.0 * sensitivity / epsilon * (np.log(n_outputs) + np.log(1.0 / beta))


def exponential_mechanism_tail(sensitivity, epsilon, n_outputs, gap):
    """Lecture 18, Theorem 0.1 solved for beta: Pr[f(y, S) <= OPT(S) - gap] <= |Y| exp(-eps gap / (2 Delta)),
    capped at 1 (the inverse of :func:`exponential_mechanism_gap`)."""
    sensitivity, epsilon, n_outputs, gap = map(_f, (sensitivity, epsilon, n_outputs, gap))
    return np.minimum(1.0, n_outputs * np.exp(-epsilon * gap / (2.0 * sensitivity)))


def exponential_mechanism_expected_loss(sensitivity, epsilon, n_outputs):
    """E[OPT(S) - f(y, S)] <= (2 Delta / eps)(ln|Y| + 1): Lecture 18, Theorem 0.1 integrated over beta
    (Pr[OPT - f >= (2 Delta/eps)(ln|Y| + s)] <= e^{-s},
    so E[OPT - f] <= (2 Delta/eps) ln|Y| + (2 Delta/eps) int e^{-s} ds).
    Derived here, not stated in the notes; used for the rigorous version of the notes' Step 4."""
    sensitivity, epsilon, n_outputs = map(_f, (sensitivity, epsilon, n_outputs))
    return 2.0 * sensitivity / epsilon * (np.log(n_outputs) + 1.0)


def transfer_bound(epsilon, delta, m):
    """Lecture 18, Theorem 0.2 (Bassily et al. 2016): for an (eps, delta)-DP M selecting a query of sensitivity 1/m,
    Pr_{S ~ D^m, q <- M(S)}[|q(S) - q(D)| >= 6 eps] <= max{4 delta / eps, exp(-eps^2 m / 8)}.
    Valid only under :func:`transfer_conditions`."""
    epsilon, delta, m = map(_f, (epsilon, delta, m))
    return np.maximum(4.0 * delta / epsilon, np.exp(-(epsilon**2) * m / 8.0))


def transfer_conditions(epsilon, delta, m):
    """Lecture 18, Theorem 0.2's conditions eps in [sqrt(12/n), 1/8] and delta <= eps/16.

    The notes write sqrt(12/n) although the data set size is m everywhere else; we read n = m.
    """
    epsilon, delta, m = map(_f, (epsilon, delta, m))
    return (epsilon >= np.sqrt(12.0 / m)) & (epsilon <= 1.0 / 8.0) & (delta <= epsilon / 16.0)


def transfer_threshold(epsilon):
    """The deviation 6 eps of Lecture 18, Theorem 0.2 (alpha = 6 eps in the proof's Step 4)."""
    return 6.0 * _f(epsilon)


def claim03_lower_bound(alpha, p_alpha, T):
    """Lecture 18, Claim 0.3: E[S_max] >= alpha (1 - (1 - p_alpha)^T), with
    p_alpha = Pr_{S ~ D^m, q <- M(S)}[q(S) - q(D) >= alpha] and S_max = max_{(t,q) in Y} q(S_t) - q(D)."""
    alpha, p_alpha, T = map(_f, (alpha, p_alpha, T))
    return alpha * (1.0 - (1.0 - p_alpha) ** T)


def lemma04_upper_bound(epsilon, delta, T):
    """Lecture 18, Lemma 0.4: if Monitor is (eps, delta)-DP then E[q(S_t) - q(D)] <= (e^eps - 1) + T delta.

    For the Monitor run with an (eps, delta)-DP M and an eps'-DP exponential mechanism, pass eps + eps'
    (Step 1 of the proof plan / Step 4: (e^{eps + eps'} - 1) + T delta).
    """
    epsilon, delta, T = map(_f, (epsilon, delta, T))
    return np.expm1(epsilon) + T * delta


def monitor_lower_bound_notes(alpha, p_alpha, T, epsilon_prime, m):
    """Lecture 18, Step 4 as written: E[q(S_t) - q(D)] > alpha (1 - (1 - p_alpha)^T) - 2 ln T / (eps m),
    where eps is the Monitor's exponential-mechanism level (eps' = eps in the notes).

    Stated under the notes' simplifying assumption that the exponential mechanism always returns a nearly optimal
    output, and with ln T where Theorem 0.1 with |Y| = 2T and beta -> 1 would give ln(2T).
    """
    alpha, p_alpha, T, epsilon_prime, m = map(_f, (alpha, p_alpha, T, epsilon_prime, m))
    return claim03_lower_bound(alpha, p_alpha, T) - 2.0 * np.log(T) / (epsilon_prime * m)


def monitor_lower_bound(alpha, p_alpha, T, epsilon_prime, m):
    """Rigorous version of Lecture 18's Step 4 (this project's derivation, no simplifying assumption):
    E[q(S_t) - q(D)] >= E[S_max] - E[S_max - f(out)] >= alpha (1 - (1 - p_alpha)^T) - (2/(eps' m))(ln(2T) + 1),
    by Claim 0.3 and :func:`exponential_mechanism_expected_loss` with |Y| = 2T and Delta = 1/m."""
    alpha, p_alpha, T, epsilon_prime, m = map(_f, (alpha, p_alpha, T, epsilon_prime, m))
    return claim03_lower_bound(alpha, p_alpha, T) - exponential_mechanism_expected_loss(1.0 / m, epsilon_prime, 2.0 * T)


check_public_functions(globals(), __name__)  # argument domains (adaptive_repro.foundation.domain)
