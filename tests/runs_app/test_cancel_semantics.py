"""What cancelling a run really does, and what the run page and progress.json say about
it: pending units end cancelled at once; a unit a worker has already taken ends by itself
(an answer that arrives is kept; a transient failure or a slot not found ends it
cancelled); the run is finished only when its last unit with a worker ends; the counters
keep done, failed, cancelled and open apart."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

import gateway
from runs_app import batch_execution, execution, run_control, services
from runs_app.models import Response, Run
from runs_app.services import Progress
from tests.runs_app.test_execution import benchmark, claim_unit, fake, launch, model  # noqa: F401  (fixtures)
from tests.runs_app.test_run_views import actions_shown, login, operator  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def ids_of(run):
    return list(run.responses.order_by("pk").values_list("pk", flat=True))


def written_by_its_worker(response_id, token, **fields) -> bool:
    """The worker that holds the unit writes its result (only while its claim holds), and
    nothing more: the run's end is written by `finish_run_if_complete`, called apart."""
    return bool(Response.objects.filter(pk=response_id, claim_token=token, status="running")
                .update(claim_token="", lease_expires_at=None, **fields))


def counts(**fields):
    base = dict(total=0, pending=0, running=0, done=0, failed=0, cancelled=0, cached=0, prompt_tokens=0,
                completion_tokens=0, cost=None, mean_latency_ms=None)
    return Progress(**{**base, **fields})


# --- the counters ----------------------------------------------------------------------

def test_cancelled_units_are_neither_done_nor_finished():
    # The model with one answer: 1 done, 2 cancelled of 3.
    state = counts(total=3, done=1, cancelled=2)
    assert state.percent == 33.3  # 100 * 1 / 3 = 33.33, not (1 + 2) / 3 = 100 % nor 66.7 %
    assert (state.finished, state.open) == (1, 0)
    # The run: 9 units, 4 running at the cancel, 1 of them answered, 3 cancelled,
    # 3 done before, 2 pending cancelled: done 4, cancelled 5.
    state = counts(total=9, done=4, cancelled=5)
    assert state.percent == 44.4  # 100 * 4 / 9 = 44.44 (the page said 77.8 % "finished")
    state = counts(total=9, done=3, failed=1, running=2, pending=3)
    assert (state.percent, state.finished, state.open) == (33.3, 4, 5)  # 3/9; 3 + 1; 2 + 3


def test_progress_counts_each_status_apart(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)  # 4 units
    a, b, c, d = ids_of(run)
    Response.objects.filter(pk=a).update(status="done")
    Response.objects.filter(pk=b).update(status="failed")
    Response.objects.filter(pk=c).update(status="cancelled")
    state = services.progress(run)
    assert (state.total, state.done, state.failed, state.cancelled, state.pending, state.running) == (4, 1, 1, 1, 1, 0)
    assert (state.percent, state.finished, state.open) == (25.0, 2, 1)  # 1/4 done; done + failed; the pending one


# --- cancel, unit by unit ----------------------------------------------------------------

