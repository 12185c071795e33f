"""Bad config stops the run before any job, with one line naming the key, the value and what is allowed.

Every kind of error is checked in-process through the same validation the Snakefile runs
(``validation.load_config_file`` and ``validation.validated``); two cases run Snakemake itself to show that the
workflow stops before any job and prints one line.
"""
import copy
import dataclasses
import math
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, SHIPPED_CONFIGS, snakemake, tiny_config

from adaptive_repro.foundation.config import ConfigError
from adaptive_repro.pipeline import resources, validation
from adaptive_repro.pipeline.catalogue import default_params
from adaptive_repro.pipeline.catalogue import output_params as config_params

DEFAULT = yaml.safe_load((ROOT / "config.yaml").read_text())


def set_key(path, value):
    def mutate(cfg):
        node = cfg
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return mutate


ZHAO = {"n": 100, "d": 50, "replicates": 2, "k_grid": [0, 5], "mechanisms": ["standard", "zhao_alg1_bdp"]}


def with_zhao(**extra):
    def mutate(cfg):
        cfg["experiments"]["zhao-fig2"] = ZHAO | extra
        cfg["outputs"] = cfg["outputs"] + ["zhao-fig2"]
    return mutate


CASES = [  # (id, mutation, fragments the message must contain: key, value, what is allowed)
    ("unknown-top-key", set_key(["sead"], 3), ["'sead'", "top level", "allowed", "seed"]),
    ("unknown-experiment-key", set_key(["experiments", "dwork-null", "replicate"], 3),
     ["'replicate'", "experiments.dwork-null", "replicates"]),
    ("wrong-type", set_key(["experiments", "dwork-null", "n"], "many"),
     ["experiments.dwork-null.n", "'many'", "integer"]),
    ("float-for-integer", set_key(["experiments", "dwork-null", "n"], 10000.0),
     ["experiments.dwork-null.n", "10000.0", "whole number"]),
    ("nan", set_key(["experiments", "dwork-null", "signal_scale"], math.nan),
     ["experiments.dwork-null.signal_scale", "nan", "finite"]),
    ("infinity", with_zhao(model={"b": math.inf}), ["experiments.zhao-fig2.model.b", "inf", "finite"]),
    ("n-below-1", set_key(["experiments", "dwork-null", "n"], 0), ["experiments.dwork-null.n", "0", "at least 1"]),
    ("d-below-1", set_key(["experiments", "dwork-null", "d"], 0), ["experiments.dwork-null.d", "at least 1"]),
    ("replicates-below-1", set_key(["experiments", "dwork-null", "replicates"], 0),
     ["experiments.dwork-null.replicates", "at least 1"]),
    ("replicates-per-job-below-1", set_key(["replicates_per_job"], 0), ["replicates_per_job", "0"]),
    ("replicates-per-job-word", set_key(["replicates_per_job"], "many"), ["replicates_per_job", "'many'"]),
    ("k-grid-not-increasing", set_key(["experiments", "dwork-null", "k_grid"], [0, 20, 10]),
     ["experiments.dwork-null.k_grid", "[0, 20, 10]", "strictly increasing"]),
    ("k-grid-repeated", set_key(["experiments", "dwork-null", "k_grid"], [0, 10, 10]),
     ["experiments.dwork-null.k_grid", "strictly increasing"]),
    ("k-above-d", set_key(["experiments", "dwork-null", "k_grid"], [0, 10, 401]),
     ["experiments.dwork-null.k_grid", "401", "d = 400"]),
    ("k-negative", set_key(["experiments", "dwork-null", "k_grid"], [-1, 10]), ["k_grid[0]", "-1", "at least 0"]),
    ("unknown-mechanism", set_key(["experiments", "dwork-null", "mechanisms"], ["standard", "laplace"]),
     ["experiments.dwork-null.mechanisms[1]", "'laplace'", "dwork_code"]),
    ("unknown-experiment", set_key(["experiments", "dwork-nul"], {"n": 10}), ["'dwork-nul'", "dwork-null"]),
    ("unknown-output", set_key(["outputs"], ["dwork-null", "dwork-figure-9"]),
     ["outputs[1]", "'dwork-figure-9'", "dwork-signal"]),
    ("no-outputs", set_key(["outputs"], []), ["outputs", "[]", "at least 1"]),
    ("unknown-engine", set_key(["engine"], "quick"), ["engine", "'quick'", "auto"]),
    ("negative-seed", set_key(["seed"], -1), ["seed", "-1", "at least 0"]),
    ("probability-above-1", with_zhao(model={"p_s": 1.5}), ["experiments.zhao-fig2.model.p_s", "1.5", "less than 1"]),
    ("probability-below-0", with_zhao(model={"p_y": -0.1}),
     ["experiments.zhao-fig2.model.p_y", "-0.1", "greater than 0"]),
    ("odd-number-of-regimes", with_zhao(model={"name": "regimes", "states": 3}),
     ["experiments.zhao-fig2.model.states", "3", "a multiple of 2"]),
    ("key-of-another-model", with_zhao(model={"name": "households", "rho": 0.5}),
     ["'rho'", "experiments.zhao-fig2.model", "households", "allowed", "size"]),
    ("fast-engine-not-exact", lambda cfg: (cfg.update(engine="fast"), with_zhao()(cfg)),
     ["config key 'engine'", "'fast'", "zhao_alg1_bdp", "allowed: auto, direct"]),
    ("output-without-experiment", lambda cfg: cfg["experiments"].pop("dwork-signal"),
     ["config key 'experiments'", "experiments.dwork-signal"]),
    ("inverted-range", set_key(["theory", "he", "kl"], {"eps_min": 5.0, "eps_max": 1.0}),
     ["theory.he.kl.eps_min", "5.0", "eps_max = 1.0"]),
    ("shared-state-removal-without-sign-queries", with_zhao(remove_shared_state=True, query="mean"),
     ["experiments.zhao-fig2.remove_shared_state", "true", "sign queries"]),
    ("number-or-null-below-bound", with_zhao(alg1={"epsilon": -1.0}),  # a key of two types (number or null)
     ["experiments.zhao-fig2.alg1.epsilon", "-1.0", "a number greater than 0 or null"]),
]


