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

import abc
import dataclasses
import functools
from typing import ClassVar

import numpy as np

from adaptive_repro.bounds import zhao as zb
from adaptive_repro.foundation.plugins import check_keys
from adaptive_repro.privacy import lemma3_blanket_influence
from adaptive_repro.simulation.mechanisms.base import ArmSetting


@dataclasses.dataclass(frozen=True)
class Alg1Settings:
    """An experiment's ``alg1`` config block (every key present: the schema's defaults are filled in once, by the
    workflow; there are no defaults here)."""

    tau: float
    beta: float
    c: float
    budget: int
    epsilon: float | None
    threshold_units: float
    bdp_method: str
    clip: float

    @classmethod
    def from_block(cls, block: dict, key: str = "alg1") -> "Alg1Settings":
        """The settings of a resolved ``alg1`` block; a missing or unknown key is an error naming it."""
        check_keys(block, {f.name for f in dataclasses.fields(cls)}, key,
                   "(the workflow fills every schema default before building specs)")
        return cls(**block)

    @property
    def session_epsilon(self) -> float:
        """The session's privacy level eps: ``epsilon``, or tau/3 (Lemma 1: eps <= tau/3) when it is null."""
        return self.tau / 3.0 if self.epsilon is None else self.epsilon


@dataclasses.dataclass(frozen=True, kw_only=True)
class Alg1Calibration(ArmSetting):
    """Algorithm 1's parameters for one arm, and the theory for them at the run's n."""

    arm: str
    sigma: float
    threshold: float
    budget: int
    eps_target: float  # the (B)DP level the calibration aims at
    eps_dp_used: float  # the DP level sigma is set for (eps_star)


@dataclasses.dataclass(frozen=True)
class Calibration(abc.ABC):
    """How Algorithm 1's noise sigma and threshold T are chosen (one registered object per calibration,
    :data:`adaptive_repro.simulation.registries.CALIBRATIONS`).

    Contract: ``name`` is the config name (the arm is ``zhao_alg1_<name>``); ``display_name`` and ``purpose`` are
    the words figures and claims use ("DP calibration", "as if records were independent"); ``color`` and ``marker``
    the arm's colour and marker in every figure; ``targets_session_epsilon`` True if the calibration aims at the
    session's eps (``alg1.epsilon``);
    ``paper_claim`` True if it is the calibration the paper's Fig. 3 claim is about (its rows are paper claims, the
    others project questions); ``solves_for_bdp`` True if sigma is solved from the BDP -> DP conversion (then the
    BDP level Lemma 2 certifies for it is the session's eps by construction, when the conversion is Lemma 2);
    ``COUNTERFACTUAL`` True for an arm that is not a private mechanism but a control (figures that show mechanisms
    leave it to the tables and rows). :meth:`calibrate` is deterministic and asks the data model for its BDP -> DP
    conversion, never branches on the model.
    """

    name: str
    display_name: str
    purpose: str
    color: str
    targets_session_epsilon: bool = True
    paper_claim: bool = False
    solves_for_bdp: bool = False
    claim_name: str = ""  # how claim text names the arm, if not its display name
    marker: str = "o"
    COUNTERFACTUAL: ClassVar[bool] = False  # a class constant, not a field: no digest changes with it
    #: The calibration this one is compared with, session by session on the same data sets (zhao-correlation's
    #: paired columns), by name; "" for none. A class constant (no digest changes with it).
    PARTNER: ClassVar[str] = ""
    #: True if the mechanism reads the training records in their order (:meth:`session_threshold`): only the direct
    #: engine keeps them, so every arm of such an experiment runs on it.
    NEEDS_RECORDS: ClassVar[bool] = False

    def session_threshold(self, cal: Alg1Calibration, settings: Alg1Settings, n: int, model, train) -> float | None:
        """The threshold of one session set from its training data set ``train`` (which Algorithm 1 does not
        protect), or None to keep ``cal.threshold`` (default)."""
        return None

    def needs(self) -> frozenset[str]:
        """The data-model capabilities this calibration uses (data_models.CAPABILITIES); default none."""
        return frozenset()

    @abc.abstractmethod
    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        """sigma, T and budget for holdout size n, d attributes and the k grid, on ``model``'s records."""

    @property
    def arm_name(self) -> str:
        return f"zhao_alg1_{self.name}"


