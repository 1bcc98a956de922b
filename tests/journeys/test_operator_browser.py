"""An operator's path through a run in a real browser, against a real worker and a slow
fake model: open the run page, cancel it (confirming), watch the units already with a
worker end, resume, and see every part of the page reach done, all without a reload.
The page is sampled throughout and must never say more than the database does."""

import time

import pytest
from django.db.models import Max
from playwright.sync_api import expect

from runs_app import services
from runs_app.models import Run
from tests.journeys.test_author_browser import log_in
from tests.runs_app.test_run_views import operator  # noqa: F401  (fixture)
from tests.runs_app.test_worker_runs import clean_broker, demo, fake, fake_model, workers  # noqa: F401

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

WAIT_MS = 90_000


def page_state(page):
    """What the page says now, read the way a person reads it."""
    return page.evaluate("""() => {
      const text = sel => (document.querySelector(sel) || {}).textContent || "";
      const int = sel => Number(text(sel).replace(/,/g, ""));
      return {
        status: text("[data-status-badge]").trim(),
        running: int("#run-progress [data-field=running]"),
        pending: int("#run-progress [data-field=pending]"),
        done: int("#run-progress [data-field=done]"),
        cancelled: int("#run-progress [data-field=cancelled]"),
        finished_at: text("[data-field=finished_at]").trim(),
        live: !document.querySelector("[data-live]").hidden,
        latest: Array.from(document.querySelectorAll("[data-rows=latest] .status")).map(e => e.textContent),
        note: text("[data-field=status_note]"),
        marker: window.__sameDocument || null,
      };
    }""")


def watch(page, until, timeout=300):  # generous: a busy 2-core machine starts a worker slowly
    """Sample the page every 0.2 s until `until(state)`; every sample must be truthful:
    a finished time only once no unit runs, live updates while any unit runs."""
    deadline = time.monotonic() + timeout
    samples = []
    while time.monotonic() < deadline:
        state = page_state(page)
        samples.append(state)
        if state["running"] > 0:
            assert state["finished_at"] == "\u2014", state  # a unit runs: the run is not finished
            assert state["live"], state  # ... and the page keeps updating
        if state["finished_at"] != "\u2014":
            assert state["running"] == 0 and state["pending"] == 0, state
        if until(state):
            return samples
        time.sleep(0.2)
    raise AssertionError(f"timed out; last state {samples[-1] if samples else None}")


def test_an_operator_cancels_then_resumes_a_run_and_the_page_tells_the_truth(
        page, live_server, operator, demo, fake, workers, screenshots):
    fake.configure(latency=3)  # a slow model: each call takes 3 s
    model = fake_model(fake, name="slow-fake", max_concurrency=2, timeout_seconds=30)
    run = services.launch_run(demo, [model], services.Selection(sample=8, seed=4), launched_by=operator)
    workers.start(concurrency=4)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.set_default_timeout(WAIT_MS)
    aborted_polls = []  # a poll in flight when the operator leaves the page is aborted by the browser
    page.on("requestfailed", lambda request: request.url.endswith("/progress.json")
            and aborted_polls.append(request.failure))
    page.set_default_navigation_timeout(WAIT_MS)
    log_in(page, live_server, operator.username)
    page.goto(f"{live_server.url}/runs/{run.pk}/")

    # The live page shows units running before any is answered.
    watch(page, lambda s: s["running"] > 0)
    page.screenshot(path=str(screenshots / "operator-run-running.png"), full_page=True)

    # Cancel, with a confirmation step that says what will happen.
    page.click("[data-action=cancel]")
    expect(page.locator("h1")).to_have_text(f"Cancel run {run.pk}?", timeout=WAIT_MS)
    expect(page.locator(".confirm-panel")).to_contain_text("pending unit", timeout=WAIT_MS)
    with page.expect_navigation():
        page.click("text=Yes, cancel run")
    message = page.locator("ul.messages")
    expect(message).to_contain_text(f"Run {run.pk} cancelled:", timeout=WAIT_MS)
    first = page_state(page)
    assert first["status"] == "Cancelled"
    if first["running"]:
        # The units with a worker are shown running, and the page is live, until they end.
        assert first["finished_at"] == "\u2014" and first["live"], first
        assert "already with a worker" in first["note"], first
        page.screenshot(path=str(screenshots / "operator-run-cancelling.png"), full_page=True)
    page.evaluate("window.__sameDocument = 'after-cancel'")
    samples = watch(page, lambda s: s["running"] == 0 and s["finished_at"] != "\u2014")
    final = samples[-1]
    assert final["marker"] == "after-cancel"  # updated live, no reload
    assert not final["live"]
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is not None
    last_answer = run.responses.aggregate(last=Max("answered_at"))["last"]
    assert last_answer is None or run.finished_at >= last_answer  # finished only after the last unit ended
    counts = {s: run.responses.filter(status=s).count() for s in ("done", "failed", "cancelled")}
    assert (final["done"], final["cancelled"]) == (counts["done"], counts["cancelled"])
    assert counts["done"] + counts["failed"] + counts["cancelled"] == 8 and counts["cancelled"] > 0
    expect(page.locator("[data-action=resume]")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("[data-action=cancel]")).to_be_hidden(timeout=WAIT_MS)
    page.screenshot(path=str(screenshots / "operator-run-cancelled.png"), full_page=True)

    # Resume: the page (header, per-model, latest answers) reaches done without a reload.
    with page.expect_navigation():
        page.click("[data-action=resume] button")
    page.evaluate("window.__sameDocument = 'after-resume'")
    samples = watch(page, lambda s: s["status"] == "Done" and s["finished_at"] != "\u2014")
    final = samples[-1]
    assert final["marker"] == "after-resume" and not final["live"]
    assert (final["done"], final["cancelled"], final["running"], final["pending"]) == (8, 0, 0, 0)
    assert final["latest"] == ["Done"] * 8
    expect(page.locator("tr[data-model='slow-fake'] [data-field=done]")).to_have_text("8", timeout=WAIT_MS)
    expect(page.locator("tr[data-model='slow-fake'] [data-field=percent]")).to_have_text("100.0", timeout=WAIT_MS)
    expect(page.locator("#run-progress [data-field=percent]")).to_have_text("100.0", timeout=WAIT_MS)
    expect(page.locator("[data-action=resume]")).to_be_hidden(timeout=WAIT_MS)
    assert Run.objects.get(pk=run.pk).status == "done"
    page.screenshot(path=str(screenshots / "operator-run-done.png"), full_page=True)
    # At 1,366 px nothing on the page is wider than the window, and no table is wider
    # than the box it scrolls in (the latest answers' last columns once were cut off).
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    overflow = page.evaluate("""() => [...document.querySelectorAll('.table-scroll > table:not([hidden])')]
        .filter(table => table.scrollWidth > table.parentElement.clientWidth + 0.5).map(table => table.className)""")
    assert overflow == []
    assert set(aborted_polls) <= {"net::ERR_ABORTED"}, aborted_polls
    assert [p for p in page.problems if not p.endswith("/progress.json")] == []
