"""Translations of CFPD scenarios (issue 41): writing one (checked slot by slot), approving
it (by an author who reads its language), marking it out of date when its source changes,
and turning approved, up-to-date translations into questions of their own language.

Every state change of a translation goes through a function here; the import and export
commands (`translation_files`) call them."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models, transaction
from django.utils import timezone

from accounts.models import Profile
from accounts.roles import AUTHORS
from benchmarks_app.language_codes import (
    SOURCE_LANGUAGE, form_problem, language_problem, name_is_form, reads, stored_forms,
)

from .expansion import TemplateOption, expand_scenario
from .models import Actor, ActorNameTranslation, Question, Scenario, ScenarioQuestion, ScenarioTranslation
from .naming import ActorName, forms_used
from .slots import OPTION_FIELDS, SlotProblem, check_translation


class TranslationError(ValueError):
    """A translation that cannot be saved or approved; the message says why and where."""

    def __init__(self, message: str, problems: list[SlotProblem] | None = None):
        super().__init__(message)
        self.problems = problems or []


def source_fields(scenario: Scenario) -> dict[str, str]:
    """The fields a translation of `scenario` must have: template, option_a, option_b, …"""
    fields = {"template": scenario.template}
    for field, option in zip(OPTION_FIELDS, scenario.options.order_by("position")):
        fields[field] = option.text
    return fields


def translated_fields(translation: ScenarioTranslation) -> dict[str, str]:
    return {"template": translation.template, **dict(zip(OPTION_FIELDS, translation.options))}


def check_language(code: str) -> str:
    problem = language_problem(code)
    if problem:
        raise TranslationError(f"language: {problem}")
    if code == SOURCE_LANGUAGE:
        raise TranslationError(f"language: {code} is the source language; a translation needs another one")
    return code


def problems_of(scenario: Scenario, fields: dict[str, str], language: str = "") -> list[SlotProblem]:
    return check_translation(source_fields(scenario), fields, language)


@transaction.atomic
def save_translation(scenario: Scenario, language: str, fields: dict[str, str], *, translated_by=None,
                     provenance: str = "person", model_name: str = "", prompt: str = "", back_model_name: str = "",
                     back_translation: dict | None = None, scores: dict | None = None) -> ScenarioTranslation:
    """Write (or rewrite) `scenario`'s translation into `language` as a draft. Refused, with
    each slot and field, when it loses or adds a slot or an option. A model's draft
    (`drafting`) also records the model, its prompt, the back-translation and its scores;
    any other writing clears them (they were of another text)."""
    check_language(language)
    problems = problems_of(scenario, fields, language)
    if problems:
        raise TranslationError("; ".join(str(p) for p in problems), problems)
    existing = ScenarioTranslation.objects.filter(scenario=scenario, language=language).first()
    if existing is not None and existing.status == ScenarioTranslation.Status.APPROVED and scenario.is_frozen:
        raise TranslationError(f"{scenario} [{language}] is approved and its questions have been asked; "
                               "edit the scenario to make a new version and translate that")
    options = [fields[f] for f in OPTION_FIELDS if f in fields]
    translation, _ = ScenarioTranslation.objects.update_or_create(
        scenario=scenario, language=language,
        defaults=dict(template=fields["template"], options=options, status=ScenarioTranslation.Status.DRAFT,
                      source_hash=scenario.content_hash, out_of_date=False, translated_by=translated_by,
                      provenance=provenance[:200], translated_at=timezone.now(), approved_by=None,
                      approved_at=None, model_name=model_name[:200], prompt=prompt,
                      back_model_name=back_model_name[:200], back_translation=back_translation or {},
                      scores=scores or {}))
    sync_translated_questions(translation)
    return translation


def is_author(user) -> bool:
    return bool(user.is_superuser or user.groups.filter(name=AUTHORS).exists())


def languages_of(user) -> list[str]:
    profile = Profile.objects.filter(user=user).first()
    return list(profile.languages) if profile else []


def set_languages(user, languages: list[str]) -> Profile:
    """Record the languages `user` reads (BCP 47 codes, each checked)."""
    for code in languages:
        problem = language_problem(code)
        if problem:
            raise TranslationError(f"languages: {problem}")
    profile, _ = Profile.objects.update_or_create(user=user, defaults={"languages": list(dict.fromkeys(languages))})
    return profile


@transaction.atomic
def approve_translation(translation: ScenarioTranslation, approver) -> ScenarioTranslation:
    """An author who reads the translation's language approves it as it stands; its
    questions are made then (when its source is current and it is up to date)."""
    if not is_author(approver):
        raise TranslationError(f"Not approved: {approver} is not an author")
    if not reads(languages_of(approver), translation.language):
        raise TranslationError(f"Not approved: {approver}'s profile does not list {translation.language}; "
                               "only an author who reads the language may approve its translation")
    if translation.out_of_date:
        raise TranslationError(f"Not approved: {translation} is out of date (its source changed); translate "
                               "the current text again")
    translation.status = ScenarioTranslation.Status.APPROVED
    translation.approved_by, translation.approved_at = approver, timezone.now()
    translation.save(update_fields=["status", "approved_by", "approved_at"])
    sync_translated_questions(translation)
    return translation


def mark_out_of_date(scenario: Scenario) -> int:
    """After `scenario`'s text changed (or a new version replaced it): its translations of
    another text are out of date, and their questions are no longer asked."""
    stale = ScenarioTranslation.objects.filter(scenario=scenario, out_of_date=False)
    if scenario.is_current:
        stale = stale.exclude(source_hash=scenario.content_hash)
    ids = list(stale.values_list("id", flat=True))
    if ids:
        ScenarioTranslation.objects.filter(pk__in=ids).update(out_of_date=True)
        for translation in ScenarioTranslation.objects.filter(pk__in=ids):
            sync_translated_questions(translation)
    return len(ids)


MAX_NAME = 120  # ActorNameTranslation.name's length; a form is held to the same


def check_forms(language: str, forms: dict[str, str]) -> dict[str, str]:
    """`forms` (form name -> text) as an actor's name translation into `language` stores
    them, or TranslationError naming each form it cannot store and the forms it can."""
    problems, clean = [], {}
    own = name_is_form(language)
    for form, text in forms.items():
        if form == own:
            problems.append(f"{form}: the name itself is the {form} in {language}; set the name")
        elif form_problem(language, form):
            problems.append(f"{form}: {form_problem(language, form)}")
        elif not isinstance(text, str) or not text.strip():
            problems.append(f"{form}: empty; give the name in that form or leave the form out")
        elif len(text.strip()) > MAX_NAME:
            problems.append(f"{form}: longer than {MAX_NAME} characters")
        else:
            clean[form] = text.strip()
    if problems:
        raise TranslationError("; ".join(problems))
    return {form: clean[form] for form in stored_forms(language) if form in clean}


def set_actor_name(actor: Actor, language: str, name: str, *, forms: dict[str, str] | None = None,
                   translated_by=None, provenance: str = "person") -> ActorNameTranslation:
    """Write `actor`'s name in `language`, and (when `forms` is given) its grammatical forms
    there, replacing those it had (`forms=None` keeps them)."""
    check_language(language)
    if not name.strip():
        raise TranslationError(f"{actor.code} [{language}]: the name is empty")
    defaults = {"name": name.strip(), "translated_by": translated_by, "provenance": provenance[:200]}
    if forms is not None:
        try:
            defaults["forms"] = check_forms(language, forms)
        except TranslationError as error:
            raise TranslationError(f"{actor.code} [{language}]: {error}") from None
    row, _ = ActorNameTranslation.objects.update_or_create(actor=actor, language=language, defaults=defaults)
    # Approved translations waiting for this name ask its dyads now.
    for translation in ScenarioTranslation.objects.filter(
            language=language, status=ScenarioTranslation.Status.APPROVED, out_of_date=False,
            scenario__is_current=True).filter(
            models.Q(scenario__dyads__actor_a=actor) | models.Q(scenario__dyads__actor_b=actor)).distinct():
        sync_translated_questions(translation)
    return row


# --- questions -----------------------------------------------------------------------

def translated_key(source_key: str, language: str) -> str:
    """A translated question's key of its own: `t/esc.v1.CN-RU.full@zh`."""
    return f"{source_key}@{language}"


