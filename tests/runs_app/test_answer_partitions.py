"""The answers partitioned by run on PostgreSQL (issue 42, `runs_app.partitions`): every run
gets its partition from the database whatever made it, its units land there, `delete_run`
drops it (and nothing of another run), a deletion that cannot get the answers' lock leaves
the run whole, a run deleted or truncated another way leaves no partition, and the
conversion keeps every row, id, index name, trigger and tally; the `partition_answers`
command converts, says what it did, refuses with runs live and undoes. Partitioning is
opt-in: the module converts the test database's table before its first test and back after
its last (a finalizer, whatever failed), so every other module runs on the plain table.
Services pass, but for the command's refusal on SQLite (embedded pass)."""

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from runs_app import execution, partitions, run_deletion, services, transitions
from runs_app.launching import RunError
from runs_app.models import LLMModel, Response, Run
from tests.runs_app.test_execution import benchmark, launch  # noqa: F401 (fixture)
from tests.runs_app.test_run_deletion import kept_of, other_run
from tests.runs_app.test_run_progress_counters import assert_counters_equal_a_recount
from tests.scenarios_app.test_analysis import answered  # noqa: F401 (fixture)
from tests.scenarios_app.test_analysis_tally import recounted, tallied

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@pytest.fixture(scope="module", autouse=True)
def partitioned_answers(django_db_setup, django_db_blocker):
    """The answers partitioned (committed: the transactional tests below flush) for this
    module, one plain table again after it, even when a test or the conversion failed."""
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            yield
            return
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                partitions.convert(cursor, partitioned=True)
            yield
        finally:
            with transaction.atomic(), connection.cursor() as cursor:
                partitions.convert(cursor, partitioned=False)


def sql(query: str, params=()):
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        return cursor.fetchall()


def partition_of_units(run: Run) -> set[str]:
    return {name for (name,) in sql("SELECT DISTINCT tableoid::regclass::text FROM runs_app_response "
                                    "WHERE run_id = %s", [run.pk])}


