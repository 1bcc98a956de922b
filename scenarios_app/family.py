"""CFPD as a benchmark family: how the engine asks its questions (appendix A.4's prompt,
a condition's or a run's system prompt instead of A.4's when given), how a run's
selection narrows them (domains, qualified actors: the launch form's fields and the run
page's rows), and the reviewers' filter by domain. Registered in ScenariosAppConfig.ready()."""

from __future__ import annotations

from accounts.roles import ANALYSTS, AUTHORS, REVIEWERS
from benchmarks_app.language_codes import SOURCE_LANGUAGE, language_problem
from benchmarks_app.families import BenchmarkStats, CodingFilter, Dashboard, Family, plain_messages

from .actor_languages import YES, SourceQuestion, flag_problem, plan_actor_languages, read_flag
from .counts import format_counts
from .prompting import SYSTEM_PROMPT, chat_messages


def render(question, order, condition, system_prompt: str = "") -> list[dict[str, str]]:
    """A run's system prompt wins over the condition's, which wins over A.4's."""
    chosen = system_prompt or (condition.system_prompt if condition is not None else "") or SYSTEM_PROMPT
    options = question.option_texts()
    if not options:
        return plain_messages(question.text, system_prompt or (condition.system_prompt if condition else ""))
    return chat_messages(question.text, options, order, chosen)


NAME = "cfpd"
# domain slugs, actor codes, BCP 47 codes, and ["yes"] to ask each actor in its own language (`actor_languages`)
SELECTION_KEYS = ("domains", "qualified_actors", "languages", "each_actor_language")


def read_selection(values: dict[str, list]) -> dict[str, list[str]]:
    """Domain slugs as given; actor codes upper-cased, once each; language codes as given."""
    keys = {"domains": [str(d) for d in values.get("domains") or []],
            "qualified_actors": list(dict.fromkeys(str(a).upper() for a in values.get("qualified_actors") or []))}
    languages = list(dict.fromkeys(str(code) for code in values.get("languages") or []))
    if languages:  # stored only when named: a run of the source language stores what runs always stored
        keys["languages"] = languages
    each = read_flag(list(values.get("each_actor_language") or []))
    if each:  # stored only when asked, as languages
        keys["each_actor_language"] = each
    return keys


def _narrowed(queryset, selection):
    """The questions of the selection's domains and qualified actors (all when none named)."""
    if selection.values("domains"):
        queryset = queryset.filter(cfpd__domain__slug__in=selection.values("domains"))
    if selection.values("qualified_actors"):
        queryset = queryset.filter(cfpd__qualified_actor__code__in=selection.values("qualified_actors"))
    return queryset


def filter_questions(queryset, selection):
    queryset = _narrowed(queryset, selection)
    # No languages named: the source language alone, as every run before translations asked (issue 41).
    named = queryset.filter(language__in=selection.values("languages") or [SOURCE_LANGUAGE])
    if not selection.values("each_actor_language"):
        return named
    from django.db.models import Q

    return queryset.filter(Q(pk__in=named.values("pk")) | Q(key__in=_actor_language_plan(queryset, selection).keys))


def _actor_language_plan(queryset, selection):
    """Each actor in its own language over the questions `queryset` holds (`actor_languages`)."""
    from .models import Actor

    rows = list(queryset.filter(language=SOURCE_LANGUAGE).order_by("key").values_list(
        "key", "cfpd__scenario__key", "cfpd__scenario__version", "cfpd__actor_a__code", "cfpd__actor_b__code"))
    sources = [SourceQuestion(key, f"{scenario} v{version}", a, b) for key, scenario, version, a, b in rows if a]
    codes = {code for s in sources for code in (s.actor_a, s.actor_b)}
    languages = {code: list(langs or []) for code, langs in Actor.objects.filter(code__in=codes).values_list(
        "code", "languages")}
    available = set(queryset.values_list("key", flat=True))
    return plan_actor_languages(sources, languages, available, selection.values("languages") or [SOURCE_LANGUAGE],
                                SOURCE_LANGUAGE)


def selection_notes(queryset, selection) -> list[str]:
    """What "each actor in its own language" left out and why, one line per language and
    reason, for the launch's plan and report ([] when the strategy is not asked)."""
    if not selection.values("each_actor_language"):
        return []
    return _actor_language_plan(_narrowed(queryset, selection), selection).lines()


