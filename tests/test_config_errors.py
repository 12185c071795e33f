"""Bad config stops the run before any job, with a message naming the key, the value and what is allowed."""
import copy

import pytest
import yaml

from conftest import snakemake, tiny_config


def run_with(workflow_copy, mutate):
    cfg = copy.deepcopy(tiny_config())
    mutate(cfg)
    # --configfile replaces config.yaml here so that removed keys stay removed
    (workflow_copy / "config.yaml").write_text(yaml.safe_dump({"seed": 1} | cfg))
    proc = snakemake(workflow_copy, "--dry-run")
    assert proc.returncode != 0, proc.stdout
    assert not (workflow_copy / "results").exists(), "a job ran before the config was rejected"
    return proc.stdout + proc.stderr


def set_key(path, value):
    def mutate(cfg):
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


ZHAO = {"n": 100, "d": 50, "replicates": 2, "k_grid": [0, 5], "mechanisms": ["standard", "zhao_alg1_bdp"]}

CASES = [  # (id, mutation, fragments the message must contain: key, value, what is allowed)
    ("unknown-top-key", set_key(["sead"], 3), ["sead", "was unexpected"]),
    ("unknown-experiment-key", set_key(["experiments", "dwork-null", "replicate"], 3), ["replicate", "unexpected"]),
    ("wrong-type", set_key(["experiments", "dwork-null", "n"], "many"), ["'many'", "is not of type 'integer'", "['n']"]),
    ("n-below-1", set_key(["experiments", "dwork-null", "n"], 0), ["0 is less than the minimum of 1", "['n']"]),
    ("d-below-1", set_key(["experiments", "dwork-null", "d"], 0), ["0 is less than the minimum of 1", "['d']"]),
    ("replicates-below-1", set_key(["experiments", "dwork-null", "replicates"], 0),
     ["0 is less than the minimum of 1", "['replicates']"]),
    ("replicates-per-job-below-1", set_key(["replicates_per_job"], 0), ["0 is less than the minimum of 1"]),
    ("k-grid-not-increasing", set_key(["experiments", "dwork-null", "k_grid"], [0, 20, 10]),
     ["experiments.dwork-null.k_grid", "[0, 20, 10]", "strictly increasing"]),
    ("k-grid-repeated", set_key(["experiments", "dwork-null", "k_grid"], [0, 10, 10]),
     ["experiments.dwork-null.k_grid", "strictly increasing"]),
    ("k-above-d", set_key(["experiments", "dwork-null", "k_grid"], [0, 10, 401]),
     ["experiments.dwork-null.k_grid", "401", "d = 400"]),
    ("k-negative", set_key(["experiments", "dwork-null", "k_grid"], [-1, 10]), ["-1 is less than the minimum of 0"]),
    ("unknown-mechanism", set_key(["experiments", "dwork-null", "mechanisms"], ["standard", "laplace"]),
     ["'laplace' is not one of", "dwork_code", "['mechanisms']"]),
    ("unknown-experiment", set_key(["experiments", "dwork-nul"], {"n": 10}), ["dwork-nul", "unexpected"]),
    ("unknown-output", set_key(["outputs"], ["dwork-null", "dwork-figure-9"]), ["'dwork-figure-9' is not one of"]),
    ("unknown-engine", set_key(["engine"], "quick"), ["'quick' is not one of", "auto"]),
    ("negative-seed", set_key(["seed"], -1), ["-1 is less than the minimum of 0"]),
    ("probability-above-1", lambda cfg: cfg["experiments"].__setitem__("zhao-fig2", ZHAO | {"model": {"p_s": 1.5}}),
     ["1.5 is greater than the maximum of 1", "['p_s']"]),
    ("probability-below-0", lambda cfg: cfg["experiments"].__setitem__("zhao-fig2", ZHAO | {"model": {"p_y": -0.1}}),
     ["-0.1 is less than the minimum of 0", "['p_y']"]),
    ("alg1-beta-outside", lambda cfg: cfg["experiments"].__setitem__("zhao-fig2", ZHAO | {"alg1": {"beta": 1.0}}),
     ["1.0 is greater than or equal to the maximum of 1", "['beta']"]),
    ("fast-engine-not-exact", lambda cfg: cfg.update(engine="fast", experiments=cfg["experiments"] | {"zhao-fig2": ZHAO}),
     ["config key 'engine'", "'fast'", "zhao_alg1_bdp", "'auto' or 'direct'"]),
    ("unknown-bdp-method", lambda cfg: cfg["experiments"].__setitem__("zhao-fig2", ZHAO | {"alg1": {"bdp_method": "lemma9"}}),
     ["'lemma9' is not one of", "lemma2"]),
    ("output-without-experiment", lambda cfg: cfg["experiments"].pop("dwork-signal"),
     ["config key 'experiments'", "experiments.dwork-signal"]),
]


@pytest.mark.parametrize("mutate,fragments", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_config_is_rejected_with_a_clear_message(workflow_copy, mutate, fragments):
    message = run_with(workflow_copy, mutate)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from:\n{message}"


def test_good_config_passes(workflow_copy):
    proc = snakemake(workflow_copy, "--dry-run", "--configfile", "tests/configs/tiny.yaml")
    assert proc.returncode == 0, proc.stderr
