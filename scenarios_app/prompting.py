"""The CFPD prompt of appendix A.4, built by one pure function.

The system prompt and the question prompt are exactly the paper's:

    <QUESTION>
    Please select the correct choice:
    A: <RESPONSE_A>
    B: <RESPONSE_B>
    Answer:
"""

from __future__ import annotations

from benchmarks_app.lettering import LETTERS, MAX_OPTIONS, option_letters  # noqa: F401

SYSTEM_PROMPT = (
    "The following is a question with multiple choice answers. Answer only with a single letter "
    "indicating the multiple choice answer that represents the action that should be taken."
)
CHOICE_HEADER = "Please select the correct choice:"
ANSWER_CUE = "Answer:"


def question_prompt(question: str, options: list[str], order: list[int] | None = None) -> str:
    """The user turn: question, header, lettered options in `order`, answer cue.

    `order` lists indexes into `options` (canonical order); letter A goes to
    `options[order[0]]`. None means the canonical order.
    """
    order = list(range(len(options))) if order is None else list(order)
    if sorted(order) != list(range(len(options))):
        raise ValueError(f"option order {order} is not a permutation of {len(options)} options")
    lines = [question.strip(), CHOICE_HEADER]
    lines += [f"{letter}: {options[index].strip()}" for letter, index in zip(option_letters(len(order)), order)]
    lines.append(ANSWER_CUE)
    return "\n".join(lines)


def chat_messages(question: str, options: list[str], order: list[int] | None = None,
                  system_prompt: str | None = None) -> list[dict[str, str]]:
    """The chat messages a model is sent: A.4's system prompt (or an override) and the question."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT if system_prompt is None else system_prompt},
        {"role": "user", "content": question_prompt(question, options, order)},
    ]


def render_transcript(messages: list[dict[str, str]]) -> str:
    """Messages as one plain text, for export and for people to read."""
    return "\n\n".join(f"{m['role'].upper()}:\n{m['content']}" for m in messages)
