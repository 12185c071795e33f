"""The analyst of Dwork et al. 2015 (docs/METHODS.md §3): statistics, selection rule and linear threshold classifier.

The analyst only ever sees per-attribute statistics w_j = (1/n) sum_i x_ij y_i (a plain mean of x*y, not a
Pearson correlation, as in the authors' supplementary script) and classifier accuracies; this is what lets the
sufficient-statistic engine simulate the experiment exactly (docs/METHODS.md §7).
"""

from __future__ import annotations

import numpy as np

#: Accuracy recorded for an empty classifier: the script records 0.5 for k = 0 (docs/METHODS.md §3 step 3); we use the
#: same value when the selection rule keeps no attribute at all (a constant guess is right half the time).
EMPTY_CLASSIFIER_ACCURACY = 0.5


def attribute_statistics(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """w_j = (1/n) sum_i x_ij y_i for every attribute j (docs/METHODS.md §3 step 1)."""
    return x.T @ y / x.shape[0]


def select_attributes(w_train: np.ndarray, w_reported: np.ndarray, cut: float) -> np.ndarray:
    """Indices of kept attributes, ranked by |w_train| descending (docs/METHODS.md §3 step 2).

    Keep j iff (w_train_j > cut and w_reported_j > cut) or (w_train_j < -cut and w_reported_j < -cut), strict
    inequalities; ties in |w_train| keep index order (stable sort). The top-k set is the first k entries (all of
    them when fewer than k are kept).
    """
    keep = ((w_train > cut) & (w_reported > cut)) | ((w_train < -cut) & (w_reported < -cut))
    kept = np.flatnonzero(keep)
    return kept[np.argsort(-np.abs(w_train[kept]), kind="stable")]


def classifier_signs(w_train: np.ndarray, ranked: np.ndarray) -> np.ndarray:
    """Weights sign(w_train_j) of the ranked attributes: the classifier is sign(sum_j sign(w_train_j) x_j)."""
    return np.sign(w_train[ranked])


def selected_sizes(n_kept: int, k_grid: np.ndarray) -> np.ndarray:
    """Number of attributes the classifier actually uses at each k: min(k, number kept)."""
    return np.minimum(np.asarray(k_grid), n_kept)


def nested_scores(x: np.ndarray, ranked: np.ndarray, signs: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Scores x . c_k of the nested top-k classifiers, shape (len(sizes), n), by cumulative sums over blocks."""
    n = x.shape[0]
    scores = np.zeros((len(sizes), n))
    running = np.zeros(n)
    start = 0
    for i, size in enumerate(sizes):
        if size > start:
            running = running + x[:, ranked[start:size]] @ signs[start:size]
            start = size
        scores[i] = running
    return scores


def accuracy_from_scores(scores: np.ndarray, y: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Fraction of records with sign(score) = y per classifier; EMPTY_CLASSIFIER_ACCURACY where size is 0."""
    acc = np.mean(np.sign(scores) == y[None, :], axis=1)
    return np.where(np.asarray(sizes) == 0, EMPTY_CLASSIFIER_ACCURACY, acc)


def remove_shared_state(w: np.ndarray, state_means: np.ndarray) -> np.ndarray:
    """The statistics w = 2(q - 1/2) without the part a shared latent state explains (docs/METHODS.md §4b, the analyst
    of ``remove_shared_state``): w minus its least-squares fit, across attributes, on the columns 2(F_jg - mean_g F_jg)
    of the per-state sign-query means F (:meth:`~adaptive_repro.simulation.data_models.DataModel.shared_state_means`).
    A data set's shares of the states move every w_j by 2 sum_g (n_g/n - pi_g) F_jg, which those columns span, so the
    fit estimates the shares from all attributes at once and the residual keeps each attribute's own noise. NaN
    entries (bottom) stay NaN and do not enter the fit; with fewer than two states, or no more finite entries than
    columns, w is returned as it is. One call; :class:`SharedStateFit` serves many statistics of one population."""
    return SharedStateFit(state_means).residual(w)


class SharedStateFit:
    """:func:`remove_shared_state` for one population's state means, for many statistics (every arm of a replicate):
    the directions are built once, and for a w without NaN the fitted part is its projection on an orthonormal basis
    of the directions' span, computed once (the left singular vectors above numpy.linalg.lstsq's own cutoff, so the
    same least-squares fit; a w with NaN entries is fitted on its finite entries alone)."""

    def __init__(self, state_means: np.ndarray):
        centered = state_means - state_means.mean(axis=1, keepdims=True) if state_means.shape[1] else state_means
        self.directions = 2.0 * centered
        self._basis: np.ndarray | None = None

    def basis(self) -> np.ndarray:
        """Orthonormal columns spanning the directions (numpy.linalg.lstsq's rank rule: singular values above
        eps * max(d, G) times the largest)."""
        if self._basis is None:
            u, s, _ = np.linalg.svd(self.directions, full_matrices=False)
            cutoff = np.finfo(float).eps * max(self.directions.shape) * s.max(initial=0.0)
            self._basis = u[:, s > cutoff]
        return self._basis

    def residual(self, w: np.ndarray) -> np.ndarray:
        """w minus its least-squares fit on the directions (:func:`remove_shared_state`)."""
        w = np.array(w, dtype=float)
        if self.directions.shape[1] < 2:
            return w
        finite = np.isfinite(w)
        count = np.count_nonzero(finite)
        if count <= self.directions.shape[1]:
            return w
        if count == w.size:
            basis = self.basis()
            return w - basis @ (basis.T @ w)
        coef, *_ = np.linalg.lstsq(self.directions[finite], w[finite], rcond=None)
        w[finite] -= self.directions[finite] @ coef
        return w


def candidate_attributes(w_train: np.ndarray, cut: float) -> np.ndarray:
    """The attributes an analyst facing a budgeted mechanism asks about (docs/METHODS.md §4a): those whose training
    statistic passes the cut (|w_train_j| > cut; the others can never be kept), most promising (largest |w_train|)
    first, ties in index order."""
    cand = np.flatnonzero(np.abs(w_train) > cut)
    return cand[np.argsort(-np.abs(w_train[cand]), kind="stable")]


def distinct_classifiers(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One accuracy query per distinct non-empty classifier (docs/METHODS.md §4a): when fewer than k attributes are
    kept, the classifier at k equals the one at the previous k and is not asked again.

    Returns (distinct positive sizes in increasing order, for each grid entry the index of its distinct size or -1
    for the empty classifier)."""
    sizes = np.asarray(sizes)
    distinct = np.unique(sizes[sizes > 0])
    index = np.where(sizes > 0, np.searchsorted(distinct, sizes), -1)
    return distinct, index
