"""The catalogue of outputs: the one place that lists every output ID.

Each entry says which paper the output reproduces, whether it is simulated (``experiment``: replicate chunks ->
records -> aggregation) or computed (``theory``), the module whose ``build`` makes it (and the module that draws
its figure, where that is another: one hop from an ID to its figure code), the config block that parametrizes it
and its category in the HTML report. The config schema's ``outputs`` enum, the Snakemake rules,
the report categories and the dispatch of ``build`` are derived from this table (tests check the schema).

The output contract: every builder module has

    build(output_id: str, params: dict, inputs: dict) -> (table: DataFrame, figure: Figure, claims: list[Claim])

``params`` is the output's own config block of the resolved config (:func:`output_params`: the Snakefile has
filled every schema default in, once) plus the run's ``seed``, and nothing else: a theory output's block is its own
sub-block (e.g. ``theory.zhao.maxinfo``), so changing a key reruns only the output that reads it. Builders read
their parameters only from ``params`` and fill in no defaults; :func:`build` refuses incomplete params of a theory
output with an error naming the output and the missing keys. ``inputs`` is ``{}`` for theory outputs and
``{"records": DataFrame, "diagnostics": DataFrame, "specs": {...}}`` for experiments (the aggregated replicate
records of every chunk; experiment builders take their settings from ``specs``).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib

from adaptive_repro.foundation.config import block_at, dereferenced, fill_schema_defaults, load_schema

#: Paper key -> its section (category) of the HTML report.
PAPERS = {"dwork": "Dwork2015", "zhao": "Zhao", "he": "He", "lecture": "Lecture"}


@dataclasses.dataclass(frozen=True)
class Output:
    """One catalogue output."""

    id: str
    paper: str  # key of PAPERS
    kind: str  # "experiment" or "theory"
    module: str  # builder module under adaptive_repro.outputs
    config_block: tuple[str, ...]  # where its parameters live in the config, e.g. ("theory", "he", "kl")
    category: str  # section of the HTML report
    spec_kind: str = ""  # an experiment block's spec: experiment, sweep, frontier, correlation, correlation_frontier,
    # estimated_v
    figures: str = ""  # the module under adaptive_repro.outputs that draws its figure, if not the builder module

    @property
    def figure_module(self) -> str:
        """Where this output's figure is drawn (the builder module unless ``figures`` names another)."""
        return f"adaptive_repro.outputs.{self.figures or self.module}"

    @property
    def builder(self):
        """The module whose ``build(output_id, params, inputs)`` makes this output."""
        return importlib.import_module(f"adaptive_repro.outputs.{self.module}")


def _experiment(oid: str, paper: str, module: str, spec_kind: str = "experiment", figures: str = "") -> Output:
    return Output(oid, paper, "experiment", module, ("experiments", oid), PAPERS[paper], spec_kind, figures)


def _theory(oid: str, paper: str, module: str, block: tuple[str, ...], figures: str = "") -> Output:
    return Output(oid, paper, "theory", module, block, PAPERS[paper], figures=figures)


CATALOGUE: tuple[Output, ...] = (
    _experiment("dwork-null", "dwork", "dwork.figs_1_2", figures="accuracy_figures"),
    _experiment("dwork-signal", "dwork", "dwork.figs_1_2", figures="accuracy_figures"),
    _experiment("zhao-fig2", "zhao", "zhao.fig3", figures="zhao.fig3_figures"),
    _experiment("zhao-fig3", "zhao", "zhao.fig3", figures="zhao.fig3_figures"),
    _experiment("zhao-fig3-large-n", "zhao", "zhao.fig3", figures="zhao.fig3_figures"),
    _experiment("zhao-frontier", "zhao", "zhao.frontier", "frontier"),
    _experiment("zhao-sweep", "zhao", "zhao.sweep", "sweep"),
    _experiment("zhao-correlation", "zhao", "zhao.correlation", "correlation", figures="zhao.correlation_figure"),
    _experiment("zhao-correlation-frontier", "zhao", "zhao.correlation_frontier", "correlation_frontier"),
    _experiment("zhao-estimated-v", "zhao", "zhao.estimated_v", "estimated_v"),
    _experiment("zhao-thm2-check", "zhao", "zhao.thm2_check"),
    _theory("zhao-fig1", "zhao", "zhao.fig1", ("theory", "zhao", "fig1")),
    _theory("zhao-bdp-conversion", "zhao", "zhao.quilts", ("theory", "zhao", "bdp_conversion")),
    _theory("zhao-sample-complexity", "zhao", "zhao.sample_complexity", ("theory", "zhao", "sample_complexity")),
    _theory("zhao-maxinfo", "zhao", "zhao.maxinfo", ("theory", "zhao", "maxinfo")),
    _theory("zhao-lemma1", "zhao", "zhao.lemma1", ("theory", "zhao", "lemma1")),
    _theory("he-kl", "he", "he.kl", ("theory", "he", "kl")),
    _theory("he-composition-eps", "he", "he.composition", ("theory", "he", "composition_eps"),
            figures="he.composition_figures"),
    _theory("he-composition-delta", "he", "he.composition", ("theory", "he", "composition_delta"),
            figures="he.composition_figures"),
    _theory("he-generalization", "he", "he.generalization", ("theory", "he", "generalization"),
            figures="he.generalization_figure"),
    _theory("he-sgld", "he", "he.applications", ("theory", "he", "sgld")),
    _theory("he-federated", "he", "he.applications", ("theory", "he", "federated")),
    _theory("lecture-transfer", "lecture", "lecture.transfer_and_monitor", ("theory", "lecture", "transfer"),
            figures="lecture.figures"),
    _theory("lecture-monitor", "lecture", "lecture.transfer_and_monitor", ("theory", "lecture", "monitor"),
            figures="lecture.figures"),
)

