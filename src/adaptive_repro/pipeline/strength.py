"""How strong each theory claim's check is, measured: could its verdict have come out the other way?

    python -m adaptive_repro.pipeline.strength [--points 30] [--outputs he-kl he-sgld ...]

For every theory output, each claim row's verdict is evaluated at the output's default configuration and at many
other valid configurations from the output's own config schema: from a fast base block, each key alone at each edge
of its range (a grid of one element at each edge, or empty where allowed), the two corners (every key at its lower
edge, every key at its upper edge), and random points (each key either kept or drawn within its type and range,
edges included; arrays of one to three elements; the seed drawn too, for the Monte-Carlo outputs), and a few valid
points where a verdict is known to turn (:data:`PROBES`). A point the
config check refuses, or whose estimated cost exceeds :data:`POINT_BUDGET_SECONDS`, is not built (nor one still
running after :data:`POINT_LIMIT_SECONDS`). A row whose decided verdict differs between two points is **tested**,
and the table names one such point, reduced to the fewest keys changed from the defaults; a row whose verdict is the
same at every point tried never changed, and its code must label it ``identity`` or ``by construction`` with the
reason (a test compares).

The result is one table per output, ``strength/<output>.csv`` (and the points tried, ``strength/points.csv``), which
the build reads to fill the claims' ``strength`` and ``strength_evidence`` columns; this command refreshes it (about
20 CPU-minutes, measured; not part of a run). Experiment outputs are not measured here: their verdicts need simulated
records (their rows say so).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from adaptive_repro.foundation.config import ConfigError
from adaptive_repro.foundation.io import write_csv
from adaptive_repro.foundation.registry import DECIDED_STATUSES, FAILING_STATUSES
from adaptive_repro.pipeline import catalogue, resources, validation
from adaptive_repro.pipeline.catalogue import default_params, output_params, output_schema
from adaptive_repro.pipeline.schema_points import draw_value, key_edges
from adaptive_repro.pipeline.strength_table import (
    COLUMNS,
    STRENGTH_DIR,
    SUMMARY_FILE,
    format_point,
    read_table,
    table_path,
)

#: Fast base values of the keys that set an output's cost (grid sizes, replicates); every other key starts at its
#: default. A drawn point replaces about half of the keys by drawn values.
FAST_SETTINGS: dict[str, dict] = {
    "zhao-fig1": {},
    "zhao-bdp-conversion": {"n": 200, "tau": [0.1], "binary_p": [0.6], "data_model_chains": [{"p_s": 0.6, "p_y": 0.6}],
                            "lemma4_c": [0.1], "figure_p": [0.6, 0.7], "claim_eps": [0.1], "claim_n": [200]},
    "zhao-sample-complexity": {"n": 200, "tau_points": 4, "p": [0.75], "data_model_chains": [],
                               "guarantee_p": [0.5], "guarantee_tau": [0.3]},
    "zhao-maxinfo": {"n_grid": [100], "eps_points": 3},
    "zhao-lemma1": {"p_grid": [0.5, 0.9], "n_grid": [50], "taus": [0.2], "replicates": 100},
    "he-kl": {"points": 5},
    "he-composition-eps": {"eps": [0.01, 1.0], "delta": [0.0, 1e-6], "T": [10], "T_curve": [1, 10, 200],
                           "delta_tilde_sweep": [1e-3, 1e-8], "laplace_pld": True},
    "he-composition-delta": {"eps": [0.01, 1.0], "delta": [0.0, 1e-6], "T_curve": [1, 10, 200],
                             "delta_tilde_sweep": [1e-3, 1e-8]},
    "he-generalization": {"eps": [0.5], "delta": [1e-6], "k": [1], "N": [1000]},
    "he-sgld": {"N": [10_000], "T": [10, 100], "sigma": [1.0], "wang_eps": [1.0]},
    "he-federated": {"N": [10_000], "T": [10, 100], "sigma": [1.0]},
    "lecture-transfer": {"m_grid": [500], "replicates": 200},
    "lecture-monitor": {"m": 200, "T_grid": [1, 4], "replicates": 50, "min_total_datasets": 0},
}
#: The seed of the reference point, the default config's (config.yaml's seed); a non-Monte-Carlo output ignores it.
REFERENCE_SEED = 2015
#: Valid points worth trying besides the edges and random draws, per output (applied to the fast base): settings
#: where a verdict is known to turn (a weakly correlated chain, one T or eps of a grid, a large n), which random
#: draws over wide ranges rarely hit.
PROBES: dict[str, list[dict]] = {
    "zhao-bdp-conversion": [{"binary_p": [0.50001], "data_model_chains": []}, {"n": 3}],
    "he-kl": [{"eps_min": 0.5}],  # eps_min has no maximum of its own (eps_max bounds it): draws stay near 0.001
    # inside Theorem 0.2's range (sqrt(12/m) <= eps <= 1/8, delta <= eps/16), which random points mostly miss
    "lecture-transfer": [{"m_grid": [1000, 4000]}, {"m_grid": [4000, 16000], "epsilons": [0.1, 0.125]},
                         {"m_grid": [8000], "epsilons": [0.05], "delta": 0.003}, {"m_grid": [2000], "d": 60},
                         {"m_grid": [16000], "epsilons": [0.03, 0.06], "delta": 0.0}],
    "zhao-sample-complexity": [{"guarantee_p": [0.98]}, {"n": 10_000_000}],
    "zhao-lemma1": [{"p_grid": [0.99], "n_grid": [400], "taus": [0.3]}],
    "he-composition-delta": [{"eps": [1.0]}, {"eps": [0.01]}, {"T_curve": [200]}],
    "he-sgld": [{"T": [10]}, {"T": [100]}, {"T": [1000]}],
    "he-federated": [{"T": [10]}, {"T": [100]}, {"T": [1000]}],
}
#: Outputs whose verdicts depend on the seed (Monte Carlo): a stored point names its seed.
SEEDED = ("zhao-lemma1", "lecture-transfer", "lecture-monitor")
#: A drawn point is built only if the output's estimated job cost (resources.theory_cost) is at most this.
POINT_BUDGET_SECONDS = 6.0
#: A build still running after this much CPU is stopped and counted as too costly (the estimate was wrong).
POINT_LIMIT_SECONDS = 12.0
def base_block(output_id: str) -> dict:
    """The output's default block with its fast settings applied."""
    block = default_params(output_id, FAST_SETTINGS.get(output_id, {}))
    block.pop("seed")
    return block