def check_selection(selection) -> dict[str, list[str]]:
    from .models import Actor, Domain

    errors = {}
    domains, actors = selection.values("domains"), selection.values("qualified_actors")
    known = set(Domain.objects.filter(slug__in=domains).values_list("slug", flat=True))
    if set(domains) - known:
        errors["domains"] = [f"unknown domain(s): {', '.join(sorted(set(domains) - known))}"]
    known = set(Actor.objects.filter(code__in=actors).values_list("code", flat=True))
    unknown = [a for a in actors if a not in known]
    if unknown:
        errors["qualified_actors"] = [f"unknown actor code(s): {', '.join(a[:20] for a in unknown[:20])}"]
    bad = [problem for problem in map(language_problem, selection.values("languages")) if problem]
    if bad:
        errors["languages"] = bad[:5]
    if flag_problem(selection.values("each_actor_language")):
        errors["each_actor_language"] = [flag_problem(selection.values("each_actor_language"))]
    return errors


def _domain_choices() -> list[tuple[str, str]]:
    from .models import Domain

    return list(Domain.objects.order_by("position", "name").values_list("slug", "name"))


def selection_fields() -> dict:
    """The launch form's fields for CFPD's keys: domains ticked, qualified actors typed."""
    from django import forms

    return {
        "domains": forms.MultipleChoiceField(
            choices=_domain_choices, required=False, widget=forms.CheckboxSelectMultiple,
            label="Domains (CFPD)", help_text="None ticked: every domain."),
        "qualified_actors": forms.CharField(
            required=False, label="Qualified actors (CFPD)",
            widget=forms.TextInput(attrs={"placeholder": "US,CN", "autocomplete": "off"}),
            help_text="Comma-separated actor codes; empty: every actor."),
        "languages": forms.CharField(
            required=False, label="Languages (CFPD)",
            widget=forms.TextInput(attrs={"placeholder": "en,zh", "autocomplete": "off"}),
            help_text="Comma-separated BCP 47 codes of approved translations; empty: the source language (en)."),
        "each_actor_language": forms.MultipleChoiceField(
            choices=[(YES, "Ask each dyad also in actor A's and actor B's own languages")], required=False,
            widget=forms.CheckboxSelectMultiple, label="Each actor in its own language (CFPD)",
            help_text="Beside the languages above, where an approved translation exists; the plan lists what is "
                      "left out and why."),
    }


def describe_selection(stored: dict) -> list[tuple[str, str]]:
    """The run page's rows: domains by name, qualified actors by code, "all" for none."""
    from .models import Domain

    slugs = stored.get("domains") or []
    names = dict(Domain.objects.filter(slug__in=slugs).values_list("slug", "name"))
    return [("Domains", ", ".join(names.get(slug, slug) for slug in slugs) or "all"),
            ("Qualified actors", ", ".join(stored.get("qualified_actors") or []) or "all"),
            ("Languages", ", ".join(stored.get("languages") or []) or SOURCE_LANGUAGE),
            ("Each actor in its own language", "yes" if stored.get("each_actor_language") else "no")]


def questions_in_domain(queryset, slug: str):
    return queryset.filter(cfpd__domain__slug=slug)


def mark_asked(question_ids, run_id=None) -> None:
    """Scenario versions a run asks are frozen (edits from now on make a new version) and
    recorded as the versions that run asked."""
    from . import services
    from .models import Scenario

    asked = list(Scenario.objects.filter(cfpd_questions__question_id__in=list(question_ids)).distinct().only("pk"))
    services.freeze(asked, run_id)
    if run_id is not None:
        services.record_asked_versions(run_id, asked)


def asked_versions(run) -> list[tuple[str, str]]:
    """The scenario versions the run asked, in the benchmark's order, each linked to its
    history in the console."""
    from django.urls import reverse

    from .models import Scenario

    versions = Scenario.objects.filter(asked_by__run=run).order_by("key", "version").only("pk", "key", "version")
    return [(str(v), reverse("admin:scenarios_app_scenario_history", args=[v.pk])) for v in versions]


def sample_metadata(question) -> dict:
    """CFPD's fields of a question for the exported formats (an Inspect sample's metadata,
    a dataset's columns): scenario and version, variant, domain, comparison, the dyad, the
    qualified actor and each option's category in canonical order."""
    from .models import ScenarioQuestion

    found = (ScenarioQuestion.objects.select_related("scenario__comparison", "domain", "actor_a", "actor_b",
                                                     "qualified_actor").filter(question_id=question.pk).first())
    if found is None:
        return {}
    return {"scenario": found.scenario.key, "scenario_version": found.scenario.version, "variant": found.variant,
            "domain": found.domain.slug, "comparison": found.scenario.comparison.slug,
            "actor_a": found.actor_a.code, "actor_b": found.actor_b.code,
            "qualified_actor": found.qualified_actor.code,
            "option_categories": [str(option.get("category", "")) for option in question.options or []]}


