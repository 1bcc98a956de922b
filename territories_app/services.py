"""BorderLines workflows: import a release into a benchmark (atomic, idempotent), write it
back, keep the shared question table in step with the territories, compare snapshots.
Admin, commands and the family call these."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date

from django.db import transaction

from benchmarks_app.models import Actor, Benchmark, Question

from . import country_names, queries, release as rel, release_limits
from .models import (
    FAMILY, BorderlinesTable, Claimant, Country, Language, ReleaseQuery, TermTranslation, Territory, TerritoryQuestion,
)


class BorderlinesError(ValueError):
    """An import or export that cannot go ahead; the message says why."""


@dataclass
class ImportReport:
    benchmark: str
    flaws: list[str]
    left_out: list[str] = field(default_factory=list)
    territories: int = 0
    languages: int = 0
    questions: dict[str, int] = field(default_factory=dict)  # created, updated, retired
    gaps: list[str] = field(default_factory=list)
    actors_matched: list[tuple[str, str, str]] = field(default_factory=list)  # country, actor code, route
    actors_added: list[str] = field(default_factory=list)
    misspelt_keys: dict[str, str] = field(default_factory=dict)  # country key -> the claimant it misspells

    def matched_by(self) -> dict[str, list[str]]:
        """Route -> 'country → code' for every country linked to an existing actor (ROUTES' order)."""
        grouped: dict[str, list[str]] = {route: [] for route in ROUTES}
        for name, code, route in self.actors_matched:
            grouped.setdefault(route, []).append(f"{name} → {code}")
        return {route: names for route, names in grouped.items() if names}
    imported: bool = False


# --- actors ------------------------------------------------------------------------------

# How a country found its actor, in the order tried (the import summary groups by these).
ROUTES = ["name", "official name", "common name", "alias", "actor name", "entity", "earlier import"]


def _iso_actor(name: str) -> tuple[Actor, str] | None:
    """The ISO actor of a country name and the route that found it: pycountry's name,
    official name or common name, else the alias table (country_names), else a state
    actor's own prompt name or name (one an admin added or renamed)."""
    match = country_names.match_country(name)
    if match is not None:
        actor = Actor.objects.filter(code=match.alpha_2).first()
        if actor is None and match.alpha_2 in country_names.USER_ASSIGNED:
            known = country_names.USER_ASSIGNED[match.alpha_2]
            actor = Actor.objects.create(code=match.alpha_2, name=known.name, prompt_name=known.prompt_name,
                                         kind=Actor.Kind.STATE, iso_alpha3=known.alpha_3)
        if actor is not None:
            return actor, match.route
    found = (Actor.objects.filter(kind=Actor.Kind.STATE, prompt_name__iexact=name).first()
             or Actor.objects.filter(kind=Actor.Kind.STATE, name__iexact=name).first())
    return (found, "actor name") if found is not None else None


def _entity_code(name: str) -> str:
    """3-12 capitals, digits or _ for an entity that is no ISO country, unique."""
    base = re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")[:10] or "ENTITY"
    base = base if len(base) >= 3 else (base + "___")[:3]
    code, n = base, 1
    while Actor.objects.filter(code=code).exists():
        n += 1
        code = f"{base[:12 - len(str(n))]}{n}"
    return code


def _actor_for(name: str, report: ImportReport) -> Actor:
    found = _iso_actor(name)
    if found is None:
        existing = Actor.objects.filter(kind=Actor.Kind.DISPUTED, prompt_name__iexact=name).first()
        found = (existing, "entity") if existing is not None else None
    if found is not None:
        report.actors_matched.append((name, found[0].code, found[1]))
        return found[0]
    actor = Actor.objects.create(code=_entity_code(name), name=name, prompt_name=name, kind=Actor.Kind.DISPUTED)
    report.actors_added.append(f"{name} ({actor.code})")
    return actor


# --- import ------------------------------------------------------------------------------

def import_release(path, benchmark_name: str = "borderlines", accept_flaws: bool = False, dry_run: bool = False,
                   snapshot: date | None = None) -> ImportReport:
    """Read the release at `path` into the benchmark. Any flaw and nothing is written
    unless `accept_flaws`: then the sound part is imported and what was left out listed.
    Re-importing updates in place: same question keys and ids; a question no longer in
    the release is retired (not current), never deleted."""
    release = rel.read_release(path)
    too_long, dropped = release_limits.length_flaws(release, column_limits(), _question_key_room(benchmark_name),
                                                    queries.question_key)
    release = replace(release, flaws=release.flaws + tuple(too_long))
    report = ImportReport(benchmark=benchmark_name, flaws=[str(f) for f in release.flaws],
                          misspelt_keys=dict(release.misspelt_keys))
    existing = Benchmark.objects.filter(name=benchmark_name).first()
    if existing is not None and existing.family != FAMILY:
        raise BorderlinesError(f"benchmark {benchmark_name!r} is a {existing.get_family_display()} benchmark; "
                               "name another with --benchmark")
    if release.flaws:
        if not accept_flaws:
            return report
        release, left_out = release.sound()
        release = release_limits.without_countries(release, dropped)
        report.left_out = [str(item) for item in left_out]
    report.territories = len(release.territories)
    report.languages = len(release.templates)
    if dry_run:
        report.gaps = [str(g) for s in queries.question_sets(release) for g in s.gaps]
        return report
    with transaction.atomic():
        benchmark = existing or Benchmark.objects.create(
            name=benchmark_name, title="Territorial disputes", family=FAMILY)
        BorderlinesTable.objects.update_or_create(benchmark=benchmark, defaults={
            "snapshot": snapshot, "source": str(path)[:300]})
        _store(benchmark, release, report)
        report.questions, report.gaps = sync_questions(benchmark)
        report.imported = True
    return report


def column_limits() -> dict[str, int]:
    """The max_length of every column a release's text goes into (see release_limits)."""
    def length(model, name):
        return model._meta.get_field(name).max_length

    limits = {f"country.{name}": length(Country, name)
              for name in ("name", "language", "language_name", "language_native", "religion")}
    limits.update({f"territory.{name}": length(Territory, name) for name in ("name", "region", "query_id")})
    limits["language.code"] = min(length(Language, "code"), length(ReleaseQuery, "language"),
                                  length(TermTranslation, "language"), length(Question, "language"))
    limits["term.english"] = length(TermTranslation, "english")
    limits["term.text"] = length(TermTranslation, "text")
    # Language.name and native_name hold a country's Lang_Name and Lang_Name_Native.
    limits["country.language_name"] = min(limits["country.language_name"], length(Language, "name"))
    limits["country.language_native"] = min(limits["country.language_native"], length(Language, "native_name"))
    return limits


def _question_key_room(benchmark_name: str) -> int:
    return Question._meta.get_field("key").max_length - len(f"{benchmark_name}/")


def _store(benchmark: Benchmark, release: rel.Release, report: ImportReport):
    spoken = {}
    for info in release.countries.values():
        spoken.setdefault(info.language, info)  # the first country's names for it
    for code, template in release.templates.items():
        names = spoken.get(code)
        Language.objects.update_or_create(benchmark=benchmark, code=code, defaults={
            "template": template, "name": names.language_name if names else "",
            "native_name": names.language_native if names else ""})
    Language.objects.filter(benchmark=benchmark).exclude(code__in=list(release.templates)).delete()
    countries = {}
    for name, info in release.countries.items():
        if name in release.misspelt_keys:  # sound() drops them already; never an actor
            continue
        current = Country.objects.filter(benchmark=benchmark, name=name).first()
        if current is not None and current.actor_id:
            actor = current.actor
            report.actors_matched.append((name, actor.code, "earlier import"))
        else:
            actor = _actor_for(name, report)
        countries[name], _ = Country.objects.update_or_create(benchmark=benchmark, name=name, defaults={
            "actor": actor, "language": info.language, "language_name": info.language_name,
            "language_native": info.language_native, "religion": info.religion, "population": info.population})
    ReleaseQuery.objects.filter(benchmark=benchmark).delete()
    territories = {}
    for territory in release.territories:
        row, _ = Territory.objects.update_or_create(benchmark=benchmark, name=territory.name, defaults={
            "position": territory.index, "region": territory.region, "population": territory.population,
            "controller": countries.get(territory.controller) if territory.controller else None,
            "query": territory.query, "query_id": territory.query_id, "is_current": True})
        Claimant.objects.filter(territory=row).delete()
        Claimant.objects.bulk_create([Claimant(territory=row, country=countries[name], position=i)
                                      for i, name in enumerate(territory.claimants)])
        territories[territory.index] = row
    # A territory the release no longer has is retired with its questions (answers keep them).
    Territory.objects.filter(benchmark=benchmark).exclude(pk__in=[t.pk for t in territories.values()]).update(
        is_current=False)
    TermTranslation.objects.filter(benchmark=benchmark).delete()
    TermTranslation.objects.bulk_create([
        TermTranslation(benchmark=benchmark, language=language, english=english, text=text)
        for language, terms in release.terms.items() for english, text in terms.items()])
    rows = []
    groups = [(language, False, lines) for language, lines in release.translations.items()]
    for language, is_control, lines in [*groups, (rel.CONTROL_LANGUAGE, True, release.controls)]:
        for position, query in enumerate(lines):
            if query.territory_index in territories:
                rows.append(ReleaseQuery(benchmark=benchmark, language=language, is_control=is_control,
                                         position=position,
                                         territory=territories[query.territory_index], text=query.text,
                                         choices=list(query.choices)))
    ReleaseQuery.objects.bulk_create(rows, batch_size=1000)


# --- the release as the database holds it ------------------------------------------------

def _number(value):
    return int(value) if isinstance(value, float) and value.is_integer() else value


def countries_of(benchmark_id: int) -> dict[str, rel.Country]:
    """The benchmark's countries as the release and the prompts read them, in file order."""
    return {c.name: rel.Country(c.name, c.language, c.language_name, c.language_native, c.religion,
                                _number(c.population))
            for c in Country.objects.filter(benchmark_id=benchmark_id).order_by("pk")}


def release_of(benchmark: Benchmark) -> rel.Release:
    countries = countries_of(benchmark.pk)
    claimants: dict[int, list[str]] = {}
    for territory_id, name in (Claimant.objects.filter(territory__benchmark=benchmark, territory__is_current=True)
                               .order_by("territory_id", "position").values_list("territory_id", "country__name")):
        claimants.setdefault(territory_id, []).append(name)
    territories, by_pk = [], {}
    for t in (Territory.objects.filter(benchmark=benchmark, is_current=True).select_related("controller")
              .order_by("position")):
        territories.append(rel.Territory(t.position, t.name, tuple(claimants.get(t.pk, ())),
                                         t.controller.name if t.controller_id else None, t.region,
                                         _number(t.population), t.query, t.query_id))
        by_pk[t.pk] = t
    templates = dict(Language.objects.filter(benchmark=benchmark).values_list("code", "template"))
    terms: dict[str, dict[str, str]] = {}
    for language, english, text in (TermTranslation.objects.filter(benchmark=benchmark)
                                    .order_by("pk").values_list("language", "english", "text")):
        terms.setdefault(language, {})[english] = text
    translations: dict[str, list[rel.Query]] = {}
    controls = []
    for q in ReleaseQuery.objects.filter(benchmark=benchmark).order_by("is_control", "language", "position"):
        t = by_pk[q.territory_id]
        query = rel.Query(q.language, t.position, t.name, q.text, tuple(q.choices))
        (controls if q.is_control else translations.setdefault(q.language, [])).append(query)
    return rel.Release(territories=tuple(territories), countries=countries, templates=templates,
                       translations={k: tuple(v) for k, v in translations.items()}, controls=tuple(controls),
                       terms=terms)


def export_release(benchmark: Benchmark, path) -> rel.Release:
    release = release_of(benchmark)
    rel.write_release(release, path)
    return release


# --- questions -----------------------------------------------------------------------------

def sync_questions(benchmark: Benchmark) -> tuple[dict[str, int], list[str]]:
    """Make the benchmark's BorderLines questions exactly the question sets of its
    territories (idempotent). Returns counts and the gaps (missing translations)."""
    sets = queries.question_sets(release_of(benchmark))
    current = Question.objects.filter(benchmark=benchmark, is_current=True)
    return _sync(benchmark, sets, current), [str(g) for s in sets for g in s.gaps]


def sync_territory_questions(territory: Territory) -> tuple[dict[str, int], list[str]]:
    """Make one territory's questions its query set as it stands (idempotent): what
    saving a territory in the console calls. A retired territory keeps none current."""
    sets = [preview(territory)] if territory.is_current else []
    current = Question.objects.filter(benchmark_id=territory.benchmark_id, is_current=True,
                                      borderlines__territory=territory)
    return _sync(territory.benchmark, sets, current), [str(g) for s in sets for g in s.gaps]


def _sync(benchmark: Benchmark, sets: list[queries.QuestionSet], current) -> dict[str, int]:
    """Create or update the questions of `sets` in place (same key, same id) and retire
    the `current` questions they no longer hold; returns created/updated/retired counts."""
    names = [s.territory for s in sets]
    territories = {t.name: t for t in Territory.objects.filter(benchmark=benchmark, is_current=True, name__in=names)}
    keys = [f"{benchmark.name}/{q.key}" for s in sets for q in s.questions]
    existing = {q.key: q for q in Question.objects.filter(benchmark=benchmark, key__in=keys)
                .select_related("borderlines")}
    counts = {"created": 0, "updated": 0, "retired": 0}
    wanted = set()
    for question_set in sets:
        for q in question_set.questions:
            q = replace(q, key=f"{benchmark.name}/{q.key}")  # keys are unique across benchmarks
            wanted.add(q.key)
            fields = {"kind": Question.Kind.CHOICE, "language": q.language, "text": q.text,
                      "options": [{"text": name, "claimant": english} for name, english in zip(q.choices,
                                                                                               q.claimants_en)],
                      "option_order": list(range(len(q.choices))), "choice_count": len(q.choices),
                      "is_current": True}
            detail = {"territory": territories[q.territory], "choices": list(q.choices),
                      "claimants_en": list(q.claimants_en), "speakers": list(q.speakers), "controller": q.controller}
            row = existing.get(q.key)
            if row is None:
                row = Question.objects.create(benchmark=benchmark, key=q.key, **fields)
                TerritoryQuestion.objects.create(question=row, **detail)
                counts["created"] += 1
                continue
            changed = [name for name, value in fields.items() if getattr(row, name) != value]
            detail_row = getattr(row, "borderlines", None)
            if detail_row is None:
                TerritoryQuestion.objects.create(question=row, **detail)
                changed.append("detail")
            elif any(getattr(detail_row, name) != value for name, value in detail.items()):
                TerritoryQuestion.objects.filter(pk=row.pk).update(**detail)
                changed.append("detail")
            if changed:
                Question.objects.filter(pk=row.pk).update(**fields)
                counts["updated"] += 1
    # Retired, never deleted: answers keep pointing at them.
    counts["retired"] = current.exclude(key__in=wanted).update(is_current=False)
    return counts


def preview(territory: Territory) -> queries.QuestionSet:
    """The territory's whole query set as it stands (every language, lettered choices, gaps)."""
    release = release_of(territory.benchmark)
    spec = next(t for t in release.territories if t.name == territory.name)
    return queries.question_set(spec, release.countries, release.templates, release.term_translations())


# --- stats and snapshots -----------------------------------------------------------------

def stats(benchmark: Benchmark) -> dict[str, int]:
    current = Question.objects.filter(benchmark=benchmark, is_current=True)
    return {"territories": Territory.objects.filter(benchmark=benchmark, is_current=True).count(),
            "languages": current.values("language").distinct().count(),
            "questions": current.count(),
            "unknown": Territory.objects.filter(benchmark=benchmark, is_current=True, controller__isnull=True).count()}


@dataclass
class SnapshotDiff:
    added: list[str]
    removed: list[str]
    controller_changed: list[tuple[str, str, str]]  # territory, old, new
    claimants_changed: list[tuple[str, str, str]]


def compare(old: Benchmark, new: Benchmark) -> SnapshotDiff:
    def table(benchmark):
        release = release_of(benchmark)
        return {t.name: t for t in release.territories}

    before, after = table(old), table(new)
    shown = lambda value: value or rel.UNKNOWN  # noqa: E731
    return SnapshotDiff(
        added=sorted(set(after) - set(before)), removed=sorted(set(before) - set(after)),
        controller_changed=[(name, shown(before[name].controller), shown(after[name].controller))
                            for name in sorted(set(before) & set(after))
                            if before[name].controller != after[name].controller],
        claimants_changed=[(name, "; ".join(before[name].claimants), "; ".join(after[name].claimants))
                           for name in sorted(set(before) & set(after))
                           if before[name].claimants != after[name].claimants])
