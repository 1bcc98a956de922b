"""Presented letters and canonical codes, and the reproducible pick of answers for
double coding and audits. Pure: no Django.

A model (and a reviewer reading its answer) sees options lettered in the order they
were presented, which differs from the author's order when a run permutes options.
Codes are stored canonical: `A` is always the author's first option. `R` (refusal) is
the same either way.
"""

from __future__ import annotations

import hashlib

from benchmarks_app.lettering import LETTERS
REFUSAL = "R"


def canonical_code(presented: str, option_order: list[int]) -> str:
    """The canonical code of a letter as presented: `option_order[i]` is the canonical
    index of the option shown as the i-th letter."""
    if presented == REFUSAL:
        return REFUSAL
    index = LETTERS.index(presented)
    if option_order:
        if index >= len(option_order):
            raise ValueError(f"letter {presented} is not one of the {len(option_order)} options shown")
        index = option_order[index]
    return LETTERS[index]


def presented_letter(code: str, option_order: list[int]) -> str:
    """The letter a canonical code was shown as (inverse of `canonical_code`)."""
    if code == REFUSAL:
        return REFUSAL
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
