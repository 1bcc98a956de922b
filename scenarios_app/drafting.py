"""A model's draft of a scenario's translation, checked before anyone trusts it (issue 41).

An author asks for one (`request_draft`: a `TranslationDraft` row, queued for a worker once
its transaction commits); the worker's task (`tasks.translation_draft` → `run_draft`)
claims it, asks the model for each field (template, option_a, …) through the gateway
(`runs_app.single_calls.ask_text`), checks the slots and options as every translation is
checked (`slots.check_translation`: a draft that loses or adds one is refused, with the
slot and field, and is not saved as a translation), asks the back-translation model for
each field in the source language, scores each field's back-translation against its source
(chrF and BERTScore: `analysis_app.translation_quality`) and saves the draft as a draft
translation (`translations.save_translation`) with where it came from (model, prompt,
time) and its scores. Nothing is asked of models in that language until an author who
reads it approves it (`translations.approve_translation`), as for an upload.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone
import pycountry
from langcodes import Language

from analysis_app import translation_quality
from benchmarks_app.language_codes import SOURCE_LANGUAGE
from runs_app import queueing
from runs_app.models import LLMModel
from runs_app.single_calls import CallFailed, NotAskable, ask_text, check_askable

from . import draft_segments, translations
from .models import Scenario, TranslationDraft

TASK = "scenarios_app.tasks.translation_draft"  # scenarios_app.tasks registers its task under this name
MAX_TOKENS = 400  # a field's translation: a scenario's template is a few sentences
SENTENCE_TOKENS = 120  # one sentence's translation by a bundled model (`draft_segments`)
SENTENCE_RETRIES = 6  # a bundled model's sentence that loses or adds a slot: asked again, sampled
RETRY_TEMPERATURE = 0.8

log = logging.getLogger(__name__)

PROMPT = (
    "Translate the text below from {source_name} ({source}) into {target_name} ({target}).\n"
    "Keep every bracketed placeholder such as [Actor A] and [Actor B] exactly as written, "
    "untranslated, as often as it appears. Reply with the translation only, no notes.\n\n"
    "Text:\n{text}"
)


def language_name(code: str) -> str:
    """English name of a BCP 47 code's language (zh, zh-Hant → Chinese) from ISO 639
    (pycountry); the code itself for one it does not name."""
    try:
        subtag = Language.get(code).language or ""
    except ValueError:
        return code
    found = (pycountry.languages.get(alpha_2=subtag) if len(subtag) == 2
             else pycountry.languages.get(alpha_3=subtag) if len(subtag) == 3 else None)
    return found.name if found is not None else code


def prompt_for(text: str, source: str, target: str) -> str:
    return PROMPT.format(source_name=language_name(source), source=source, target_name=language_name(target),
                         target=target, text=text)


def clean_reply(text: str) -> str:
    """A model's reply as a translation: surrounding space and quotes a model adds trimmed."""
    text = (text or "").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'“”「":
        text = text[1:-1].strip()
    return text


def translate(model: LLMModel, text: str, source: str, target: str, *, guard_slots: bool = True) -> tuple[str, str]:
    """`model`'s translation of `text` and the prompt it was asked with (as recorded). A
    provider's model translates the whole text at once (`PROMPT`); a bundled model sentence
    by sentence after worked examples (`draft_segments`), each sentence that loses or adds
    a slot asked again, sampled with seeds 1, 2, … (`guard_slots`; the greedy reply is kept
    when none keeps them, and the draft's slot check then says where)."""
    if not model.is_bundled:
        prompt = prompt_for(text, source, target)
        return clean_reply(ask_text(model, prompt, max_tokens=MAX_TOKENS).text), prompt
    examples = draft_segments.examples_for(source, target, draft_segments.load_examples())
    head = draft_segments.head(language_name(source), source, language_name(target), target, examples)
    replies, asked = [], []
    for sentence in draft_segments.split_sentences(text):
        user = draft_segments.segment_prompt(sentence)
        kept = None
        for attempt in range(1 + (SENTENCE_RETRIES if guard_slots else 0)):
            sampled = {"temperature": RETRY_TEMPERATURE, "seed": attempt} if attempt else {}
            reply = clean_reply(ask_text(model, user, system=head, stop=draft_segments.STOP,
                                         max_tokens=SENTENCE_TOKENS, **sampled).text)
            keeps = not guard_slots or draft_segments.keeps_slots(sentence, reply, target)
            if kept is None or keeps:
                kept = reply
            if keeps:
                break
        replies.append(kept)
        asked.append(user)
    return draft_segments.join_sentences(replies, target), "\n\n".join([head, *asked])


