"""Rows chosen by a list of ids, written as the database reads them fastest.

An import, a batch of answers or a run's units are written in one statement each, so their
ids are usually one unbroken range: `pk BETWEEN lo AND hi` is then one comparison, where
`pk IN (…thousands of ids…)` costs Django a conversion per id and the database a list to
build (a fifth of the time of coding a large import went there: docs/performance.md).
Plain logic, no Django: `benchmarks_app.id_filter` turns it into a query."""

from __future__ import annotations

from collections.abc import Sequence


def unbroken_range(ids: Sequence[int]) -> tuple[int, int] | None:
    """(lowest, highest) when `ids` are every integer from one to the other, each once (in
    any order); None otherwise (an empty list included)."""
    if not ids:
        return None
    low, high = min(ids), max(ids)
    if high - low + 1 != len(ids) or len(set(ids)) != len(ids):
        return None
    return low, high
