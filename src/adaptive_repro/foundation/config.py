"""The config: its schemas (shipped with the package), defaults filled in once, and each output's parameters.

The checks of a config (types, ranges, relations, duplicate keys) are in :mod:`adaptive_repro.pipeline.validation`.
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
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


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
    :func:`adaptive_repro.pipeline.validation.config_schema` fills them from the catalogue and the plug-in
    registries)."""
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


def dereferenced(schema: dict, root: dict) -> tuple[dict, dict]:
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
    schema, root = dereferenced(schema, schema if root is None else root)
    if not isinstance(block, dict) or schema.get("type") != "object":
        return block
    out = dict(block)
    for key, prop in schema.get("properties", {}).items():
        sub, sub_root = dereferenced(prop, root)
        if key not in out and "default" in sub:
            out[key] = copy.deepcopy(sub["default"])
        if key in out:
            out[key] = fill_schema_defaults(out[key], sub, sub_root)
    return out


def block_at(config: dict, path: tuple[str, ...]) -> dict:
    """A copy of the config block at ``path`` (e.g. ("theory", "zhao", "maxinfo")), as it is in ``config``: nothing
    is filled in here. The pipeline's config is resolved once, by the Snakefile (:func:`validation.validated` fills
    every schema default), so its blocks are complete."""
    node = config
    for key in path:
        node = (node or {}).get(key) or {}
    return copy.deepcopy(dict(node))


def merged(base: dict, update: dict) -> dict:
    """``update`` merged into ``base`` the way Snakemake merges config files (mappings recursively)."""
    out = dict(base)
    for key, value in update.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def digest(value: Any) -> str:
    """A short, stable digest of a JSON-able value (dict keys sorted): names what a result was computed from."""
    text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]
