"""The plug-in points (docs/ARCHITECTURE.md): registries refuse what breaks their contract, every config key reaches a
spec field, and a new mechanism, calibration or data model is one class plus one registration, labelled everywhere
by its own words. The throw-away plug-ins below are the measurement the architecture doc reports."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from adaptive_repro.foundation.plugins import Registry
from adaptive_repro.pipeline import catalogue, specs, validation
from adaptive_repro.simulation import experiments
from adaptive_repro.simulation.analysts import BUDGET_AWARE_ANALYST, DWORK_ANALYST, Analyst
from adaptive_repro.simulation.arm import Arm
from adaptive_repro.simulation.data_models import BatchChain, DataModel
from adaptive_repro.simulation.frontier import FrontierSpec
from adaptive_repro.simulation.mechanisms.algorithm1 import Algorithm1Arm
from adaptive_repro.simulation.mechanisms.base import ArmSetting, HoldoutMechanism
from adaptive_repro.simulation.registries import ARMS, CALIBRATIONS, DATA_MODELS, MARKER_CHOICES
from adaptive_repro.simulation.zhao_calibration import Alg1Calibration, Alg1Settings, Calibration, noise_unit_threshold


# ----------------------------------------------------------------------------------- throw-away plug-ins
@dataclasses.dataclass
class NoisyHoldout(HoldoutMechanism):
    """Every answer is the holdout value plus N(0, sd^2) (a budget-free mechanism)."""

    rng: np.random.Generator
    sd: float

    def answer_statistics(self, train, holdout):
        return holdout + self.rng.normal(0.0, self.sd, len(holdout))

    def answer_accuracy(self, acc_train, acc_holdout):
        return acc_holdout + self.rng.normal(0.0, self.sd)


@dataclasses.dataclass(frozen=True)
class NoisyHoldoutArm(Arm):
    name: str = "noisy_holdout"
    display_name: str = "Gaussian-noise holdout"
    detail: str = "(noise 1/√n)"
    color: str = "#117733"
    marker: str = "*"
    analyst: Analyst = DWORK_ANALYST

    def create(self, rng, spec, setting):
        return NoisyHoldout(rng, 1.0 / np.sqrt(spec.n))

    def tolerance(self, spec, setting):
        return 2.0 / np.sqrt(spec.n)


@dataclasses.dataclass(frozen=True)
class HalfNoiseCalibration(Calibration):
    """Half the DP calibration's sigma (a throw-away Algorithm 1 calibration)."""

    name: str = "half_noise"
    display_name: str = "half-noise calibration"
    purpose: str = "half the DP calibration's noise"
    color: str = "#000000"
    marker: str = "d"

    def calibrate(self, settings: Alg1Settings, n, d, k_grid, model) -> Alg1Calibration:
        eps = settings.session_epsilon
        return Alg1Calibration(arm=self.arm_name, feasible=True, sigma=9 * settings.budget / (8 * n * eps),
                               threshold=noise_unit_threshold(settings.threshold_units, n), budget=settings.budget,
                               eps_target=2 * eps, eps_dp_used=2 * eps, note="half noise")


@dataclasses.dataclass(frozen=True)
class ShiftedNoiseModel(BatchChain):
    """i.i.d. records whose noise is N(0, 1) + 0 (a throw-away model: direct engine only)."""

    name: str = "direct_only_iid"

    def engines(self, query, unit_queries):
        return ("direct",)

    def describe(self):
        return "direct-only i.i.d. model"


@pytest.fixture
def registered():
    """The throw-away plug-ins registered (one line each), then removed again."""
    half = Algorithm1Arm.for_calibration(HalfNoiseCalibration())
    added = [(ARMS, NoisyHoldoutArm()), (CALIBRATIONS, HalfNoiseCalibration()), (ARMS, half),
             (DATA_MODELS, ShiftedNoiseModel)]
    for registry, member in added:
        registry.register(member)
    yield half
    for registry, member in added:
        registry.unregister(member.name)


