"""Fixtures for the real-browser tests: headless Chromium from Debian driven by Playwright.

While Playwright's sync API is started, it marks an event loop as running in the test
thread. Two things follow:

* Django refuses ORM calls from a thread with a running loop (SynchronousOnlyOperation)
  unless told otherwise. The tests only touch the ORM between browser steps, from the
  one test thread, so allowing it is safe.
* Django keeps its database connections per thread, but per async context once a loop
  runs, so while Playwright is started the test body gets a second connection object.
  The test database's set-up and flush (pytest-django's transactional test case, with
  serialized rollback restoring the seeded taxonomy) must run on the ordinary one, and
  no later test may see a running loop. So Playwright and Chromium are started for each
  test, inside the database set-up and flush, and stopped again (Chromium starts in
  about half a second), and the extra connections are closed before Playwright stops.
"""

import os
from pathlib import Path

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
TIMEOUT_MS = 15_000
# Page loads: several tests compute a dashboard in the request (CFPD_DASHBOARD_IN_WORKER off,
# so its charts come at once), seconds on a slow 2-core machine with the pass's other process
# beside it (three such loads passed 15 s under load 5). Speed is measured by the benches
# (bench/first_load.py, bench/page_speed.py), not by this wait.
NAVIGATION_MS = 45_000
SCREENSHOTS = Path(__file__).resolve().parents[1] / "var" / "screenshots"


def _require_chromium():
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} not found: install Debian's chromium package to run the browser tests"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def page():
    """A page in a fresh headless Chromium. `page.problems` collects script errors and
    failed requests (such as a missing admin static file); tests assert it stays empty."""
    _require_chromium()
    from django.db import connections
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.set_default_timeout(TIMEOUT_MS)
            context.set_default_navigation_timeout(NAVIGATION_MS)
            page = context.new_page()
            page.problems = []
            page.on("pageerror", lambda error: page.problems.append(f"script error: {error}"))
            # A request the browser itself aborted because the page moved on (a favicon
            # still loading when a key press submits a form) is no fault of the page; a
            # missing file is a 404 and is caught below, a refused one fails otherwise.
            page.on("requestfailed", lambda request: request.failure != "net::ERR_ABORTED"
                    and page.problems.append(f"request failed: {request.url} ({request.failure})"))
            page.on("response", lambda response: response.status >= 400
                    and page.problems.append(f"HTTP {response.status}: {response.url}"))
            yield page
        finally:
            browser.close()
    finally:
        # The connections opened while the loop ran (see above); the ordinary ones
        # stay for the flush.
        connections.close_all()
        playwright.stop()


@pytest.fixture
def artifacts_dir():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def screenshots():
    """The folder the browser tests save their screenshots in (var/screenshots)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