@dataclasses.dataclass(frozen=True)
class DPCalibration(Calibration):
    """sigma = 9 B / (4 n eps): Algorithm 1 is eps-DP as if the records were independent (Zhao 2017 §3)."""

    name: str = "dp"
    display_name: str = "DP calibration"
    purpose: str = "as if records were independent"
    color: str = "#CC79A7"  # Okabe-Ito reddish purple
    marker: str = "^"

    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        eps = settings.session_epsilon
        return Alg1Calibration(arm=self.arm_name, feasible=True, sigma=sigma_for_dp(settings.budget, n, eps),
                               threshold=noise_unit_threshold(settings.threshold_units, n), budget=settings.budget,
                               eps_target=eps, eps_dp_used=eps,
                               note="sigma = 9B/(4 n eps): eps-DP as if records were independent")


@dataclasses.dataclass(frozen=True)
class NoiselessCalibration(DPCalibration):
    """The DP calibration's threshold T with no noise at all (sigma = 0): a counterfactual arm, not a private
    mechanism. Where the DP arm spends its budget and this one does not, the Laplace noise spent it; where both do,
    the data (|train − holdout| > T from correlation) did. This project's question (issue of noise versus data)."""

    name: str = "dp_noiseless"
    display_name: str = "DP calibration's T, no noise"
    purpose: str = "sigma = 0: a counterfactual, no privacy"
    COUNTERFACTUAL: ClassVar[bool] = True
    PARTNER: ClassVar[str] = "dp"  # what the noise adds: the DP arm with its noise, on the same data sets
    color: str = "#999933"  # Paul Tol olive: no other arm's hue
    marker: str = "h"

    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        cal = super().calibrate(settings, n, d, k_grid, model)
        return dataclasses.replace(cal, sigma=0.0, eps_target=np.inf, eps_dp_used=np.inf,
                                   note="sigma = 0 with the DP calibration's T: no noise, no privacy (counterfactual)")


@dataclasses.dataclass(frozen=True)
class BayesianDPCalibration(Calibration):
    """sigma = 9 B / (4 n eps'), eps' the DP level that implies the session's eps as Bayesian DP on the data model
    (Zhao 2017 Lemmas 2-4, by ``alg1.bdp_method``; the data model does the conversion)."""

    PARTNER: ClassVar[str] = "dp"  # what Bayesian DP buys over DP

    name: str = "bdp"
    display_name: str = "Bayesian-DP calibration"
    purpose: str = "Lemma 2 on the records' chain"
    color: str = "#0072B2"  # Okabe-Ito blue
    marker: str = "v"
    paper_claim: bool = True
    solves_for_bdp: bool = True

    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        eps, budget, method = settings.session_epsilon, settings.budget, settings.bdp_method
        threshold = noise_unit_threshold(settings.threshold_units, n)
        conv = dp_level_for_bdp(model, eps, n, d, method)
        if not conv.feasible:
            return Alg1Calibration(arm=self.arm_name, feasible=False, sigma=np.nan, threshold=threshold,
                                   budget=budget, eps_target=eps, eps_dp_used=np.nan,
                                   note=f"{method} infeasible: {conv.detail}")
        return Alg1Calibration(arm=self.arm_name, feasible=True, sigma=sigma_for_dp(budget, n, conv.eps_dp),
                               threshold=threshold, budget=budget, eps_target=eps, eps_dp_used=float(conv.eps_dp),
                               note=f"{method}: eps' = {conv.eps_dp:.3g} implies {eps:.3g}-BDP; sigma = 9B/(4 n eps')")