# ----------------------------------------------------------------------------------- registries
def test_registries_refuse_what_breaks_the_contract():
    with pytest.raises(ValueError, match="kind"):
        Registry("", Arm)
    with pytest.raises(ValueError, match="twice"):
        ARMS.register(ARMS.get("standard"))
    with pytest.raises(TypeError, match="Arm"):
        ARMS.register(HalfNoiseCalibration())
    with pytest.raises(ValueError, match=r"config key 'experiments.x.mechanisms': unknown mechanism 'lapl'.*standard"):
        ARMS.get("lapl", "experiments.x.mechanisms")
    free = " ".join(m for m in MARKER_CHOICES if m not in {arm.marker for arm in ARMS})
    with pytest.raises(ValueError, match=rf"mechanisms 'standard' and 'look_alike' have the same marker 'o'.*"
                                         rf"free: {re.escape(free)}\)"):
        ARMS.register(dataclasses.replace(NoisyHoldoutArm(), name="look_alike", marker="o"))
    with pytest.raises(ValueError, match=r"'standard' and 'look_alike' have the same color '#d55e00'.*taken: #d55e00"):
        ARMS.register(dataclasses.replace(NoisyHoldoutArm(), name="look_alike", color="#D55E00"))
    with pytest.raises(ValueError, match="needs a calibration"):
        Algorithm1Arm(name="zhao_alg1_none", display_name="x", detail="", color="#000000")


def test_calibration_is_a_field_of_the_algorithm1_arm():
    for calibration in CALIBRATIONS:
        arm = ARMS.get(calibration.arm_name)
        assert arm.calibration is calibration
        assert calibration.display_name in arm.display_name and calibration.purpose in arm.detail


# ----------------------------------------------------------------------------------- config -> spec
def _schema_keys(kind: str) -> set[str]:
    schema = validation.config_schema()
    return set(schema["$defs"][kind]["properties"])


def test_every_schema_key_reaches_a_spec_field():
    """Walk the schema: every key of an experiment block is a spec field (or a plug-in resolved from it), every key
    of model and alg1 a field of the registered model / the Algorithm 1 settings, every frontier key a field."""
    resolved = {"mechanisms": "arms", "model": "model", "query": "query", "alg1": "alg1"}
    spec_fields = {f.name for f in dataclasses.fields(experiments.ExperimentSpec)}
    for key in _schema_keys("experiment"):
        assert resolved.get(key, key) in spec_fields, key
    assert _schema_keys("alg1") == {f.name for f in dataclasses.fields(Alg1Settings)}
    for model, variant in zip(DATA_MODELS, validation.config_schema()["$defs"]["model"]["allOf"]):
        assert {"name", *model.PARAMETERS} == {f.name for f in dataclasses.fields(model)}, model.name
        assert set(model.PARAMETERS) == set(variant["then"]["properties"]), model.name  # its own schema
    assert _schema_keys("frontier") == {f.name for f in dataclasses.fields(FrontierSpec)} - {"name"}
    sweep_only = set(specs.SWEEP_GRIDS)
    assert _schema_keys("sweep") - sweep_only <= _schema_keys("experiment")
    assert _schema_keys("correlation") - {"structures"} <= _schema_keys("experiment")


def test_every_experiment_key_changes_the_spec():
    base = dict(n=300, d=100, replicates=2, k_grid=[0, 5], mechanisms=["standard", "dwork_code"], query="sign")
    changes = {"n": 301, "d": 101, "k_grid": [0, 6], "mechanisms": ["standard"], "query": "mean",
               "signal_attributes": 3, "signal_scale": 5.0, "arms": {"dwork_code": {"noise_scale": 2.0}},
               "cut_scale": 0.5, "model": {"p_s": 0.7}, "alg1": {"budget": 7}, "replicates": 3,
               "remove_shared_state": True}
    assert set(changes) == _schema_keys("experiment"), "a key without a change here"
    a = validation.experiment_spec("x", base)
    for key, value in changes.items():
        b = validation.experiment_spec("x", base | {key: value})
        assert a != b, key


