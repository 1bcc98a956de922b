"""The demo's translations (issue 41): a few of the demo benchmark's scenarios drafted in
another language by a bundled model, through the same path an author's request takes
(`drafting.request_draft` → `drafting.run_draft`: the gateway, the slot check, the
back-translation and its chrF/BERTScore), then approved by the demo's author, whose
profile lists the language. A draft the slot check refuses (or a model that fails) is
said and skipped, never fatal: the demo goes on with the translations that passed.

Each translation records where it came from, as every model's draft does
(`provenance = model:NAME draft:ID`, the model and its prompt, the back-translation model);
the actors' names in the language come from a fixture written for the demo
(`fixtures/demo_actor_names_<lang>.csv`, provenance `demo fixture`), not from a model.
`load_demo` alone makes none of this (tests count its questions); `translate_demo` does.

The demo's author approves a model's draft only when it passed the slot check and is
written in the language's script (`script_share`, at least half of its letters). The
bundled Gemma 3 270M is a base model: asked for a whole field with an instruction it goes on
in English; asked sentence by sentence after worked examples (`draft_segments`, the path
every bundled model's draft takes) it writes Chinese, each sentence that drops a slot asked
again, sampled. Its drafts are poor translations: the back-translation's chrF and BERTScore
beside each item say how far each drifted, which is what the demo shows an author. A draft
that still loses a slot is refused and said; the scenario is then asked in the language from
the demo's own translation, written by a person for the demo
(`fixtures/demo_translations_<lang>.csv`, the translators' CSV format), saved with
provenance `person: demo fixture` and approved by the same author. Every line the command
prints, and each translation's page, says which of the two a translation is.
"""

from __future__ import annotations

import csv
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks_app.language_codes import reads
from runs_app.models import LLMModel

from . import drafting, translations
from .models import Actor, Scenario, ScenarioTranslation, TranslationDraft
from .slots import SLOT

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Three escalation scenarios whose dyads ask China and the United States (the demo's
# "US and China" step), one of them with three options; short templates (about 500
# characters) so that a 270M model drafts each in minutes on 2 cores.
DEMO_SCENARIOS = ("esc2-war-treaty-ally-invaded", "esc2-clash-border-outposts", "esc3-clash-border-detentions")
DEMO_MODEL = "local-gemma3"  # Gemma 3 was trained on many languages; SmolLM2 on English
ACTOR_NAMES_PROVENANCE = "demo fixture"
FIXTURE_PROVENANCE = "person: demo fixture"
SCRIPT_SHARE = 0.5  # a draft with fewer of its letters in the language's script is not the language
# langcodes' likely script of a language → the prefix of its letters' Unicode names.
_SCRIPT_NAMES = {"Hans": "CJK UNIFIED", "Hant": "CJK UNIFIED", "Hani": "CJK UNIFIED", "Jpan": "CJK UNIFIED",
                 "Arab": "ARABIC", "Cyrl": "CYRILLIC", "Hebr": "HEBREW", "Grek": "GREEK", "Kore": "HANGUL",
                 "Deva": "DEVANAGARI", "Thai": "THAI"}
WAIT_SECONDS = 1800  # a draft a worker took: the longest this waits for it


class DemoTranslationError(ValueError):
    """The demo's translations cannot start (no demo benchmark, no author, no such model)."""


@dataclass
class Outcome:
    key: str
    status: str  # approved, kept (approved before), fixture (the demo's own), refused, not approved, failed
    detail: str = ""
    questions: int = 0
    draft_id: int | None = None


@dataclass
class DemoTranslations:
    language: str
    outcomes: list[Outcome] = field(default_factory=list)
    names_set: int = 0

    @property
    def approved(self) -> int:
        return sum(o.status in ("approved", "kept", "fixture") for o in self.outcomes)

    @property
    def drafted(self) -> int:
        """Approved translations that are a model's drafts (now or before)."""
        return sum(o.status == "approved" or (o.status == "kept" and o.detail.startswith("approved before (model:"))
                   for o in self.outcomes)


def actor_names(language: str) -> dict[str, str]:
    """The demo fixture's actor names in `language` (code → name); empty when it has none."""
    path = FIXTURES / f"demo_actor_names_{language}.csv"
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["code"]: row["name"] for row in csv.DictReader(handle) if row["language"] == language}


