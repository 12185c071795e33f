"""Builders of the Zhao theory outputs (tables, figures, claims) and the theory.zhao config schema."""

import jsonschema
import matplotlib.pyplot as plt
import pytest
import yaml

from adaptive_repro.bounds import zhao as zb
from adaptive_repro.foundation.config import SCHEMA_DIR, fill_schema_defaults
from adaptive_repro.foundation.registry import claims_frame
from adaptive_repro.outputs.zhao import fig1 as zhao_fig1
from adaptive_repro.outputs.zhao import maxinfo as zhao_maxinfo
from adaptive_repro.outputs.zhao import quilts as z
from adaptive_repro.outputs.zhao import sample_complexity as zhao_sample_complexity
from adaptive_repro.pipeline.catalogue import default_params
from adaptive_repro.report import figure_checks
from adaptive_repro.simulation import zhao_calibration
from adaptive_repro.simulation.data_models import BatchChain

SCHEMA = SCHEMA_DIR / "theory_zhao.schema.yaml"


SMALL = {  # per output: the keys set here, the schema's defaults for the rest (catalogue.default_params)
    "fig1": ("zhao-fig1", {"n_nodes": 9}),
    "conversion": ("zhao-bdp-conversion", {
        "n": 2000, "tau": [0.05, 0.1], "binary_p": [0.6, 0.75], "data_model_chains": [{"p_s": 0.75, "p_y": 0.6}],
        "lemma4_c": [0.05, 0.1], "figure_p": [0.5005, 0.6, 0.8], "claim_eps": [0.01, 0.1], "claim_n": [50, 2000]}),
    "sample_complexity": ("zhao-sample-complexity", {"n": 2000, "tau_points": 8, "p": [0.75], "data_model_chains": [],
                                                     "guarantee_tau": [0.3]}),
    "maxinfo": ("zhao-maxinfo", {"n": 2000, "tau": [0.05, 0.1], "n_grid": [10, 1000], "eps_points": 10}),
}


def small_params(name):
    oid, block = SMALL[name]
    return default_params(oid, block)


def test_schema_defaults_and_validation():
    schema = yaml.safe_load(SCHEMA.read_text())
    jsonschema.validate({}, schema)
    full = fill_schema_defaults({}, schema)
    jsonschema.validate(full, schema)
    assert set(full) == {"fig1", "bdp_conversion", "sample_complexity", "maxinfo", "lemma1"}
    assert full["bdp_conversion"]["n"] == full["sample_complexity"]["n"] == full["maxinfo"]["n"] == 10000
    assert full["fig1"]["a"] == 2 and full["sample_complexity"]["c"] == 0.5 and full["lemma1"]["confidence"] == 0.99
    assert small_params("fig1") == {"n_nodes": 9, "node": 6, "a": 2, "b": 3, "seed": 0}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"unknown": 1}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"n": 10000}, schema)  # no key above the output blocks
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"bdp_conversion": {"lemma4_c": [0.2]}}, schema)