@dataclasses.dataclass(frozen=True)
class Theorem2Calibration(Calibration):
    """Zhao 2017 Theorem 2: sigma = (1 - c) tau / (12 ln(4m/beta)), T = (1 + c) tau / 2."""

    name: str = "theorem2"
    display_name: str = "Theorem 2 calibration"
    purpose: str = "Theorem 2's σ and T"
    color: str = "#8C510A"  # dark brown: no other zhao arm is near (Thresholdout is teal)
    marker: str = "P"
    targets_session_epsilon: bool = False
    claim_name: str = "Algorithm 1, Theorem 2's σ and T"

    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        tau, c, budget = settings.tau, settings.c, settings.budget
        sigma = float(zb.theorem2_sigma(tau, number_of_queries(d, k_grid), settings.beta, c))
        return Alg1Calibration(arm=self.arm_name, feasible=True, sigma=sigma,
                               threshold=float(zb.theorem2_threshold(tau, c)), budget=budget,
                               eps_target=float(zb.theorem2_bdp_target(tau, c)), eps_dp_used=eps_star(budget, sigma, n),
                               note="Theorem 2: sigma = (1-c) tau / (12 ln(4m/beta))")


@functools.lru_cache(maxsize=1024)
def dp_level_for_bdp(model, eps_bdp: float, n: int, d: int, method: str):
    """The data model's BDP -> DP conversion (Lemmas 2-4), memoised: a quilt search costs up to ~0.03 CPU-s and the
    Bayesian-DP calibrations ask it for the same (model, eps, n, d, method) repeatedly (models are frozen)."""
    return model.dp_level_for_bdp(eps_bdp, n, d, method)


def for_effective_n(cal: Alg1Calibration, model, n: int) -> Alg1Calibration:
    """``cal`` with its threshold set for the effective sample size n/V: T multiplied by sqrt(V), V the data model's
    expected variance inflation of a sign query (known to the mechanism; docs/METHODS.md §4b)."""
    inflation = model.expected_inflation(n)
    return dataclasses.replace(cal, threshold=cal.threshold * float(np.sqrt(inflation)),
                               note=f"{cal.note}; T for n/V, V = {inflation:.3g} (known)")


@dataclasses.dataclass(frozen=True)
class EffectiveNCalibration(DPCalibration):
    """The DP calibration's sigma (eps-DP as if independent) with the threshold set for the effective sample size:
    T = threshold_units sqrt(V) / (2 sqrt(n)), V the data model's expected variance inflation (known to the
    mechanism; docs/METHODS.md §4b). This project's remedy arm, not the paper's."""

    name: str = "dp_effective_n"
    display_name: str = "DP calibration, threshold for n/V (V known)"
    purpose: str = "V known to the mechanism"
    color: str = "#882255"  # Paul Tol wine: the dark partner of the DP pink (each n/V arm: its parent's dark partner)
    marker: str = "p"  # a pentagon: chains of ◀ read as arrows, and an X with a white edge reads thin

    def needs(self) -> frozenset[str]:
        return frozenset({"known_inflation"})

    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        """The DP calibration, its threshold multiplied by sqrt(V)."""
        return for_effective_n(super().calibrate(settings, n, d, k_grid, model), model, n)


@dataclasses.dataclass(frozen=True)
class BayesianDPEffectiveNCalibration(BayesianDPCalibration):
    """The Bayesian-DP calibration's sigma (Lemma 2 on the data model) with the threshold set for the effective
    sample size n/V, as :class:`EffectiveNCalibration` does for the DP calibration (V known to the mechanism). This
    project's arm, not the paper's: it asks whether Bayesian DP plus the remedy answers, and from which n."""

    PARTNER: ClassVar[str] = "dp_effective_n"  # what Bayesian DP buys over DP, both with T for n/V

    name: str = "bdp_effective_n"
    display_name: str = "Bayesian-DP calibration, threshold for n/V (V known)"
    purpose: str = "Lemma 2, V known to the mechanism"
    color: str = "#332288"  # Paul Tol indigo (a darker partner of the Bayesian-DP blue)
    marker: str = ">"
    paper_claim: bool = False

    def needs(self) -> frozenset[str]:
        return frozenset({"known_inflation"})

    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        """The Bayesian-DP calibration, its threshold multiplied by sqrt(V)."""
        return for_effective_n(super().calibrate(settings, n, d, k_grid, model), model, n)


