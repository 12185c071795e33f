"""Data models: the contract (:class:`DataModel`), Dwork2015's i.i.d. data and the "batch chain" (:class:`BatchChain`).

i.i.d. (docs/METHODS.md §3): x_ij ~ N(0, 1) + mu_j y_i, y_i = +-1 uniform; mu_j = signal_scale/sqrt(n) for the first
``signal_attributes`` attributes (Dwork et al. 2015, supplementary script), else 0.

chain (docs/METHODS.md §4, this project's design, not Zhao's): batch states s_i and labels y_i are independent
stationary symmetric two-state Markov chains with stay probabilities p_s, p_y; x_ij = beta_j s_i + mu_j y_i + z_ij
with beta_j ~ N(0, b^2) drawn once per population. p_s = p_y = 0.5 is the i.i.d. model (with beta = 0 when b = 0).
"""

from __future__ import annotations

import abc
import dataclasses
from typing import ClassVar

import numpy as np
from scipy import special

from adaptive_repro.foundation import domain
from adaptive_repro.foundation.domain import COUNT, NONNEGATIVE, POSITIVE, PROBABILITY, check_public_functions
from adaptive_repro.foundation.plugins import check_keys
from adaptive_repro.privacy import bdp_level_for_dp, data_model_chain, dp_level_for_bdp
from adaptive_repro.privacy.lemmas import ConversionResult
from adaptive_repro.simulation.inflation import null_loading_spread, sign_query_inflation


@dataclasses.dataclass(frozen=True)
class Population:
    """Everything shared by train, holdout and fresh data of one replicate."""

    n: int  # records per data set
    d: int  # attributes
    mu: np.ndarray  # label loading per attribute, shape (d,)
    beta: np.ndarray  # batch loading per attribute, shape (d,) (zeros in the i.i.d. model)
    p_s: float = 0.5  # batch chain stay probability
    p_y: float = 0.5  # label chain stay probability


def signal_loadings(n: int, d: int, signal_attributes: int, signal_scale: float) -> np.ndarray:
    """mu_j = signal_scale / sqrt(n) for j < signal_attributes, else 0 (Dwork2015 Fig. 2: 20 attributes, 6/sqrt(n))."""
    mu = np.zeros(d)
    mu[:signal_attributes] = signal_scale / np.sqrt(n)
    return mu


def chain_population(rng: np.random.Generator, n: int, d: int, p_s: float, p_y: float, b: float,
                     signal_attributes: int, signal_scale: float) -> Population:
    """The chain model of docs/METHODS.md §4: draws beta_j ~ N(0, b^2) once for the population."""
    beta = b * rng.standard_normal(d) if b > 0 else np.zeros(d)
    return Population(n=n, d=d, mu=signal_loadings(n, d, signal_attributes, signal_scale), beta=beta,
                      p_s=p_s, p_y=p_y)


MAX_CHAIN_LENGTH = 10**9  #: longest chain :func:`sample_symmetric_chain` draws (9 bytes a record: about 9 GB)


def sample_symmetric_chain(rng: np.random.Generator, n: int, p_stay: float) -> np.ndarray:
    """A stationary symmetric two-state Markov chain on {-1, +1} of length n with stay probability p_stay: s_1 a fair
    sign (the stationary law), then s_{i+1} = s_i with probability p_stay (0.5: i.i.d. fair signs)."""
    domain.check_generator("sample_symmetric_chain", rng)  # the argument domains check n >= 1 and p_stay in [0, 1]
    domain.check_size("sample_symmetric_chain", "n", n, MAX_CHAIN_LENGTH, "9 bytes a record while drawing")
    first = rng.choice(np.array([-1, 1]))
    flips = rng.random(n - 1) >= p_stay  # a flip happens with probability 1 - p_stay
    signs = np.where(flips, -1, 1)
    return (first * np.concatenate(([1], np.cumprod(signs)))).astype(np.int8)


def chain_product_stay(p_s: float, p_y: float) -> float:
    """Stay probability of r = s y for independent symmetric chains s, y: (1 + theta)/2,
    theta = (2 p_s - 1)(2 p_y - 1) (:mod:`sign_engine` docstring, item 2)."""
    return 0.5 * (1.0 + (2.0 * p_s - 1.0) * (2.0 * p_y - 1.0))