@pytest.mark.parametrize("name", ["fig1", "conversion", "sample_complexity", "maxinfo"])
def test_builders(name):
    p = small_params(name)
    mod = {"sample_complexity": zhao_sample_complexity, "maxinfo": zhao_maxinfo, "fig1": zhao_fig1}.get(name, z)
    table = getattr(mod, f"{name}_table")(p)
    claims = getattr(mod, f"{name}_claims")(p, table)
    frame = claims_frame(claims)
    assert len(table) > 0 and len(frame) > 0
    assert set(frame["status"]) <= {"holds", "does not hold", "not applicable"}
    failing = frame[frame["status"].isin(["does not hold", "not applicable"])]
    assert (failing["counterexample"] != "").all()
    fig = {"fig1": lambda: zhao_fig1.fig1_figure(table, zhao_fig1.fig1_verdict(claims)),
           "conversion": lambda: z.conversion_figure(z.conversion_curves(p), p["n"], table),
           "sample_complexity": lambda: zhao_sample_complexity.sample_complexity_figure(
               table, claims, p["scaling_tolerance"]),
           "maxinfo": lambda: zhao_maxinfo.maxinfo_figure(table, p)}[name]()
    fig.canvas.draw()
    assert figure_checks.figure_problems(fig) == []
    rings = sum(len(c.get_offsets()) for c in fig.findobj(lambda a: a.get_gid() == "encoding:violation"))
    if name == "conversion":  # the tabulated binary chains where Lemma 3 is infeasible, ringed (lemma3-feasible)
        assert rings == int((~table["feasible"] & (table["method"] == "lemma3")
                             & table["chain"].str.startswith("binary")).sum()) > 0
    if name == "maxinfo":  # the failing region shaded and named in the legend; each n's first failure ringed
        n_failing = table.loc[~table["theorem3_tighter"], "n"].nunique()
        assert 1 <= rings <= n_failing and (~table["theorem3_tighter"]).any()
        assert any("the literal reading fails" in t.get_text() for t in fig.legends[0].get_texts())
        bad = int((~table["theorem3_tighter"]).sum())
        assert f"ε n log e is the smaller bound at {bad} of {len(table)}" in fig.get_suptitle()
    if name == "sample_complexity":  # the verdict follows the markov-order row
        order = next(c for c in claims if c.claim_id == "markov-order").status
        assert ("keeps the claimed order" in fig.get_suptitle()) == (order == "holds")
        # where the constant exceeds 1, the failure is on the data: rings at some failing points, or one note for all
        k = zhao_sample_complexity.markov_vs_iid_constant(table)["k"]
        notes = [t.get_text() for t in fig.axes[1].texts]
        if (k > 1).all():
            assert notes == [f"all {len(k)} points above 1 (lowest {k.min():.2g})"] and rings == 0
        else:
            assert rings == int((k > 1).sum()) and not notes
        assert not any("_chain" in t.get_text() or "_iid" in t.get_text() for t in fig.legends[0].get_texts())
    plt.close(fig)


def test_conversion_table_columns_and_infeasible_rows():
    p = small_params("conversion")
    t = z.conversion_table(p)
    for col in ("chain", "eps_bdp", "method", "c", "eps_dp", "feasible", "quilt"):
        assert col in t.columns
    assert set(t["method"]) == {"lemma2", "lemma3", "lemma4"}
    bad = t[~t["feasible"]]
    assert bad["eps_dp"].isna().all()
    assert (t[t["feasible"]]["eps_dp"] > 0).all()
    assert t[t["method"] != "lemma4"]["c"].isna().all()
    assert "binary(p=0.75)" in set(t["chain"]) and "data-model(p_s=0.75,p_y=0.6)" in set(t["chain"])


def test_theorem2_smallest_tau():
    from adaptive_repro.privacy import binary_chain
    assert zb.theorem2_smallest_tau(10_000, None, 10, 1000, 0.05, 0.5) is None
    t = zb.theorem2_smallest_tau(10**9, binary_chain(0.75), 10, 1000, 0.05, 0.5)
    assert 0 < t < 1
    assert zb.theorem2_required_n(t, 10**9, binary_chain(0.75), 10, 1000, 0.05, 0.5) <= 10**9
    assert zb.theorem2_required_n(t * 0.99, 10**9, binary_chain(0.75), 10, 1000, 0.05, 0.5) > 10**9


def test_zhao_run_theory():
    t = zhao_calibration.run_theory(10_000, BatchChain(p_s=0.75, p_y=0.75), 1000, tau=0.05, beta=0.05, B=10, m=1000,
                                    c_theorem2=0.5)
    assert t["eps_dp_lemma3"] is None and t["sigma_bdp_lemma3"] is None
    assert t["eps_dp_lemma4"] < t["eps_dp_lemma2"] < t["eps_bdp_target"]
    assert t["eps_star"] == pytest.approx(t["eps_dp_lemma2"])
    assert t["bdp_achieved_lemma2"] <= t["eps_bdp_target"] * (1 + 1e-9)
    assert t["n_star"] == float("inf") and t["theorem2_smallest_tau"] is None
