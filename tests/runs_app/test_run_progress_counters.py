"""The run page's counters (`RunProgress`, kept by database triggers) equal a recount of
the units after every kind of write: the launch, answers (some from the cache, priced),
a retry and a failure, a cancel with a unit in flight, a resume, the recovery of a dead
worker's unit, an import, and a run deleted. Both passes (SQLite: row triggers;
PostgreSQL: statement triggers)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from runs_app import api, execution, progress_counts, services
from runs_app.models import Response, Run, RunProgress
from runs_app.views import planned_per_model
from tests.runs_app.test_execution import benchmark, claim_unit, fake, launch, model  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


def assert_counters_equal_a_recount(run):
    counted, per_model = services.progress_by_model(run)
    recounted, per_model_recounted = services.recounted_progress(run)
    assert counted == recounted and per_model == per_model_recounted
    # The API's figures (spent money and units too) from the counters, against the units.
    state = api.run_states([run.pk])[run.pk]
    units = run.responses
    paid = sum((r.cost for r in units.filter(status__in=["done", "failed"], cache_hit=False, cost__isnull=False)),
               Decimal(0))
    assert (state.total, state.done, state.pending, state.cancelled) == (
        units.count(), units.filter(status="done").count(), units.filter(status="pending").count(),
        units.filter(status="cancelled").count())
    assert (state.spent_units, state.spent_usd) == (units.filter(status__in=["done", "failed"]).count(), paid)
    return counted


def test_the_counters_follow_a_run_through_answers_retries_cancel_resume_and_recovery(
        benchmark, fake, monkeypatch, settings):
    priced = model(fake, name="priced", answer_mode="generate", input_cost_per_token=Decimal("0.000001"),
                   output_cost_per_token=Decimal("0.000002"))
    run = launch(benchmark, [model(fake), priced], monkeypatch, repeats=2)
    # 4 questions: the choice model asks each once, the generate model twice: 4 + 8 units.
    state = assert_counters_equal_a_recount(run)
    assert (state.total, state.pending) == (12, 12)
    run.refresh_from_db()
    # Planned at launch, equal to what the units say (the count the page made before).
    stored = planned_per_model(run)
    run.planned = None
    assert stored == planned_per_model(run)
    assert [(p["name"], p["questions"], p["repeats"], p["units"]) for p in stored] == [
        ("fake", 4, 1, 4), ("priced", 4, 2, 8)]

    choice = run.responses.exclude(model=priced).order_by("pk").values_list("pk", flat=True)
    units, priced_units = list(choice), list(run.responses.filter(model=priced).order_by("pk").values_list("pk", flat=True))
    for pk in units[:2] + priced_units[:3]:  # answered (the fake server: tokens, latency; a cost for `priced`)
        assert execution.execute(pk).action == "done"
        assert_counters_equal_a_recount(run)
    state = assert_counters_equal_a_recount(run)
    assert state.done == 5 and state.cost is not None and state.prompt_tokens > 0

    # A retry, then a failure (attempts used up).
    settings.CFPD_ADAPTIVE = False
    fake.configure(fault_rate=1.0, fault_kinds=["429"], retry_after=1)
    assert execution.execute(units[2]).action == "retry"
    assert_counters_equal_a_recount(run)
    settings.CFPD_MAX_ATTEMPTS = 1
    assert execution.execute(units[2]).action == "failed"
    assert_counters_equal_a_recount(run)
    fake.configure(fault_rate=0.0)

    # A unit in flight at the cancel; the rest cancelled.
    claimed = priced_units[3]
    claim_unit(claimed)
    assert_counters_equal_a_recount(run)
    services.cancel_run(Run.objects.get(pk=run.pk))
    state = assert_counters_equal_a_recount(run)
    assert (state.running, state.cancelled) == (1, 12 - 5 - 1 - 1)  # 12 less done, failed, running

    # Its worker died: the sweep of the cancelled run ends it cancelled.
    Response.objects.filter(pk=claimed).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    services.sweep_run(run.pk)
    assert_counters_equal_a_recount(run)

    # Resumed: what is not done is pending again; a worker dies holding one unit and the
    # recovery at a worker's start sends it again; a cached answer for a repeat of the run.
    monkeypatch.setattr(services.queueing, "enqueue", lambda ids: None)
    monkeypatch.setattr(services.queueing, "schedule_sweep", lambda run_id: None)
    monkeypatch.setattr(services.queueing, "sweep_later", lambda run_id: None)
    assert services.resume_run(Run.objects.get(pk=run.pk)) == 7
    state = assert_counters_equal_a_recount(run)
    assert state.pending == 7
    dying = run.responses.filter(status="pending").order_by("pk").first().pk
    claim_unit(dying)
    Response.objects.filter(pk=dying).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert services.recover_active_runs() >= 1
    assert_counters_equal_a_recount(run)
    for pk in run.responses.filter(status__in=["pending", "running"]).values_list("pk", flat=True):
        Response.objects.filter(pk=pk, status="running").update(status="pending", claim_token="")
        execution.execute(pk)
    state = assert_counters_equal_a_recount(run)
    assert state.done == 12

    # A second run at temperature 0 answers the choice model from the cache.
    again = launch(benchmark, [Response.objects.filter(run=run).first().model], monkeypatch)
    for pk in again.responses.values_list("pk", flat=True):
        execution.execute(pk)
    state = assert_counters_equal_a_recount(again)
    assert state.cached == 4

    # Folded (as the sweep does): one row per (model, status), the same figures.
    progress_counts.compact(run.pk)
    assert_counters_equal_a_recount(run)
    rows = RunProgress.objects.filter(run=run)
    assert rows.count() == rows.values("model", "status").distinct().count()

    # Deleted runs leave no counter row.
    Run.objects.filter(pk__in=[run.pk, again.pk]).delete()
    assert not RunProgress.objects.filter(run_id__in=[run.pk, again.pk]).exists()


def test_an_imported_run_is_counted_and_its_plan_counted_from_its_units(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    lines = ["question_key,model,repeat,output"] + [
        f"{key},elsewhere,{repeat},A" for key in run.responses.values_list("question__key", flat=True)
        for repeat in (0, 1)]
    imported = services.import_responses("\n".join(lines) + "\n", benchmark.name).run
    assert imported.planned is None
    assert_counters_equal_a_recount(imported)
    assert [(p["name"], p["questions"], p["repeats"], p["units"]) for p in planned_per_model(imported)] == [
        ("elsewhere", 4, 2, 8)]
    # Counted once: an imported run's units are never added to, so the count is kept as a
    # launch keeps its plan (4 questions x 2 repeats = 8 units), and read from there next time.
    imported.refresh_from_db()
    elsewhere = imported.llm_models.get(name="elsewhere")
    assert imported.planned == {str(elsewhere.pk): {"questions": 4, "repeats": 2, "units": 8}}
    assert [(p["name"], p["questions"], p["repeats"], p["units"]) for p in planned_per_model(imported)] == [
        ("elsewhere", 4, 2, 8)]


@pytest.mark.skipif(connection.vendor != "sqlite",
                    reason="a SQLite-only case (SQLite drops a table's triggers when it remakes it)")
def test_triggers_a_remade_table_lost_are_made_again_and_the_counts_refilled(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER run_progress_insert")
    RunProgress.objects.all().delete()
    assert progress_counts.ensure_sqlite_triggers() is True
    assert progress_counts.ensure_sqlite_triggers() is False  # all there now
    assert assert_counters_equal_a_recount(run).total == 4
    again = launch(benchmark, [model(fake, name="second")], monkeypatch)
    assert assert_counters_equal_a_recount(again).total == 4