class DraftRefused(ValueError):
    """A draft that cannot be requested; the message says why."""


def request_draft(scenario: Scenario, language: str, model: LLMModel, back_model: LLMModel,
                  requested_by=None) -> TranslationDraft:
    """Queue a model's draft of `scenario` in `language` for a worker (off the request
    thread). A draft of the same scenario and language already waiting or running is
    returned, not doubled."""
    try:
        translations.check_language(language)
        check_askable(model)
        check_askable(back_model)
    except (translations.TranslationError, NotAskable) as exc:
        raise DraftRefused(str(exc)) from exc
    with transaction.atomic():
        waiting = TranslationDraft.objects.select_for_update().filter(
            scenario=scenario, language=language, status__in=[TranslationDraft.Status.QUEUED,
                                                               TranslationDraft.Status.RUNNING]).first()
        if waiting is not None:
            return waiting
        fields = translations.source_fields(scenario)
        draft = TranslationDraft.objects.create(
            scenario=scenario, language=language, model=model, back_model=back_model, requested_by=requested_by,
            step="waiting for a worker", total=2 * len(fields))
        transaction.on_commit(lambda: queueing.publish(TASK, [draft.pk]))
    return draft


def _progress(draft: TranslationDraft, **fields):
    for name, value in fields.items():
        setattr(draft, name, value)
    TranslationDraft.objects.filter(pk=draft.pk).update(**fields)


def _finish(draft: TranslationDraft, status: str, reason: str = "", **fields):
    _progress(draft, status=status, reason=reason, step="", finished_at=timezone.now(), **fields)


def run_draft(draft_id: int) -> TranslationDraft | None:
    """The worker's part: claim the queued draft (a message sent twice runs once), ask,
    check, back-translate, score and save. Returns the draft, or None when it was not
    this call's to run. A model's failure is recorded on the draft, never raised."""
    if not TranslationDraft.objects.filter(pk=draft_id, status=TranslationDraft.Status.QUEUED).update(
            status=TranslationDraft.Status.RUNNING, started_at=timezone.now(), step="starting"):
        return None
    draft = TranslationDraft.objects.select_related("scenario", "model", "back_model").get(pk=draft_id)
    scenario, language = draft.scenario, draft.language
    source = translations.source_fields(scenario)
    try:
        drafted, prompts = {}, {}
        for field, text in source.items():
            _progress(draft, step=f"{draft.model.name}: translating {field} into {language}")
            drafted[field], prompts[field] = translate(draft.model, text, SOURCE_LANGUAGE, language)
            _progress(draft, done=draft.done + 1, prompts=prompts, fields=drafted)
        problems = translations.problems_of(scenario, drafted, language)
        if problems:
            # Refused as an upload would be, each slot and field named; not saved as a translation.
            _finish(draft, TranslationDraft.Status.REFUSED,
                    "The draft loses or adds a slot or an option, so it was not saved: "
                    + "; ".join(str(p) for p in problems))
            return draft
        back = {}
        for field, text in drafted.items():
            _progress(draft, step=f"{draft.back_model.name}: translating {field} back into {SOURCE_LANGUAGE}")
            back[field] = translate(draft.back_model, text, language, SOURCE_LANGUAGE, guard_slots=False)[0]
            _progress(draft, done=draft.done + 1, back_translation=back)
        _progress(draft, step="scoring the back-translation (chrF, BERTScore)")
        scores = {field: score.as_dict()
                  for field, score in translation_quality.score_items(source, back).items()}
        translation = translations.save_translation(
            scenario, language, drafted, translated_by=draft.requested_by,
            provenance=f"model:{draft.model.name} draft:{draft.pk}", model_name=draft.model.name,
            prompt=prompts.get("template", ""), back_model_name=draft.back_model.name, back_translation=back,
            scores=scores)
    except translations.TranslationError as exc:  # e.g. an approved translation already asked
        _finish(draft, TranslationDraft.Status.REFUSED, str(exc))
        return draft
    except (CallFailed, NotAskable, translation_quality.EncoderMissing) as exc:
        _finish(draft, TranslationDraft.Status.FAILED, f"{type(exc).__name__}: {exc}"[:2000])
        return draft
    except Exception as exc:  # recorded on the draft, so that the author's page says so
        log.exception("translation draft %s failed", draft_id)
        _finish(draft, TranslationDraft.Status.FAILED, f"{type(exc).__name__}: {exc}"[:2000])
        return draft
    _finish(draft, TranslationDraft.Status.DONE, translation=translation, scores=scores)
    return draft


def latest_draft(translation) -> TranslationDraft | None:
    return TranslationDraft.objects.filter(scenario=translation.scenario, language=translation.language).first()
