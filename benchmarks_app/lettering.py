"""Option letters, shared by every family, the engine and coding. No Django here.

A question has 2 to 10 options, lettered A to J in the order they are shown. R is never
an option letter: it is the refusal code.
"""

from __future__ import annotations

LETTERS = "ABCDEFGHIJ"
MAX_OPTIONS = len(LETTERS)


def option_letters(count: int) -> list[str]:
    if count > MAX_OPTIONS:
        raise ValueError(f"{count} options: a question has at most {MAX_OPTIONS} (letters A to J)")
    return list(LETTERS[:count])