def test_a_run_with_a_unit_in_flight_is_cancelled_but_not_finished_until_it_ends(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    first = ids_of(run)[0]
    token = claim_unit(first)
    cancellation = services.cancel_run(Run.objects.get(pk=run.pk))
    assert (cancellation.pending, cancellation.in_flight) == (3, 1)
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is None
    # The worker writes its answer: kept, and the run is finished now.
    assert written_by_its_worker(first, token, status="done", raw_output="B", answered_at=timezone.now())
    execution.finish_run_if_complete(run.pk)
    run.refresh_from_db()
    assert run.finished_at is not None and run.status == "cancelled"
    assert sorted(run.responses.values_list("status", flat=True)) == ["cancelled"] * 3 + ["done"]


def test_a_run_without_units_in_flight_is_finished_at_the_cancel(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    cancellation = services.cancel_run(Run.objects.get(pk=run.pk))
    run.refresh_from_db()
    assert (cancellation.pending, cancellation.in_flight) == (4, 0) and run.finished_at is not None


def test_an_answer_that_arrives_after_the_cancel_is_kept(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    unit = ids_of(run)[0]
    real_complete = gateway.llm.complete
    seen = {}

    def cancelled_while_in_flight(request):
        services.cancel_run(Run.objects.get(pk=run.pk))
        seen["finished_at"] = Run.objects.get(pk=run.pk).finished_at
        return real_complete(request)

    monkeypatch.setattr(gateway.llm, "complete", cancelled_while_in_flight)
    assert execution.execute(unit).action == "done"
    assert seen["finished_at"] is None  # while the call was in flight, the run was not finished
    answered = Response.objects.get(pk=unit)
    assert answered.status == "done" and answered.chosen_letter in "ABC" and answered.raw_output
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is not None
    assert fake.stats()["total_requests"] == 1  # the three others were never asked


def test_answers_of_a_batch_in_flight_at_the_cancel_are_kept(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    real_write = execution.write_answers

    def cancelled_during_the_calls(token, units):
        services.cancel_run(Run.objects.get(pk=run.pk))
        assert Run.objects.get(pk=run.pk).finished_at is None
        return real_write(token, units)

    monkeypatch.setattr(execution, "write_answers", cancelled_during_the_calls)
    outcomes = batch_execution.execute_batch(ids_of(run))
    assert [o.action for _, o in outcomes] == ["done"] * 4
    run.refresh_from_db()
    assert set(run.responses.values_list("status", flat=True)) == {"done"}
    assert run.status == "cancelled" and run.finished_at is not None


def test_a_unit_still_waiting_for_a_slot_after_the_cancel_ends_cancelled_and_finishes_the_run(
        benchmark, fake, monkeypatch, settings):
    chooser = model(fake, max_concurrency=1)
    run = launch(benchmark, [chooser], monkeypatch)
    unit = ids_of(run)[0]
    limiter = execution.get_limiter(settings.REDIS_URL)
    held = limiter.try_acquire(f"model-{chooser.pk}", 1, lease=60)  # another call holds the only slot
    settings.CFPD_SLOT_WAIT = 0.05
    real_slot = execution.slot

    def cancel_then_wait(*args, **kwargs):
        services.cancel_run(Run.objects.get(pk=run.pk))
        return real_slot(*args, **kwargs)

    monkeypatch.setattr(execution, "slot", cancel_then_wait)
    try:
        assert execution.execute(unit).action == "cancelled"
    finally:
        limiter.release(f"model-{chooser.pk}", held)
    run.refresh_from_db()
    assert set(run.responses.values_list("status", flat=True)) == {"cancelled"}
    assert run.finished_at is not None and fake.stats()["total_requests"] == 0


def test_the_sweep_ends_a_cancelled_run_whose_worker_died(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    first, second = ids_of(run)[:2]
    claim_unit(first)
    claim_unit(second)
    services.cancel_run(Run.objects.get(pk=run.pk))
    # One worker is alive (its lease runs), the other died (its lease ran out).
    Response.objects.filter(pk=second).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert services.sweep_run(run.pk) == (0, True)  # still a unit with a worker: look again later
    assert Response.objects.get(pk=second).status == "cancelled"
    assert Run.objects.get(pk=run.pk).finished_at is None
    Response.objects.filter(pk=first).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert services.sweep_run(run.pk) == (0, False)
    assert Run.objects.get(pk=run.pk).finished_at is not None
    assert set(run.responses.values_list("status", flat=True)) == {"cancelled"}


def test_resume_after_a_cancel_asks_what_is_not_done_and_leaves_units_in_flight(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    first = ids_of(run)[0]
    claim_unit(first)
    services.cancel_run(Run.objects.get(pk=run.pk))
    assert services.resume_run(Run.objects.get(pk=run.pk)) == 3  # the three cancelled, not the running one
    run.refresh_from_db()
    assert run.status == "running" and run.finished_at is None
    assert Response.objects.get(pk=first).status == "running"


# --- a very large run: its pending units marked by a worker, not in the request ----------

def large_cancel(benchmark, fake, monkeypatch, settings):
    """A run of 4 units cancelled as if it had more than CFPD_CANCEL_AT_ONCE pending (2
    here), its units marked a range of 1 id at a time."""
    settings.CFPD_CANCEL_AT_ONCE = 2
    monkeypatch.setattr(run_control, "CANCEL_CHUNK", 1)
    run = launch(benchmark, [model(fake)], monkeypatch)
    return run, services.cancel_run(Run.objects.get(pk=run.pk))


def test_a_large_cancel_stops_every_call_at_once_and_leaves_the_marking_to_a_worker(benchmark, fake, monkeypatch,
                                                                                    settings):
    run, cancellation = large_cancel(benchmark, fake, monkeypatch, settings)
    # Counted from the run's counters, none marked yet, the run cancelled but not finished.
    assert (cancellation.pending, cancellation.in_flight, cancellation.later) == (4, 0, True)
    assert set(run.responses.values_list("status", flat=True)) == {"pending"}
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is None
    # No unit of it is taken by a worker any more: nothing is asked.
    assert claim_unit(ids_of(run)[0]) is None
    # The sweep marks them (its first time right after the cancel, then each watcher tick).
    assert services.sweep_run(run.pk) == (0, False)
    assert set(run.responses.values_list("status", flat=True)) == {"cancelled"}
    run.refresh_from_db()
    assert run.finished_at is not None and services.progress(run).cancelled == 4


def test_a_large_cancel_is_marked_within_the_sweeps_time_and_goes_on_at_the_next(benchmark, fake, monkeypatch,
                                                                                  settings):
    run, _ = large_cancel(benchmark, fake, monkeypatch, settings)
    # No time at all: one range (one id) each time, then it stops; the sweep says the run
    # is still open (look again), until the last is marked and the run is finished.
    assert services.cancel_pending_units(run.pk, seconds=0) == 1
    settings.CFPD_CANCEL_SECONDS = 0
    assert [services.sweep_run(run.pk) for _ in range(3)] == [(0, True), (0, True), (0, False)]
    assert sorted(run.responses.values_list("status", flat=True)) == ["cancelled"] * 4
    assert Run.objects.get(pk=run.pk).finished_at is not None


def test_a_run_resumed_before_its_units_were_marked_keeps_them_pending(benchmark, fake, monkeypatch, settings):
    run, _ = large_cancel(benchmark, fake, monkeypatch, settings)
    assert services.resume_run(Run.objects.get(pk=run.pk)) == 4
    assert services.cancel_pending_units(run.pk) == 0  # the run is no longer cancelled
    assert set(run.responses.values_list("status", flat=True)) == {"pending"}


def test_the_page_says_a_large_cancel_is_marked_by_a_worker(client, operator, benchmark, fake, monkeypatch,
                                                            settings):
    settings.CFPD_CANCEL_AT_ONCE = 2
    run = launch(benchmark, [model(fake)], monkeypatch)
    login(client, operator)
    page = client.post(reverse("run-cancel", args=[run.pk]), {"confirm": "yes"}, follow=True).content.decode()
    assert "4 pending units will not be asked" in page and "marked cancelled by a worker" in page
    # The run page says what the counts are doing until the sweep has marked them.
    page = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert "4 pending units not to be asked are being marked cancelled" in page
    services.sweep_run(run.pk)
    page = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert "being marked cancelled" not in page


# --- what the page and progress.json say --------------------------------------------------

def test_the_page_stays_live_while_a_cancelled_runs_unit_is_in_flight(client, operator, benchmark, fake,
                                                                      monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    ids = ids_of(run)
    Response.objects.filter(pk=ids[0]).update(status="done", answered_at=timezone.now(), raw_output="B",
                                              chosen_letter="B")
    token = claim_unit(ids[1])
    login(client, operator)
    page = client.post(reverse("run-cancel", args=[run.pk]), {"confirm": "yes"}, follow=True).content.decode()
    assert (f"Run {run.pk} cancelled: 2 pending units will not be asked. 1 unit already with a worker is left "
            "to end: an answer that arrives is kept") in page
    assert 'data-active="true"' in page and "1 unit already with a worker is still ending" in page
    assert actions_shown(page) == {"resume"}
    data = client.get(reverse("run-progress", args=[run.pk])).json()
    assert (data["status"], data["active"], data["finished_at"]) == ("cancelled", True, None)
    assert (data["done"], data["running"], data["cancelled"], data["pending"], data["percent"]) == (1, 1, 2, 0, 25.0)
    assert [row["status"] for row in data["latest"]] == ["done", "cancelled", "cancelled", "running"]  # answered first, then newest

    written_by_its_worker(ids[1], token, status="failed", error_kind="server",
                          error_message="<b>502</b> upstream", answered_at=timezone.now())
    execution.finish_run_if_complete(run.pk)
    data = client.get(reverse("run-progress", args=[run.pk])).json()
    assert (data["active"], data["status_note"], data["running"], data["failed"]) == (False, "", 0, 1)
    assert data["finished_at"] is not None and data["can_resume"] is True and data["can_cancel"] is False
    assert data["errors"] == [{"model": "fake", "kind": "server", "kind_label": "Provider error (5xx)",
                               "status_label": "Failed", "n": 1, "example": "<b>502</b> upstream"}]
    page = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert 'data-active="false"' in page and "&lt;b&gt;502&lt;/b&gt; upstream" in page


def test_the_page_stays_live_until_the_end_of_a_cancelled_run_is_written(client, operator, benchmark, fake,
                                                                        monkeypatch):
    # The last unit with a worker is written a moment before `finish_run_if_complete`
    # writes the run's end: a poll in between must not stop the page without its end.
    run = launch(benchmark, [model(fake)], monkeypatch)
    first = ids_of(run)[0]
    token = claim_unit(first)
    services.cancel_run(Run.objects.get(pk=run.pk))
    written_by_its_worker(first, token, status="done", raw_output="B", answered_at=timezone.now())
    data = login(client, operator).get(reverse("run-progress", args=[run.pk])).json()
    assert (data["running"], data["finished_at"], data["active"]) == (0, None, True)
    execution.finish_run_if_complete(run.pk)
    data = client.get(reverse("run-progress", args=[run.pk])).json()
    assert data["finished_at"] is not None and data["active"] is False


def test_the_confirmation_page_says_what_the_cancel_will_do(client, operator, benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    claim_unit(ids_of(run)[0])
    page = login(client, operator).get(reverse("run-cancel", args=[run.pk])).content.decode()
    assert "<strong>3</strong> pending units will not be asked" in page
    assert "1 unit already with a worker is left to end" in page
    services.cancel_run(Run.objects.get(pk=run.pk))
    page = client.get(reverse("run-cancel", args=[run.pk])).content.decode()
    assert "there is nothing to cancel" in page and 'name="confirm"' not in page


def test_progress_json_refuses_readers_without_the_permission(client, outsider, benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    assert login(client, outsider).get(reverse("run-progress", args=[run.pk])).status_code == 403
    assert client.get(reverse("run-cancel", args=[run.pk])).status_code == 403


def test_the_models_page_names_each_answer_mode(client, operator):
    page = login(client, operator).get(reverse("run-models")).content.decode()
    # The bundled -rank models are rank classifiers, not generators (migration 0009).
    rows = {name: mode for name, mode in _mode_cells(page)}
    assert rows["local-smollm2-rank"] == "rank" and rows["local-smollm2-text"] == "generate"
    assert rows["local-smollm2"].startswith("choice")


def _mode_cells(page):
    import re

    return re.findall(r'<strong class="nowrap">(?:<a [^>]*>)?([^<]+)(?:</a>)?</strong>.*?'
                      r'<td data-col="mode"><span class="nowrap">([^<]+)</span>', page, flags=re.S)
