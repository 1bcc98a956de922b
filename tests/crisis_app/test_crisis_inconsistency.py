import math

import numpy as np
import pytest

from crisis_app.group_scoring import score_ranking_group
from crisis_app.inconsistency import (
    group_inconsistency,
    inconsistency_from_rescaled_f1,
    kendall_tau_distance,
    pair_inconsistencies,
    pair_indices,
    rescale_f1,
    summarise_runs,
)


def length_scorer(texts, pairs):
    """Fake scorer: rescaled F1 = 1 - |len(a) - len(b)| / 10."""
    return [1 - abs(len(texts[i]) - len(texts[j])) / 10 for i, j in pairs]


def test_pairs_are_listed_row_major_as_the_release_stores_them():
    assert pair_indices(4) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert pair_indices(1) == []


def test_the_scorer_sees_every_pair_once_in_row_major_order():
    seen = []

    def recording_scorer(texts, pairs):
        seen.extend(pairs)
        return [1.0] * len(pairs)

    group_inconsistency(["a", "b", "c", "d"], recording_scorer)
    assert seen == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def test_group_inconsistency_is_the_mean_over_pairs():
    # lengths 1, 3, 6: (0,1) F1 = 1 - 2/10 = 0.8 -> 0.2; (0,2) 1 - 5/10 = 0.5 -> 0.5;
    # (1,2) 1 - 3/10 = 0.7 -> 0.3; mean (0.2 + 0.5 + 0.3) / 3 = 1/3
    texts = ["a", "abc", "abcdef"]
    assert pair_inconsistencies(texts, length_scorer) == pytest.approx([0.2, 0.5, 0.3])
    assert group_inconsistency(texts, length_scorer) == pytest.approx(1 / 3)


def test_identical_samples_are_perfectly_consistent():
    assert group_inconsistency(["same", "same", "same"], length_scorer) == 0.0


def test_inconsistency_is_clipped_to_zero_and_one():
    # 1 - 1.2 = -0.2 -> 0; 1 - (-0.9) = 1.9 -> 1; 1 - 0.25 = 0.75 stays
    assert inconsistency_from_rescaled_f1([1.2, -0.9, 0.25]).tolist() == [0.0, 1.0, 0.75]
    # lengths 1 and 20: F1 = 1 - 19/10 = -0.9, below the baseline -> inconsistency 1
    assert group_inconsistency(["a", "a" * 20], length_scorer) == 1.0


def test_rescaling_maps_the_baseline_to_zero_and_one_to_one():
    # (0.6 - 0.2) / (1 - 0.2) = 0.4 / 0.8 = 0.5
    assert rescale_f1(0.6, 0.2) == pytest.approx(0.5)
    assert rescale_f1(0.2, 0.2) == pytest.approx(0.0)
    assert rescale_f1(1.0, 0.2) == pytest.approx(1.0)
    # below the baseline goes negative: (0.1 - 0.2) / 0.8 = -0.125
    assert rescale_f1([0.1], 0.2) == pytest.approx([-0.125])


def test_a_baseline_of_one_is_rejected():
    with pytest.raises(ValueError, match="baseline"):
        rescale_f1(0.5, 1.0)


def test_a_group_of_one_sample_is_rejected():
    with pytest.raises(ValueError, match="at least 2"):
        group_inconsistency(["alone"], length_scorer)


def test_a_scorer_returning_the_wrong_number_of_values_is_rejected():
    with pytest.raises(ValueError, match="for 3 pairs"):
        pair_inconsistencies(["a", "b", "c"], lambda texts, pairs: [1.0])


def test_kendall_tau_distance_is_the_share_of_discordant_pairs():
    assert kendall_tau_distance("ABC", "ABC") == 0.0
    assert kendall_tau_distance("ABC", "CBA") == 1.0
    # pairs (A,B) discordant, (A,C) and (B,C) concordant: 1/3
    assert kendall_tau_distance("ABC", "BAC") == pytest.approx(1 / 3)


def test_kendall_tau_distance_needs_the_same_items_once_each():
    with pytest.raises(ValueError, match="different items"):
        kendall_tau_distance("ABC", "ABD")
    with pytest.raises(ValueError, match="once"):
        kendall_tau_distance("AAB", "ABA")


def test_a_ranking_group_scores_the_kendall_tau_distance_of_every_pair_and_their_mean():
    # d(ABC, BAC) = 1/3; d(ABC, CBA) = 1; d(BAC, CBA): (B,A) concordant, (B,C) and
    # (A,C) discordant = 2/3; mean (1/3 + 1 + 2/3) / 3 = 2/3
    group = score_ranking_group(["ABC", "BAC", "CBA"])
    assert group.pair_values == pytest.approx([1 / 3, 1, 2 / 3])
    assert group.mean == pytest.approx(2 / 3)


def test_run_summary_means_the_run_means():
    # run means 0.3, 0.5, 0.3 -> mean 1.1 / 3 = 0.36667; deviations -1/15, 2/15, -1/15,
    # squares sum 6/225 = 0.026667, / (3 - 1) = 0.013333, sd = 0.11547
    summary = summarise_runs([[0.2, 0.4], [0.5], [0.3, 0.3, 0.3]], n_bootstrap=2000, seed=7)
    assert summary.mean == pytest.approx(1.1 / 3)
    assert summary.sd == pytest.approx(math.sqrt(0.026666667 / 2), rel=1e-6)
    assert summary.n_runs == 3
    assert 0.3 <= summary.ci_low <= summary.mean <= summary.ci_high <= 0.5


def test_the_bootstrap_is_deterministic_for_a_seed():
    runs = [[0.1, 0.2], [0.4], [0.35, 0.45], [0.2], [0.6, 0.5]]
    first = summarise_runs(runs, seed=3)
    assert summarise_runs(runs, seed=3) == first
    assert summarise_runs(runs, seed=4) != first


def test_a_single_run_has_no_sd_and_a_point_interval():
    summary = summarise_runs([[0.2, 0.4]])
    assert summary.mean == pytest.approx(0.3)
    assert np.isnan(summary.sd)
    assert summary.ci_low == pytest.approx(0.3) and summary.ci_high == pytest.approx(0.3)


def test_an_empty_run_is_rejected():
    with pytest.raises(ValueError, match="at least one value"):
        summarise_runs([[0.2], []])
