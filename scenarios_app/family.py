"""CFPD as a benchmark family: how the engine asks its questions (appendix A.4's prompt,
a condition's or a run's system prompt instead of A.4's when given) and how a run's
selection narrows them (domains, qualified actors). Registered in ScenariosAppConfig.ready()."""

from __future__ import annotations

from benchmarks_app.families import Family, plain_messages

from .prompting import SYSTEM_PROMPT, chat_messages


def render(question, order, condition, system_prompt: str = "") -> list[dict[str, str]]:
    """A run's system prompt wins over the condition's, which wins over A.4's."""
    chosen = system_prompt or (condition.system_prompt if condition is not None else "") or SYSTEM_PROMPT
    options = question.option_texts()
    if not options:
        return plain_messages(question.text, system_prompt or (condition.system_prompt if condition else ""))
    return chat_messages(question.text, options, order, chosen)


def filter_questions(queryset, selection):
    if selection.domains:
        queryset = queryset.filter(cfpd__domain__slug__in=selection.domains)
    if selection.qualified_actors:
        queryset = queryset.filter(cfpd__qualified_actor__code__in=selection.qualified_actors)
    return queryset


def check_selection(selection) -> dict[str, list[str]]:
    from .models import Actor, Domain

    errors = {}
    known = set(Domain.objects.filter(slug__in=selection.domains).values_list("slug", flat=True))
    if set(selection.domains) - known:
        errors["domains"] = [f"unknown domain(s): {', '.join(sorted(set(selection.domains) - known))}"]
    known = set(Actor.objects.filter(code__in=selection.qualified_actors).values_list("code", flat=True))
    unknown = [a for a in selection.qualified_actors if a not in known]
    if unknown:
        errors["qualified_actors"] = [f"unknown actor code(s): {', '.join(a[:20] for a in unknown[:20])}"]
    return errors


def mark_asked(question_ids) -> None:
    """Scenario versions a run asks are frozen: edits from now on make a new version."""
    from . import services
    from .models import Scenario

    services.freeze(Scenario.objects.filter(cfpd_questions__question_id__in=list(question_ids)).distinct())


def summary(benchmark) -> str:
    from django.template.loader import render_to_string

    from . import services

    return render_to_string("scenarios_app/benchmark_summary.html", {"table": services.stats_table(benchmark)})


CFPD = Family(name="cfpd", render=render, filter_questions=filter_questions, check_selection=check_selection,
              mark_asked=mark_asked, summary=summary)
