"""Stability scores: per-topic co-assignment across runs and the mean pairwise ARI."""

import numpy as np
import pytest

from workbench.topics import mean_pairwise_ari, topic_stability


def test_a_topic_kept_whole_scores_one_and_a_split_topic_less():
    reference = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    same_but_renamed = np.array([5, 5, 5, 5, 2, 2, 2, 2])
    split_first = np.array([0, 0, 3, 3, 1, 1, 1, 1])
    scores = topic_stability(reference, [same_but_renamed, split_first])
    assert scores[1] == 1.0
    # topic 0 has 6 pairs: all kept in the first run, 2 of 6 in the second
    assert scores[0] == pytest.approx((1 + 2 / 6) / 2, abs=1e-4)


def test_outliers_in_other_runs_count_as_apart_and_single_papers_score_one():
    reference = np.array([0, 0, 0, 1])
    run = np.array([-1, -1, 0, 0])
    scores = topic_stability(reference, [run])
    assert scores == {0: 0.0, 1: 1.0}
    assert topic_stability(reference, []) == {0: 1.0, 1: 1.0}


def test_mean_pairwise_ari():
    a = np.array([0, 0, 1, 1])
    assert mean_pairwise_ari([a, a[::-1] * 0 + np.array([1, 1, 0, 0])]) == 1.0
    assert mean_pairwise_ari([a]) == 1.0
    assert mean_pairwise_ari([a, np.array([0, 1, 0, 1]), a]) < 1.0


def test_runs_of_another_length_are_refused():
    with pytest.raises(ValueError, match="expected one per paper"):
        topic_stability(np.zeros(4), [np.zeros(3)])