def test_a_key_without_a_spec_field_is_an_error_not_a_silent_drop():
    schema = validation.config_schema()
    block = validation.fill_schema_defaults(dict(n=10, d=10, replicates=1, k_grid=[0], mechanisms=["standard"]),
                                            schema["$defs"]["experiment"], root=schema)
    block = validation.fill_model_defaults({"experiments": {"x": block}})["experiments"]["x"]
    with pytest.raises(ValueError, match=r"experiments.x'.*unknown keys \['bogus'\]"):
        specs.experiment_spec("x", block | {"bogus": 1}, "auto")
    with pytest.raises(ValueError, match=r"experiments.x.alg1'.*unknown keys \['bogus'\]"):
        specs.experiment_spec("x", block | {"alg1": block["alg1"] | {"bogus": 1}}, "auto")
    with pytest.raises(ValueError, match=r"experiments.x.model'.*missing keys \['b'\]"):
        specs.experiment_spec("x", block | {"model": {"name": "batch_chain", "p_s": 0.5, "p_y": 0.5}}, "auto")
    with pytest.raises(ValueError, match=r"missing keys \['cut_scale'\]"):  # a builder given no defaults fails
        specs.experiment_spec("x", {k: v for k, v in block.items() if k != "cut_scale"}, "auto")


# ----------------------------------------------------------------------------------- throw-away plug-ins at work
def test_a_new_mechanism_and_calibration_run_and_are_labelled_by_their_own_words(registered):
    half = registered
    spec = validation.experiment_spec("zhao-fig3", dict(
        n=2000, d=200, replicates=4, k_grid=[0, 5, 10], query="sign", signal_attributes=5,
        mechanisms=["standard", "noisy_holdout", half.name, "zhao_alg1_bdp"],
        model={"p_s": 0.8, "p_y": 0.8, "b": 0.1}, alg1={"budget": 10, "epsilon": 2.0}))
    records, diagnostics = experiments.run_replicates(spec, 5, range(4), with_diagnostics=True)
    assert set(records["mechanism"]) == set(spec.mechanisms)
    assert set(diagnostics["mechanism"]) == {half.name, "zhao_alg1_bdp"}  # budgeted arms record diagnostics
    table, fig, claims = catalogue.build("zhao-fig3", {"seed": 5}, {"records": records, "diagnostics": diagnostics,
                                                                   "specs": {"zhao-fig3": spec}})
    legend = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert any(t.startswith("Gaussian-noise holdout") for t in legend)  # the arms in their own words
    assert any(t.startswith("Algorithm 1, half-noise calibration") for t in legend)
    by_id = {c.claim_id: c for c in claims}
    own = by_id[f"{half.name}-prevents-overfitting"]
    assert ("half-noise calibration (half the DP calibration's noise;" in own.claim
            and "DP calibration (as" not in own.claim)
    assert own.kind == "project"
    assert f"{half.name}-certified-bdp" in by_id
    mine = by_id["noisy_holdout-tracks-fresh"]  # a plug-in arm gets a claim of its own, in its own words
    assert mine.claim.startswith("Gaussian-noise holdout") and f"T = {2 / np.sqrt(2000):.4f}" in mine.expected
    assert not any("Algorithm 1: the claim" in t or "Thresholdout's threshold" in t for t in legend)
    assert by_id[f"{half.name}-certified-bdp"].claim.startswith("Algorithm 1, half-noise calibration:")
    # the gap panel draws each arm's own threshold, named on the line: the new arm's 2/sqrt(n), the new
    # calibration's T (shared with the Bayesian-DP calibration); the standard holdout promises none
    (gap_ax,) = [ax for ax in fig.axes if ax.get_ylabel().startswith("holdout − fresh")]
    levels = sorted({round(float(y), 9) for line in gap_ax.get_lines() for y in np.atleast_1d(line.get_ydata())
                     if line.get_linestyle() == "--"})
    assert levels == sorted({round(2 / np.sqrt(2000), 9), round(6 / (2 * np.sqrt(2000)), 9)})
    words = [t.get_text() for t in gap_ax.texts]
    assert "T (Gaussian-noise holdout)" in words and "T (both Algorithm 1 arms)" in words


def test_a_model_block_takes_only_its_models_keys_and_its_models_defaults(registered):
    with pytest.raises(validation.ConfigError, match=r"unknown config key 'rho' under 'experiments.x.model'.*"
                                                     r"allowed: \['b', 'name', 'p_s', 'p_y'\]"):
        validation.experiment_spec("x", dict(n=10, d=10, replicates=1, k_grid=[0], mechanisms=["standard"],
                                             model={"rho": 0.5}))
    spec = validation.experiment_spec("x", dict(n=10, d=10, replicates=1, k_grid=[0], mechanisms=["standard"],
                                                model={"p_s": 0.7}))
    assert spec.model == BatchChain(p_s=0.7, p_y=0.5, b=0.0)


