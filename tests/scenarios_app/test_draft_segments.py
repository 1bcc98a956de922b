"""A bundled model's draft, sentence by sentence (issue 41): the pure parts
(`scenarios_app.draft_segments`) and `drafting.translate`'s loop over the sentences, with
the model's replies scripted (the real Gemma 3's run: tests/gateway/test_bundled_models.py
and the demo)."""

import pytest
from hypothesis import given, strategies as st

from scenarios_app import draft_segments, drafting


def test_sentences_split_at_their_ends_in_each_script():
    assert draft_segments.split_sentences("[Actor A] moved. How should [Actor B] respond?") == [
        "[Actor A] moved.", "How should [Actor B] respond?"]
    # A full stop inside "U.S." followed by a small letter ends no sentence.
    assert draft_segments.split_sentences("The U.S. acted. [Actor B] waited.") == ["The U.S. acted.", "[Actor B] waited."]
    assert draft_segments.split_sentences("[Actor A]行动了。[Actor B]应如何回应？") == [
        "[Actor A]行动了。", "[Actor B]应如何回应？"]
    assert draft_segments.split_sentences("Comment réagir ? [Actor B] attend.") == ["Comment réagir ?", "[Actor B] attend."]
    assert draft_segments.split_sentences("Condemn the invasion") == ["Condemn the invasion"]
    assert draft_segments.split_sentences("") == []


@given(st.lists(st.sampled_from(["[Actor A] moved.", "How should [Actor B] respond?", "Talks stalled!"]),
                min_size=1, max_size=6))
def test_splitting_an_english_text_and_joining_it_gives_it_back(sentences):
    text = " ".join(sentences)
    assert draft_segments.join_sentences(draft_segments.split_sentences(text), "en") == text


def test_sentences_join_without_a_space_in_chinese_and_with_one_elsewhere():
    assert draft_segments.join_sentences(["甲。", "乙？"], "zh") == "甲。乙？"
    assert draft_segments.join_sentences(["甲。", "乙？"], "zh-Hant") == "甲。乙？"
    assert draft_segments.join_sentences(["Uno.", " Dos. "], "es") == "Uno. Dos."


def test_examples_go_both_ways_and_every_example_keeps_its_slots():
    table = draft_segments.load_examples()
    assert set(table) == {"zh", "ru", "ar", "es", "fr"}
    into = draft_segments.examples_for("en", "zh", table)
    back = draft_segments.examples_for("zh", "en", table)
    assert back == [(b, a) for a, b in into] and len(into) == 6
    assert draft_segments.examples_for("en", "zh-Hans", table) == into  # the base language's examples
    assert draft_segments.examples_for("zh", "ru", table) == [] and draft_segments.examples_for("en", "sw", table) == []
    for language, pairs in table.items():
        assert all(draft_segments.keeps_slots(source, text, language) for source, text in pairs), language


def test_the_head_is_the_instruction_then_each_example_as_asked():
    head = draft_segments.head("English", "en", "Chinese", "zh", [("Hi [Actor A].", "[Actor A]你好。")])
    assert head.startswith("Translate each text from English (en) into Chinese (zh). Keep every bracketed")
    assert head.endswith("\n\nText: Hi [Actor A].\nAnswer: [Actor A]你好。")
    assert draft_segments.segment_prompt("Go.") == "Text: Go.\nAnswer:"


class Scripted:
    """`ask_text` answering from a table: (sentence, seed) → reply; records each call."""

    def __init__(self, replies):
        self.replies, self.calls = replies, []

    def __call__(self, model, prompt, **kwargs):
        sentence = prompt.removeprefix("Text: ").removesuffix("\nAnswer:")
        self.calls.append((sentence, kwargs.get("seed"), kwargs.get("temperature"), kwargs.get("system"),
                           kwargs.get("stop")))
        return type("Result", (), {"text": " " + self.replies[(sentence, kwargs.get("seed"))] + " "})()


class Bundled:
    is_bundled = True
    name = "local-test"


def test_a_bundled_model_translates_sentence_by_sentence_and_asks_a_slot_losing_one_again(monkeypatch):
    first, second = "[Actor B] has a treaty with [Actor A].", "How should [Actor B] respond?"
    scripted = Scripted({
        (first, None): "[Actor B]有条约。",  # greedy loses [Actor A]
        (first, 1): "他们有条约。",  # the first sampled reply loses both
        (first, 2): "[Actor B]与[Actor A]有条约。",  # the second keeps both: kept, no third asked
        (second, None): "[Actor B]应如何回应？",
    })
    monkeypatch.setattr(drafting, "ask_text", scripted)
    text, prompt = drafting.translate(Bundled(), f"{first} {second}", "en", "zh")
    assert text == "[Actor B]与[Actor A]有条约。[Actor B]应如何回应？"
    assert [(s, seed) for s, seed, *_ in scripted.calls] == [(first, None), (first, 1), (first, 2), (second, None)]
    # Greedy first, then sampled at the retry temperature; every call after the same head,
    # ending at the next example's label.
    assert [t for _, _, t, *_ in scripted.calls] == [None, drafting.RETRY_TEMPERATURE, drafting.RETRY_TEMPERATURE, None]
    heads = {h for *_, h, _ in scripted.calls}
    assert len(heads) == 1 and "into Chinese (zh)" in heads.pop()
    assert all(stop == draft_segments.STOP for *_, stop in scripted.calls)
    # The recorded prompt: the head, then each sentence as asked.
    assert prompt.startswith("Translate each text from English (en) into Chinese (zh).")
    assert prompt.endswith(f"Text: {first}\nAnswer:\n\nText: {second}\nAnswer:")


def test_a_sentence_no_reply_of_which_keeps_its_slots_keeps_the_greedy_one(monkeypatch):
    sentence = "[Actor A] moved."
    replies = {(sentence, None): "他们行动了。"} | {(sentence, seed): f"行动{seed}。" for seed in range(1, 9)}
    scripted = Scripted(replies)
    monkeypatch.setattr(drafting, "ask_text", scripted)
    assert drafting.translate(Bundled(), sentence, "en", "zh")[0] == "他们行动了。"
    assert len(scripted.calls) == 1 + drafting.SENTENCE_RETRIES  # then the draft's slot check says where


def test_a_back_translation_asks_each_sentence_once(monkeypatch):
    scripted = Scripted({("[Actor B]有条约。", None): "[Actor B] has a treaty.", ("怎么办？", None): "What now?"})
    monkeypatch.setattr(drafting, "ask_text", scripted)
    text, _ = drafting.translate(Bundled(), "[Actor B]有条约。怎么办？", "zh", "en", guard_slots=False)
    assert text == "[Actor B] has a treaty. What now?" and len(scripted.calls) == 2
    assert "from Chinese (zh) into English (en)" in scripted.calls[0][3]


@pytest.mark.parametrize("language", ["zh", "ar"])
def test_a_providers_model_is_asked_for_the_whole_field_at_once(monkeypatch, language):
    scripted = Scripted({("One. Two.", None): "x"})
    monkeypatch.setattr(drafting, "ask_text", lambda model, prompt, **kwargs: scripted(
        model, "Text: One. Two.\nAnswer:", **kwargs))
    provider = type("Provider", (), {"is_bundled": False, "name": "gpt"})()
    text, prompt = drafting.translate(provider, "One. Two.", "en", language)
    assert text == "x" and len(scripted.calls) == 1 and scripted.calls[0][3] is None
    assert prompt == drafting.prompt_for("One. Two.", "en", language)
