import re

import pytest

from crisis_app.rendering import (
    apply_replacements,
    move1_messages,
    move2_messages,
    rendered_texts,
    variant_replacements,
)
from crisis_app.sample_simulation import SAMPLE_SIMULATION as SIM

TEXT_NAMES = {
    "background",
    "role",
    "answer_format",
    "move1_incident",
    "move2_status_quo",
    "move2_revisionist",
}


def test_the_sample_has_every_part_of_a_two_move_simulation():
    assert set(SIM["texts"]) == TEXT_NAMES
    assert set(SIM["variants"]) == {"explicit", "anonymised"}
    levels = {name: a["level"] for name, a in SIM["ablations"].items()}
    assert levels == {
        "paraphrase": 1,
        "restructured": 1,
        "changed_setting": 2,
        "swapped_ally_adversary": 2,
    }


@pytest.mark.parametrize("variant", ["explicit", "anonymised"])
@pytest.mark.parametrize("ablation", [None, *SIM["ablations"]])
def test_every_text_renders_without_a_placeholder_left(variant, ablation):
    texts = rendered_texts(SIM, variant, ablation)
    assert set(texts) == TEXT_NAMES
    for text in texts.values():
        assert "{" not in text


def test_the_explicit_variant_names_real_countries_and_no_colours():
    texts = rendered_texts(SIM, "explicit")
    assert "President of Finland" in texts["role"]
    assert "Russia" in texts["move1_incident"] and "Estonia" in texts["move1_incident"]
    assert "Crimson" not in " ".join(texts.values())
    assert "The nations:" not in texts["background"]


def test_the_anonymised_variant_uses_colours_with_descriptions():
    texts = rendered_texts(SIM, "anonymised")
    joined = " ".join(texts.values())
    for country in ("Finland", "Russia", "Estonia"):
        assert country not in joined
    assert "President of Azure" in texts["role"]
    assert "- Crimson: a nuclear-armed power" in texts["background"]


def test_level_1_ablations_replace_the_background_and_incident_only():
    base = rendered_texts(SIM, "explicit")
    paraphrase = rendered_texts(SIM, "explicit", "paraphrase")
    assert paraphrase["background"] != base["background"]
    assert paraphrase["move1_incident"] != base["move1_incident"]
    for name in ("role", "answer_format", "move2_status_quo", "move2_revisionist"):
        assert paraphrase[name] == base[name]


def test_the_swap_exchanges_the_ally_and_the_adversary():
    replacements = variant_replacements(SIM, "anonymised", "swapped_ally_adversary")
    assert replacements["{ALLY}"] == "Crimson" and replacements["{ADVERSARY}"] == "Teal"
    incident = rendered_texts(SIM, "explicit", "swapped_ally_adversary")["move1_incident"]
    assert "registered in Estonia" in incident and "Russia has asked Finland" in incident
    # the variant's own map is left as it was
    assert SIM["variants"]["anonymised"]["{ALLY}"] == "Teal"


def test_move1_is_the_role_then_background_incident_and_format():
    messages = move1_messages(SIM, "explicit")
    texts = rendered_texts(SIM, "explicit")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == texts["role"]
    assert messages[1]["content"] == "\n\n".join(
        [texts["background"], texts["move1_incident"], texts["answer_format"]]
    )


@pytest.mark.parametrize("continuation", ["status_quo", "revisionist"])
def test_move2_carries_the_models_own_move1_answer(continuation):
    answer = "RECOMMENDATIONS: Shadow the ship.\nREASONING: Evidence."
    messages = move2_messages(SIM, "anonymised", continuation, answer)
    texts = rendered_texts(SIM, "anonymised")
    assert messages[:2] == move1_messages(SIM, "anonymised")
    assert messages[2] == {"role": "assistant", "content": answer}
    assert messages[3] == {
        "role": "user",
        "content": texts[f"move2_{continuation}"] + "\n\n" + texts["answer_format"],
    }


def test_the_continuations_differ_in_escalation():
    texts = rendered_texts(SIM, "explicit")
    assert "joint investigation" in texts["move2_status_quo"]
    assert "exclusion zone" in texts["move2_revisionist"]


def test_an_unfilled_placeholder_is_named():
    with pytest.raises(ValueError, match=r"\{ALLY\}"):
        apply_replacements("{PLAYER} calls {ALLY}", {"{PLAYER}": "Azure"})


def test_unknown_names_are_rejected_with_the_choices():
    with pytest.raises(ValueError, match="choose one of"):
        rendered_texts(SIM, "hidden")
    with pytest.raises(ValueError, match="choose one of"):
        rendered_texts(SIM, "explicit", "no-such-ablation")
    with pytest.raises(ValueError, match="choose one of"):
        move2_messages(SIM, "explicit", "escalation", "answer")


def _all_texts():
    yield from SIM["texts"].items()
    for name, ablation in SIM["ablations"].items():
        for text_name, text in ablation["text_overrides"].items():
            yield f"{name}/{text_name}", text


def test_no_nation_is_written_as_an_adjective():
    # Issue 38: "two {ADVERSARY} corvettes" read "two Russia corvettes". After an article
    # or a number, or joined by a hyphen, a placeholder is an adjective: "Russia-flagged".
    attributive = re.compile(r"\b(?:a|an|the|one|two|three)\s+\{[A-Z_]+\}\s+[a-z]|\{[A-Z_]+\}-[a-z]")
    assert [(name, m.group(0)) for name, text in _all_texts() for m in attributive.finditer(text)] == []
    incident = rendered_texts(SIM, "explicit")["move1_incident"]
    assert "escorted by two of Russia's corvettes" in incident and "Russia corvettes" not in incident
