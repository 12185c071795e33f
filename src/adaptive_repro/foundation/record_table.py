"""Simulation records as plain rows under named columns, collected replicate by replicate and turned into one
pandas DataFrame at the end (:meth:`RecordTable.to_frame`), so pandas infers each column's type from all rows at once
(a column of integers with a missing value in one replicate becomes float in every replicate's rows alike)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

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

    def to_frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (pandas infers the column types)."""
        return pd.DataFrame(self.rows, columns=list(self.columns))
