"""A variant's conversation as models are asked it, for authors to read before a run:
the role as the system turn, move 1's user turn, then for each continuation a stand-in
for the model's move-1 answer and move 2's user turn. Pure: plain values in and out; a
variant that cannot be rendered yields its errors instead of turns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import authoring

MOVE1_ANSWER = "[the model's move-1 answer]"


@dataclass(frozen=True)
class Turn:
    role: str  # system | user | assistant
    content: str
    label: str  # what the turn is, e.g. "Move 2 (status_quo)"


@dataclass
class VariantPreview:
    name: str
    turns: list[Turn] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def variant_preview(name: str, texts: dict[str, str], continuations: list[str], replacements, overrides,
                    answer_kind: str = "free", ranked_options: list[str] | None = None) -> VariantPreview:
    """System and move-1 turns, then per continuation (in the given order) the stand-in
    answer and move 2's user turn: each move 2 follows the same move-1 answer."""
    preview = VariantPreview(name)
    problems = authoring.variant_errors(texts, replacements, overrides, answer_kind, ranked_options)
    if problems:
        preview.errors = [f"{field_name}: {message}" for field_name, messages in problems.items()
                          for message in messages]
        return preview
    rendered = authoring.variant_texts(texts, replacements, overrides)
    options = ranked_options if answer_kind == "ranked" else None
    preview.turns = [Turn("system", rendered["role"], "System: the decision-maker's role"),
                     Turn("user", authoring.move1_user(rendered, options), "Move 1")]
    for continuation in continuations:
        preview.turns += [Turn("assistant", MOVE1_ANSWER, f"Assistant (before move 2, {continuation})"),
                          Turn("user", authoring.move2_user(rendered, continuation, options),
                               f"Move 2: {continuation}")]
    return preview
