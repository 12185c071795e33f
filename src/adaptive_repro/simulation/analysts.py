"""Analysts: how the adaptive analyst of Dwork et al. 2015 interacts with a holdout mechanism in one replicate
(docs/METHODS.md §3 and §4a). The selection rule and the classifier themselves are in :mod:`analyst`.

- ``dwork`` (:class:`DworkAnalyst`): asks every attribute's statistic, keeps the attributes whose training and
  reported statistics agree in sign beyond the cut, then asks the accuracy of the nested top-k classifier at every k.
- ``training_only`` (:class:`TrainingOnlyAnalyst`), facing a mechanism that answers accuracy queries only (a
  leaderboard): keeps the attributes whose training statistic passes the cut, then asks as ``dwork`` does.

With ``remove_shared_state`` (an experiment's config key) either analyst first removes from the statistics it holds
(its training data's and the answers it gets) the part the data set's shared latent state explains
(:meth:`ArmContext.without_shared_state`): post-processing of answers, so no mechanism's guarantee changes.
- ``budget_aware`` (:class:`BudgetAwareAnalyst`), facing a budgeted mechanism that answers [0, 1] statistical
  queries (Algorithm 1): asks only candidate attributes (|w_train| > cut; the others can never be kept), most
  promising first, then one accuracy query per distinct classifier in increasing k; answers are clamped to [0, 1]
  (post-processing), and it records its budget counters and the queries it asked (the arm adds its own checks of
  them, e.g. Algorithm 1's Theorem 2 event).

An analyst plays a replicate in two phases, :meth:`Analyst.select` (the attribute queries, ending with the nested
classifiers to measure) and :meth:`Analyst.report` (the accuracy queries), so that the runner can measure every arm's
classifiers together in between: an engine that draws data columns then draws each column once for all arms.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Callable, ClassVar

import numpy as np

from adaptive_repro.simulation import analyst
from adaptive_repro.simulation.mechanisms.base import HoldoutMechanism, clamp_unit


@dataclasses.dataclass
class ArmContext:
    """What the analyst of one arm works with in one replicate: the mechanism, the arm's data sets and the exact
    population value of every [0, 1] query."""

    mechanism: HoldoutMechanism
    spec: object  # the ExperimentSpec
    sets: dict  # "train", "holdout", "fresh" -> Dataset
    population_queries: Callable[[], np.ndarray]  # exact population value of every [0, 1] query
    shared_state: Callable[[], analyst.SharedStateFit]  # the fit on the data model's per-state sign-query means

    def without_shared_state(self, w: np.ndarray) -> np.ndarray:
        """The analyst's own post-processing of statistics it holds (its training data's, or the mechanism's
        answers): the shared latent state's part removed where the spec asks for it (``remove_shared_state``,
        :func:`adaptive_repro.simulation.analyst.remove_shared_state`), else w unchanged."""
        return self.shared_state().residual(w) if self.spec.remove_shared_state else w


@dataclasses.dataclass
class Selection:
    """The end of an analyst's attribute phase: the nested top-k classifiers to measure (kept attributes, most
    promising first; their weights; the number of attributes used at each k of the grid)."""

    ranked: np.ndarray
    weights: np.ndarray
    sizes: np.ndarray

    @property
    def classifiers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ranked, weights, sizes), as a data set's accuracies take them."""
        return self.ranked, self.weights, self.sizes


@dataclasses.dataclass
class QueryLog:
    """The [0, 1] queries of one replicate, in the order asked: the answers (NaN = bottom), the training values and
    the exact population values (a call: computed only for an arm whose checks read them)."""

    answers: np.ndarray
    train: np.ndarray
    population: Callable[[], np.ndarray]


