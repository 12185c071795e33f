"""The validated config becomes experiment specs, once (the workflow calls :func:`expand_experiments` when it plans a
run): plug-in names resolved to registered objects, each arm's engine chosen, sweeps expanded to one spec per grid
point. Nothing here fills a default (the schema did): a key the spec has no field for, or a field no key fills, is
an error naming it, so no config value can vanish between the schema and the simulation."""

from __future__ import annotations

import dataclasses
import itertools

from adaptive_repro.foundation.plugins import check_keys
from adaptive_repro.pipeline import catalogue
from adaptive_repro.simulation import frontier
from adaptive_repro.simulation.correlation import CorrelationFrontierSpec, CorrelationSpec
from adaptive_repro.simulation.estimated_v import EstimatedVSpec
from adaptive_repro.simulation.experiments import ExperimentSpec
from adaptive_repro.simulation.registries import ARMS, CALIBRATIONS, DATA_MODELS, ENGINES, QUERIES
from adaptive_repro.simulation.zhao_calibration import Alg1Settings

SWEEP_SEPARATOR = "@"
#: Sweep grids: config key -> (point-name key); p sets the model's p_s = p_y, b its b, n the records
SWEEP_GRIDS = {"p_grid": "p", "b_grid": "b", "n_grid": "n"}
#: Keys of an experiment block that are not plain ExperimentSpec fields (resolved to objects here).
_RESOLVED = {"mechanisms", "model", "query", "alg1", "arms"}


def experiment_spec(name: str, block: dict, engine: str) -> ExperimentSpec:
    """The spec of one resolved experiment block (``engine``: the config's top-level engine request)."""
    where = f"experiments.{name}"
    model = DATA_MODELS.get(block["model"]["name"], f"{where}.model.name").from_block(dict(block["model"]),
                                                                                       f"{where}.model")
    query = QUERIES.get(block["query"], f"{where}.query")
    check_capabilities(model, block["mechanisms"], [ARMS.get(m, f"{where}.mechanisms") for m in block["mechanisms"]],
                       f"{where}.mechanisms")
    arms = with_parameters(tuple(ARMS.get(m, f"{where}.mechanisms") for m in block["mechanisms"]), block["arms"],
                           f"{where}.arms")
    plain = {f.name for f in dataclasses.fields(ExperimentSpec)} - {"name", "arms", "arm_engine_objects", "model",
                                                                      "query", "alg1", "engine"}
    check_keys(block, plain | _RESOLVED, where)
    values = {key: block[key] for key in plain}
    values["k_grid"] = tuple(block["k_grid"])
    if values["remove_shared_state"]:
        check_shared_state_removal(where, query.name, [(model, f"{where}.remove_shared_state")])
    return ExperimentSpec(name=name, arms=arms, arm_engine_objects=arm_engines(arms, model, query, engine, where),
                          model=model, query=query, alg1=Alg1Settings.from_block(block["alg1"], f"{where}.alg1"),
                          engine=engine, **values)


def check_shared_state_removal(where: str, query: str, models: list) -> None:
    """Refuse ``remove_shared_state: true`` in one line where it cannot work: queries other than sign queries, or a
    data model (with the config key that names it) without shared-state means."""
    if query != "sign":
        raise ValueError(f"config key '{where}.remove_shared_state': value true needs sign queries (query: sign); "
                         f"this experiment asks {query!r} queries")
    for model, key in models:
        check_capabilities(model, [], [], key, frozenset({"shared_state_means"}))


def with_parameters(arms: tuple, blocks: dict, where: str) -> tuple:
    """The arms with the parameters their ``arms.<name>`` blocks set (the schema checked each key's type and range).
    A block for an arm the experiment does not run has no effect (as a theory block of an output not built): taking
    an arm out of ``mechanisms`` needs no other edit, and the spec, so its digest, holds only the arms it runs."""
    out = []
    for arm in arms:
        block = blocks.get(arm.name) or {}
        unknown = sorted(set(block) - set(arm.PARAMETERS))
        if unknown:  # (the schema refuses them first; a spec built without the schema, in tests, meets this)
            raise ValueError(f"config key '{where}.{arm.name}': unknown keys {unknown}; allowed: "
                             f"{sorted(arm.PARAMETERS) or 'none'}")
        out.append(dataclasses.replace(arm, **block) if block else arm)
    return tuple(out)


