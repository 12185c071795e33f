"""``regimes``: a shared latent K-state sticky chain with per-state attribute loadings (docs/METHODS.md §4b).

Records i = 1..n carry a regime c_i in {0, ..., K-1}: c_1 is uniform, then c_{i+1} = c_i with probability ``stay``,
else a uniform draw among the other K - 1 regimes. Labels y_i are i.i.d. fair signs and
x_ij = y_i (L_{c_i j} + mu_j) + z_ij, with loadings L_{cj} ~ N(0, b^2) drawn once per population (shared by train,
holdout and fresh) for half the regimes and mirrored for the other half (L_{c + K/2, j} = -L_{cj}, K even), so every
attribute is null in the population (P[u_ij > 0] = 1/2 at mu_j = 0, as in the batch chain) and any gap between data
sets is overfitting. K = 2 is the batch chain's shared +-beta_j factor with i.i.d. labels; large K gives many
regimes, each with its own loadings.

The transition matrix P = stay I + (1 - stay)/(K - 1) (J - I) has the non-unit eigenvalue
lam = (K stay - 1)/(K - 1), so P^k = lam^k I + (1 - lam^k) J/K and the regime-dependent part of any function of c_i
has lag-k correlation lam^k (the sign query's variance inflation, :meth:`Regimes.variance_inflation`).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
from scipy import special

from adaptive_repro.foundation.domain import (
    COUNT,
    PROBABILITY,
    Domain,
    check_generator,
    check_public_functions,
    check_size,
)
from adaptive_repro.privacy.lemmas import ConversionResult, convert_chain, lemma2_eps_bdp, lemma3_eps_bdp
from adaptive_repro.simulation.data_models import (
    LOADING_SD,
    DataModel,
    GroupedSignModel,
    Population,
    clipped_normal_mean,
    signal_loadings,
)
from adaptive_repro.simulation.inflation import null_loading_spread, sign_query_inflation


@dataclasses.dataclass(frozen=True)
class RegimesPopulation(Population):
    """The population of :class:`Regimes`: ``loadings`` L (K x d) and the chain's ``stay``."""

    loadings: np.ndarray | None = None
    stay: float = 0.5


#: Most regimes a matrix or draw of this module takes (a 4096 x 4096 matrix is 128 MB).
MAX_STATES = 4096
#: Longest path :func:`sample_regimes` draws and most records :func:`sample_occupation` splits (GBs of memory).
MAX_PATH_LENGTH = 10**9


def sticky_matrix(states: int, stay: float) -> np.ndarray:
    """P = stay I + (1 - stay)/(K - 1) (J - I)."""
    check_size("sticky_matrix", "states", states, MAX_STATES, "a states x states matrix of floats")
    off = (1.0 - stay) / (states - 1)
    return np.full((states, states), off) + (stay - off) * np.eye(states)


def sample_regimes(rng: np.random.Generator, n: int, states: int, stay: float) -> np.ndarray:
    """One stationary path c_1..c_n of the sticky chain (O(n))."""
    check_generator("sample_regimes", rng)
    check_size("sample_regimes", "n", n, MAX_PATH_LENGTH, "about 24 bytes a record while drawing")
    leave = rng.random(n - 1) >= stay
    steps = np.where(leave, 1 + rng.integers(0, states - 1, n - 1), 0)
    return (int(rng.integers(0, states)) + np.concatenate(([0], np.cumsum(steps)))) % states


def sample_occupation(rng: np.random.Generator, n: int, states: int, stay: float) -> np.ndarray:
    """Records per regime of one path, exactly, in O(number of runs + K): R = 1 + Bin(n - 1, 1 - stay) runs whose
    regimes form a chain without self-transitions (uniform start, uniform among the others), run lengths a uniform
    composition of n into R parts, so the regime totals are R_c + Multinomial(n - R, Dirichlet(R_1, ..., R_K))
    (aggregation of the Dirichlet(1, ..., 1) run-length weights by regime)."""
    check_generator("sample_occupation", rng)
    check_size("sample_occupation", "n", n, MAX_PATH_LENGTH, "8 bytes a run, up to n runs")
    check_size("sample_occupation", "states", states, MAX_STATES, "the Dirichlet and multinomial over the states")
    runs = 1 + int(rng.binomial(n - 1, 1.0 - stay))
    # Run r's regime is (first + S_r) mod K, S_r the sum of its first r steps (S_0 = 0): the runs per regime are the
    # counts of S_r mod K rotated by ``first``. In place, as this is the O(runs) part (2.3e6 runs at n = 3e7).
    sums = rng.integers(0, states - 1, runs - 1)
    sums += 1  # the steps, 1..K-1
    np.cumsum(sums, out=sums)
    sums %= states  # S_1..S_{R-1} mod K
    first = int(rng.integers(0, states))
    per_regime = np.roll(np.bincount(sums, minlength=states) + (np.arange(states) == 0), first)  # + S_0
    present = per_regime > 0
    extra = np.zeros(states, dtype=np.int64)
    if n > runs:
        extra[present] = rng.multinomial(n - runs, rng.dirichlet(per_regime[present]))
    return per_regime + extra


