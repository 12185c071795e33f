"""Config checks that JSON schema cannot express; run at parse time, before any job.

The schema (src/adaptive_repro/schemas/config.schema.yaml) catches unknown keys, wrong types, out-of-range values and
unknown names; this module adds relations between values (k grid strictly increasing and at most d, outputs that
have rules). Every error names the config key, the value and what is allowed.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Iterable

import yaml

#: The JSON schemas of the config, shipped with the package (package data), so it works installed anywhere.
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


class ConfigError(ValueError):
    """A config value is not allowed; the message names key, value and what is allowed."""


def _fail(key: str, value, allowed: str):
    raise ConfigError(f"config key '{key}': value {value!r} is not allowed; allowed: {allowed}")


def check_k_grid(key: str, k_grid: list[int], d: int) -> None:
    """k grid: strictly increasing non-negative integers, none above d."""
    if any(b <= a for a, b in zip(k_grid, k_grid[1:])):
        _fail(key, k_grid, "a strictly increasing list of integers")
    if k_grid and k_grid[-1] > d:
        _fail(key, k_grid, f"values between 0 and d = {d}")


def check_config(config: dict, implemented_outputs: Iterable[str]) -> None:
    """Raise ConfigError for the first relation between config values that is not allowed."""
    implemented = list(implemented_outputs)
    for oid in config.get("outputs", []):
        if oid not in implemented:
            _fail("outputs", oid, f"outputs this pipeline builds: {sorted(implemented)}")
    from adaptive_repro.simulation.engines import FAST_EXACT_MECHANISMS
    from adaptive_repro.simulation.experiments import EXPERIMENT_OUTPUTS

    experiments = config.get("experiments", {})
    for oid in config.get("outputs", []):
        if oid in EXPERIMENT_OUTPUTS and oid not in experiments:
            _fail("experiments", sorted(experiments), f"a block experiments.{oid} for every experiment in outputs")
    for name, exp in experiments.items():
        if "k_grid" in exp and "d" in exp:
            check_k_grid(f"experiments.{name}.k_grid", exp["k_grid"], exp["d"])
        if exp.get("signal_attributes", 0) > exp.get("d", 0):
            _fail(f"experiments.{name}.signal_attributes", exp["signal_attributes"], f"at most d = {exp['d']}")
        if config.get("engine") == "fast":
            inexact = [m for m in exp.get("mechanisms", []) if m not in FAST_EXACT_MECHANISMS]
            if inexact:
                _fail("engine", "fast", f"'auto' or 'direct': the sufficient-statistic engine is not exact for "
                      f"experiments.{name}.mechanisms {inexact} (their clipped queries need the records); it is "
                      f"exact for {list(FAST_EXACT_MECHANISMS)}")


def fill_schema_defaults(block: dict | None, schema: dict | str | Path) -> dict:
    """``block`` with every missing key, at any depth, set to the JSON schema's ``default``.

    Snakemake's ``validate`` fills defaults of the main schema but not inside ``$ref``'d files such as
    ``theory_*.schema.yaml``, so the theory outputs fill theirs here; the schema stays the single source.
    """
    if not isinstance(schema, dict):
        schema = yaml.safe_load(Path(schema).read_text())

    def fill(sub: dict, value):
        if sub.get("type") != "object" or not isinstance(value, dict):
            return value
        out = dict(value)
        for key, prop in sub.get("properties", {}).items():
            if key not in out and "default" in prop:
                out[key] = copy.deepcopy(prop["default"])
            if key in out:
                out[key] = fill(prop, out[key])
        return out

    return fill(schema, dict(block or {}))


def theory_params(config: dict, name: str) -> dict:
    """``config["theory"][name]`` with the defaults of ``src/adaptive_repro/schemas/theory_<name>.schema.yaml`` filled in."""
    block = (config.get("theory") or {}).get(name) or {}
    return fill_schema_defaults(block, SCHEMA_DIR / f"theory_{name}.schema.yaml")
