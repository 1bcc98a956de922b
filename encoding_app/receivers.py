"""Code answers as they arrive: the run engine's signals call the encoding service."""

import logging

from django.dispatch import receiver

from benchmarks_app.models import Question
from runs_app import health, infra
from runs_app.models import Response
from runs_app.signals import answers_writing, responses_answered, responses_imported

from . import judges, services

log = logging.getLogger(__name__)


@receiver(answers_writing, dispatch_uid="code-on-the-way")
def code_on_the_way(sender, rows, **kwargs):
    """Answers read from their chosen letter coded on their way to the database
    (`services.code_chosen_letters`), written by the engine's own statement."""
    return services.code_chosen_letters(rows)


@receiver(responses_answered, dispatch_uid="encode-on-arrival")
def encode_on_arrival(sender, response_ids, questions=None, coded=(), **kwargs):
    """Answers just written (one, or a batch), coded together, but for those already coded
    on the way (`coded`). A judge unit is not an answer: its reading becomes a suggestion
    (or a promoted judge's code). `questions`: the answers' questions (with their
    benchmark) the sender already holds, by id."""
    response_ids = [pk for pk in response_ids if pk not in coded]
    if not response_ids:
        return
    judged = set(judges.judge_units(response_ids))
    for response_id in judged:
        try:
            judges.record_reading(response_id)
        except Exception:
            log.exception("could not read judge unit %s", response_id)
    _encode_or_queue([pk for pk in response_ids if pk not in judged], questions)


def _encode_or_queue(response_ids: list[int], questions: dict | None = None):
    """A failure to encode must not fail the model calls that were already paid for: if
    coding several answers fails, each is coded alone (one bad answer does not hold back
    the others); an answer that fails alone goes to a reviewer instead, with the reason,
    and the error is logged."""
    if not response_ids:
        return
    try:
        services.encode_answers(response_ids, questions=questions)
    except Exception as exc:
        service = infra.service_of(exc)
        if service is not None:
            # The database gone or its disk full (issue 44): no answer's fault, and no
            # reviewer item could be written either. The answers stay uncoded; the
            # watchers code them once the outage ends
            # (`runs_app.services.code_uncoded_answers`).
            health.report(service)
            log.warning("could not encode %d answers: %s failed (%s); coded once it is back",
                        len(response_ids), infra.LABELS[service], exc)
            return
        if len(response_ids) > 1:
            log.exception("could not encode a batch of %d answers; coding them one by one", len(response_ids))
            for response_id in response_ids:
                _encode_or_queue([response_id], questions)
            return
        log.exception("could not encode response %s; queued for a reviewer", response_ids[0])
        services.queue_for_review(response_ids[0], reason="encoder-error",
                                  explanation="The automatic encoder failed on this answer (logged); code it yourself.")


IMPORT_SLICE = 5000
QUESTIONS_KEPT = 50_000  # an import's questions kept between its slices: memory bounded whatever the benchmark


@receiver(responses_imported, dispatch_uid="encode-imported")
def encode_imported(sender, run_id, **kwargs):
    # A run's answers coded together (as each alone): one by one took ~0.5 s a run of 40
    # free-form answers, most of import_free_runs' time. Answers to questions without
    # options are not read at all (the encoder leaves them alone: "not-applicable").
    # A slice at a time, read by key (an import may bring a million answers, and
    # encode_answers holds its answers' rows: issue 32, memory bounded whatever the file).
    has_options: dict[int, bool] = {}
    questions: dict = {}  # read once per import, not once per slice (at most QUESTIONS_KEPT of them)
    last = 0
    while True:
        page = list(Response.objects.filter(run_id=run_id, pk__gt=last).order_by("pk")
                    .values_list("pk", "question_id")[:IMPORT_SLICE])
        unknown = {question_id for _, question_id in page if question_id not in has_options}
        if unknown:
            has_options.update((pk, bool(options)) for pk, options in Question.objects.filter(pk__in=unknown)
                               .values_list("pk", "options"))
        answers = [pk for pk, question_id in page if has_options.get(question_id)]
        if answers:
            if len(questions) > QUESTIONS_KEPT:
                questions.clear()
            services.encode_answers(answers, questions=questions)
        if len(page) < IMPORT_SLICE:
            break
        last = page[-1][0]
