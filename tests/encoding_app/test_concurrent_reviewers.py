"""Reviewers working at once, each on their own database connection: nobody ever holds
an item someone else holds. On PostgreSQL the queue uses SELECT … FOR UPDATE SKIP
LOCKED; the SQLite pass checks the conditional-update path the same way."""

import threading
import time

import pytest
from django.db import connection, connections

from accounts.services import create_user_with_role
from encoding_app import services
from encoding_app.models import Code, CodingPolicy, ReviewTask
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import three_option_spec

# serialized_rollback: the flush after each test would otherwise wipe the seeded taxonomy and actors.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

REVIEWERS = 4
ITEMS = 24


def _queue_of_items():
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="concurrent")
    dyads = [("CN", "JP"), ("US", "CU"), ("RU", "GB"), ("IN", "PK"), ("FR", "DE"), ("BR", "AR")]
    authoring.save_spec(benchmark, three_option_spec(dyads=dyads))
    model = LLMModel.objects.create(name="gen", litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark)
    for question in benchmark.questions.all():
        for repeat in range(ITEMS // benchmark.questions.count()):
            response = Response.objects.create(run=run, question=question, model=model, repeat=repeat, status="done",
                                               raw_output="A or B",
                                               option_order=list(range(question.choice_count)))
            responses_answered.send(sender=Response, response_ids=[response.pk])
    assert ReviewTask.objects.filter(status="open").count() == ITEMS


def test_concurrent_reviewers_never_get_the_same_item():
    _queue_of_items()
    users = [create_user_with_role(f"rev{i}", "persona-pass-123", role="reviewers")[0] for i in range(REVIEWERS)]
    start = threading.Barrier(REVIEWERS)
    held: dict[str, list[int]] = {user.username: [] for user in users}
    errors = []

    def work(user):
        try:
            start.wait()
            while True:
                task = services.next_task(user)
                if task is None:
                    return
                held[user.username].append(task.pk)
                time.sleep(0.02)  # a reviewer reads before coding: the others lease meanwhile
                services.submit_code(task.pk, user, "AB"[task.pk % 2])
        except Exception as error:  # surfaced below: a thread's failure must fail the test
            errors.append(repr(error))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    every = [pk for pks in held.values() for pk in pks]
    assert len(every) == ITEMS and len(set(every)) == ITEMS  # each item held once, by one reviewer
    assert sum(1 for pks in held.values() if pks) >= 2  # the work really was shared
    assert Code.objects.count() == ITEMS
    assert not ReviewTask.objects.filter(status="open").exists()
    assert connection.vendor in ("postgresql", "sqlite")
