"""Code answers as they arrive: the run engine's signals call the encoding service."""

import logging

from django.dispatch import receiver

from benchmarks_app.models import Question
from runs_app.models import Response
from runs_app.signals import response_answered, responses_answered, responses_imported

from . import judges, services

log = logging.getLogger(__name__)


@receiver(response_answered, dispatch_uid="encode-on-arrival")
def encode_on_arrival(sender, response_id, **kwargs):
    """A failure to encode must not fail the model call that was already paid for: the
    answer goes to a reviewer instead, with the reason, and the error is logged. A judge
    unit is not an answer: its reading becomes a suggestion (or a promoted judge's code)."""
    if judges.judge_units([response_id]):
        try:
            judges.record_reading(response_id)
        except Exception:
            log.exception("could not read judge unit %s", response_id)
        return
    try:
        services.encode_response(response_id)
    except Exception:
        log.exception("could not encode response %s; queued for a reviewer", response_id)
        services.queue_for_review(response_id, reason="encoder-error",
                                  explanation="The automatic encoder failed on this answer (logged); code it yourself.")


@receiver(responses_answered, dispatch_uid="encode-batch-on-arrival")
def encode_batch_on_arrival(sender, response_ids, **kwargs):
    """A batch of answers, coded together; judge units read one by one. If coding the
    batch fails, each answer goes through `encode_on_arrival` (so a failure reaches the
    reviewers with its reason, and one bad answer does not hold back the others)."""
    judged = set(judges.judge_units(response_ids))
    for response_id in judged:
        encode_on_arrival(sender, response_id)
    answers = [pk for pk in response_ids if pk not in judged]
    try:
        services.encode_new_answers(answers)
    except Exception:
        log.exception("could not encode a batch of %d answers; coding them one by one", len(answers))
        for response_id in answers:
            encode_on_arrival(sender, response_id)


@receiver(responses_imported, dispatch_uid="encode-imported")
def encode_imported(sender, run_id, **kwargs):
    # A run's answers coded together (as each alone): one by one took ~0.5 s a run of 40
    # free-form answers, most of import_free_runs' time. Answers to questions without
    # options are not read at all (the encoder leaves them alone: "not-applicable").
    answers = list(Response.objects.filter(run_id=run_id).order_by("pk").values_list("pk", "question_id"))
    with_options = {pk for pk, options in Question.objects.filter(pk__in={q for _, q in answers})
                    .values_list("pk", "options") if options}
    answers = [pk for pk, question_id in answers if question_id in with_options]
    if answers:
        services.encode_new_answers(answers)