def check_capabilities(model, names, plugins, key: str, output_needs: frozenset[str] = frozenset()) -> None:
    """Refuse, in one line naming the config key, a data model without a capability that a plug-in (an arm or a
    calibration) or the output itself needs (:data:`~adaptive_repro.simulation.data_models.CAPABILITIES`)."""
    from adaptive_repro.simulation.data_models import CAPABILITIES

    for name, plugin in [*zip(names, plugins), ("this output", None)]:
        needed = plugin.needs() if plugin is not None else output_needs
        missing = sorted(c for c in needed if not model.supports(c))
        if missing:
            words = " and ".join(CAPABILITIES[c][1] for c in missing)
            raise ValueError(f"config key '{key}': {name} needs {words}; data model {model.name!r} has none")


def arm_engines(arms, model, query, requested: str, where: str) -> tuple:
    """The engine of each arm: the requested one if it is exact for the data model, query and arm; for ``auto`` the
    model's best exact engine. With sign queries every arm runs on the same engine (the same data sets)."""
    options = {arm.name: model.engines(query.name, arm.unit_queries) for arm in arms}
    if any(arm.needs_records for arm in arms):  # records in order: the direct engine only, for every arm
        options = {name: tuple(e for e in opts if e == "direct") for name, opts in options.items()}
    if requested == "auto":
        if query.name == "sign":
            shared = [e for e in options[arms[0].name] if all(e in opts for opts in options.values())]
            names = {arm.name: shared[0] for arm in arms}
        else:
            names = {arm: opts[0] for arm, opts in options.items()}
    else:
        bad = [arm for arm, opts in options.items() if requested not in opts]
        if bad:
            allowed = sorted({"auto"} | set.intersection(*(set(o) for o in options.values())))
            raise ValueError(f"config key 'engine': value {requested!r} is not exact for {where}.mechanisms {bad} "
                             f"with {query.name} queries on the {model.name} data model; allowed: "
                             f"{', '.join(allowed)}")
        names = {arm.name: requested for arm in arms}
    return tuple(ENGINES.get(names[arm.name], "engine") for arm in arms)


def attribute_phase_calibrations(names, where: str) -> tuple:
    """The calibrations an attribute-phase output (zhao-frontier, zhao-correlation-frontier) runs, resolved; one that
    sets its threshold from each session's training records (``NEEDS_RECORDS``) is refused in one line: these
    outputs draw sign queries, not records."""
    calibrations = tuple(CALIBRATIONS.get(c, f"{where}.calibrations") for c in names)
    needing = [c.name for c in calibrations if c.NEEDS_RECORDS]
    if needing:
        allowed = [c.name for c in CALIBRATIONS if not c.NEEDS_RECORDS]
        raise ValueError(f"config key '{where}.calibrations': {', '.join(needing)} sets its threshold from each "
                         f"session's training records, which this output does not draw (it simulates sign queries "
                         f"only); allowed: {', '.join(allowed)}")
    return calibrations


def frontier_spec(name: str, block: dict) -> frontier.FrontierSpec:
    """The spec of the resolved ``experiments.zhao-frontier`` block (calibration names resolved to objects)."""
    where = f"experiments.{name}"
    check_keys(block, {f.name for f in dataclasses.fields(frontier.FrontierSpec)} - {"name"}, where)
    values = {k: (tuple(v) if isinstance(v, list) else v) for k, v in block.items()}
    values["calibrations"] = attribute_phase_calibrations(block["calibrations"], where)
    return frontier.FrontierSpec(name=name, **values)


def correlation_point_name(output_id: str, model: dict) -> str:
    """Name (and random-stream key) of one correlation point, e.g. ``zhao-correlation@households:b=3,size=10``."""
    params = ",".join(f"{k}={model[k]:g}" for k in sorted(model) if k != "name")
    return f"{output_id}{SWEEP_SEPARATOR}{model['name']}:{params}"


