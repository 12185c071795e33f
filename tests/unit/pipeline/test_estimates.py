"""The cost estimates the workflow prints before any job (pipeline/resources.py) against measured costs.

benchmarks/recorded-costs.csv holds, per shipped config and output, the CPU seconds its jobs measured themselves on a
2-core machine of this project's kind (``benchmarks/estimates.py --record`` after a run). An estimate may be off by
the machine (2x) but not by more: a change to the engines, the grids or the cost model that moves an estimate beyond
2x of its recorded measurement fails here, and is fixed by correcting the model or re-recording after a run.
"""
from pathlib import Path

import pandas as pd
import pytest

from adaptive_repro.pipeline import resources, validation

ROOT = Path(__file__).resolve().parents[3]
RECORDED = pd.read_csv(ROOT / "benchmarks" / "recorded-costs.csv")


def _estimated(config: str) -> pd.Series:
    files = [str(ROOT / "config.yaml")] + ([] if config == "config.yaml" else [str(ROOT / config)])
    costs = resources.output_estimates(validation.validated_files(files))
    return pd.Series({oid: cost.seconds for oid, cost in costs.items()})


@pytest.mark.parametrize("config", sorted(RECORDED["config"].unique()))
def test_estimates_stay_within_twice_the_recorded_measurements(config):
    rows = RECORDED[RECORDED["config"] == config].set_index("output")
    estimate = _estimated(config)
    ratio = estimate[rows.index] / rows["measured_cpu_s"]
    outside = ratio[(ratio < 0.5) | (ratio > 2.0)]
    assert outside.empty, f"{config}: estimate / measured outside [0.5, 2]: {outside.round(2).to_dict()}"


def test_every_output_of_the_default_config_has_a_recorded_measurement():
    import yaml

    outputs = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))["outputs"]
    recorded = set(RECORDED.loc[RECORDED["config"] == "config.yaml", "output"])
    assert set(outputs) <= recorded, sorted(set(outputs) - recorded)
