"""The Dwork2015 analyst (docs/METHODS.md §3): selection rule, classifier, k = 0."""
import numpy as np

from adaptive_repro.simulation import analyst


def test_selection_uses_strict_thresholds_and_sign_agreement():
    cut = 0.1
    w_train = np.array([0.1, 0.2, 0.3, -0.4, 0.5, -0.2, 0.15])
    w_rep = np.array([0.5, 0.1, 0.2, -0.2, -0.5, -0.1000001, 0.11])
    # j=0: train == cut (not >), j=1: reported == cut, j=4: signs disagree -> dropped
    ranked = analyst.select_attributes(w_train, w_rep, cut)
    assert ranked.tolist() == [3, 2, 5, 6]  # ranked by |w_train| descending


def test_selection_ranks_by_train_statistic_and_ties_keep_index_order():
    w = np.array([0.3, -0.3, 0.5, 0.3])
    assert analyst.select_attributes(w, w, 0.0).tolist() == [2, 0, 1, 3]


def test_fewer_than_k_kept_uses_all_kept():
    sizes = analyst.selected_sizes(3, np.array([0, 1, 2, 5, 10]))
    assert sizes.tolist() == [0, 1, 2, 3, 3]


def test_classifier_is_sign_of_signed_sum():
    x = np.array([[1.0, -2.0, 0.5], [-1.0, 0.5, 0.1], [0.2, 0.1, -3.0]])
    y = np.array([1.0, -1.0, 1.0])
    w_train = np.array([0.3, -0.2, 0.1])
    ranked = np.array([0, 1, 2])
    weights = analyst.classifier_signs(w_train, ranked)
    assert weights.tolist() == [1.0, -1.0, 1.0]
    scores = analyst.nested_scores(x, ranked, weights, np.array([1, 2, 3]))
    expected = np.stack([x[:, :1] @ [1], x[:, :2] @ [1, -1], x @ [1, -1, 1]])
    np.testing.assert_allclose(scores, expected)
    acc = analyst.accuracy_from_scores(scores, y, np.array([1, 2, 3]))
    np.testing.assert_allclose(acc, [np.mean(np.sign(s) == y) for s in expected])


def test_k_zero_and_empty_selection_record_one_half():
    x = np.ones((4, 2))
    y = np.array([1.0, 1.0, 1.0, 1.0])
    sizes = np.array([0, 0])
    scores = analyst.nested_scores(x, np.array([], dtype=int), np.array([]), sizes)
    assert analyst.accuracy_from_scores(scores, y, sizes).tolist() == [0.5, 0.5]


def test_attribute_statistic_is_plain_mean_of_x_times_y():
    x = np.array([[2.0, 1.0], [4.0, -1.0]])
    y = np.array([1.0, -1.0])
    np.testing.assert_allclose(analyst.attribute_statistics(x, y), [(2 - 4) / 2, (1 + 1) / 2])


def test_candidates_are_the_attributes_past_the_cut_most_promising_first():
    w = np.array([0.05, -0.2, 0.01, 0.2, -0.011, 0.0])
    np.testing.assert_array_equal(analyst.candidate_attributes(w, 0.01), [1, 3, 0, 4])  # |w| ties keep index order


def test_one_accuracy_query_per_distinct_classifier():
    sizes = np.array([0, 5, 10, 12, 12, 12])  # 12 attributes kept, k grid 0, 5, 10, 20, 30, 40
    distinct, index = analyst.distinct_classifiers(sizes)
    np.testing.assert_array_equal(distinct, [5, 10, 12])
    np.testing.assert_array_equal(index, [-1, 0, 1, 2, 2, 2])
