"""The BERTScore scorer with the real bundled encoder (all-MiniLM-L6-v2, offline)."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402


from crisis_app.bertscore_scorer import (  # noqa: E402
    BertScoreScorer,
    EncoderNotAvailable,
    baseline_texts,
    bundled_minilm_path,
    published_baseline_f1,
)
from crisis_app.inconsistency import group_inconsistency, pair_inconsistencies  # noqa: E402
from crisis_app.validation import validate_items  # noqa: E402
from crisis_app.validation_data import VALIDATION_ITEMS  # noqa: E402

ANSWERS = [
    "Deploy two destroyers to the strait and open a hotline to the adversary.",
    "Impose sanctions on the officials responsible for the blockade.",
    "Evacuate our citizens from the capital within two days.",
]


@pytest.fixture(scope="module")
def scorer():
    return BertScoreScorer.from_preset("minilm")


def test_identical_answers_score_zero_inconsistency(scorer):
    assert group_inconsistency([ANSWERS[0]] * 4, scorer) == pytest.approx(0.0, abs=1e-5)


def test_different_answers_are_inconsistent_but_not_unrelated_text(scorer):
    values = pair_inconsistencies(ANSWERS, scorer)
    assert all(0.3 < v <= 1.0 for v in values)


@pytest.mark.parametrize("cand, ref", [(ANSWERS[0], ANSWERS[1]), (ANSWERS[2], ANSWERS[0])])
def test_a_pair_scores_as_bert_score_itself_does(scorer, cand, ref):
    import bert_score

    # One pair per call: bert_score then pads nothing, and its greedy matching is exact.
    expected = bert_score.score(
        [cand], [ref], model_type=str(bundled_minilm_path()), num_layers=scorer.num_layers
    )
    precision, recall, f1 = scorer.raw_scores([cand, ref], [(0, 1)])
    assert precision[0] == pytest.approx(float(expected[0][0]), abs=1e-5)
    assert recall[0] == pytest.approx(float(expected[1][0]), abs=1e-5)
    assert f1[0] == pytest.approx(float(expected[2][0]), abs=1e-5)


def test_a_pair_scores_the_same_alone_or_within_a_group(scorer):
    alone = scorer.raw_f1([ANSWERS[0], ANSWERS[2]], [(0, 1)])[0]
    group = scorer.raw_f1(ANSWERS + [ANSWERS[0]], [(0, 1), (0, 2), (3, 2)])
    assert group[1] == pytest.approx(alone, abs=1e-5)
    assert group[2] == pytest.approx(alone, abs=1e-5)


def test_each_distinct_text_is_encoded_once(scorer, monkeypatch):
    encoded = []
    original = scorer.embed

    def counting_embed(texts):
        encoded.extend(texts)
        return original(texts)

    monkeypatch.setattr(scorer, "embed", counting_embed)
    group_inconsistency(ANSWERS + ANSWERS, scorer)
    assert sorted(encoded) == sorted(ANSWERS)


def test_an_empty_answer_scores_full_inconsistency(scorer):
    assert pair_inconsistencies([ANSWERS[0], "  "], scorer).tolist() == [1.0]


def test_the_config_records_encoder_layer_and_computed_baseline(scorer):
    config = scorer.config()
    assert config["model_name"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert config["num_layers"] == 4
    assert config["idf"] is False
    assert 0.0 < config["baseline_f1"] < 1.0
    assert config["baseline_source"].startswith("computed: mean F1 over all 780 pairs of 40")
    assert config["bert_score_version"] == "0.3.13"
    assert config["baseline_f1"] == pytest.approx(scorer.mean_raw_f1(baseline_texts()))


def test_unrelated_texts_score_near_full_inconsistency(scorer):
    # The baseline is their mean F1, so their mean rescaled F1 is 0 by construction.
    texts = baseline_texts()[:10]
    assert group_inconsistency(texts, scorer) == pytest.approx(1.0, abs=0.1)


def test_the_paper_preset_names_what_is_missing(tmp_path, monkeypatch):
    # As on a machine whose Hugging Face cache has no copy of the paper's encoder.
    monkeypatch.setattr("crisis_app.bertscore_scorer._local_snapshot", lambda name: None)
    with pytest.raises(EncoderNotAvailable, match="microsoft/deberta-xlarge-mnli.*layer 40.*model_path"):
        BertScoreScorer.from_preset("paper")
    with pytest.raises(EncoderNotAvailable, match="no config.json"):
        BertScoreScorer.from_preset("paper", model_path=tmp_path)


def test_the_paper_baseline_is_bert_scores_published_one():
    baseline, source = published_baseline_f1("microsoft/deberta-xlarge-mnli", 40)
    assert baseline == pytest.approx(0.5150192)  # column F, row LAYER=40 of the tsv
    assert "deberta-xlarge-mnli.tsv, layer 40" in source


def test_an_unknown_preset_lists_the_choices():
    with pytest.raises(ValueError, match="minilm"):
        BertScoreScorer.from_preset("gpt")


@pytest.fixture(scope="module")
def validation(scorer):
    return validate_items(VALIDATION_ITEMS, scorer)


def test_a_semantic_shift_is_the_most_inconsistent_ablation(validation):
    means = validation.class_means
    assert means["semantic"] > max(means["lexical"], means["syntactic"], means["irrelevance"])


def test_the_ablation_classes_come_in_the_papers_order(validation):
    # validation_data follows the paper's section-4 construction (two words per sentence
    # for a synonym, clauses moved with the same words, one irrelevant sentence appended,
    # the opposite decision in the same frames). Measured with all-MiniLM-L6-v2 layer 4,
    # no idf: lexical 0.093 < syntactic 0.094 < irrelevance 0.132 < semantic 0.271. The
    # first gap is a tie within 8 items; the other two are wide.
    means = validation.class_means
    assert validation.order_holds, means
    assert list(validation.measured_order()) == ["lexical", "syntactic", "irrelevance", "semantic"]


def test_a_semantic_shift_outscores_every_other_ablation_of_its_own_reference(validation):
    per_item = validation.per_item
    for k, semantic in enumerate(per_item["semantic"]):
        assert semantic > max(per_item[name][k] for name in ("lexical", "syntactic", "irrelevance")), k + 1


def test_the_bfloat16_preset_scores_within_a_hundredth_of_float32_and_records_its_precision(scorer):
    import numpy as np
    import torch

    from crisis_app.inconsistency import pair_indices

    half = BertScoreScorer.from_preset("minilm-bf16")
    assert next(half.model.parameters()).dtype == torch.bfloat16
    assert (half.config()["precision"], scorer.config()["precision"]) == ("bfloat16", "float32")
    assert half.config()["num_layers"] == scorer.config()["num_layers"] == 4
    texts = ANSWERS + ["Deploy two destroyers to the strait and keep a hotline open to the adversary."]
    pairs = pair_indices(len(texts))
    # Measured: the six pairs' rescaled F1 differ by at most 0.0012, the baselines by 6e-5.
    assert np.abs(half(texts, pairs) - scorer(texts, pairs)).max() < 0.01
    assert half.baseline_f1 == pytest.approx(scorer.baseline_f1, abs=1e-3)
    assert group_inconsistency([ANSWERS[0]] * 3, half) == pytest.approx(0.0, abs=1e-5)


def test_an_unknown_precision_is_refused():
    with pytest.raises(ValueError, match="unknown precision 'float16'"):
        BertScoreScorer(precision="float16")
