"""An author's first hour in the console, in a real browser (issue 38): she writes a
benchmark (a name that is no slug is refused in words), then a three-option scenario whose
template forgets [Actor B] (refused in words, nothing saved, nothing she typed lost), fixes
it, saves, reads the dyads inline's title in plain words and the preview of its questions,
sees the questions on the scenarios' list and the benchmark; then approves a colleague's
scenario, is told so, approves it again and is told it was already approved, and is told
why she cannot approve her own."""

import pytest
from playwright.sync_api import expect

from accounts.services import create_user_with_role
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark, Question, Scenario, ScenarioReview
from tests.journeys.test_author_browser import DYADS, TEMPLATE, fill_scenario, log_in, save_and_continue
from tests.conftest import PASSWORD
from tests.factories import three_option_spec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

CHANGELIST = "/admin/scenarios_app/scenario/"


def approve(page, live_server, scenario):
    """Tick `scenario` on the scenarios' list and run the approve action."""
    page.goto(f"{live_server.url}{CHANGELIST}")
    page.check(f"input.action-select[value='{scenario.pk}']")
    page.select_option("select[name=action]", "approve_selected")
    with page.expect_navigation():
        page.click("button[name=index]")
    return page.locator("ul.messagelist")


def test_an_author_writes_a_benchmark_and_a_scenario_and_approves_a_colleagues(page, live_server, screenshots):
    author, _ = create_user_with_role("alice", PASSWORD, role="authors")
    colleague, _ = create_user_with_role("bob", PASSWORD, role="authors")
    theirs = Benchmark.objects.create(name="colleagues")
    authoring.save_spec(theirs, three_option_spec(key="esc3-colleague"), author=colleague)
    colleagues = Scenario.objects.get(key="esc3-colleague")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, "alice")

    # The console offers what an author writes.
    page.goto(f"{live_server.url}/admin/")
    for name in ("Benchmarks", "Scenarios"):
        expect(page.locator("#content-main a", has_text=name).first).to_be_visible()

    # A benchmark: a name with a space is refused in words, the title kept.
    page.goto(f"{live_server.url}/admin/benchmarks_app/benchmark/add/")
    page.fill("#id_name", "my default")
    page.fill("#id_title", "My first benchmark")
    with page.expect_navigation():
        page.click("input[name=_save]")
    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator(".field-name ul.errorlist")).to_contain_text("letters, numbers, underscores or hyphens")
    expect(page.locator("#id_title")).to_have_value("My first benchmark")
    page.screenshot(path=str(screenshots / "first-hour-author-benchmark-error.png"), full_page=True)
    page.fill("#id_name", "default")
    with page.expect_navigation():
        page.click("input[name=_save]")
    expect(page.locator("ul.messagelist")).to_contain_text("was added successfully")
    assert Benchmark.objects.filter(name="default", title="My first benchmark").exists()

    # A scenario whose template forgets [Actor B]: refused in words, nothing saved or lost.
    forgetful = TEMPLATE.replace("[Actor B] has moved", "A rival has moved")
    fill_scenario(page, live_server, template=forgetful)
    title = page.locator("#dyads-group h2")
    assert title.inner_text() == "Dyads (Actor A, Actor B)", title.inner_text()  # as the eye reads it, CSS applied
    save_and_continue(page)
    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator("#options-group ul.errorlist.nonform")).to_have_text(
        "template: options 1, 2 and 3 use [Actor B] but the template never names it; "
        "introduce [Actor B] in the template text")
    expect(page.locator("#id_dyad_notation")).to_have_value(DYADS)
    expect(page.locator("#id_options-1-text")).to_have_value("Blockade the ports of [Actor B] until the warships withdraw.")
    assert not Scenario.objects.filter(benchmark__name="default").exists()
    page.screenshot(path=str(screenshots / "first-hour-author-scenario-error.png"), full_page=True)

    # Fixed and saved: the dyads added, the preview of the exact prompts, the questions made.
    page.fill("#id_template", TEMPLATE)
    save_and_continue(page)
    messages = page.locator("ul.messagelist")
    expect(messages).to_contain_text("was added successfully")
    expect(messages).to_contain_text("Added 2 dyads from the notation.")
    title = page.locator("#dyads-group h2")
    assert title.inner_text() == "Dyads (Actor A, Actor B)", title.inner_text()
    expect(page.locator("#dyads-group tr.form-row.has_original")).to_have_count(2)
    preview = page.locator(".field-prompt_preview .prompt-preview")
    expect(preview.locator(".preview-item")).to_have_count(4)  # 2 dyads x (3 options, the middle one removed)
    expect(preview).to_contain_text("How should China respond?")
    expect(preview).to_contain_text("4 questions in all for this version.")
    page.screenshot(path=str(screenshots / "first-hour-author-scenario-saved.png"), full_page=True)
    mine = Scenario.objects.get(benchmark__name="default")
    assert mine.author == author
    assert Question.objects.filter(cfpd__scenario=mine).count() == 4

    page.goto(f"{live_server.url}{CHANGELIST}")
    row = page.locator("#result_list tr", has=page.locator(f"a[href$='/{mine.pk}/change/']"))
    expect(row.locator("td.field-question_count")).to_have_text("4")
    expect(row.locator("td.field-dyad_count")).to_have_text("2")
    page.screenshot(path=str(screenshots / "first-hour-author-scenarios.png"), full_page=True)

    # Approving a colleague's scenario, then again, then her own.
    expect(approve(page, live_server, colleagues)).to_have_text("Recorded your approval of 1 scenario.")
    messages = approve(page, live_server, colleagues)
    expect(messages).to_have_text(f"You had already approved {colleagues} as it stands; nothing changed.")
    expect(messages).not_to_contain_text("(s)")
    page.screenshot(path=str(screenshots / "first-hour-author-approved-again.png"))
    expect(approve(page, live_server, mine)).to_have_text(
        f"Not approved: you wrote this scenario, {mine}; two other people must review it")
    assert list(ScenarioReview.objects.values_list("scenario__key", "reviewer__username")) == [
        ("esc3-colleague", "alice")]
    assert page.problems == []
