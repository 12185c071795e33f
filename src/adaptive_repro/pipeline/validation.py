"""Every check of a config before any job runs; each error is one line naming the key, the value and what is allowed.

Order (the Snakefile calls :func:`load_config_file` on every file, then :func:`resolved_with_specs`): 1. the files:
readable YAML (errors with file and line), no duplicate keys, no templates or aliases; 2. finite numbers; 3. the JSON
schema (strict integers; enums from the catalogue and the plug-in registries; each model block against its model);
4. relations the schema cannot express, for the outputs this run builds; 5. every spec built, capabilities checked.
"""

from __future__ import annotations

import copy
import functools
import math
import os
import re
from pathlib import Path
from typing import Any, Iterable

import jsonschema
import referencing
import yaml

from adaptive_repro.foundation.config import SCHEMA_DIR, ConfigError, fail, fill_schema_defaults, load_schema, merged
from adaptive_repro.pipeline import catalogue, relations

# ---------------------------------------------------------------------------------------------- 1. config files

class _StrictLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice in one mapping (PyYAML silently keeps the last) and any alias
    (``*name``): a config needs none, and aliases allow self-reference and exponential expansion."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise ConfigError(f"config file '{self.name}', line {self.peek_event().start_mark.line + 1}: YAML "
                              "aliases ('*name') are not allowed; allowed: each value written out")
        return super().compose_node(parent, index)


def _no_duplicates(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigError(f"{loader.name}, line {key_node.start_mark.line + 1}: key {key!r} is given twice "
                              f"(first on line {seen[key] + 1}); allowed: each key once per mapping")
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def load_config_file(path: str | os.PathLike) -> dict:
    """Read a config file strictly: a clear ConfigError for a missing file, a directory, a YAML syntax error (with
    file and line), a duplicate key, or a top level that is not a mapping. Each version of a file is parsed once."""
    path = Path(path)
    stat = path.stat() if path.is_file() else None
    return copy.deepcopy(_parsed_config_file(path, stat and (stat.st_mtime_ns, stat.st_size)))


#: The largest config file read (bytes): about 9x the full default config, parsed in well under a second.
MAX_CONFIG_BYTES = 100_000


@functools.lru_cache(maxsize=16)
def _parsed_config_file(path: Path, version: tuple | None) -> dict:
    if not path.exists():
        raise ConfigError(f"config file '{path}' does not exist; allowed: a path to a YAML file")
    if path.is_dir():
        raise ConfigError(f"config file '{path}' is a directory; allowed: a path to a YAML file")
    size = path.stat().st_size
    if size > MAX_CONFIG_BYTES:  # refused before parsing: YAML parses ~0.3 MB/s, a huge file would take minutes
        raise ConfigError(f"config file '{path}' has {size:,} bytes; allowed: at most {MAX_CONFIG_BYTES:,} (a config "
                          "lists settings: config.yaml with every output has about 11,000)")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"config file '{path}' is not UTF-8 text (byte {err.start}: {err.reason}); allowed: a "
                          "YAML file") from None
    except OSError as err:
        raise ConfigError(f"config file '{path}' cannot be read ({err.strerror}); allowed: a readable YAML "
                          "file") from None
    try:
        loader = _StrictLoader(text)
        loader.name = str(path)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"config file '{path}'{where}: YAML error: {err.problem or err}") from None
    if isinstance(data, dict) and "__use_yte__" in data:
        raise ConfigError(f"config file '{path}' asks for YTE templating ('__use_yte__'); allowed: plain YAML (a "
                          "template is Python code that Snakemake evaluates when it reads the file)")
    if data is None:  # Snakemake refuses an empty config file with a message that does not name it
        raise ConfigError(f"config file '{path}' is empty; allowed: a YAML mapping of config keys (e.g. 'seed: 2')")
    if not isinstance(data, dict):
        raise ConfigError(f"config file '{path}': the top level is a {type(data).__name__}; allowed: a mapping of "
                          "config keys")
    return data


def with_model_blocks_replaced(config: dict, paths: Iterable[str | os.PathLike]) -> dict:
    """``config`` (the config files merged key by key, as Snakemake merges them) where a file that names a data model
    (``experiments.<X>.model.name``) replaces the model block the files before it gave <X>: switching <X> to another
    model in a config on top of config.yaml must not inherit the keys of config.yaml's model. Model keys of later
    files are merged on top as usual."""
    files = [load_config_file(p) for p in paths]
    out = copy.deepcopy(config)
    for name, block in (out.get("experiments") or {}).items():
        if not isinstance(block, dict):
            continue
        blocks = [(f.get("experiments") or {}).get(name) for f in files]
        models = [b["model"] for b in blocks if isinstance(b, dict) and isinstance(b.get("model"), dict)]
        named = [i for i, m in enumerate(models) if "name" in m]
        if not named or named[-1] == 0:
            continue
        replaced: dict = {}
        for model in models[named[-1]:]:
            replaced = merged(replaced, model)
        block["model"] = replaced
    return out


