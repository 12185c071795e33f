"""A result is a function of its recorded inputs: change any config value (or the code of a bound) after a run, rerun,
and the tables are byte-identical to a clean run of the changed config; nothing unaffected reruns."""
import copy
import os
import re
import shutil

import pytest
import yaml
from conftest import copy_workflow, snakemake

from adaptive_repro.pipeline import sources

pytestmark = pytest.mark.slow

BASE = {
    "seed": 3,
    "engine": "auto",
    "replicates_per_job": 3,
    "outputs": ["dwork-null", "zhao-fig2", "zhao-fig3", "he-kl"],
    "experiments": {
        "dwork-null": {"n": 200, "d": 200, "replicates": 6, "k_grid": [0, 5, 10],
                       "mechanisms": ["standard", "dwork_code"]},
        "zhao-fig2": {"n": 200, "d": 200, "replicates": 6, "k_grid": [0, 5, 10], "mechanisms": ["standard"],
                      "signal_attributes": 5, "model": {"p_s": 0.9, "p_y": 0.9, "b": 0.3}},
        "zhao-fig3": {"n": 300, "d": 100, "replicates": 6, "k_grid": [0, 5, 10], "query": "sign",
                      "mechanisms": ["standard", "zhao_alg1_dp"], "signal_attributes": 5,
                      "model": {"p_s": 0.75, "p_y": 0.75, "b": 0.1}, "alg1": {"budget": 5, "epsilon": 1.0}},
    },
    "theory": {"he": {"kl": {"points": 11}}},
}


def edit(path, value):
    def change(cfg):
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


#: One change per kind of key, grouped so that a group changes each output at most once (each output's rerun then
#: answers for its one change); the engine and the seed change every output, so each is a group alone.
CHANGES = {
    "n, model, alg1, theory": [edit(["experiments", "dwork-null", "n"], 300),
                               edit(["experiments", "zhao-fig2", "model", "b"], 0.1),
                               edit(["experiments", "zhao-fig3", "alg1", "epsilon"], 2.0),
                               edit(["theory", "he", "kl", "points"], 13)],
    "mechanisms, d, k_grid": [edit(["experiments", "dwork-null", "mechanisms"], ["standard"]),
                              edit(["experiments", "zhao-fig2", "d"], 150),
                              edit(["experiments", "zhao-fig3", "k_grid"], [0, 4, 10])],
    "signal": [edit(["experiments", "dwork-null", "signal_attributes"], 5)],
    "engine": [edit(["engine"], "direct")],
    "seed": [edit(["seed"], 4)],
}
#: What the reruns and clean runs build: every output and the claims table (the HTML report, which reads them, is
#: left out: no table depends on it, and test_editing_a_caption_reruns_only_the_html_report covers its inputs).
TABLE_TARGETS = ("results/REPRODUCTION.md",)


def changed_outputs(cfg: dict) -> set[str]:
    """The outputs whose numbers the change must move: those whose block changed, or every simulated one where the
    engine or the seed changed (he-kl computes without either)."""
    if {k: v for k, v in cfg.items() if k not in ("experiments", "theory")} != \
            {k: v for k, v in BASE.items() if k not in ("experiments", "theory")}:
        return set(BASE["experiments"])
    changed = {o for o, block in cfg["experiments"].items() if block != BASE["experiments"][o]}
    return changed | ({"he-kl"} if cfg["theory"] != BASE["theory"] else set())


def tables(workdir):
    return {p.name: p.read_bytes() for p in sorted((workdir / "results" / "tables").glob("*.csv"))}