@dataclasses.dataclass(frozen=True)
class Regimes(GroupedSignModel, DataModel):
    """Shared latent regimes (module docstring)."""

    PANEL_WORDS: ClassVar[str] = "regimes:\nrecords share a regime chain"
    #: one conditioning per latent state and block of columns: about twice the batch chain's CPU per column (measured:
    #: 0.83 CPU-s a replicate of config/correlation-decisive-regimes.yaml, 0.5 for households' decisive config)
    COLUMN_COST: ClassVar[float] = 2.0

    name: str = "regimes"
    PARAMETERS: ClassVar[dict[str, dict]] = {
        "states": {"type": "integer", "minimum": 2, "maximum": 200, "multipleOf": 2, "default": 2,
                   "description": "number of regimes K, even: half of them mirror the other half (regimes); at "
                                  "most 200, where Lemma 2's quilt search on the K-state chain takes ~2 CPU-s "
                                  "(it grows like K^3)"},
        "stay": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "default": 0.5,
                 "description": "probability that the next record stays in the current regime (regimes)"},
        "b": LOADING_SD,
    }
    states: int = PARAMETERS["states"]["default"]
    stay: float = PARAMETERS["stay"]["default"]
    b: float = PARAMETERS["b"]["default"]

    def population(self, rng, n, d, signal_attributes, signal_scale) -> RegimesPopulation:
        half = self.b * rng.standard_normal((self.states // 2, d)) if self.b > 0 else np.zeros((self.states // 2, d))
        loadings = np.vstack((half, -half))  # mirrored regimes: a null population
        return RegimesPopulation(n=n, d=d, mu=signal_loadings(n, d, signal_attributes, signal_scale),
                                 beta=np.zeros(d), loadings=loadings, stay=self.stay)

    def sample(self, rng, pop):
        c = sample_regimes(rng, pop.n, self.states, pop.stay)
        y = rng.choice(np.array([-1.0, 1.0]), size=pop.n)
        x = rng.standard_normal((pop.n, pop.d)) + y[:, None] * (pop.loadings[c] + pop.mu[None, :])
        return x, y, c

    def group_sizes(self, rng, pop) -> np.ndarray:
        return sample_occupation(rng, pop.n, self.states, pop.stay)

    def group_means(self, pop) -> np.ndarray:
        return (pop.mu[None, :] + pop.loadings).T  # (d, K)

    def population_accuracies(self, ranked, weights, sizes, pop):
        sizes = np.asarray(sizes)
        m = np.concatenate(([0.0], np.cumsum(weights * pop.mu[ranked])))[sizes]
        b = np.vstack((np.zeros((1, self.states)),
                       np.cumsum(weights[:, None] * pop.loadings[:, ranked].T, axis=0)))[sizes]  # (sizes, K)
        norm = np.sqrt(np.concatenate(([0.0], np.cumsum(weights**2)))[sizes])
        safe = np.where(norm > 0, norm, 1.0)
        acc = special.ndtr((m[:, None] + b) / safe[:, None]).mean(axis=1)  # regimes uniform at stationarity
        return np.where(norm > 0, acc, 0.5)

    def sign_query_population(self, pop):
        return special.ndtr(pop.mu[None, :] + pop.loadings).mean(axis=0)

    def clipped_query_population(self, pop, clip):
        return 0.5 + clipped_normal_mean(pop.mu[None, :] + pop.loadings, clip).mean(axis=0) / (2.0 * clip)

    @property
    def lag_correlation(self) -> float:
        """lam = (K stay - 1)/(K - 1), the chain's non-unit eigenvalue."""
        return (self.states * self.stay - 1.0) / (self.states - 1.0)

    def expected_inflation(self, n: int) -> float:
        """The mirrored regimes average Phi(L) to 1/2 exactly, so the spread is E[(Phi(L) - 1/2)^2]."""
        return float(sign_query_inflation(0.5, null_loading_spread(self.b), n, self.lag_correlation))

    def variance_inflation(self, pop):
        f = special.ndtr(pop.mu[None, :] + pop.loadings)  # P[u_ij > 0 | regime], (K, d)
        return sign_query_inflation(f.mean(axis=0), f.var(axis=0), pop.n, self.lag_correlation)

    def privacy_chain(self, d: int) -> np.ndarray:
        return sticky_matrix(self.states, self.stay)

    def dp_level_for_bdp(self, eps_bdp, n, d, method) -> ConversionResult:
        """Lemmas 2-4 on the regime chain (the records' dependence: labels and noise are independent)."""
        return convert_chain(eps_bdp, n, sticky_matrix(self.states, self.stay), method)

    def bdp_level_for_dp(self, eps_dp, n, d, method):
        P = sticky_matrix(self.states, self.stay)
        if method == "lemma2":
            return lemma2_eps_bdp(eps_dp, n, P)
        if method == "lemma3":
            return lemma3_eps_bdp(eps_dp, n, P)
        raise ValueError(f"bdp_level_for_dp: method {method!r} not available for regimes; allowed: lemma2, lemma3")

    def describe(self) -> str:
        return f"regimes: K = {self.states}, stay {self.stay:g}, loading SD {self.b:g}"


# argument domains (adaptive_repro.foundation.domain): a sticky chain needs two states at least
check_public_functions(globals(), __name__, n=COUNT, states=Domain(2.0, float("inf"), high_open=True, integer=True),
                       stay=PROBABILITY)
