"""The lean replacements of scipy.stats give the same bits as scipy.stats, and the modules every job imports do not
import the heavy libraries they do not need (benchmarks/startup.py measures what that saves)."""
import subprocess
import sys

import numpy as np
import pytest
from scipy import special, stats

from adaptive_repro import catalogue
from adaptive_repro import stats as ar_stats
from adaptive_repro.lazy import LazyModule
from adaptive_repro.simulation import data_models


def _grid():
    rng = np.random.default_rng(20261124)
    return np.concatenate([rng.normal(0.0, 3.0, 20_000), rng.normal(0.0, 40.0, 2_000),
                           [0.0, -0.0, 1e-300, -1e-300, 8.3, -8.3, 38.5, -38.5, 40.0, -40.0, np.inf, -np.inf]])


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def test_normal_cdf_sf_pdf_as_scipy_stats():
    x = _grid()
    assert _same_bits(special.ndtr(x), stats.norm.cdf(x))
    assert _same_bits(special.ndtr(-x), stats.norm.sf(x))
    assert _same_bits(data_models._normal_pdf(x), stats.norm.pdf(x))
    for v in (0.3, -1.7, 0.0):  # scalars: the same value and type
        assert special.ndtr(v) == stats.norm.cdf(v) and type(special.ndtr(v)) is type(stats.norm.cdf(v))
        assert data_models._normal_pdf(v) == stats.norm.pdf(v)


def test_clipped_normal_mean_as_with_scipy_stats():
    m, clip = _grid()[:5_000], 1.5
    hi, lo = clip - m, -clip - m
    ref = (clip * stats.norm.sf(hi) - clip * stats.norm.cdf(lo) + m * (stats.norm.cdf(hi) - stats.norm.cdf(lo))
           - (stats.norm.pdf(hi) - stats.norm.pdf(lo)))
    assert _same_bits(data_models.clipped_normal_mean(m, clip), ref)


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99, 0.999])
def test_normal_quantile_and_z95_as_scipy_stats(confidence):
    assert ar_stats.normal_quantile(confidence) == float(stats.norm.ppf(0.5 + confidence / 2))
    assert ar_stats.Z95 == ar_stats.normal_quantile(0.95) == float(stats.norm.ppf(0.975))


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99, 0.999])
def test_clopper_pearson_as_scipy_stats_beta_ppf(confidence):
    rng = np.random.default_rng(7)
    n = np.concatenate([rng.integers(1, 5_000, 20_000), np.arange(1, 300)]).astype(float)
    k = np.concatenate([np.floor(rng.random(20_000) * (n[:20_000] + 1)), np.arange(1, 300) // 2])
    a = 1.0 - confidence
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, stats.beta.ppf(a / 2, k, n - k + 1), 0.0)
        high = np.where(k < n, stats.beta.ppf(1 - a / 2, k + 1, n - k), 1.0)
    got_low, got_high = ar_stats.clopper_pearson(k, n, confidence)
    assert _same_bits(got_low, low) and _same_bits(got_high, high)
    lo, hi = ar_stats.clopper_pearson(3, 20, confidence)  # scalars as before: 0-d arrays
    assert np.ndim(lo) == 0 and float(lo) == float(stats.beta.ppf(a / 2, 3, 18))


def test_lazy_module_is_the_module():
    lazy = LazyModule("scipy.special")
    assert lazy.ndtr is special.ndtr and "ndtr" in vars(lazy)  # kept after the first look-up
    assert lazy.module() is special and "scipy.special" in repr(lazy)
    with pytest.raises(AttributeError):
        lazy.no_such_function
    assert data_models.special.ndtr is special.ndtr


def _imported_by(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


@pytest.mark.parametrize("statement, absent", [
    ("import adaptive_repro.stats, adaptive_repro.io, adaptive_repro.joblog, adaptive_repro.registry",
     ("scipy", "matplotlib", "networkx")),
    ("import adaptive_repro.io, adaptive_repro.joblog, adaptive_repro.config", ("pandas", "scipy")),
    ("import adaptive_repro.plotting", ("scipy",)),
    ("import adaptive_repro.simulation.specs, adaptive_repro.simulation.registries",
     ("scipy", "matplotlib", "networkx")),  # a build job reads its specs; the simulation imports scipy.special
    ("\n".join(f"import adaptive_repro.outputs.{m}" for m in sorted({o.module for o in catalogue.CATALOGUE})),
     ("scipy.stats", "scipy.optimize")),  # every builder (each output's build job imports its own)
])
def test_job_modules_import_only_what_they_use(statement, absent):
    """What the jobs import at start-up (workflow/scripts/, the pickled specs, the builders) does not pull in
    libraries they do not use; a heavy import belongs inside the function that needs it."""
    loaded = _imported_by(statement)
    assert not [m for m in absent if m in loaded]
