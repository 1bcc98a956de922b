"""Reading a choice from a model's log-probabilities. Pure: no Django, no LiteLLM.

The first generated token's top log-probabilities are mapped to option letters
(`A`, ` A`, `A.` all count for A; several tokens for one letter are summed in
probability space), and the letter with the highest probability is chosen.
"""

from __future__ import annotations

import math
import re

_LETTER_TOKEN = re.compile(r"^\s*\(?([A-Z])[\).:]?\s*$")


def letter_of_token(token: str) -> str | None:
    match = _LETTER_TOKEN.match(token)
    return match.group(1) if match else None


def option_logprobs(top_logprobs: list[tuple[str, float]], letters: list[str]) -> dict[str, float | None]:
    """{letter: log-probability} over the option letters; None where no token was seen."""
    mass: dict[str, float] = {}
    for token, logprob in top_logprobs:
        letter = letter_of_token(token)
        if letter in letters:
            mass[letter] = mass.get(letter, 0.0) + math.exp(logprob)
    return {letter: (math.log(mass[letter]) if letter in mass else None) for letter in letters}


def chosen_letter(logprobs: dict[str, float | None]) -> str | None:
    """The letter with the highest log-probability; None when no letter was seen.
    Ties go to the earlier letter, so the choice is deterministic."""
    seen = [(value, -index, letter) for index, (letter, value) in enumerate(logprobs.items()) if value is not None]
    return max(seen)[2] if seen else None


def letter_grammar(letters: list[str]) -> str:
    """A GBNF grammar that allows exactly one of the option letters (llama.cpp)."""
    return "root ::= " + " | ".join(f'"{letter}"' for letter in letters)
