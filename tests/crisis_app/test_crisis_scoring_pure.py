"""Pure pieces of scoring groups (crisis_app.group_scoring): several groups in one scorer
call, Kendall-τ groups, and the comparison of scorer configurations."""

import pytest

from crisis_app.group_scoring import config_differences, score_ranking_group, score_text_groups

# Rescaled F1 of each unordered pair of fake answers; a text with itself scores 1.
RESCALED = {
    frozenset({"alpha", "beta"}): 0.5,
    frozenset({"alpha", "gamma"}): -0.25,  # below unrelated text: inconsistency 1.25, clipped to 1
    frozenset({"beta", "gamma"}): 1.2,  # above identical: inconsistency -0.2, clipped to 0
    frozenset({"alpha", "delta"}): 0.9,
}


class FakeScorer:
    def __init__(self):
        self.calls = []

    def __call__(self, texts, pairs):
        self.calls.append((list(texts), list(pairs)))
        return [1.0 if texts[i] == texts[j] else RESCALED[frozenset({texts[i], texts[j]})] for i, j in pairs]


def test_a_group_scores_the_mean_of_its_clipped_pairs():
    values = score_text_groups([["alpha", "beta", "gamma"]], FakeScorer())
    # pairs (0,1) 1 - 0.5 = 0.5; (0,2) 1 - (-0.25) = 1.25 -> 1; (1,2) 1 - 1.2 = -0.2 -> 0
    assert values[0].pair_values == pytest.approx([0.5, 1.0, 0.0])
    # (0.5 + 1 + 0) / 3 = 0.5
    assert values[0].mean == pytest.approx(0.5)


def test_groups_share_one_scorer_call_with_offset_pairs():
    scorer = FakeScorer()
    values = score_text_groups([["alpha", "beta", "gamma"], ["alpha", "alpha"], ["delta", "alpha"]], scorer)
    assert scorer.calls == [(
        ["alpha", "beta", "gamma", "alpha", "alpha", "delta", "alpha"],
        [(0, 1), (0, 2), (1, 2), (3, 4), (5, 6)],
    )]
    assert [v.mean for v in values] == pytest.approx([0.5, 0.0, 0.1])  # 1 - 1 = 0; 1 - 0.9 = 0.1
    assert values[2].pair_values == pytest.approx([0.1])


def test_groups_per_call_bounds_each_call_without_changing_values():
    groups = [["alpha", "beta", "gamma"], ["alpha", "alpha"], ["delta", "alpha"]]
    scorer = FakeScorer()
    one_by_one = score_text_groups(groups, scorer, groups_per_call=2)
    assert [len(texts) for texts, _ in scorer.calls] == [5, 2]
    assert scorer.calls[1][1] == [(0, 1)]
    assert one_by_one == score_text_groups(groups, FakeScorer())


def test_a_group_needs_two_samples():
    with pytest.raises(ValueError, match="group 1 has 1 sample"):
        score_text_groups([["alpha", "beta"], ["alpha"]], FakeScorer())


def test_a_scorer_returning_the_wrong_number_of_values_is_refused():
    with pytest.raises(ValueError, match="for 1 pairs"):
        score_text_groups([["alpha", "beta"]], lambda texts, pairs: [0.5, 0.5])


def test_a_ranking_group_scores_the_mean_kendall_distance():
    values = score_ranking_group([list("ABCD"), list("BACD"), list("DCBA")])
    # 4 items, 6 item pairs. ABCD vs BACD: (A,B) discordant -> 1/6. ABCD vs DCBA: all 6 -> 1.
    # BACD vs DCBA: (B,A) concordant, (B,C) (B,D) (A,C) (A,D) (C,D) discordant -> 5/6.
    assert values.pair_values == pytest.approx([1 / 6, 1.0, 5 / 6])
    assert values.mean == pytest.approx(2 / 3)  # (1/6 + 6/6 + 5/6) / 3 = (12/6) / 3


def test_a_ranking_group_needs_two_rankings():
    with pytest.raises(ValueError, match="at least 2 rankings"):
        score_ranking_group([list("AB")])


STORED = {"model_name": "m", "num_layers": 4, "idf": False, "baseline_f1": 0.8, "torch_version": "2.5"}


def test_configs_that_differ_in_versions_or_the_baselines_last_digits_score_alike():
    assert config_differences(STORED, dict(STORED, torch_version="2.6", baseline_f1=0.8 + 4e-7)) == []


def test_configs_that_differ_in_layer_or_baseline_are_named():
    assert config_differences(STORED, dict(STORED, num_layers=6, baseline_f1=0.81)) == [
        "num_layers: stored 4, now 6", "baseline_f1: stored 0.8, now 0.81"]
    assert config_differences({}, {"idf": True}, keys=["idf"]) == ["idf: stored None, now True"]


def test_a_config_stored_before_precision_was_recorded_is_float32():
    # STORED has no "precision": scorers stored then computed in float32.
    assert config_differences(STORED, dict(STORED, precision="float32")) == []
    assert config_differences(STORED, dict(STORED, precision="bfloat16")) == [
        "precision: stored 'float32', now 'bfloat16'"]
