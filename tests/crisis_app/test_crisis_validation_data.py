"""The bundled validation items follow the paper's construction of each ablation class
(section 4; the rules are in `crisis_app.validation_data`'s docstring): what can be
checked mechanically is checked here, for every item."""

import re
from collections import Counter

import pytest

from crisis_app.validation_data import ABLATION_CLASSES, VALIDATION_ITEMS

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(text):
    return SENTENCE_END.split(text.strip())


def words(text):
    """Lower-case words without punctuation ("adversary's" and "forty-eight" stay one word)."""
    return re.findall(r"[a-z0-9]+(?:['-][a-z0-9]+)*", text.lower())


ITEMS = list(enumerate(VALIDATION_ITEMS, start=1))


def test_every_item_has_a_reference_and_one_ablation_per_class():
    for item in VALIDATION_ITEMS:
        assert set(item) == {"reference", *ABLATION_CLASSES}


def test_the_references_span_the_papers_four_answer_lengths_two_each():
    # The paper's answers: one sentence, a couple, a few, a paragraph (1, 2, 3, 5 sentences).
    counts = Counter(len(sentences(item["reference"])) for item in VALIDATION_ITEMS)
    assert counts == {1: 2, 2: 2, 3: 2, 5: 2}


@pytest.mark.parametrize("number, item", ITEMS)
def test_a_lexical_substitution_replaces_exactly_two_words_per_sentence(number, item):
    reference, ablated = sentences(item["reference"]), sentences(item["lexical"])
    assert len(ablated) == len(reference)
    for original, changed in zip(reference, ablated):
        # One word for one word: the same punctuation and positions, two words differ.
        assert re.sub(r"[\w'-]+", "w", original) == re.sub(r"[\w'-]+", "w", changed)
        assert sum(a != b for a, b in zip(words(original), words(changed))) == 2, changed


@pytest.mark.parametrize("number, item", ITEMS)
def test_a_syntactic_restructuring_reorders_the_same_words(number, item):
    assert Counter(words(item["syntactic"])) == Counter(words(item["reference"]))
    assert len(sentences(item["syntactic"])) == len(sentences(item["reference"]))
    # Every sentence is affected: none is kept word for word in its place.
    for original, moved in zip(sentences(item["reference"]), sentences(item["syntactic"])):
        assert words(original) != words(moved), moved


@pytest.mark.parametrize("number, item", ITEMS)
def test_an_irrelevance_adds_one_sentence_to_the_unchanged_reference(number, item):
    assert item["irrelevance"].startswith(item["reference"] + " ")
    added = item["irrelevance"][len(item["reference"]):].strip()
    assert len(sentences(added)) == 1
    assert 12 <= len(words(added)) <= 17


@pytest.mark.parametrize("number, item", ITEMS)
def test_a_semantic_shift_keeps_the_number_of_sentences(number, item):
    assert len(sentences(item["semantic"])) == len(sentences(item["reference"]))
    assert item["semantic"] != item["reference"]