@dataclasses.dataclass
class ArmOutcome:
    """One arm's replicate: per k, the classifier size and the accuracy per data set ("holdout" as reported), the
    budget used up to that k's accuracy query, the number of attributes kept, and the diagnostics row (or None): its
    keys must be columns of ``experiments.DIAGNOSTIC_COLUMNS`` (a key outside them stops the job, naming it), its
    values Python or numpy bools, integers, floats or None; ``queries``: the [0, 1] queries asked, for the arm's own
    checks (:meth:`adaptive_repro.simulation.arm.Arm.diagnostics`), or None."""

    sizes: np.ndarray
    values: dict[str, np.ndarray]
    budget_used: np.ndarray
    n_kept: int
    diagnostics: dict | None = None
    queries: QueryLog | None = None


@dataclasses.dataclass(frozen=True)
class Analyst(abc.ABC):
    """Contract: ``name`` (the arm that faces it names it in its ``analyst`` field); ``ASKS_STATISTICS``: whether
    it asks the mechanism per-attribute statistics (an arm whose mechanism does not answer them must face an analyst
    that does not ask); :meth:`select` plays
    the attribute phase of one replicate against the mechanism in ``ctx`` and returns the classifiers to measure;
    :meth:`report` gets their accuracies (train, holdout, fresh: measured on the arm's data sets and score streams;
    population: exact) and plays the accuracy phase. It draws no random numbers of its own (the mechanism and the
    data sets have their streams), so an arm's numbers do not depend on other arms or on how the runner interleaves
    the arms' phases."""

    name: str
    ASKS_STATISTICS: ClassVar[bool] = True

    @abc.abstractmethod
    def select(self, ctx: ArmContext) -> Selection:
        """The attribute phase: the nested classifiers to measure (and whatever :meth:`report` needs of it)."""

    @abc.abstractmethod
    def report(self, ctx: ArmContext, selection: Selection, acc: dict[str, np.ndarray]) -> ArmOutcome:
        """The accuracy phase, given the selection's accuracies per data set: the replicate's outcome for this arm."""


@dataclasses.dataclass(frozen=True)
class DworkAnalyst(Analyst):
    """Dwork et al. 2015's analyst (docs/METHODS.md §3)."""

    name: str = "dwork"

    def select(self, ctx: ArmContext) -> Selection:
        query, clip = ctx.spec.query, ctx.spec.alg1.clip
        w_train = query.statistics(ctx.sets["train"], clip)
        reported = ctx.mechanism.answer_statistics(w_train, query.statistics(ctx.sets["holdout"], clip))
        return Selection(*_classifiers(ctx, ctx.without_shared_state(w_train), ctx.without_shared_state(reported)))

    def report(self, ctx: ArmContext, selection: Selection, acc: dict[str, np.ndarray]) -> ArmOutcome:
        sizes, acc = selection.sizes, dict(acc)
        acc["holdout"] = np.array([
            analyst.EMPTY_CLASSIFIER_ACCURACY if size == 0 else ctx.mechanism.answer_accuracy(a_tr, a_ho)
            for size, a_tr, a_ho in zip(sizes, acc["train"], acc["holdout"])])
        return ArmOutcome(sizes, acc, np.zeros(len(sizes)), len(selection.ranked))


@dataclasses.dataclass(frozen=True)
class TrainingOnlyAnalyst(DworkAnalyst):
    """Dwork et al. 2015's analyst without the holdout's per-attribute answers: the attributes are selected on the
    training statistics alone (|w_train| > cut, the same rule with the training value in place of the reported one),
    so the holdout enters only through the accuracy answers (a leaderboard's setting)."""

    name: str = "training_only"
    ASKS_STATISTICS: ClassVar[bool] = False

    def select(self, ctx: ArmContext) -> Selection:
        query, clip = ctx.spec.query, ctx.spec.alg1.clip
        w_train = ctx.without_shared_state(query.statistics(ctx.sets["train"], clip))
        return Selection(*_classifiers(ctx, w_train, w_train))


@dataclasses.dataclass
class BudgetAwareSelection(Selection):
    """The budget-aware analyst's attribute phase: the classifiers, and its attribute queries (the candidates asked,
    their training values, the clamped answers, the budget spent) for the accuracy phase's diagnostics."""

    asked: np.ndarray
    q_train: np.ndarray
    q_answers: np.ndarray
    attribute_over_events: int


