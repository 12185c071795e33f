"""Cost of a simulation job before it runs: memory and time per replicate, chunk sizes, and a refusal for jobs that
cannot fit on the machine. Used by the workflow at parse time (resources of every job, dry-run estimate).

Per-replicate costs come from ``make benchmark`` on a 2-core machine (results/benchmarks/engines.csv): the direct
engine materializes three n x d float64 matrices (about 9.4e-8 CPU-s and 32 bytes per entry), the
sufficient-statistic engine draws O(d + n |k grid|) numbers (about 1e-7 CPU-s and 24 bytes per n |k grid|), the
exact sign-query engine O(d) per query phase and O(n) per selected column. The constants are deliberately rounded
up: an estimate that is too high only makes jobs smaller.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

#: Job length the automatic chunking aims at (estimated CPU seconds; the estimates are rounded up): long enough that
#: a job's fixed cost (0.2-1 CPU-s of start-up and imports, benchmarks/startup.py, and Snakemake's bookkeeping) stays
#: a few percent, short enough that a lost job costs little and many cores stay busy.
MIN_JOB_SECONDS, MAX_JOB_SECONDS = 30.0, 120.0
#: Automatic chunking splits an experiment into at least this many jobs (when it has that many replicates), so a
#: cluster or a many-core machine has work for every core; independent of --cores so results never rerun.
MIN_CHUNKS = 16
#: More jobs than this per experiment make the DAG itself expensive (about 100 kB each): refused.
MAX_CHUNKS = 5000


#: CPU seconds per record of a selected column drawn by an exact engine, once for all arms (measured with
#: benchmarks/correlation_engines.py: households at n = 10^6, 42 CPU-s a replicate with 3 arms and 55 with 5 at k up to
#: 1,000; attribute chains 0.75-0.92 CPU-s a replicate of config/correlation-power.yaml's points with 7 arms, their
#: paths drawn in compiled loops).
EXACT_DRAW_SECONDS = {"exact": 2.25e-8, "exact_chains": 1.0e-7}
#: CPU seconds per selected column and arm on an exact engine (streams, blocks, each arm's score): fitted to the power
#: config's points (0.53-0.96 CPU-s a replicate with 7 arms at n = 2,000, k up to 2,000).
EXACT_COLUMN_ARM_SECONDS = 3.0e-5


@dataclasses.dataclass(frozen=True)
class ReplicateCost:
    """Estimated CPU seconds and peak memory (MB) of one replicate of an experiment."""

    seconds: float
    mem_mb: float


def replicate_cost(n: int, d: int, k_grid, arm_engines: dict[str, str], column_cost: float = 1.0) -> ReplicateCost:
    """CPU seconds and memory of one replicate, by the engines its arms run on (module docstring); ``column_cost``:
    the data model's CPU per selected column on its exact engine relative to the batch chain's."""
    engines = set(arm_engines.values())
    k_len, k_max = len(k_grid), max(k_grid, default=0)
    seconds, mem = 0.005, 150.0
    exact_engines = {"exact", "exact_chains"}  # O(d) attribute phase, O(n) per selected column
    if "direct" in engines or engines - {"fast"} - exact_engines:
        seconds += 1.2e-7 * n * d * max(1, sum(e == "direct" for e in arm_engines.values())) / 2
        mem += 40.0 * n * d / 1e6
    if "fast" in engines:
        seconds += 1.5e-8 * (d + n * k_len) * sum(e == "fast" for e in arm_engines.values())
        mem += 32.0 * n * k_len / 1e6 + 24.0 * d / 1e6
    if engines & exact_engines:
        arms = sum(e in exact_engines for e in arm_engines.values())
        columns = min(k_max, d)
        # a selected column is drawn once for all arms (O(n), attribute chains' paths about 4x dearer) and added to
        # every arm's scores (O(n) each), plus a per-column, per-arm overhead of streams and blocks
        draw = EXACT_DRAW_SECONDS["exact_chains" if "exact_chains" in engines else "exact"] * column_cost
        seconds += (2e-7 * d * arms + n * columns * (draw + 6.5e-9 * arms)
                    + EXACT_COLUMN_ARM_SECONDS * column_cost * columns * arms + 2e-3 * arms)
        mem += 48.0 * n / 1e6 + 64.0 * d / 1e6
    return ReplicateCost(seconds, mem)


def frontier_cost(d: int, points: int) -> ReplicateCost:
    """One replicate of zhao-frontier: exact sign queries of d attributes (O(d) draws) at every grid point
    (about 1.7e-7 CPU-s per attribute and point; benchmarks/recorded-costs.csv holds the measurement it is held to)."""
    return ReplicateCost(0.05 + 1.7e-7 * d * points, 150.0 + 64.0 * d / 1e6)


#: Theory outputs: the config keys whose size (a list's length, a count's value) multiplies the work of the job.
THEORY_WORK_KEYS: dict[str, tuple[str, ...]] = {
    "zhao-fig1": ("n_nodes",),
    "zhao-bdp-conversion": ("figure_p", "tau", "binary_p"),
    "zhao-sample-complexity": ("tau_points", "p"),
    "zhao-maxinfo": ("n_grid", "eps_points"),
    "zhao-lemma1": ("p_grid", "n_grid", "taus", "replicates"),
    "he-kl": ("points",),
    "he-composition-eps": ("eps", "delta", "T_curve", "delta_tilde_sweep", "pld_support"),
    "he-composition-delta": ("eps", "delta", "T_curve", "delta_tilde_sweep"),
    "he-generalization": ("eps", "delta", "k", "N"),
    "he-sgld": ("N", "T", "sigma", "delta_tilde"),
    "he-federated": ("N", "T", "sigma", "delta_tilde"),
    "lecture-transfer": ("m_grid", "epsilons", "replicates"),
    "lecture-monitor": ("T_grid", "betas", "epsilon_primes", "replicates"),
}
#: (A list counts by its length, a number by its value; "pld_support" is the size of the largest composed privacy
#: loss distribution, max T x max eps / pld_interval grid points: composing it is the slow and large part.)
#: Where a job's memory follows fewer keys than its CPU time: the composed PLD is held one at a time.
THEORY_MEMORY_KEYS: dict[str, tuple[str, ...]] = {"he-composition-eps": ("pld_support",)}
#: A theory job at its default grids, measured: (CPU seconds of the whole job, as its log's "done" line gives it;
#: peak resident MB of the build). A 2-core machine of this project's kind, one run after another (``make benchmark``
#: records the measured ones beside the estimates in results/benchmarks/estimates.csv). A job's estimate scales what
#: exceeds start-up by how much larger its grids are than the defaults.
THEORY_MEASURED: dict[str, tuple[float, float]] = {
    "zhao-fig1": (2.2, 114.0), "zhao-bdp-conversion": (6.7, 160.0), "zhao-sample-complexity": (6.0, 126.0),
    "zhao-maxinfo": (3.5, 110.0), "zhao-lemma1": (4.2, 172.0), "he-kl": (4.5, 125.0),
    "he-composition-eps": (20.1, 555.0), "he-composition-delta": (6.4, 154.0), "he-generalization": (4.9, 128.0),
    "he-sgld": (8.5, 227.0), "he-federated": (11.0, 211.0), "lecture-transfer": (3.8, 139.0),
    "lecture-monitor": (14.3, 197.0)}
#: Outputs whose cost is linear in one key, measured beyond the defaults: key -> (CPU seconds, MB) per unit more
#: than the default. he-kl: 200,000 points cost 4.8 CPU-s and 588 MB in the build against 1.8 s and 125 MB at 121
#: (and 10^7 points were OOM-killed at 23 GB): about 1.5e-5 s and 0.0023 MB a point.
THEORY_LINEAR: dict[str, tuple[str, float, float]] = {"he-kl": ("points", 1.5e-5, 0.0023)}
#: A job's fixed cost: CPU seconds (interpreter and imports, 0.2-1.0 by job type in benchmarks/startup.py, plus the
#: spec, the records' CSV and its digest: a simulate job of a few cheap replicates measures 2-3 CPU-s in all,
#: benchmarks/recorded-costs.csv) and resident MB (the lightest build jobs peak at about 130 MB).
JOB_STARTUP_SECONDS, JOB_BASE_MB = 1.5, 130.0


def _size(value) -> float:
    if isinstance(value, (list, tuple)):
        return float(len(value))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 1.0
    return max(float(value), 1.0)


def _work(params: dict, key: str) -> float:
    """How much work one key of a theory block asks for (see :data:`THEORY_WORK_KEYS`)."""
    if key == "pld_support":
        return max(params["T"]) * max(params["eps"]) / params["pld_interval"] if params["laplace_pld"] else 1.0
    return _size(params.get(key))


def _work_words(output_id: str) -> list[str]:
    """The keys of :data:`THEORY_WORK_KEYS` as a user changes them to ask for less work."""
    return [{"pld_support": "T and eps (or a larger pld_interval)"}.get(k, k) for k in THEORY_WORK_KEYS[output_id]]


def theory_cost(output_id: str, params: dict, defaults: dict) -> ReplicateCost:
    """Estimated CPU seconds and peak memory of a theory output's job: its measured cost at the defaults
    (:data:`THEORY_MEASURED`) plus, for an output linear in one key (:data:`THEORY_LINEAR`), the measured cost per unit
    of that key beyond its default; else with what exceeds start-up scaled by the work ratio, the product over
    :data:`THEORY_WORK_KEYS` of size(params) / size(defaults) (linear in each key; conservative where a key has a
    fixed part)."""
    cpu, rss = THEORY_MEASURED[output_id]
    if output_id in THEORY_LINEAR:
        key, cpu_per, mb_per = THEORY_LINEAR[output_id]
        more = max(_work(params, key) - _work(defaults, key), 0.0)
        others = math.prod(_work(params, k) / _work(defaults, k) for k in THEORY_WORK_KEYS[output_id] if k != key)
        return ReplicateCost(JOB_STARTUP_SECONDS + ((cpu - JOB_STARTUP_SECONDS) + cpu_per * more) * others,
                             rss + mb_per * more * others)
    ratio = math.prod(_work(params, key) / _work(defaults, key) for key in THEORY_WORK_KEYS[output_id])
    held = math.prod(_work(params, key) / _work(defaults, key)
                     for key in THEORY_MEMORY_KEYS.get(output_id, THEORY_WORK_KEYS[output_id]))
    return ReplicateCost(JOB_STARTUP_SECONDS + (cpu - JOB_STARTUP_SECONDS) * ratio,
                         JOB_BASE_MB + max(rss - JOB_BASE_MB, 16.0) * held)


def spec_cost(spec) -> ReplicateCost:
    """Cost of one replicate of an experiment spec: the frontier (a grid of attribute-query phases) or a classifier
    experiment (by its arms' engines)."""
    from adaptive_repro.simulation.correlation import CorrelationFrontierSpec, CorrelationSpec
    from adaptive_repro.simulation.estimated_v import EstimatedVSpec
    from adaptive_repro.simulation.frontier import FrontierSpec

    if isinstance(spec, CorrelationSpec):  # every point in every replicate
        costs = [spec_cost(point) for point in spec.points]
        return ReplicateCost(sum(c.seconds for c in costs), max(c.mem_mb for c in costs))
    if isinstance(spec, FrontierSpec):
        points = len(spec.n_grid) * len(spec.p_grid) * len(spec.eps_grid) * len(spec.calibrations)
        return frontier_cost(spec.d, points)
    if isinstance(spec, EstimatedVSpec):  # records drawn one by one: two n x d normal matrices per (point, n)
        cells = sum(len(spec.points) * n * spec.d for n in spec.n_grid)
        return ReplicateCost(0.05 + 6e-8 * cells, 150.0 + 40.0 * max(spec.n_grid) * spec.d / 1e6)
    if isinstance(spec, CorrelationFrontierSpec):  # Python overhead per (point, n, calibration) dominates at small d
        runs = len(spec.points) * len(spec.n_grid) * len(spec.calibrations)
        return ReplicateCost(0.05 + 3e-4 * runs + 3e-7 * spec.d * runs, 150.0 + 64.0 * spec.d / 1e6)
    return replicate_cost(spec.n, spec.d, spec.k_grid, spec.arm_engines(), spec.model.COLUMN_COST)


def replicates_per_job(setting: int | str, replicates: int, cost: ReplicateCost) -> int:
    """The chunk size: ``setting`` if it is a number, else ("auto") jobs of MIN_JOB_SECONDS to MAX_JOB_SECONDS,
    split into at least MIN_CHUNKS jobs where the replicates allow, then evened out over the jobs that takes (40
    replicates at 39 per job run as 20 + 20, not 39 + 1: a one-replicate job is mostly start-up, and even jobs pack
    better). Depends only on the config (never on --cores), and never changes numbers: every replicate has its own
    random streams."""
    if setting != "auto":
        return int(setting)
    at_least = math.ceil(MIN_JOB_SECONDS / cost.seconds)
    at_most = max(1, math.floor(MAX_JOB_SECONDS / cost.seconds))
    even = math.ceil(replicates / MIN_CHUNKS)
    per_job = max(1, min(max(even, at_least), at_most, replicates))
    return math.ceil(replicates / math.ceil(replicates / per_job))


def plan_chunks(replicates: int, per_job: int, existing: Iterable[tuple[int, int]] = ()) -> list[range]:
    """Replicate ranges of the jobs of one experiment: complete chunks already on disk (``existing``: (first, last)
    of each) are kept where they fit, the rest is cut at multiples of ``per_job``. So raising ``replicates`` (or a
    changed ``auto`` size) only adds chunks and never re-simulates a replicate that a complete chunk holds; numbers
    do not depend on the plan (every replicate has its own random streams)."""
    ends: dict[int, int] = {}
    for first, last in existing:
        if 0 <= first <= last < replicates:
            ends[first] = max(ends.get(first, last), last)
    plan, cursor = [], 0
    while cursor < replicates:
        if cursor in ends:
            end = ends[cursor] + 1
        else:
            end = min((cursor // per_job + 1) * per_job, replicates,
                      min((a for a in ends if a > cursor), default=replicates))
        plan.append(range(cursor, end))
        cursor = end
    return plan


def existing_chunks(folder: str | os.PathLike) -> list[tuple[int, int]]:
    """(first, last) of every complete chunk in one experiment's records folder: records, diagnostics and both digest
    sidecars present (an interrupted job leaves none of them: they are written atomically, the sidecars last)."""
    folder = Path(folder)
    found = []
    for path in folder.glob("replicates-*-*.records.csv"):
        match = re.fullmatch(r"replicates-(\d+)-(\d+)\.records\.csv", path.name)
        stem = path.name[: -len(".records.csv")]
        parts = [folder / f"{stem}.{kind}" for kind in ("records.csv.meta.json", "diagnostics.csv",
                                                         "diagnostics.csv.meta.json")]
        if match and all(p.is_file() for p in parts):
            found.append((int(match.group(1)), int(match.group(2))))
    return sorted(found)


#: A job's declared runtime (a SLURM time limit) over its estimated CPU time, before the extra minute: machines differ
#: by up to about 3x from the estimates (benchmarks/estimates.py compares them with a run's measured jobs), and a
#: longer limit costs nothing but queue priority.
RUNTIME_MARGIN = 4


def job_resources(cost: ReplicateCost, replicates_in_job: int) -> dict[str, int]:
    """Snakemake resources of one job: ``mem_mb`` and ``runtime`` (minutes: :data:`RUNTIME_MARGIN` times the
    estimate plus a minute, so that a slower node than the estimates' finishes within it)."""
    return {"mem_mb": int(math.ceil(cost.mem_mb)),
            "runtime": int(math.ceil(RUNTIME_MARGIN * cost.seconds * replicates_in_job / 60.0)) + 1}


#: CPU seconds of what follows a simulation chunk before its output is done (aggregation and the build job), added to
#: its priority: a chunk with work waiting behind it starts before an independent job of the same length.
DOWNSTREAM_SECONDS = 3.0
#: Priority of an aggregation: it takes well under a second and unblocks a build, so it runs as soon as it can.
AGGREGATE_PRIORITY = 10_000


def job_priority(estimated_seconds: float, downstream_seconds: float = 0.0) -> int:
    """Snakemake priority of a job: the estimated CPU seconds (in tenths) of the longest chain it starts, its own plus
    ``downstream_seconds`` of the jobs that wait for it, so that of the jobs ready to run the longest chains start
    first (critical-path list scheduling: short independent jobs fill the cores at the end instead of a long job
    starting last and running alone). Scheduling only: no output depends on it."""
    return int(round(10 * (estimated_seconds + downstream_seconds)))


def available_memory_mb() -> int:
    """Memory this machine can give a job now (MemAvailable of /proc/meminfo; total physical memory elsewhere)."""
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20)


def format_mb(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def format_seconds(s: float) -> str:
    return f"{s / 3600:.1f} h" if s >= 3600 else (f"{s / 60:.1f} min" if s >= 60 else f"{s:.1f} s")


def job_seconds(cost: ReplicateCost, replicates: int) -> float:
    """Estimated CPU seconds of one simulation job of ``replicates`` replicates: the job's start-up plus each
    replicate's cost."""
    return cost.seconds * replicates + JOB_STARTUP_SECONDS


def check_and_estimate(specs: dict, chunks, cost_of, output_of, memory_cap_mb: float | None,
                       theory: dict[str, ReplicateCost] | None = None, max_cpu_hours: float | None = None) -> list[str]:
    """Refuse (ConfigError naming the keys) a job that cannot fit in ``memory_cap_mb``, an experiment split into more
    than MAX_CHUNKS jobs, or a run whose estimated CPU time exceeds ``max_cpu_hours``; return one line per output:
    jobs, memory per job, CPU time (``theory``: each theory output's estimated job cost)."""
    from adaptive_repro.foundation.config import ConfigError

    theory = theory or {}
    for oid, cost in theory.items():
        if memory_cap_mb is not None and cost.mem_mb > memory_cap_mb:
            from adaptive_repro.pipeline import catalogue

            block = ".".join(catalogue.get(oid).config_block)
            raise ConfigError(f"config block '{block}' ({oid}): its grids need about {format_mb(cost.mem_mb)} in one "
                              f"job; allowed: what fits in the {format_mb(memory_cap_mb)} this run may use (smaller "
                              f"grids: {', '.join(_work_words(oid))}; or --resources mem_mb=... on a larger "
                              "machine)")

    per_output: dict[str, list[float]] = {}
    for name, spec in specs.items():
        cost = cost_of(name)
        block = f"experiments.{output_of(name)}"
        if memory_cap_mb is not None and cost.mem_mb > memory_cap_mb:
            raise ConfigError(f"config keys '{block}.n' and '{block}.d': n = {spec.n}, d = {spec.d} need about "
                              f"{format_mb(cost.mem_mb)} per job ({name}); allowed: what fits in the "
                              f"{format_mb(memory_cap_mb)} this run may use (--resources mem_mb=...)")
        jobs = chunks(name)
        if len(jobs) > MAX_CHUNKS:
            raise ConfigError(f"config key 'replicates_per_job': {len(jobs)} jobs for {name} "
                              f"({spec.replicates} replicates); allowed: at most {MAX_CHUNKS} jobs per experiment "
                              f"(set replicates_per_job to at least {math.ceil(spec.replicates / MAX_CHUNKS)}, or "
                              "ask for fewer replicates)")
        acc = per_output.setdefault(output_of(name), [0, 0.0, 0.0])
        acc[0] += len(jobs)
        acc[1] = max(acc[1], cost.mem_mb)
        acc[2] += sum(job_seconds(cost, len(job)) for job in jobs)
    for oid, cost in theory.items():
        per_output[oid] = [1, cost.mem_mb, cost.seconds]
    total = sum(cpu for _, _, cpu in per_output.values())
    if max_cpu_hours is not None and total > 3600 * max_cpu_hours:
        dearest = max(per_output, key=lambda o: per_output[o][2])
        raise ConfigError(f"config key 'max_cpu_hours': value {max_cpu_hours:g} is below this run's estimated "
                          f"{format_seconds(total)} of CPU (most in {dearest}: "
                          f"{format_seconds(per_output[dearest][2])}); allowed: raise max_cpu_hours, shrink the run, "
                          "or send it to a cluster (docs/CLUSTER.md) with a higher max_cpu_hours")
    return [f"{oid}: {jobs} job{'s' if jobs != 1 else ''}, up to {format_mb(mem)} each, about {format_seconds(cpu)} "
            "of CPU in all" for oid, (jobs, mem, cpu) in per_output.items()]


def output_estimates(config: dict) -> dict[str, ReplicateCost]:
    """Per output of a validated ``config``: the estimated CPU seconds of all its jobs (an experiment: its specs'
    replicates at :func:`spec_cost` plus the start-up of each job :func:`plan_chunks` plans; a theory output:
    :func:`theory_cost`) and the largest job's memory. What benchmarks/estimates.py compares with measured costs."""
    from adaptive_repro.pipeline import catalogue
    from adaptive_repro.pipeline.specs import expand_experiments, output_of

    seconds: dict[str, float] = {}
    memory: dict[str, float] = {}
    specs = expand_experiments({**config, "experiments": {k: v for k, v in config["experiments"].items()
                                                          if k in config["outputs"]}})
    for name, spec in specs.items():
        cost = spec_cost(spec)
        jobs = len(plan_chunks(spec.replicates, replicates_per_job(config["replicates_per_job"], spec.replicates,
                                                                   cost)))
        oid = output_of(name)
        seconds[oid] = seconds.get(oid, 0.0) + cost.seconds * spec.replicates + JOB_STARTUP_SECONDS * jobs
        memory[oid] = max(memory.get(oid, 0.0), cost.mem_mb)
    for oid in config["outputs"]:
        if catalogue.get(oid).kind == "theory":
            cost = theory_cost(oid, catalogue.output_params(config, oid), catalogue.default_params(oid))
            seconds[oid], memory[oid] = cost.seconds, cost.mem_mb
    return {oid: ReplicateCost(seconds[oid], memory[oid]) for oid in seconds}