def correlation_spec(name: str, block: dict, engine: str) -> CorrelationSpec:
    """The resolved ``experiments.zhao-correlation`` block: one experiment spec per entry of ``structures`` (a model
    block each), the other settings shared."""
    base = {k: v for k, v in block.items() if k != "structures"}
    if base.get("remove_shared_state"):  # refused under the block's own keys, not a point's name
        where = f"experiments.{name}"
        check_shared_state_removal(where, base["query"], [
            (DATA_MODELS.get(m["name"], f"{where}.structures[{i}].name"), f"{where}.structures[{i}]")
            for i, m in enumerate(block["structures"])])
    where = f"experiments.{name}"
    arms = [ARMS.get(m, f"{where}.mechanisms") for m in base["mechanisms"]]
    for i, structure in enumerate(block["structures"]):  # under the block's own keys, not a point's name
        key = f"{where}.structures[{i}]"
        model = DATA_MODELS.get(structure["name"], f"{key}.name").from_block(dict(structure), key)
        # its points are indexed by the data model's V; each arm's needs are the model's to meet
        check_capabilities(model, base["mechanisms"], arms, key, frozenset({"known_inflation"}))
    points = tuple(experiment_spec(correlation_point_name(name, model), base | {"model": model}, engine)
                   for model in block["structures"])
    names = [p.name for p in points]
    if len(set(names)) != len(names):
        raise ValueError(f"config key 'experiments.{name}.structures': the same model block twice ({names})")
    return CorrelationSpec(name=name, replicates=block["replicates"], points=points)


def correlation_frontier_spec(name: str, block: dict) -> CorrelationFrontierSpec:
    """The resolved ``experiments.zhao-correlation-frontier`` block: one point per entry of ``structures``, each with
    its data model's exact sign-query engine."""
    where = f"experiments.{name}"
    check_keys(block, {"replicates", "n_grid", "d", "cut_scale", "calibrations", "alg1", "structures"}, where)
    points = []
    for i, block_model in enumerate(block["structures"]):
        model = DATA_MODELS.get(block_model["name"], f"{where}.structures[{i}].name").from_block(
            dict(block_model), f"{where}.structures[{i}]")
        calibrations = attribute_phase_calibrations(block["calibrations"], where)
        check_capabilities(model, block["calibrations"], calibrations, f"{where}.structures[{i}]",
                           frozenset({"known_inflation", "exact_population", "bdp_conversion"}))
        engine = ENGINES.get(model.engines("sign", True)[0], "engine")
        points.append((correlation_point_name(name, block_model), model, engine))
    names = [p[0] for p in points]
    if len(set(names)) != len(names):
        raise ValueError(f"config key '{where}.structures': the same model block twice ({names})")
    return CorrelationFrontierSpec(
        name=name, replicates=block["replicates"], n_grid=tuple(block["n_grid"]), d=block["d"],
        cut_scale=block["cut_scale"],
        calibrations=attribute_phase_calibrations(block["calibrations"], where),
        alg1=Alg1Settings.from_block(block["alg1"], f"{where}.alg1"), points=tuple(points))


def estimated_v_spec(name: str, block: dict) -> EstimatedVSpec:
    """The resolved ``experiments.zhao-estimated-v`` block: one point per entry of ``structures``."""
    where = f"experiments.{name}"
    check_keys(block, {"replicates", "n_grid", "d", "cut_scale", "alg1", "structures"}, where)
    points = []
    for i, block_model in enumerate(block["structures"]):
        model = DATA_MODELS.get(block_model["name"], f"{where}.structures[{i}].name").from_block(
            dict(block_model), f"{where}.structures[{i}]")
        check_capabilities(model, [], [], f"{where}.structures[{i}]", frozenset({"known_inflation"}))
        points.append((correlation_point_name(name, block_model), model))
    names = [p[0] for p in points]
    if len(set(names)) != len(names):
        raise ValueError(f"config key '{where}.structures': the same model block twice ({names})")
    return EstimatedVSpec(name=name, replicates=block["replicates"], n_grid=tuple(block["n_grid"]), d=block["d"],
                          cut_scale=block["cut_scale"], alg1=Alg1Settings.from_block(block["alg1"], f"{where}.alg1"),
                          points=tuple(points))


