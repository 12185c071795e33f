"""zhao-lemma1: the vectorized chain sampler, exact variance, Clopper-Pearson intervals, table and claims."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from adaptive_repro.foundation import registry
from adaptive_repro.foundation.seeds import rng
from adaptive_repro.outputs.zhao import lemma1 as zl
from adaptive_repro.simulation import data_models
from adaptive_repro.stats import clopper_pearson

ALPHA = 1e-4  # false-failure rate of each statistical test


def test_fraction_variance_brute_force_and_iid():
    assert zl.fraction_variance(40, 0.5) == pytest.approx(1 / (4 * 40))
    n, p = 7, 0.8
    theta = 2 * p - 1
    i = np.arange(n)
    brute = (theta ** np.abs(i[:, None] - i[None, :])).sum() / (4 * n**2)
    assert zl.fraction_variance(n, p) == pytest.approx(brute)


def test_chain_fraction_matches_data_models_sampler():
    """Same law as data_models.sample_symmetric_chain: two-sample KS test (false-failure rate 1e-4)."""
    n, p, reps = 30, 0.85, 4000
    vec = zl.chain_fraction_of_ones(rng(1, "vec"), n, p, reps)
    g = rng(1, "loop")
    loop = np.array([(data_models.sample_symmetric_chain(g, n, p) > 0).mean() for _ in range(reps)])
    assert stats.ks_2samp(vec, loop).pvalue > ALPHA
    # mean 1/2, variance as computed exactly (normal-theory checks with 4.5 sigma margins)
    big = zl.chain_fraction_of_ones(rng(2, "vec"), n, p, 50_000)
    var = zl.fraction_variance(n, p)
    assert abs(big.mean() - 0.5) < 4.5 * np.sqrt(var / big.size)
    assert big.var() == pytest.approx(var, rel=0.05)


def test_chain_fraction_chunking_and_extremes():
    a = zl.chain_fraction_of_ones(rng(3, "c"), 10, 0.3, 101, chunk_elements=10 * 7)
    assert a.shape == (101,) and np.all((a >= 0) & (a <= 1))
    assert np.all(np.isin(zl.chain_fraction_of_ones(rng(3, "c"), 10, 0.0, 50), [0.5]))  # alternating chain


def test_clopper_pearson_known_values():
    lo, hi = clopper_pearson(0, 10, 0.95)
    assert lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 10))
    lo, hi = clopper_pearson(10, 10, 0.95)
    assert hi == 1 and lo == pytest.approx(0.025 ** (1 / 10))
    lo, hi = clopper_pearson([3, 5], [20, 20], 0.99)
    assert np.all(lo < np.array([3, 5]) / 20) and np.all(hi > np.array([3, 5]) / 20)


def test_table_and_claims_small():
    f = zl.build_table(2015, [0.5, 0.99], [400], [0.3], 2000, 0.99)
    pd.testing.assert_frame_equal(f, zl.build_table(2015, [0.5, 0.99], [400], [0.3], 2000, 0.99))
    assert {"p", "n", "tau", "mc_probability", "mc_ci_low", "mc_ci_high", "bound", "replicates"} <= set(f.columns)
    claims = {c.claim_id: c for c in zl.build_claims(f)}
    registry.claims_frame(claims.values())
    assert claims["lemma1-iid"].status == "holds" and claims["lemma1-iid"].strength == "by construction"
    # strongly correlated labels: P[|q - 1/2| >= 0.3] ~ 0.2 >> 4 exp(-0.09 * 400 / 9) = 0.073
    assert claims["lemma1-correlated"].status == "does not hold"
    assert "p=0.99, n=400, tau=0.3" in claims["lemma1-correlated"].counterexample
    fig = zl.build_figure(f)
    fig.canvas.draw()
    verdict = "Lemma 1's bound fails at 1 of 1 correlated grid points, all with p = 0.99"
    assert fig.get_suptitle().startswith(verdict)
    rings = [c for c in fig.findobj(lambda a: a.get_gid() == "encoding:violation")]
    # on its point, which sits a little apart in n (each p by a factor 10^(0.03 k)): n = 400 within 10%
    assert [tuple(o) for c in rings for o in c.get_offsets()] == [(pytest.approx(400.0, rel=0.1),
                                                                  pytest.approx(0.224, abs=0.01))]
    # p = 0.5 at tau = 0.3, n = 400: exact probability ~4e-35, below the axis: an open marker in the strip, no line
    strip = [ln for ax in fig.axes for ln in ax.lines if ln.get_gid() == "below-floor" and len(ln.get_xdata())]
    assert len(strip) == 1 and strip[0].get_markerfacecolor() == "white"
    assert strip[0].get_ydata()[0] < min(fig.axes[0].get_yticks()) / 10**0.25  # under the break, below every tick


def test_markov_hoeffding_reduces_to_hoeffding_and_covers_mc():
    assert zl.markov_hoeffding_bound(0.1, 100, 0.5) == pytest.approx(2 * np.exp(-2.0))
    f = zl.build_table(1, [0.9, 0.99], [400], [0.1, 0.2], 2000, 0.99)
    assert (f.mc_ci_low <= f.markov_hoeffding_bound).all()
