"""Calibration of Zhao's Algorithm 1 and the theory drawn alongside every Zhao run (docs/METHODS.md §4 and 4a).

Calibrations (Zhao 2017 §3: Algorithm 1 is eps*-DP with eps* = 9 B Delta_Q / (4 sigma); Delta_Q = 1/n for
statistical queries):
- ``dp``: sigma = 9 B Delta_Q / (4 eps), so Algorithm 1 is eps-DP as if the records were independent;
- ``bdp``: sigma = 9 B Delta_Q / (4 eps'), eps' the DP level that implies eps-BDP on the data model's chain
  (Lemma 2 with exact quilts by default; Lemmas 3, 4 selectable: ``privacy.dp_level_for_bdp``);
- ``theorem2``: sigma = (1 - c) tau / (12 ln(4m/beta)), T = (1 + c) tau / 2 (Theorem 2).
For ``dp`` and ``bdp`` (this project's design, docs/METHODS.md §4a) the threshold is in sampling-noise units,
T = threshold_units * 1/(2 sqrt(n)) (a sign query's SD under independence is 1/(2 sqrt(n))), and the session's
privacy level eps is a config knob (``alg1.epsilon``), not tied to tau.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from adaptive_repro import privacy
from adaptive_repro.privacy import (bdp_level_for_dp, data_model_chain, dp_level_for_bdp,
                                    lemma3_blanket_influence)
from adaptive_repro.bounds import zhao as zb
from adaptive_repro.config import fill_schema_defaults, load_schema

#: Algorithm 1's settings when the config gives none: the defaults of the schema's ``alg1`` block (the one place).
DEFAULT_ALG1 = fill_schema_defaults({}, load_schema("config")["$defs"]["alg1"])


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


def noise_unit_threshold(threshold_units: float, n: int) -> float:
    """T = threshold_units / (2 sqrt(n)): the threshold in units of a sign query's sampling SD 1/(2 sqrt(n)) under
    independence (docs/METHODS.md §4a; threshold_units = 6 gives T = 3/sqrt(n))."""
    return float(threshold_units) / (2.0 * np.sqrt(n))


def number_of_queries(d: int, k_grid) -> int:
    """m: d attribute queries plus one accuracy query per k > 0."""
    return int(d + sum(1 for k in k_grid if k > 0))


def calibrate(arm: str, n: int, d: int, k_grid, p_s: float, p_y: float, block: dict) -> Alg1Calibration:
    """Sigma and T of Algorithm 1 for the arm ``zhao_alg1_<calibration>`` (module docstring)."""
    s = alg1_settings(block)
    calibration = arm.removeprefix("zhao_alg1_")
    budget, tau, beta, c, eps = s["budget"], s["tau"], s["beta"], s["c"], s["epsilon"]
    threshold = noise_unit_threshold(s["threshold_units"], n)
    if calibration == "theorem2":
        threshold = float(zb.theorem2_threshold(tau, c))
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
    """Zhao 2017 §3 (:func:`bounds.zhao.alg1_sigma_for_dp`): sigma = 9 B / (4 n eps) makes Algorithm 1 eps-DP."""
    return float(zb.alg1_sigma_for_dp(budget, n, eps))


def eps_star(budget: int, sigma: float, n: int) -> float:
    """Zhao 2017 §3 (:func:`bounds.zhao.alg1_eps_star`): eps* = 9 B / (4 sigma n)."""
    return float(zb.alg1_eps_star(budget, sigma, n))


def theory_alongside(cal: Alg1Calibration, n: int, d: int, k_grid, p_s: float, p_y: float, block: dict) -> dict:
    """docs/METHODS.md §4, "Theory alongside", for one Algorithm 1 arm: eps' by each lemma, sigma, eps*, the BDP level
    achieved, n_* and n_# for the run's (tau, beta), Theorem 2's requirement at tau and the smallest tau it
    guarantees at the run's n (nan: none). Computed by :func:`run_theory`."""
    s = alg1_settings(block)
    tau, beta, c, budget = s["tau"], s["beta"], s["c"], s["budget"]
    m = number_of_queries(d, k_grid)
    base = {"arm": cal.arm, "feasible": cal.feasible, "threshold": cal.threshold, "budget": budget, "c": c,
            "eps_target": cal.eps_target, "calibration_note": cal.note}
    theory = run_theory(n, p_s, p_y, tau, beta, budget, m, sigma=cal.sigma if cal.feasible else None,
                             c_theorem2=c)
    base |= {key: (np.nan if value is None else value) for key, value in theory.items() if key not in base}
    if not cal.feasible:
        base.update(sigma=np.nan, eps_star=np.nan, bdp_achieved_lemma2=np.nan, n_star=np.nan, n_sharp=np.nan)
    base["theorem2_n_required"] = zb.theorem2_required_n(tau, n, privacy.data_model_chain(p_s, p_y), budget, m, beta, c)
    base["smallest_guaranteed_tau"] = base.pop("theorem2_smallest_tau")
    return base


def run_theory(n: int, p_s: float, p_y: float, tau: float, beta: float, B: float, m: int,
               sigma: float | None = None, c_theorem2: float = 0.5) -> dict:
    """The theory docs/METHODS.md §4 asks to report beside every Zhao experiment (data-model chain P_s (x) P_y).

    eps = tau/3 (Lemma 1's BDP target); eps' by Lemmas 2, 3, 4 (None if infeasible); sigma_bdp = 9B/(4 n eps')
    (Algorithm 1 is eps*-DP with eps* = 9B Delta_Q/(4 sigma), Delta_Q = 1/n); for the run's sigma (default: Lemma 2's
    sigma_bdp): eps*, the BDP level Lemma 2 certifies for it, Theorem 1's n_* and n_# at (B, sigma, tau, beta), and the
    smallest tau Theorem 2 guarantees at n with constant c (None: no tau <= 1).
    """
    eps = tau / 3.0
    P = data_model_chain(p_s, p_y)
    out = {"n": n, "p_s": p_s, "p_y": p_y, "tau": tau, "beta": beta, "B": B, "m": m, "eps_bdp_target": eps}
    for method in ("lemma2", "lemma3", "lemma4"):
        r = dp_level_for_bdp(eps, n, p_s, p_y, method)
        out[f"eps_dp_{method}"] = r.eps_dp
        out[f"sigma_bdp_{method}"] = sigma_for_dp(B, n, r.eps_dp) if r.feasible else None
    if sigma is None:
        sigma = out["sigma_bdp_lemma2"]
    eps_star_value = eps_star(B, sigma, n)
    out.update(sigma=sigma, eps_star=eps_star_value,
               bdp_achieved_lemma2=bdp_level_for_dp(eps_star_value, n, p_s, p_y, "lemma2"),
               n_star=float(zb.theorem1_n_star(B, sigma, tau, beta, lemma3_blanket_influence(n, P))),
               n_sharp=float(zb.theorem1_n_sharp(B, sigma, tau, beta, out["eps_dp_lemma2"])),
               theorem2_smallest_tau=zb.theorem2_smallest_tau(n, P, B, m, beta, c_theorem2))
    return out
