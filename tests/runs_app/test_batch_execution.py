"""A batch of units in-process (no broker): one claim, calls together on the event loop,
one write; each unit keeps the promises of the one-at-a-time path."""

import pytest
from django.conf import settings as django_settings

import gateway
from runs_app import answer_rows, batch_execution, execution, queueing, services
from runs_app.models import Response, Run
from tests.fakes.fake_openai import FakeOpenAI
from tests.runs_app.test_execution import answers_announced, benchmark, claim_unit, launch, model  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake():
    with FakeOpenAI(seed=1) as server:
        yield server


def unit_ids(run):
    return list(run.responses.order_by("pk").values_list("pk", flat=True))


def actions(outcomes):
    return [outcome.action for _, outcome in sorted(outcomes)]


def test_a_batch_answers_every_unit_as_the_one_at_a_time_path_does(benchmark, fake, monkeypatch):
    chooser = model(fake)
    alone = launch(benchmark, [chooser], monkeypatch, permute_options=True, use_cache=False)
    assert [execution.execute(pk).action for pk in unit_ids(alone)] == ["done"] * 4
    together = launch(benchmark, [chooser], monkeypatch, permute_options=True, use_cache=False)
    assert actions(batch_execution.execute_batch(unit_ids(together))) == ["done"] * 4
    assert fake.stats()["total_requests"] == 8  # every unit asked once in each run

    def answers(run):
        return list(run.responses.order_by("question_id").values_list(
            "status", "chosen_letter", "option_logprobs", "code", "messages", "params", "attempts", "claim_token"))

    assert answers(together) == answers(alone)
    together.refresh_from_db()
    assert together.status == Run.Status.DONE and together.started_at and together.finished_at


def test_a_batch_is_answered_from_the_cache_and_fills_it(benchmark, fake, monkeypatch):
    chooser = model(fake)
    first = launch(benchmark, [chooser], monkeypatch)
    assert actions(batch_execution.execute_batch(unit_ids(first))) == ["done"] * 4
    second = launch(benchmark, [chooser], monkeypatch)
    assert actions(batch_execution.execute_batch(unit_ids(second))) == ["done"] * 4
    assert fake.stats()["total_requests"] == 4  # the second batch called nothing
    assert set(second.responses.values_list("cache_hit", flat=True)) == {True}


def test_each_unit_of_a_batch_is_written_once_and_coded(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake, answer_mode="generate", max_tokens=30)], monkeypatch, repeats=2)
    ids = unit_ids(run)
    with answers_announced() as coded:
        assert actions(batch_execution.execute_batch(ids)) == ["done"] * 8
        assert actions(batch_execution.execute_batch(ids)) == ["skipped"] * 8  # a message delivered twice
    assert sorted(coded) == ids and fake.stats()["total_requests"] == 8
    assert all(r.code for r in run.responses.all())


def test_a_transient_error_in_a_batch_asks_for_a_retry_after_at_least_retry_after(benchmark, fake, monkeypatch,
                                                                                    settings):
    fake.configure(fault_rate=1.0, fault_kinds=["429"], retry_after=7)
    # The units' own countdowns: with the adaptive limit on, the 429 would also pause the
    # model's calls for 7 s (tests/gateway/test_adaptive_limits.py).
    settings.CFPD_ADAPTIVE = False
    run = launch(benchmark, [model(fake)], monkeypatch)
    outcomes = batch_execution.execute_batch(unit_ids(run))
    assert actions(outcomes) == ["retry"] * 4 and all(o.countdown >= 7 for _, o in outcomes)
    assert set(run.responses.values_list("status", "error_kind", "attempts")) == {("pending", "rate_limit", 1)}
    settings.CFPD_MAX_ATTEMPTS = 2
    assert actions(batch_execution.execute_batch(unit_ids(run))) == ["failed"] * 4
    assert set(run.responses.values_list("status", "error_kind", "attempts")) == {("failed", "rate_limit", 2)}
    assert Run.objects.get(pk=run.pk).status == Run.Status.DONE


