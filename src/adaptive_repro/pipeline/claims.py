"""Look at one claim of a run, and re-evaluate it at a point of your choice.

    python -m adaptive_repro.pipeline.claims list [--results results]
    python -m adaptive_repro.pipeline.claims show OUTPUT/CLAIM [--results results] [--set KEY=VALUE ...]

``show`` prints the claim's kind, source, the paper's words, the reading checked, the measured value, the status and
the first counter-example, and where the function that computes the measured value lives (file and line). With
``--set`` it rebuilds the output with those parameters changed and prints the claim as evaluated there. Keys are
those of the output's own config block (values are YAML), e.g. ``--set eps=[0.01] T=[1000]`` for he-composition-eps
(block ``theory.he.composition_eps``); the block's path may be written in front, in full or in part
(``theory.he.composition_eps.T=[1000]``, ``composition_eps.T=[1000]``). Only theory outputs are re-evaluated this
way; an experiment's claims need its records (rerun the pipeline with a config of your own: README, "Running your own
configuration").
"""

from __future__ import annotations

import argparse
import copy
import importlib
import inspect
import sys
from pathlib import Path

import pandas as pd
import yaml

from adaptive_repro.foundation.config import ConfigError
from adaptive_repro.pipeline import catalogue, validation
from adaptive_repro.pipeline.catalogue import output_params

FIELDS = ("kind", "source", "quote", "claim", "expected", "measured", "status", "strength", "strength_evidence",
          "counterexample", "code")


def load_claims(results: Path) -> pd.DataFrame:
    path = results / "tables" / "claims.csv"
    if not path.exists():
        raise SystemExit(f"{path} does not exist: run the pipeline first (make reproduce)")
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def code_location(dotted: str) -> str:
    """``file:line`` of a function named ``package.module.function`` (or the reason it cannot be found)."""
    module, _, name = dotted.rpartition(".")
    try:
        obj = inspect.unwrap(getattr(importlib.import_module(module), name))  # past the argument-check decorator
        return f"{inspect.getsourcefile(obj)}:{inspect.getsourcelines(obj)[1]}"
    except (ImportError, AttributeError, TypeError, ValueError) as err:
        return f"(not found: {err})"


def describe(row) -> str:
    lines = [f"{row['output_id']}/{row['claim_id']}"]
    for field in FIELDS:
        if row.get(field):
            lines.append(f"  {field:15s} {row[field]}")
    if row.get("code"):
        lines.append(f"  {'defined at':15s} {code_location(row['code'])}")
    return "\n".join(lines)


def set_dotted(block: dict, key: str, value) -> None:
    node = block
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def block_key(key: str, config_block: tuple[str, ...]) -> str:
    """``key`` relative to an output's config block: a leading part of the block's path, in full
    (``theory.he.kl.points``) or its last parts (``he.kl.points``, ``kl.points``), is dropped."""
    parts = key.split(".")
    for start in range(len(config_block)):
        tail = list(config_block[start:])
        if parts[:len(tail)] == tail and len(parts) > len(tail):
            return ".".join(parts[len(tail):])
    return key


def reevaluate(results: Path, output_id: str, claim_id: str, overrides: list[str]) -> str:
    """Rebuild a theory output with ``overrides`` applied to its config block; the claim's row as evaluated there."""
    entry = catalogue.get(output_id)
    if entry.kind != "theory":
        raise SystemExit(f"{output_id} is an experiment: its claims need its records; rerun the pipeline with a "
                         "config of your own (make reproduce CONFIG=my.yaml)")
    run_config = results / "run-config.yaml"
    config = yaml.safe_load(run_config.read_text(encoding="utf-8")) if run_config.exists() else yaml.safe_load(
        Path("config.yaml").read_text(encoding="utf-8"))
    config = copy.deepcopy(config)
    block = config
    for key in entry.config_block:
        block = block.setdefault(key, {})
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set {item!r}: expected KEY=VALUE")
        set_dotted(block, block_key(key, entry.config_block), yaml.safe_load(value))
    try:
        config = validation.validated(config)
    except ConfigError as err:
        raise SystemExit(f"Config error: {err}") from None
    _, claims = catalogue.build_table_and_claims(output_id, output_params(config, output_id), {})
    for claim in claims:
        if claim.claim_id == claim_id:
            return describe(vars(claim) | {"output_id": output_id})
    raise SystemExit(f"{output_id} has no claim {claim_id!r} at these parameters")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Look at one claim of a run; re-evaluate it at other parameters.")
    sub = parser.add_subparsers(dest="command", required=True)
    lister = sub.add_parser("list", help="every claim of the run: output/claim, kind, status")
    lister.add_argument("--results", type=Path, default=Path("results"),
                        help="the run's results folder (default: results)")
    shower = sub.add_parser("show", help="one claim in full")
    shower.add_argument("claim", help="OUTPUT/CLAIM, e.g. he-composition-delta/he-above-floor")
    shower.add_argument("--results", type=Path, default=Path("results"),
                        help="the run's results folder (default: results)")
    shower.add_argument("--set", nargs="*", action="extend", default=[], metavar="KEY=VALUE",
                        help="rebuild the output with these keys of its config block changed (YAML values), e.g. "
                             "--set \"p_grid=[0.95]\" for zhao-lemma1 (block theory.zhao.lemma1); repeated --set "
                             "options add up")
    args = parser.parse_args(argv)
    claims = load_claims(args.results)
    if args.command == "list":
        for row in claims.itertuples():
            print(f"{row.output_id}/{row.claim_id}  [{row.kind}] {row.status}")
        return 0
    output_id, _, claim_id = args.claim.partition("/")
    match = claims[(claims["output_id"] == output_id) & (claims["claim_id"] == claim_id)]
    if match.empty:
        known = sorted(claims.loc[claims["output_id"] == output_id, "claim_id"])
        if known:
            raise SystemExit(f"unknown claim {args.claim!r}; {output_id} has {known}")
        from adaptive_repro.pipeline import catalogue

        if output_id not in catalogue.OUTPUT_IDS:
            raise SystemExit(f"unknown output {output_id!r} in {args.claim!r}; allowed: OUTPUT/CLAIM with OUTPUT one "
                             f"of {list(catalogue.OUTPUT_IDS)} (`claims list` names every claim of the run)")
        raise SystemExit(f"the run in {args.results} did not build {output_id!r}; it built "
                         f"{sorted(set(claims['output_id']))}. Point --results at another run's folder, or rerun")
    print("As measured by the run:")
    print(describe(match.iloc[0].to_dict()))
    if args.set:
        print(f"\nRe-evaluated with {' '.join(args.set)}:")
        print(reevaluate(args.results, output_id, claim_id, args.set))
    return 0


if __name__ == "__main__":
    sys.exit(main())
