"""The contract of an arm (docs/ARCHITECTURE.md, "Plug-ins").

An **arm** is what an experiment's ``mechanisms`` list names: a frozen dataclass implementing :class:`Arm`, registered
once in :data:`adaptive_repro.simulation.registries.ARMS`. It says how it is shown (display name, colour, what it
is in words), which analyst faces it, which queries it answers, how it is set up for an experiment
(:meth:`Arm.setting`) and creates the :class:`~adaptive_repro.simulation.mechanisms.base.HoldoutMechanism` that
answers one replicate's queries. Figures and claims take every word about an arm from the arm itself.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import ClassVar

import numpy as np

from adaptive_repro.simulation.analysts import Analyst, QueryLog
from adaptive_repro.simulation.mechanisms.base import ArmSetting, HoldoutMechanism
from adaptive_repro.simulation.zhao_calibration import Calibration

#: What an arm's accuracy answers estimate (:attr:`Arm.REPORTS`): the asked classifier's accuracy, or the best
#: accuracy among the classifiers asked so far (a leaderboard such as Blum and Hardt's Ladder).
CLASSIFIER_ACCURACY = "accuracy of the classifier asked"
BEST_SO_FAR = "best accuracy so far"
REPORTED_QUANTITIES = (CLASSIFIER_ACCURACY, BEST_SO_FAR)


@dataclasses.dataclass(frozen=True)
class Arm(abc.ABC):
    """One holdout mechanism as the config names it.

    Contract for implementers (frozen dataclass, every field part of the experiment's digest):

    * ``name``: the config name (also the key of the arm's random streams: never rename a registered arm);
    * ``display_name``, ``detail``, ``color``, ``marker``: how figures and claims name and draw it (``detail`` says
      in words what distinguishes it, e.g. "as if records were independent");
    * ``analyst``: the analyst that faces this mechanism (:mod:`adaptive_repro.simulation.analysts`);
    * ``unit_queries``: True if it answers statistical queries with values in [0, 1] (Algorithm 1), False if it
      answers the analyst's statistics as they are (the engines use it to pick an exact engine);
    * ``budgeted``: True if it can answer bottom; such an arm implements :meth:`total_budget` (its B), and figures
      show its answered fraction and the budget it used, whatever the mechanism;
    * ``calibration``: how Algorithm 1's sigma and T are chosen (:mod:`adaptive_repro.simulation.zhao_calibration`),
      None for mechanisms without one;
    * :meth:`setting` (default: nothing to set up), :meth:`create`, :meth:`tolerance`, :meth:`total_budget` (budgeted
      arms), :meth:`diagnostics` (its own checks of a replicate's queries; default: none);
    * :meth:`needs`: the data-model capabilities it uses (default: none; checked before any job);
    * ``PARAMETERS``: its own config keys (JSON schema per key, each with its default, the same value as the field
      of that name): an experiment block's ``arms.<name>`` sets them, validated against this schema before any job
      (default: none);
    * ``REPORTS``: what its answer to an accuracy query (the records' "holdout" value, "reported") estimates:
      :data:`CLASSIFIER_ACCURACY` (default), the accuracy of the classifier asked, or :data:`BEST_SO_FAR`, the
      largest accuracy among the classifiers asked so far (a leaderboard); the records' other data sets then hold
      the same quantity (:meth:`estimated_values`), so every gap compares a report with what it estimates;
    * ``ANSWERS_STATISTICS``: False if its mechanism answers accuracy queries only (then its analyst must be one
      that asks no per-attribute statistics, e.g. ``TRAINING_ONLY_ANALYST``; refused otherwise).
    """

    PARAMETERS: ClassVar[dict[str, dict]] = {}
    REPORTS: ClassVar[str] = CLASSIFIER_ACCURACY
    ANSWERS_STATISTICS: ClassVar[bool] = True

    name: str
    display_name: str
    detail: str
    color: str
    analyst: Analyst
    unit_queries: bool = False
    budgeted: bool = False
    calibration: Calibration | None = None  # Algorithm 1's calibration, None for other mechanisms
    marker: str = "o"  # matplotlib marker of the arm in every figure (plotting.style), with its colour

    def __post_init__(self):
        if self.budgeted and type(self).total_budget is Arm.total_budget:
            raise TypeError(f"arm {self.name!r} is budgeted but does not implement total_budget() (the B its "
                            "budget_used counts against)")
        if self.analyst.ASKS_STATISTICS and not self.ANSWERS_STATISTICS:
            raise TypeError(f"arm {self.name!r} answers no per-attribute statistics but its analyst "
                            f"{self.analyst.name!r} asks them; use an analyst that does not (e.g. 'training_only')")
        if self.REPORTS not in REPORTED_QUANTITIES:
            raise TypeError(f"arm {self.name!r}: REPORTS {self.REPORTS!r} is not one of {REPORTED_QUANTITIES}")

    def estimated_values(self, values: dict[str, np.ndarray], sizes: np.ndarray) -> dict[str, np.ndarray]:
        """One replicate's accuracies per data set, per k in the order asked (``sizes``: the classifier's size at
        each k; size 0 is the empty classifier, never asked), as the quantity the reports estimate: as they are for
        :data:`CLASSIFIER_ACCURACY`; for :data:`BEST_SO_FAR` every data set but the reported one ("holdout") as the
        running maximum over the classifiers asked so far."""
        if self.REPORTS == CLASSIFIER_ACCURACY:
            return values
        asked = np.asarray(sizes) > 0
        out = {}
        for name, v in values.items():
            out[name] = np.array(v, dtype=float)
            if name != "holdout":
                out[name][asked] = np.fmax.accumulate(out[name][asked])
        return out

    def setting(self, spec) -> ArmSetting:
        """The arm's set-up for the experiment ``spec`` (e.g. a calibrated noise scale)."""
        return ArmSetting()

    @abc.abstractmethod
    def create(self, rng: np.random.Generator, spec, setting: ArmSetting) -> HoldoutMechanism:
        """The mechanism answering one replicate's queries, drawing its noise from ``rng``."""

    def tolerance(self, spec, setting: ArmSetting) -> float | None:
        """The gap between reported and fresh accuracy this arm is designed to allow (its threshold T), drawn on
        the gap panels and used by the claims; None if the arm promises nothing (the standard holdout)."""
        return None

    def total_budget(self, spec, setting: ArmSetting) -> int | None:
        """The budget B a budgeted arm spends (the ``budget_used`` records count in these units); None for an
        unbudgeted arm. A budgeted arm must implement it (the registry refuses one that does not)."""
        return None

    def diagnostics(self, spec, queries: QueryLog) -> dict:
        """The arm's own checks of one replicate's [0, 1] queries (e.g. Algorithm 1's Theorem 2 event), added to the
        analyst's counters in the diagnostics row; keys must be columns of ``experiments.DIAGNOSTIC_COLUMNS``."""
        return {}

    def needs(self) -> frozenset[str]:
        """The data-model capabilities this arm needs (keys of
        :data:`adaptive_repro.simulation.data_models.CAPABILITIES`): the config check refuses a data model without
        one before any job."""
        return frozenset()

    def title(self, spec) -> str:
        """A panel title: the display name and, on a second line, the detail."""
        return self.display_name + (f"\n{self.detail}" if self.detail else "")

    @property
    def needs_records(self) -> bool:
        """Whether the arm's mechanism reads the training records in their order (default False): only the direct
        engine keeps them, so an experiment with such an arm runs every arm on it."""
        return False

    @property
    def claim_name(self) -> str:
        """How claim text names the arm."""
        return self.display_name