@dataclasses.dataclass(frozen=True)
class EstimatedVCalibration(DPCalibration):
    """The DP calibration's sigma with the threshold for n/V̂, V̂ estimated in each session from its training set, as
    a practitioner must (docs/METHODS.md §4c): the mean over the attributes of the sign queries' inflation estimated
    by batch means along the record order, or by the cluster-robust variance where the data model knows its clusters
    of dependent records (households), floored at 1; T = threshold_units sqrt(V̂) / (2 sqrt(n)). The setting's
    threshold is the one for n/V with V known (:class:`EffectiveNCalibration`): the rows judge the session's gap
    against it, so V̂ is held to what knowing V achieves. This project's arm, not the paper's."""

    PARTNER: ClassVar[str] = "dp_effective_n"  # what estimating V costs against knowing it

    name: str = "dp_v_hat"
    display_name: str = "DP calibration, threshold for n/V̂ (V estimated)"
    purpose: str = "V estimated from the training set"
    color: str = "#E69F00"  # Okabe-Ito orange: no other arm's hue
    marker: str = "<"
    NEEDS_RECORDS: ClassVar[bool] = True

    def needs(self) -> frozenset[str]:
        return frozenset({"known_inflation"})  # the threshold its sessions are judged against

    def calibrate(self, settings: Alg1Settings, n: int, d: int, k_grid, model) -> Alg1Calibration:
        cal = for_effective_n(super().calibrate(settings, n, d, k_grid, model), model, n)
        return dataclasses.replace(cal, note=cal.note + "; each session: T sqrt(V_hat), V_hat from its training set")

    def session_threshold(self, cal: Alg1Calibration, settings: Alg1Settings, n: int, model, train) -> float:
        from adaptive_repro.simulation.inflation import batch_means_inflation, cluster_robust_inflation, floored

        u = train.x * train.y[:, None] > 0  # the sign queries' record indicators, records in order
        v_hat = (cluster_robust_inflation(u, model.record_clusters(n)) if model.supports("known_clusters")
                 else batch_means_inflation(u))
        return noise_unit_threshold(settings.threshold_units, n) * float(np.sqrt(np.mean(floored(v_hat))))


def theorem2_tau_for_effective_n(settings: Alg1Settings, n: int, inflation: float) -> float:
    """The accuracy tau whose Theorem 2 threshold T = (1 + c) tau / 2 (Zhao 2017, Theorem 2) is the threshold for
    the effective sample size n/V: tau = 2 T_V / (1 + c), T_V = threshold_units sqrt(V) / (2 sqrt(n))."""
    t_v = settings.threshold_units * np.sqrt(inflation) / (2.0 * np.sqrt(n))
    return float(2.0 * t_v / (1.0 + settings.c))


def theorem2_tau_in_true_se(settings: Alg1Settings) -> float:
    """:func:`theorem2_tau_for_effective_n` in true SEs sqrt(V)/(2 sqrt(n)): tau = 2 threshold_units / (1 + c) (Zhao
    2017, Theorem 2's T = (1 + c) tau / 2 with T = threshold_units true SEs)."""
    return 2.0 * settings.threshold_units / (1.0 + settings.c)


def noise_unit_threshold(threshold_units: float, n: int) -> float:
    """T = threshold_units / (2 sqrt(n)): the threshold in units of a sign query's sampling SD 1/(2 sqrt(n)) under
    independence (docs/METHODS.md §4a; threshold_units = 6 gives T = 3/sqrt(n))."""
    return float(threshold_units) / (2.0 * np.sqrt(n))


def number_of_queries(d: int, k_grid) -> int:
    """m: d attribute queries plus one accuracy query per k > 0."""
    return int(d + sum(1 for k in k_grid if k > 0))


def sigma_for_dp(budget: int, n: int, eps: float) -> float:
    """Zhao 2017 §3 (:func:`bounds.zhao.alg1_sigma_for_dp`): sigma = 9 B / (4 n eps) makes Algorithm 1 eps-DP."""
    return float(zb.alg1_sigma_for_dp(budget, n, eps))


def eps_star(budget: int, sigma: float, n: int) -> float:
    """Zhao 2017 §3 (:func:`bounds.zhao.alg1_eps_star`): eps* = 9 B / (4 sigma n)."""
    return float(zb.alg1_eps_star(budget, sigma, n))


