"""``attribute_chains``: each attribute's relation to the label drifts in a regime chain of its own (docs/METHODS.md
§4b), with an exact sign-query engine.

x_ij = y_i (lam a_ij + mu_j) + z_ij: labels y_i are i.i.d. fair signs, z_ij i.i.d. N(0, 1), and for every attribute j
the states a_1j, ..., a_nj are a stationary symmetric +-1 Markov chain with lag-one correlation rho (stay probability
(1 + rho)/2), independent across attributes and of everything else. So u_ij = x_ij y_i = lam a_ij + mu_j + N(0, 1):
each attribute's statistic drifts with its own regime, and a record's latent state is the product chain
(a_i1, ..., a_id).

Exact engine (:class:`AttributeChainsDataset`), as the batch chain's (:mod:`adaptive_repro.simulation.sign_engine`)
but with one chain per attribute: for attribute j the number of runs R_j = 1 + Bin(n - 1, 1 - stay), the first state
(fair) and n_plus_j = j_+ + BetaBinomial(n - R_j, j_+, R_j - j_+) (j_+ = the number of +1 runs) are drawn in O(1),
then K_j+ ~ Bin(n_plus_j, Phi(mu_j + lam)), K_j- ~ Bin(n - n_plus_j, Phi(mu_j - lam)): every sign query in O(d).
A selected column is realized in O(n) from its own stream, a block of columns at a time
(:mod:`~adaptive_repro.simulation.column_blocks`): the +1 and -1 run lengths are uniform compositions of n_plus_j and
n - n_plus_j into j_+ and R_j - j_+ parts (given R_j and n_plus_j they are independent and uniform), interleaved
from the first state (:func:`chain_paths`), and the values are the batch chain engine's: N(m, 1) with exactly K_jg
positives at a uniform subset of the group's records.

Privacy accounting: the latent state is the product of d independent two-state chains, so max-influences add over
attributes: every quilt's influence is d times the single chain's (:class:`ProductChainInfluence`), and Lemma 2's
eps' shrinks as d grows (the best quilt moves farther out, about ln(d)/ln(1/rho) records).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
from scipy import special

from adaptive_repro.foundation.domain import Domain, check_public_functions
from adaptive_repro.privacy.influence import ProductChainInfluence, symmetric_chain_matrix
from adaptive_repro.privacy.lemmas import ConversionResult, lemma2_eps_bdp, lemma2_eps_dp, lemma3_eps_bdp, lemma3_eps_dp
from adaptive_repro.simulation import analyst, column_blocks
from adaptive_repro.simulation.data_models import (
    DataModel,
    Population,
    clipped_normal_mean,
    signal_loadings,
)
from adaptive_repro.simulation.engines import Dataset, Engine
from adaptive_repro.simulation.inflation import sign_query_inflation
from adaptive_repro.simulation.sign_engine import checked_classifiers, stream_entropy


@dataclasses.dataclass(frozen=True)
class AttributeChainsPopulation(Population):
    """The population of :class:`AttributeChains`: the loading ``lam`` and the chains' lag-one correlation ``rho``."""

    lam: float = 0.0
    rho: float = 0.0


def stay_probability(rho: float) -> float:
    """Stay probability (1 + rho)/2 of a symmetric two-state chain with lag-one correlation rho."""
    return 0.5 * (1.0 + rho)


