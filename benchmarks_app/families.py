"""How each benchmark family asks its questions: a registry the engine consults, so the
engine knows questions, conditions and answers and never a family's specifics.

A family app registers itself from its AppConfig.ready():

    families.register(Family(name="cfpd", label="CFPD scenarios", render=..., filter_questions=...))

The registry is open: the engine, coding and analysis name no family, so a family is
added by installing an app that registers one (`tests/benchmarks_app/test_open_registry.py`
registers a fourth). What the core shows of a family comes through these hooks:

- `label`: how pages and the console name the family ("CFPD scenarios").
- `default`: new benchmarks belong to this family when none is named (one family, CFPD).
- `system_prompt`: the system prompt the family asks with when neither the run nor the
  condition gives one ("" for none), shown greyed out in the launch form's box.

- `render(question, order, condition, system_prompt)` returns the chat messages for one
  unit: `order` is the option order shown (indexes into `question.options`), `condition`
  the unit's Condition, `system_prompt` a run's override ("" for none).
- `selection_keys`: the names of the family's own selection keys (CFPD: "domains",
  "qualified_actors"), each a list of names, read from the launch form, the API and
  run_benchmark alike and stored in a run's selection beside the engine's choice counts,
  sample and seed (`Selection.family_keys`; `selection.values(key)` reads one).
- `read_selection({key: [values]})` (optional) normalises the values given for the keys
  (CFPD: actor codes upper-cased, once each); by default each value is taken as text.
- `filter_questions(queryset, selection)` narrows a benchmark's current questions by the
  family's own selection keys; the engine itself only knows choice counts, samples and seeds.
- `selection_fields()` (optional) returns {key: Django form field} for the launch form
  (CFPD: its domains ticked, its qualified actors typed); a key without a field is still
  read from the API and run_benchmark.
- `selection_notes(queryset, selection)` (optional) returns lines saying what the
  selection left out and why (CFPD's "each actor in its own language": a language with no
  approved translation), over the benchmark's current questions: the launch plan shows
  them as notes and `run_benchmark` prints them after a launch; by default none.
- `describe_selection(stored)` (optional) returns the run page's rows [(label, text)]
  for the family keys of a stored selection (a dict); by default one row per key.
- `coding_filters`: CodingFilter()s the reviewers' pages offer (CFPD: by domain), each a
  query parameter, its choices and how it narrows a queryset of questions.
- `rank_prompt(question, order, condition, system_prompt)` (optional) returns the
  plain-text prompt and the continuations (option texts in `order`) that rank
  classification scores; a strategy's system prompt, where the family uses one, leads the
  prompt.
- `check_selection(selection)` (optional) returns {key: [messages]} for selection keys
  whose values name nothing.
- `applies(question, condition)` (optional) says whether the condition can be asked of
  the question at all (BorderLines' nationalist persona has no country for the English
  control): a launch makes no unit where it cannot.
- `permutable`: whether option order may be shuffled (False where the letters are
  written inside the question text, as BorderLines writes them).
- `read_answer(question, text)` (optional) reads a generated answer the family's way
  before the generic encoder: returns (index into question.options, rule, reason), with
  index None for "unresolved, tell reviewers `reason`", or None to leave the answer to
  the generic encoder.
- `summary(benchmark)` (optional) returns HTML (already escaped) describing a
  benchmark's questions for the console, e.g. CFPD's counts by domain and actor.
- `stats(benchmark)` (optional) returns the BenchmarkStats `benchmark_stats` prints of a
  benchmark: a headline ("44 scenarios, 683 questions"), the lines below it (CFPD's counts
  by domain, choice count and qualified actor) and its current questions; by default the
  family's label and the current questions, counted.
- `follow_ups(question)` (optional) returns the ids of questions asked after this one in
  the same conversation (the free-form family's move 2 after move 1): when a unit's
  answer arrives, the engine creates one unit per follow-up (same run, model, condition
  and repeat) in the transaction that writes the answer, and asks it with the earlier
  messages and answer before the follow-up's own turn.
- `mark_asked(question_ids, run_id)` (optional) is called in the transaction that creates a
  run's units or imports answers: CFPD freezes the scenario versions asked and records
  which versions that run asked.
- `asked_versions(run)` (optional) returns [(label, url)]: the exact version of each
  authored item the run asked, each linked to its history (CFPD: "escalation-07 v3"), for
  the run's page; by default none.
- `sample_metadata(question)` (optional) returns the family's own fields of a question
  as plain JSON values ({"domain": …, "qualified_actor": …}), carried by the exported
  formats (an Inspect sample's metadata, a dataset's columns); by default none.
- `power(benchmark, question_ids, repeats, models, difference=)` (optional) returns plain
  values the launch plan shows beside its costs: the expected precision of the family's
  headline figures and the power to detect a difference (a share: 0.10 for the operator's
  10 points) for the questions selected (CFPD: per
  domain form, `scenarios_app.launch_power`); by default none.
- `power_template`: the family's template the launch plan shows `power`'s figures with
  (given as `power`; CFPD: "scenarios_app/launch_power.html").
- `balance_groups(question_ids)` (optional) returns {question id: group key}: the questions
  whose options are the same content, among which a balanced option order
  (`Run.balanced_options`, `runs_app.option_design`) puts each option at each position
  equally often (CFPD: a scenario's form, over its qualified-actor variants); by default
  each question is its own group.
- `dashboard`: a Dashboard (its URL name, the navigation's label, the home page card's
  title and text) linked in the navigation and on the home page for those who may read the
  dashboards, in the order the families registered; None for a family without one.
- `authored_as`: what authors write of the family in the console ("CFPD scenarios"), in
  the words the roles' descriptions use.
- `role_permissions`: {role: permission names ("app.codename")} the family's own models
  give each role (accounts.roles merges them with the core's; `sync_roles` keeps the groups
  in step).
- `urls`: the family's own addresses, (prefix, URLconf module) pairs the site mounts
  (`cfpd_site/urls.py` includes every registered family's, the longest prefix first, so a
  family's deeper prefix is tried before a shallower one): its pages under one address of its
  own (`analysis/territories/`) and its API under `api/analysis/…`.
No Django import here: families hand in plain callables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable


def _no_filter(queryset, selection):
    return queryset


def _no_errors(selection) -> dict[str, list[str]]:
    return {}


def _nothing(question_ids, run_id=None) -> None:
    return None


def _always(question, condition) -> bool:
    return True


def _as_text(values: dict[str, list]) -> dict[str, list[str]]:
    return {key: [str(value) for value in given] for key, given in values.items()}


@dataclass(frozen=True)
class CodingFilter:
    """One filter of the reviewers' pages: the query parameter `name` (CFPD: "domain"),
    its label, `choices()` as (value, label) pairs, and `questions(queryset, value)`
    narrowing a queryset of benchmark questions to those the value picks."""

    name: str
    label: str
    choices: Callable[[], list[tuple[str, str]]]
    questions: Callable[[Any, str], Any]


@dataclass(frozen=True)
class BenchmarkStats:
    """What `benchmark_stats` prints of one benchmark: `headline` after its name ("44
    scenarios, 683 questions"), `lines` below it, and `questions`, the benchmark's current
    questions (summed into the command's last line)."""

    headline: str
    questions: int
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dashboard:
    """A family's dashboard as the navigation and the home page link it: `url_name`
    (reversed by the templates), the navigation's `nav_label`, the card's `title` and
    `description`, its `subject` in a word (the analysts' role description: "read the
    dashboards (preferences, territories, crisis)"), and the `permission` its pages and API
    need ("app.codename", one of the family's own: the navigation links it for those who
    hold it; the family's `role_permissions` give it to analysts). `report_title`: its name on
    an exported report (formats_app), the card's title when not given."""

    url_name: str
    nav_label: str
    title: str
    description: str
    subject: str
    permission: str
    report_title: str = ""


@dataclass(frozen=True)
class Family:
    name: str
    render: Callable[..., list[dict[str, str]]]
    label: str = ""
    default: bool = False
    system_prompt: str = ""
    selection_keys: tuple[str, ...] = ()
    read_selection: Callable[[dict[str, list]], dict[str, list[str]]] = _as_text
    selection_fields: Callable[[], dict[str, Any]] | None = None
    describe_selection: Callable[[dict], list[tuple[str, str]]] | None = None
    selection_notes: Callable[[Any, Any], list[str]] | None = None
    coding_filters: tuple[CodingFilter, ...] = ()
    filter_questions: Callable[[Any, Any], Any] = _no_filter
    check_selection: Callable[[Any], dict[str, list[str]]] = _no_errors
    mark_asked: Callable[[list[int], int], None] = _nothing
    asked_versions: Callable[[Any], list[tuple[str, str]]] | None = None
    applies: Callable[[Any, Any], bool] = _always
    permutable: bool = True
    read_answer: Callable[[Any, str], tuple[int | None, str, str] | None] | None = None
    summary: Callable[[Any], str] | None = None
    stats: Callable[[Any], BenchmarkStats] | None = None
    rank_prompt: Callable[..., tuple[str, list[str]]] | None = None
    follow_ups: Callable[[Any], list[int]] | None = None
    sample_metadata: Callable[[Any], dict[str, Any]] | None = None
    power: Callable[[Any, list[int], int, int], dict[str, Any]] | None = None
    balance_groups: Callable[[list[int]], dict[int, str]] | None = None
    power_template: str = ""
    dashboard: Dashboard | None = None
    authored_as: str = ""
    role_permissions: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    urls: tuple[tuple[str, str], ...] = ()

    @property
    def asks_every_condition(self) -> bool:
        """Whether every condition applies to every question (no `applies` of its own):
        a launch then needs no question object to decide its units."""
        return self.applies is _always


_registry: dict[str, Family] = {}


class UnknownFamily(LookupError):
    pass


def register(family: Family) -> None:
    _registry[family.name] = family


def family(name: str) -> Family:
    try:
        return _registry[name]
    except KeyError:
        known = ", ".join(sorted(_registry)) or "none"
        raise UnknownFamily(f"no benchmark family {name!r} is installed (installed: {known})") from None


def registered() -> list[str]:
    return sorted(_registry)


def unregister(name: str) -> None:
    """Forget a family (tests that register one of their own)."""
    _registry.pop(name, None)


def label(name: str) -> str:
    """How pages name a family: its registered label, else its name as stored."""
    found = _registry.get(name)
    return (found.label or found.name) if found is not None else name


def choices() -> list[tuple[str, str]]:
    """(name, label) of every installed family, for the console's forms and filters."""
    return [(name, label(name)) for name in registered()]


def in_order() -> list[Family]:
    """The installed families in the order they registered (INSTALLED_APPS' order)."""
    return list(_registry.values())


def dashboards() -> list[Dashboard]:
    """The families' dashboards, in the order the families registered."""
    return [found.dashboard for found in in_order() if found.dashboard is not None]


def authored() -> list[str]:
    """What authors write in the console, family by family ("CFPD scenarios", …)."""
    return [found.authored_as for found in in_order() if found.authored_as]


def url_mounts() -> list[tuple[str, str]]:
    """(prefix, URLconf module) of every registered family, the longest prefix first (then in
    registration order): "analysis/crisis/validation/" before "analysis/crisis/" before
    "analysis/"."""
    mounts = [mount for found in in_order() for mount in found.urls]
    return sorted(mounts, key=lambda mount: -len(mount[0]))


def role_permissions(role: str) -> list[str]:
    """The permissions the families' own models give `role`, in registration order."""
    return [name for found in in_order() for name in found.role_permissions.get(role, ())]


def default_name() -> str:
    """The family of a benchmark created without one (the family registered as the
    default; "" when none is, and then the benchmark must name one)."""
    return next((name for name in registered() if _registry[name].default), "")


def default_system_prompt() -> str:
    """The default family's system prompt ("" when it has none)."""
    found = _registry.get(default_name())
    return found.system_prompt if found is not None else ""


def launch_fields() -> dict[str, Any]:
    """The launch form's fields for the families' own selection keys, from every
    installed family (a key two families share: the first family's, by name)."""
    fields: dict[str, Any] = {}
    for name in registered():
        make = _registry[name].selection_fields
        for key, field in (make() if make else {}).items():
            fields.setdefault(key, field)
    return fields


def selection_keys() -> dict[str, list[Family]]:
    """Every family selection key with the families that read it, by family name."""
    keys: dict[str, list[Family]] = {}
    for name in registered():
        for key in _registry[name].selection_keys:
            keys.setdefault(key, []).append(_registry[name])
    return keys


def describe_selection(name: str, stored: dict) -> list[tuple[str, str]]:
    """The run page's rows for a stored selection's family keys (none for an unknown family)."""
    found = _registry.get(name)
    if found is None:
        return []
    if found.describe_selection is not None:
        return found.describe_selection(stored)
    return [(key.replace("_", " ").capitalize(), ", ".join(str(v) for v in stored.get(key) or []) or "all")
            for key in found.selection_keys]


def stats(benchmark) -> BenchmarkStats:
    """A benchmark's counts as its family gives them (`Family.stats`); for a family without
    that hook, or not installed, its label and its current questions."""
    found = _registry.get(benchmark.family)
    if found is not None and found.stats is not None:
        return found.stats(benchmark)
    questions = benchmark.questions.filter(is_current=True).count()
    return BenchmarkStats(f"{label(benchmark.family)}, {questions} questions", questions)


def coding_filters() -> list[CodingFilter]:
    """The reviewers' filters every installed family offers, one per query parameter: two
    families offering the same parameter share it (choices of both; either's questions)."""
    by_name: dict[str, list[CodingFilter]] = {}
    for name in registered():
        for offered in _registry[name].coding_filters:
            by_name.setdefault(offered.name, []).append(offered)
    merged = []
    for group in by_name.values():
        if len(group) == 1:
            merged.append(group[0])
            continue
        merged.append(CodingFilter(
            name=group[0].name, label=group[0].label,
            choices=lambda group=group: [pair for f in group for pair in f.choices()],
            questions=lambda queryset, value, group=group: _union([f.questions(queryset, value) for f in group])))
    return merged


def _union(querysets):
    combined = querysets[0]
    for other in querysets[1:]:
        combined = combined | other
    return combined


def plain_messages(text: str, system_prompt: str = "") -> list[dict[str, str]]:
    """A question without options, as any family may ask one: the text as the user turn."""
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return messages + [{"role": "user", "content": text}]


def sample_metadata(question, family_name: str) -> dict[str, Any]:
    """The family's own fields of a question (`Family.sample_metadata`); {} for a family
    without that hook or not installed."""
    found = _registry.get(family_name)
    if found is None or found.sample_metadata is None:
        return {}
    return dict(found.sample_metadata(question))
