"""Shared helpers: run the workflow in a temporary copy of the repository."""
import os
import shutil
import subprocess
import sys
import time
import warnings
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

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
#: The configs the project ships in config/, tested one by one from this list: a stray YAML there changes no test.
SHIPPED_CONFIGS = ("correlation-bdp-vs-dp-cluster.yaml", "correlation-bdp-vs-dp.yaml",
                   "correlation-decisive-batch-chain.yaml", "correlation-decisive-households.yaml",
                   "correlation-decisive-regimes.yaml", "correlation-decisive-shared-state.yaml",
                   "correlation-epsilon-3.yaml", "correlation-estimated-v-power.yaml", "correlation-estimated-v.yaml",
                   "correlation-power.yaml", "paper-scale.yaml")
TINY = ROOT / "tests" / "configs" / "tiny.yaml"
#: CPU seconds a test's call may spend without the ``slow`` marker (``make test-fast`` runs the unmarked tests). The
#: test's own process CPU, which a busy machine inflates far less than wall time; fixtures are not counted.
FAST_TEST_CPU_SECONDS = 5.0


class UnmarkedSlowTest(pytest.PytestWarning):
    """An unmarked test spent more than FAST_TEST_CPU_SECONDS: a hint to mark it ``slow``, never a failure (machines
    differ by 2x, and a first call may compile the numba kernels)."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """The marker audit: an unmarked test whose call spends more than FAST_TEST_CPU_SECONDS of CPU is listed in the
    warnings summary, asking for the ``slow`` marker, so the fast subset stays fast without a list of slow tests."""
    start = time.process_time()
    result = yield
    spent = time.process_time() - start
    if spent > FAST_TEST_CPU_SECONDS and not any(item.iter_markers("slow")) and not any(item.iter_markers("slurm")):
        warnings.warn(UnmarkedSlowTest(f"{item.nodeid} spent {spent:.1f} CPU-s without the 'slow' marker (the fast "
                                       f"subset allows {FAST_TEST_CPU_SECONDS:g}): mark it @pytest.mark.slow"))
    return result


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