def power(benchmark, question_ids, repeats, models, difference=None) -> dict:
    """The launch plan's power figures for the questions selected (`launch_power`), for a
    difference of `difference` (a share; the planner's default when None)."""
    from .launch_power import power_figures

    if difference is None:
        return power_figures(benchmark, question_ids, repeats, models)
    return power_figures(benchmark, question_ids, repeats, models, difference=difference)


def balance_groups(question_ids) -> dict[int, str]:
    """A question's balance group is its scenario's form (scenario version and variant: the
    no-middle variant offers other options): the balanced option order rotates the options
    over the scenario's qualified-actor variants (and conditions and repeats)."""
    from .models import ScenarioQuestion

    rows = ScenarioQuestion.objects.filter(question_id__in=list(question_ids)).values_list(
        "question_id", "scenario_id", "variant")
    return {question_id: f"{scenario_id}:{variant}" for question_id, scenario_id, variant in rows}


def summary(benchmark) -> str:
    from django.template.loader import render_to_string

    from . import services

    return render_to_string("scenarios_app/benchmark_summary.html", {"table": services.stats_table(benchmark)})


def benchmark_stats(benchmark) -> BenchmarkStats:
    """Questions per domain x choice count x qualified actor (focus actors, then the rest)."""
    from . import services

    table = services.stats_table(benchmark)
    scenarios = benchmark.scenarios.filter(is_current=True).count()
    return BenchmarkStats(f"{scenarios} scenarios, {table.total} questions", table.total, (format_counts(table),))


# The scenarios' models authors write, and those they only read (the codified taxonomy).
_SCENARIO_MODELS = ["scenario", "responseoption", "scenariodyad", "scenarioreview", "actorset", "actorsetmember"]
_READ_ONLY_MODELS = ["scenarioquestion", "scenariotranslation", "translationdraft", "actornametranslation", "domain", "actioncategory", "codifiedaction", "subdimension",
                     "codifiedcomparison", "comparisoncategory"]
_READING = tuple(f"scenarios_app.view_{model}" for model in _SCENARIO_MODELS + _READ_ONLY_MODELS)
ROLE_PERMISSIONS = {
    AUTHORS: tuple(f"scenarios_app.{action}_{model}" for model in _SCENARIO_MODELS
                   for action in ("add", "change", "delete", "view")) + tuple(
        f"scenarios_app.view_{model}" for model in _READ_ONLY_MODELS),
    REVIEWERS: _READING,
    ANALYSTS: (*_READING, "scenarios_app.view_cfpd_dashboard"),
}
DASHBOARD = Dashboard("analysis-dashboard", "Dashboard", "Dashboard",
                      "Per-model and per-country preference rates, normalised per scenario, with bootstrap intervals, "
                      "entropy, refusals, dyads and differences between models.", "preferences",
                      "scenarios_app.view_cfpd_dashboard", report_title="CFPD preferences")

CFPD = Family(name=NAME, label="CFPD scenarios", default=True, system_prompt=SYSTEM_PROMPT, render=render,
              selection_keys=SELECTION_KEYS, read_selection=read_selection, filter_questions=filter_questions,
              check_selection=check_selection, selection_fields=selection_fields,
              describe_selection=describe_selection, selection_notes=selection_notes,
              coding_filters=(CodingFilter("domain", "Domain", _domain_choices, questions_in_domain),),
              mark_asked=mark_asked, asked_versions=asked_versions, summary=summary, stats=benchmark_stats, power=power, sample_metadata=sample_metadata,
              balance_groups=balance_groups, power_template="scenarios_app/launch_power.html",
              dashboard=DASHBOARD, authored_as="CFPD scenarios", role_permissions=ROLE_PERMISSIONS,
              # Its own addresses (issue 39: one analysis address space per family), and the ones it
              # had before, sent on for old links and bookmarks (moved_urls).
              urls=(("analysis/cfpd/", "scenarios_app.analysis.urls"),
                    ("api/analysis/cfpd/", "scenarios_app.analysis.api_urls"),
                    ("analysis/", "scenarios_app.analysis.moved_urls"),
                    ("api/analysis/", "scenarios_app.analysis.moved_api_urls"),
                    ("admin/scenarios_app/actor/", "scenarios_app.moved_urls")))