def test_a_new_data_model_runs_on_the_engines_it_names(registered):
    spec = validation.experiment_spec("dwork-null", dict(n=300, d=50, replicates=2, k_grid=[0, 5],
                                                         mechanisms=["standard", "noisy_holdout"],
                                                         model={"name": "direct_only_iid"}))
    assert set(spec.arm_engines().values()) == {"direct"} and isinstance(spec.model, ShiftedNoiseModel)
    records = experiments.run_replicates(spec, 1, range(2))
    assert len(records) == 2 * 2 * 2 * 4  # replicates x arms x k x data sets
    with pytest.raises(ValueError, match="config key 'engine': value 'fast' is not exact"):
        validation.experiment_spec("dwork-null", dict(n=300, d=50, replicates=2, k_grid=[0, 5], mechanisms=["standard"],
                                                      model={"name": "direct_only_iid"}), engine="fast")


def test_plugin_contracts_are_abstract():
    with pytest.raises(TypeError):
        Arm(name="x", display_name="x", detail="", color="#000000", analyst=DWORK_ANALYST)  # create() missing
    with pytest.raises(TypeError):
        DataModel(name="x")
    assert isinstance(ARMS.get("standard").setting(None), ArmSetting)


# ----------------------------------------------------------------------------------- a core-only data model
@dataclasses.dataclass(frozen=True)
class GaussianAR1(DataModel):
    """A Gaussian AR(1) factor model with only the core contract: x_ij = mu_j y_i + beta_j f_i + z_ij, the factor f
    a stationary Gaussian AR(1) along the record order (coefficient rho, which may be negative), y fair signs,
    beta_j ~ N(0, b^2). No exact population values, no known V, no Bayesian-DP conversion."""

    name: str = "gaussian_ar1"
    rho: float = 0.5
    b: float = 0.3
    PARAMETERS = {"rho": {"type": "number", "exclusiveMinimum": -1, "exclusiveMaximum": 1, "default": 0.5},
                  "b": {"type": "number", "minimum": 0, "default": 0.3}}

    def population(self, rng, n, d, signal_attributes, signal_scale):
        from adaptive_repro.simulation.data_models import Population, signal_loadings

        return Population(n=n, d=d, mu=signal_loadings(n, d, signal_attributes, signal_scale),
                          beta=self.b * rng.standard_normal(d))

    def sample(self, rng, pop):
        y = rng.choice([-1.0, 1.0], size=pop.n)
        shocks = rng.standard_normal(pop.n)
        f = np.empty(pop.n)
        f[0] = shocks[0]
        for i in range(1, pop.n):
            f[i] = self.rho * f[i - 1] + np.sqrt(1 - self.rho ** 2) * shocks[i]
        x = rng.standard_normal((pop.n, pop.d)) + np.outer(y, pop.mu) + np.outer(f, pop.beta)
        return x, y, f

    def engines(self, query, unit_queries):
        return ("direct",)

    def describe(self):
        return f"Gaussian AR(1) factor: rho = {self.rho:g}, loading SD {self.b:g}"


@pytest.fixture
def ar1():
    DATA_MODELS.register(GaussianAR1)  # the one registration line
    yield GaussianAR1
    DATA_MODELS.unregister(GaussianAR1.name)


def test_a_core_only_data_model_runs_zhao_fig2_with_its_own_schema(ar1):
    """Only the core (population, sample, engines, describe, PARAMETERS): zhao-fig2 runs, its figure and claims name
    the model in its own words, and its block is checked against its own keys (rho = -0.5 is allowed here although
    attribute_chains' rho must be >= 0)."""
    assert not any(ar1.supports(c) for c in ("exact_population", "known_inflation", "bdp_conversion"))
    config = validation.validated({**validation.load_config_file(validation.default_config_path()),
                                   "outputs": ["zhao-fig2"]} | {"experiments": {"zhao-fig2": dict(
                                       n=300, d=60, replicates=3, k_grid=[0, 5, 10], mechanisms=["standard",
                                                                                                   "dwork_code"],
                                       signal_attributes=0, model={"name": "gaussian_ar1", "rho": -0.5})}})
    spec = specs.expand_experiments(config)["zhao-fig2"]
    assert spec.model == GaussianAR1(rho=-0.5)
    records, diagnostics = spec.run_replicates(1, range(3), with_diagnostics=True)
    assert records.loc[records["dataset"] == "population", "accuracy"].isna().all()  # no exact population values
    table, fig, claims = catalogue.build("zhao-fig2", {"seed": 1}, {"records": records, "diagnostics": diagnostics,
                                                                   "specs": {"zhao-fig2": spec}})
    assert claims and len(table)
    texts = " ".join(t.get_text() for t in fig.texts) + fig.get_suptitle()
    assert "Gaussian AR(1) factor" in texts + " ".join(c.claim + c.measured for c in claims)