def chain_paths(plus: np.ndarray, plus_runs: np.ndarray, runs: np.ndarray, first_plus: np.ndarray,
                gap_draws: np.ndarray, spare: np.ndarray, used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row r: a uniform two-state path of n = gap_draws.shape[1] records with ``runs[r]`` runs, ``plus[r]`` records
    in state +1 in ``plus_runs[r]`` runs, starting in state +1 if ``first_plus[r]``, as a boolean row (True: +1),
    and the rows that ran short of spare uniforms (:func:`column_blocks.condition_rows`).

    Given the runs of each state, their lengths are independent uniform compositions, and a composition of P into
    R parts is a uniform (R - 1)-subset of its P - 1 gaps. Slots 1..P-1 of a row are the gaps between its +1
    records taken in order, slots P+1..n-1 those of its -1 records; each side's i.i.d. uniform ``gap_draws`` are
    conditioned to have exactly (runs - 1) above a threshold (the cuts). The k-th cut of a side ends its k-th run;
    runs alternate from the first state (:func:`~adaptive_repro.simulation.column_kernels.two_state_paths`)."""
    from adaptive_repro.simulation import column_kernels  # loads numba, as column_blocks.condition_rows does

    n = gap_draws.shape[1]
    plus = np.asarray(plus, dtype=np.int64)
    short, thresholds = [], []
    for lo, hi, parts, gaps in ((np.ones_like(plus), plus, plus_runs, plus - 1),
                                (plus + 1, np.full_like(plus, n), runs - plus_runs, n - plus - 1)):
        cuts = np.maximum(parts - 1, 0)
        threshold = 1.0 - cuts / np.maximum(gaps, 1)
        short.append(column_blocks.condition_rows(gap_draws, threshold, cuts, spare, used, lo, hi, uniform=True))
        thresholds.append(threshold)
    short = np.concatenate(short)
    is_short = np.zeros(plus.size, dtype=bool)
    is_short[short] = True  # a row that ran short is drawn again: any path of the right length will do meanwhile
    return column_kernels.two_state_paths(gap_draws, thresholds[0], thresholds[1], plus,
                                          np.asarray(first_plus, dtype=bool), is_short), short


@dataclasses.dataclass(frozen=True)
class AttributeChains(DataModel):
    """Per-attribute regime chains (module docstring)."""

    PANEL_WORDS: ClassVar[str] = "attribute chains:\none chain per attribute"

    name: str = "attribute_chains"
    SHARED_STATE: ClassVar[bool] = False  # one latent chain per attribute
    PARAMETERS: ClassVar[dict[str, dict]] = {
        "lam": {"type": "number", "minimum": 0, "default": 0.0,
                "description": "loading lam of each attribute's regime state (attribute_chains)"},
        "rho": {"type": "number", "minimum": 0, "exclusiveMaximum": 1, "default": 0.0,
                "description": "lag-one correlation of each attribute's regime chain (attribute_chains)"},
    }
    lam: float = PARAMETERS["lam"]["default"]
    rho: float = PARAMETERS["rho"]["default"]

    def population(self, rng, n, d, signal_attributes, signal_scale) -> AttributeChainsPopulation:
        return AttributeChainsPopulation(n=n, d=d, mu=signal_loadings(n, d, signal_attributes, signal_scale),
                                         beta=np.zeros(d), lam=self.lam, rho=self.rho)

    def sample(self, rng, pop):
        n, d = pop.n, pop.d
        first = rng.choice(np.array([-1.0, 1.0]), size=d)
        flips = np.where(rng.random((n - 1, d)) >= stay_probability(pop.rho), -1.0, 1.0)
        a = first[None, :] * np.vstack((np.ones((1, d)), np.cumprod(flips, axis=0)))
        y = rng.choice(np.array([-1.0, 1.0]), size=n)
        x = rng.standard_normal((n, d)) + y[:, None] * (pop.lam * a + pop.mu[None, :])
        return x, y, a

    def engines(self, query, unit_queries):
        if query == "sign":
            return ("exact_chains", "direct")
        return ("direct",)

    def population_accuracies(self, ranked, weights, sizes, pop):
        """With +-1 weights c, the score is M + lam sum_j c_j a_j + N(0, k); at stationarity the a_j are independent
        fair signs, so sum_j c_j a_j = 2B - k with B ~ Bin(k, 1/2):
        acc = sum_b P(B = b) Phi((M + lam (2b - k)) / sqrt(k))."""
        if np.any(np.abs(weights) != 1):
            raise ValueError("attribute_chains population accuracies need weights +-1 (sign of the statistic)")
        m = np.concatenate(([0.0], np.cumsum(weights * pop.mu[ranked])))
        out = []
        for k in np.asarray(sizes):
            if k == 0:
                out.append(0.5)
                continue
            b = np.arange(k + 1)
            log_pmf = special.gammaln(k + 1) - special.gammaln(b + 1) - special.gammaln(k - b + 1) - k * np.log(2.0)
            out.append(float(np.sum(np.exp(log_pmf) * special.ndtr((m[k] + pop.lam * (2 * b - k)) / np.sqrt(k)))))
        return np.array(out)

    def shared_state_means(self, pop):
        """None shared: every attribute has its own chain, so no state moves the attributes together."""
        return np.empty((pop.d, 0))

    def sign_query_population(self, pop):
        return 0.5 * (special.ndtr(pop.mu + pop.lam) + special.ndtr(pop.mu - pop.lam))

    def clipped_query_population(self, pop, clip):
        mean = 0.5 * (clipped_normal_mean(pop.mu + pop.lam, clip) + clipped_normal_mean(pop.mu - pop.lam, clip))
        return 0.5 + mean / (2.0 * clip)

    def expected_inflation(self, n: int) -> float:
        return float(sign_query_inflation(0.5, (special.ndtr(self.lam) - 0.5) ** 2, n, self.rho))

    def variance_inflation(self, pop):
        """P[u_ij > 0 | a_ij] = p_j + a_j' a_ij with a_j' = [Phi(mu_j + lam) - Phi(mu_j - lam)]/2 and a_ij a chain with
        lag-k correlation rho^k."""
        plus, minus = special.ndtr(pop.mu + pop.lam), special.ndtr(pop.mu - pop.lam)
        return sign_query_inflation(0.5 * (plus + minus), (0.5 * (plus - minus)) ** 2, pop.n, pop.rho)

    def _influence(self, d: int) -> ProductChainInfluence:
        return ProductChainInfluence(symmetric_chain_matrix(stay_probability(self.rho)), d)

    def privacy_chain(self, d: int) -> ProductChainInfluence:
        return self._influence(d)

    def dp_level_for_bdp(self, eps_bdp, n, d, method) -> ConversionResult:
        """Lemma 2 (or 3) on the product of the d attributes' chains (module docstring)."""
        if method == "lemma2":
            return lemma2_eps_dp(eps_bdp, n, self._influence(d))
        if method == "lemma3":
            return lemma3_eps_dp(eps_bdp, n, self._influence(d))
        return ConversionResult(eps_dp=None, feasible=False, method=method,
                                detail="Lemma 4 is not evaluated for a product of chains (its constants need the "
                                       "product chain's spectral quantities on 2^d states)")

    def bdp_level_for_dp(self, eps_dp, n, d, method):
        if method == "lemma2":
            return lemma2_eps_bdp(eps_dp, n, self._influence(d))
        if method == "lemma3":
            return lemma3_eps_bdp(eps_dp, n, self._influence(d))
        raise ValueError(f"bdp_level_for_dp: method {method!r} not available for attribute_chains; "
                         "allowed: lemma2, lemma3")

    def describe(self) -> str:
        return f"attribute chains: loading {self.lam:g}, lag-one correlation {self.rho:g}"


class AttributeChainsDataset(Dataset):
    """One data set of :class:`AttributeChains`, exact in law for sign queries and nested classifiers' accuracies
    (module docstring). Records stay in their natural order: each selected column realizes its own chain."""

    engine = "exact_chains"

    def __init__(self, rng: np.random.Generator, pop: AttributeChainsPopulation, observed: bool = True):
        self.pop = pop
        n, d = pop.n, pop.d
        stay = stay_probability(pop.rho)
        self.runs = 1 + rng.binomial(n - 1, 1.0 - stay, size=d)
        self.first_plus = rng.random(d) < 0.5
        self.plus_runs = np.where(self.first_plus, (self.runs + 1) // 2, self.runs // 2)
        minus_runs = self.runs - self.plus_runs
        split = rng.beta(np.maximum(self.plus_runs, 1), np.maximum(minus_runs, 1))
        extra = rng.binomial(n - self.runs, split)
        self.n_plus = np.where(self.plus_runs == 0, 0, np.where(minus_runs == 0, n, self.plus_runs + extra))
        self.means = pop.mu[:, None] + pop.lam * np.array([1.0, -1.0])[None, :]  # (d, 2): a = +1, a = -1
        sizes = np.stack((self.n_plus, n - self.n_plus), axis=1)
        self.positives = rng.binomial(sizes, special.ndtr(self.means))
        self._streams = column_blocks.ColumnStreams(stream_entropy(rng), d)

    def sign_queries(self) -> np.ndarray:
        return self.positives.sum(axis=1) / self.pop.n

    def block(self, columns) -> np.ndarray:
        """u_ij = x_ij y_i for each of ``columns`` (one row each) and every record, in record order: the column's
        chain path given its runs and n_plus_j, then values with exactly K_jg positives in each state (module
        docstring; :mod:`~adaptive_repro.simulation.column_blocks`: column j has the same values in any block)."""
        columns = np.atleast_1d(np.asarray(columns, dtype=np.int64))
        return column_blocks.draw_rows(self._streams, columns, self.pop.n, self.pop.n, 4, self._realize)

    def column(self, j: int) -> np.ndarray:
        """Column j's row of :meth:`block`."""
        return self.block([j])[0]

    def _realize(self, cols, z, gap_draws, spare, used) -> np.ndarray:
        """Turn each row's normals ``z`` into column cols[r] in place (:func:`column_blocks.draw_rows`' contract):
        the column's path (:func:`chain_paths`), then values with exactly K_jg positives in each state."""
        from adaptive_repro.simulation import column_kernels  # loads numba (column_blocks.condition_rows says why)

        is_plus, short = chain_paths(self.n_plus[cols], self.plus_runs[cols], self.runs[cols], self.first_plus[cols],
                                     gap_draws, spare, used)
        for g, state in enumerate((True, False)):  # u_ij > 0 iff z_ij > -m_jg
            short = np.concatenate((short, column_blocks.condition_rows(
                z, -self.means[cols, g], self.positives[cols, g], spare, used, labels=is_plus, label=state)))
        column_kernels.add_state_means(z, is_plus, self.means[cols, 0], self.means[cols, 1])
        return short

    def accuracies(self, ranked, weights, sizes, rng=None) -> np.ndarray:
        """Accuracy of each nested classifier (``rng`` unused: the data are fixed)."""
        return self.accuracies_many([(ranked, weights, sizes)], [rng])[0]

    def accuracies_many(self, classifiers, rngs) -> list[np.ndarray]:
        """:meth:`accuracies` of several families, each column drawn once for all whose orders agree
        (:func:`~adaptive_repro.simulation.column_blocks.shared_column_order`)."""
        checked = [checked_classifiers(*c) for c in classifiers]
        n = self.pop.n
        accs = column_blocks.nested_accuracies(checked, self.block, n,
                                               lambda family, score, size: np.count_nonzero(score > 0) / n)
        empty = analyst.EMPTY_CLASSIFIER_ACCURACY
        return [np.where(sizes == 0, empty, acc) for (_, _, sizes), acc in zip(checked, accs)]


@dataclasses.dataclass(frozen=True)
class AttributeChainsEngine(Engine):
    """The exact sign-query engine of :class:`AttributeChains`."""

    name: str = "exact_chains"

    def dataset(self, rng, model, pop, observed) -> AttributeChainsDataset:
        return AttributeChainsDataset(rng, pop, observed)


# argument domains (adaptive_repro.foundation.domain): a lag-one correlation, and counts that may be 0
check_public_functions(globals(), __name__, rho=Domain(-1.0, 1.0), plus=None, plus_runs=None, runs=None,
                       first_plus=None, gap_draws=None, spare=None, used=None)
