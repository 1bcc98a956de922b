"""Which units travel in one message and are asked together. No Django here.

A batch holds units of one model only (they share its limits and timeout), at most
`batch_size(...)` of them. Units that must be asked one at a time go alone."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator

RANK_MODE = "rank"


def asked_alone(bundled: bool, answer_mode: str, budget_usd, budget_units) -> bool:
    """A unit asked one at a time: a bundled model's (computed in the worker process, not
    awaited), in rank mode (a completions call of its own), or of a run with a budget
    (what it spent is checked before each call)."""
    return bool(bundled) or answer_mode == RANK_MODE or budget_usd is not None or budget_units is not None


def batch_size(max_concurrency: int, largest: int) -> int:
    """Half the model's calls in flight, so that two workers share a model's units (one
    worker taking all of them in one batch would leave the other idle), at most `largest`
    and at least 1.  8 -> 4, 32 -> 16, 128 -> 64 with largest 64 (the default,
    `CFPD_BATCH_SIZE`: at concurrency 128, 64 rather than 32 took the worker CPU per answer
    from about 6.8 to 5.4 ms, see README *Performance*)."""
    return max(1, min(largest, (max_concurrency + 1) // 2))


def units_per_message(bundled: bool, answer_mode: str, budget_usd, budget_units, max_concurrency: int,
                      largest: int) -> int:
    """How many units of a model travel in one message: 1 for units asked alone."""
    if asked_alone(bundled, answer_mode, budget_usd, budget_units):
        return 1
    return batch_size(max_concurrency, largest)


def batches(units: Iterable[tuple[int, Hashable, int]]) -> list[list[int]]:
    """Units (id, group, size) in batches: each of one group, at most its size, in the
    order the units came (a group's first batch is sent where its first unit was)."""
    open_batches: dict[Hashable, list[int]] = {}
    order: list[list[int]] = []
    for unit_id, group, size in units:
        batch = open_batches.get(group)
        if batch is None or len(batch) >= size:
            batch = []
            open_batches[group] = batch
            order.append(batch)
        batch.append(unit_id)
    return order


def stream_batches(units: Iterable[tuple[int, Hashable, int]]) -> Iterator[list[int]]:
    """`batches` for a stream too long to hold (a paper-scale launch): each batch given as
    soon as it is full, the batches not full at the end last. The same units in the same
    batches as `batches` for any input; only the order of the batches differs."""
    open_batches: dict[Hashable, list[int]] = {}
    for unit_id, group, size in units:
        batch = open_batches.setdefault(group, [])
        batch.append(unit_id)
        if len(batch) >= size:
            yield batch
            del open_batches[group]
    yield from (batch for batch in open_batches.values() if batch)
