"""Replicate runner for the linear-threshold-classifier experiments (Dwork2015 protocol, docs/METHODS.md §3-4).

One replicate: draw the population, the train / holdout / fresh data sets, then for every mechanism arm let the
analyst select attributes through the mechanism and measure its nested top-k classifiers. Every random stream is
named by (experiment, replicate, purpose), so results do not depend on how replicates are chunked into jobs.

Query "mean" (Dwork2015, zhao-fig2): the analyst's statistic is w_j = mean of x*y, run as before. Query "sign"
(docs/METHODS.md §4a): every arm sees the sign query q_j on the scale w_j = 2 (q_j - 1/2), all arms on the same data
sets (exact sign-query engine). Algorithm 1 arms: the analyst asks only candidate attributes (|w_train| > cut) most
promising first, then one accuracy query per distinct classifier; answers are clamped to [0, 1].
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from adaptive_repro import seeds
from adaptive_repro.config import fill_schema_defaults, load_schema
from adaptive_repro.simulation import analyst
from adaptive_repro.simulation import data_models
from adaptive_repro.simulation import engines
from adaptive_repro.simulation import mechanisms
from adaptive_repro.simulation import zhao_calibration

#: Defaults of an experiment block (signal, Thresholdout and selection constants, query): the schema's, the one place.
_SCHEMA = load_schema("config")
_DEFAULTS = fill_schema_defaults({}, _SCHEMA["$defs"]["experiment"], root=_SCHEMA)

DATASETS = ("train", "holdout", "fresh", "population")
RECORD_COLUMNS = ("experiment", "replicate", "mechanism", "engine", "k", "n_selected", "n_kept", "dataset",
                  "accuracy", "budget_used")


@dataclasses.dataclass(frozen=True)
class ExperimentSpec:
    """One experiment's config block (``experiments.<ID>``), with defaults filled by the schema."""

    name: str
    n: int
    d: int
    replicates: int
    k_grid: tuple[int, ...]
    mechanisms: tuple[str, ...]
    signal_attributes: int = _DEFAULTS["signal_attributes"]
    signal_scale: float = _DEFAULTS["signal_scale"]
    threshold_scale: float = _DEFAULTS["threshold_scale"]
    noise_scale: float = _DEFAULTS["noise_scale"]
    cut_scale: float = _DEFAULTS["cut_scale"]
    engine: str = "auto"
    # chain data model (docs/METHODS.md §4); p_s = p_y = 0.5 and b = 0 is Dwork's i.i.d. model
    p_s: float = 0.5
    p_y: float = 0.5
    b: float = 0.0
    alg1: tuple = ()  # Algorithm 1 settings as sorted (key, value) pairs (zhao_calibration.DEFAULT_ALG1 keys)
    # the analyst's per-attribute query: "mean" (Dwork's w = mean of x*y; Algorithm 1 arms answer the clipped
    # query of docs/METHODS.md §4) or "sign" (the sign query of docs/METHODS.md §4a, for every arm)
    query: str = _DEFAULTS["query"]

    @classmethod
    def from_config(cls, name: str, block: dict, engine: str = "auto") -> "ExperimentSpec":
        fields = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in block.items() if k in fields}
        kwargs["k_grid"] = tuple(block["k_grid"])
        kwargs["mechanisms"] = tuple(block["mechanisms"])
        kwargs.update(block.get("model") or {})
        if kwargs.get("query") not in (None, "mean", "sign"):
            raise ValueError(f"experiment {name!r}: config key 'query': value {kwargs['query']!r} not allowed; "
                             "allowed: mean, sign")
        kwargs["alg1"] = tuple(sorted((block.get("alg1") or {}).items()))
        return cls(name=name, engine=engine, **kwargs)

    @property
    def alg1_block(self) -> dict:
        return {"alg1": dict(self.alg1)}

    def alg1_calibrations(self) -> dict[str, zhao_calibration.Alg1Calibration]:
        """Algorithm 1's calibrated parameters for every zhao_alg1_* arm (deterministic, computed per call)."""
        return {m: zhao_calibration.calibrate(m, self.n, self.d, self.k_grid, self.p_s, self.p_y, self.alg1_block)
                for m in self.mechanisms if m.startswith("zhao_alg1_")}

    @property
    def thresholdout_threshold(self) -> float:
        """Thresholdout's T = threshold_scale/sqrt(n) (the Dwork et al. 2015 script: 4/sqrt(n), 0.04 at n = 10,000),
        also the tolerance of the claims about Thresholdout."""
        return self.threshold_scale / np.sqrt(self.n)

    @property
    def cut(self) -> float:
        """Selection cut 1/sqrt(n) (docs/METHODS.md §3 step 2; the script's 0.01 at n = 10,000)."""
        return self.cut_scale / np.sqrt(self.n)

    def arm_engines(self) -> dict[str, str]:
        """The engine that runs each mechanism arm. With sign queries every arm runs on the same data sets of one
        engine: the exact sign-query engine where available ("auto"), else the direct one."""
        if self.query == "sign":
            return {m: sign_engine(self.engine) for m in self.mechanisms}
        return {m: engines.resolve_engine(self.engine, m) for m in self.mechanisms}