@dataclass
class TranslatedSync:
    created: int = 0
    retired: int = 0
    # Actor codes with no name in the language, then `CODE:form` for a form of a name the
    # translation asks for (`[Actor A:genitive]`) that the actor's name lacks: their dyads are not asked.
    missing_names: tuple[str, ...] = ()


def sync_translated_questions(translation: ScenarioTranslation) -> TranslatedSync:
    """Make the translation's questions exactly what it may ask: for an approved, up-to-date
    translation of a current version, one question per source question (same dyads and
    variants, its own key and language); otherwise none asked (never-asked ones deleted,
    asked ones kept but no longer current)."""
    scenario = translation.scenario
    mine = Question.objects.filter(cfpd__scenario=scenario, language=translation.language)
    outcome = TranslatedSync()
    if not (translation.usable and scenario.is_current):
        outcome.retired = mine.filter(is_current=True).update(is_current=False)
        if not scenario.is_frozen:
            mine.delete()
        return outcome
    options = [TemplateOption(text, o.category.slug, o.category.rank)
               for text, o in zip(translation.options, scenario.options.select_related("category"))]
    dyads = list(scenario.dyads.select_related("actor_a", "actor_b"))
    codes = {actor.code: actor for d in dyads for actor in (d.actor_a, d.actor_b)}
    own = name_is_form(translation.language)
    names = {row.actor.code: ActorName(row.name, forms={**row.forms, **({own: row.name} if own else {})})
             for row in ActorNameTranslation.objects.filter(
                 actor__code__in=codes, language=translation.language).select_related("actor")}
    used = set().union(*(forms_used(text) for text in [translation.template, *translation.options]))
    asked, lacking = [], set()
    for d in dyads:
        pair = {"A": d.actor_a.code, "B": d.actor_b.code}
        gaps = {f"{pair[which]}:{form}" for which, form in used
                if pair[which] in names and form not in names[pair[which]].forms}
        lacking |= gaps
        if not gaps and all(code in names for code in pair.values()):
            asked.append((pair["A"], pair["B"]))
    outcome.missing_names = tuple(sorted(set(codes) - set(names))) + tuple(sorted(lacking))
    expanded = expand_scenario(f"{scenario.benchmark.name}/{scenario.key}", scenario.version,
                               translation.template, options, scenario.qualified_actor, asked, names)
    existing = set(mine.values_list("key", flat=True))
    for q in expanded:
        key = translated_key(q.key, translation.language)
        if key in existing:
            continue
        question = Question.objects.create(
            benchmark_id=scenario.benchmark_id, key=key, kind=Question.Kind.CHOICE, language=translation.language,
            text=q.text, options=[{"text": t, "category": c} for t, c in zip(q.options, q.categories)],
            option_order=list(q.option_order), choice_count=q.choice_count, is_current=True)
        ScenarioQuestion.objects.create(
            question=question, scenario=scenario, variant=q.variant, domain_id=scenario.domain_id,
            actor_a=codes[q.actor_a], actor_b=codes[q.actor_b], qualified_actor=codes[q.qualified_actor])
        outcome.created += 1
    wanted = [translated_key(q.key, translation.language) for q in expanded]
    outcome.retired = mine.exclude(key__in=wanted).filter(is_current=True).update(is_current=False)
    if not scenario.is_frozen:
        mine.exclude(key__in=wanted).delete()
    return outcome