@pytest.mark.parametrize("mechanism, words", [("zhao_alg1_bdp", "a Bayesian-DP conversion"),
                                              ("thresholdout_effective_n", "a known variance inflation V")])
def test_an_arm_the_model_cannot_serve_is_refused_before_any_job_in_one_line(ar1, mechanism, words):
    block = dict(n=300, d=60, replicates=3, k_grid=[0, 5], mechanisms=["standard", mechanism], query="sign",
                 signal_attributes=0, model={"name": "gaussian_ar1"})
    with pytest.raises(ValueError, match=rf"config key 'experiments.zhao-fig3.mechanisms': {mechanism} needs "
                                         rf"{words}.*; data model 'gaussian_ar1' has none"):
        validation.experiment_spec("zhao-fig3", block)


def test_removing_a_shared_state_the_model_cannot_name_is_refused_in_one_line(ar1):
    block = dict(n=300, d=60, replicates=3, k_grid=[0, 5], mechanisms=["standard"], query="sign",
                 signal_attributes=0, model={"name": "gaussian_ar1"}, remove_shared_state=True)
    with pytest.raises(ValueError, match=r"config key 'experiments.zhao-fig3.remove_shared_state': this output needs "
                                         r"the sign queries' means per shared latent state; data model 'gaussian_ar1'"):
        validation.experiment_spec("zhao-fig3", block)


def test_shared_state_removal_in_zhao_correlation_is_refused_under_the_blocks_own_key():
    block = dict(n=300, d=60, replicates=3, k_grid=[0, 5], mechanisms=["standard"], query="mean",
                 signal_attributes=0, remove_shared_state=True,
                 structures=[{"name": "households", "size": 3, "b": 1.0}])
    with pytest.raises(ValueError, match=r"^config key 'experiments.zhao-correlation.remove_shared_state': value true "
                                         r"needs sign queries"):
        validation.experiment_spec("zhao-correlation", block)


@pytest.mark.parametrize("mechanisms, words", [(["standard"], "this output needs a known variance inflation V"),
                                               (["standard", "zhao_alg1_bdp"], "zhao_alg1_bdp needs a Bayesian-DP")])
def test_zhao_correlation_names_the_structure_and_the_missing_capability(ar1, mechanisms, words):
    """A structure whose model lacks what zhao-correlation or an arm needs is refused under its own key
    (structures[i]), naming the capability, not a point's name that is no config key."""
    block = dict(n=300, d=60, replicates=3, k_grid=[0, 5], mechanisms=mechanisms, query="sign", signal_attributes=0,
                 structures=[{"name": "households", "size": 3, "b": 1.0}, {"name": "gaussian_ar1"}])
    with pytest.raises(ValueError, match=rf"^config key 'experiments.zhao-correlation.structures\[1\]': {words}"):
        validation.experiment_spec("zhao-correlation", block)


@pytest.mark.parametrize("model", list(DATA_MODELS), ids=lambda m: m.name)
def test_every_registered_model_declares_what_it_supports(model):
    """Every registered model has the core; an optional capability is all of its methods or none, and a model that
    supports one really computes it (no NotImplementedError)."""
    from adaptive_repro.simulation.data_models import CAPABILITIES, DataModel

    instance = model()
    assert instance.describe() and model.PARAMETERS is not None
    for capability, (methods, _) in CAPABILITIES.items():
        overridden = [getattr(model, m) is not getattr(DataModel, m) for m in methods]
        assert all(overridden) or not any(overridden), (model.name, capability)
        if capability == "known_inflation" and model.supports(capability):
            assert instance.expected_inflation(100) >= 1.0 - 1e-9
        if capability == "known_clusters" and model.supports(capability):
            assert len(instance.record_clusters(100)) == 100