# --------------------------------------------------------------------------------------------- 2. finite numbers

def _walk(value: Any, key: str = ""):
    """(dotted key, value) of every leaf of a nested config."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _walk(v, f"{key}[{i}]")
    else:
        yield key, value


_SCIENTIFIC = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$")


def numbers_from_scientific_strings(value: Any) -> Any:
    """``value`` with every string like ``1e-12`` read as the number it means. YAML 1.1 (PyYAML, Snakemake) reads
    scientific notation without a decimal point as a string; DP parameters are written that way all the time."""
    if isinstance(value, dict):
        return {k: numbers_from_scientific_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [numbers_from_scientific_strings(v) for v in value]
    if isinstance(value, str) and _SCIENTIFIC.match(value.strip()):
        return float(value)
    return value


def check_finite(config: dict) -> None:
    """No NaN or infinity anywhere (YAML's ``.nan`` / ``.inf`` would otherwise pass a ``number`` schema)."""
    for key, value in _walk(config):
        if isinstance(value, float) and not math.isfinite(value):
            fail(key, value, "a finite number")


# -------------------------------------------------------------------------------------------------- 3. schema

def _strict_integer(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer))


def _validator() -> jsonschema.protocols.Validator:
    """The schema's validator for the plug-ins registered now (a plug-in registered later gets a new one)."""
    from adaptive_repro.simulation.registries import ARMS, CALIBRATIONS, DATA_MODELS, ENGINES, QUERIES
    return _validator_for(tuple(tuple(r.names()) for r in (ARMS, CALIBRATIONS, DATA_MODELS, ENGINES, QUERIES)))


@functools.lru_cache(maxsize=4)
def _validator_for(registered: tuple) -> jsonschema.protocols.Validator:
    return _Validator(config_schema(), registry=_registry())


def _registry() -> referencing.Registry:
    resources = [(p.name, referencing.Resource.from_contents(
        load_schema(p.name.removesuffix(".schema.yaml")), default_specification=referencing.jsonschema.DRAFT202012))
        for p in sorted(SCHEMA_DIR.glob("*.schema.yaml"))]
    return referencing.Registry().with_resources(resources)


