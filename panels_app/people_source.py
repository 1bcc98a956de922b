"""This room's answers as `analysis_app.people` reads them (registered in `apps.py`): the
panels with the answers of their respondents who failed no attention check. A reference
imported as shares names no respondent and has no answer rows, so it is not among them
(its shares enter the alignment only: `results.panel_answers`)."""

from __future__ import annotations

from django.db.models import Count, Max, Q, Sum

from urllib.parse import urlencode

from django.urls import reverse

from analysis_app.people import ClosePanel, PeopleGroup, PersonAnswer
from runs_app.models import Response

from .models import Panel, PanelAnswer, Respondent
from .results import RESULTS_PERMISSION, alignment_rows

PREFIX = "panel:"


def _key(panel_id: int) -> str:
    return f"{PREFIX}{panel_id}"


def _ids(keys) -> list[int]:
    return [int(key[len(PREFIX):]) for key in keys if key.startswith(PREFIX) and key[len(PREFIX):].isdigit()]


class PanelsSource:
    results_permission = RESULTS_PERMISSION

    def closest(self, model_names) -> list[ClosePanel]:
        """Each panel's overall similarity to each of these model rows (`results.alignment_rows`),
        over the benchmarks where both answered."""
        names = list(model_names)
        benchmarks = {p.benchmark for p in Panel.objects.select_related("benchmark")}
        answered = set(Response.objects.filter(model__name__in=names, question__benchmark__in=benchmarks,
                                               status=Response.Status.DONE).exclude(code="")
                       .values_list("question__benchmark_id", flat=True).distinct().order_by())
        groups = {g.name: g for g in self.groups([b.pk for b in benchmarks if b.pk in answered])}
        found = []
        for benchmark in sorted((b for b in benchmarks if b.pk in answered), key=lambda b: b.name):
            for name in names:
                for row in alignment_rows(benchmark, model=name):
                    group = groups.get(row.panel)
                    if row.domain or row.choice_count is not None or row.similarity is None or group is None:
                        continue
                    found.append(ClosePanel(group, benchmark.name, name, row.similarity, row.ci_low, row.ci_high,
                                            row.n_questions, reverse("panels_app:models-and-people") + "?" + urlencode({"benchmark": benchmark.name})))
        return found

    def groups(self, benchmark_ids=None) -> list[PeopleGroup]:
        panels = Panel.objects.all()
        if benchmark_ids is not None:
            panels = panels.filter(benchmark_id__in=benchmark_ids)
        panels = panels.annotate(
            kept=Count("respondents", distinct=True,
                       filter=Q(respondents__failed_checks=0, respondents__answers__question__isnull=False,
                                respondents__answers__answered_at__isnull=False)),
            dropped=Count("respondents", distinct=True, filter=Q(respondents__failed_checks__gt=0)))
        return [PeopleGroup(_key(p.pk), p.name, p.stands_for, p.benchmark_id, p.kept, p.dropped)
                for p in panels.order_by("name") if p.kept]

    def answers(self, question_ids=None, groups=None) -> list[PersonAnswer]:
        rows = PanelAnswer.objects.filter(question__isnull=False, answered_at__isnull=False,
                                          respondent__failed_checks=0).exclude(code="")
        if question_ids is not None:
            rows = rows.filter(question_id__in=question_ids)
        if groups is not None:
            rows = rows.filter(respondent__panel_id__in=_ids(groups))
        return [PersonAnswer(_key(panel), respondent, question, code) for panel, respondent, question, code in
                rows.order_by("respondent_id", "position").values_list("respondent__panel_id", "respondent_id",
                                                                        "question_id", "code")]

    def version(self) -> tuple:
        answered = PanelAnswer.objects.filter(answered_at__isnull=False).aggregate(n=Count("id"),
                                                                                   last=Max("answered_at"))
        people = Respondent.objects.aggregate(n=Count("id"), failed=Sum("failed_checks"))
        return ("panels", answered["n"], str(answered["last"]), people["n"], people["failed"] or 0,
                Panel.objects.aggregate(last=Max("id"))["last"])


SOURCE = PanelsSource()
