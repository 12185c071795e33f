"""Algorithm 1 with the threshold for n/V-hat inside the classifier experiment (zhao_alg1_dp_v_hat): V-hat from each
session's training records, every arm on the direct engine, refused where no records are drawn."""
import numpy as np
import pytest

from adaptive_repro.pipeline import validation
from adaptive_repro.simulation.engines import DirectDataset
from adaptive_repro.simulation.mechanisms.algorithm1 import ZhaoAlgorithm1
from adaptive_repro.simulation.registries import CALIBRATIONS, DATA_MODELS
from adaptive_repro.simulation.zhao_calibration import Alg1Settings, noise_unit_threshold

ARMS = ["standard", "zhao_alg1_dp_effective_n", "zhao_alg1_dp_v_hat"]
SETTINGS = Alg1Settings(tau=0.1, beta=0.05, c=0.5, budget=20, epsilon=10.0, threshold_units=6.0, bdp_method="lemma2",
                        clip=1.0)


def _block(structures, mechanisms=ARMS):
    return dict(n=400, d=120, replicates=3, k_grid=[0, 5, 20], mechanisms=mechanisms, query="sign",
                signal_attributes=0, alg1={"epsilon": 10.0}, structures=structures)


def test_an_experiment_with_it_runs_every_arm_on_the_direct_engine_and_reports_its_rows():
    from adaptive_repro.outputs.zhao import correlation as zc

    spec = validation.experiment_spec("zhao-correlation", _block([{"name": "households", "size": 10, "b": 1.0}]))
    (point,) = spec.points
    assert set(point.arm_engines().values()) == {"direct"}
    records, diagnostics = spec.run_replicates(3, range(3), with_diagnostics=True)
    table = zc.point_table(records, spec, diagnostics).set_index("mechanism")
    # each session's V-hat, recorded with its threshold: only the V-hat arm sets one from its training set
    thresholds = diagnostics.set_index("mechanism")["session_threshold"]
    assert thresholds.loc["zhao_alg1_dp_v_hat"].notna().all()
    assert thresholds.loc["zhao_alg1_dp_effective_n"].isna().all()
    v_hat = (thresholds.loc["zhao_alg1_dp_v_hat"] / noise_unit_threshold(6.0, 400)) ** 2
    assert table.loc["zhao_alg1_dp_v_hat", "v_hat_mean"] == pytest.approx(v_hat.mean()) and v_hat.min() >= 1.0
    assert np.isnan(table.loc["zhao_alg1_dp_effective_n", "v_hat_mean"])
    (row,) = [c for c in zc.claims(table.reset_index(), spec)
              if c.claim_id == "households-zhao_alg1_dp_v_hat-restores"]
    assert "V̂ estimated from its training set" in row.measured and "V̂ used: " in row.measured


@pytest.mark.parametrize("size, b", [(1, 1.0), (25, 1.0)])
def test_its_session_threshold_is_the_threshold_for_the_estimated_v(size, b):
    """Households of 25 (cluster-robust over the known households) and of 1 (i.i.d.: V-hat about 1): the session's T
    is T_iid sqrt(V-hat), within 15% of T_iid sqrt(V) with V the model's expected inflation."""
    model = DATA_MODELS.get("households")(size=size, b=b)
    n, d = 4000, 300
    rng = np.random.default_rng(5)
    pop = model.population(rng, n, d, 0, 0.0)
    train = DirectDataset(rng, pop, model)
    calibration = CALIBRATIONS.get("dp_v_hat")
    cal = calibration.calibrate(SETTINGS, n, d, (0, 5), model)
    t = calibration.session_threshold(cal, SETTINGS, n, model, train)
    expected = noise_unit_threshold(6.0, n) * np.sqrt(model.expected_inflation(n))
    assert t == pytest.approx(expected, rel=0.15)
    assert cal.threshold == pytest.approx(expected)  # the rows judge its gap against T for n/V with V known


def test_the_mechanism_moves_its_threshold_with_its_laplace_draw_kept():
    mech = ZhaoAlgorithm1(np.random.default_rng(0), sigma=0.01, threshold=0.1, budget=3,
                          session_threshold=lambda train: 0.25)
    noise = mech.threshold_hat - mech.threshold
    mech.prepare(train=None)
    assert mech.threshold == 0.25 and mech.threshold_hat - mech.threshold == pytest.approx(noise)
    plain = ZhaoAlgorithm1(np.random.default_rng(0), sigma=0.01, threshold=0.1, budget=3)
    plain.prepare(train=None)
    assert plain.threshold == 0.1


def test_an_attribute_phase_output_refuses_it_in_one_line():
    block = dict(replicates=2, d=50, n_grid=[1000], cut_scale=1.0, calibrations=["dp", "dp_v_hat"],
                 alg1={"budget": 20, "epsilon": 3.0}, structures=[{"name": "households", "size": 3, "b": 1.0}])
    with pytest.raises(ValueError, match=r"^config key 'experiments.zhao-correlation-frontier.calibrations': "
                                         r"dp_v_hat sets its threshold from each session's training records"):
        validation.experiment_spec("zhao-correlation-frontier", block)
