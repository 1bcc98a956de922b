"""The reviewers' filters (run, model, domain), shared by the queue, the reports and the audit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Filters:
    run: int | None = None
    model: int | None = None
    domain: str | None = None  # domain slug

    def apply(self, queryset, to_response: str = "response__"):
        """Narrow a queryset of review tasks (or, with `to_response=""`, of responses)."""
        if self.run:
            queryset = queryset.filter(**{f"{to_response}run_id": self.run})
        if self.model:
            queryset = queryset.filter(**{f"{to_response}model_id": self.model})
        if self.domain:
            queryset = queryset.filter(**{f"{to_response}question__cfpd__domain__slug": self.domain})
        return queryset