@dataclasses.dataclass(frozen=True)
class BudgetAwareAnalyst(Analyst):
    """The analyst facing a budgeted [0, 1]-query mechanism (docs/METHODS.md §4a)."""

    name: str = "budget_aware"

    def select(self, ctx: ArmContext) -> BudgetAwareSelection:
        spec, mech, query, clip = ctx.spec, ctx.mechanism, ctx.spec.query, ctx.spec.alg1.clip
        w_train = ctx.without_shared_state(query.statistics(ctx.sets["train"], clip))
        asked = analyst.candidate_attributes(w_train, spec.cut)
        q_train = query.unit_queries(ctx.sets["train"], clip)[asked]
        q_holdout = query.unit_queries(ctx.sets["holdout"], clip)[asked]
        q_answers = clamp_unit(mech.answer_statistics(q_train, q_holdout))
        reported = np.full(spec.d, np.nan)
        reported[asked] = query.to_statistic(q_answers, clip)
        classifiers = _classifiers(ctx, w_train, ctx.without_shared_state(reported))
        return BudgetAwareSelection(*classifiers, asked=asked, q_train=q_train, q_answers=q_answers,
                                    attribute_over_events=mech.over_events)

    def report(self, ctx: ArmContext, selection: BudgetAwareSelection, acc: dict[str, np.ndarray]) -> ArmOutcome:
        mech, sizes, acc = ctx.mechanism, selection.sizes, dict(acc)
        attr_over = selection.attribute_over_events
        # one accuracy query per distinct classifier, in increasing k; answers clamped to [0, 1]
        distinct, index = analyst.distinct_classifiers(sizes)
        first = np.searchsorted(sizes, distinct)  # grid position of each distinct classifier's first k
        answers, spent = np.empty(len(distinct)), np.empty(len(distinct))
        for i, pos in enumerate(first):
            answers[i] = clamp_unit(mech.answer_accuracy(acc["train"][pos], acc["holdout"][pos]))
            spent[i] = mech.over_events
        if len(distinct):
            acc["holdout"] = np.where(index >= 0, answers[np.maximum(index, 0)], analyst.EMPTY_CLASSIFIER_ACCURACY)
            budget_used = np.where(index >= 0, spent[np.maximum(index, 0)], attr_over)
        else:  # no attribute kept: every classifier is empty and nothing is asked
            acc["holdout"] = np.full(len(sizes), analyst.EMPTY_CLASSIFIER_ACCURACY)
            budget_used = np.full(len(sizes), float(attr_over))
        q_answers = selection.q_answers
        population = acc["population"][first]
        queries = QueryLog(np.concatenate([q_answers, answers]),
                           np.concatenate([selection.q_train, acc["train"][first]]),
                           lambda: np.concatenate([ctx.population_queries()[selection.asked], population]))
        diagnostics = {"over_events": mech.over_events, "bottoms": mech.bottoms, "queries": len(queries.answers),
                       "attribute_queries": len(selection.asked),
                       "attribute_answered": int(np.sum(~np.isnan(q_answers))), "attribute_over_events": attr_over,
                       "accuracy_queries": len(distinct), "accuracy_answered": int(np.sum(~np.isnan(answers))),
                       **mech.session_diagnostics()}
        return ArmOutcome(sizes, acc, budget_used, len(selection.ranked), diagnostics, queries)


def _classifiers(ctx: ArmContext, w_train: np.ndarray, reported: np.ndarray):
    """The selection rule on (training, reported) statistics (NaN, "bottom", is never kept) and the nested top-k
    classifiers it defines: (ranked attributes, weights, sizes)."""
    ranked = analyst.select_attributes(w_train, reported, ctx.spec.cut)
    weights = analyst.classifier_signs(w_train, ranked)
    sizes = analyst.selected_sizes(len(ranked), np.asarray(ctx.spec.k_grid))
    return ranked, weights, sizes


DWORK_ANALYST = DworkAnalyst()
TRAINING_ONLY_ANALYST = TrainingOnlyAnalyst()
BUDGET_AWARE_ANALYST = BudgetAwareAnalyst()