def config_of(mutate):
    cfg = {"seed": 1, "engine": "auto"} | copy.deepcopy(tiny_config())
    mutate(cfg)
    return cfg


@pytest.mark.parametrize("mutate,fragments", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_config_is_rejected_with_a_clear_message(mutate, fragments):
    with pytest.raises(ConfigError) as err:
        validation.validated(config_of(mutate))
    message = str(err.value)
    assert "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from: {message}"


def test_blocks_of_outputs_not_built_are_not_held_against_the_run():
    """engine = fast is exact for dwork-null; the Algorithm 1 arms of other (unbuilt) blocks do not matter."""
    cfg = copy.deepcopy(DEFAULT) | {"engine": "fast", "outputs": ["dwork-null"]}
    assert validation.validated(cfg)["engine"] == "fast"


def test_scientific_notation_without_a_point_is_a_number():
    """YAML 1.1 reads 1e-12 as a string; the config means the number."""
    cfg = config_of(set_key(["theory", "he", "sgld", "delta_tilde"], ["1e-12", "2.5E-3"]))
    assert validation.validated(cfg)["theory"]["he"]["sgld"]["delta_tilde"] == [1e-12, 2.5e-3]


def test_defaults_filled_once_from_the_schemas():
    resolved = validation.validated(copy.deepcopy(DEFAULT))
    assert resolved["experiments"]["dwork-null"]["signal_scale"] == 6.0
    assert resolved["theory"]["he"]["kl"]["points"] > 1 and "monitor" in resolved["theory"]["lecture"]


FILE_CASES = [  # (id, file text or None for a directory, fragments)
    ("duplicate-key", "seed: 1\nseed: 2\n", ["line 2", "'seed'", "twice", "line 1"]),
    ("yaml-syntax", "seed: 1\nexperiments: {dwork-null: [1, 2}\n", ["line 2", "YAML error"]),
    ("not-a-mapping", "- seed\n", ["top level", "mapping"]),
    ("missing", "MISSING", ["does not exist"]),
    ("directory", None, ["is a directory"]),
    ("empty", "", ["is empty", "mapping"]),
    ("only-comments", "# nothing here\n", ["is empty"]),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\xca\xfe", ["not UTF-8 text", "byte"]),
]


@pytest.mark.parametrize("text,fragments", [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES])
def test_bad_config_file_is_rejected_naming_file_and_line(tmp_path, text, fragments):
    path = tmp_path / "my.yaml"
    if text is None:
        path.mkdir()
    elif isinstance(text, bytes):
        path.write_bytes(text)
    elif text != "MISSING":
        path.write_text(text)
    with pytest.raises(ConfigError) as err:
        validation.load_config_file(path)
    assert str(path) in str(err.value)
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)