def test_units_of_a_batch_taken_by_another_worker_are_skipped(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    ids = unit_ids(run)
    assert claim_unit(ids[0]) is not None
    assert actions(batch_execution.execute_batch(ids)) == ["skipped", "done", "done", "done"]
    assert fake.stats()["total_requests"] == 3


def test_a_unit_whose_claim_was_taken_over_during_the_call_is_not_written(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    ids = unit_ids(run)
    real_write = execution.write_answers

    def lease_ran_out_during_the_call(token, units):
        Response.objects.filter(pk=ids[0]).update(claim_token="another-worker")
        return real_write(token, units)

    monkeypatch.setattr(execution, "write_answers", lease_ran_out_during_the_call)
    assert actions(batch_execution.execute_batch(ids)) == ["skipped", "done", "done", "done"]
    unit = Response.objects.get(pk=ids[0])
    assert (unit.status, unit.raw_output, unit.claim_token) == ("running", "", "another-worker")
    assert Run.objects.get(pk=run.pk).status == Run.Status.RUNNING  # that unit is still open


def test_a_batch_without_free_slots_gives_its_units_back_without_counting_attempts(
        benchmark, fake, monkeypatch, settings):
    chooser = model(fake, max_concurrency=1)
    run = launch(benchmark, [chooser], monkeypatch)
    limiter = execution.get_limiter(django_settings.REDIS_URL)
    token = limiter.try_acquire(f"model-{chooser.pk}", 1, lease=60)
    settings.CFPD_SLOT_WAIT = 0.05
    try:
        assert actions(batch_execution.execute_batch(unit_ids(run))) == ["requeue"] * 4
    finally:
        limiter.release(f"model-{chooser.pk}", token)
    assert set(run.responses.values_list("status", "attempts")) == {("pending", 0)}
    assert fake.stats()["total_requests"] == 0


def test_units_failing_transiently_after_their_run_was_cancelled_end_cancelled(benchmark, fake, monkeypatch):
    fake.configure(fault_rate=1.0, fault_kinds=["500"])
    run = launch(benchmark, [model(fake)], monkeypatch)
    real_write = execution.write_answers

    def cancelled_during_the_call(token, units):
        services.cancel_run(Run.objects.get(pk=run.pk))
        return real_write(token, units)

    monkeypatch.setattr(execution, "write_answers", cancelled_during_the_call)
    assert actions(batch_execution.execute_batch(unit_ids(run))) == ["cancelled"] * 4
    assert set(run.responses.values_list("status", flat=True)) == {"cancelled"}


def test_a_permanent_error_fails_its_unit_only(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake, answer_mode="generate", max_tokens=30)], monkeypatch, repeats=1)
    ids = unit_ids(run)
    real_acomplete = gateway.llm.acomplete
    refused = ids[1]
    refused_messages = execution.conversation(Response.objects.select_related("question", "condition").get(
        pk=refused), run)

    async def one_refused(request):
        if request.messages == refused_messages:
            raise gateway.llm.LLMError("bad_request", "refused", transient=False)
        return await real_acomplete(request)

    monkeypatch.setattr(gateway.llm, "acomplete", one_refused)
    outcomes = dict(batch_execution.execute_batch(ids))
    assert outcomes[refused].action == "failed"
    assert [outcomes[pk].action for pk in ids if pk != refused] == ["done"] * 3
    unit = Response.objects.get(pk=refused)
    assert (unit.status, unit.error_kind, unit.error_message) == ("failed", "bad_request", "refused")


def test_units_of_a_run_with_a_budget_are_asked_one_at_a_time(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch, budget_units=2)
    # The second answer reaches the budget and pauses the run: the rest are not taken.
    assert actions(batch_execution.execute_batch(unit_ids(run))) == ["done", "done", "skipped", "skipped"]
    assert fake.stats()["total_requests"] == 2
    assert sorted(run.responses.values_list("status", flat=True)) == ["done", "done", "pending", "pending"]
    assert Run.objects.get(pk=run.pk).status == Run.Status.PAUSED


def test_enqueue_sends_a_models_units_in_batches_and_a_budgeted_runs_alone(benchmark, fake, monkeypatch, settings):
    sent = []
    kinds = {queueing.ASK_BATCH: "batch", queueing.ASK: "alone"}
    monkeypatch.setattr(queueing, "publish",
                        lambda task, args, **kw: sent.append((kinds[task], args[0] if task == queueing.ASK_BATCH
                                                              else [args[0]])))
    settings.CFPD_BATCH_SIZE = 3
    wide = model(fake, max_concurrency=8)  # batches of min(3, 8 / 2) = 3
    narrow = model(fake, name="narrow", max_concurrency=2)  # batches of 1: sent alone
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    run = services.launch_run(benchmark, [wide, narrow])
    budgeted = services.launch_run(benchmark, [wide], budget_units=10)
    from django.db import connection

    for callback in [c for _, c, _ in connection.run_on_commit]:  # the test's transaction never commits
        callback()
    wide_ids = list(run.responses.filter(model=wide).order_by("pk").values_list("pk", flat=True))
    # 4 questions: a batch of 3, and the last in a message of its own.
    assert [ids for kind, ids in sent if kind == "batch"] == [wide_ids[:3]]
    alone = sorted(pk for kind, ids in sent if kind == "alone" for pk in ids)
    assert alone == sorted([wide_ids[3], *run.responses.filter(model=narrow).values_list("pk", flat=True),
                            *unit_ids(budgeted)])