def sample_n_plus(rng: np.random.Generator, n: int, p_stay: float) -> int:
    """#{i: r_i = +1} of a stationary symmetric two-state chain of length n with stay probability p_stay, exactly,
    in O(1) random numbers (:mod:`sign_engine` docstring, item 4)."""
    domain.check_generator("sample_n_plus", rng)
    runs = 1 + int(rng.binomial(n - 1, 1.0 - p_stay))
    first_plus = rng.random() < 0.5
    j = (runs + 1) // 2 if first_plus else runs // 2
    if j == 0:
        return 0
    if j == runs:
        return n
    return j + int(rng.binomial(n - runs, rng.beta(j, runs - j)))


def sample_labels_and_states(rng: np.random.Generator, pop: Population) -> tuple[np.ndarray, np.ndarray]:
    """Labels y and batch states s of one data set (s is all zeros-effect when beta = 0 but still drawn)."""
    y = sample_symmetric_chain(rng, pop.n, pop.p_y).astype(float)
    s = sample_symmetric_chain(rng, pop.n, pop.p_s).astype(float)
    return y, s


def sample_dataset(rng: np.random.Generator, pop: Population) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Materialize one data set: x (n x d), labels y and batch states s (direct engine)."""
    y, s = sample_labels_and_states(rng, pop)
    x = rng.standard_normal((pop.n, pop.d))
    x += np.outer(y, pop.mu)
    if np.any(pop.beta):
        x += np.outer(s, pop.beta)
    return x, y, s


def population_accuracies(ranked: np.ndarray, weights: np.ndarray, sizes: np.ndarray, pop: Population) -> np.ndarray:
    """Exact population accuracy of each nested top-``size`` classifier sign(x . c) (docs/METHODS.md §4).

    Given y, the score x.c = y M + s B_c + N(0, |c|^2) with M = sum c_j mu_j, B_c = sum c_j beta_j and s = +-1 fair
    and independent of y (at stationarity), so P[sign(x.c) = y] = 1/2 [Phi((M + B_c)/|c|) + Phi((M - B_c)/|c|)].
    For B_c = 0 this is Dwork's i.i.d. case Phi(M/|c|). A zero classifier (k = 0) gets 0.5, as the script records.
    """
    sizes = np.asarray(sizes)
    m = np.concatenate(([0.0], np.cumsum(weights * pop.mu[ranked])))[sizes]
    bc = np.concatenate(([0.0], np.cumsum(weights * pop.beta[ranked])))[sizes]
    norm = np.sqrt(np.concatenate(([0.0], np.cumsum(weights**2)))[sizes])
    safe = np.where(norm > 0, norm, 1.0)
    acc = 0.5 * (special.ndtr((m + bc) / safe) + special.ndtr((m - bc) / safe))
    return np.where(norm > 0, acc, 0.5)


def clipped_statistic_queries(x: np.ndarray, y: np.ndarray, clip: float) -> np.ndarray:
    """Statistical queries in [0, 1] for Algorithm 1 (docs/METHODS.md §4):
    q_j = 1/2 + mean_i clip(x_ij y_i, -C, C) / (2C).

    Each record moves q_j by at most 1/n, so Delta_Q = 1/n as Zhao's Algorithm 1 assumes.
    """
    return 0.5 + np.clip(x * y[:, None], -clip, clip).mean(axis=0) / (2.0 * clip)


def statistic_from_query(q: np.ndarray, clip: float) -> np.ndarray:
    """Map a [0, 1] query answer back to the statistic's scale: (q - 1/2) 2C (NaN, a "bottom" answer, stays NaN)."""
    return (np.asarray(q, dtype=float) - 0.5) * 2.0 * clip


def clipped_query_population(pop: Population, clip: float) -> np.ndarray:
    """Exact population value of each clipped query: x_j y = beta_j r + mu_j + N(0, 1), r = s y = +-1 fair.

    For U ~ N(m, 1): E[clip(U, -C, C)] = C [1 - Phi(C - m)] - C Phi(-C - m) + m [Phi(C - m) - Phi(-C - m)]
    - [phi(C - m) - phi(-C - m)] (truncated-normal first moment), averaged over r = +-1.
    """
    mean = 0.5 * (clipped_normal_mean(pop.mu + pop.beta, clip) + clipped_normal_mean(pop.mu - pop.beta, clip))
    return 0.5 + mean / (2.0 * clip)