def theory_alongside(cal: Alg1Calibration, settings: Alg1Settings, n: int, d: int, k_grid, model) -> dict:
    """docs/METHODS.md §4, "Theory alongside", for one Algorithm 1 arm: eps' by each lemma, sigma, eps*, the BDP level
    achieved, n_* and n_# for the run's (tau, beta), Theorem 2's requirement at tau and the smallest tau it
    guarantees at the run's n (nan: none). Computed by :func:`run_theory` on the data model's dependence."""
    tau, beta, c, budget = settings.tau, settings.beta, settings.c, settings.budget
    m = number_of_queries(d, k_grid)
    base = {"arm": cal.arm, "feasible": cal.feasible, "threshold": cal.threshold, "budget": budget, "c": c,
            "eps_target": cal.eps_target, "calibration_note": cal.note}
    noiseless = cal.feasible and cal.sigma == 0  # no noise: no privacy, and Theorem 1 says nothing
    theory = run_theory(n, model, d, tau, beta, budget, m, c,
                        sigma=cal.sigma if cal.feasible and not noiseless else None)
    base |= {key: (np.nan if value is None else value) for key, value in theory.items() if key not in base}
    if not cal.feasible:
        base.update(sigma=np.nan, eps_star=np.nan, bdp_achieved_lemma2=np.nan, n_star=np.nan, n_sharp=np.nan)
    if noiseless:
        base.update(sigma=0.0, eps_star=np.inf, bdp_achieved_lemma2=np.inf, n_star=np.nan, n_sharp=np.nan,
                    theorem2_smallest_tau=np.nan)
    chain = model.privacy_chain(d)
    # Theorem 2's columns always convert by Lemma 2 (exact quilts), whatever alg1.bdp_method calibrates with
    base["theorem2_n_required"] = (zb.theorem2_required_n(tau, n, chain, budget, m, beta, c, method="lemma2")
                                   if chain is not None
                                   else np.nan)
    base["smallest_guaranteed_tau"] = base.pop("theorem2_smallest_tau")
    return base


def run_theory(n: int, model, d: int, tau: float, beta: float, B: float, m: int, c_theorem2: float,
               sigma: float | None = None) -> dict:
    """The theory docs/METHODS.md §4 asks to report beside every Zhao experiment, on the data model's dependence
    (``model.privacy_chain(d)``; the batch chain's is the 4-state chain P_s (x) P_y).

    eps = tau/3 (Lemma 1's BDP target); eps' by Lemmas 2, 3, 4 (None if infeasible); sigma_bdp = 9B/(4 n eps')
    (Algorithm 1 is eps*-DP with eps* = 9B Delta_Q/(4 sigma), Delta_Q = 1/n); for the run's sigma (default: Lemma 2's
    sigma_bdp): eps*, the BDP level Lemma 2 certifies for it, Theorem 1's n_* and n_# at (B, sigma, tau, beta), and the
    smallest tau Theorem 2 guarantees at n with constant c (None: no tau <= 1). Where the model's records do not form
    a Markov chain (households), Theorem 1's n_* and Theorem 2's quantities are None.
    """
    eps = tau / 3.0
    chain = model.privacy_chain(d)
    out = {"n": n, **model.theory_labels(), "tau": tau, "beta": beta, "B": B, "m": m, "eps_bdp_target": eps}
    for method in ("lemma2", "lemma3", "lemma4"):
        r = model.dp_level_for_bdp(eps, n, d, method)
        out[f"eps_dp_{method}"] = r.eps_dp
        out[f"sigma_bdp_{method}"] = sigma_for_dp(B, n, r.eps_dp) if r.feasible else None
    if sigma is None:
        sigma = out["sigma_bdp_lemma2"]
    eps_star_value = eps_star(B, sigma, n)
    out.update(sigma=sigma, eps_star=eps_star_value,
               bdp_achieved_lemma2=model.bdp_level_for_dp(eps_star_value, n, d, "lemma2"),
               n_star=(float(zb.theorem1_n_star(B, sigma, tau, beta, lemma3_blanket_influence(n, chain)))
                       if chain is not None else None),
               n_sharp=float(zb.theorem1_n_sharp(B, sigma, tau, beta, out["eps_dp_lemma2"])),
               theorem2_smallest_tau=(zb.theorem2_smallest_tau(n, chain, B, m, beta, c_theorem2, method="lemma2")
                                      if chain is not None else None))
    return out
