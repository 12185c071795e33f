"""The config: its schemas (shipped with the package), defaults filled in once, and each output's parameters.

The checks of a config (types, ranges, relations, duplicate keys) are in :mod:`adaptive_repro.validation`.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

#: The JSON schemas of the config, shipped with the package (package data), so it works installed anywhere.
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


class ConfigError(ValueError):
    """A config value is not allowed; the message names key, value and what is allowed."""


def fail(key: str, value, allowed: str):
    raise ConfigError(f"config key '{key}': value {value!r} is not allowed; allowed: {allowed}")


#: YAML loader of the package's own files: libyaml's safe loader where PyYAML has it (the same data as
#: ``yaml.safe_load``, about 7 times faster; every theory job and the workflow's start read the schemas).
FAST_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: str | Path) -> Any:
    """A YAML file of the package (schemas), parsed with :data:`FAST_YAML_LOADER`."""
    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=FAST_YAML_LOADER)


@functools.lru_cache(maxsize=None)
def _schema_file(name: str) -> dict:
    return read_yaml(SCHEMA_DIR / f"{name}.schema.yaml")


def load_schema(name: str) -> dict:
    """The schema ``schemas/<name>.schema.yaml`` as shipped (the config schema's enums of names are empty there:
    :func:`adaptive_repro.validation.config_schema` fills them from the catalogue and the plug-in registries)."""
    return copy.deepcopy(_schema_file(name))


def _resolve_ref(ref: str, root: dict) -> tuple[dict, dict]:
    """(sub-schema, its root) of a ``$ref``: ``#/$defs/x`` within ``root`` or ``theory_he.schema.yaml`` (a file)."""
    file, _, pointer = ref.partition("#")
    if file:
        root = _schema_file(file.removesuffix(".schema.yaml"))
    node = root
    for part in filter(None, pointer.split("/")):
        node = node[part]
    return node, root


def _dereferenced(schema: dict, root: dict) -> tuple[dict, dict]:
    """(schema with its ``$ref`` chain followed, the root it now lives in); sibling keys of a ``$ref`` are kept."""
    while "$ref" in schema:
        extra = {k: v for k, v in schema.items() if k != "$ref"}
        target, root = _resolve_ref(schema["$ref"], root)
        schema = {**target, **extra}
    return schema, root


def fill_schema_defaults(block: Any, schema: dict | str | Path, root: dict | None = None) -> Any:
    """``block`` with every missing key, at any depth, set to the JSON schema's ``default``, following ``$ref``s
    (Snakemake's ``validate`` stops at references, so the pipeline fills defaults here, once, for the whole config)."""
    if not isinstance(schema, dict):
        schema = read_yaml(schema)
    schema, root = _dereferenced(schema, schema if root is None else root)
    if not isinstance(block, dict) or schema.get("type") != "object":
        return block
    out = dict(block)
    for key, prop in schema.get("properties", {}).items():
        sub, sub_root = _dereferenced(prop, root)
        if key not in out and "default" in sub:
            out[key] = copy.deepcopy(sub["default"])
        if key in out:
            out[key] = fill_schema_defaults(out[key], sub, sub_root)
    return out


def output_schema(output_id: str) -> tuple[dict, dict]:
    """(the JSON schema of an output's config block, the root its ``$ref``s resolve in), e.g. the ``maxinfo``
    properties of ``theory_zhao.schema.yaml`` for zhao-maxinfo."""
    from adaptive_repro.catalogue import get

    root = load_schema("config")
    node = root
    for key in get(output_id).config_block:
        node, root = _dereferenced(node, root)
        node, root = _dereferenced(node["properties"][key], root)
    return node, root


def block_at(config: dict, path: tuple[str, ...]) -> dict:
    """A copy of the config block at ``path`` (e.g. ("theory", "zhao", "maxinfo")), as it is in ``config``: nothing
    is filled in here. The pipeline's config is resolved once, by the Snakefile (:func:`validation.validated` fills
    every schema default), so its blocks are complete."""
    node = config
    for key in path:
        node = (node or {}).get(key) or {}
    return copy.deepcopy(dict(node))


def output_params(config: dict, output_id: str) -> dict:
    """The parameters of one output: its config block (of the resolved config) plus the run's ``seed`` (the output
    contract); the digest of this dict names the output's result."""
    from adaptive_repro.catalogue import get

    return block_at(config, get(output_id).config_block) | {"seed": config["seed"]}


def default_params(output_id: str, block: dict | None = None, seed: int = 0) -> dict:
    """``block`` (the keys you set) with the schema defaults of the output's config block filled in, plus ``seed``.
    For tests and command-line tools that build one output by hand; builders never fill defaults themselves."""
    schema, root = output_schema(output_id)
    return fill_schema_defaults(copy.deepcopy(block or {}), schema, root) | {"seed": seed}


def changed_from_defaults(config: dict, output_id: str) -> list[str]:
    """The settings of one output's config block in ``config`` (resolved) that differ from the schema's defaults, as
    ``block.key = value`` (dotted at any depth), for a report to say which parameters a run changed."""
    from adaptive_repro.catalogue import get

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
    schema, root = _dereferenced(schema, root)
    props = schema.get("properties", {})
    missing: list[str] = []
    unknown = [prefix + k for k in block if k not in props] if schema.get("additionalProperties") is False else []
    for key, prop in props.items():
        sub, sub_root = _dereferenced(prop, root)
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
    from adaptive_repro.catalogue import get

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
            f"no defaults: pass config.output_params(<validated config>, {output_id!r}), or "
            f"config.default_params({output_id!r}, {{...}}) in a test")


def digest(value: Any) -> str:
    """A short, stable digest of a JSON-able value (dict keys sorted): names what a result was computed from."""
    text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]