def spec(n, d, replicates=10):
    return validation.experiment_spec("dwork-null", dict(n=n, d=d, replicates=replicates, k_grid=[0, 10],
                                                         mechanisms=["standard"]))


def test_a_job_that_cannot_fit_is_refused_before_it_starts():
    specs = {"dwork-null": spec(10**12, 1000)}
    cost = lambda name: resources.spec_cost(specs[name])
    with pytest.raises(ConfigError, match=r"experiments\.dwork-null\.n.*n = 1000000000000.*fits in the 8.0 GB"):
        resources.check_and_estimate(specs, lambda name: [range(1)], cost, lambda name: name, 8192)


def test_too_many_jobs_are_refused():
    specs = {"dwork-null": spec(100, 100, replicates=10**6)}
    cost = lambda name: resources.ReplicateCost(0.01, 100)
    chunks = lambda name: [range(i, i + 1) for i in range(specs[name].replicates)]
    with pytest.raises(ConfigError, match="replicates_per_job.*1000000 jobs.*at most"):
        resources.check_and_estimate(specs, chunks, cost, lambda name: name, None)


def test_automatic_chunks_do_not_depend_on_cores_and_keep_jobs_seconds_to_minutes():
    cheap, dear = resources.ReplicateCost(0.01, 100), resources.ReplicateCost(30.0, 100)
    assert resources.replicates_per_job("auto", 100, cheap) == 100  # MIN_JOB_SECONDS of work at least per job
    assert resources.replicates_per_job("auto", 100, dear) == 4  # at most 2 minutes per job
    assert resources.replicates_per_job("auto", 160, resources.ReplicateCost(5.0, 100)) == 10  # >= 16 jobs
    assert resources.replicates_per_job(7, 100, dear) == 7


# -------------------------------------------------------------- through Snakemake itself: stops before any job

@pytest.mark.slow
def test_unknown_key_stops_snakemake_before_any_job_with_one_line(workflow_copy):
    (workflow_copy / "bad.yaml").write_text(yaml.safe_dump(tiny_config() | {"sead": 3}))
    proc = snakemake(workflow_copy, "--configfile", "bad.yaml")
    assert proc.returncode != 0
    assert not (workflow_copy / "results").exists(), "a job ran before the config was rejected"
    errors = [line for line in proc.stderr.splitlines() if "Config error" in line]
    assert len(errors) == 1 and "'sead'" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) < 10, proc.stderr


