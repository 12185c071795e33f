"""eps(delta) of a ``dp_accounting`` privacy-loss distribution, as the library computes it, in numpy.

``PrivacyLossDistribution.get_epsilon_for_delta`` (dp-accounting 0.6, ``pld_pmf._get_epsilon_for_delta``) walks the
privacy losses from the largest down in a Python loop, accumulating the upper mass sum(p) and the lower mass
sum(e^-loss p) until log((upper - delta) / lower) reaches the current loss. For the long composed PMFs of
he-composition-eps that loop is most of the output's CPU time. :func:`epsilon_for_delta` runs the same walk in
chunks: the losses and both masses are running sums in the library's order (numpy's ``cumsum`` adds one term after
the other, as the loop does), e^-loss is ``math.exp`` as in the library, and each stopping test is decided by
``math.log`` as in the library (numpy's log only preselects the candidates, with a margin far wider than the one
ulp by which the two logs can differ). The result is the library's float, bit for bit; a unit test compares them.
Sparse PMFs (short ones) go to the library itself.
"""

from __future__ import annotations

import math

import numpy as np

#: Losses walked per numpy step; a walk usually stops long before the end of the PMF.
CHUNK = 1 << 15
#: Relative margin of the numpy preselection of stopping candidates (numpy's and libm's log differ by an ulp).
MARGIN = 1e-9


def epsilon_for_delta(pld, delta: float) -> float:
    """The smallest eps with hockey-stick divergence at most ``delta`` for ``pld`` (a dp_accounting
    ``PrivacyLossDistribution``): the same value as ``pld.get_epsilon_for_delta(delta)``."""
    eps_remove = _pmf_epsilon(pld._pmf_remove, delta)
    if pld._symmetric:
        return eps_remove
    return max(eps_remove, _pmf_epsilon(pld._pmf_add, delta))


def _pmf_epsilon(pmf, delta: float) -> float:
    """eps(delta) of one PMF: the library's walk for a dense PMF, the library itself otherwise."""
    from dp_accounting.pld import pld_pmf

    if not isinstance(pmf, pld_pmf.DensePLDPmf):
        return pmf.get_epsilon_for_delta(delta)
    disc = pmf._discretization
    probs = np.flip(np.asarray(pmf._probs, dtype=float))
    loss = (pmf._lower_loss + len(probs) - 1) * disc  # the largest loss; then loss - disc, ... (a running sum)
    upper, lower = pmf._infinity_mass, 0
    if upper > delta:
        return math.inf
    for start in range(0, len(probs), CHUNK):
        p = probs[start:start + CHUNK]
        losses = np.cumsum(np.concatenate(([loss], np.full(len(p) - 1, -disc))))
        terms = np.fromiter(map(math.exp, (-losses).tolist()), dtype=float, count=len(p)) * p
        uppers = np.cumsum(np.concatenate(([upper], p)))  # uppers[i]: the mass before loss i is added
        lowers = np.cumsum(np.concatenate(([lower], terms)))
        stop = _first_stop(uppers[:-1], lowers[:-1], losses, delta)
        # the library's other exit: after adding loss i, upper >= delta while lower is still exactly 0
        zero = np.flatnonzero((uppers[1:] >= delta) & (lowers[1:] == 0))
        if zero.size and (stop is None or zero[0] < stop):
            return max(0, float(losses[zero[0]]))
        if stop is not None:
            upper, lower = uppers[stop], lowers[stop]  # numpy floats, as the library's running sums
            break
        upper, lower, loss = uppers[-1], lowers[-1], float(losses[-1]) - disc
    if upper <= lower + delta:
        return 0
    return math.log((upper - delta) / lower)


def _first_stop(uppers: np.ndarray, lowers: np.ndarray, losses: np.ndarray, delta: float) -> int | None:
    """The first i with upper_i > delta, lower_i > 0 and math.log((upper_i - delta) / lower_i) >= loss_i."""
    live = (uppers > delta) & (lowers > 0)
    with np.errstate(divide="ignore", over="ignore"):
        ratio = np.where(live, uppers - delta, 1.0) / np.where(live, lowers, 1.0)
        near = live & (np.log(ratio) >= losses - MARGIN * np.maximum(1.0, np.abs(losses)))
    for i in np.flatnonzero(near).tolist():
        with np.errstate(over="ignore"):  # numpy floats, as in the library: an overflow is inf, not an error
            if math.log((uppers[i] - delta) / lowers[i]) >= losses[i]:
                return i
    return None
