"""The judge's prompt and the reading of its verdict. Pure: no Django.

A judge model is shown the question, its options lettered as the answering model saw
them, and the answer, and asked for one letter, `R` for a refusal, or `unresolved`. Its
verdict is read by the same never-guessing encoder as the models' answers; only a bare
`R` is a refusal (a judge that itself declines to judge has not said the answer refused).
"""

from __future__ import annotations

import re

from . import auto_encoder

JUDGE_SYSTEM_PROMPT = (
    "You code answers that a language model gave to a multiple-choice question. Read the answer and say "
    "which option it chose. Reply with a single letter: the letter of the chosen option as shown, or R if "
    "the answer refuses to choose any option. If the answer chooses several options, hedges, or you cannot "
    "tell, reply with the single word unresolved. Do not explain."
)


def judge_messages(question: str, options: list[tuple[str, str]], answer: str) -> list[dict[str, str]]:
    """`options`: (letter, text) pairs in the order the answering model saw them."""
    lettered = "\n".join(f"{letter}: {text.strip()}" for letter, text in options)
    letters = ", ".join(letter for letter, _ in options)
    user = (f"Question:\n{question.strip()}\n\nOptions:\n{lettered}\n\n"
            f"The model's answer:\n<<<\n{answer.strip()}\n>>>\n\n"
            f"Which option did the answer choose? Reply with one of {letters}, R (refusal) or unresolved.")
    return [{"role": "system", "content": JUDGE_SYSTEM_PROMPT}, {"role": "user", "content": user}]


_BARE_REFUSAL = re.compile(r"[\s\"'`*_.(\[]*R[\s\"'`*_.)\]]*")


def read_verdict(output: str | None, option_texts: list[str]) -> auto_encoder.Encoding:
    """The judge's reading: a presented letter, `R`, or unresolved (code None)."""
    if output and _BARE_REFUSAL.fullmatch(output):
        return auto_encoder.Encoding("R", "judge-refusal", 0.0, "The judge says the answer refuses.")
    encoding = auto_encoder.encode(output, option_texts)
    if encoding.code == "R":
        return auto_encoder.Encoding(None, "judge-declined", 0.0, "The judge declined to judge.")
    if encoding.code is None:
        return auto_encoder.Encoding(None, encoding.rule, 0.0, "The judge could not tell.")
    return encoding
