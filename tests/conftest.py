"""Shared helpers: run the workflow in a temporary copy of the repository."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import settings

# Property tests draw the same examples on every run and machine (a CI run reproduces a local one); explicit
# @example cases pin the edge cases found while exploring. Set HYPOTHESIS_PROFILE=explore to draw fresh examples.
# No per-example deadline: make test runs them beside end-to-end runs, and a slow example is not a wrong one.
settings.register_profile("deterministic", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

ROOT = Path(__file__).resolve().parents[1]

#: Unit tests that take 0.6 s or more each on a 2-core machine (pytest --durations): marked slow like the end-to-end
#: runs, so `make test-fast` (which skips slow tests) stays quick; `make test` runs them all.
SLOW_UNIT_TESTS = (
    "tests/unit/simulation/test_schema_bounds.py::test_every_model_key_at_its_bounds_runs[regimes.states=200]",
    "tests/unit/test_integrity.py::test_a_job_whose_snakemake_died_during_its_start_up_stops_at_once",
    "tests/unit/outputs/test_he_outputs.py::test_kl_figure_verdict_follows_the_data",
    "tests/unit/outputs/test_he_outputs.py::test_composition_figure_counts_and_rings_each_failure",
    "tests/unit/outputs/test_he_outputs.py::test_generalization_figure_rings_where_theorem_2_gains_less_than_e_eps",
    "tests/unit/outputs/test_he_outputs.py::test_application_figure_rings_the_failing_composition_points",
    "tests/workflow/test_config_errors.py::test_unknown_key_stops_snakemake_before_any_job_with_one_line",
    "tests/workflow/test_config_errors.py::test_validation_cli_works_from_any_directory",
    "tests/unit/simulation/test_correlation_models.py::test_regime_occupation_counts_follow_the_chain",
    "tests/unit/simulation/test_correlation_models.py::test_exact_engine_matches_the_direct_engine_in_distribution",
    "tests/unit/outputs/test_zhao_rows.py::test_checks_that_cannot_fail_are_labelled_and_slips_are_their_own_kind",
    "tests/unit/outputs/test_zhao_rows.py::test_theorem1_guarantee_fails_on_a_strongly_correlated_chain",
    "tests/unit/outputs/test_zhao_rows.py::test_theorem1_n_star_hypothesis_and_other_rows",
    "tests/unit/test_report_html.py::test_thumbnail_keeps_every_palette_colour",
    "tests/unit/outputs/test_proof_checks.py::test_max_information_against_brute_force_over_all_sets",
    "tests/unit/simulation/test_zhao_design.py::test_algorithm1_queries_per_budget_unit_follow_the_laws_geometric_mixture",
    "tests/unit/test_claims_cli.py::test_keys_may_name_the_block",
    "tests/unit/test_claims_cli.py::test_reevaluation_uses_the_given_point",
    "tests/unit/test_lean_imports.py::test_job_modules_import_only_what_they_use",
    "tests/unit/outputs/test_dwork_builder.py::test_verdict_title_follows_the_claims",
    "tests/unit/outputs/test_dwork_builder.py::test_verdicts_follow_the_records",
    "tests/unit/outputs/test_zhao_builders.py::test_fig3_large_n_says_whether_the_experiment_separates_the_calibrations",
)


def pytest_collection_modifyitems(config, items):
    """Mark :data:`SLOW_UNIT_TESTS` (a function's node ID marks all its parameter cases) slow."""
    for item in items:
        if item.nodeid in SLOW_UNIT_TESTS or item.nodeid.split("[")[0] in SLOW_UNIT_TESTS:
            item.add_marker(pytest.mark.slow)
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
TINY = ROOT / "tests" / "configs" / "tiny.yaml"


def copy_workflow(dest: Path) -> Path:
    """Copy what a run needs (Snakefile, config, workflow/, tests/configs) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("Snakefile", "config.yaml", "environment.yml"):
        shutil.copy(ROOT / name, dest / name)
    shutil.copytree(ROOT / "workflow", dest / "workflow")
    shutil.copytree(ROOT / "tests" / "configs", dest / "tests" / "configs")
    return dest


def snakemake(workdir: Path, *args: str, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    """Run snakemake in ``workdir`` and return the completed process (output captured as text)."""
    return subprocess.run([SNAKEMAKE, "--cores", "2", *args], cwd=workdir, capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def tiny_config() -> dict:
    return yaml.safe_load(TINY.read_text())


@pytest.fixture
def workflow_copy(tmp_path):
    return copy_workflow(tmp_path / "repo")


@pytest.fixture(autouse=True)
def close_figures():
    """Builders return open matplotlib figures; close them after every test so none pile up."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