BY_ID: dict[str, Output] = {o.id: o for o in CATALOGUE}
OUTPUT_IDS: tuple[str, ...] = tuple(BY_ID)
EXPERIMENT_OUTPUTS: tuple[str, ...] = tuple(o.id for o in CATALOGUE if o.kind == "experiment")
THEORY_OUTPUTS: tuple[str, ...] = tuple(o.id for o in CATALOGUE if o.kind == "theory")


def get(output_id: str) -> Output:
    """The catalogue entry of ``output_id`` (KeyError names the known IDs)."""
    try:
        return BY_ID[output_id]
    except KeyError:
        raise KeyError(f"unknown output {output_id!r}; the catalogue has {list(OUTPUT_IDS)}") from None


def build(output_id: str, params: dict, inputs: dict | None = None):
    """(table, figure, claims) of one output, by its builder module. A theory output's ``params`` must be its complete
    config block plus ``seed`` (:func:`check_params` raises ``ParamsError`` naming the output and
    the missing or unknown keys)."""
    entry = get(output_id)
    if entry.kind == "theory":
        check_params(output_id, params)
    return entry.builder.build(output_id, params, inputs or {})


def build_table_and_claims(output_id: str, params: dict, inputs: dict | None = None):
    """(table, claims) of one output: :func:`build` with its figure closed unseen, for callers that read only the
    rows (``claims show --set``, the strength measurement)."""
    import matplotlib.pyplot as plt  # the builder drew with it; closing frees the figure

    table, fig, claims = build(output_id, params, inputs)
    plt.close(fig)
    return table, claims


# ------------------------------------------------------------------ each output's parameters (its config block)

def output_schema(output_id: str) -> tuple[dict, dict]:
    """(the JSON schema of an output's config block, the root its ``$ref``s resolve in), e.g. the ``maxinfo``
    properties of ``theory_zhao.schema.yaml`` for zhao-maxinfo."""
    root = load_schema("config")
    node = root
    for key in get(output_id).config_block:
        node, root = dereferenced(node, root)
        node, root = dereferenced(node["properties"][key], root)
    return node, root


def output_params(config: dict, output_id: str) -> dict:
    """The parameters of one output: its config block (of the resolved config) plus the run's ``seed`` (the output
    contract); the digest of this dict names the output's result."""
    return block_at(config, get(output_id).config_block) | {"seed": config["seed"]}


def default_params(output_id: str, block: dict | None = None, seed: int = 0) -> dict:
    """``block`` (the keys you set) with the schema defaults of the output's config block filled in, plus ``seed``.
    For tests and command-line tools that build one output by hand; builders never fill defaults themselves."""
    schema, root = output_schema(output_id)
    return fill_schema_defaults(copy.deepcopy(block or {}), schema, root) | {"seed": seed}


def changed_from_defaults(config: dict, output_id: str) -> list[str]:
    """The settings of one output's config block in ``config`` (resolved) that differ from the schema's defaults, as
    ``block.key = value`` (dotted at any depth), for a report to say which parameters a run changed."""
    path = get(output_id).config_block
    ran, default = block_at(config, path), default_params(output_id)
    default.pop("seed")

    def walk(a, b, prefix: str) -> list[str]:
        if isinstance(a, dict) and isinstance(b, dict):
            return [line for key in sorted(set(a) | set(b)) for line in walk(a.get(key), b.get(key), f"{prefix}.{key}")]
        return [] if a == b else [f"{prefix} = {a!r}"]

    return walk(ran, default, ".".join(path))


class ParamsError(ValueError):
    """The parameters given to a builder are not its complete config block plus ``seed``."""


def _params_problems(block: dict, schema: dict, root: dict, prefix: str = "") -> tuple[list[str], list[str]]:
    """(missing keys: those with a schema default, at any depth; unknown keys) of ``block``, dotted."""
    schema, root = dereferenced(schema, root)
    props = schema.get("properties", {})
    missing: list[str] = []
    unknown = [prefix + k for k in block if k not in props] if schema.get("additionalProperties") is False else []
    for key, prop in props.items():
        sub, sub_root = dereferenced(prop, root)
        if key not in block:
            if "default" in sub:
                missing.append(prefix + key)
        elif isinstance(block[key], dict) and sub.get("type") == "object":
            m, u = _params_problems(block[key], sub, sub_root, f"{prefix}{key}.")
            missing += m
            unknown += u
    return missing, unknown


def check_params(output_id: str, params: dict) -> None:
    """Raise :class:`ParamsError`, naming the output and the keys, unless ``params`` holds every key of the output's
    config block that has a schema default, no key the block does not have, and ``seed``."""
    schema, root = output_schema(output_id)
    missing, unknown = _params_problems({k: v for k, v in params.items() if k != "seed"}, schema, root)
    if "seed" not in params:
        missing.append("seed")
    if missing or unknown:
        problems = [f"{what} {', '.join(repr(k) for k in keys)}" for what, keys in (("missing", missing),
                                                                                  ("unknown", unknown)) if keys]
        raise ParamsError(
            f"{output_id}: the parameters are not its config block {'.'.join(get(output_id).config_block)} plus "
            f"'seed': {'; '.join(problems)} (the block has {sorted(schema.get('properties', {}))}). Builders fill in "
            f"no defaults: pass catalogue.output_params(<validated config>, {output_id!r}), or "
            f"catalogue.default_params({output_id!r}, {{...}}) in a test")
