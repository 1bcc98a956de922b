"""tests/db_restore.py puts back exactly the rows Django saved when it made the test
database: every row of every table, with its many-to-many rows, no more."""

import json

import pytest
from django.db import connection

from benchmarks_app.models import Actor
from tests import db_restore


def _rows(serialized: str) -> list:
    """Every row, in one order; a many-to-many field's ids sorted (the serializer lists
    them in the order the database returns them)."""
    rows = json.loads(serialized)
    for row in rows:
        for name, value in row["fields"].items():
            if isinstance(value, list) and all(isinstance(v, int) for v in value):
                row["fields"][name] = sorted(value)
    return sorted(rows, key=lambda row: (row["model"], str(row["pk"])))


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_rows_put_back_into_empty_tables_are_the_rows_saved():
    from django.core.management import call_command

    saved = connection._test_serialized_contents
    # As after such a test (TransactionTestCase's own flush).
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False, inhibit_post_migrate=True)
    assert not Actor.objects.exists()
    db_restore.deserialize_in_bulk(connection.creation, saved)
    now = _rows(connection.creation.serialize_db_to_string())
    assert now == _rows(saved)
    assert len(now) > 500  # the migrations' actors, permissions, content types...
    # Many-to-many rows among them: the roles' permissions.
    assert any(row["model"] == "auth.group" and row["fields"]["permissions"] for row in now)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_tables_that_hold_rows_take_djangos_way():
    saved = connection._test_serialized_contents
    actor = Actor.objects.order_by("pk").first()
    Actor.objects.filter(pk=actor.pk).update(name="changed")
    db_restore.deserialize_in_bulk(connection.creation, saved)  # no duplicate key: rows updated
    assert Actor.objects.get(pk=actor.pk).name == actor.name



@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_flush_leaves_every_table_empty():
    from django.core.management import call_command

    from benchmarks_app.models import Benchmark
    from runs_app.models import LLMModel, Response, Run

    benchmark = Benchmark.objects.create(name="b")
    run = Run.objects.create(benchmark=benchmark, status="done")
    question = benchmark.questions.create(key="b/q", text="?", options=[], option_order=[], choice_count=0)
    Response.objects.create(run=run, question=question, model=LLMModel.objects.first(), status="done")
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False, inhibit_post_migrate=True)
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        full = [table for table in tables
                if cursor.execute(f"SELECT 1 FROM {connection.ops.quote_name(table)} LIMIT 1").fetchone()]
    assert full == []
    assert len(tables) > 50
