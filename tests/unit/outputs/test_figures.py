"""Every figure of the catalogue, rendered: drawn for the size it is seen and in the pipeline's one encoding.

Theory outputs are built at their default parameters (the figures a default run shows); experiment outputs on the
default config's experiments with 3 replicates each (the default figures' layout on noisier numbers, which also
exercises the verdict wording on numbers other than the default run's). Each figure must have no problem that
figure_checks.figure_problems names (width, text below 9 pt, an arm / method / data set off its colour or marker or
drawn without its encoding, a log axis not labelled 10^k, a code name or file path in a title) and a verdict title.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml

from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.catalogue import output_params
from adaptive_repro.pipeline.specs import expand_experiments, output_of
from adaptive_repro.pipeline.validation import validated
from adaptive_repro.report import figure_checks, plotting

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
REPLICATES = 3


@pytest.fixture(scope="module")
def config() -> dict:
    raw = yaml.safe_load((ROOT / "config.yaml").read_text())
    for block in raw["experiments"].values():
        block["replicates"] = REPLICATES
    return validated(copy.deepcopy(raw))


@pytest.fixture(scope="module")
def specs(config) -> dict:
    return expand_experiments(config)


def build_inputs(output_id: str, config: dict, specs: dict) -> tuple[dict, dict]:
    if catalogue.get(output_id).kind != "experiment":
        return output_params(config, output_id), {}
    mine = {name: spec for name, spec in specs.items() if output_of(name) == output_id}
    records, diagnostics = [], []
    for spec in mine.values():
        r, d = spec.run_replicates(config["seed"], range(REPLICATES), with_diagnostics=True)
        records.append(r)
        diagnostics.append(d)
    return {"seed": config["seed"]}, {"records": pd.concat(records, ignore_index=True),
                                      "diagnostics": pd.concat(diagnostics, ignore_index=True), "specs": mine}


@pytest.mark.parametrize("output_id", catalogue.OUTPUT_IDS)
def test_every_figure_is_drawn_for_its_size_in_the_one_encoding(output_id, config, specs):
    params, inputs = build_inputs(output_id, config, specs)
    _, fig, _ = catalogue.build(output_id, params, inputs)
    try:
        assert figure_checks.figure_problems(fig) == []
        title = fig.get_suptitle()
        assert title.strip(), f"{output_id}: no verdict title (plotting.verdict_title)"
        assert fig.get_figheight() <= 8.0, f"{output_id}: {fig.get_figheight():.1f} in tall"
        saved = fig.get_tightbbox(fig.canvas.get_renderer())  # what the saved files hold (titles and legends too)
        assert saved.width <= plotting.MAX_WIDTH + 0.1, f"{output_id}: saved {saved.width:.2f} in wide"
    finally:
        plotting.pyplot().close(fig)