@pytest.mark.parametrize("name", ["nowhere.yaml", "configs"])
def test_missing_or_directory_configfile_is_named_without_traceback(workflow_copy, name):
    """`make reproduce CONFIG=...` checks the config files with this command before Snakemake reads them (Snakemake
    itself would print a traceback for a missing --configfile)."""
    (workflow_copy / "configs").mkdir()
    proc = subprocess.run([sys.executable, "-m", "adaptive_repro.pipeline.validation", name], cwd=workflow_copy,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert name in proc.stderr and "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


@pytest.mark.slow
def test_validation_cli_works_from_any_directory(tmp_path):
    """``python -m adaptive_repro.pipeline.validation FILE`` outside the checkout checks FILE on top of the checkout's
    config.yaml (a run folder's own config.yaml wins where there is one)."""
    (tmp_path / "mine.yaml").write_text("experiments: {zhao-fig2: {model: {p_s: 1.0}}}\n")
    proc = subprocess.run([sys.executable, "-m", "adaptive_repro.pipeline.validation", "mine.yaml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "experiments.zhao-fig2.model.p_s': value 1.0" in proc.stderr, proc.stderr
    (tmp_path / "mine.yaml").write_text("seed: 5\n")
    proc = subprocess.run([sys.executable, "-m", "adaptive_repro.pipeline.validation", "mine.yaml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_good_config_passes(workflow_copy):
    proc = snakemake(workflow_copy, "--dry-run", "--configfile", "tests/configs/tiny.yaml")
    assert proc.returncode == 0, proc.stderr
    assert "Estimated cost per output" in proc.stderr and "dwork-null:" in proc.stderr


def test_the_frontier_costs_its_grid_of_attribute_query_phases():
    """zhao-frontier has no classifier phase: its replicate cost grows with the number of (n, p, ε, calibration)
    points, not with n (a phase draws O(d) sign queries whatever n is)."""
    small = validation.experiment_spec("zhao-frontier", dict(replicates=2, n_grid=[1000, 10**8], p_grid=[0.6],
                                                             eps_grid=[1.0]))
    large_n = dataclasses.replace(small, n_grid=(1000, 10**12))
    twice = dataclasses.replace(small, n_grid=(1000, 10**8, 10**9, 10**10))
    assert resources.spec_cost(large_n) == resources.spec_cost(small)
    base = 0.05  # fixed start-up part
    assert (resources.spec_cost(twice).seconds - base) == pytest.approx(2 * (resources.spec_cost(small).seconds - base))


def test_raising_replicates_never_re_simulates_a_replicate():
    """The plan keeps every complete chunk on disk that fits, whatever the job size was: growth only adds chunks."""
    rng = __import__("numpy").random.default_rng(5)
    for _ in range(200):
        small, big = sorted(int(x) for x in rng.integers(1, 400, size=2))
        cost = resources.ReplicateCost(float(rng.choice([0.05, 1.0, 5.0, 40.0])), 100)
        first = resources.plan_chunks(small, resources.replicates_per_job("auto", small, cost))
        grown = resources.plan_chunks(big, resources.replicates_per_job("auto", big, cost),
                                      [(r[0], r[-1]) for r in first])
        assert [r for r in grown if r[-1] < small] == first or big == small
        assert set(first) <= set(grown)
        covered = [i for r in grown for i in r]
        assert covered == list(range(big))  # every replicate exactly once, in order
    # a chunk that no longer fits (replicates lowered) is not used; the rest is cut at multiples of the job size
    assert resources.plan_chunks(10, 4, [(0, 3), (4, 11)]) == [range(0, 4), range(4, 8), range(8, 10)]
    assert resources.plan_chunks(10, 4, [(0, 6)]) == [range(0, 7), range(7, 8), range(8, 10)]


def test_existing_chunks_are_the_complete_ones(tmp_path):
    for first, last, parts in ((0, 9, "all"), (10, 19, "no-meta"), (20, 29, "all")):
        stem = tmp_path / f"replicates-{first}-{last}"
        names = [".records.csv", ".diagnostics.csv", ".records.csv.meta.json", ".diagnostics.csv.meta.json"]
        for suffix in names[:2] if parts == "no-meta" else names:
            (tmp_path / f"{stem.name}{suffix}").write_text("x")
    assert resources.existing_chunks(tmp_path) == [(0, 9), (20, 29)]


def test_theory_outputs_are_estimated_from_their_grids_and_capped():
    """A theory output's job is estimated from its grid sizes (its measured default cost, scaled): 10^7 KL points
    (an OOM-kill of 23 GB when it was accepted) is refused before any job, naming the block and the keys to shrink."""
    default = validation.validated(copy.deepcopy(DEFAULT))
    base = resources.theory_cost("he-kl", config_params(default, "he-kl"), default_params("he-kl"))
    assert base.seconds == pytest.approx(resources.THEORY_MEASURED["he-kl"][0])
    big = copy.deepcopy(DEFAULT)
    big.setdefault("theory", {}).setdefault("he", {})["kl"] = {"points": 10_000_000}
    big = validation.validated(big)
    cost = resources.theory_cost("he-kl", config_params(big, "he-kl"), default_params("he-kl"))
    assert cost.mem_mb > 20 * 1024 and cost.seconds > base.seconds * 20
    with pytest.raises(ConfigError, match=r"config block 'theory.he.kl' \(he-kl\): .*smaller grids: points"):
        resources.check_and_estimate({}, None, None, None, 8192, {"he-kl": cost})
    # 200,000 points: measured 588 MB and a few CPU seconds; estimated within 2x, not refused
    medium = copy.deepcopy(DEFAULT)
    medium.setdefault("theory", {}).setdefault("he", {})["kl"] = {"points": 200_000}
    medium = resources.theory_cost("he-kl", config_params(validation.validated(medium), "he-kl"),
                                   default_params("he-kl"))
    assert 588 / 2 <= medium.mem_mb <= 588 * 2 and medium.seconds < 20
    assert resources.check_and_estimate({}, None, None, None, 8192, {"he-kl": medium})


def test_a_run_above_max_cpu_hours_is_refused_with_its_estimate():
    specs = {"dwork-null": spec(1000, 1000, replicates=100_000)}
    cost = lambda name: resources.ReplicateCost(0.5, 100)
    chunks = lambda name: [range(i, i + 1000) for i in range(0, 100_000, 1000)]
    with pytest.raises(ConfigError, match=r"config key 'max_cpu_hours': value 4 is below this run's estimated "
                                          r"13\.9 h of CPU \(most in dwork-null"):
        resources.check_and_estimate(specs, chunks, cost, lambda name: name, None, {}, 4)
    assert resources.check_and_estimate(specs, chunks, cost, lambda name: name, None, {}, 20)


def test_a_templated_config_is_refused_before_anything_evaluates_it(tmp_path):
    """`make reproduce CONFIG=` checks the file first (validation CLI): YTE templating is refused in one line and
    its expression never runs (it would create a marker file)."""
    marker = tmp_path / "ran"
    (tmp_path / "yte.yaml").write_text(f'__use_yte__: true\nseed: ?__import__("os").system("touch {marker}") + 1\n')
    proc = subprocess.run([sys.executable, "-m", "adaptive_repro.pipeline.validation", "yte.yaml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "asks for YTE templating ('__use_yte__')" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not marker.exists()


def test_a_huge_config_file_is_refused_before_it_is_parsed(tmp_path):
    """A million-element grid (~7 MB) would take the YAML parser a minute: refused by its size, in one line."""
    (tmp_path / "huge.yaml").write_text("experiments: {zhao-fig3: {k_grid: [" + ", ".join(["7"] * 10**6) + "]}}\n")
    with pytest.raises(ConfigError, match=r"huge.yaml' has 3,000,\d{3} bytes; allowed: at most 100,000") as err:
        validation.load_config_file(tmp_path / "huge.yaml")
    assert len(str(err.value)) < 300


def test_a_long_grid_is_refused_by_its_first_bad_element_in_a_short_line(tmp_path):
    """The largest grid a config file can hold is named by its first offending element, not echoed whole."""
    k_grid = list(range(15_000))
    k_grid[12_000] = -3
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump({"experiments": {"zhao-fig3": {"k_grid": k_grid}}}, default_flow_style=True,
                                   width=10**9))
    cfg = validation.merged(DEFAULT, validation.load_config_file(path))
    with pytest.raises(ConfigError) as err:
        validation.validated(cfg)
    assert "'experiments.zhao-fig3.k_grid[12000]': value -3 is not allowed" in str(err.value)
    assert len(str(err.value)) < 300


@pytest.mark.parametrize("text", ["seed: &a [*a]\n", "a: &a [1, 2]\nb: [*a, *a]\n"])
def test_yaml_aliases_are_refused_in_one_line_at_once(tmp_path, text):
    """A recursive alias or an alias bomb would hang or recurse in the checker: every alias is refused."""
    (tmp_path / "alias.yaml").write_text(text)
    with pytest.raises(ConfigError, match=r"alias.yaml', line \d+: YAML aliases"):
        validation.load_config_file(tmp_path / "alias.yaml")


@pytest.mark.slow
def test_the_workflow_runs_from_another_directory_with_its_own_default_config(workflow_copy, tmp_path):
    """`snakemake -s <checkout>/Snakefile -d <elsewhere>` finds config.yaml next to the Snakefile; results go to -d."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = snakemake(elsewhere, "results/run-config.yaml", "-s", str(workflow_copy / "Snakefile"), "-d",
                     str(elsewhere), "--configfile", str(workflow_copy / "tests" / "configs" / "tiny.yaml"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (elsewhere / "results" / "run-config.yaml").is_file()
    assert not (workflow_copy / "results" / "run-config.yaml").exists()


@pytest.mark.slow
def test_a_checkout_path_with_a_space_is_refused_in_one_line(tmp_path):
    from conftest import copy_workflow

    workdir = copy_workflow(tmp_path / "my repo")
    proc = snakemake(workdir, "--dry-run", "--configfile", "tests/configs/tiny.yaml")
    assert proc.returncode != 0 and "contains a space" in proc.stderr, proc.stderr[-2000:]


def test_no_private_attribute_or_monkeypatch_of_a_dependency():
    """Public APIs only: no `._name` access on Snakemake or dp-accounting objects and no assignment into their
    classes or modules, anywhere in the repository's code."""
    import re

    private = re.compile(r"\b(workflow|snakemake|dp_accounting|pld|pmf|JobScheduler|scheduler)\._[a-zA-Z]")
    patched = re.compile(r"^\s*(snakemake|dp_accounting|JobScheduler)(\.\w+)+\s*=(?!=)|setattr\((snakemake|"
                         r"dp_accounting|JobScheduler)")
    files = [*ROOT.glob("src/**/*.py"), *ROOT.glob("workflow/**/*.py"), *ROOT.glob("workflow/**/*.smk"),
             ROOT / "Snakefile", *ROOT.glob("benchmarks/*.py"), *ROOT.glob("tools/*.py")]
    found = [f"{path.relative_to(ROOT)}:{i}: {line.strip()}" for path in files
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if private.search(line) or patched.search(line)]
    found += [hit for path in files if path.suffix == ".py" for hit in _private_uses_through_imports(path)]
    assert not found, found


def _private_uses_through_imports(path) -> list[str]:
    """``alias._name`` where ``alias`` is bound by an import of snakemake or dp_accounting (any module of them, under
    any name), found in the syntax tree rather than by the name a file happens to use."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    dependency = ("snakemake", "dp_accounting")
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith(dependency)}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(dependency):
            aliases |= {a.asname or a.name for a in node.names}
    return [f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
            and node.attr.startswith("_") and not node.attr.startswith("__")]


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_every_shipped_config_is_valid_on_top_of_config_yaml(name):
    assert validation.main([str(ROOT / "config" / name)]) == 0


def test_the_shipped_configs_are_tracked_files_and_a_stray_one_is_not_tested():
    """SHIPPED_CONFIGS names files git tracks in config/; an untracked YAML there is no shipped config."""
    listed = subprocess.run(["git", "ls-files", "config"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:  # says so rather than passing: without git nothing tells a shipped file from a stray
        pytest.skip("not a git checkout (an sdist): no list of tracked files to compare with")
    tracked = listed.stdout.split()
    assert sorted(SHIPPED_CONFIGS) == sorted(path.rsplit("/", 1)[-1] for path in tracked if path.endswith(".yaml"))


def test_an_experiment_blocks_kind_comes_from_the_catalogue_not_from_its_keys():
    """A sweep key in a plain experiment's block is refused as unknown (it used to turn the block into a sweep)."""
    cfg = copy.deepcopy(DEFAULT)
    cfg["experiments"]["dwork-null"]["p_grid"] = [0.5, 0.9]
    with pytest.raises(ConfigError, match=r"unknown config key 'p_grid' under 'experiments.dwork-null'"):
        validation.validated(cfg)


def test_make_reproduce_checks_only_the_files_before_snakemake(tmp_path):
    """`make reproduce` runs the files-only check (a missing file, YAML, templates) and leaves the config's values to
    the Snakefile, so the config is validated once per run: a value out of range passes here, a template does not."""
    (tmp_path / "range.yaml").write_text("seed: -3\n")
    (tmp_path / "yte.yaml").write_text("__use_yte__: true\nseed: 1\n")
    assert validation.main(["--files-only", str(tmp_path / "range.yaml")]) == 0
    assert validation.main([str(tmp_path / "range.yaml")]) == 1
    assert validation.main(["--files-only", str(tmp_path / "yte.yaml")]) == 1
    assert "--files-only" in (ROOT / "Makefile").read_text()


def test_too_many_jobs_says_which_replicates_per_job_would_do():
    """More chunks than MAX_CHUNKS: the line names the smallest replicates_per_job that fits (whatever the key holds,
    'auto' included), not a generic 'use auto'."""
    specs = {"dwork-null": spec(1000, 1000, replicates=6000)}
    chunks = lambda name: [range(i, i + 1) for i in range(6000)]
    with pytest.raises(ConfigError, match=r"config key 'replicates_per_job': 6000 jobs for dwork-null .*set "
                                          r"replicates_per_job to at least 2, or ask for fewer replicates"):
        resources.check_and_estimate(specs, chunks, lambda name: resources.ReplicateCost(0.5, 100),
                                     lambda name: name, None, {}, 1000)
