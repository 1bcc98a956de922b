"""A unit's foreign keys are kept by Django, not by database constraints (runs_app
migration 0018: their checks were ~40 % of a paper-scale launch). What they did still
holds through Django's collector: a question, model or condition with units cannot be
deleted (PROTECT), a run's deletion takes its units and their follow-ups (CASCADE), a
provider batch's deletion leaves its units without one (SET_NULL). What is given up is
named by the last test: the database no longer refuses an id that does not exist."""

import pytest
from django.db import connection, transaction
from django.db.models.deletion import ProtectedError

from benchmarks_app.models import Condition
from runs_app.models import LLMModel, ProviderBatch, Response, Run
from tests.runs_app.test_execution import benchmark, fake, launch, model  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


def test_a_question_model_or_condition_with_units_is_protected(benchmark, fake, monkeypatch):
    asked = model(fake)
    run = launch(benchmark, [asked], monkeypatch)
    unit = run.responses.order_by("pk").first()
    other = Condition.objects.create(name="other-condition")
    Response.objects.filter(pk=unit.pk).update(condition=other)
    for protected in (unit.question, asked, other):
        with pytest.raises(ProtectedError):
            protected.delete()
    assert Response.objects.filter(pk=unit.pk).exists()
    # Without units, each can go.
    Run.objects.filter(pk=run.pk).delete()
    other.delete()
    asked.delete()
    assert not LLMModel.objects.filter(pk=asked.pk).exists()


def test_a_runs_deletion_takes_its_units_and_their_follow_ups(benchmark, fake, monkeypatch):
    first, second = launch(benchmark, [model(fake)], monkeypatch), None
    unit = first.responses.order_by("pk").first()
    second = Run.objects.create(benchmark=benchmark)
    # A follow-up in another run (as a conversation's next turn would be, but elsewhere):
    # the cascade follows `previous`, not only the run.
    follow = Response.objects.create(run=second, question=unit.question, model=unit.model, previous=unit)
    kept = Response.objects.create(run=second, question=unit.question, model=unit.model, repeat=1)
    count = first.responses.count()
    assert count == 4  # 4 questions, a choice model asks each once
    first.delete()
    assert not Response.objects.filter(run_id=first.pk).exists()
    assert not Response.objects.filter(pk=follow.pk).exists() and Response.objects.filter(pk=kept.pk).exists()


def test_a_provider_batchs_deletion_leaves_its_units_without_one(benchmark, fake, monkeypatch):
    asked = model(fake)
    run = launch(benchmark, [asked], monkeypatch)
    batch = ProviderBatch.objects.create(run=run, model=asked)
    run.responses.update(provider_batch=batch)
    assert run.responses.filter(provider_batch=batch).count() == 4
    batch.delete()
    assert run.responses.filter(provider_batch__isnull=True).count() == 4


def test_the_database_no_longer_refuses_a_unit_whose_keys_do_not_exist(benchmark, fake, monkeypatch):
    """The trade-off, stated: a row written past Django (raw SQL) with ids that name
    nothing is kept. Every write path of the product writes ids it has just read."""
    run = launch(benchmark, [model(fake)], monkeypatch)
    unit = run.responses.order_by("pk").first()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE runs_app_response SET question_id = %s, model_id = %s, condition_id = %s, "
                       "previous_id = %s WHERE id = %s", [10**9, 10**9, 10**9, 10**9, unit.pk])
    assert Response.objects.filter(pk=unit.pk, question_id=10**9, previous_id=10**9).exists()