def test_every_statement_that_looks_a_claim_up_names_its_rows_by_primary_key(benchmark, fake, monkeypatch):
    # claim_token has no index: a statement that finds responses by token alone reads the
    # whole table (every run ever kept), once per batch.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    with CaptureQueriesContext(connection) as queries:
        assert actions(batch_execution.execute_batch(unit_ids(run))) == ["done"] * 4
    by_token = [q["sql"] for q in queries.captured_queries
                if '"claim_token" =' in q["sql"].split("WHERE", 1)[-1]]
    assert len(by_token) >= 2  # the attempts read after the claim, the claim check of the write
    for sql in by_token:
        where = sql.split("WHERE", 1)[1]
        # By id list, or (the answers' statement on PostgreSQL) joined to its rows by id.
        assert '"runs_app_response"."id" IN (' in where or 't."id" = v."row_id" AND' in where, sql


def test_the_batch_write_stores_every_answer_field_as_the_orm_saves_it(benchmark, fake, monkeypatch):
    # On PostgreSQL the batch's answers travel as one JSON text (jsonb_to_recordset); the
    # rows must read back exactly as Django's own save writes the same values.
    from datetime import datetime, timezone as tz

    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    batch, by_orm = [list(run.responses.order_by("pk")[i::2]) for i in (0, 1)]
    answers = [
        dict(status=Response.Status.DONE, claim_token="", lease_expires_at=None, cache_key="k" * 64, cache_hit=True,
             answered_at=datetime(2026, 11, 24, 8, 0, 0, 123456, tzinfo=tz.utc), error_kind="", error_message="",
             messages=[{"role": "user", "content": 'Quote " backslash \\ newline \n tab \t «ünï» 中文 😀'}],
             params={"temperature": 0.7, "nested": {"list": [1, 2.5e-7, None, True]}, "empty": {}},
             raw_output="B) Option\\n '; DROP TABLE x; --", resolved_model="fake/model", finish_reason="stop",
             latency_ms=203, prompt_tokens=41, completion_tokens=1, cost=0.000123456789123,
             option_logprobs={"A": -0.0100000001, "B": -4.6}, chosen_letter="B", option_mean_logprobs=None),
        dict(status=Response.Status.FAILED, claim_token="", lease_expires_at=datetime(2030, 1, 1, tzinfo=tz.utc),
             cache_key="", cache_hit=False, answered_at=datetime(2026, 11, 24, 8, 0, 1, tzinfo=tz.utc),
             error_kind="server", error_message="500: « overloaded »", messages=[], params={}, raw_output="",
             resolved_model="", finish_reason="", latency_ms=None, prompt_tokens=None, completion_tokens=None,
             cost=None, option_logprobs=None, chosen_letter="", option_mean_logprobs={"A": -1.25}),
    ]
    for rows in (batch, by_orm):
        for row, values in zip(rows, answers):
            for name, value in values.items():
                setattr(row, name, value)
    answer_rows._update_rows(batch)
    for row in by_orm:
        row.save(update_fields=answer_rows.ANSWER_FIELDS)

    def stored(row):
        return Response.objects.filter(pk=row.pk).values(*answer_rows.ANSWER_FIELDS).get()

    for written, saved in zip(batch, by_orm):
        assert stored(written) == stored(saved)
    assert stored(batch[0])["raw_output"] == "B) Option\\n '; DROP TABLE x; --"
    assert stored(batch[0])["cost"] == stored(by_orm[0])["cost"] != None  # noqa: E711 — rounded alike


def test_a_nul_character_from_a_provider_is_stored_as_the_replacement_character(benchmark, fake, monkeypatch):
    # No PostgreSQL text or jsonb column holds U+0000: one such answer failed its whole
    # batch's write.
    from types import SimpleNamespace

    from gateway import llm
    from runs_app.execution import _result_fields

    answer = SimpleNamespace(model="fake\x00model", usage=None, choices=[
        SimpleNamespace(message=SimpleNamespace(content="B\x00) act"), finish_reason="stop\x00")])
    result = llm.read_completion(llm.LLMRequest(model="openai/fake", messages=[]), answer, 7)
    assert (result.text, result.resolved_model, result.finish_reason) == ("B\ufffd) act", "fake\ufffdmodel",
                                                                          "stop\ufffd")
    assert llm.LLMError("server", "500 \x00 overloaded", transient=True).message == "500 \ufffd overloaded"
    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    row = run.responses.order_by("pk").first()
    for name, value in _result_fields(result).items():
        setattr(row, name, value)
    row.status = Response.Status.DONE
    answer_rows._update_rows([row])
    assert Response.objects.values_list("raw_output", flat=True).get(pk=row.pk) == "B\ufffd) act"


