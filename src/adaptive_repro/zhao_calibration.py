"""Calibration of Zhao's Algorithm 1 and the theory drawn alongside every Zhao run (SPEC section 4).

Calibrations (Zhao 2017 §3; Delta_Q = 1/n for statistical queries):
- ``dp``: sigma = 9 B Delta_Q / (4 eps), so Algorithm 1 is eps-DP (eps* = 9 B Delta_Q / (4 sigma), §3) as if the
  records were independent;
- ``bdp``: sigma = 9 B Delta_Q / (4 eps'), eps' the DP level that implies eps-BDP on the data model's chain
  (Lemma 2 with exact quilts by default; Lemmas 3, 4 selectable);
- ``theorem2``: sigma = (1 - c) tau / (12 ln(4m/beta)), T = (1 + c) tau / 2 (Theorem 2).
For ``dp`` and ``bdp`` the threshold is also Theorem 2's T = (1 + c) tau / 2, so calibrations differ only in sigma.
The target eps defaults to tau/3, the BDP level Lemma 1 needs (text below Lemma 1).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from adaptive_repro import privacy
from adaptive_repro.bounds import zhao as zb

DEFAULT_ALG1 = {"tau": 0.1, "beta": 0.05, "c": 0.5, "budget": 20, "epsilon": None, "bdp_method": "lemma2",
                "clip": 3.0}


@dataclasses.dataclass(frozen=True)
class Alg1Calibration:
    """Algorithm 1's parameters for one arm, and the theory for them at the run's n."""

    arm: str
    feasible: bool
    sigma: float
    threshold: float
    budget: int
    eps_target: float  # the (B)DP level the calibration aims at
    eps_dp_used: float  # the DP level sigma is set for (eps_star)
    note: str


def alg1_settings(block: dict) -> dict:
    """The ``alg1`` config block with defaults filled in."""
    settings = DEFAULT_ALG1 | dict(block.get("alg1") or {})
    if settings["epsilon"] is None:
        settings["epsilon"] = settings["tau"] / 3.0  # Lemma 1: eps <= tau/3
    return settings


def number_of_queries(d: int, k_grid) -> int:
    """m: d attribute queries plus one accuracy query per k > 0."""
    return int(d + sum(1 for k in k_grid if k > 0))


def calibrate(arm: str, n: int, d: int, k_grid, p_s: float, p_y: float, block: dict) -> Alg1Calibration:
    """Sigma and T of Algorithm 1 for the arm ``zhao_alg1_<calibration>`` (module docstring)."""
    s = alg1_settings(block)
    calibration = arm.removeprefix("zhao_alg1_")
    budget, tau, beta, c, eps = s["budget"], s["tau"], s["beta"], s["c"], s["epsilon"]
    threshold = float(zb.theorem2_threshold(tau, c))
    if calibration == "theorem2":
        sigma = float(zb.theorem2_sigma(tau, number_of_queries(d, k_grid), beta, c))
        return Alg1Calibration(arm, True, sigma, threshold, budget, float(zb.theorem2_bdp_target(tau, c)),
                               eps_star(budget, sigma, n), "Theorem 2: sigma = (1-c) tau / (12 ln(4m/beta))")
    if calibration == "dp":
        return Alg1Calibration(arm, True, sigma_for_dp(budget, n, eps), threshold, budget, eps, eps,
                               "sigma = 9B/(4 n eps): eps-DP as if records were independent")
    if calibration == "bdp":
        conv = privacy.dp_level_for_bdp(eps, n, p_s, p_y, s["bdp_method"])
        if not conv.feasible:
            return Alg1Calibration(arm, False, np.nan, threshold, budget, eps, np.nan,
                                   f"{s['bdp_method']} infeasible: {conv.detail}")
        return Alg1Calibration(arm, True, sigma_for_dp(budget, n, conv.eps_dp), threshold, budget, eps,
                               float(conv.eps_dp), f"{s['bdp_method']}: eps' = {conv.eps_dp:.3g} implies "
                               f"{eps:.3g}-BDP; sigma = 9B/(4 n eps')")
    raise ValueError(f"unknown calibration {calibration!r} in mechanism {arm!r}")


def sigma_for_dp(budget: int, n: int, eps: float) -> float:
    """Zhao 2017 §3: Algorithm 1 is eps*-DP with eps* = 9 B Delta_Q / (4 sigma); solved for sigma, Delta_Q = 1/n."""
    return 9.0 * budget / (4.0 * n * eps)


def eps_star(budget: int, sigma: float, n: int) -> float:
    """Zhao 2017 §3: eps* = B Delta_Q (1/sigma + 1/sigma_2 + 2/sigma_3) = 9 B Delta_Q / (4 sigma), Delta_Q = 1/n."""
    return 9.0 * budget / (4.0 * sigma * n)


def smallest_guaranteed_tau(n: int, budget: int, m: int, beta: float, c: float, p_s: float, p_y: float,
                            taus=np.geomspace(1e-3, 1.0, 61)) -> float:
    """The smallest tau on a grid with n >= Theorem 2's requirement n_#(B, sigma, (1-c)tau/4, beta/(2m)) at the
    data model's chain (eps' by Lemma 2 at eps = (1-c)tau/12); nan ("none") if no tau < 1 is guaranteed."""
    for tau in taus[taus < 1.0]:
        conv = privacy.dp_level_for_bdp(float(zb.theorem2_bdp_target(tau, c)), n, p_s, p_y, "lemma2")
        if not conv.feasible:
            continue
        if n >= float(zb.theorem2_n_required(budget, tau, m, beta, c, conv.eps_dp)):
            return float(tau)
    return float("nan")


def theory_alongside(cal: Alg1Calibration, n: int, d: int, k_grid, p_s: float, p_y: float, block: dict) -> dict:
    """SPEC section 4, "Theory alongside": eps' by each lemma, sigma, eps*, the BDP level achieved, n_* and n_#
    for the run's (tau, beta), and the smallest tau Theorem 2 guarantees at the run's n."""
    s = alg1_settings(block)
    tau, beta, c, budget = s["tau"], s["beta"], s["c"], s["budget"]
    m = number_of_queries(d, k_grid)
    out = {"arm": cal.arm, "feasible": cal.feasible, "sigma": cal.sigma, "threshold": cal.threshold,
           "budget": budget, "tau": tau, "beta": beta, "c": c, "m": m, "eps_target": cal.eps_target,
           "eps_star": eps_star(budget, cal.sigma, n) if cal.feasible else np.nan, "calibration_note": cal.note}
    for method in ("lemma2", "lemma3", "lemma4"):
        conv = privacy.dp_level_for_bdp(s["epsilon"], n, p_s, p_y, method)
        out[f"eps_prime_{method}"] = conv.eps_dp if conv.feasible else np.nan
    achieved = privacy.bdp_level_for_dp(out["eps_star"], n, p_s, p_y, "lemma2") if cal.feasible else None
    out["bdp_achieved_lemma2"] = np.nan if achieved is None else float(achieved)
    a_max = privacy.lemma3_blanket_influence(n, privacy.data_model_chain(p_s, p_y))
    eps_prime_tau3 = privacy.dp_level_for_bdp(tau / 3.0, n, p_s, p_y, "lemma2")
    if cal.feasible:
        out["n_star"] = float(zb.theorem1_n_star(budget, cal.sigma, tau, beta, a_max))
        out["n_sharp"] = float(zb.theorem1_n_sharp(budget, cal.sigma, tau, beta,
                                                   eps_prime_tau3.eps_dp if eps_prime_tau3.feasible else None))
    else:
        out["n_star"] = out["n_sharp"] = np.nan
    out["theorem2_n_required"] = float(zb.theorem2_n_required(
        budget, tau, m, beta, c,
        privacy.dp_level_for_bdp(float(zb.theorem2_bdp_target(tau, c)), n, p_s, p_y, "lemma2").eps_dp))
    out["smallest_guaranteed_tau"] = smallest_guaranteed_tau(n, budget, m, beta, c, p_s, p_y)
    return out