def _dotted(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


#: A JSON schema's numeric bounds in words.
BOUND_WORDS = (("minimum", "at least"), ("maximum", "at most"), ("exclusiveMinimum", "greater than"),
               ("exclusiveMaximum", "less than"))


#: A JSON schema type in words.
TYPE_WORDS = {"integer": "a whole number", "number": "a number", "null": "null", "string": "a string",
              "boolean": "true or false"}


def _described(schema: dict) -> str:
    """What a (sub-)schema allows, in words: 'auto'; a whole number at least 1; a number greater than 0 and less
    than 1 (every bound it sets); a number greater than 0 or null (a list of types: the bounds are the numbers')."""
    if "const" in schema:
        return repr(schema["const"])
    types = schema.get("type", "number")
    bounds = " and ".join(f"{word} {schema[k]}" for k, word in BOUND_WORDS if k in schema)
    kinds = [f"{TYPE_WORDS.get(t, f'type {t}')} {bounds}".strip() if t in ("integer", "number")
             else TYPE_WORDS.get(t, f"type {t}") for t in (types if isinstance(types, list) else [types])]
    return " or ".join(kinds)


def _message(err: jsonschema.ValidationError) -> str:
    key = _dotted(err.absolute_path)
    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        unknown = sorted(set(err.instance) - set(allowed)) if isinstance(err.instance, dict) else []
        where = f"under '{key}'" if err.absolute_path else "at the top level"
        return (f"unknown config key {', '.join(repr(u) for u in unknown)} {where} ({err.message}); "
                f"allowed: {allowed}")
    if err.validator == "required" and isinstance(err.instance, dict):
        missing = [repr((f"{key}." if err.absolute_path else "") + k) for k in err.validator_value
                   if k not in err.instance]
        return (f"config key {missing[0]} is missing; it is required" if len(missing) == 1 else
                f"config keys {', '.join(missing)} are missing; they are required")
    if err.validator in ("oneOf", "anyOf"):
        return (f"config key '{key}': value {err.instance!r} is not allowed; allowed: "
                f"{' or '.join(_described(branch) for branch in err.validator_value)}")
    if err.validator == "enum":
        return f"config key '{key}': value {err.instance!r} is not allowed; allowed: one of {err.validator_value}"
    if err.validator in dict(BOUND_WORDS):
        return f"config key '{key}': value {err.instance!r} is not allowed; allowed: {_described(err.schema)}"
    allowed = {"type": lambda: f"type {err.validator_value}" + (" (a whole number without a decimal point)"
                                                                 if err.validator_value == "integer" else ""),
               "minItems": lambda: f"at least {err.validator_value} item(s)",
               "multipleOf": lambda: f"a multiple of {err.validator_value}"}.get(err.validator,
                                                                                  lambda: err.message)()
    reason = "" if allowed == err.message else f" ({err.message})"  # jsonschema's words, unless they are the rule
    return f"config key '{key}': value {err.instance!r} is not allowed{reason}; allowed: {allowed}"


def check_schema(config: dict) -> None:
    """Validate against the JSON schema; raise ConfigError with the most relevant error, in one line."""
    error = jsonschema.exceptions.best_match(_validator().iter_errors(config))
    if error is not None:
        raise ConfigError(_message(error))


def refuse(err: ConfigError):
    """Stop the workflow before any job: one line naming the key, the value and what is allowed (no traceback)."""
    import sys

    print(f"Config error: {err}", file=sys.stderr)
    sys.exit(1)


def validated_files(paths: list[str | os.PathLike]) -> dict:
    """The resolved config of these config files merged in order, as the workflow merges ``--configfile`` files
    (model blocks replaced where a later file names another model), for tools that read config files directly."""
    config: dict = {}
    for path in paths:
        config = merged(config, load_config_file(path))
    return validated(with_model_blocks_replaced(config, paths))


def validated(config: dict) -> dict:
    """The config checked (steps 2-4) and resolved: every default of every schema filled in, once."""
    return resolved_with_specs(config)[0]


def resolved_with_specs(config: dict) -> tuple[dict, dict]:
    """:func:`validated`'s resolved config and the experiment specs of the outputs it builds, each built once (the
    workflow plans its jobs from these)."""
    config = numbers_from_scientific_strings(config)
    check_finite(config)
    check_schema(config)
    check_model_keys(config)
    resolved = fill_model_defaults(copy.deepcopy(fill_schema_defaults(config, config_schema())))
    relations.check_relations(resolved)
    return resolved, check_specs(resolved)


def _config_schema() -> dict:
    from adaptive_repro.simulation.registries import ARMS, CALIBRATIONS, DATA_MODELS, ENGINES, QUERIES

    schema = load_schema("config")
    schema["properties"]["outputs"]["items"]["enum"] = list(catalogue.OUTPUT_IDS)
    schema["properties"]["experiments"]["properties"] = {
        o.id: {"$ref": f"#/$defs/{o.spec_kind}"} for o in catalogue.CATALOGUE if o.kind == "experiment"}
    schema["properties"]["engine"]["enum"] = ["auto", *ENGINES.names()]
    defs = schema["$defs"]
    defs["mechanisms"]["items"]["enum"] = list(ARMS.names())
    defs["arms"]["properties"] = {arm.name: {"type": "object", "additionalProperties": False,
                                             "properties": _without_defaults(arm.PARAMETERS)}
                                  for arm in ARMS if arm.PARAMETERS}
    defs["query"]["enum"] = list(QUERIES.names())
    for kind in ("frontier", "correlation_frontier"):
        defs[kind]["properties"]["calibrations"]["items"]["enum"] = list(CALIBRATIONS.names())
    model = defs["model"]
    model["properties"]["name"]["enum"] = list(DATA_MODELS.names())
    default_name = model["properties"]["name"]["default"]  # each block against its own model's keys, typed:
    model["allOf"] = [
        {"if": {"properties": {"name": {"const": data_model.name}}, "required": ["name"]}
         if data_model.name != default_name else
         {"anyOf": [{"not": {"required": ["name"]}}, {"properties": {"name": {"const": data_model.name}}}]},
         "then": {"properties": _without_defaults(data_model.PARAMETERS)}}
        for data_model in DATA_MODELS]
    return schema


def _without_defaults(parameters: dict[str, dict]) -> dict[str, dict]:
    """A plug-in's ``PARAMETERS`` as schema properties without their defaults (the plug-in's fields hold those)."""
    return {key: {k: v for k, v in prop.items() if k != "default"} for key, prop in parameters.items()}


def _model_blocks(config: dict):
    """(config key, model block) of every experiment and sweep block that has one."""
    for name, block in (config.get("experiments") or {}).items():
        if isinstance(block, dict) and isinstance(block.get("model"), dict):
            yield f"experiments.{name}.model", block["model"]
        if isinstance(block, dict) and isinstance(block.get("structures"), list):
            for i, model in enumerate(block["structures"]):
                if isinstance(model, dict):
                    yield f"experiments.{name}.structures[{i}]", model


def check_model_keys(config: dict) -> None:
    """Each ``model`` block holds only keys of the data model it names (the schema types the union of all models'
    keys)."""
    from adaptive_repro.simulation.registries import DATA_MODELS

    for key, block in _model_blocks(config):
        model = DATA_MODELS.get(block.get("name", _default_model_name()), f"{key}.name")
        allowed = sorted({"name", *model.PARAMETERS})
        unknown = sorted(set(block) - set(allowed))
        if unknown:
            raise ConfigError(f"unknown config key {', '.join(repr(u) for u in unknown)} under '{key}' (data model "
                              f"{model.name!r}); allowed: {allowed}")


def _default_model_name() -> str:
    """The schema's default ``model.name`` (the one place it is written)."""
    return load_schema("config")["$defs"]["model"]["properties"]["name"]["default"]


def fill_model_defaults(config: dict) -> dict:
    """Every ``model`` block with its data model's defaults (``PARAMETERS``) filled in."""
    from adaptive_repro.simulation.registries import DATA_MODELS

    for _, block in _model_blocks(config):
        block.setdefault("name", _default_model_name())  # structures' items: the schema's defaults skip list items
        model = DATA_MODELS.get(block["name"])
        for key, prop in model.PARAMETERS.items():
            block.setdefault(key, copy.deepcopy(prop["default"]))
    return config


def config_schema() -> dict:
    """The config schema with its enums of names filled in: output IDs from the catalogue, mechanisms, queries,
    data models and engines from the plug-in registries (one place each)."""
    return _config_schema()


def check_specs(config: dict) -> dict:
    """The spec of every experiment this run builds: a value no plug-in accepts (an engine that is not exact for an
    arm, a capability the data model lacks) is refused here, before any job."""
    from adaptive_repro.pipeline.specs import expand_experiments

    try:
        return expand_experiments({"engine": config["engine"], "experiments": relations.built_experiments(config)})
    except ValueError as err:
        raise ConfigError(str(err)) from None


def default_config_path() -> str:
    """The run's base config: ./config.yaml where there is one (a workflow folder), else this checkout's."""
    if Path("config.yaml").is_file():
        return "config.yaml"
    from adaptive_repro.pipeline.sources import package_root

    checkout = Path(package_root()).parent.parent / "config.yaml"
    return str(checkout) if checkout.is_file() else "config.yaml"


def main(argv: list[str] | None = None) -> int:
    """``python -m adaptive_repro.pipeline.validation [--files-only] [CONFIGFILE ...]``: check config.yaml with the
    given config files on top, as Snakemake would read them; print one line and exit 1 on the first error.
    ``--files-only`` checks only that each file exists and is plain YAML (no template, no duplicate key): what must
    be refused before Snakemake reads a file (`make reproduce` runs this; the Snakefile then checks the rest once)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m adaptive_repro.pipeline.validation")
    parser.add_argument("--files-only", action="store_true")
    parser.add_argument("configfiles", nargs="*")
    args = parser.parse_args(argv)
    paths = [default_config_path(), *args.configfiles]
    try:
        config: dict = {}
        for path in paths:
            config = merged(config, load_config_file(path))
        if not args.files_only:
            validated(with_model_blocks_replaced(config, paths))
    except ConfigError as err:
        print(f"Config error: {err}", file=sys.stderr)
        return 1
    return 0


def experiment_spec(name: str, block: dict, engine: str | None = None, kind: str | None = None):
    """The spec of one block given with only the keys that differ from the schema's defaults (tests, notebooks, the
    claims CLI), of output ``name``'s spec kind (or ``kind``; else "experiment"): the schema fills the rest."""
    from adaptive_repro.pipeline import specs

    schema = config_schema()
    engine = schema["properties"]["engine"]["default"] if engine is None else engine
    kind = kind or (catalogue.get(name).spec_kind if name in catalogue.OUTPUT_IDS else "experiment")
    check_model_keys({"experiments": {name: block}})
    resolved = fill_schema_defaults(dict(block), schema["$defs"][kind], root=schema)
    resolved = fill_model_defaults({"experiments": {name: resolved}})["experiments"][name]
    return specs.spec_of_kind(kind, name, resolved, engine)


if __name__ == "__main__":
    raise SystemExit(main())
