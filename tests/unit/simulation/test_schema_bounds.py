"""The schema's ranges are what the code accepts: every numeric key of every data model, walked to the edges of its
allowed range (inclusive bounds at the bound, exclusive ones just inside), builds a spec and runs a replicate of both
queries and the Bayesian-DP conversion without an error or a warning; at an exclusive bound itself the config is
refused before any job, with a message naming the key."""
import warnings

import numpy as np
import pytest

from adaptive_repro.foundation.config import ConfigError
from adaptive_repro.pipeline.validation import experiment_spec, validated
from adaptive_repro.simulation.registries import DATA_MODELS

INSIDE = 1e-6


def edges(prop: dict) -> list[float]:
    values = [prop[k] for k in ("minimum", "maximum") if k in prop]
    values += [prop["exclusiveMinimum"] + INSIDE] if "exclusiveMinimum" in prop else []
    values += [prop["exclusiveMaximum"] - INSIDE] if "exclusiveMaximum" in prop else []
    return values


def model_edges():
    for model in DATA_MODELS:
        for key, prop in model.PARAMETERS.items():
            for value in edges(prop):
                if prop["type"] == "integer":
                    value = int(round(value))
                    value -= value % prop.get("multipleOf", 1)
                yield pytest.param(model, key, value, id=f"{model.name}.{key}={value:g}")


@pytest.mark.slow
@pytest.mark.parametrize("model, key, value", list(model_edges()))
def test_every_model_key_at_its_bounds_runs(model, key, value):
    block = {"name": model.name, key: value}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for query, arms in (("sign", ["standard", "zhao_alg1_dp", "zhao_alg1_bdp"]),
                            ("mean", ["standard", "dwork_code", "zhao_alg1_dp"])):
            spec = experiment_spec("zhao-fig3", dict(n=40, d=20, replicates=1, k_grid=[0, 5], query=query,
                                                     mechanisms=arms, signal_attributes=2, model=block))
            records = spec.run_replicates(1, range(1))
            assert np.isfinite(records["accuracy"].dropna()).all() and records["accuracy"].notna().any()
        data_model = model(**{key: value})
        assert data_model.expected_inflation(50) >= 1.0 - 1e-9
        data_model.dp_level_for_bdp(1.0, 50, 20, "lemma2")


def exclusive_bounds():
    for model in DATA_MODELS:
        for key, prop in model.PARAMETERS.items():
            for bound in ("exclusiveMinimum", "exclusiveMaximum"):
                if bound in prop:
                    yield pytest.param(model, key, prop[bound], id=f"{model.name}.{key}={prop[bound]:g}")


@pytest.mark.parametrize("model, key, value", list(exclusive_bounds()))
def test_an_exclusive_bound_itself_is_refused_naming_the_key(model, key, value):
    config = {"seed": 1, "outputs": ["zhao-fig3"],
              "experiments": {"zhao-fig3": {"n": 40, "d": 20, "replicates": 1, "k_grid": [0, 5],
                                            "mechanisms": ["standard"], "model": {"name": model.name, key: value}}}}
    with pytest.raises(ConfigError, match=rf"experiments\.zhao-fig3\.model\.{key}': value {value!r}"):
        validated(config)


@pytest.mark.parametrize("n, d", [(1, 1), (1, 20), (2, 1)])
def test_the_smallest_n_and_d_run(n, d):
    for query, arms in (("sign", ["standard", "zhao_alg1_bdp"]), ("mean", ["standard", "dwork_code"])):
        spec = experiment_spec("zhao-fig3", dict(n=n, d=d, replicates=1, k_grid=[0, 1], query=query,
                                                 mechanisms=arms))
        assert len(spec.run_replicates(1, range(1)))


def test_a_bound_on_a_whole_number_says_so():
    import copy
    from pathlib import Path

    import yaml

    from adaptive_repro.pipeline.validation import check_schema

    config = yaml.safe_load((Path(__file__).resolve().parents[3] / "config.yaml").read_text())
    zero = copy.deepcopy(config)
    zero["experiments"]["zhao-fig3"]["replicates"] = 0
    with pytest.raises(ConfigError, match=r"'experiments.zhao-fig3.replicates': value 0 is not allowed; allowed: "
                                          r"a whole number at least 1$"):
        check_schema(zero)
    word = copy.deepcopy(config)
    word["replicates_per_job"] = "many"
    with pytest.raises(ConfigError, match=r"^config key 'replicates_per_job': value 'many' is not allowed; allowed: "
                                          r"a whole number at least 1 or 'auto'$"):
        check_schema(word)
    config.pop("seed")
    with pytest.raises(ConfigError, match=r"^config key 'seed' is missing; it is required$"):
        check_schema(config)
    config.pop("outputs")
    with pytest.raises(ConfigError, match=r"^config keys 'seed', 'outputs' are missing; they are required$"):
        check_schema(config)
