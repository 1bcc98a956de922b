"""Fixtures for the real-browser tests: headless Chromium from Debian driven by Playwright.

Playwright's sync API runs an event loop in the test thread, and Django refuses ORM calls
from a thread with a running loop (SynchronousOnlyOperation) unless told otherwise. The
tests only touch the ORM between browser steps, from the one test thread, so this is safe.
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
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TIMEOUT_MS = 15_000


def _require_chromium():
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} not found: install Debian's chromium package to run the browser tests"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole session."""
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium):
    """A fresh browser context (no cookies) and page per test."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    context.set_default_navigation_timeout(TIMEOUT_MS)
    page = context.new_page()
    # What went wrong in the browser (script errors, failed requests such as a missing
    # admin static file); tests assert it stays empty.
    page.problems = []
    page.on("pageerror", lambda error: page.problems.append(f"script error: {error}"))
    page.on("requestfailed", lambda request: page.problems.append(f"request failed: {request.url}"))
    page.on("response", lambda response: response.status >= 400
            and page.problems.append(f"HTTP {response.status}: {response.url}"))
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def artifacts_dir():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
