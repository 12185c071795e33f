"""How far above their random-number floor do the correlation experiments run? Written to
results/benchmarks/correlation_engines.csv.

Per point of zhao-correlation (default: config.yaml merged with config/correlation-power.yaml, as
``make reproduce CONFIG=...`` merges them), over ``--replicates`` replicates: the CPU seconds of the replicates
(time.process_time, everything a simulate job does per replicate: populations, data sets, every arm's analyst and
mechanism, the columns), the number of columns the exact engines drew (calls of ``ColumnStreams.start``, counted
in a second, untimed run), and the floor measured right after: the CPU seconds of drawing that many columns
of n standard normals with numpy (SFC64, 256 columns per call) and nothing else. ``ratio`` = replicate CPU / floor.
The machine's reference workloads (benchmarks/machine.py) are recorded beside them. Nothing is asserted: shared
machines are noisy; compare versions by running this one after the other.

    .venv/bin/python benchmarks/correlation_engines.py [--config config/correlation-power.yaml] [--replicates 2]
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from machine import reference_seconds

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from adaptive_repro.foundation.config import merged  # noqa: E402
from adaptive_repro.foundation.io import write_csv  # noqa: E402
from adaptive_repro.pipeline import validation  # noqa: E402
from adaptive_repro.simulation.column_blocks import ColumnStreams  # noqa: E402


def correlation_spec(config_file: Path):
    """zhao-correlation's resolved spec for config.yaml merged with ``config_file``."""
    config = merged(yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8")),
                    yaml.safe_load(config_file.read_text(encoding="utf-8")))
    return validation.resolved_with_specs(config)[1]["zhao-correlation"]


def columns_drawn(spec, seed: int, replicates: list[int]) -> int:
    """Columns the exact engines drew in these replicates (the count of ``ColumnStreams.start`` calls)."""
    before = ColumnStreams.started
    spec.simulate_tables(seed, replicates)
    return ColumnStreams.started - before


def floor_seconds(columns: int, n: int) -> float:
    """CPU seconds of ``columns`` columns of n standard normals, 256 columns per call."""
    rng = np.random.Generator(np.random.SFC64(0))
    start = time.process_time()
    for first in range(0, columns, 256):
        rng.standard_normal((min(256, columns - first), n))
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=ROOT / "config/correlation-power.yaml")
    parser.add_argument("--replicates", type=int, default=2)
    parser.add_argument("--output", type=Path, default=ROOT / "results/benchmarks/correlation_engines.csv")
    args = parser.parse_args()
    spec = correlation_spec(args.config)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            encoding="utf-8").stdout.strip()
    reference = reference_seconds()
    replicates = list(range(args.replicates))
    rows = []
    for point in spec.points:
        one = dataclasses.replace(spec, points=(point,))
        one.simulate_tables(spec.replicates, [0])  # warm-up: imports, the arms' settings (once per job)
        start = time.process_time()
        one.simulate_tables(0, replicates)
        cpu = (time.process_time() - start) / len(replicates)
        columns = columns_drawn(one, 0, replicates) / len(replicates)
        floor = floor_seconds(int(columns * len(replicates)), point.n) / len(replicates)
        rows.append({"point": point.name.split("@", 1)[1], "n": point.n, "d": point.d,
                     "cpu_s_per_replicate": round(cpu, 3), "columns_per_replicate": round(columns),
                     "floor_s_per_replicate": round(floor, 3), "ratio": round(cpu / floor, 2)})
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    total = {"point": "all points", "n": table["n"].max(), "d": table["d"].max(),
             "cpu_s_per_replicate": round(table["cpu_s_per_replicate"].sum(), 3),
             "columns_per_replicate": table["columns_per_replicate"].sum(),
             "floor_s_per_replicate": round(table["floor_s_per_replicate"].sum(), 3)}
    total["ratio"] = round(total["cpu_s_per_replicate"] / total["floor_s_per_replicate"], 2)
    table = pd.concat([table, pd.DataFrame([total])], ignore_index=True)
    table.insert(0, "config", args.config.name)
    table.insert(0, "commit", commit)
    table.insert(0, "date", datetime.date.today().isoformat())
    for key, value in reference.items():
        table[key] = value
    print(table.to_string(index=False))
    if args.output.exists():
        table = pd.concat([pd.read_csv(args.output), table], ignore_index=True)
    write_csv(table, args.output)


if __name__ == "__main__":
    main()
