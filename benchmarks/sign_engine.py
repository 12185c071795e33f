"""Benchmark of the exact sign-query engine (docs/METHODS.md §4a), written to results/benchmarks/sign_engine.csv.

One replicate = train, holdout (observed) and fresh data sets of the chain model; sign queries of train and
holdout; the analyst's ranking by |q_train - 1/2| (top k_max, weights sign(q_train - 1/2)); nested accuracies of
every classifier size 1..k_max on train, holdout and fresh. Each configuration runs in a fresh subprocess that
reports CPU seconds (time.process_time) per phase and its peak resident memory (resource.getrusage, which includes
the interpreter and imports: the "baseline" row is an empty run). Targets for the exact engine at n = 10^6,
d = 10^4, k_max = 200: <= 10 CPU-s and <= 1 GB. The direct engine runs at a small size, and the exact engine at the
same size, for the ratio. "exact-fresh-columns" draws the fresh set's columns too (jointly exact across sizes and
arms) instead of binomials. Numbers are from one machine; nothing here is asserted.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from adaptive_repro.foundation.io import write_csv  # noqa: E402

CHILD = """
import json, resource, sys, time
import numpy as np
from adaptive_repro.foundation import seeds
from adaptive_repro.simulation import data_models, sign_engine
from adaptive_repro.simulation.registries import ENGINES
engine, n, d, k_max, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
phases = dict(data=0.0, sign_queries=0.0, acc_train=0.0, acc_holdout=0.0, acc_fresh=0.0)
for rep in range(reps) if engine != "baseline" else ():
    pop = data_models.chain_population(seeds.rng(1, "bench", rep, "population"), n, d, 0.8, 0.8, 0.5, 20, 6.0)
    t = time.process_time()
    make = (lambda rng, pop, observed: sign_engine.ExactSignDataset(rng, pop, observed, fresh_accuracy="columns")
            if engine == "exact-fresh-columns"
            else ENGINES.get(engine).dataset(rng, data_models.BatchChain(), pop, observed))
    sets = {name: make(seeds.rng(1, "bench", rep, name), pop, name != "fresh")
            for name in ("train", "holdout", "fresh")}
    phases["data"] += time.process_time() - t
    t = time.process_time()
    q_train, q_holdout = sets["train"].sign_queries(), sets["holdout"].sign_queries()
    phases["sign_queries"] += time.process_time() - t
    ranked = np.argsort(-np.abs(q_train - 0.5), kind="stable")[:k_max]
    weights = np.sign(q_train[ranked] - 0.5)
    sizes = np.arange(1, k_max + 1)
    for name in ("train", "holdout", "fresh"):
        t = time.process_time()
        sets[name].accuracies(ranked, weights, sizes, seeds.rng(1, "bench", rep, "scores", name))
        phases["acc_" + name] += time.process_time() - t
    del sets
reps = max(reps, 1)
out = {k: v / reps for k, v in phases.items()}
out["cpu_s_per_replicate"] = sum(out.values())
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def measure(engine: str, n: int, d: int, k_max: int, replicates: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, engine, str(n), str(d), str(k_max), str(replicates)],
                         check=True, capture_output=True, text=True, encoding="utf-8")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(ROOT / "results/benchmarks/sign_engine.csv"))
    parser.add_argument("--n", type=int, default=10**6)
    parser.add_argument("--d", type=int, default=10**4)
    parser.add_argument("--k-max", type=int, default=200)
    parser.add_argument("--small", type=int, default=2000, help="n = d for the direct-vs-exact ratio")
    parser.add_argument("--small-replicates", type=int, default=3)
    args = parser.parse_args()
    runs = [("baseline", 1, 1, 0, 0), ("exact", args.n, args.d, args.k_max, 1),
            ("exact-fresh-columns", args.n, args.d, args.k_max, 1),
            ("direct", args.small, args.small, args.k_max, args.small_replicates),
            ("exact", args.small, args.small, args.k_max, args.small_replicates)]
    rows = []
    for engine, n, d, k_max, reps in runs:
        rows.append({"engine": engine, "n": n, "d": d, "k_max": k_max, "replicates": reps,
                     **measure(engine, n, d, k_max, reps)})
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    small = table[(table["n"] == args.small) & (table["engine"] != "baseline")].set_index("engine")
    table["cpu_ratio_direct_over_exact_small"] = (small.loc["direct", "cpu_s_per_replicate"]
                                                  / small.loc["exact", "cpu_s_per_replicate"])
    table["target_cpu_s"], table["target_rss_mb"] = 10.0, 1024.0
    print(table.to_string(index=False))
    write_csv(table, args.output)


if __name__ == "__main__":
    main()
