"""The units of a launch without permuted options, made by the server in one INSERT …
SELECT on PostgreSQL (`unit_rows.insert_unit_grid`), are the units the Python generator
streams through COPY elsewhere: the same rows, in the same id order, every other column
at its default."""

import pytest
from django.db import connection
from django.utils import timezone

from benchmarks_app import services as questions_service
from benchmarks_app.models import Condition
from runs_app import services, unit_rows
from runs_app.models import Response
from runs_app.planning import option_order
from tests.runs_app.test_execution import benchmark, fake, launch, model  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

COLUMNS = ["question_id", "model_id", "condition_id", "repeat", "option_order", "status", "attempts", "code",
           "messages", "params", "raw_output", "cost", "latency_ms", "cache_hit", "enqueued_at"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the server-made units are PostgreSQL's path")
def test_the_server_makes_the_units_the_generator_would(benchmark, fake, monkeypatch):
    choice, sampled = model(fake), model(fake, name="sampled", answer_mode="generate")
    other = Condition.objects.create(name="other-condition")
    run = launch(benchmark, [choice, sampled], monkeypatch, repeats=3)  # made by the server
    now = run.responses.first().enqueued_at
    questions = list(benchmark.questions.order_by("pk").values_list("pk", "choice_count"))
    conditions = [other.pk, questions_service.default_condition().pk]
    models = [(choice.pk, 1), (sampled.pk, 3)]
    grid = services.create_run("launch", benchmark, [choice, sampled])
    assert unit_rows.insert_unit_grid(grid.pk, [(q, c) for q, _ in questions for c in conditions], models, now) \
        == len(questions) * 2 * (1 + 3)  # questions x 2 conditions x (1 + 3 repeats)
    streamed = services.create_run("launch", benchmark, [choice, sampled])
    counts = dict(questions)
    unit_rows.insert_units(streamed.pk, ((q, m, c, r, option_order(counts[q], False, 0, "")) for q, _ in questions
                                         for c in conditions for m, repeats in models for r in range(repeats)), now)

    def rows(of):
        return list(Response.objects.filter(run=of).order_by("pk").values_list(*COLUMNS))

    assert rows(grid) == rows(streamed) and rows(grid)[0][4] == [0, 1, 2]
    assert [row[:5] for row in rows(run)] == [row[:5] for row in rows(grid) if row[2] == conditions[1]]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the server-made units are PostgreSQL's path")
def test_an_empty_grid_writes_nothing(benchmark, fake):
    choice = model(fake)
    run = services.create_run("launch", benchmark, [choice])
    pair = (benchmark.questions.order_by("pk").first().pk, questions_service.default_condition().pk)
    now = timezone.now()
    assert unit_rows.insert_unit_grid(run.pk, [], [(choice.pk, 1)], now) == 0
    assert unit_rows.insert_unit_grid(run.pk, [pair], [], now) == 0
    assert unit_rows.insert_unit_grid(run.pk, [pair], [(choice.pk, 0)], now) == 0
    assert not run.responses.exists()


def last_analyze():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # the statistics views are read once per transaction
        cursor.execute("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = %s", [Response._meta.db_table])
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ANALYZE after a large launch is PostgreSQL's")
@pytest.mark.parametrize("threshold, analysed", [(1, True), (10**9, False)])
def test_a_large_launch_refreshes_the_answers_statistics_once_committed(
        benchmark, fake, monkeypatch, django_capture_on_commit_callbacks, threshold, analysed):
    # Stale statistics made the planner walk a new 10.6 M-unit run's (run, id) index for its
    # run page's workers (3 s; 0.04 s once analysed): a launch of at least ANALYZE_AFTER
    # units analyses the table after its commit; a smaller one leaves it to autovacuum.
    monkeypatch.setattr(unit_rows, "ANALYZE_AFTER", threshold)
    before = last_analyze()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        launch(benchmark, [model(fake)], monkeypatch)
    after = last_analyze()
    assert (after is not None and after != before) is analysed, (before, after, len(callbacks))