def sign_engine(requested: str) -> str:
    """Engine for sign-query experiments: 'auto' -> 'exact' (docs/METHODS.md §4a) if this build has it, else 'direct'."""
    exact_available = "exact" in getattr(engines, "ENGINES", ())
    if requested == "auto":
        return "exact" if exact_available else "direct"
    if requested == "direct" or (requested == "exact" and exact_available):
        return requested
    raise ValueError(f"config key 'engine': value {requested!r} cannot run sign queries; allowed: auto, direct"
                     + (", exact" if exact_available else ""))


def population_for(spec: ExperimentSpec, seed: int, replicate: int) -> data_models.Population:
    """The replicate's population: batch loadings beta ~ N(0, b^2) drawn once per replicate (chain model)."""
    return data_models.chain_population(seeds.rng(seed, spec.name, replicate, "population"), spec.n, spec.d,
                                        spec.p_s, spec.p_y, spec.b, spec.signal_attributes, spec.signal_scale)


DIAGNOSTIC_COLUMNS = ("experiment", "replicate", "mechanism", "queries", "over_events", "bottoms",
                      "attribute_queries", "attribute_answered", "attribute_over_events", "accuracy_queries",
                      "accuracy_answered", "z_final", "max_error", "thm2_event")


def theorem2_diagnostics(answers, q_train, q_pop, tau: float, c: float, budget: int) -> dict:
    """Zhao 2017 Theorem 2's event over the query sequence: exists i with Z_i < B and |a_i - Q_i(P)| >= tau, where
    Z_i = |{j <= i : |Q_j(D) - Q_j(P)| >= c tau}|. Bottom answers (NaN) are not errors (no estimate was given)."""
    answers, q_train, q_pop = map(np.asarray, (answers, q_train, q_pop))
    z = np.cumsum(np.abs(q_train - q_pop) >= c * tau)
    error = np.abs(answers - q_pop)
    answered = ~np.isnan(answers)
    event = bool(np.any(answered & (z < budget) & (error >= tau)))
    return {"queries": len(answers), "z_final": int(z[-1]) if len(z) else 0,
            "max_error": float(np.max(error[answered])) if answered.any() else np.nan, "thm2_event": event}


def _query_values(spec: ExperimentSpec, dataset, alg1: dict) -> tuple[np.ndarray, np.ndarray]:
    """(statistic w on the analyst's scale, [0, 1] statistical query q) of one data set for every attribute.

    query "sign": q = sign query, w = 2 (q - 1/2) (docs/METHODS.md §4a); query "mean": w = Dwork's mean of x*y and q
    the clipped query of docs/METHODS.md §4 (only Algorithm 1 arms use q). Cached on the data set object."""
    cache = dataset.__dict__.setdefault("_query_cache", {})
    key = (spec.query, alg1["clip"])
    if key not in cache:
        if spec.query == "sign":
            q = dataset.sign_queries() if hasattr(dataset, "sign_queries") else data_models.sign_queries(
                dataset.x, dataset.y)
            cache[key] = (data_models.statistic_from_sign_query(q), q)
        else:
            cache[key] = (dataset.statistics(), None)
    return cache[key]


def query_population(spec: ExperimentSpec, pop, alg1: dict) -> np.ndarray:
    """Exact population value of every attribute query Algorithm 1 answers."""
    if spec.query == "sign":
        return data_models.sign_query_population(pop)
    return data_models.clipped_query_population(pop, alg1["clip"])


def run_alg1_arm(mech, spec: ExperimentSpec, sets: dict, alg1: dict, w_train: np.ndarray):
    """Attribute phase of an Algorithm 1 arm (docs/METHODS.md §4a): the analyst asks only the candidate attributes
    (|w_train| > cut), most promising first; answers are clamped to [0, 1] (post-processing). Returns (reported w
    for every attribute, NaN where not asked or bottom; asked indices; q_train, clamped answers of the asked)."""
    asked = analyst.candidate_attributes(w_train, spec.cut)
    if spec.query == "sign":
        q_train = _query_values(spec, sets["train"], alg1)[1][asked]
        q_holdout = _query_values(spec, sets["holdout"], alg1)[1][asked]
    else:
        q_train = sets["train"].clipped_queries(alg1["clip"])[asked]
        q_holdout = sets["holdout"].clipped_queries(alg1["clip"])[asked]
    answers = mechanisms.clamp_unit(mech.answer_statistics(q_train, q_holdout))
    reported = np.full(spec.d, np.nan)
    reported[asked] = (data_models.statistic_from_sign_query(answers) if spec.query == "sign"
                       else data_models.statistic_from_query(answers, alg1["clip"]))
    return reported, asked, q_train, answers


