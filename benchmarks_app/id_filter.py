"""`id_filter(ids)`: a Q choosing the rows whose primary key (or `field`) is one of `ids`, as
a range when they are an unbroken one (`benchmarks_app.id_sets`)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from .id_sets import unbroken_range


def id_filter(ids: Sequence[int], field: str = "pk") -> Q:
    span = unbroken_range(ids)
    if span is None:
        return Q(**{f"{field}__in": ids})
    return Q(**{f"{field}__gte": span[0], f"{field}__lte": span[1]})
