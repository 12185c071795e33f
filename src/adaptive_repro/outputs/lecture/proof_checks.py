"""Slips in the text of the lecture notes (Lecture 18) that the Monitor's analysis passes through: the sign in Step
4's last bullet, ln T for ln(2T) in Step 4's first display, the direction of the tail probabilities in the proof of
Lemma 0.6, and Definition 0.5's set.

As in :mod:`adaptive_repro.outputs.zhao.proof_checks`, a slip row checks whether the printed formula agrees with the
one the argument means; "does not hold" confirms the slip, and the row says whether the argument stands with it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from adaptive_repro.foundation.registry import Claim, code_name, verdict

SOURCE = "Lecture 18"
Q_STEP4_SIGN = (r"or $\frac{4 \ln \frac{1}{p_\alpha}}{\varepsilon m} \geq \frac{\varepsilon}{2} \Rightarrow p_\alpha "
                r"\leq e^{\frac{\varepsilon^2 m}{8}}$.")
Q_STEP4_LNT = r"f(\mathcal{E}(S, Y, f, \Delta, \varepsilon), S) &> S_{max} - \frac{2 \ln T}{\varepsilon m}"
Q_LEMMA06 = r"\mathbb{E}[f(X)] &= \int_{z=0}^1 \Pr[f(X) \leq z] dz"
Q_DEF05 = (r"That is, for all $T \subset \mathcal{O}$, [...] $$\Pr[X \in \mathcal{O}] \leq e^\varepsilon \Pr[Y \in "
           r"\mathcal{O}] + \delta$$")

#: A random value f(X) in [0, 1] for the proof of Lemma 0.6: these values, equally likely.
F_VALUES = (0.2, 0.9)


def tail_integrals(values, grid_points: int = 200_001) -> tuple[float, float, float]:
    """(E f, integral_0^1 P[f <= z] dz, integral_0^1 P[f >= z] dz) of f uniform on ``values``, by the trapezoid rule."""
    v = np.asarray(values, dtype=float)
    z = np.linspace(0.0, 1.0, grid_points)
    below = (v[None, :] <= z[:, None]).mean(axis=1)
    above = (v[None, :] >= z[:, None]).mean(axis=1)
    def integral(y):
        return float(np.sum((y[1:] + y[:-1]) / 2 * np.diff(z)))
    return float(v.mean()), integral(below), integral(above)


def indistinguishable(px: dict, py: dict, eps: float, delta: float, printed: bool) -> bool:
    """Definition 0.5 on a finite domain: for every set T, Pr[X in T] <= e^eps Pr[Y in T] + delta (meant), or, as
    printed, Pr[X in O] <= e^eps Pr[Y in O] + delta for the whole domain O whatever T is."""
    domain = sorted(px)
    for size in range(len(domain) + 1):
        for T in itertools.combinations(domain, size):
            event = domain if printed else T
            if sum(px[o] for o in event) > math.exp(eps) * sum(py[o] for o in event) + delta + 1e-12:
                return False
    return True


def slip_rows(oid: str, params: dict) -> list[Claim]:
    """The slips at the ``theory.lecture.monitor`` block (its eps, m and largest T)."""
    eps, m, T = float(params["epsilon"]), int(params["m"]), int(max(params["T_grid"]))
    exponent = eps**2 * m / 8  # the bounds e^(+-exponent), decided on the exponents (the bounds round to 1 near 0)
    printed = f"{math.exp(exponent):.4g}" if exponent < 700 else f"e^{exponent:.4g}"  # e^709 is the largest float
    meant = f"{math.exp(-exponent):.4g}"
    mean, le, ge = tail_integrals(F_VALUES)
    values = ", ".join(f"{v:g}" for v in F_VALUES)
    px, py = {"o1": 1.0, "o2": 0.0}, {"o1": 0.0, "o2": 1.0}  # X always o1, Y always o2
    as_printed, as_meant = (indistinguishable(px, py, 0.0, 0.0, printed) for printed in (True, False))
    return [
        Claim(output_id=oid, claim_id="step-4-sign", kind="slip", source=f"{SOURCE}, Step 4 (last bullet)",
              claim="Step 4's last bullet as printed: 4 ln(1/p_alpha)/(eps m) >= eps/2 implies p_alpha <= "
              "e^{eps^2 m/8}; the premise gives p_alpha <= e^{-eps^2 m/8}, the bound the notes set out to show "
              "('p_alpha <= max{4 delta/eps, e^{-eps^2 m/8}}') and Theorem 0.2 states",
              expected="e^{eps^2 m/8} (as printed) = e^{-eps^2 m/8}",
              measured="identity: 4 ln(1/p)/(eps m) >= eps/2 rearranges to p <= e^{-eps^2 m/8} for every eps, m; "
                       f"at eps = {eps:g}, m = {m}: printed bound {printed} (>= 1, so it says nothing about a "
              f"probability), meant {meant}; the analysis uses the meant bound",
              status=verdict(math.isclose(exponent, -exponent), "statement"),
              counterexample=f"eps = {eps:g}, m = {m}: {printed} != {meant}", quote=Q_STEP4_SIGN,
              code=code_name(slip_rows), strength="identity"),
        Claim(output_id=oid, claim_id="step-4-ln-2T", kind="slip", source=f"{SOURCE}, Step 4 (first display)",
              claim="Step 4 applies Theorem 0.1 (score within 2 Delta/eps (ln |Y| + log(1/beta)) of OPT) with Delta = "
              "1/m and writes 2 ln T/(eps m); the Monitor's output set Y holds two pairs (t, q_t), (t, q_-t) per "
              "data set (Algorithm 2, line 5), so |Y| = 2T and the term is 2 ln(2T)/(eps m) (the log(1/beta) term "
              "is dropped by Step 4's stated simplifying assumption); identity: ln T < ln(2T) for every T",
              expected="2 ln T/(eps m) (as printed) = 2 ln(2T)/(eps m)",
              measured=f"at eps = {eps:g}, m = {m}, T = {T}: printed {2 * math.log(T) / (eps * m):.4g}, with |Y| = 2T "
              f"{2 * math.log(2 * T) / (eps * m):.4g}; the difference 2 ln 2/(eps m) = "
              f"{2 * math.log(2) / (eps * m):.3g} changes the constants of the Monitor's bound, not its order (the "
              "row on Step 4's bound for the "
              "actual Monitor uses ln(2T))",
              status=verdict(math.isclose(math.log(T), math.log(2 * T)), "statement"),
              counterexample=f"T = {T}: ln T = {math.log(T):.4g} != ln 2T = {math.log(2 * T):.4g}", quote=Q_STEP4_LNT,
              code=code_name(slip_rows), strength="identity"),
        Claim(output_id=oid, claim_id="lemma-0.6-proof-tail", kind="slip", source=f"{SOURCE}, proof of Lemma 0.6",
              claim="the proof writes E[f(X)] = integral_0^1 Pr[f(X) <= z] dz (and states the 'fact' it uses the "
              "same way); for f in [0, 1] that integral is "
              "1 - E[f(X)] (identity: integral_0^1 Pr[f <= z] dz = 1 - E f for every f in [0, 1], so the printed "
              "form fails for every f with E f != 1/2), and the identity needs Pr[f(X) >= z]. With >= the proof "
              "goes through (apply the "
              "indistinguishability to the sets {f >= z}), so Lemma 0.6 stands",
              expected="integral of Pr[f <= z] = E f (as printed)",
              measured=f"f(X) uniform on {{{values}}}: E f = {mean:.4g}; integral of Pr[f <= z] = {le:.4g}; "
              f"integral of Pr[f >= z] = {ge:.4g}",
              status=verdict(math.isclose(le, mean, abs_tol=1e-4), "statement"),
              counterexample=f"f(X) uniform on {{{values}}}: {le:.4g} != {mean:.4g}", quote=Q_LEMMA06,
              code=code_name(tail_integrals), strength="identity"),
        Claim(output_id=oid, claim_id="definition-0.5-set", kind="slip", source=f"{SOURCE}, Definition 0.5",
              claim="Definition 0.5 as printed quantifies over T but bounds Pr[X in O] by e^eps Pr[Y in O] + delta "
              "for the whole domain O, which every pair satisfies (identity: the printed condition reduces to 1 <= "
              "e^eps + delta, true for every eps >= 0, delta >= 0); meant is Pr[X in T] <= "
              "e^eps Pr[Y in T] + delta for every T, the form Lemmas 0.4 and 0.6 use",
              expected="the printed condition excludes the pairs the meant one excludes",
              measured=f"X always o1, Y always o2, eps = delta = 0: the printed condition "
              f"{'holds' if as_printed else 'fails'} (1 <= 1); the meant one {'holds' if as_meant else 'fails'} (at "
              "T = {o1}: 1 <= 0); with the printed definition Lemma 0.6 would assert E[1{X = o1}] = 1 <= "
              "E[1{Y = o1}] = 0",
              status=verdict(as_printed == as_meant, "statement"),
              counterexample="" if as_printed == as_meant else "X = o1, Y = o2 (point masses), eps = delta = 0",
              quote=Q_DEF05, code=code_name(indistinguishable), strength="identity"),
    ]
