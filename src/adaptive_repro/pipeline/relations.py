"""Relations between config values that each pass the schema alone (a k grid within d, min <= max, a quilt inside its
chain, ...): one line naming the key, the value and what is allowed, before any job."""

from __future__ import annotations

import math
from typing import Any

from adaptive_repro.foundation.config import fail
from adaptive_repro.pipeline import catalogue


def check_k_grid(key: str, k_grid: list[int], d: int) -> None:
    """k grid: strictly increasing non-negative integers, none above d."""
    if any(b <= a for a, b in zip(k_grid, k_grid[1:])):
        fail(key, k_grid, "a strictly increasing list of integers")
    if k_grid and k_grid[-1] > d:
        fail(key, k_grid, f"values between 0 and d = {d}")


def check_ranges(block: Any, key: str = "") -> None:
    """Every ``<name>_min`` / ``<name>_max`` pair in one mapping: min < max (the pair spans a grid of several points,
    which equal ends would repeat); every ``*_grid`` list of numbers strictly increasing."""
    if not isinstance(block, dict):
        return
    for k, v in block.items():
        sub = f"{key}.{k}" if key else str(k)
        if k.endswith("_min") and f"{k[:-4]}_max" in block and v >= block[f"{k[:-4]}_max"]:
            fail(sub, v, f"less than {k[:-4]}_max = {block[f'{k[:-4]}_max']!r}")
        check_ranges(v, sub)


def built_experiments(config: dict) -> dict[str, dict]:
    """The experiment blocks of the outputs this run builds (blocks of other outputs are not checked)."""
    experiments = config.get("experiments") or {}
    return {oid: experiments[oid] for oid in config["outputs"] if oid in experiments}


def check_relations(config: dict) -> None:
    """Relations between values, for the outputs this run builds."""
    experiments = config.get("experiments") or {}
    for oid in config["outputs"]:
        if catalogue.get(oid).kind == "experiment" and oid not in experiments:
            fail("experiments", sorted(experiments), f"a block experiments.{oid} for every experiment in outputs")
    for name, exp in built_experiments(config).items():
        if "k_grid" in exp and "d" in exp:
            check_k_grid(f"experiments.{name}.k_grid", exp["k_grid"], exp["d"])
        if exp.get("signal_attributes", 0) > exp.get("d", 0):
            fail(f"experiments.{name}.signal_attributes", exp["signal_attributes"], f"at most d = {exp['d']}")
        check_ranges(exp, f"experiments.{name}")
    check_ranges(config.get("theory") or {}, "theory")
    check_theory_relations(config.get("theory") or {}, set(config["outputs"]))


def check_theory_relations(theory: dict, outputs: set[str]) -> None:
    """Relations inside the theory blocks of the outputs this run builds: values each allowed alone that together
    leave the statement nothing to check, or a computation past its documented limit."""
    zhao, he = theory.get("zhao") or {}, theory.get("he") or {}
    if "zhao-fig1" in outputs and "fig1" in zhao:
        f = zhao["fig1"]
        if f["node"] - f["a"] < 1:
            fail("theory.zhao.fig1.node", f["node"], f"at least a + 1 = {f['a'] + 1} (the quilt node X_(node-a) must "
                 "be in the chain)")
        if f["node"] + f["b"] > f["n_nodes"]:
            fail("theory.zhao.fig1.node", f["node"], f"at most n_nodes - b = {f['n_nodes'] - f['b']} (the quilt node "
                 "X_(node+b) must be in the chain)")
    if "zhao-sample-complexity" in outputs and "sample_complexity" in zhao:
        from adaptive_repro.bounds.zhao import CHAIN_COUNT_MAX_N, lemma1_sample_size

        sc = zhao["sample_complexity"]
        smallest = math.sqrt(float(lemma1_sample_size(1.0, sc["beta"])) / CHAIN_COUNT_MAX_N)
        for i, tau in enumerate(sc["guarantee_tau"]):
            if math.ceil(float(lemma1_sample_size(tau, sc["beta"]))) > CHAIN_COUNT_MAX_N:
                fail(f"theory.zhao.sample_complexity.guarantee_tau[{i}]", tau, f"at least {smallest:.3g} (the exact "
                     f"check runs at n = 9 ln(4/beta)/tau^2, at most {CHAIN_COUNT_MAX_N:,} records)")
    if "he-composition-eps" in outputs and (he.get("composition_eps") or {}).get("laplace_pld"):
        from adaptive_repro.groundtruth import MAX_PLD_POINTS, pld_interval

        ce = he["composition_eps"]
        for eps in ce["eps"]:
            steps = 2 * eps / pld_interval(eps, ce["pld_interval"])  # grid points of one step's privacy loss
            if steps > MAX_PLD_POINTS:
                fail("theory.he.composition_eps.pld_interval", ce["pld_interval"], f"at least "
                     f"{2 * eps / MAX_PLD_POINTS:.3g} at eps = {eps:g} (one step's Laplace PLD would have "
                     f"{steps:.3g} grid points, at most {MAX_PLD_POINTS:.0e}), or laplace_pld: false")
            for i, T in enumerate(ce["T"]):
                if T * steps > MAX_PLD_POINTS:
                    fail(f"theory.he.composition_eps.T[{i}]", T, f"at most {int(MAX_PLD_POINTS // steps):,} at eps = "
                         f"{eps:g} (the Laplace PLD of T steps has T x {steps:.3g} grid points, at most "
                         f"{MAX_PLD_POINTS:.0e}), or laplace_pld: false")
    for oid, name in (("he-sgld", "sgld"), ("he-federated", "federated")):
        if oid in outputs and name in he:
            for i, N in enumerate(he[name]["N"]):
                if N < he[name]["tau"]:
                    fail(f"theory.he.{name}.N[{i}]", N, f"at least the batch size tau = {he[name]['tau']}")
    if "he-generalization" in outputs and "generalization" in he:
        eps = he["generalization"]["eps"]
        if min(eps) >= 2:
            fail("theory.he.generalization.eps", eps, "at least one value below 2 (Theorem 1's b is positive only "
                 "for eps < 2)")
