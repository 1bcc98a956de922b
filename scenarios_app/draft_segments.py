"""A bundled model's draft, sentence by sentence (issue 41). Pure: no Django.

The bundled models are small (Gemma 3 270M is a base model: it follows no instruction, it
continues text). Asked for a whole template at once, Gemma 3 drifts after a sentence and
drops slots; asked sentence by sentence after a few worked examples (a few-shot prompt,
as translation memories seed a tool), it writes the target language and mostly keeps the
slots. So a bundled model's draft is asked per sentence (`split_sentences`), each after
the same head (`head`: the instruction and the examples of the language pair from
`data/draft_examples.csv`, written for this product), and the sentences joined in the
target language's way (`join_sentences`: no space between Chinese or Japanese sentences).
A sentence that loses or adds a slot is asked again, sampled (`drafting`); the whole
draft then meets the same slot check as any translation. A provider's model is asked for
the whole field at once (`drafting.PROMPT`): it has the context a sentence lacks.
"""

from __future__ import annotations

import csv
import functools
import re
from pathlib import Path

from benchmarks_app.language_codes import SOURCE_LANGUAGE

from .slots import check_field

EXAMPLES = Path(__file__).resolve().parent / "data" / "draft_examples.csv"
STOP = ["\n\n", "\nText:"]  # a base model goes on with its next example: the reply ends there
# A sentence ends at . ? ! (then space and a capital, a bracket or a quote), or at a
# full-width 。？！ (Chinese, Japanese: no space follows), or at the Arabic question mark.
_SENTENCE_END = re.compile(r"(?<=[.?!؟])\s+(?=[\[\"“'A-Z\u0600-\u06FF\u0400-\u042F])|(?<=[。？！])\s*")
_NO_SPACE_LANGUAGES = ("zh", "ja")


def split_sentences(text: str) -> list[str]:
    """`text`'s sentences, each stripped; a text of one sentence is itself.
    E.g. "[Actor A] moved. How should [Actor B] respond?" → two; "甲。乙？" → ["甲。", "乙？"]."""
    parts = [part.strip() for part in _SENTENCE_END.split(text or "")]
    return [part for part in parts if part]


def join_sentences(parts: list[str], language: str) -> str:
    """The sentences as one text of `language`: no space between Chinese or Japanese
    sentences, one space elsewhere."""
    glue = "" if language.split("-")[0].lower() in _NO_SPACE_LANGUAGES else " "
    return glue.join(part.strip() for part in parts if part.strip())


@functools.cache
def load_examples(path: Path = EXAMPLES) -> dict[str, list[tuple[str, str]]]:
    """language → [(English sentence, its translation)], in the file's order (read once a
    process; callers copy what they change: `examples_for` returns new lists)."""
    table: dict[str, list[tuple[str, str]]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            table.setdefault(row["language"], []).append((row["source"], row["text"]))
    return table


def examples_for(source: str, target: str, table: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """Worked examples from `source` into `target`: the file's pairs for English into a
    language, the same pairs turned round for a back-translation into English; none for
    another pair (the instruction alone)."""
    if source == SOURCE_LANGUAGE:
        return list(table.get(target, table.get(target.split("-")[0], [])))
    if target == SOURCE_LANGUAGE:
        return [(text, english) for english, text in table.get(source, table.get(source.split("-")[0], []))]
    return []


def head(source_name: str, source: str, target_name: str, target: str, examples: list[tuple[str, str]]) -> str:
    """The prompt's shared head: the instruction, then each example as a text and its answer."""
    lines = [f"Translate each text from {source_name} ({source}) into {target_name} ({target}). Keep every "
             "bracketed placeholder such as [Actor A] and [Actor B] exactly as written, untranslated, as often as "
             "it appears. Reply with the translation only, no notes."]
    lines += [f"{segment_prompt(a)} {b}" for a, b in examples]
    return "\n\n".join(lines)


def segment_prompt(sentence: str) -> str:
    """One sentence to translate, in the examples' shape (the reply follows `Answer:`)."""
    return f"Text: {sentence}\nAnswer:"


def keeps_slots(source: str, text: str, language: str) -> bool:
    """Whether `text` has `source`'s slots, as often (the slot check of one field)."""
    return not check_field("sentence", source, text, language)
