"""Metamorphic and property-based tests of the automatic encoder (hypothesis).

Starting from every corpus answer the encoder codes with a letter X: markup around it keeps
X; a rejection of X before it, or a change of mind after it, never yields X. Answers that
name two letters as their choice are never coded, and no text makes the encoder raise or
return a letter past the options."""

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from encoding_app.auto_encoder import encode

from .encoder_corpus import CORPUS
from .test_auto_encoder import CASES

ANSWERS = [(c.answer, c.options) for c in CORPUS] + [(answer, options) for answer, options, _ in CASES]
CODED = [(answer, options, encode(answer, options).code) for answer, options in ANSWERS]
LETTER_CODED = [(answer, options, code) for answer, options, code in CODED if code not in (None, "R")]
RESOLVED = [(answer, options, code) for answer, options, code in CODED if code is not None]

WRAPPERS = [
    lambda t: f"**{t}**",
    lambda t: f"__{t}__",
    lambda t: f"```\n{t}\n```",
    lambda t: f"```text\n{t}\n```",
    lambda t: f"<p>{t}</p>",
    lambda t: f"<div>{t}</div>",
    lambda t: f"<b>{t}</b>",
    lambda t: f"<span class=\"answer\">{t}</span>",
    lambda t: f"  \n\n{t}\n\n  ",
    lambda t: f"\t{t} ",
    lambda t: t.replace(" ", "  "),
]
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _letters(options):
    return string.ascii_uppercase[: len(options)]


@SETTINGS
@given(st.sampled_from(RESOLVED), st.lists(st.sampled_from(WRAPPERS), min_size=1, max_size=3))
def test_markup_and_whitespace_around_a_coded_answer_keep_its_code(item, wrappers):
    answer, options, code = item
    for wrap in wrappers:
        answer = wrap(answer)
    assert encode(answer, options).code == code


def test_every_coded_corpus_answer_keeps_its_code_in_every_single_wrapper():
    for answer, options, code in RESOLVED:
        for wrap in WRAPPERS:
            assert encode(wrap(answer), options).code == code, (wrap(answer), code)


@SETTINGS
@given(st.sampled_from(LETTER_CODED), st.sampled_from(["I would not choose {x}. ", "I would not choose {x}.\n\n",
                                                        "I would never pick option {x}. ", "Not {x}. "]))
def test_rejecting_the_letter_first_never_yields_it(item, prefix):
    answer, options, code = item
    assert encode(prefix.format(x=code) + answer, options).code != code


def test_rejecting_the_letter_first_never_yields_it_for_any_corpus_answer():
    for answer, options, code in LETTER_CODED:
        assert encode(f"I would not choose {code}. " + answer, options).code != code, answer


@SETTINGS
@given(st.sampled_from(LETTER_CODED), st.data(), st.sampled_from([" Actually, {y}.", "\n\nActually, {y}.",
                                                                    " Wait, actually {y}.", "\nActually, {y}."]))
def test_a_change_of_mind_after_the_answer_never_yields_the_first_letter(item, data, suffix):
    answer, options, code = item
    other = data.draw(st.sampled_from([y for y in _letters(options) if y != code]))
    assert encode(answer + suffix.format(y=other), options).code != code


def test_a_change_of_mind_to_each_other_letter_never_yields_the_first_one():
    for answer, options, code in LETTER_CODED:
        for other in _letters(options).replace(code, ""):
            assert encode(answer + f" Actually, {other}.", options).code != code, (answer, other)


TWO_CHOICES = [
    "I choose {x}. I choose {y}.", "Answer: {x}\nAnswer: {y}", "{x}\n{y}", "I would choose {x} or {y}.",
    "{x}. Wait, on reflection, {y}.", "Final answer: {x}\n\nFinal answer: {y}", "Either {x} or {y}.",
    "My answer is {x}. Actually, {y}.", "**{x}**\n\n**{y}**", "I'd go with {x}/{y}.", "I recommend both {x} and {y}.",
    "I choose {x}. ... Final answer: {y}", "{x} or {y}, depending on the circumstances.", "Respuesta: {x}\nRespuesta: {y}",
    "Je choisis {x}. En fait, {y}.", "我选{x}。不对，应该选{y}。", "I'm torn between {x} and {y}.",
]


@SETTINGS
@given(st.integers(min_value=2, max_value=10), st.data(), st.sampled_from(TWO_CHOICES))
def test_an_answer_choosing_two_letters_is_never_coded(count, data, template):
    options = [f"Course of action number {i} for the government" for i in range(count)]
    letters = _letters(options)
    x = data.draw(st.sampled_from(letters))
    y = data.draw(st.sampled_from(letters.replace(x, "")))
    assert encode(template.format(x=x, y=y), options).code is None


WORDS = ["I", "A", "B", "C", "J", "choose", "would", "not", "never", "answer", "Answer:", "Final", "final answer:",
         "or", "and", "actually", "wait", "option", "Option", "cannot", "as an AI", "but", "is the best choice", ".",
         ",", "\n", "**", "```", "<p>", "</p>", "—", "选择", "答案：", "не", "вариант", "الخيار", "لا", "Respuesta:",
         "je choisis", "l'option", "nicht", "Ich würde", "wählen", "?", "(", ")", ":"]


@SETTINGS
@given(st.one_of(st.text(), st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join), st.none()),
       st.integers(min_value=0, max_value=12))
def test_it_never_raises_and_never_returns_a_letter_past_the_options(answer, count):
    options = [f"Option wording number {i}" for i in range(count)]
    encoding = encode(answer, options)
    assert encoding.code in set(_letters(options)) | {"R", None}
    assert (encoding.code is None) == (encoding.confidence == 0.0)
