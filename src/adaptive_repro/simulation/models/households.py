"""``households``: records in groups of m (consecutive records, independent across groups) that share a latent
state (docs/METHODS.md §4b).

Household g = 0, 1, ... holds records g m .. g m + m - 1 (the last one may be smaller when m does not divide n) and
a state h_g = +-1, a fair sign, independent across households. Labels y_i are i.i.d. fair signs and
x_ij = y_i (beta_j h_{g(i)} + mu_j) + z_ij with beta_j ~ N(0, b^2) drawn once per population. Within a household
the records' latent states are equal (a clique of the dependency graph); across households they are independent.

Privacy accounting (Zhao 2017 Lemma 2 on the household graph): every record's state equals its housemates', so the
max-influence of X_i on any housemate is infinite; the only Markov quilt with finite influence is the empty one, whose
nearby set is the whole household: eps' = eps / m, the group-privacy conversion (checked by enumeration in the tests).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
from scipy import special

from adaptive_repro.foundation.domain import COUNT, check_public_functions, check_size
from adaptive_repro.privacy.lemmas import ConversionResult
from adaptive_repro.simulation.data_models import (
    LOADING_SD,
    DataModel,
    GroupedSignModel,
    Population,
    clipped_query_population,
    population_accuracies,
    sign_query_population,
    signal_loadings,
)
from adaptive_repro.simulation.inflation import null_loading_spread


@dataclasses.dataclass(frozen=True)
class HouseholdsPopulation(Population):
    """The population of :class:`Households`: ``beta`` (d,) and the household size ``size``."""

    size: int = 1


def household_sizes(n: int, size: int) -> np.ndarray:
    """Sizes of the households of n consecutive records: full households of ``size``, the last one the remainder."""
    check_size("household_sizes", "n / size", n // max(int(size), 1), 10**9, "one 8-byte entry a household")
    full, rest = divmod(n, size)
    return np.array([size] * full + ([rest] if rest else []), dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class Households(GroupedSignModel, DataModel):
    """Households sharing a latent state (module docstring)."""

    PANEL_WORDS: ClassVar[str] = "households:\nhousemates share a state"

    name: str = "households"
    PARAMETERS: ClassVar[dict[str, dict]] = {
        "size": {"type": "integer", "minimum": 1, "default": 1, "description": "household size m (households)"},
        "b": LOADING_SD,
    }
    size: int = PARAMETERS["size"]["default"]
    b: float = PARAMETERS["b"]["default"]

    def population(self, rng, n, d, signal_attributes, signal_scale) -> HouseholdsPopulation:
        beta = self.b * rng.standard_normal(d) if self.b > 0 else np.zeros(d)
        return HouseholdsPopulation(n=n, d=d, mu=signal_loadings(n, d, signal_attributes, signal_scale), beta=beta,
                                    size=self.size)

    def sample(self, rng, pop):
        sizes = household_sizes(pop.n, pop.size)
        h = np.repeat(rng.choice(np.array([-1.0, 1.0]), size=len(sizes)), sizes)
        y = rng.choice(np.array([-1.0, 1.0]), size=pop.n)
        x = rng.standard_normal((pop.n, pop.d)) + y[:, None] * (np.outer(h, pop.beta) + pop.mu[None, :])
        return x, y, h

    def group_sizes(self, rng, pop) -> np.ndarray:
        """Records with h = +1, then h = -1: each household is +1 with probability 1/2 (full ones as one binomial;
        O(1) in n)."""
        full, rest = divmod(pop.n, pop.size)
        plus = pop.size * int(rng.binomial(full, 0.5))
        if rest:  # the smaller last household
            plus += rest * int(rng.random() < 0.5)
        return np.array([plus, pop.n - plus])

    def record_clusters(self, n: int) -> np.ndarray:
        """The household of each record (consecutive records, as :meth:`sample` draws them)."""
        sizes = household_sizes(n, self.size)
        return np.repeat(np.arange(len(sizes)), sizes)

    def group_means(self, pop) -> np.ndarray:
        return pop.mu[:, None] + pop.beta[:, None] * np.array([1.0, -1.0])[None, :]

    def population_accuracies(self, ranked, weights, sizes, pop):
        return population_accuracies(ranked, weights, sizes, pop)  # h fair, as r in the batch chain

    def sign_query_population(self, pop):
        return sign_query_population(pop)

    def clipped_query_population(self, pop, clip):
        return clipped_query_population(pop, clip)

    def expected_inflation(self, n: int) -> float:
        full, rest = divmod(n, self.size)
        pairs = full * self.size * (self.size - 1) + rest * (rest - 1)  # sum over households of m_g (m_g - 1)
        return 1.0 + 4.0 * null_loading_spread(self.b) * float(pairs) / n

    def variance_inflation(self, pop):
        """Indicators of housemates have covariance a_j^2 (a_j = [Phi(mu + beta) - Phi(mu - beta)]/2), others 0:
        V = 1 + a^2 sum_g m_g (m_g - 1) / (n p (1 - p))."""
        plus, minus = special.ndtr(pop.mu + pop.beta), special.ndtr(pop.mu - pop.beta)
        p, spread = 0.5 * (plus + minus), (0.5 * (plus - minus)) ** 2
        sizes = household_sizes(pop.n, pop.size)
        pairs = float(np.sum(sizes * (sizes - 1)))
        return 1.0 + spread * pairs / (pop.n * p * (1.0 - p))

    def dp_level_for_bdp(self, eps_bdp, n, d, method) -> ConversionResult:
        """Lemma 2: eps' = eps / m (module docstring); Lemmas 3-4 give nothing here (a housemate's influence is
        infinite; Lemma 4 needs a Markov chain)."""
        if method != "lemma2":
            return ConversionResult(eps_dp=None, feasible=False, method=method,
                                    detail=f"{method} gives nothing for households (infinite influence within a "
                                           "household)" if method == "lemma3" else "Lemma 4 needs a Markov chain")
        m = min(self.size, n)
        return ConversionResult(eps_dp=eps_bdp / m, feasible=True, method="lemma2", quilt="{} (empty, |N| = m - 1)",
                                detail=f"group privacy: eps / m with m = {m}")

    def bdp_level_for_dp(self, eps_dp, n, d, method):
        if method != "lemma2":
            raise ValueError(f"bdp_level_for_dp: method {method!r} not available for households; allowed: lemma2")
        return eps_dp * min(self.size, n)

    def describe(self) -> str:
        return f"households of {self.size}, loading SD {self.b:g}"


check_public_functions(globals(), __name__, n=COUNT, size=COUNT)  # argument domains (adaptive_repro.foundation.domain)
