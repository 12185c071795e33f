"""Benchmark of the exact engines of every correlation structure (docs/METHODS.md §4b), written to
results/benchmarks/correlation_engines.csv.

Per data model and n: CPU seconds (time.process_time) of one data set's attribute phase (every sign query, d
attributes: the population plus the data set) and of its selected columns (k_max nested classifiers' accuracies,
O(n) per column). The target of the correlation issue: n up to 10^7 in seconds per replicate, as the batch chain's
engine. Numbers are from one machine; nothing here is asserted.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from adaptive_repro.foundation.io import write_csv  # noqa: E402
from adaptive_repro.simulation.data_models import BatchChain  # noqa: E402
from adaptive_repro.simulation.models.attribute_chains import AttributeChains  # noqa: E402
from adaptive_repro.simulation.models.households import Households  # noqa: E402
from adaptive_repro.simulation.models.regimes import Regimes  # noqa: E402
from adaptive_repro.simulation.registries import ENGINES  # noqa: E402

MODELS = {"batch_chain": BatchChain(p_s=0.95, p_y=0.95, b=1.0), "regimes": Regimes(states=10, stay=0.95, b=1.0),
          "households": Households(size=20, b=1.0), "attribute_chains": AttributeChains(lam=3.0, rho=0.9)}


def measure(model, n: int, d: int, k_max: int) -> dict:
    rng = np.random.default_rng(1)
    engine = ENGINES.get(model.engines("sign", unit_queries=True)[0])
    start = time.process_time()
    pop = model.population(rng, n, d, 0, 6.0)
    data = engine.dataset(rng, model, pop, True)
    q = data.sign_queries()
    attribute_phase = time.process_time() - start
    ranked = np.argsort(-np.abs(q - 0.5), kind="stable")[:k_max]
    start = time.process_time()
    data.accuracies(ranked, np.sign(q[ranked] - 0.5), np.arange(1, k_max + 1))
    columns = time.process_time() - start
    return {"model": model.name, "engine": engine.name, "n": n, "d": d, "k_max": k_max,
            "attribute_phase_cpu_s": attribute_phase, "columns_cpu_s": columns,
            "cpu_s_per_column": columns / k_max}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(ROOT / "results/benchmarks/correlation_engines.csv"))
    parser.add_argument("--n", type=int, nargs="+", default=[10_000, 1_000_000, 10_000_000])
    parser.add_argument("--d", type=int, default=10_000)
    parser.add_argument("--k-max", type=int, default=20)
    args = parser.parse_args()
    rows = [measure(model, n, args.d, args.k_max) for n in args.n for model in MODELS.values()]
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    write_csv(table, args.output)


if __name__ == "__main__":
    main()
