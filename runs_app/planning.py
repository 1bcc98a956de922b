"""What a run asks, decided before any call: the seeded sample of questions, the option
order of each unit, and the cache key. Pure: no Django, no LiteLLM."""

from __future__ import annotations

import hashlib
import json
import random


def sample_ids(ids: list[int], size: int | None, seed: int) -> list[int]:
    """A seeded sample of `size` ids (all when size is None or larger), in id order.
    The same ids, size and seed always give the same sample."""
    ordered = sorted(ids)
    if size is None or size >= len(ordered):
        return ordered
    return sorted(random.Random(seed).sample(ordered, size))


def option_order(count: int, permute: bool, seed: int, unit_key: str) -> list[int]:
    """The canonical option indexes in lettered order for one unit of work.

    Without permutation the canonical order; with it a shuffle seeded by the run's seed
    and the unit, so that a resumed or repeated run letters each unit the same way.
    """
    order = list(range(count))
    if permute:
        digest = hashlib.sha256(f"{seed}:{unit_key}".encode()).digest()
        random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return order


def cache_key(model: str, api_base: str | None, mode: str, params: dict, messages: list[dict],
              letters: list[str]) -> str:
    """Hash of exactly what changes the output: the model, where it is served, the answer
    mode and parameters, the messages and the option letters."""
    payload = {"model": model, "api_base": api_base or "", "mode": mode, "params": params,
               "messages": messages, "letters": letters}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