def draw_block(output_id: str, rng: np.random.Generator) -> dict:
    """A candidate point: the base block with each key redrawn with probability 1/2 (at least one key)."""
    schema, root = output_schema(output_id)
    defaults = default_params(output_id)
    block = base_block(output_id)
    keys = list(schema["properties"])
    redraw = [k for k in keys if rng.random() < 0.5] or [keys[rng.integers(len(keys))]]
    for key in redraw:
        reference = defaults[key] if not isinstance(defaults[key], (int, float)) else max(
            abs(defaults[key]), abs(block[key]) if isinstance(block[key], (int, float)) else 0)
        block[key] = draw_value(schema["properties"][key], root, rng, reference)
    return block


def structured_blocks(output_id: str) -> list[dict]:
    """The points every measurement tries besides the random ones: from the base block, each key alone at each of its
    edges, then every key at its lower edge together and every key at its upper edge (the schema's two corners), then
    the output's :data:`PROBES`."""
    schema, root = output_schema(output_id)
    base = base_block(output_id)
    blocks = []
    corners: list[dict] = [dict(base), dict(base)]
    for key, prop in schema["properties"].items():
        values = key_edges(prop, root)
        blocks += [base | {key: copy.deepcopy(v)} for v in values]
        if values:
            corners[0][key], corners[1][key] = copy.deepcopy(values[0]), copy.deepcopy(values[-1])
    return blocks + corners + [base | probe for probe in PROBES.get(output_id, [])]


def _config(output_id: str, block: dict, seed: int) -> dict:
    config: dict = {"seed": seed, "experiments": {}, "outputs": [output_id]}
    node = config
    path = catalogue.get(output_id).config_block
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = copy.deepcopy(block)
    return config


def changed_keys(output_id: str, block: dict) -> dict:
    """The keys of ``block`` whose values differ from the output's defaults."""
    defaults = default_params(output_id)
    return {k: v for k, v in block.items() if defaults.get(k) != v}