def run(workdir, cfg, *args):
    (workdir / "run.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(workdir, *args, "--configfile", "run.yaml")  # last: --configfile takes several values
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    workdir = copy_workflow(tmp_path_factory.mktemp("base"))
    run(workdir, BASE)
    return workdir


@pytest.mark.parametrize("kinds", list(CHANGES))
def test_changed_config_gives_the_tables_of_a_clean_run(base_run, tmp_path, kinds):
    cfg = copy.deepcopy(BASE)
    for change in CHANGES[kinds]:
        change(cfg)
    rerun = tmp_path / "rerun"
    shutil.copytree(base_run, rerun, symlinks=True)
    run(rerun, cfg, *TABLE_TARGETS)
    clean = copy_workflow(tmp_path / "clean")
    run(clean, cfg, *TABLE_TARGETS)
    assert tables(rerun) == tables(clean)
    before, after = tables(base_run), tables(rerun)
    for oid in changed_outputs(cfg):  # each change did reach its output's table
        assert after[f"{oid}.csv"] != before[f"{oid}.csv"], oid


def jobs_of(proc):
    """{rule: count} of a dry run's job table."""
    counts = {}
    for rule, count in re.findall(r"^(\w+)\s+(\d+)$", proc.stdout, flags=re.M):
        counts[rule] = int(count)
    return counts


def test_raising_replicates_only_adds_chunks(base_run, tmp_path):
    cfg = copy.deepcopy(BASE)
    cfg["experiments"]["dwork-null"]["replicates"] = 9
    workdir = tmp_path / "more"
    shutil.copytree(base_run, workdir, symlinks=True)
    jobs = jobs_of(run(workdir, cfg, "--dry-run"))
    assert jobs.get("simulate_chunk") == 1, jobs  # replicates 6..8: one new chunk, the two old ones kept
    assert "build_output" in jobs and jobs["build_output"] == 1  # only dwork-null's output


def test_nothing_reruns_without_a_change_and_chunking_never_changes_numbers(base_run, tmp_path):
    workdir = tmp_path / "same"
    shutil.copytree(base_run, workdir, symlinks=True)
    assert "Nothing to be done" in run(workdir, BASE, "--dry-run").stdout
    run(workdir, BASE | {"replicates_per_job": 2})
    assert tables(workdir) == tables(base_run)


@pytest.mark.serial  # edits a file of the shared package: no other workflow run may see it
def test_editing_the_code_of_a_bound_reruns_exactly_its_outputs(base_run, tmp_path):
    workdir = tmp_path / "code"
    shutil.copytree(base_run, workdir, symlinks=True)
    bound = next(p for p in sources.module_sources("adaptive_repro.outputs.he.kl") if p.endswith("bounds/he.py"))
    original, stat = open(bound, "rb").read(), os.stat(bound)
    try:  # an edit (Snakemake compares checksums of small inputs, so a mere touch does not count)
        with open(bound, "ab") as f:
            f.write(b"\n# an edit\n")
        proc = run(workdir, BASE, "--dry-run")
    finally:
        with open(bound, "wb") as f:
            f.write(original)
        os.utime(bound, (stat.st_atime, stat.st_mtime))
    jobs = jobs_of(proc)
    assert jobs.get("build_output") == 1 and "simulate_chunk" not in jobs, proc.stdout[-3000:]  # he-kl only


def dry_run_after_editing(base_run, tmp_path, path) -> dict:
    """{rule: count} of a dry run after appending a comment to ``path`` (restored afterwards, mtime included)."""
    workdir = tmp_path / "edit"
    shutil.copytree(base_run, workdir, symlinks=True)
    path = workdir / path if not os.path.isabs(path) else path
    original, stat = open(path, "rb").read(), os.stat(path)
    try:
        with open(path, "ab") as f:
            f.write(b"\n.. an edit\n" if str(path).endswith(".rst") else b"\n# an edit\n")
        proc = run(workdir, BASE, "--dry-run")
    finally:
        with open(path, "wb") as f:
            f.write(original)
        os.utime(path, (stat.st_atime, stat.st_mtime))
    return jobs_of(proc)


def package_file(relative: str) -> str:
    return str(sources.ROOT / relative)


@pytest.mark.serial  # edits a file of the shared package: no other workflow run may see it
def test_editing_the_catalogue_reruns_no_simulation(base_run, tmp_path):
    jobs = dry_run_after_editing(base_run, tmp_path, package_file("pipeline/catalogue.py"))
    assert "simulate_chunk" not in jobs and "aggregate_records" not in jobs, jobs
    assert jobs.get("build_output") == len(BASE["outputs"]), jobs  # the builders dispatch through it


def test_editing_a_caption_reruns_only_the_html_report(base_run, tmp_path):
    jobs = dry_run_after_editing(base_run, tmp_path, "workflow/report/dwork-null.rst")
    assert set(jobs) <= {"html_report", "all", "total"}, jobs


@pytest.mark.serial  # edits a file of the shared package: no other workflow run may see it
def test_editing_the_sign_engine_reruns_only_the_sign_query_simulations(base_run, tmp_path):
    """Only zhao-fig3 asks sign queries (exact engine); dwork-null and zhao-fig2 run on the fast engine."""
    jobs = dry_run_after_editing(base_run, tmp_path, package_file("simulation/sign_engine.py"))
    assert jobs.get("simulate_chunk") == 2, jobs  # zhao-fig3's 6 replicates, 3 per job
    assert jobs.get("build_output") == 1 and jobs.get("aggregate_records") == 1, jobs


@pytest.mark.serial  # edits a file of the shared package: no other workflow run may see it
def test_editing_plotting_reruns_figures_but_no_simulation(base_run, tmp_path):
    jobs = dry_run_after_editing(base_run, tmp_path, package_file("report/plotting.py"))
    assert "simulate_chunk" not in jobs and jobs.get("build_output") == len(BASE["outputs"]), jobs


def test_files_follow_the_umask(base_run):
    for path in (base_run / "results").rglob("*.csv"):
        assert os.stat(path).st_mode & 0o777 == 0o666 & ~current_umask(), path


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
