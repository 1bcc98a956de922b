"""The back-translation's scores (issue 41): chrF exact on hand-computed cases (sacrebleu's
defaults), BERTScore on the bundled encoder ordering a faithful back-translation above a
drifted one, and the drift flag at its thresholds."""

import pytest

from analysis_app import translation_quality as quality


def test_chrf_of_a_tiny_case_by_hand():
    # sacrebleu's chrF: character n-grams of orders 1..6 (spaces removed), precision and
    # recall each averaged over the orders both texts have, then F with beta = 2.
    # Reference "abc", hypothesis "ab":
    #   order 1: hyp {a, b}, ref {a, b, c}, 2 matches: P = 2/2 = 1, R = 2/3
    #   order 2: hyp {ab}, ref {ab, bc}, 1 match:        P = 1/1 = 1, R = 1/2
    #   order 3+: the hypothesis has none: not counted.
    #   P = (1 + 1)/2 = 1, R = (2/3 + 1/2)/2 = 7/12
    #   F2 = (1 + 4)·P·R / (4·P + R) = 5·(7/12) / (4 + 7/12) = (35/12)/(55/12) = 7/11
    assert quality.chrf("abc", "ab") == pytest.approx(100 * 7 / 11)


def test_chrf_with_precision_equal_to_recall():
    # "abc" against "abd": order 1: 2 of 3 match (P = R = 2/3); order 2: ab of {ab, bd}
    # against {ab, bc}: P = R = 1/2; order 3: abd vs abc: P = R = 0. Averages P = R =
    # (2/3 + 1/2 + 0)/3 = 7/18, and F2 of P = R is P itself: 7/18.
    assert quality.chrf("abc", "abd") == pytest.approx(100 * 7 / 18)
    assert quality.chrf("Withdraw and reopen talks", "Withdraw and reopen talks") == pytest.approx(100)


def test_an_item_is_drifted_below_either_threshold():
    assert not quality.ItemScore(chrf=50.0, bertscore_f1=0.75).drifted()
    assert quality.ItemScore(chrf=49.99, bertscore_f1=0.99).drifted()
    assert quality.ItemScore(chrf=99.0, bertscore_f1=0.7499).drifted()
    assert quality.ItemScore(chrf=12.0, bertscore_f1=None).as_dict() == {"chrf": 12.0, "bertscore_f1": None,
                                                                         "drifted": True}


def test_bertscore_on_the_bundled_encoder_ranks_a_faithful_back_translation_higher():
    source = "Withdraw and reopen talks with [Actor B]"
    faithful, drifted = "Withdraw and reopen negotiations with [Actor B]", "Send flowers to the president of [Actor B]"
    same, close, far = quality.bertscore_f1([source] * 3, [source, faithful, drifted])
    assert same == pytest.approx(1.0, abs=1e-5)
    assert far < quality.BERTSCORE_THRESHOLD <= close < same
