"""The records digest names what an experiment's records depend on: never the replicate count (raising it must keep
the chunks already simulated), always the rest of the spec and the seed."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from adaptive_repro.pipeline import validation
from adaptive_repro.pipeline.specs import expand_experiments, records_digest

CONFIG = yaml.safe_load((Path(__file__).resolve().parents[3] / "config.yaml").read_text())


def specs(config: dict) -> dict:
    return expand_experiments(validation.validated(copy.deepcopy(config)))


def with_replicates(config: dict, name: str, replicates: int) -> dict:
    changed = copy.deepcopy(config)
    changed["experiments"][name]["replicates"] = replicates
    return changed


@pytest.mark.parametrize("name", sorted(CONFIG["experiments"]))
def test_replicate_count_does_not_change_the_digest(name):
    before = {k: records_digest(s, 2015) for k, s in specs(CONFIG).items()}
    after = {k: records_digest(s, 2015) for k, s in
             specs(with_replicates(CONFIG, name, CONFIG["experiments"][name]["replicates"] + 3)).items()}
    assert before == after


def test_seed_and_spec_change_the_digest():
    spec = specs(CONFIG)["zhao-correlation"]
    assert records_digest(spec, 2015) != records_digest(spec, 2016)
    changed = copy.deepcopy(CONFIG)
    changed["experiments"]["zhao-correlation"]["n"] = 1200
    assert records_digest(specs(changed)["zhao-correlation"], 2015) != records_digest(spec, 2015)