def test_an_arm_takes_its_parameters_from_its_own_block():
    """Thresholdout's constants live in ``arms.dwork_code`` (the arm's PARAMETERS), not in the experiment block: they
    reach the arm; an unknown key is refused by name; a block for an arm the experiment does not run changes
    nothing (so the spec's digest stays)."""
    base = dict(n=400, d=100, replicates=2, k_grid=[0, 5], mechanisms=["standard", "dwork_code"], query="sign")
    spec = validation.experiment_spec("x", base | {"arms": {"dwork_code": {"threshold_scale": 2.0}}})
    assert spec.arm("dwork_code").tolerance(spec) == pytest.approx(2.0 / 20)
    assert validation.experiment_spec("x", base).arm("dwork_code").tolerance(spec) == pytest.approx(4.0 / 20)
    with pytest.raises(ValueError, match=r"arms.dwork_code.*bogus"):
        validation.experiment_spec("x", base | {"arms": {"dwork_code": {"bogus": 1}}})
    unused = {"arms": {"thresholdout_effective_n": {"threshold_scale": 2.0}}}
    assert validation.experiment_spec("x", base | unused) == validation.experiment_spec("x", base)


# ----------------------------------------------------------------------------------- a budgeted arm, not Algorithm 1
@dataclasses.dataclass
class GuessAndCheck(HoldoutMechanism):
    """Guess and Check in the manner of Rogers et al. 2020: the training value is the guess; it is returned when
    it lies within tau of the holdout value plus Laplace noise, otherwise the noisy holdout value is, at the cost of
    one unit of budget; bottom once the budget is spent."""

    rng: np.random.Generator
    tau: float
    noise: float
    budget: int

    def answer_statistics(self, train, holdout):
        return np.array([self.answer_accuracy(t, h) for t, h in zip(train, holdout)])

    def answer_accuracy(self, acc_train, acc_holdout):
        if self.over_events >= self.budget:
            self.bottoms += 1
            return np.nan
        noisy = acc_holdout + self.rng.laplace(0.0, self.noise)
        if abs(acc_train - noisy) <= self.tau:
            return acc_train
        self.over_events += 1
        return noisy


@dataclasses.dataclass(frozen=True)
class GuessAndCheckArm(Arm):
    PARAMETERS = {"budget": {"type": "integer", "minimum": 1, "default": 20},
                  "tolerance_scale": {"type": "number", "exclusiveMinimum": 0, "default": 2.0}}
    name: str = "guess_and_check"
    display_name: str = "Guess and Check"
    detail: str = "(Rogers et al. 2020 style)"
    color: str = "#AA4499"
    marker: str = "X"
    analyst: Analyst = BUDGET_AWARE_ANALYST
    unit_queries: bool = True
    budgeted: bool = True
    budget: int = 20
    tolerance_scale: float = 2.0

    def create(self, rng, spec, setting):
        return GuessAndCheck(rng, self.tolerance(spec, setting), 0.1 / np.sqrt(spec.n), self.budget)

    def tolerance(self, spec, setting):
        return self.tolerance_scale / np.sqrt(spec.n)

    def total_budget(self, spec, setting):
        return self.budget


@pytest.fixture
def guess_and_check():
    ARMS.register(GuessAndCheckArm())  # the one registration line
    yield ARMS.get("guess_and_check")
    ARMS.unregister("guess_and_check")