def run_replicate(spec: ExperimentSpec, seed: int, replicate: int,
                  calibrations: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Records of one replicate (per arm, per k, per data set: train, holdout as reported, fresh, population) and
    per-arm diagnostics of Algorithm 1 (budget spent, bottoms, answered fractions, Theorem 2's event)."""
    calibrations = spec.alg1_calibrations() if calibrations is None else calibrations
    alg1 = zhao_calibration.alg1_settings(spec.alg1_block)
    pop = population_for(spec, seed, replicate)
    k_grid = np.asarray(spec.k_grid)
    arm_engines = spec.arm_engines()
    datasets: dict[str, dict[str, object]] = {}
    for engine in sorted(set(arm_engines.values())):
        datasets[engine] = {
            name: engines.make_dataset(engine, seeds.rng(seed, spec.name, replicate, "data", engine, name), pop,
                                       observed=(name != "fresh"))
            for name in ("train", "holdout", "fresh")
        }
    rows, diagnostics = [], []
    params = dataclasses.asdict(spec) | {"alg1_calibrated": {
        arm: {"sigma": cal.sigma, "threshold": cal.threshold, "budget": cal.budget}
        for arm, cal in calibrations.items()}}
    for mech_name in spec.mechanisms:
        if mech_name in calibrations and not calibrations[mech_name].feasible:
            continue  # no sigma gives the target: the arm is reported as infeasible by the theory table
        engine = arm_engines[mech_name]
        sets = datasets[engine]
        w_train = _query_values(spec, sets["train"], alg1)[0]
        mech = mechanisms.make_mechanism(mech_name, seeds.rng(seed, spec.name, replicate, "mechanism", mech_name),
                                         spec.n, params)
        is_alg1 = isinstance(mech, mechanisms.ZhaoAlgorithm1)
        if is_alg1:
            reported, asked, q_train, q_answers = run_alg1_arm(mech, spec, sets, alg1, w_train)
            attr_over = mech.over_events
        else:
            reported = mech.answer_statistics(w_train, _query_values(spec, sets["holdout"], alg1)[0])
        ranked = analyst.select_attributes(w_train, reported, spec.cut)  # NaN ("bottom") is never kept
        weights = analyst.classifier_signs(w_train, ranked)
        sizes = analyst.selected_sizes(len(ranked), k_grid)
        acc = {name: sets[name].accuracies(ranked, weights, sizes,
                                           seeds.rng(seed, spec.name, replicate, "scores", mech_name, name))
               for name in ("train", "holdout", "fresh")}
        acc["population"] = data_models.population_accuracies(ranked, weights, sizes, pop)
        budget_used = np.zeros(len(sizes))
        if is_alg1:  # one accuracy query per distinct classifier, in increasing k; answers clamped to [0, 1]
            distinct, index = analyst.distinct_classifiers(sizes)
            first = np.searchsorted(sizes, distinct)  # grid position of each distinct classifier's first k
            answers, spent = np.empty(len(distinct)), np.empty(len(distinct))
            for i, pos in enumerate(first):
                answers[i] = mechanisms.clamp_unit(mech.answer_accuracy(acc["train"][pos], acc["holdout"][pos]))
                spent[i] = mech.over_events
            reported_acc = np.where(index >= 0, answers[np.maximum(index, 0)], analyst.EMPTY_CLASSIFIER_ACCURACY)
            budget_used = np.where(index >= 0, spent[np.maximum(index, 0)], attr_over)
        else:
            reported_acc = np.array([
                analyst.EMPTY_CLASSIFIER_ACCURACY if size == 0 else mech.answer_accuracy(a_tr, a_ho)
                for size, a_tr, a_ho in zip(sizes, acc["train"], acc["holdout"])])
        values = {"train": acc["train"], "holdout": reported_acc, "fresh": acc["fresh"],
                  "population": acc["population"]}
        for dataset in DATASETS:
            for k, size, value, used in zip(k_grid, sizes, values[dataset], budget_used):
                rows.append((spec.name, replicate, mech_name, engine, int(k), int(size), len(ranked), dataset,
                             float(value), float(used)))
        if is_alg1:
            diag = theorem2_diagnostics(
                np.concatenate([q_answers, answers]),
                np.concatenate([q_train, acc["train"][first]]),
                np.concatenate([query_population(spec, pop, alg1)[asked], acc["population"][first]]),
                alg1["tau"], alg1["c"], alg1["budget"])
            diagnostics.append({"experiment": spec.name, "replicate": replicate, "mechanism": mech_name,
                                "over_events": mech.over_events, "bottoms": mech.bottoms,
                                "attribute_queries": len(asked),
                                "attribute_answered": int(np.sum(~np.isnan(q_answers))),
                                "attribute_over_events": attr_over,
                                "accuracy_queries": len(distinct),
                                "accuracy_answered": int(np.sum(~np.isnan(answers))), **diag})
    return (pd.DataFrame(rows, columns=list(RECORD_COLUMNS)),
            pd.DataFrame(diagnostics, columns=list(DIAGNOSTIC_COLUMNS)))


def run_replicates(spec: ExperimentSpec, seed: int, replicates: Iterable[int],
                   progress: Callable[[int, int], None] | None = None,
                   with_diagnostics: bool = False):
    """Records of several replicates (and Algorithm 1 diagnostics if asked); ``progress(done, total)`` is called
    after each replicate."""
    replicates = list(replicates)
    if not isinstance(spec, ExperimentSpec):  # e.g. the frontier: its own replicate runner, same chunk contract
        return spec.run_replicates(seed, replicates, progress=progress, with_diagnostics=with_diagnostics)
    calibrations = spec.alg1_calibrations()
    frames, diags = [], []
    for i, rep in enumerate(replicates, start=1):
        records, diagnostics = run_replicate(spec, seed, rep, calibrations)
        frames.append(records)
        diags.append(diagnostics)
        if progress is not None:
            progress(i, len(replicates))
    records = pd.concat(frames, ignore_index=True)
    if with_diagnostics:
        return records, pd.concat(diags, ignore_index=True)
    return records


def chunk_replicates(replicates: int, per_job: int) -> list[range]:
    """Replicate indices split into jobs of ``per_job`` (the last one may be shorter)."""
    return [range(start, min(start + per_job, replicates)) for start in range(0, replicates, per_job)]


SWEEP_SEPARATOR = "@"
#: Sweep grids: config key -> (point-name key, where the value goes in the point's block)
SWEEP_GRIDS = {"p_grid": "p", "b_grid": "b", "n_grid": "n"}


def sweep_point_name(output_id: str, **point) -> str:
    """Name (and random-stream key) of one sweep point, e.g. ``zhao-sweep@p=0.75,b=0.1``."""
    return output_id + SWEEP_SEPARATOR + ",".join(f"{k}={v:g}" for k, v in point.items())


def _sweep_points(name: str, block: dict, engine: str) -> dict[str, ExperimentSpec]:
    """One experiment per point of the product of the block's grids (p -> p_s = p_y = p, b -> model b, n)."""
    import itertools

    grids = [(key, block[grid]) for grid, key in SWEEP_GRIDS.items() if grid in block]
    base = {k: v for k, v in block.items() if k not in SWEEP_GRIDS}
    specs = {}
    for values in itertools.product(*(vals for _, vals in grids)):
        point = dict(zip((key for key, _ in grids), values))
        model = dict(block.get("model") or {})
        if "p" in point:
            model |= {"p_s": point["p"], "p_y": point["p"]}
        if "b" in point:
            model |= {"b": point["b"]}
        cfg = base | {"model": model} | ({"n": point["n"]} if "n" in point else {})
        pname = sweep_point_name(name, **point)
        specs[pname] = ExperimentSpec.from_config(pname, cfg, engine)
    return specs


def expand_experiments(config: dict) -> dict:
    """Every simulated experiment of the config, keyed by its name: a sweep (a block with ``p_grid`` / ``b_grid``)
    becomes one experiment per grid point; the frontier (a block with ``eps_grid``) is one
    :class:`adaptive_repro.simulation.frontier.FrontierSpec`."""
    from adaptive_repro.simulation import frontier

    specs = {}
    engine = config.get("engine", "auto")
    for name, block in config.get("experiments", {}).items():
        if "eps_grid" in block:
            specs[name] = frontier.FrontierSpec.from_config(name, block)
        elif "p_grid" in block or "b_grid" in block:
            specs |= _sweep_points(name, block, engine)
        else:
            specs[name] = ExperimentSpec.from_config(name, block, engine)
    return specs


def output_of(experiment_name: str) -> str:
    """The catalogue output an experiment (or sweep point) belongs to."""
    return experiment_name.split(SWEEP_SEPARATOR)[0]
