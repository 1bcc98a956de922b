"""BorderLines as a benchmark family: how the engine asks its questions (the query as the
user turn, a prompt strategy's system prompt filled per question), rank classification's
prompt, the family's own reading of generated answers (a claimant named), and what the
console shows of a benchmark. Registered in TerritoriesAppConfig.ready()."""

from __future__ import annotations

from django.template.loader import render_to_string

from accounts.roles import ANALYSTS, AUTHORS, REVIEWERS
from benchmarks_app.families import BenchmarkStats, Dashboard, Family

from . import parsing, prompting, queries, services
from . import release as rel
from .models import FAMILY as NAME
from .models import BorderlinesTable


def countries_of(benchmark_id: int) -> dict[str, rel.Country]:
    return services.countries_of(benchmark_id)


def plain_question(question) -> queries.Question:
    detail = question.borderlines
    return queries.Question(key=question.key, territory=detail.territory.name, language=question.language,
                            text=question.text, choices=tuple(detail.choices),
                            claimants_en=tuple(detail.claimants_en), speakers=tuple(detail.speakers),
                            controller=detail.controller)


def _system_prompt(condition, system_prompt: str) -> str | None:
    return system_prompt or (condition.system_prompt if condition is not None else "") or None


def render(question, order, condition, system_prompt: str = "") -> list[dict[str, str]]:
    """The query as the user turn (its letters are written inside it, in claimant order);
    a run's system prompt wins over the condition's."""
    return prompting.chat_messages(plain_question(question), _system_prompt(condition, system_prompt),
                                   countries_of(question.benchmark_id))


def applies(question, condition) -> bool:
    """A strategy whose placeholders cannot be filled for this question (the nationalist
    persona on the English control) is not asked of it."""
    template = _system_prompt(condition, "")
    if not template:
        return True
    try:
        prompting.fill_system_prompt(template, plain_question(question), countries_of(question.benchmark_id))
    except prompting.NotApplicable:
        return False
    return True


def rank_prompt(question, order, condition=None, system_prompt: str = "") -> tuple[str, list[str]]:
    """The question followed by the answer cue, led by the strategy's filled system prompt
    (a persona or the claimants' demographics), whose claimant names are scored."""
    plain = plain_question(question)
    ranked = prompting.rank_prompt(plain)
    template = _system_prompt(condition, system_prompt)
    preamble = prompting.fill_system_prompt(template, plain, countries_of(question.benchmark_id)) if template else ""
    prompt = f"{preamble.strip()}\n\n{ranked.prompt}" if preamble.strip() else ranked.prompt
    return prompt, [ranked.continuations[i] for i in (order or range(len(ranked.continuations)))]


RULES = {"claimant name": "claimant-name", "option letter": "option-letter"}


def read_answer(question, text: str):
    detail = question.borderlines
    reading = parsing.read_answer(text, detail.choices, detail.claimants_en)
    if reading.claimant is None:
        return None, "no-claimant", reading.reason
    return reading.claimant, RULES.get(reading.rule, reading.rule.replace(" ", "-")), reading.reason


def filter_questions(queryset, selection):
    return queryset


def summary(benchmark) -> str:
    table = BorderlinesTable.objects.filter(benchmark=benchmark).first()
    gaps = [str(gap) for found in queries.question_sets(services.release_of(benchmark)) for gap in found.gaps]
    return render_to_string("territories_app/benchmark_summary.html", {
        "stats": services.stats(benchmark), "table": table, "gaps": gaps})


def benchmark_stats(benchmark) -> BenchmarkStats:
    counts = services.stats(benchmark)
    return BenchmarkStats(f"territorial disputes, {counts['questions']} questions", counts["questions"],
                          (f"territories: {counts['territories']}", f"languages: {counts['languages']}"))


# Authors write the territorial-disputes tables; the other roles read them.
_TERRITORY_MODELS = ["territory", "claimant", "country", "language", "termtranslation", "borderlinestable"]
_READING = tuple(f"territories_app.view_{model}" for model in [*_TERRITORY_MODELS, "territoryquestion"])
ROLE_PERMISSIONS = {
    AUTHORS: tuple(f"territories_app.{action}_{model}" for model in _TERRITORY_MODELS
                   for action in ("add", "change", "delete", "view")) + ("territories_app.view_territoryquestion",),
    REVIEWERS: _READING,
    ANALYSTS: (*_READING, "territories_app.view_territories_dashboard"),
}
DASHBOARD = Dashboard("territories-dashboard", "Territories", "Territorial disputes",
                      "BorderLines concurrence scores per model and strategy (control, non-control, consistency), "
                      "where models side with the controller on a world map, and every language's answer per "
                      "territory.", "territories",
                      "territories_app.view_territories_dashboard")

BORDERLINES = Family(name=NAME, label="Territorial disputes (BorderLines)", render=render, filter_questions=filter_questions, applies=applies,
                     permutable=False, rank_prompt=rank_prompt, read_answer=read_answer, summary=summary,
                     stats=benchmark_stats,
                     dashboard=DASHBOARD, authored_as="territorial-disputes tables", role_permissions=ROLE_PERMISSIONS,
                     urls=(("analysis/territories/", "territories_app.urls"),
                           ("api/analysis/territories/", "territories_app.api_urls")))