def test_a_batch_reads_its_run_model_and_condition_once_and_its_units_share_them(benchmark, fake, monkeypatch):
    # Issue 45: the units, with question and benchmark joined (1 statement), then the run,
    # the model and the condition once each (3): 4 statements for the batch, and nothing
    # more when a unit's run, model, condition or benchmark is read.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    ids = unit_ids(run)
    with CaptureQueriesContext(connection) as loading:
        units = batch_execution.load_units(ids)
    assert len(loading.captured_queries) == 4
    assert [u.pk for u in units] == sorted(ids) and len(units) == 4
    with CaptureQueriesContext(connection) as reading:
        assert {u.run.pk for u in units} == {run.pk} and len({id(u.run) for u in units}) == 1
        assert len({id(u.model) for u in units}) == 1 and len({id(u.condition) for u in units}) == 1
        assert all(u.question.benchmark.pk == benchmark.pk for u in units)
    assert reading.captured_queries == []


def test_a_batchs_answers_are_coded_without_reading_their_questions_again(benchmark, fake, monkeypatch):
    # Issue 45: the batch loaded its units' questions with their benchmark (`load_units`);
    # the coding of its answers is handed them (`responses_answered`'s `questions`) instead
    # of reading them again (a statement per batch, 1.3 % of a worker's CPU at C 128).
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from benchmarks_app.models import Question

    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    table = f'FROM "{Question._meta.db_table}"'
    with CaptureQueriesContext(connection) as queries:
        assert actions(batch_execution.execute_batch(unit_ids(run))) == ["done"] * 4
    assert [q["sql"] for q in queries.captured_queries if table in q["sql"]] == []
    assert all(r.code for r in run.responses.all())  # coded as before


def test_loaded_questions_names_only_questions_held_with_their_benchmark(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    loaded = batch_execution.load_units(unit_ids(run))  # question and benchmark joined
    bare = list(Response.objects.filter(run=run).order_by("pk"))  # neither loaded
    half = list(Response.objects.select_related("question").filter(run=run).order_by("pk"))  # no benchmark
    assert execution.loaded_questions([execution.Unit(r) for r in loaded]) == {r.question_id: r.question for r in loaded}
    assert execution.loaded_questions([execution.Unit(r) for r in bare + half]) == {}


def test_units_of_a_batch_taken_over_or_finished_elsewhere_meanwhile_are_not_written(benchmark, fake, monkeypatch):
    """The answers' statement writes only the rows still running under the batch's claim
    (issue 45: its own condition, no SELECT … FOR UPDATE first): of four units asked
    together, one whose lease ran out and another worker took, and one that worker
    already answered, are left as that worker left them; the other two are written,
    reported done and coded, once each."""
    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    ids = unit_ids(run)
    taken_over, finished_elsewhere = ids[0], ids[2]
    real_ask = batch_execution.ask_together

    def asked_then_taken(units):
        real_ask(units)
        Response.objects.filter(pk=taken_over).update(claim_token="another-worker")  # its lease ran out
        Response.objects.filter(pk=finished_elsewhere).update(claim_token="", status=Response.Status.DONE,
                                                              raw_output="theirs")

    monkeypatch.setattr(batch_execution, "ask_together", asked_then_taken)
    with answers_announced() as answered:
        outcomes = dict(batch_execution.execute_batch(ids))
    assert [outcomes[pk].action for pk in ids] == ["skipped", "done", "skipped", "done"]
    assert sorted(answered) == [ids[1], ids[3]]
    rows = {r.pk: r for r in Response.objects.filter(pk__in=ids)}
    assert (rows[taken_over].status, rows[taken_over].claim_token, rows[taken_over].raw_output) == (
        "running", "another-worker", "")
    assert (rows[finished_elsewhere].raw_output, rows[finished_elsewhere].chosen_letter) == ("theirs", "")
    assert all(rows[pk].status == "done" and rows[pk].chosen_letter and rows[pk].code for pk in (ids[1], ids[3]))
