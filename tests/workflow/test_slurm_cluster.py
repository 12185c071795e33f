"""The tiny config through a real SLURM cluster (workflow/profiles/slurm) gives the same tables as a local run.

The cluster is a single node on this machine (tests/slurm_cluster.py): used as is if one already answers `sinfo`,
otherwise installed with apt-get when missing and started for this module, then stopped by PID afterwards (also
when the test fails). Skipped, with the reason, where that is impossible (not root, no apt-get, install failed).
"""
import subprocess
import time

import pytest
from conftest import ROOT, SNAKEMAKE, copy_workflow
from slurm_cluster import ClusterUnavailable, SlurmCluster

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

SLURM_PROFILE = ROOT / "workflow" / "profiles" / "slurm"
DEFAULT_PROFILE = ROOT / "workflow" / "profiles" / "default"


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        cluster.start()
    except ClusterUnavailable as exc:
        cluster.stop()
        pytest.skip(f"no SLURM cluster: {exc}")
    except BaseException:
        cluster.stop()
        raise
    try:
        yield cluster
    finally:
        cluster.stop()


def partition_args(cluster):
    """The profile sends jobs to partition `main` (that of a cluster the fixture starts); an existing cluster may
    have another default partition."""
    if cluster.partition == "main":
        return []
    return ["--default-resources", f"slurm_partition={cluster.partition}", "mem_mb=1000", "runtime=15",
            "cpus_per_task=1"]


def run(cmd, cwd, env=None, timeout=600):
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc, time.monotonic() - start


def test_slurm_run_matches_local_run(slurm_cluster, tmp_path):
    on_slurm = copy_workflow(tmp_path / "slurm")
    proc, seconds = run([SNAKEMAKE, "--configfile", "tests/configs/tiny.yaml", "--executor", "slurm",
                         "--workflow-profile", str(SLURM_PROFILE), "--jobs", "4",
                         # status checks every few seconds instead of the profile's 20 s: a faster test
                         "--slurm-init-seconds-before-status-checks", "5", *partition_args(slurm_cluster)],
                        cwd=on_slurm, env=slurm_cluster.env, timeout=480)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}\n{slurm_cluster.diagnostics()}"
    print(f"SLURM run: {seconds:.0f} s")

    # The jobs really ran as SLURM jobs: the plugin keeps their logs (slurm-keep-successful-logs).
    slurm_logs = list((on_slurm / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert any("simulate_chunk" in str(p) for p in slurm_logs), slurm_logs
    assert any("post" in str(p) for p in slurm_logs), f"the post-processing group did not run: {slurm_logs}"
    assert "Job" in proc.stderr and "has been submitted with SLURM jobid" in proc.stderr

    local = copy_workflow(tmp_path / "local")
    proc, _ = run([SNAKEMAKE, "--configfile", "tests/configs/tiny.yaml", "--workflow-profile", str(DEFAULT_PROFILE),
                   "--cores", "2"], cwd=local)
    assert proc.returncode == 0, proc.stderr[-6000:]

    tables = sorted(p.relative_to(local) for p in (local / "results" / "tables").glob("*.csv"))
    assert tables, "the local run wrote no tables"
    assert tables == sorted(p.relative_to(on_slurm) for p in (on_slurm / "results" / "tables").glob("*.csv"))
    for table in tables:
        assert (on_slurm / table).read_bytes() == (local / table).read_bytes(), f"{table} differs"


def test_a_decisive_config_runs_as_independent_chunk_jobs_on_slurm(slurm_cluster, tmp_path):
    """config/correlation-decisive-households.yaml at a small size (its design: one point, two arms, many replicates
    in chunks of replicates_per_job) through the SLURM profile: every chunk is a SLURM job of its own."""
    workdir = copy_workflow(tmp_path / "decisive")
    (workdir / "config").mkdir()
    decisive = ROOT / "config" / "correlation-decisive-households.yaml"
    (workdir / "config" / decisive.name).write_bytes(decisive.read_bytes())
    (workdir / "small.yaml").write_text("replicates_per_job: 2\nexperiments:\n  zhao-correlation:\n"
                                        "    n: 300\n    d: 3000\n    replicates: 6\n    k_grid: [0, 50, 300]\n",
                                        encoding="utf-8")
    proc, seconds = run([SNAKEMAKE, "--configfile", f"config/{decisive.name}", "small.yaml", "--executor", "slurm",
                         "--workflow-profile", str(SLURM_PROFILE), "--jobs", "4",
                         "--slurm-init-seconds-before-status-checks", "5", *partition_args(slurm_cluster)],
                        cwd=workdir, env=slurm_cluster.env, timeout=480)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}\n{slurm_cluster.diagnostics()}"
    print(f"SLURM decisive run: {seconds:.0f} s")
    chunks = {p.parent.name for p in (workdir / ".snakemake" / "slurm_logs").rglob("*.log")
              if "simulate_chunk" in str(p)}
    assert len(chunks) == 3, chunks  # 6 replicates in chunks of 2
    claims = (workdir / "results" / "claims" / "zhao-correlation.csv").read_text(encoding="utf-8")
    assert "households-zhao_alg1_dp_effective_n-restores" in claims
