"""A team's first day, in a real browser: an administrator makes a user and ticks the
authors role (nothing else), signs out; the new author signs in to the console and
writes a scenario. Then the site's bar at a phone's width, and its error page."""

import re

import pytest
from playwright.sync_api import expect

from scenarios_app.models import Benchmark, Scenario
from tests.journeys.test_author_browser import fill_scenario, save_and_continue

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

NEW_PASSWORD = "first-day-pass-2026"


def console_sign_in(page, live_server, username, password):
    page.goto(f"{live_server.url}/admin/")
    expect(page.locator("#login-form")).to_be_visible()
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("#login-form input[type=submit]")


def test_an_admin_makes_an_author_who_then_writes_a_scenario(page, live_server, admin_user, screenshots):
    from tests.conftest import PASSWORD

    Benchmark.objects.create(name="default", title="Default benchmark")
    console_sign_in(page, live_server, admin_user.username, PASSWORD)
    expect(page.locator("#site-name")).to_contain_text("CFPD Workbench")

    # Make the user: a name and a password, nothing ticked.
    page.goto(f"{live_server.url}/admin/auth/user/add/")
    page.fill("#id_username", "newauthor")
    page.fill("#id_password1", NEW_PASSWORD)
    page.fill("#id_password2", NEW_PASSWORD)
    with page.expect_navigation():
        page.click("input[name=_continue]")
    assert re.search(r"/admin/auth/user/\d+/change/", page.url), page.url

    # The user's page: the roles, each with what it gives; console access follows them.
    roles = page.locator(".field-groups")
    expect(roles).to_contain_text("authors: write benchmarks in the console")
    expect(roles).to_contain_text("every role opens the console")
    expect(page.locator(".field-console_access")).to_contain_text("no: tick a role to open the console")
    expect(page.locator("#id_is_staff")).to_have_count(0)
    page.locator("#id_groups label", has_text=re.compile(r"^\s*authors: ")).locator("input").check()
    page.screenshot(path=str(screenshots / "first_day_user_roles.png"), full_page=True)
    with page.expect_navigation():
        page.click("input[name=_continue]")
    expect(page.locator("ul.messagelist")).to_contain_text("was changed successfully")
    expect(page.locator(".field-console_access")).to_contain_text("yes, as a member of authors")

    with page.expect_navigation():
        page.click("#logout-form button[type=submit]")

    # The new author: the console's own sign-in lets them in (it refuses non-staff users).
    console_sign_in(page, live_server, "newauthor", NEW_PASSWORD)
    expect(page.locator("body")).not_to_contain_text("not authorized")
    expect(page.locator("#content h1")).to_have_text("Console")
    fill_scenario(page, live_server)
    save_and_continue(page)
    expect(page.locator("ul.messagelist")).to_contain_text("was added successfully")
    assert page.problems == []

    # The site's bar offers the console too.
    page.goto(f"{live_server.url}/")
    expect(page.locator(".topbar nav")).to_contain_text("Console")
    expect(page.locator(".topbar nav a", has_text="API")).to_have_attribute("href", "/api/docs/")
    scenario = Scenario.objects.get()
    assert scenario.author.username == "newauthor"


def test_the_bar_fits_a_phone_and_errors_keep_it(page, live_server, admin_user, screenshots):
    from tests.conftest import PASSWORD

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", admin_user.username)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("form button[type=submit]")
    # Every link of the bar inside the bar and the window: nothing spills out.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    bar = page.locator(".topbar").bounding_box()
    links = page.locator(".topbar nav a, .topbar .who button")
    assert links.count() >= 9
    for i in range(links.count()):
        box = links.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, links.nth(i).inner_text()
        assert bar["y"] <= box["y"] and box["y"] + box["height"] <= bar["y"] + bar["height"], links.nth(i).inner_text()
    page.screenshot(path=str(screenshots / "first_day_bar_390.png"))

    response = page.goto(f"{live_server.url}/runs/987654/")
    assert response.status == 404
    expect(page.locator("h1")).to_have_text("Page not found")
    expect(page.locator(".topbar nav")).to_contain_text("Runs")
    page.screenshot(path=str(screenshots / "first_day_404_390.png"))
    page.problems.clear()  # the 404 itself is the point here
    # The console's pages link no icon: browsers ask for /favicon.ico.
    assert page.request.get(f"{live_server.url}/favicon.ico").status == 200
