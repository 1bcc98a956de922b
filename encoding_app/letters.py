"""Presented letters and canonical codes, and the reproducible pick of answers for
double coding and audits. Pure: no Django.

A model (and a reviewer reading its answer) sees options lettered in the order they
were presented, which differs from the author's order when a run permutes options.
Codes are stored canonical: `A` is always the author's first option. `R` (refusal) and
`X` (invalid) are the same either way.

`X`, invalid: an answer that chooses none of the options and is no refusal (it invents an
option of its own, or lists several without choosing). `I` would read better but is the
ninth option's letter, and every key the coding page uses is taken (A to J options, R
refusal, S skip, U undo, N note): X is free in every question, since a question has at
most ten options (A to J).
"""

from __future__ import annotations

import hashlib

from benchmarks_app.lettering import LETTERS
REFUSAL = "R"
INVALID = "X"
# Codes that are no option: the same letter presented and canonical.
NOT_OPTIONS = (REFUSAL, INVALID)


def canonical_code(presented: str, option_order: list[int]) -> str:
    """The canonical code of a letter as presented: `option_order[i]` is the canonical
    index of the option shown as the i-th letter."""
    if presented in NOT_OPTIONS:
        return presented
    index = LETTERS.index(presented)
    if option_order:
        if index >= len(option_order):
            raise ValueError(f"letter {presented} is not one of the {len(option_order)} options shown")
        index = option_order[index]
    return LETTERS[index]


def presented_letter(code: str, option_order: list[int]) -> str:
    """The letter a canonical code was shown as (inverse of `canonical_code`)."""
    if code in NOT_OPTIONS:
        return code
    index = LETTERS.index(code)
    if option_order:
        index = option_order.index(index)
    return LETTERS[index]


def picked(response_id: int, share: float, seed: int = 0, purpose: str = "") -> bool:
    """Whether this answer falls in a share (double coding, audit): a hash of the id, the
    seed and the purpose, so the pick is reproducible and independent between purposes."""
    if share <= 0:
        return False
    if share >= 1:
        return True
    digest = hashlib.sha256(f"{seed}:{purpose}:{response_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share