def sweep_point_name(output_id: str, **point) -> str:
    """Name (and random-stream key) of one sweep point, e.g. ``zhao-sweep@p=0.75,b=0.1``."""
    return output_id + SWEEP_SEPARATOR + ",".join(f"{k}={v:g}" for k, v in point.items())


def _sweep_points(name: str, block: dict, engine: str) -> dict[str, ExperimentSpec]:
    """One experiment per point of the product of the block's grids (p -> p_s = p_y = p, b -> model b, n)."""
    model_class = DATA_MODELS.get(block["model"]["name"], f"experiments.{name}.model.name")
    needs = {"p_grid": {"p_s", "p_y"}, "b_grid": {"b"}}
    for grid, keys in needs.items():
        if grid in block and not keys <= set(model_class.PARAMETERS):
            with_keys = [m.name for m in DATA_MODELS if keys <= set(m.PARAMETERS)]
            raise ValueError(f"config key 'experiments.{name}.model.name': value {model_class.name!r} is not allowed "
                             f"with {grid} (it sets {sorted(keys)}); allowed: {', '.join(with_keys)}")
    grids = [(key, block[grid]) for grid, key in SWEEP_GRIDS.items() if grid in block]
    base = {k: v for k, v in block.items() if k not in SWEEP_GRIDS}
    specs = {}
    for values in itertools.product(*(vals for _, vals in grids)):
        point = dict(zip((key for key, _ in grids), values))
        model = dict(block["model"])
        if "p" in point:
            model |= {"p_s": point["p"], "p_y": point["p"]}
        if "b" in point:
            model |= {"b": point["b"]}
        cfg = base | {"model": model} | ({"n": point["n"]} if "n" in point else {})
        pname = sweep_point_name(name, **point)
        specs[pname] = experiment_spec(pname, cfg, engine)
    return specs


def expand_experiments(config: dict) -> dict:
    """Every simulated experiment of the resolved config, keyed by its name, built as its catalogue entry's spec
    kind says: a sweep becomes one experiment per grid point; the frontier is one
    :class:`adaptive_repro.simulation.frontier.FrontierSpec`."""
    specs = {}
    engine = config["engine"]
    for name, block in config.get("experiments", {}).items():
        kind = catalogue.get(name).spec_kind  # the catalogue owns each output's spec kind
        if kind == "sweep":
            specs |= _sweep_points(name, block, engine)
        else:
            specs[name] = spec_of_kind(kind, name, block, engine)
    return specs


def spec_of_kind(kind: str, name: str, block: dict, engine: str):
    """The spec of one resolved block of a given spec kind (``catalogue.Output.spec_kind``; not a sweep: that is
    several specs)."""
    if kind == "frontier":
        return frontier_spec(name, block)
    if kind == "correlation_frontier":
        return correlation_frontier_spec(name, block)
    if kind == "estimated_v":
        return estimated_v_spec(name, block)
    if kind == "correlation":
        return correlation_spec(name, block, engine)
    return experiment_spec(name, block, engine)


def records_digest(spec, seed: int) -> str:
    """Digest of what an experiment's records depend on: its spec without any replicate count (at any depth: a
    correlation spec's points carry one too) and the seed. Every replicate has its own random streams, so raising
    ``replicates`` keeps the digest, and the chunks already simulated are kept (resources.plan_chunks)."""
    from adaptive_repro.foundation.config import digest

    def without_replicates(value):
        if isinstance(value, dict):
            return {k: without_replicates(v) for k, v in value.items() if k != "replicates"}
        if isinstance(value, (list, tuple)):
            return [without_replicates(v) for v in value]
        return value

    return digest({"spec": without_replicates(dataclasses.asdict(spec)), "seed": seed})


def output_of(experiment_name: str) -> str:
    """The catalogue output an experiment (or sweep point) belongs to."""
    return experiment_name.split(SWEEP_SEPARATOR)[0]
