"""The rules a scenario must satisfy, as one pure function shared by the admin forms
and the importer. Each problem names the field and says how to fix it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmarks_app.text_files import slug_problem

from .naming import actor_slots, malformed_slots
from .taxonomy import Taxonomy


@dataclass(frozen=True)
class OptionSpec:
    text: str
    category: str | None  # category slug


@dataclass
class ScenarioSpec:
    """A scenario as plain values: what an import row or an admin form describes."""

    key: str
    domain: str | None
    comparison: str | None
    template: str
    options: list[OptionSpec]
    qualified_actor: str | None  # "A" or "B"
    dyads: list[tuple[str, str]] = field(default_factory=list)
    notes: str = ""


@dataclass(frozen=True)
class Problem:
    field: str
    message: str

    def __str__(self):
        return f"{self.field}: {self.message}"


# Benchmark names and scenario keys are slugs (benchmarks_app.text_files: the rule every
# importer shares); the lengths are the model fields'.
BENCHMARK_NAME_MAX = 64  # Benchmark.name
SCENARIO_KEY_MAX = 100  # Scenario.key


def check_benchmark_name(name: str) -> list[Problem]:
    problem = slug_problem(name, BENCHMARK_NAME_MAX)
    return [Problem("benchmark", problem)] if problem else []


def check_key(key: str) -> list[Problem]:
    problem = slug_problem(key, SCENARIO_KEY_MAX)
    return [Problem("Key", problem)] if problem else []


def _option_label(index: int) -> str:
    return f"option {index + 1}"


def check_template(spec: ScenarioSpec) -> list[Problem]:
    problems = []
    if not spec.template.strip():
        return [Problem("template", "is empty; write the scenario with [Actor A] and [Actor B]")]
    texts = [("template", spec.template)]
    texts += [(f"options[{i + 1}].text", option.text) for i, option in enumerate(spec.options)]
    for where, text in texts:
        for slot in malformed_slots(text):
            problems.append(Problem(where, f"{slot!r} is not an actor slot; write exactly [Actor A] or [Actor B]"))
    in_template = actor_slots(spec.template)
    for which in "AB":
        if which in in_template:
            continue
        users = [str(i + 1) for i, o in enumerate(spec.options) if which in actor_slots(o.text)]
        if users:
            who = (f"option {users[0]} uses" if len(users) == 1
                   else f"options {', '.join(users[:-1])} and {users[-1]} use")
            problems.append(Problem(
                "template",
                f"{who} [Actor {which}] but the template never names it; "
                f"introduce [Actor {which}] in the template text",
            ))
        else:
            problems.append(Problem(
                "template",
                f"never names [Actor {which}]; every dyad has two actors, so write [Actor {which}] into the scenario",
            ))
    return problems


def check_comparison(spec: ScenarioSpec, taxonomy: Taxonomy) -> list[Problem]:
    if spec.domain not in taxonomy.domains:
        return [Problem("domain", f"{spec.domain!r} is not a domain; use one of "
                        + ", ".join(taxonomy.domains.values()))]
    if spec.comparison not in taxonomy.comparisons:
        return [Problem("comparison", f"{spec.comparison!r} is not a codified comparison; pick one of the "
                        f"{taxonomy.domains[spec.domain]} comparisons")]
    comparison = taxonomy.comparisons[spec.comparison]
    if comparison.domain != spec.domain:
        return [Problem(
            "comparison",
            f"'{comparison.name}' belongs to {taxonomy.domains[comparison.domain]}, not "
            f"{taxonomy.domains[spec.domain]}; choose a {taxonomy.domains[spec.domain]} comparison or change the domain",
        )]
    return []


def check_options(spec: ScenarioSpec, taxonomy: Taxonomy) -> list[Problem]:
    problems = []
    if len(spec.options) not in (2, 3):
        return [Problem("options", f"has {len(spec.options)} options; a scenario has two or three")]
    for i, option in enumerate(spec.options):
        if not option.text.strip():
            problems.append(Problem(f"options[{i + 1}].text", f"{_option_label(i)} has no text; write the response"))
        if not option.category:
            problems.append(Problem(f"options[{i + 1}].category",
                                    f"{_option_label(i)} has no action category; choose the category it codes"))
        elif option.category not in taxonomy.categories:
            problems.append(Problem(f"options[{i + 1}].category",
                                    f"{option.category!r} is not an action category"))
        elif spec.domain and taxonomy.categories[option.category].domain != spec.domain:
            category = taxonomy.categories[option.category]
            problems.append(Problem(
                f"options[{i + 1}].category",
                f"'{category.name}' is a {taxonomy.domains[category.domain]} category; "
                f"choose one of {taxonomy.domains.get(spec.domain, spec.domain)}",
            ))
    if problems or spec.comparison not in taxonomy.comparisons:
        return problems
    comparison = taxonomy.comparisons[spec.comparison]
    chosen = [option.category for option in spec.options]
    names = lambda slugs: ", ".join(taxonomy.categories[s].name for s in slugs)  # noqa: E731
    if len(chosen) != comparison.choice_count:
        problems.append(Problem(
            "options",
            f"'{comparison.name}' compares {comparison.choice_count} options but the scenario has {len(chosen)}; "
            f"{'add' if len(chosen) < comparison.choice_count else 'remove'} an option or pick another comparison",
        ))
    elif sorted(chosen) != sorted(comparison.categories):
        if len(chosen) == 3 and len(set(chosen)) < 3:
            problems.append(Problem(
                "options",
                f"three options need a middle option, but they are coded {names(chosen)}; "
                f"code exactly one option as each of {names(comparison.categories)}",
            ))
        else:
            problems.append(Problem(
                "options",
                f"are coded {names(chosen)} but '{comparison.name}' compares {names(comparison.categories)}; "
                "fix the option categories",
            ))
    return problems


def check_dyads(spec: ScenarioSpec, known_actors: set[str]) -> list[Problem]:
    if not spec.dyads:
        return [Problem("dyads", "none given; add at least one ordered pair such as (CN,RU)")]
    problems, seen = [], set()
    for i, (a, b) in enumerate(spec.dyads, start=1):
        where = f"dyads[{i}]"
        for code in (a, b):
            if code not in known_actors:
                problems.append(Problem(where, f"({a},{b}): {code!r} is not a known actor code; "
                                        "use an ISO 3166 alpha-2 code or add the actor first"))
        if a == b:
            problems.append(Problem(where, f"({a},{b}) pairs an actor with itself; use two different actors"))
        if (a, b) in seen:
            problems.append(Problem(where, f"({a},{b}) is listed twice; remove the repeat"))
        seen.add((a, b))
    return problems


def check_scenario(spec: ScenarioSpec, taxonomy: Taxonomy, known_actors: set[str]) -> list[Problem]:
    """Every problem with a scenario; empty when it is valid."""
    problems = []
    if spec.qualified_actor not in ("A", "B"):
        problems.append(Problem("qualified_actor", f"{spec.qualified_actor!r} must be A or B: the actor advised"))
    problems += check_comparison(spec, taxonomy)
    problems += check_template(spec)
    problems += check_options(spec, taxonomy)
    problems += check_dyads(spec, known_actors)
    return problems
