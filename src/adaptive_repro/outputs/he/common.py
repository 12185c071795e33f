"""Shared pieces of the He et al. theory outputs (kl, composition, generalization, applications): one
claim constructor over :func:`adaptive_repro.foundation.registry.check_grid`, and the paper's own words
(``QUOTES``, verbatim from the extraction, formulas as the paper's LaTeX source). Each builder's parameters are its
own config block (``theory.he.<kl|composition_eps|composition_delta|generalization|sgld|federated>``), complete,
plus ``seed``.

Paper: Fengxiang He, Bohan Wang, Dacheng Tao, "Tighter Generalization Bounds for Iterative Differentially Private
Learning Algorithms" (cited as "He").
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from adaptive_repro.foundation.registry import Claim, check_grid

HE = "He, Wang, Tao"

QUOTES = {
    "lemma5": r"If $\mathcal{A}$ is an $\varepsilon$-differentially private algorithm , then for every neighbor "
              r"database pair $S$ and $S^{\prime}$, the KL divergence between hypotheses $\mathcal{A}(S)$ and "
              r"$\mathcal{A}(S^{\prime})$ satisfies the following inequality, $D_{KL}(\mathcal{A}(S)\|\mathcal{A}"
              r"(S^{\prime}))\leq\varepsilon\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}$.",
    "kl_looser": "There are two related results in the literature, which are considerably looser than ours.",
    "dr_improved": r"Then, Dwork and Rothblum [19] further improved it to $D_{KL}(\mathcal{A}(S)\|\mathcal{A}"
                   r"(S^{\prime}))\leq\frac{1}{2}\varepsilon(e^{\varepsilon}-1)$.",
    "dr_factor": r"Compared with ours, eq. (9) is larger by a factor $(1+e^{\varepsilon})/2$, which can be very "
                 r"large in practice.",
    "same_eps": r"The estimate of the $\varepsilon^{\prime}$ is the same as ours, while their $\delta^{\prime}$ is "
                r"also larger than ours approximately by $\delta\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}\left(T-"
                r"\left\lceil\frac{\varepsilon^{\prime}}{\varepsilon}\right\rceil\right)$.",
    "intro_delta": r"The approximation of factor $\delta$ in our composition theorems is tighter than the tightest "
                   r"existing result [31] by $\delta\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}\left(T-\left\lceil"
                   r"\frac{\varepsilon^{\prime}}{\varepsilon}\right\rceil\right)$, where $T$ is number of iterations,"
                   r" while the estimate of $\varepsilon^{\prime}$ remains the same.",
    "overwhelming": r"The iteration number $T$ is usually overwhelmingly large, which guarantees our advantage is "
                    r"significant.",
    "tightest": "Currently, the tightest approximation is given by Kairouz et al. [31] as follows,",
    "thm4": r"is $(\varepsilon,\delta)$-differentially private. Then, the algorithm $\mathcal{A}$ is "
            r"$(\varepsilon^{\prime},\delta^{\prime})$-differentially private.",
    "cor2": r"When all the iterations are $(\varepsilon,\delta)$-differential private, $\delta^{\prime}$ is "
            r"$\delta^{\prime}= 1-\left(1-e^{\varepsilon}\frac{\delta}{1+e^{\varepsilon}}\right)^{\left\lceil\frac"
            r"{\varepsilon^{\prime}}{\varepsilon}\right\rceil}\left(1-\frac{\delta}{1+e^{\varepsilon}}\right)^{T-"
            r"\left\lceil\frac{\varepsilon^{\prime}}{\varepsilon}\right\rceil}+1-\left(1-\frac{\delta}{1+e^{"
            r"\varepsilon}}\right)^{T}+\tilde{\delta}$",
    "cor2_approx": r"$=\left(T-\left\lceil\frac{\varepsilon^{\prime}}{\varepsilon}\right\rceil\right)\frac{2\delta}"
                   r"{1+e^{\varepsilon}}+\left\lceil\frac{\varepsilon^{\prime}}{\varepsilon}\right\rceil\delta+"
                   r"\tilde{\delta}+\mathcal{O}\left(\left(\frac{\delta}{1+e^{\varepsilon}}\right)^{2}\right)$",
    "cor3": r"Suppose all the iterators $M_{i}$ are $\varepsilon$-differentially private and all the other "
            r"conditions in Theorem 4 hold. Then, the algorithm $\mathcal{A}$ is $(\varepsilon^{\prime},\delta^{"
            r"\prime})$-differentially private that",
    "cor3_pp": r"$\delta^{\prime\prime}=e^{-\frac{\varepsilon^{\prime}+T\varepsilon}{2}}\left(\frac{1}{1+e^{"
               r"\varepsilon}}\left(\frac{2T\varepsilon}{T\varepsilon-\varepsilon^{\prime}}\right)\right)^{T}\left("
               r"\frac{T\varepsilon+\varepsilon^{\prime}}{T\varepsilon-\varepsilon^{\prime}}\right)^{-\frac{"
               r"\varepsilon^{\prime}+T\varepsilon}{2\varepsilon}}$.",
    "b4": r"Therefore, by applying eq.(37) into the RHS of eq. (36), we have that",
    "thm5": r"If for any fixed observation $y_{i-1}$ of the variable $Y_{i-1}$, $M_{i}(y_{i-1},S)$ is $\varepsilon_"
            r"{i}$-differentially private, then $\left\{Y_{i}(S)\right\}_{i=0}^{T}$ is ($\varepsilon^{\prime}$, "
            r"$\delta^{\prime}$)-differentially private that $\varepsilon^{\prime}=\sqrt{2\log\left(\frac{1}{\delta"
            r"^{\prime}}\right)\left(\sum\limits_{i=1}^{T}\varepsilon_{i}^{2}\right)}+\sum\limits_{i=1}^{T}"
            r"\varepsilon_{i}\frac{e^{\varepsilon_{i}}-1}{e^{\varepsilon_{i}}+1}$.",
    "thm6": r"If for any fixed observation $y_{i-1}$ of the variable $Y_{i-1}$, $M_{i}(y_{i-1},S)$ is $(\varepsilon"
            r"_{i},\delta_{i})$-differentially private $(i\geq 1)$, then $\left\{Y_{i}(S)\right\}_{i=0}^{T}$ is "
            r"$(\varepsilon^{\prime},\delta^{\prime})$-differentially private where",
    "abstract": "Our results are strictly tighter than the existing works.",
    "sec412": "Our bound improves the current tightest result from two aspects:",
    "ns_tightest": "This is the existing tightest high-probability generalization bound in the literature.",
    "strictly_tighter_422": "Our composition theorem is strictly tighter than the existing results.",
    "intro_ns": r"our bound tightens the term $a$ from $13\varepsilon$ to $9\varepsilon$; and (2) our bound "
                r"tightens the term $b$ from $\frac{2\delta}{\varepsilon}\log\left(\frac{2}{\varepsilon}\right)$ to "
                r"$\frac{2e^{-\varepsilon}\delta}{\varepsilon}\log\left(\frac{2}{\varepsilon}\right)$",
    "thm1": r"$\mathbb{P}\left[\left|\hat{\mathcal{R}}_{S}(\mathcal{A}(S))-\mathcal{R}(\mathcal{A}(S))\right|<9"
            r"\varepsilon\right]>1-\frac{e^{-\varepsilon}\delta}{\varepsilon}\ln\left(\frac{2}{\varepsilon}\right)$",
    "thm2_factor": r"Our bound is tighter by a factor of $e^{\varepsilon}$.",
    "thm2_tighter": r"Nissim and Stemmer also proved an on-average multi-database generalization bound. Our "
                    r"on-average multi-database generalization bound is tighter by a factor of $e^{\varepsilon}$.",
    "cor1": r"Since $1-e^{-\varepsilon}\leq\varepsilon$, we have the following corollary.",
    "thm7": r"SGLD is $(\varepsilon^{\prime},\delta^{\prime})$-differentially private.",
    "thm8": r"Agnostic federated learning is $(\varepsilon^{\prime},\delta^{\prime})$-differentially private.",
    "delta_tilde": r"and $\tilde{\delta}= e^{-\frac{\varepsilon^{\prime}+\frac{\tau}{N}T\tilde{\varepsilon}}{2}}"
                   r"\left(\frac{1}{1+e^{\frac{\tau}{N}\tilde{\varepsilon}}}\left(\frac{2\frac{\tau}{N}T\tilde{"
                   r"\varepsilon}}{\frac{\tau}{N}T\tilde{\varepsilon}-\varepsilon^{\prime}}\right)\right)^{T}\left("
                   r"\frac{\frac{\tau}{N}\tilde{\varepsilon}T+\varepsilon^{\prime}}{\frac{\tau}{N}T\tilde{"
                   r"\varepsilon}-\varepsilon^{\prime}}\right)^{-\frac{N\varepsilon^{\prime}+\tau T\tilde{"
                   r"\varepsilon}}{2\tau\tilde{\varepsilon}}}$.",
    "combine": "Additionally, a generalization bound is delivered by combining with Theorem 1.",
    "remark": r"Theorem 7 implies that $\mathbb{P}\left[\hat{\mathcal{R}}_{S}(\mathcal{A}(S))\leq O\left(\frac{T}"
              r"{\sqrt{N}}\right)+\mathcal{R}(\mathcal{A}(S))\right]\geq 1-O\left(\frac{T}{\sqrt{N}}\right)$.",
    "remark2": r"Theorem 8 implies that $\mathbb{P}\left[\hat{\mathcal{R}}_{S}(\mathcal{A}(S))\leq O\left(\frac{T}"
               r"{\sqrt{N}}\right)+\mathcal{R}(\mathcal{A}(S))\right]\geq 1-O\left(\frac{T}{\sqrt{N}}\right)$.",
    "sec5": r"Our results help deliver $\mathcal{O}(\sqrt{\log N/N})$ high-probability generalization bounds and "
            r"PAC-learnability guarantees for the two schemes.",
    "wang": r"Specifically, the authors proved that SGLD is $(\varepsilon,\delta)$-differentially private if "
            r"$T>\frac{\varepsilon^{2}N}{32\tau\log(2/\delta)}$.",
}


def claim(output_id: str, claim_id: str, kind: str, source: str, text: str, expected: str, ok, points=None,
          keys: Sequence[str] = (), code: str = "", quote: str = "", note: str = "", strength: str = "tested") -> Claim:
    """A grid claim: the verdict of :func:`adaptive_repro.foundation.registry.check_grid` (zero points -> "not
    checked"); ``note`` is appended to the measured text (numbers, the reason of a verdict, the other reading)."""
    gc = check_grid(ok, points, keys)
    measured = gc.measured + (f"; {note}" if note else "")
    return Claim(output_id=output_id, claim_id=claim_id, source=source, claim=text, expected=expected,
                 measured=measured, status=gc.status, counterexample=gc.counterexample, kind=kind,
                 quote=quote, code=code, strength=strength)


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number_text(x: float) -> str:
    """A number for a He figure's title or legend, in one format throughout: a power of ten with |k| >= 3 as 10ᵏ
    (10⁻⁵, 10⁴, 10⁷), any other number as plain digits (0.5, 4, 100), so "10000" never sits beside "1e5"."""
    k = math.log10(x) if x > 0 else math.nan
    if math.isfinite(k) and abs(k - round(k)) < 1e-9 and abs(round(k)) >= 3:
        return "10" + str(round(k)).translate(_SUPERSCRIPTS)
    return f"{x:g}"


#: Size of a He figure's titles that hold a power of ten: mathtext sets exponents at 0.7 of it, so they read ≥ 9 pt.
POWER_TITLE_PT = 13.0


def tex_number(x: float) -> str:
    """:func:`number_text` for titles, as mathtext (``$10^{-5}$``): its exponents are larger than the Unicode
    superscripts' and read at 9 pt in a title of :data:`POWER_TITLE_PT`."""
    text = number_text(x)
    if text.startswith("10") and text != f"{x:g}":  # a power of ten written 10ᵏ
        return f"$10^{{{text[2:].translate(_UNSUPERSCRIPTS)}}}$"
    return text


_UNSUPERSCRIPTS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


# σ encoding of the He application figures (he-sgld, he-federated)
#: Range of the σ colours on the yellow-orange-red map (dark = small σ; no blue or green, which He's line and
#: the other figures use): starts past the pale yellow, so the lightest σ reads on white and on the pale shading.
SIGMA_RANGE = (0.98, 0.45)


def sigma_colours(sigmas: list[float]) -> dict[float, str]:
    """One sequential colour per σ (dark = small σ), a darker end than :func:`plotting.ordinal_colors` because these
    colours carry thin lines and small markers on a shaded background."""
    import matplotlib
    import matplotlib.colors as mcolors

    lo, hi = SIGMA_RANGE
    cmap = matplotlib.colormaps["YlOrRd"]
    k = max(1, len(sigmas) - 1)
    return {s: mcolors.to_hex(cmap(lo + (hi - lo) * i / k)) for i, s in enumerate(sigmas)}


def sigma_marker_size(rank: int, n: int) -> float:
    """Marker size of the ``rank``-th smallest of ``n`` σ: largest for the smallest, so that equal values stay seen."""
    return 7.5 - 3.0 * rank / max(1, n - 1)


#: Floating-point slack of a difference of two deltas, relative to the larger (a few units in the last place): where
#: the second-order terms (T delta)^2 underflow (delta = 1e-300), a difference of 1e-5-sized numbers is still rounded.
ROUNDING = 8 * np.finfo(float).eps


def rounding(*values) -> np.ndarray:
    """The rounding slack of a difference of ``values`` (:data:`ROUNDING` times the largest magnitude)."""
    return ROUNDING * np.max(np.abs(np.vstack([np.asarray(v, dtype=float) for v in values])), axis=0)


def strictly_below(a, b) -> np.ndarray:
    """``a < b`` beyond rounding: a point where ``a`` is within the rounding slack of ``b`` decides nothing for a
    strict inequality, so it counts as not below."""
    return (np.asarray(a, dtype=float) < np.asarray(b, dtype=float) - rounding(a, b))


def excess_words(a, b) -> str:
    """The size of a failure of ``a < b``: the largest excess a - b, absolute and relative to b, against rounding."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    bad = ~strictly_below(a, b)
    if not bad.any():
        return ""
    i = int(np.argmax(np.where(bad, a - b, -np.inf)))
    slack = float(rounding(a[i], b[i])[0])
    what = ("a real second-order excess, not a rounding artefact" if a[i] - b[i] > slack else
            "within rounding, so 'strictly' is not shown there")
    return (f"; size of the failure: He's delta' exceeds Kairouz's by up to {a[i] - b[i]:.3g} (relative "
            f"{(a[i] - b[i]) / b[i]:.3g} of Kairouz's {b[i]:.4g}; rounding slack {slack:.3g}): {what}")
