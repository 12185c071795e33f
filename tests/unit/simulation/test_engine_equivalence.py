"""The direct and sufficient-statistic engines agree in distribution (docs/METHODS.md §7).

Over many replicates at small n, d, every quantity the figures show (train / holdout / fresh accuracy per k and
mechanism, and the number of selected variables) is compared with a two-sample Kolmogorov-Smirnov test (any
difference in distribution) and a Brown-Forsythe test (difference in spread, where KS is weak). With m tests in a
model, each runs at level ALPHA / (m * number of models) (Bonferroni), so the overall false-failure rate of the
file is at most ALPHA = 1e-4 (KS p-values are conservative for the discrete accuracies, which only lowers it). The
seeds are fixed, so a pass is reproducible. A second test shows the comparison has power: it catches an engine with
the projection (I - yy^T/n) removed.
"""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from adaptive_repro.pipeline.validation import experiment_spec
from adaptive_repro.simulation import engines
from adaptive_repro.simulation.experiments import run_replicates

pytestmark = pytest.mark.slow  # 1,500 replicates per engine and model

ALPHA = 1e-4
REPLICATES = 1500

ARMS = ["standard", "dwork_code"]
#: (experiment name, config block) per model
SPECS = {
    "iid-null": ("dwork-null", dict(n=100, d=300, replicates=REPLICATES, k_grid=[0, 5, 10, 20, 40], mechanisms=ARMS)),
    "iid-signal": ("dwork-signal", dict(n=200, d=200, replicates=REPLICATES, k_grid=[0, 5, 10, 20, 40],
                                        mechanisms=ARMS, signal_attributes=10)),
    "chain": ("zhao-fig2", dict(n=200, d=200, replicates=REPLICATES, k_grid=[0, 5, 10, 20, 40], mechanisms=ARMS,
                                signal_attributes=10, model={"p_s": 0.8, "p_y": 0.8, "b": 0.7})),
}


def engine_records(spec: tuple, engine: str) -> pd.DataFrame:
    spec = experiment_spec(*spec, engine=engine)
    return run_replicates(spec, seed=2024, replicates=range(spec.replicates))


def quantities(records: pd.DataFrame) -> dict[str, np.ndarray]:
    """Every plotted quantity per (mechanism, k, data set), and the number of kept attributes per mechanism."""
    out = {}
    for (mech, k, dataset), grp in records[records["k"] > 0].groupby(["mechanism", "k", "dataset"]):
        if dataset != "population":
            out[f"{mech} k={k} {dataset}"] = grp.sort_values("replicate")["accuracy"].to_numpy()
    for mech, grp in records[records["dataset"] == "train"].groupby("mechanism"):
        out[f"{mech} kept"] = grp.groupby("replicate")["n_kept"].first().to_numpy()
    return out


def engine_pvalues(direct: pd.DataFrame, fast: pd.DataFrame) -> dict[str, float]:
    qd, qf = quantities(direct), quantities(fast)
    assert qd.keys() == qf.keys()
    pvalues = {f"KS {name}": stats.ks_2samp(qd[name], qf[name]).pvalue for name in qd}
    pvalues |= {f"Brown-Forsythe {name}": stats.levene(qd[name], qf[name], center="median").pvalue for name in qd}
    return pvalues


@pytest.fixture(scope="module")
def direct_records():
    return {name: engine_records(spec, "direct") for name, spec in SPECS.items()}


@pytest.mark.parametrize("model", list(SPECS))
def test_direct_and_fast_engines_agree(direct_records, model):
    pvalues = engine_pvalues(direct_records[model], engine_records(SPECS[model], "fast"))
    level = ALPHA / (len(pvalues) * len(SPECS))
    worst = min(pvalues, key=pvalues.get)
    assert pvalues[worst] > level, f"{worst}: p = {pvalues[worst]:.2e} <= {level:.1e}"


class WithoutProjection(engines.SufficientDataset):
    """A deliberately broken engine: the noise of seen sets is not projected orthogonally to y."""

    def label_orthogonal_noise(self, v):
        return v


def test_comparison_catches_a_broken_engine(direct_records, monkeypatch):
    monkeypatch.setattr(engines, "SufficientDataset", WithoutProjection)
    pvalues = engine_pvalues(direct_records["iid-null"], engine_records(SPECS["iid-null"], "fast"))
    level = ALPHA / (len(pvalues) * len(SPECS))
    assert min(pvalues.values()) <= level, "the engine comparison has no power against a missing projection"