def point_json(output_id: str, block: dict, seed: int | None = None) -> str:
    """A point as the table stores it: the keys changed from the defaults (and the seed where it matters), JSON."""
    point: dict = {"set": changed_keys(output_id, block)}
    if seed is not None:
        point["seed"] = seed
    return json.dumps(point, sort_keys=True)


def point_block(output_id: str, stored: str) -> tuple[dict, int]:
    """(the block, the seed) of a stored point: the defaults with its keys set."""
    point = json.loads(stored)
    block = {k: v for k, v in default_params(output_id).items() if k != "seed"} | point["set"]
    return block, int(point.get("seed", REFERENCE_SEED))


class _OverLimit(Exception):
    """A build ran past :data:`POINT_LIMIT_SECONDS` of CPU."""


@contextlib.contextmanager
def _cpu_limit(seconds: float | None):
    """Stop the block with :class:`_OverLimit` after ``seconds`` of process CPU time (None: no limit). The
    estimate that admits a point (resources.theory_cost) can be far off at points unlike the measured defaults."""
    if seconds is None:
        yield
        return

    def stop(signum, frame):
        raise _OverLimit

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@dataclass
class Point:
    """One configuration tried: its block, seed and the statuses of its claim rows (empty if not built)."""

    block: dict
    seed: int
    statuses: dict[str, str] = field(default_factory=dict)


class Measurer:
    """Builds one output at points, within the cost budget, caching each point's statuses."""

    def __init__(self, output_id: str):
        self.output_id = output_id
        self.defaults = default_params(output_id)
        self.cache: dict[str, dict[str, str] | None] = {}
        self.refused = self.too_costly = 0
        self.crashes: list[str] = []
        self.underestimated: list[str] = []  # points stopped at POINT_LIMIT_SECONDS although estimated cheaper

    def statuses(self, block: dict, seed: int, *, any_cost: bool = False) -> dict[str, str] | None:
        """Claim ID -> status at ``block`` (None when refused by the config check, too costly, or crashed)."""
        key = yaml.safe_dump([block, seed], sort_keys=True)
        if key in self.cache:
            return self.cache[key]
        self.cache[key] = None
        try:
            resolved = validation.validated(_config(self.output_id, block, seed))
        except ConfigError:
            self.refused += 1
            return None
        params = output_params(resolved, self.output_id)
        if not any_cost and resources.theory_cost(self.output_id, params, self.defaults).seconds > POINT_BUDGET_SECONDS:
            self.too_costly += 1
            return None
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"), _cpu_limit(None if any_cost else
                                                                                    POINT_LIMIT_SECONDS):
                warnings.simplefilter("ignore")
                _, claims = catalogue.build_table_and_claims(self.output_id, params, {})
        except _OverLimit:
            self.too_costly += 1
            self.underestimated.append(format_point(point_json(self.output_id, block, seed)))
            return None
        except Exception as err:  # a valid point that crashes is recorded, not fatal to the measurement
            where = format_point(point_json(self.output_id, block, seed))
            self.crashes.append(f"{where}: {type(err).__name__}: {err}")
            return None
        self.cache[key] = {c.claim_id: c.status for c in claims}
        return self.cache[key]


def _opposite(a: str, b: str) -> bool:
    """Two decided verdicts that disagree (holds / does not hold, reproduced / differs)."""
    return a in DECIDED_STATUSES and b in DECIDED_STATUSES and (a in FAILING_STATUSES) != (b in FAILING_STATUSES)


def _reduced(measurer: Measurer, claim_id: str, point: Point, status: str) -> Point:
    """``point`` with as many keys as possible put back to their defaults while ``claim_id`` keeps ``status``."""
    block = copy.deepcopy(point.block)
    for key in list(changed_keys(measurer.output_id, block)):
        trial = block | {key: copy.deepcopy(measurer.defaults[key])}
        got = measurer.statuses(trial, point.seed)
        if got is not None and got.get(claim_id) == status:
            block = trial
    return Point(block, point.seed)


