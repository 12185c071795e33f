"""Simulation records as plain rows, for the jobs that only write them: a simulation job builds its records and
diagnostics as a :class:`RecordTable` and writes its CSV without loading pandas (about a fifth of a CPU-second of
start-up per job). The CSV is byte for byte what ``pandas.DataFrame.to_csv(index=False)`` writes for the same rows
(tests/unit/test_record_table.py compares the two on every experiment of config.yaml and on edge cases), so the
records, their digests and every number computed from them are the same whichever writes them.

Column types are inferred as pandas infers them from rows: a column of integers is written as integers, one of
integers with a missing value or a float as floats (``3.0``), booleans as ``True``/``False``; a missing value (None
or NaN) is an empty field. Guaranteed for the values the simulations write: Python or numpy bools, integers below
2**63, float64 (Python float), strings and None/NaN; not for columns of only float32/float16, complex or pandas.NA,
which pandas keeps in their own types.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported by to_frame only
    import pandas as pd


@dataclasses.dataclass(frozen=True)
class RecordTable:
    """Rows (tuples, one value per column) under named columns."""

    columns: tuple[str, ...]
    rows: list[tuple]

    def __post_init__(self):
        width = len(self.columns)
        if any(len(row) != width for row in self.rows):
            raise ValueError(f"every row must have {width} values (the columns {list(self.columns)})")

    def __len__(self) -> int:
        return len(self.rows)

    @classmethod
    def from_dicts(cls, columns: Sequence[str], dicts: Iterable[dict]) -> RecordTable:
        """Rows from mappings (a key a mapping lacks is a missing value; keys outside ``columns`` are refused)."""
        rows = []
        for d in dicts:
            unknown = set(d) - set(columns)
            if unknown:
                raise ValueError(f"keys {sorted(unknown)} are not columns {list(columns)}")
            rows.append(tuple(d.get(c) for c in columns))
        return cls(tuple(columns), rows)

    @classmethod
    def concat(cls, columns: Sequence[str], tables: Iterable[RecordTable]) -> RecordTable:
        """The rows of ``tables`` in order (each must have ``columns``)."""
        rows: list[tuple] = []
        for table in tables:
            if table.columns != tuple(columns):
                raise ValueError(f"columns {list(table.columns)} differ from {list(columns)}")
            rows.extend(table.rows)
        return cls(tuple(columns), rows)

    def with_column(self, name: str, value) -> RecordTable:
        """The table with one more column holding ``value`` in every row."""
        return RecordTable((*self.columns, name), [(*row, value) for row in self.rows])

    def to_frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (pandas infers the column types)."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=list(self.columns))

    def csv_text(self) -> str:
        """The CSV that ``to_frame().to_csv(index=False)`` writes, without pandas (module docstring)."""
        formats = [_column_format([row[i] for row in self.rows]) for i in range(len(self.columns))]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows([fmt(v) for fmt, v in zip(formats, row)] for row in self.rows)
        return buffer.getvalue()


def _missing(value) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))


def _as_float(value) -> str:
    return "" if _missing(value) else repr(float(value))


def _as_str(value) -> str:
    return "" if _missing(value) else str(value)


def _as_int(value) -> str:
    return str(int(value))


def _column_format(values: list):
    """How pandas writes a column of these Python or numpy values (its type inference from rows)."""
    kinds = set()
    for v in values:
        if _missing(v):
            kinds.add("missing")
        elif isinstance(v, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(v, (int, np.integer)):
            kinds.add("int")
        elif isinstance(v, (float, np.floating)):
            kinds.add("float")
        else:
            kinds.add("other")
    if kinds == {"int"}:
        return _as_int
    if kinds and kinds <= {"int", "float", "missing"} and kinds & {"int", "float"}:
        return _as_float  # integers with a float or a missing value become float64
    return _as_str  # booleans, text, and mixtures: each value as itself
