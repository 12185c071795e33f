"""Compare the tables and claims of two results directories, file by file.

    python -m adaptive_repro.pipeline.compare RESULTS_A RESULTS_B [--statuses]

Tables (``tables/<ID>.csv``) must be byte-identical. Claims files are compared byte for byte and, where the
registry's columns differ between the two (an older run), on the columns both have. Prints one line per file and
exits 1 if anything differs. Used to show that a restructuring preserved behaviour, and that a changed config gives
the same tables as a clean run of that config. ``--statuses`` also lists every claim whose status differs between the
two runs' ``tables/claims.csv`` (and the claims only one of them has): what a change of a decision rule re-decides.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd


def compare_file(a: Path, b: Path) -> str:
    """'identical', 'identical on common columns [...]', or a description of the first difference."""
    if not a.exists() or not b.exists():
        return f"missing in {'A' if not a.exists() else 'B'}"
    if a.read_bytes() == b.read_bytes():
        return "identical"
    fa, fb = pd.read_csv(a, dtype=str, keep_default_na=False), pd.read_csv(b, dtype=str, keep_default_na=False)
    common = [c for c in fa.columns if c in fb.columns]
    if set(fa.columns) != set(fb.columns) and len(fa) == len(fb) and fa[common].equals(fb[common]):
        return (f"identical on common columns (A only: {sorted(set(fa.columns) - set(fb.columns))}, "
                f"B only: {sorted(set(fb.columns) - set(fa.columns))})")
    if len(fa) != len(fb):
        return f"DIFFERENT: {len(fa)} vs {len(fb)} rows"
    for col in common:
        diff = fa[col] != fb[col]
        if diff.any():
            i = int(diff.to_numpy().nonzero()[0][0])
            return f"DIFFERENT: column {col!r}, row {i}: {fa[col].iloc[i]!r} vs {fb[col].iloc[i]!r}"
    return "DIFFERENT: columns " + str(list(fa.columns)) + " vs " + str(list(fb.columns))


def compare_dirs(a: Path, b: Path, subdirs=("tables", "claims")) -> dict[str, str]:
    """``{relative path: verdict}`` for every CSV of ``subdirs`` in either directory."""
    names = sorted({str(p.relative_to(d)) for d in (a, b) for s in subdirs for p in (d / s).glob("*.csv")})
    return {name: compare_file(a / name, b / name) for name in names}


def status_changes(a: Path, b: Path) -> pd.DataFrame:
    """Claims (output_id, claim_id) whose status differs between two runs' ``tables/claims.csv``, with both statuses
    ("(absent)" where a run has no such claim)."""
    keys = ["output_id", "claim_id"]
    fa, fb = (pd.read_csv(d / "tables" / "claims.csv", dtype=str, keep_default_na=False)[[*keys, "status"]]
              for d in (a, b))
    both = fa.merge(fb, on=keys, how="outer", suffixes=("_a", "_b")).fillna("(absent)")
    return both[both["status_a"] != both["status_b"]].reset_index(drop=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--statuses", action="store_true", help="list the claims whose status differs")
    args = parser.parse_args(argv)
    if args.statuses:
        changed = status_changes(args.a, args.b)
        for r in changed.itertuples():
            print(f"status {r.output_id}/{r.claim_id}: {r.status_a} -> {r.status_b}")
        print(f"{len(changed)} claim statuses differ")
    verdicts = compare_dirs(args.a, args.b)
    for name, verdict in verdicts.items():
        print(f"{name}: {verdict}")
    bad = [n for n, v in verdicts.items() if v.startswith(("DIFFERENT", "missing"))]
    print(f"{len(verdicts) - len(bad)} of {len(verdicts)} files identical" + (f"; differ: {bad}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