def test_a_budgeted_arm_that_is_not_algorithm1_runs_zhao_fig3_with_its_own_budget_curve(guess_and_check):
    """A Guess-and-Check-style arm with its own parameter block (budget, tolerance_scale): zhao-fig3 draws its
    answered fraction and its budget used / its own B (not Algorithm 1's), its diagnostics row has the analyst's
    counters and no Theorem 2 event (that check is Algorithm 1's)."""
    spec = validation.experiment_spec("zhao-fig3", dict(
        n=2000, d=200, replicates=3, k_grid=[0, 5, 10, 20], query="sign", signal_attributes=0,
        mechanisms=["standard", "guess_and_check", "zhao_alg1_bdp"], model={"p_s": 0.8, "p_y": 0.8, "b": 0.1},
        alg1={"budget": 10, "epsilon": 2.0}, arms={"guess_and_check": {"budget": 4, "tolerance_scale": 0.5}}))
    assert spec.arm("guess_and_check").budget == 4
    records, diagnostics = experiments.run_replicates(spec, 3, range(3), with_diagnostics=True)
    mine = diagnostics[diagnostics["mechanism"] == "guess_and_check"]
    assert len(mine) == 3 and mine["thm2_event"].isna().all() and (mine["over_events"] <= 4).all()
    assert diagnostics.loc[diagnostics["mechanism"] == "zhao_alg1_bdp", "thm2_event"].notna().all()
    used = records[(records["mechanism"] == "guess_and_check") & (records["dataset"] == "holdout")]
    assert used["budget_used"].max() == 4, "the test should spend the whole budget somewhere"
    table, fig, claims = catalogue.build("zhao-fig3", {"seed": 3}, {"records": records, "diagnostics": diagnostics,
                                                                   "specs": {"zhao-fig3": spec}})
    (budget_ax,) = [ax for ax in fig.axes if ax.get_ylabel() == "budget used / B"]
    curves = {line.get_color(): line.get_ydata() for line in budget_ax.get_lines() if line.get_linestyle() == ":"}
    expected = (table[(table["mechanism"] == "guess_and_check") & (table["dataset"] == "holdout")]
                .sort_values("k")["budget_used"].to_numpy() / 4)
    np.testing.assert_allclose(curves["#AA4499"], expected)
    assert "zhao_alg1_bdp" in {c.claim_id.removesuffix("-prevents-overfitting") for c in claims}
    assert "guess_and_check-tracks-fresh" in {c.claim_id for c in claims}


def test_a_budgeted_arm_without_a_budget_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Unbounded(NoisyHoldoutArm):
        name: str = "unbounded"
        budgeted: bool = True

    with pytest.raises(TypeError, match="budgeted but does not implement total_budget"):
        Unbounded()


@pytest.mark.parametrize("arm", list(ARMS), ids=lambda a: a.name)
def test_every_registered_arm_keeps_the_contract(arm):
    """Every registered arm (a new one too, without editing this test): its setting, a mechanism from ``create``,
    a threshold that is None or positive, a budget exactly when budgeted, capabilities the data models know, and a
    replicate that records it at every k and data set."""
    from adaptive_repro.simulation.data_models import CAPABILITIES

    spec = validation.experiment_spec("zhao-fig3", dict(
        n=2000, d=100, replicates=1, k_grid=[0, 5, 10], query="sign", signal_attributes=5, mechanisms=[arm.name],
        model={"p_s": 0.8, "p_y": 0.8, "b": 0.1}))
    setting = spec.arm_settings()[arm.name]
    assert isinstance(setting, ArmSetting) and arm.needs() <= set(CAPABILITIES)
    assert isinstance(arm.create(np.random.default_rng(0), spec, setting), HoldoutMechanism)
    tolerance = arm.tolerance(spec, setting)
    assert tolerance is None or tolerance > 0
    budget = arm.total_budget(spec, setting)
    assert (isinstance(budget, int) and budget >= 1) if arm.budgeted else budget is None
    records = experiments.run_replicates(spec, 1, range(1))
    assert len(records) == (3 * 4 if setting.feasible else 0)  # k x data sets, or not run when infeasible


@pytest.mark.parametrize("model", [m for m in DATA_MODELS if m.supports("bdp_conversion")], ids=lambda m: m.name)
def test_every_registered_conversion_is_below_the_bdp_level_and_inverts(model):
    """Every registered model's Bayesian-DP conversion (a new one too, without editing this test): the DP level that
    implies eps-BDP is at most eps (correlation can only cost privacy), and the Bayesian-DP level certified for that
    DP level is eps again (the two directions of Lemma 2 agree)."""
    instance = model()
    for eps in (0.5, 3.0):
        result = instance.dp_level_for_bdp(eps, 60, 10, "lemma2")
        assert result.feasible and 0 < result.eps_dp <= eps * (1 + 1e-9), (model.name, eps, result)
        assert instance.bdp_level_for_dp(result.eps_dp, 60, 10, "lemma2") == pytest.approx(eps, rel=1e-6)


def test_every_registered_marker_is_one_of_the_choices_a_clash_lists():
    for registry in (ARMS, CALIBRATIONS):
        assert {member.marker for member in registry} <= set(MARKER_CHOICES), registry.kind
