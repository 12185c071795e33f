"""The exact sign-query engine agrees in distribution with the direct engine (docs/METHODS.md §4a and 7).

Per model, REPLICATES independent replicates of a sign-query analysis run on each engine with independent fixed
seeds: train and holdout (observed) and fresh sets; sign queries of train and holdout; the analyst keeps
attributes whose train and holdout sign queries are both beyond 1/2 +- 1/(2 sqrt(n)) on the same side (so the
holdout accuracies are conditioned on the holdout's own queries), ranks by |q_train - 1/2|, weights
sign(q_train - 1/2), and measures nested classifiers. Compared quantities: single and aggregate sign queries, the
number kept, train / holdout / fresh accuracies per k, the train - holdout gap and, for jointly exact fresh columns,
the change of fresh accuracy between sizes. Each quantity gets a two-sample Kolmogorov-Smirnov test and a
Brown-Forsythe test; with m tests over all models each runs at ALPHA / m (Bonferroni), so the overall
false-failure rate of the equivalence test is at most ALPHA = 1e-4 (KS is conservative for discrete data, which
only lowers it). The power test shows the same comparison rejects three deliberately broken engines: r i.i.d.
(chain ignored), positives placed at the start of their group instead of a uniform subset, and columns drawn
without conditioning on the sign counts already seen.
"""
import numpy as np
import pytest
from scipy import stats

from adaptive_repro.simulation import data_models, sign_engine
from adaptive_repro.simulation.registries import ENGINES

pytestmark = pytest.mark.slow

ALPHA = 1e-4
REPLICATES = 2000
K_GRID = (1, 3, 6, 12)
MODELS = {  # (n, d, p_s, p_y, b, signal attributes, signal scale)
    "iid-signal": (60, 24, 0.5, 0.5, 0.0, 4, 2.0),
    "chain": (60, 24, 0.9, 0.9, 1.0, 4, 2.0),
    "anti-chain": (61, 20, 0.95, 0.2, 1.5, 3, 2.0),
}


MODEL = data_models.BatchChain()  # the engines draw with the population's own p_s, p_y, beta


def direct_engine(rng, pop, observed):
    return ENGINES.get("direct").dataset(rng, MODEL, pop, observed)


def exact_engine(rng, pop, observed):
    return ENGINES.get("exact").dataset(rng, MODEL, pop, observed)


def population(model):
    n, d, p_s, p_y, b, signal, scale = MODELS[model]
    return data_models.chain_population(np.random.default_rng(99), n, d, p_s, p_y, b, signal, scale)


def exact_fresh_columns(rng, pop, observed=True):
    return sign_engine.ExactSignDataset(rng, pop, observed=False, fresh_accuracy="columns")


def replicate(make, pop, seed):
    """One replicate's quantities on the engine ``make(rng, pop, observed)``."""
    root = np.random.SeedSequence(seed)
    rngs = [np.random.default_rng(s) for s in root.spawn(5)]
    train, holdout = make(rngs[0], pop, True), make(rngs[1], pop, True)
    fresh = make(rngs[2], pop, False)
    fresh_cols = fresh if make is direct_engine else exact_fresh_columns(rngs[3], pop)
    q_tr, q_ho = train.sign_queries(), holdout.sign_queries()
    cut = 0.5 / np.sqrt(pop.n)
    keep = ((q_tr - 0.5 > cut) & (q_ho - 0.5 > cut)) | ((q_tr - 0.5 < -cut) & (q_ho - 0.5 < -cut))
    kept = np.flatnonzero(keep)
    ranked = kept[np.argsort(-np.abs(q_tr[kept] - 0.5), kind="stable")]
    weights = np.sign(q_tr[ranked] - 0.5)
    sizes = np.minimum(K_GRID, len(ranked))
    acc = {name: ds.accuracies(ranked, weights, sizes, rngs[4])
           for name, ds in (("train", train), ("holdout", holdout), ("fresh", fresh), ("fresh-cols", fresh_cols))}
    out = {"q_train[0]": q_tr[0], "q_train[-1]": q_tr[-1], "q_holdout[1]": q_ho[1], "mean q_train": q_tr.mean(),
           "max |q_train - 1/2|": np.abs(q_tr - 0.5).max(), "kept": len(ranked)}
    for i, k in enumerate(K_GRID):
        for name, values in acc.items():
            out[f"{name} k={k}"] = values[i]
        out[f"gap k={k}"] = acc["train"][i] - acc["holdout"][i]
        if i:
            out[f"fresh-cols change k={K_GRID[i - 1]}->{k}"] = acc["fresh-cols"][i] - acc["fresh-cols"][i - 1]
    return out


def run(make, model, seed):
    pop = population(model)
    rows = [replicate(make, pop, [seed, rep]) for rep in range(REPLICATES)]
    return {key: np.array([row[key] for row in rows]) for key in rows[0]}


def pvalues(a, b):
    out = {}
    for key in a:
        if np.ptp(a[key]) == 0 and np.ptp(b[key]) == 0:
            out[f"constant {key}"] = 1.0 if a[key][0] == b[key][0] else 0.0
            continue
        out[f"KS {key}"] = stats.ks_2samp(a[key], b[key], method="asymp").pvalue
        out[f"Brown-Forsythe {key}"] = stats.levene(a[key], b[key], center="median").pvalue
    return out


@pytest.fixture(scope="module")
def direct():
    return {model: run(direct_engine, model, 1) for model in MODELS}


def test_exact_and_direct_engines_agree(direct):
    results = {model: pvalues(direct[model], run(exact_engine, model, 2)) for model in MODELS}
    level = ALPHA / sum(len(p) for p in results.values())
    worst = {model: min(p, key=p.get) for model, p in results.items()}
    summary = {model: f"{name}: p = {results[model][name]:.2e}" for model, name in worst.items()}
    print(f"level {level:.1e}; smallest p per model: {summary}")
    assert all(results[model][name] > level for model, name in worst.items()), summary


class PositivesFirst(sign_engine.ExactSignDataset):
    """Broken: each column's positives are the first K_jg records of their group, not a uniform subset."""

    def centered_block(self, columns):
        z = super().centered_block(columns)
        return np.hstack([-np.sort(-z[:, :self.n_plus], axis=1), -np.sort(-z[:, self.n_plus:], axis=1)])


class UnconditionedColumns(sign_engine.ExactSignDataset):
    """Broken: columns drawn i.i.d. N(m_jg, 1), ignoring the sign counts the analyst has already seen."""

    def centered_block(self, columns):
        columns = np.atleast_1d(columns)
        return np.random.default_rng([self.n_plus, *columns.tolist()]).standard_normal((columns.size, self.pop.n))


@pytest.mark.parametrize("broken", ["r iid", "positives first", "unconditioned columns"])
def test_comparison_catches_a_broken_engine(direct, broken, monkeypatch):
    make = exact_engine
    if broken == "r iid":
        monkeypatch.setattr(data_models, "chain_product_stay", lambda p_s, p_y: 0.5)
    else:
        make = PositivesFirst if broken == "positives first" else UnconditionedColumns
    results = pvalues(direct["chain"], run(make, "chain", 3))
    level = ALPHA / (len(results) * len(MODELS))
    worst = min(results, key=results.get)
    print(f"{broken}: {worst}: p = {results[worst]:.2e} (level {level:.1e})")
    assert results[worst] <= level, f"no power against {broken}: smallest p {results[worst]:.2e}"
