"""Every registered plug-in, one registry per kind: the one place where a new mechanism, calibration, data model,
analyst, query or engine is made known to the pipeline (one line each; docs/ARCHITECTURE.md).

The config names plug-ins by these names; the schema's enums are filled from these registries
(:func:`adaptive_repro.foundation.config.load_schema`), and :mod:`adaptive_repro.pipeline.specs` resolves names
to objects.
"""

from __future__ import annotations

from adaptive_repro.foundation.plugins import Registry
from adaptive_repro.simulation.arm import Arm
from adaptive_repro.simulation.data_models import BatchChain, DataModel
from adaptive_repro.simulation.engines import DirectEngine, Engine, FastEngine
from adaptive_repro.simulation.mechanisms.algorithm1 import Algorithm1Arm
from adaptive_repro.simulation.mechanisms.effective_n import ThresholdoutEffectiveNArm
from adaptive_repro.simulation.mechanisms.standard import StandardArm
from adaptive_repro.simulation.mechanisms.thresholdout import ThresholdoutArm
from adaptive_repro.simulation.models.attribute_chains import AttributeChains, AttributeChainsEngine
from adaptive_repro.simulation.models.households import Households
from adaptive_repro.simulation.models.regimes import Regimes
from adaptive_repro.simulation.queries import MeanQuery, Query, SignQuery
from adaptive_repro.simulation.sign_engine import ExactSignEngine
from adaptive_repro.simulation.zhao_calibration import (
                                                        BayesianDPCalibration,
                                                        BayesianDPEffectiveNCalibration,
                                                        Calibration,
                                                        DPCalibration,
                                                        EffectiveNCalibration,
                                                        EstimatedVCalibration,
                                                        NoiselessCalibration,
                                                        Theorem2Calibration,
)

#: The matplotlib markers an arm or calibration may take (filled, told apart at figure size); a clash lists those free.
MARKER_CHOICES = ("o", "s", "^", "v", "<", ">", "D", "d", "p", "P", "h", "H", "X", "*", "8")

#: Algorithm 1 calibrations (the arm ``zhao_alg1_<name>`` exists for each).
CALIBRATIONS: Registry[Calibration] = Registry("calibration", Calibration, unique=("color", "marker"),
                                               choices={"marker": MARKER_CHOICES}, members=[
    DPCalibration(),
    BayesianDPCalibration(),
    Theorem2Calibration(),
    EffectiveNCalibration(),
    BayesianDPEffectiveNCalibration(),
    NoiselessCalibration(),
    EstimatedVCalibration(),
])

#: Holdout mechanism arms, by the name an experiment's ``mechanisms`` list uses.
ARMS: Registry[Arm] = Registry("mechanism", Arm, unique=("color", "marker"), choices={"marker": MARKER_CHOICES},
                               members=[
    StandardArm(),
    ThresholdoutArm(),
    ThresholdoutEffectiveNArm(),
    *(Algorithm1Arm.for_calibration(calibration) for calibration in CALIBRATIONS),
])

#: Data models (classes: a config block ``model`` gives their fields), by ``model.name``.
DATA_MODELS: Registry[type[DataModel]] = Registry("data model", DataModel, [
    BatchChain,
    Regimes,
    Households,
    AttributeChains,
])

#: The analyst's per-attribute query, by the config value of ``query``.
QUERIES: Registry[Query] = Registry("query", Query, [MeanQuery(), SignQuery()])

#: Simulation engines, by name (which is exact for what is the data model's to say).
ENGINES: Registry[Engine] = Registry("engine", Engine, [DirectEngine(), FastEngine(), ExactSignEngine(),
                                                       AttributeChainsEngine()])
