"""The reviewers' filters (run, model, and the families' own, such as CFPD's domain),
shared by the queue, the reports and the audit. A family's filter comes from its
registration (`Family.coding_filters`): the query parameter, its choices, and the
questions a value picks."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks_app import families
from benchmarks_app.models import Question


@dataclass(frozen=True)
class Filters:
    run: int | None = None
    model: int | None = None
    family: tuple[tuple[str, str], ...] = ()  # (a family filter's query parameter, its value)

    def apply(self, queryset, to_response: str = "response__"):
        """Narrow a queryset of review tasks (or, with `to_response=""`, of responses)."""
        if self.run:
            queryset = queryset.filter(**{f"{to_response}run_id": self.run})
        if self.model:
            queryset = queryset.filter(**{f"{to_response}model_id": self.model})
        offered = {f.name: f for f in families.coding_filters()} if self.family else {}
        for name, value in self.family:
            if name in offered and value:
                questions = offered[name].questions(Question.objects.all(), value)
                queryset = queryset.filter(**{f"{to_response}question__in": questions.values("pk")})
        return queryset