def shape() -> dict:
    """Index names and definitions (the table's name aside), constraints and triggers."""
    indexes = sql("SELECT indexname, replace(indexdef, ' ONLY ', ' ') FROM pg_indexes "
                  "WHERE tablename = 'runs_app_response' AND indexname <> 'runs_app_response_pkey' ORDER BY 1")
    constraints = sql("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                      "WHERE conrelid = 'runs_app_response'::regclass AND contype <> 'p' ORDER BY 1")
    triggers = sql("SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger "
                   "WHERE tgrelid = 'runs_app_response'::regclass AND NOT tgisinternal ORDER BY 1")
    columns = sql("SELECT column_name, data_type, column_default, is_nullable, is_identity FROM "
                  "information_schema.columns WHERE table_name = 'runs_app_response' ORDER BY ordinal_position")
    return {"indexes": indexes, "constraints": constraints, "triggers": triggers, "columns": columns}


def test_the_answers_are_partitioned_and_every_new_run_gets_its_partition(answered):  # noqa: F811
    with connection.cursor() as cursor:
        assert partitions.is_partitioned(cursor)
        made = set(partitions.partitions(cursor))
    assert partition_of_units(answered) == {partitions.partition_name(answered.pk)}
    assert partitions.partition_name(answered.pk) in made
    created = Run.objects.create(benchmark=answered.benchmark, status="done")
    bulk = Run.objects.bulk_create([Run(benchmark=answered.benchmark, status="done") for _ in range(2)])
    with connection.cursor() as cursor:
        now = set(partitions.partitions(cursor))
    assert now - made == {partitions.partition_name(run.pk) for run in [created, *bulk]}
    # A unit written through the parent lands in its run's partition, counted once.
    unit = answered.responses.order_by("pk").first()
    Response.objects.bulk_create([Response(run=bulk[1], question=unit.question, model=unit.model, status="done",
                                           chosen_letter="A", code="A", code_source="choice", option_order=[0, 1])])
    assert partition_of_units(bulk[1]) == {partitions.partition_name(bulk[1].pk)}
    assert tallied() == recounted()
    assert_counters_equal_a_recount(bulk[1])


def test_a_row_for_a_run_without_a_partition_fails_loudly(answered):  # noqa: F811
    unit = answered.responses.order_by("pk").first()
    with pytest.raises(Exception, match="no partition of relation"):  # no default partition takes it
        sql("UPDATE runs_app_response SET run_id = 987654 WHERE id = %s", [unit.pk])


def test_delete_run_drops_the_partition_and_leaves_another_run_as_it_was(answered, reviewer):  # noqa: F811
    kept = other_run(answered.benchmark.name)
    before = kept_of(kept)
    result = services.delete_run(answered)
    assert result.units == 10
    with connection.cursor() as cursor:
        left = set(partitions.partitions(cursor))
    assert partitions.partition_name(answered.pk) not in left and partitions.partition_name(kept.pk) in left
    assert not Response.objects.filter(run_id=answered.pk).exists()
    assert kept_of(kept) == before
    assert tallied() == recounted()
    assert not sql("SELECT 1 FROM runs_app_runprogress WHERE run_id = %s", [answered.pk])


def test_a_deletion_that_cannot_get_the_lock_leaves_the_run_whole(answered, monkeypatch):  # noqa: F811
    units, tallies = answered.responses.count(), tallied()
    monkeypatch.setattr(run_deletion, "DROP_LOCK_TIMEOUT", "200ms")
    name = connection.settings_dict["NAME"]
    with psycopg.connect(host=connection.settings_dict["HOST"], port=connection.settings_dict["PORT"] or 5432,
                         user=connection.settings_dict["USER"], password=connection.settings_dict["PASSWORD"],
                         dbname=name) as reader:
        reader.execute("LOCK TABLE runs_app_response IN ACCESS SHARE MODE")  # a long read under way
        with pytest.raises(RunError, match="busy for 200ms"):
            services.delete_run(answered)
    assert answered.responses.count() == units and Run.objects.filter(pk=answered.pk).exists()
    assert partition_of_units(answered) == {partitions.partition_name(answered.pk)}
    assert tallied() == tallies
    assert_counters_equal_a_recount(answered)


def test_a_run_deleted_or_truncated_another_way_leaves_no_partition(answered):  # noqa: F811
    second = Run.objects.create(benchmark=answered.benchmark, status="done")
    name = partitions.partition_name(second.pk)
    assert name in partitions.partitions(connection.cursor())
    second.delete()  # Django's collector
    with connection.cursor() as cursor:
        assert name not in partitions.partitions(cursor)
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no deferred check pending on the runs
        cursor.execute("TRUNCATE runs_app_run, runs_app_response CASCADE")  # a test's flush
        assert partitions.partitions(cursor)  # a TRUNCATE fires no delete trigger
        assert partitions.sweep() >= 1  # (runs_app's post_migrate, after a flush)
        assert partitions.partitions(cursor) == []
    again = Run.objects.create(benchmark=answered.benchmark, status="done")
    assert partitions.partition_name(again.pk) in partitions.partitions(connection.cursor())


def test_the_conversion_keeps_every_row_id_index_and_tally(answered, reviewer):  # noqa: F811
    kept = other_run(answered.benchmark.name)
    rows = sorted(Response.objects.values_list())
    partitioned_shape, tallies = shape(), tallied()
    with connection.cursor() as cursor:
        partitions.convert(cursor, partitioned=False)  # partition_answers --undo
        assert not partitions.is_partitioned(cursor) and partitions.partitions(cursor) == []
        assert sql("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'runs_app_response_pkey'") \
            == [("PRIMARY KEY (id)",)]
        assert shape() == partitioned_shape
        # Rows written to the plain table, then the conversion forward.
        unit = kept.responses.order_by("pk").first()
        Response.objects.create(run=kept, question=unit.question, model=unit.model, repeat=5, status="done",
                                chosen_letter="A", code="A", code_source="choice", option_order=[0, 1])
        rows = sorted(Response.objects.values_list())
        tallies = tallied()
        partitions.convert(cursor, partitioned=True)
        assert partitions.is_partitioned(cursor)
        assert set(partitions.partitions(cursor)) >= {partitions.partition_name(answered.pk),
                                                      partitions.partition_name(kept.pk)}
    assert sorted(Response.objects.values_list()) == rows
    assert shape() == partitioned_shape
    assert tallied() == tallies == recounted()  # the copy counted nothing twice
    newest = Response.objects.create(run=kept, question=unit.question, model=unit.model, repeat=6, status="done",
                                     option_order=[0, 1])
    assert newest.pk > max(r[0] for r in rows)  # the ids go on past the copied ones
    assert tallied() == recounted()
    assert_counters_equal_a_recount(kept)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_index_added_online_to_the_partitioned_answers_is_built_on_every_partition():
    from django.db import models

    from benchmarks_app.models import Benchmark
    from kit.migration_operations import _index_partitioned, _partitions

    benchmark = Benchmark.objects.create(name="indexed")
    runs = [Run.objects.create(benchmark=benchmark, status="done") for _ in range(2)]
    index = models.Index(fields=["cache_key"], name="h57_answers_cache_key")
    with connection.schema_editor(atomic=False) as editor:
        parts = _partitions(editor, Response._meta.db_table)
        assert {partitions.partition_name(run.pk) for run in runs} <= {name for name, _ in parts}
        _index_partitioned(editor, Response, index, parts)
    try:
        built = sql("SELECT c.relname, x.indisvalid FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid "
                    "JOIN pg_class i ON i.oid = x.indexrelid WHERE i.relname LIKE 'h57_answers_cache_key%%'")
        assert dict(built) == {"runs_app_response": True, **{name: True for name, _ in parts}}
        later = Run.objects.create(benchmark=benchmark, status="done")  # a partition made after has it too
        assert sql("SELECT count(*) FROM pg_indexes WHERE tablename = %s AND indexdef LIKE '%%(cache_key)%%'",
                   [partitions.partition_name(later.pk)]) == [(1,)]
    finally:
        connection.cursor().execute("DROP INDEX h57_answers_cache_key")


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_flush_that_ends_a_transactional_test_leaves_no_partition_behind():
    """A test's flush deletes the runs with triggers off (tests/db_restore.py): their
    partitions are swept with them, not left to pile up over the pass."""
    from django.core.management import call_command

    from benchmarks_app.models import Benchmark

    benchmark = Benchmark.objects.create(name="flushed")
    runs = [Run.objects.create(benchmark=benchmark, status="done") for _ in range(3)]
    assert {partitions.partition_name(run.pk) for run in runs} <= set(partitions.partitions(connection.cursor()))
    call_command("flush", interactive=False, inhibit_post_migrate=True, reset_sequences=False, verbosity=0)
    assert partitions.partitions(connection.cursor()) == []


def partitions_locked() -> set[str]:
    """The answers' partitions this connection holds a lock on (until its transaction ends)."""
    return {name for (name,) in sql(
        "SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
        "JOIN pg_inherits i ON i.inhrelid = c.oid "
        "WHERE l.pid = pg_backend_pid() AND i.inhparent = 'runs_app_response'::regclass")}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_workers_claim_give_back_and_write_lock_its_runs_partition_alone(benchmark, monkeypatch):  # noqa: F811
    """The worker's statements by unit id name the units' run too: with 20 runs, a batch's
    claim, the claim's check, a unit given back and the answers' write plan and lock the
    batch's run's partition, not the 20 (each with its ~17 indexes; docs/performance.md)."""
    chooser = LLMModel.objects.create(name="m", litellm_model="openai/m", api_base="http://127.0.0.1:9/v1",
                                      answer_mode="choice", timeout_seconds=5)
    run = launch(benchmark, [chooser], monkeypatch)
    Run.objects.bulk_create([Run(benchmark=benchmark, status=Run.Status.DONE) for _ in range(19)])
    assert len(partitions.partitions(connection.cursor())) >= 20
    batch = list(run.responses.order_by("pk").select_related("run", "model")[:3])
    own = {partitions.partition_name(run.pk)}
    with transaction.atomic():
        token, taken = execution.claim(batch)
        assert [r.pk for r in taken] == [r.pk for r in batch]
        assert partitions_locked() == own
        assert transitions.give_back(taken[2].pk, token, run.pk)
        assert partitions_locked() == own
        written = transitions.finish_units([transitions.answered_row(r, chosen_letter="A") for r in taken[:2]], token)
        assert written == {taken[0].pk, taken[1].pk}
        assert partitions_locked() == own
    assert list(Response.objects.filter(pk__in=[r.pk for r in batch]).order_by("pk").values_list("status", flat=True)) \
        == ["done", "done", "pending"]


def test_partition_answers_undoes_partitions_again_and_says_so(answered, capsys):  # noqa: F811
    rows = sorted(Response.objects.values_list())
    call_command("partition_answers", "--undo")
    out = capsys.readouterr().out
    assert f"one plain table again: {len(rows):,} rows copied" in out and "partitions dropped" in out
    with connection.cursor() as cursor:
        assert not partitions.is_partitioned(cursor) and partitions.partitions(cursor) == []
        assert not sql("SELECT 1 FROM pg_trigger WHERE tgrelid = 'runs_app_run'::regclass "
                       "AND tgname LIKE 'run_partition_%%'")  # the runs' triggers gone with it
        assert not sql("SELECT to_regproc('runs_app_response_sweep')")[0][0]
    assert partitions.sweep() == 0  # nothing to sweep, no function to call
    call_command("partition_answers", "--undo")
    assert "already one plain table: nothing done" in capsys.readouterr().out
    call_command("partition_answers")
    out = capsys.readouterr().out
    assert f"partitioned by run: {len(rows):,} rows copied into" in out
    with connection.cursor() as cursor:
        assert partitions.is_partitioned(cursor)
        assert partitions.partition_name(answered.pk) in partitions.partitions(cursor)
        assert sorted(name for (name,) in sql("SELECT tgname FROM pg_trigger WHERE tgrelid = 'runs_app_run'::regclass "
                                              "AND tgname LIKE 'run_partition_%%'")) \
            == ["run_partition_delete", "run_partition_insert"]
    assert sorted(Response.objects.values_list()) == rows
    call_command("partition_answers")
    assert "already partitioned by run: nothing done" in capsys.readouterr().out


def test_partition_answers_refuses_while_runs_are_live_unless_forced(answered, capsys):  # noqa: F811
    live = Run.objects.create(benchmark=answered.benchmark, status=Run.Status.PAUSED)
    with pytest.raises(CommandError, match=f"runs are live \\({live.pk}\\).*--force"):
        call_command("partition_answers", "--undo")
    with connection.cursor() as cursor:
        assert partitions.is_partitioned(cursor)  # untouched
    call_command("partition_answers", "--undo", "--force")
    assert "one plain table again" in capsys.readouterr().out
    with connection.cursor() as cursor:
        assert not partitions.is_partitioned(cursor)


@pytest.mark.embedded_pass(reason="the refusal on SQLite")
def test_partition_answers_refuses_on_sqlite():
    assert connection.vendor == "sqlite"
    with pytest.raises(CommandError, match="PostgreSQL only"):
        call_command("partition_answers")
