"""The run page says when its run waits on a service, and stops saying it when the
service is back, without a reload (issue 32): the watcher's notice, written by
services.watch_services, shown by the progress script."""

from datetime import datetime, timezone as dt_timezone

import pytest
from playwright.sync_api import expect

from runs_app import queueing, services
from tests.journeys.test_author_browser import log_in
from tests.runs_app.test_execution import benchmark, launch, model  # noqa: F401 — fixtures
from tests.runs_app.test_run_views import operator  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_run_page_shows_and_clears_the_services_notice(page, live_server, operator, benchmark, monkeypatch,
                                                           settings, screenshots):
    settings.TIME_ZONE = "UTC"
    run = launch(benchmark, [model(type("Fake", (), {"base_url": "http://127.0.0.1:9/v1"})())], monkeypatch)
    since = datetime.now(dt_timezone.utc).replace(hour=12, minute=4)
    services.watch_services({"redis": since})
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, "olga")
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    notice = page.locator("#run-service-wait")
    expect(notice).to_be_visible()
    expect(notice).to_have_text("Redis unreachable since 12:04; 4 units will be queued again when it returns.")
    page.screenshot(path=str(screenshots / "faults-run-page-redis-notice.png"), full_page=True)
    monkeypatch.setattr(queueing, "enqueue", lambda ids: None)
    services.watch_services({}, ended={"redis": since})  # Redis is back: the units are sent again
    expect(notice).to_be_hidden(timeout=30_000)  # the page's next progress poll
    assert page.problems == []