def script_share(text: str, language: str) -> float | None:
    """The share of `text`'s letters (slots left out) in `language`'s likely script; None
    when the script is Latin or unknown here (English cannot be told from it by letters).
    E.g. "[Actor A]应与[Actor B]谈判 now": 4 Han letters of 7 → 4/7."""
    from langcodes import Language

    script = Language.get(language).maximize().script
    prefix = _SCRIPT_NAMES.get(script or "")
    if prefix is None:
        return None
    letters = [ch for ch in SLOT.sub("", text) if ch.isalpha()]
    if not letters:
        return 0.0
    return sum(unicodedata.name(ch, "").startswith(prefix) for ch in letters) / len(letters)


def fixture_translations(language: str, benchmark: str = "demo") -> dict[str, dict[str, tuple[str, str]]]:
    """The demo's own translations in `language`: scenario key → field → (source, text)."""
    path = FIXTURES / f"demo_translations_{language}.csv"
    if not path.exists():
        return {}
    found: dict[str, dict[str, tuple[str, str]]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            bench, _, versioned = row["key"].partition("/")
            if bench == benchmark:
                found.setdefault(versioned.rsplit(".v", 1)[0], {})[row["field"]] = (row["source"], row["text"])
    return found


def _wait(draft: TranslationDraft, wait_seconds: float) -> TranslationDraft:
    """The draft once finished (a worker may have claimed it before this process did)."""
    deadline = time.monotonic() + wait_seconds
    final = {TranslationDraft.Status.DONE, TranslationDraft.Status.REFUSED, TranslationDraft.Status.FAILED}
    while True:
        draft.refresh_from_db()
        if draft.status in final or time.monotonic() > deadline:
            return draft
        time.sleep(2)


def translate_demo(language: str, *, benchmark: str = "demo", keys=DEMO_SCENARIOS, model_name: str = DEMO_MODEL,
                   back_model_name: str | None = None, author=None, progress=None,
                   wait_seconds: float = WAIT_SECONDS, drafts: int | None = None) -> DemoTranslations:
    """Draft `keys` of `benchmark` in `language` with `model_name` (back-translated by
    `back_model_name`, the same model by default), and approve each draft the slot check
    passed as `author` (the demo's author: the first superuser), adding `language` to the
    author's profile. Idempotent: a scenario already approved in the language is kept.
    `drafts`: ask the model for the first N scenarios only (a draft costs the bundled
    Gemma about a minute of CPU); the others take the demo's own translation at once."""
    say = progress or (lambda line: None)
    translations.check_language(language)
    if author is None:
        from .transfer import default_author
        author = default_author()
    if author is None:
        raise DemoTranslationError("no author to approve the translations: run create_admin first")
    try:
        model = LLMModel.objects.get(name=model_name)
        back_model = LLMModel.objects.get(name=back_model_name or model_name)
    except LLMModel.DoesNotExist as exc:
        raise DemoTranslationError(f"no registered model {back_model_name or model_name!r} "
                                   "(the bundled models are registered by migrate)") from exc
    scenarios = {s.key: s for s in Scenario.objects.filter(benchmark__name=benchmark, key__in=keys, is_current=True)}
    missing = [key for key in keys if key not in scenarios]
    if missing:
        raise DemoTranslationError(f"benchmark {benchmark!r} has no scenario {', '.join(missing)}: run load_demo first")
    known = translations.languages_of(author)
    if not reads(known, language):
        translations.set_languages(author, [*known, language])
        say(f"{author.username}'s profile now lists {language} (the demo's author approves the drafts)")
    result = DemoTranslations(language)
    fixtures = fixture_translations(language, benchmark)
    names = actor_names(language)
    for actor in Actor.objects.filter(code__in=names):
        translations.set_actor_name(actor, language, names[actor.code], translated_by=author,
                                    provenance=ACTOR_NAMES_PROVENANCE)
        result.names_set += 1
    for key in keys:
        scenario = scenarios[key]
        existing = ScenarioTranslation.objects.filter(scenario=scenario, language=language).first()
        if existing is not None and existing.usable:
            result.outcomes.append(Outcome(key, "kept", f"approved before ({existing.provenance})",
                                           _questions(scenario, language)))
            say(f"{key} [{language}]: approved before, kept ({existing.provenance})")
            continue
        if drafts is not None and sum(o.draft_id is not None for o in result.outcomes) >= drafts:
            outcome = Outcome(key, "not drafted", f"the model drafts {drafts} scenario(s) here (--drafts)", 0)
        else:
            say(f"{key} [{language}]: {model.name} drafts it, {back_model.name} translates it back")
            draft = drafting.request_draft(scenario, language, model, back_model, requested_by=author)
            drafting.run_draft(draft.pk)  # None when a worker claimed it first: then waited for
            draft = _wait(draft, wait_seconds)
            outcome = _settle(draft, author, language)
        say(f"{key} [{language}]: {outcome.status}" + (f": {outcome.detail}" if outcome.detail else ""))
        if outcome.status != "approved":
            fallback = _from_fixture(scenario, language, author, fixtures.get(key))
            if fallback is not None:
                fallback.draft_id = outcome.draft_id
                outcome = fallback
                say(f"{key} [{language}]: {outcome.status}: {outcome.detail}")
        result.outcomes.append(outcome)
    return result


def _from_fixture(scenario: Scenario, language: str, author, fields: dict | None) -> Outcome | None:
    """The demo's own translation of `scenario` (written by a person), saved and approved by
    `author`; None when the fixture has none for its current text."""
    if not fields:
        return None
    source = translations.source_fields(scenario)
    if {name: pair[0] for name, pair in fields.items()} != source:
        return None  # the fixture translates another text than the scenario's current one
    translation = translations.save_translation(
        scenario, language, {name: pair[1] for name, pair in fields.items()}, provenance=FIXTURE_PROVENANCE)
    translations.approve_translation(translation, author)
    return Outcome(scenario.key, "fixture", f"the demo's own translation, written by a person ({FIXTURE_PROVENANCE}), "
                                            f"approved by {author.username}", _questions(scenario, language))


def _questions(scenario: Scenario, language: str) -> int:
    return scenario.questions.filter(language=language, is_current=True).count()


def _settle(draft: TranslationDraft, author, language: str) -> Outcome:
    key = draft.scenario.key
    if draft.status == TranslationDraft.Status.REFUSED:
        return Outcome(key, "refused", draft.reason, draft_id=draft.pk)
    if draft.status != TranslationDraft.Status.DONE or draft.translation is None:
        return Outcome(key, "failed", draft.reason or f"the draft is still {draft.status}", draft_id=draft.pk)
    texts = " ".join((draft.fields or {}).values())
    share = script_share(texts, language)
    if share is not None and share < SCRIPT_SHARE:
        return Outcome(key, "not approved", f"{draft.model.name}'s draft passed the slot check but is not written in "
                                            f"{drafting.language_name(language)} ({share:.0%} of its letters in the "
                                            f"language's script; the demo's author approves {SCRIPT_SHARE:.0%} or more)",
                       draft_id=draft.pk)
    try:
        translation = translations.approve_translation(draft.translation, author)
    except translations.TranslationError as exc:
        return Outcome(key, "failed", str(exc), draft_id=draft.pk)
    scored = [s for s in (draft.scores or {}).values() if isinstance(s, dict)]
    drifted = sum(bool(s.get("drifted")) for s in scored)
    chrf = [s["chrf"] for s in scored if s.get("chrf") is not None]
    quality = (f"back-translation chrF {sum(chrf) / len(chrf):.0f} (mean of {len(chrf)} items), "
               f"{drifted} drifted" if chrf else "no back-translation score")
    return Outcome(key, "approved",
                   f"a machine draft ({translation.provenance}), approved by {author.username}; {quality}",
                   _questions(draft.scenario, language), draft.pk)