def clipped_normal_mean(m, clip: float):
    """E[clip(U, -C, C)] for U ~ N(m, 1) (truncated-normal first moment, see :func:`clipped_query_population`)."""
    hi, lo = clip - m, -clip - m
    return (clip * special.ndtr(-hi) - clip * special.ndtr(lo) + m * (special.ndtr(hi) - special.ndtr(lo))
            - (_normal_pdf(hi) - _normal_pdf(lo)))


_SQRT_2PI = np.sqrt(2 * np.pi)


def _normal_pdf(x):
    """scipy.stats.norm.pdf's bits (a test checks it) without importing scipy.stats."""
    return np.exp(-x**2 / 2.0) / _SQRT_2PI


def sign_queries(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The sign query q_j = (1/n) sum_i 1[x_ij y_i > 0] (docs/METHODS.md §4a): a statistical query in [0, 1] with
    Delta_Q = 1/n, no clipping constant."""
    return np.mean(x * y[:, None] > 0, axis=0)


def sign_query_population(pop: Population) -> np.ndarray:
    """Exact population value of each sign query: x_j y = beta_j r + mu_j + N(0, 1) with r = s y = +-1 fair
    (stationary), so P[x_j y > 0] = 1/2 [Phi(mu_j + beta_j) + Phi(mu_j - beta_j)]."""
    return 0.5 * (special.ndtr(pop.mu + pop.beta) + special.ndtr(pop.mu - pop.beta))


def statistic_from_sign_query(q: np.ndarray) -> np.ndarray:
    """The sign query on the analyst's statistic scale, w = 2 (q - 1/2): under the null its SD is 1/sqrt(n) for
    independent records, as Dwork's w, so the cut 1/sqrt(n) reads |q - 1/2| > 1/(2 sqrt(n)). NaN stays NaN."""
    return 2.0 * (np.asarray(q, dtype=float) - 0.5)


#: The config key ``b`` every model with random loadings shares.
LOADING_SD = {"type": "number", "minimum": 0, "default": 0.0,
              "description": "SD of the model's random loadings: beta_j ~ N(0, b^2) (batch_chain, households), "
                             "L_cj ~ N(0, b^2) (regimes)"}


#: A data model's optional capabilities (as dp_accounting's accountants declare what they ``supports()``): name ->
#: (the methods that provide it, words for a refusal); a model has one when it overrides all its methods.
CAPABILITIES: dict[str, tuple[tuple[str, ...], str]] = {
    "exact_population": (("population_accuracies", "sign_query_population", "clipped_query_population"),
                         "exact population values"),
    "known_inflation": (("expected_inflation",), "a known variance inflation V"),
    "bdp_conversion": (("dp_level_for_bdp", "bdp_level_for_dp"), "a Bayesian-DP conversion (Zhao 2017 Lemmas 2-4)"),
    "shared_state_means": (("shared_state_means",), "the sign queries' means per shared latent state"),
    "known_clusters": (("record_clusters",), "known clusters of dependent records"),
}


@dataclasses.dataclass(frozen=True)
class DataModel(abc.ABC):
    """How the records of one replicate's train, holdout and fresh sets are drawn.

    Contract for implementers (a frozen dataclass whose fields are the model's config keys under ``model``, plus
    ``name``, the config name; registered once in :data:`adaptive_repro.simulation.registries.DATA_MODELS`). The
    core, required of every model:

    * ``PARAMETERS``: the JSON schema of each config key (type, range, ``default``, description); the config's
      validation checks a ``model`` block against its own model's keys and fills its defaults, so a new model needs
      no edit of the config schema;
    * :meth:`population` draws what the three data sets of one replicate share;
    * :meth:`sample` materializes one data set (x, y and the latent state) for the direct engine, the reference;
    * :meth:`engines` names the engines exact for this model with a given query and arm, best first (the engines
      registry holds them; "direct" is exact for every model);
    * :meth:`describe` names the model and its parameters in words (figures and claims name the data model by it),
      ``PANEL_WORDS`` its kind in a few words on two lines (figure panels), ``SHARED_STATE`` whether one latent
      state per record drives every attribute (claims word their mechanism by it); ``COLUMN_COST`` the CPU of one
      selected column on its exact engine relative to the batch chain's (the cost estimates use it; default 1).

    Optional capabilities (:data:`CAPABILITIES`, :meth:`supports`), each needed by the arms and outputs that declare
    it (the config check refuses a model without it before any job): ``exact_population`` (without it the
    "population" rows are NaN), ``known_inflation`` (the arms "for n/V", zhao-correlation), ``bdp_conversion`` (the
    Algorithm 1 arms' calibration and theory), ``shared_state_means`` (an analyst that removes the shared state's
    part of its statistics, ``remove_shared_state``), ``known_clusters`` (a cluster-robust estimate of V).
    """

    name: str
    PARAMETERS: ClassVar[dict[str, dict]] = {}
    SHARED_STATE: ClassVar[bool] = True
    PANEL_WORDS: ClassVar[str] = ""  # e.g. "batch chain:\nrecords share a batch chain"; empty: the name in words
    COLUMN_COST: ClassVar[float] = 1.0

    @classmethod
    def supports(cls, capability: str) -> bool:
        """Whether this model provides ``capability`` (a key of :data:`CAPABILITIES`): it overrides every method."""
        methods, _ = CAPABILITIES[capability]
        return all(getattr(cls, m) is not getattr(DataModel, m) for m in methods)

    def _missing(self, capability: str) -> NotImplementedError:
        return NotImplementedError(f"data model {self.name!r} has no {CAPABILITIES[capability][1]}")

    @classmethod
    def from_block(cls, block: dict, key: str = "model") -> "DataModel":
        """The model of a resolved ``model`` config block; an unknown or missing key is an error naming it."""
        check_keys(block, {f.name for f in dataclasses.fields(cls)}, key, f"for data model {block.get('name')!r}")
        return cls(**block)

    @abc.abstractmethod
    def population(self, rng: np.random.Generator, n: int, d: int, signal_attributes: int,
                   signal_scale: float) -> Population:
        """What train, holdout and fresh data of one replicate share."""

    @abc.abstractmethod
    def sample(self, rng: np.random.Generator, pop: Population) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One materialized data set: x (n x d), labels y, latent state."""

    @abc.abstractmethod
    def engines(self, query: str, unit_queries: bool) -> tuple[str, ...]:
        """Engines exact for this model when the analyst asks ``query`` queries of an arm (``unit_queries``: the
        arm answers [0, 1] statistical queries), best first."""

    def population_accuracies(self, ranked: np.ndarray, weights: np.ndarray, sizes: np.ndarray,
                              pop: Population) -> np.ndarray:
        """Exact population accuracy of each nested top-``size`` classifier."""
        raise self._missing('exact_population')

    def sign_query_population(self, pop: Population) -> np.ndarray:
        """Exact population value of every attribute's sign query."""
        raise self._missing('exact_population')

    def clipped_query_population(self, pop: Population, clip: float) -> np.ndarray:
        """Exact population value of every attribute's clipped query."""
        raise self._missing('exact_population')

    def dp_level_for_bdp(self, eps_bdp: float, n: int, d: int, method: str) -> ConversionResult:
        """The DP level eps' that implies eps_bdp-Bayesian DP for n records of d attributes of this model (Zhao 2017
        Lemmas 2-4 on the model's dependency graph; ``method``: lemma2, lemma3, lemma4)."""
        raise self._missing('bdp_conversion')

    def bdp_level_for_dp(self, eps_dp: float, n: int, d: int, method: str) -> float | None:
        """The Bayesian-DP level an eps_dp-DP mechanism has on n records of d attributes of this model."""
        raise self._missing('bdp_conversion')

    @abc.abstractmethod
    def describe(self) -> str:
        """The model and its parameters in words, for figure subtitles."""

    def privacy_chain(self, d: int):
        """The Markov chain the records' dependence runs through (a transition matrix or a
        :class:`adaptive_repro.privacy.influence.ChainInfluence`), for the theory that needs one (Theorems 1-2);
        None when the records do not form a chain."""
        return None

    def table_labels(self) -> dict:
        """The model's parameters as columns of the experiments' tables."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "name"}

    def theory_labels(self) -> dict:
        """The model's parameters as columns of the theory tables (those the privacy accounting depends on)."""
        return self.table_labels()

    def setting_words(self) -> str:
        """The model's setting in a claim's words."""
        return f"data model {self.describe()}"

    def privacy_words(self) -> str:
        """What the privacy accounting depends on, in words (after a certified level in a claim)."""
        return self.describe()

    def conversion_code(self) -> str:
        """The function that converts between DP and Bayesian DP for this model (a claim's ``code`` column)."""
        return f"{type(self).__module__}.{type(self).__qualname__}.bdp_level_for_dp"

    def expected_inflation(self, n: int) -> float:
        """The sign query's V at a null attribute (mu_j = 0) for n records, in expectation over the population's
        random loadings: what a mechanism that knows the data model can take as known (the effective sample size is
        n / V)."""
        raise self._missing('known_inflation')

    def variance_inflation(self, pop: Population) -> np.ndarray:
        """V_j = n Var(q_j) / (p_j (1 - p_j)) of every attribute's sign query on one data set (closed form)."""
        raise self._missing('known_inflation')

    def shared_state_means(self, pop: Population) -> np.ndarray:
        """P[u_ij > 0 | the record's shared latent state is g] (d x G; G = 0 if no state is shared by the attributes):
        a sign query is sum_g (n_g / n) times column g plus independent noise (docs/METHODS.md §4b)."""
        raise self._missing('shared_state_means')

    def record_clusters(self, n: int) -> np.ndarray:
        """A cluster label per record where the records fall into known clusters, dependent within and independent
        across (households): what a cluster-robust variance needs (zhao-estimated-v)."""
        raise self._missing('known_clusters')


class GroupedSignModel:
    """Mixin of a grouped data model (one latent state per record shared by all attributes: ``group_sizes`` and
    ``group_means`` feed :class:`adaptive_repro.simulation.sign_engine.ExactSignDataset`) that has no
    sufficient-statistic engine: sign queries run on the exact engine, everything else on the direct one."""

    def engines(self, query: str, unit_queries: bool) -> tuple[str, ...]:
        return ("exact", "direct") if query == "sign" else ("direct",)

    def shared_state_means(self, pop: Population) -> np.ndarray:
        return special.ndtr(self.group_means(pop))  # u_ij ~ N(m_jg, 1) in group g


@dataclasses.dataclass(frozen=True)
class BatchChain(DataModel):
    """The batch-chain model (docs/METHODS.md §4, this project's design): batch states and labels are two independent
    stationary symmetric Markov chains (stay probabilities p_s, p_y), x_ij = beta_j s_i + mu_j y_i + z_ij with
    beta_j ~ N(0, b^2) drawn once per population. p_s = p_y = 0.5 and b = 0 is Dwork et al.'s i.i.d. model."""

    PANEL_WORDS: ClassVar[str] = "batch chain:\nrecords share a batch chain"

    name: str = "batch_chain"
    PARAMETERS: ClassVar[dict[str, dict]] = {
        "p_s": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "default": 0.5,
                "description": "stay probability of the batch-state chain s"},
        "p_y": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "default": 0.5,
                "description": "stay probability of the label chain y"},
        "b": LOADING_SD,
    }
    p_s: float = PARAMETERS["p_s"]["default"]
    p_y: float = PARAMETERS["p_y"]["default"]
    b: float = PARAMETERS["b"]["default"]

    def population(self, rng, n, d, signal_attributes, signal_scale) -> Population:
        return chain_population(rng, n, d, self.p_s, self.p_y, self.b, signal_attributes, signal_scale)

    def sample(self, rng, pop):
        return sample_dataset(rng, pop)

    def engines(self, query: str, unit_queries: bool) -> tuple[str, ...]:
        """Sign queries: the exact sign-query engine (docs/METHODS.md §4a); plain means of arms that answer them as
        they are: the sufficient-statistic engine (§7); the direct engine always."""
        if query == "sign":
            return ("exact", "direct")
        return ("direct",) if unit_queries else ("fast", "direct")

    def population_accuracies(self, ranked, weights, sizes, pop):
        return population_accuracies(ranked, weights, sizes, pop)

    def group_sizes(self, rng: np.random.Generator, pop: Population) -> np.ndarray:
        """The exact sign-query engine's groups: r_i = s_i y_i = +1 first (n_plus records), then r_i = -1."""
        n_plus = sample_n_plus(rng, pop.n, chain_product_stay(pop.p_s, pop.p_y))
        return np.array([n_plus, pop.n - n_plus])

    def group_means(self, pop: Population) -> np.ndarray:
        """m[j, g] = mu_j + beta_j r_g with r = (+1, -1): the mean of u_ij = x_ij y_i in group g."""
        return pop.mu[:, None] + pop.beta[:, None] * np.array([1.0, -1.0])[None, :]

    def sign_query_population(self, pop):
        return sign_query_population(pop)

    def clipped_query_population(self, pop, clip):
        return clipped_query_population(pop, clip)

    def shared_state_means(self, pop):
        return special.ndtr(self.group_means(pop))

    def privacy_chain(self, d: int) -> np.ndarray:
        return data_model_chain(self.p_s, self.p_y)

    def theory_labels(self) -> dict:
        return {"p_s": self.p_s, "p_y": self.p_y}

    def setting_words(self) -> str:
        return f"stay probabilities p_s = {self.p_s:g}, p_y = {self.p_y:g}"

    def privacy_words(self) -> str:
        return f"p_s = {self.p_s:g}, p_y = {self.p_y:g}"

    def conversion_code(self) -> str:
        return "adaptive_repro.privacy.bdp_level_for_dp"

    def dp_level_for_bdp(self, eps_bdp, n, d, method):
        """On the 4-state chain (s_i, y_i) with matrix P_s (x) P_y (records interact only through it; d plays no
        part)."""
        return dp_level_for_bdp(eps_bdp, n, self.p_s, self.p_y, method)

    def bdp_level_for_dp(self, eps_dp, n, d, method):
        return bdp_level_for_dp(eps_dp, n, self.p_s, self.p_y, method)

    def describe(self) -> str:
        ps = (f"p_s = p_y = {self.p_s:g}" if self.p_s == self.p_y else f"p_s = {self.p_s:g}, p_y = {self.p_y:g}")
        return f"batch chain: {ps}, batch SD {self.b:g}"

    def expected_inflation(self, n: int) -> float:
        theta = (2.0 * self.p_s - 1.0) * (2.0 * self.p_y - 1.0)
        return float(sign_query_inflation(0.5, null_loading_spread(self.b), n, theta))

    def variance_inflation(self, pop: Population) -> np.ndarray:
        """Given r (a symmetric chain with lag-k correlation theta^k, theta = (2p_s - 1)(2p_y - 1)), the indicators
        1[u_ij > 0] are independent with P = p_j + a_j r_i, a_j = [Phi(mu_j + beta_j) - Phi(mu_j - beta_j)]/2: the
        covariance k records apart is a_j^2 theta^k (docs/METHODS.md §4b)."""
        plus, minus = special.ndtr(pop.mu + pop.beta), special.ndtr(pop.mu - pop.beta)
        theta = (2.0 * pop.p_s - 1.0) * (2.0 * pop.p_y - 1.0)
        return sign_query_inflation(0.5 * (plus + minus), (0.5 * (plus - minus)) ** 2, pop.n, theta)


# argument domains (foundation.domain); c, m, x, y, q (a classifier, a mean, data, answers) are not checked
check_public_functions(globals(), __name__, d=COUNT, n=COUNT, p_s=PROBABILITY, p_y=PROBABILITY, p_stay=PROBABILITY,
                       p=PROBABILITY, b=NONNEGATIVE, clip=POSITIVE,
                       signal_attributes=COUNT._replace(low=0.0), signal_scale=NONNEGATIVE, c=None, m=None, x=None,
                       y=None, q=None)
