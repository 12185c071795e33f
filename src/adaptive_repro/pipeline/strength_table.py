"""The measured strength tables (``strength/<output>.csv``, written by :mod:`adaptive_repro.pipeline.strength`) as
the build reads them: a claim's strength and its evidence. Kept apart from the measurement, whose imports reach the
simulation, so that a build depends on this small module only (editing an engine reruns no theory build)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

#: Where the measured tables live (one CSV per theory output), relative to the repository.
STRENGTH_DIR = Path("strength")
#: The points tried per output (built, refused by the config check, over the cost budget, crashed; CPU seconds).
SUMMARY_FILE = "points.csv"
#: Columns of a strength table.
COLUMNS = ("output_id", "claim_id", "default_status", "points", "passing", "failing", "verdict_changes",
           "example_point", "example_status")
def format_point(stored: str) -> str:
    """A stored point in words, as ``claims show --set`` takes it: ``key=value`` (JSON values, which YAML reads)."""
    point = json.loads(stored)
    parts = [f"{k}={json.dumps(v)}" for k, v in point["set"].items()]
    if "seed" in point:
        parts.append(f"(seed {point['seed']})")
    return ", ".join(parts) or "the defaults"


def table_path(output_id: str, root: Path = Path(".")) -> Path:
    return root / STRENGTH_DIR / f"{output_id}.csv"


def read_table(path: str | Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def evidence(row) -> str:
    """The ``strength_evidence`` text of a claim row from its strength-table row."""
    points = int(row["points"])
    if row["verdict_changes"] == "yes":
        return (f"measured: verdict not the same at all {points} valid points tried ({row['passing']} pass, "
                f"{row['failing']} fail); {row['example_status']} at {format_point(row['example_point'])}")
    return f"measured: the same verdict at all {points} valid points tried"


#: The evidence of a row no strength table holds.
NOT_MEASURED = {"theory": "not measured (no strength table: run python -m adaptive_repro.pipeline.strength)",
                "experiment": "not measured over configurations (an experiment: its verdicts need simulated "
                              "records); the label is the code's"}


def apply_measured(claims: Iterable, table: pd.DataFrame | None, kind: str) -> list:
    """``claims`` with their strength from the measured table: ``tested`` where the verdict changes at some valid
    point; where it never does, the code's own label (identity / by construction, with its reason) or, for a row the
    code calls tested, ``never turned``; the evidence in ``strength_evidence``. Rows the table does not hold (or an
    output without a table, of ``kind`` "theory" or "experiment") keep the code's label and say they were not
    measured."""
    by_id = {r["claim_id"]: r for r in table.to_dict("records")} if table is not None else {}
    out = []
    for claim in claims:
        row = by_id.get(claim.claim_id)
        if row is None or int(row["points"]) == 0:
            words = NOT_MEASURED[kind] if table is None else (
                "not measured (no decided verdict at the points tried)" if row is not None else
                "not measured (the row did not occur at the points tried)")
            out.append(dataclasses.replace(claim, strength_evidence=words))
            continue
        strength = ("tested" if row["verdict_changes"] == "yes" else
                    "never turned" if claim.strength == "tested" else claim.strength)
        out.append(dataclasses.replace(claim, strength=strength, strength_evidence=evidence(row)))
    return out