def measure(output_id: str, points: int, reference_seed: int, seed: int = 20261207,
            log=print) -> tuple[pd.DataFrame, dict]:
    """The strength table of one output (:data:`COLUMNS`) and counts of the points tried: the reference point is the
    defaults at ``reference_seed`` (the run's seed), the drawn points come from ``seed``."""
    rng = np.random.default_rng([seed, catalogue.OUTPUT_IDS.index(output_id)])
    measurer = Measurer(output_id)
    default_block = {k: v for k, v in measurer.defaults.items() if k != "seed"}
    start = time.process_time()
    reference = measurer.statuses(default_block, reference_seed, any_cost=True) or {}
    tried: list[Point] = []
    for block in structured_blocks(output_id):
        got = measurer.statuses(block, reference_seed)
        if got is not None:
            tried.append(Point(block, reference_seed, got))
    structured = len(tried)
    attempts = 0
    while len(tried) < structured + points and attempts < 20 * points:
        attempts += 1
        block = draw_block(output_id, rng)
        point_seed = int(rng.integers(1, 2**31)) if output_id in SEEDED else reference_seed
        got = measurer.statuses(block, point_seed)
        if got is not None:
            tried.append(Point(block, point_seed, got))
    rows = []
    for claim_id in sorted(set(reference).union(*(p.statuses for p in tried))):
        ref = reference.get(claim_id, "")
        seen = [(p, p.statuses[claim_id]) for p in tried if p.statuses.get(claim_id) in DECIDED_STATUSES]
        decided = [s for _, s in seen] + ([ref] if ref in DECIDED_STATUSES else [])
        anchor = ref if ref in DECIDED_STATUSES else (decided[0] if decided else "")
        flip = next(((p, s) for p, s in seen if _opposite(s, anchor)), None)
        example, example_status = "", ""
        if flip is not None:
            example_status = flip[1]
            reduced = _reduced(measurer, claim_id, *flip)
            example = point_json(output_id, reduced.block, reduced.seed if output_id in SEEDED else None)
        rows.append({"output_id": output_id, "claim_id": claim_id, "default_status": ref, "points": len(decided),
                     "passing": sum(s not in FAILING_STATUSES for s in decided),
                     "failing": sum(s in FAILING_STATUSES for s in decided),
                     "verdict_changes": "yes" if flip is not None else "no",
                     "example_point": example, "example_status": example_status})
    for point in measurer.underestimated:
        log(f"  {output_id}: stopped after {POINT_LIMIT_SECONDS:g} CPU-s (estimated at most "
            f"{POINT_BUDGET_SECONDS:g}): {point}")
    counts = {"output_id": output_id, "built": len(tried) + 1, "refused": measurer.refused,
              "too_costly": measurer.too_costly, "crashed": len(measurer.crashes),
              "cpu_s": round(time.process_time() - start, 1)}
    for crash in measurer.crashes:
        log(f"  {output_id}: a valid point crashed: {crash}")
    return pd.DataFrame(rows, columns=list(COLUMNS)), counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Measure each theory claim's strength over valid configurations.")
    parser.add_argument("--points", type=int, default=30,
                        help="random valid points built per output, besides the edges and corners (default 30)")
    parser.add_argument("--outputs", nargs="*", default=list(catalogue.THEORY_OUTPUTS),
                        help="theory outputs to measure (default: all)")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository (default: here)")
    args = parser.parse_args(argv)
    unknown = [o for o in args.outputs if o not in catalogue.THEORY_OUTPUTS]
    if unknown:
        raise SystemExit(f"--outputs: {unknown} are not theory outputs; allowed: {list(catalogue.THEORY_OUTPUTS)}")
    summary_path = args.root / STRENGTH_DIR / SUMMARY_FILE
    summary = read_table(summary_path).set_index("output_id") if summary_path.exists() else None
    for output_id in args.outputs:
        table, counts = measure(output_id, args.points, REFERENCE_SEED)
        write_csv(table, table_path(output_id, args.root))
        row = pd.DataFrame([counts]).set_index("output_id").astype(str)
        summary = row if summary is None else pd.concat([summary.drop(output_id, errors="ignore"), row])
        write_csv(summary.reset_index().sort_values("output_id"), summary_path)
        changes = int((table["verdict_changes"] == "yes").sum())
        print(f"{output_id}: {counts['built']} points built ({counts['refused']} refused by the config check, "
              f"{counts['too_costly']} over the cost budget, {counts['crashed']} crashed), {counts['cpu_s']} CPU-s; "
              f"{changes} of {len(table)} rows change verdict", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
