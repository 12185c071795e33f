"""End-to-end runs of the workflow on a tiny config in a temporary folder."""
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import SNAKEMAKE, copy_workflow, snakemake, tiny_config

pytestmark = pytest.mark.slow

OUTPUTS = ("dwork-null", "dwork-signal")


def result_tables(workdir: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((workdir / "results" / "tables").glob("*.csv"))}


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    """The tiny config run once with 1 core and 3 replicates per job (its console in console.txt beside it)."""
    workdir = copy_workflow(tmp_path_factory.mktemp("reference"))
    proc = subprocess.run([SNAKEMAKE, "--cores", "1", "--configfile", "tests/configs/tiny.yaml",
                           "--config", "replicates_per_job=3"], cwd=workdir, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (workdir / "console.txt").write_text(proc.stderr)
    return workdir


def test_end_to_end_outputs(reference_run):
    results = reference_run / "results"
    for oid in OUTPUTS:
        for path in (f"tables/{oid}.csv", f"figures/{oid}.pdf", f"figures/{oid}.png", f"claims/{oid}.csv"):
            assert (results / path).stat().st_size > 0, path
        table = pd.read_csv(results / "tables" / f"{oid}.csv")
        assert {"experiment", "mechanism", "k", "dataset", "mean", "sd", "replicates"} <= set(table.columns)
        assert set(table["dataset"]) == {"train", "holdout", "fresh", "population"}
        assert set(table["mechanism"]) == {"standard", "dwork_code"}
        assert (table["replicates"] == tiny_config()["experiments"][oid]["replicates"]).all()
        k0 = table[table["k"] == 0]
        assert (k0["mean"] == 0.5).all()  # the script records 0.5 for k = 0
    report = (results / "REPRODUCTION.md").read_text()
    for oid in OUTPUTS:
        assert f"`{oid}`" in report
    claims = pd.read_csv(results / "tables" / "claims.csv")
    assert set(claims["output_id"]) == set(OUTPUTS)
    assert set(claims["kind"]) == {"paper", "project"} and claims["code"].notna().all()
    assert claims.loc[claims["kind"] == "paper", "quote"].notna().all()
    (log,) = (results / "logs" / "simulate" / "dwork-null").glob("*/replicates-0-2.log")
    logs = log.read_text()
    assert "replicates done 3/3" in logs and "runs on the fast engine" in logs


@pytest.mark.serial
def test_same_numbers_whatever_cores_and_chunking_after_an_interrupted_run(reference_run, tmp_path):
    """SIGINT in the middle of a job, then a rerun: no corrupted output, same tables as an uninterrupted run."""
    workdir = copy_workflow(tmp_path / "interrupted")
    cfg = tiny_config()
    cfg["engine"] = "direct"  # slower jobs, so the interrupt lands mid-job
    cfg["replicates_per_job"] = 10
    for block in cfg["experiments"].values():
        block["n"] = block["d"] = 2500  # about 0.5-1 s per replicate: 5-10 s per job, so the interrupt lands mid-job
        block["replicates"] = 20
    (workdir / "slow.yaml").write_text(yaml.safe_dump(cfg))
    # Reference tables for the direct engine come from a plain run in another folder.
    reference = copy_workflow(tmp_path / "reference-direct")
    (reference / "slow.yaml").write_text(yaml.safe_dump(cfg | {"replicates_per_job": 2}))
    proc = subprocess.run([SNAKEMAKE, "--cores", "1", "--configfile", "slow.yaml"], cwd=reference,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr

    # A shell that starts the test suite in the background makes it ignore SIGINT, and children inherit that: restore
    # the default so that Snakemake sees the Ctrl-C as in a terminal.
    runner = subprocess.Popen([SNAKEMAKE, "--cores", "2", "--configfile", "slow.yaml"], cwd=workdir,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    logs = workdir / "results" / "logs" / "simulate" / "dwork-null"
    deadline = time.time() + 120
    log = None
    while time.time() < deadline and not (log and "replicates done 1/" in log.read_text()):
        log = next(iter(sorted(logs.glob("*/replicates-0-9.log"))), None) if logs.exists() else None
        time.sleep(0.05)
    assert log is not None, "the first job never started"
    os.killpg(runner.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group, as in a terminal
    out, _ = runner.communicate(timeout=120)
    assert runner.returncode != 0, out
    assert not (workdir / "results" / "tables" / "dwork-null.csv").exists(), "the interrupt came too late"
    # Nothing half-written: every record file that exists is complete.
    for chunk in (workdir / "results" / "records").rglob("replicates-*.records.csv"):  # diagnostics: 0 rows
        frame = pd.read_csv(chunk)
        assert frame["replicate"].nunique() == 10, chunk
    assert not list((workdir / "results").rglob("*.part")), "temporary files survived the interrupt"
    # The rerun resumes and completes.
    proc = snakemake(workdir, "--configfile", "slow.yaml", "--rerun-incomplete")
    assert proc.returncode == 0, proc.stderr
    assert result_tables(workdir) == result_tables(reference)


def test_zhao_experiments_end_to_end(tmp_path):
    """The Zhao experiments at toy size: tables, figures, claims, theory alongside, answered fractions."""
    workdir = copy_workflow(tmp_path / "zhao")
    proc = snakemake(workdir, "--configfile", "tests/configs/tiny-zhao.yaml")
    assert proc.returncode == 0, proc.stderr
    results = workdir / "results"
    fig3 = pd.read_csv(results / "tables" / "zhao-fig3.csv")
    assert {"standard", "dwork_code", "zhao_alg1_dp", "zhao_alg1_bdp"} == set(fig3["mechanism"])
    assert {"answered", "budget_used", "sigma", "eps_star", "certified_bdp",
            "smallest_guaranteed_tau"} <= set(fig3.columns)
    large = pd.read_csv(results / "tables" / "zhao-fig3-large-n.csv")
    assert {"mechanism", "k", "dataset", "mean", "se", "answered"} <= set(large.columns)
    assert set(large["dataset"]) == {"train", "holdout", "fresh", "population"}
    frontier = pd.read_csv(results / "tables" / "zhao-frontier.csv")
    assert {"calibration", "p", "eps", "n", "answered_fraction", "replicates",
            "answered_fraction_se"} <= set(frontier.columns)
    assert frontier["answered_fraction"].between(0, 1).all()
    sweep = pd.read_csv(results / "tables" / "zhao-sweep.csv")
    assert set(zip(sweep["p"], sweep["b"])) == {(0.5, 0.0), (0.5, 0.3), (0.9, 0.0), (0.9, 0.3)}
    thm2 = pd.read_csv(results / "tables" / "zhao-thm2-check.csv")
    assert (thm2["replicates"] == 10).all() and thm2["frequency"].between(0, 1).all()
    (log,) = (results / "logs" / "simulate" / "zhao-fig3").glob("*/replicates-0-4.log")
    assert "arm zhao_alg1_bdp runs on the exact engine" in log.read_text()
    claims = pd.read_csv(results / "tables" / "claims.csv")
    assert set(claims["output_id"]) == set(
        yaml.safe_load((workdir / "tests/configs/tiny-zhao.yaml").read_text())["outputs"])
    assert set(claims["kind"]) <= {"paper", "slip", "project"} and claims["code"].notna().all()
    assert claims.loc[claims["kind"] != "project", "quote"].notna().all()


def test_a_corrupted_chunk_or_aggregate_stops_the_run_with_one_line(reference_run, tmp_path):
    """Truncate a chunk (or edit the aggregate) after a run: the next run refuses it with one line in the job's log
    naming the file and what to do, no traceback; after deleting the file and its sidecar the rerun restores the
    same tables."""
    workdir = tmp_path / "copy"

    shutil.copytree(reference_run, workdir, symlinks=True)
    before = result_tables(workdir)
    (chunk,) = (workdir / "results" / "records" / "dwork-null").glob("*/replicates-3-5.records.csv")
    data = chunk.read_bytes()
    chunk.write_bytes(data[: len(data) // 2])
    proc = snakemake(workdir, "--configfile", "tests/configs/tiny.yaml", "--config", "replicates_per_job=3")
    assert proc.returncode != 0
    log = (workdir / "results" / "logs" / "aggregate" / "dwork-null.log").read_text()
    assert f"{chunk.relative_to(workdir)}: content does not match the digest written with it" in log
    assert "Traceback" not in log
    chunk.unlink()
    (chunk.parent / f"{chunk.name}.meta.json").unlink()
    proc = snakemake(workdir, "--configfile", "tests/configs/tiny.yaml", "--config", "replicates_per_job=3")
    assert proc.returncode == 0, proc.stderr
    assert result_tables(workdir) == before
    # as the error says: the chunk is simulated again and the refused aggregate written again
    assert chunk.read_bytes() == data
    assert (workdir / "results" / "records" / "dwork-null.records.csv").is_file()

    aggregate = workdir / "results" / "records" / "dwork-signal.records.csv"
    aggregate.write_text(aggregate.read_text().replace("0.5", "0.9", 1))
    proc = snakemake(workdir, "--configfile", "tests/configs/tiny.yaml", "--config", "replicates_per_job=3")
    assert proc.returncode != 0
    log = (workdir / "results" / "logs" / "dwork-signal.log").read_text()
    assert "results/records/dwork-signal.records.csv: content does not match" in log and "Traceback" not in log


def test_raising_replicates_only_adds_chunks(tmp_path):
    """10 -> 15 replicates with automatic job sizes: the second run simulates only replicates 10..14, and its tables
    equal a clean run's with 15."""
    workdir = copy_workflow(tmp_path / "grow")
    cfg = tiny_config() | {"replicates_per_job": "auto", "outputs": ["dwork-null"]}
    (workdir / "a.yaml").write_text(yaml.safe_dump(cfg))
    assert snakemake(workdir, "--configfile", "a.yaml").returncode == 0
    records = workdir / "results" / "records" / "dwork-null"
    before = {p.name: p.stat().st_mtime_ns for p in records.rglob("replicates-*.records.csv")}
    cfg["experiments"]["dwork-null"]["replicates"] = 15
    (workdir / "a.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(workdir, "--configfile", "a.yaml")
    assert proc.returncode == 0, proc.stderr
    after = {p.name: p.stat().st_mtime_ns for p in records.rglob("replicates-*.records.csv")}
    assert {k: v for k, v in after.items() if k in before} == before  # no chunk rewritten
    new = sorted(set(after) - set(before))
    assert new and all(int(re.match(r"replicates-(\d+)-", n).group(1)) >= 10 for n in new), new
    clean = copy_workflow(tmp_path / "clean")
    (clean / "a.yaml").write_text(yaml.safe_dump(cfg))
    assert snakemake(clean, "--configfile", "a.yaml").returncode == 0
    assert result_tables(workdir) == result_tables(clean)


def _write_slow_config(workdir: Path) -> None:
    """slow.yaml: the tiny config on the direct engine at n = d = 2,500, one job of 20 replicates per experiment, so
    that a signal sent once a job reports progress lands mid-job."""
    cfg = tiny_config()
    cfg["engine"] = "direct"
    cfg["replicates_per_job"] = 20
    for block in cfg["experiments"].values():
        block["n"] = block["d"] = 2500
        block["replicates"] = 20
    (workdir / "slow.yaml").write_text(yaml.safe_dump(cfg))


@pytest.mark.serial
def test_killing_snakemake_and_its_jobs_leaves_nothing_half_written(tmp_path):
    """SIGKILL of Snakemake and its running jobs (no chance to clean up, as a cluster's time limit or an OOM kill
    does): no partial output is left under its final name, only temporaries a rerun ignores; a rerun completes."""
    workdir = copy_workflow(tmp_path / "killed")
    _write_slow_config(workdir)
    runner = subprocess.Popen([SNAKEMAKE, "--cores", "2", "--configfile", "slow.yaml"], cwd=workdir,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    logs = workdir / "results" / "logs" / "simulate" / "dwork-null"
    deadline = time.time() + 120
    while time.time() < deadline and not (logs.exists() and any("replicates done 1/" in p.read_text()
                                                                 for p in logs.rglob("*.log"))):
        time.sleep(0.05)
    os.killpg(runner.pid, signal.SIGKILL)
    runner.wait()
    for chunk in (workdir / "results" / "records").rglob("replicates-*.records.csv"):
        assert (chunk.parent / f"{chunk.name}.meta.json").exists(), chunk
    # Snakemake's own lock survives a SIGKILL; its message says to unlock, as a user would
    assert snakemake(workdir, "--configfile", "slow.yaml", "--unlock").returncode == 0
    proc = snakemake(workdir, "--configfile", "slow.yaml", "--rerun-incomplete")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.serial
def test_a_job_killed_by_a_signal_gets_its_failed_line(tmp_path):
    """kill -9 of one running job (as the out-of-memory killer does): the job cannot print its own FAILED line, so
    the workflow's error handler names it with the signal and the fix."""
    import psutil

    workdir = copy_workflow(tmp_path / "job-killed")
    _write_slow_config(workdir)
    runner = subprocess.Popen([SNAKEMAKE, "--cores", "1", "--configfile", "slow.yaml"], cwd=workdir,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    logs = workdir / "results" / "logs" / "simulate"
    deadline = time.time() + 120
    while time.time() < deadline and not (logs.exists() and any("replicates done 1/" in p.read_text()
                                                                 for p in logs.rglob("*.log"))):
        time.sleep(0.05)
    jobs = [p for p in psutil.Process(runner.pid).children(recursive=True)
            if any("simulate_chunk" in part for part in p.cmdline())]
    assert jobs, "no running simulation job to kill"
    for job in jobs:
        job.kill()
    out, _ = runner.communicate(timeout=120)
    assert runner.returncode != 0
    failed = [line for line in out.splitlines() if line.startswith("FAILED ")]
    assert any(line.startswith("FAILED simulate/") and "killed by signal SIGKILL (9)" in line
               and "rerun snakemake" in line for line in failed), out[-2000:]


def test_a_truncated_figure_gets_a_failed_line_naming_it(tmp_path):
    """A figure PNG cut short after its build (a full disk, a copy interrupted): the report job that reads it fails
    with one FAILED line naming the file and the fix, and the rerun after following it succeeds."""
    workdir = copy_workflow(tmp_path / "truncated")
    config = tiny_config() | {"outputs": ["he-kl"]}
    (workdir / "one.yaml").write_text(yaml.safe_dump(config))
    assert snakemake(workdir, "--configfile", "one.yaml").returncode == 0
    png = workdir / "results" / "figures" / "he-kl.png"
    png.write_bytes(png.read_bytes()[:len(png.read_bytes()) // 2])
    proc = snakemake(workdir, "--configfile", "one.yaml")
    assert proc.returncode != 0
    failed = [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("FAILED ")]
    assert any(line.startswith("FAILED html_report: DamagedFigure: ") and "he-kl.png: cannot be read" in line
               and "delete it and its PDF, then rerun" in line for line in failed), failed
    png.unlink()
    (workdir / "results" / "figures" / "he-kl.pdf").unlink()
    assert snakemake(workdir, "--configfile", "one.yaml").returncode == 0


def test_a_full_disk_gets_a_failed_line_naming_the_cause_the_file_and_the_fix(tmp_path):
    """results/ on a 48 kB file system (tmpfs, mounted as root): the run fails when the build writes its table, with one
    FAILED line naming ENOSPC, the file and the fix; nothing half-written is left; with space the rerun succeeds."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root (CI runs as root)")
    workdir = copy_workflow(tmp_path / "full")
    (workdir / "one.yaml").write_text(yaml.safe_dump(tiny_config() | {"outputs": ["he-kl"]}))
    results = workdir / "results"
    results.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(results)], check=True)
    try:
        proc = snakemake(workdir, "--configfile", "one.yaml")
        left = sorted(str(p.relative_to(results)) for p in results.rglob("*") if p.is_file())
    finally:
        subprocess.run(["umount", str(results)], check=True)
    assert proc.returncode != 0
    failed = [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("FAILED ")]
    assert any(line.startswith("FAILED build he-kl: OSError: No space left on device (results/")
               and "the disk is full: free space, then rerun snakemake" in line for line in failed), failed
    assert not any(name.startswith(("tables/", "claims/", "figures/")) for name in left), left  # no partial output
    assert snakemake(workdir, "--configfile", "one.yaml").returncode == 0
