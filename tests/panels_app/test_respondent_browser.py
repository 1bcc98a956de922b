"""A respondent answers a panel in a real browser with the keyboard alone on a 360-px phone:
consent, profile, every item and attention check, the closing page; axe-core (the copy
bundled by axe-playwright-python, injected into the page) finds no serious or critical
violation on any of those pages; the link resumes half-way in a fresh browser context and is
refused once used; a respondent failing the attention check is excluded and counted."""

from pathlib import Path

import axe_playwright_python
import pytest
from playwright.sync_api import expect

from panels_app import results, services
from panels_app.models import PanelAnswer, Respondent
from runs_app.models import LLMModel, Response, Run
from tests.journeys.test_author_browser import log_in
from tests.panels_app.support import make_benchmark, make_panel

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

AXE = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()
SHOTS = Path("/work/notes/shots")


def serious_violations(page) -> list[str]:
    page.evaluate(AXE)  # evaluated through the DevTools protocol: the page's CSP does not apply
    found = page.evaluate("axe.run(document).then(r => r.violations.map(v => [v.id, v.impact, v.nodes.length]))")
    return [f"{rule} ({impact}, {nodes} node(s))" for rule, impact, nodes in found if impact in ("serious", "critical")]


def focused(page) -> str:
    return page.evaluate("document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ''")


def tab_to(page, wanted: str, limit=8):
    for _ in range(limit):
        page.keyboard.press("Tab")
        if focused(page) == wanted:
            return
    raise AssertionError(f"Tab never reached #{wanted} (last: {focused(page)})")


def answer_page_by_keyboard(page, check_choice="ArrowDown", reason=""):
    """First Tab lands on option A; Space chooses it (an attention check: ArrowDown moves to and
    chooses B, the expected "Second"); Tab on to the reason, then to Next; Enter."""
    page.keyboard.press("Tab")
    assert focused(page) == "choice-A"
    # the focus ring is visible (:focus-visible, 3 px)
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    is_check = "Check 0" in page.locator("#scenario").inner_text()
    page.keyboard.press(check_choice if is_check else "Space")
    if not is_check and reason:
        tab_to(page, "reason")
        page.keyboard.type(reason)
    tab_to(page, "next")
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_a_respondent_answers_with_the_keyboard_on_a_phone(page, live_server):
    panel = make_panel(make_benchmark()[0], per_respondent=3, checks=1)
    token = services.create_invitations(panel, 1)[0].token
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/p/{token}/")
    problems = {"consent": serious_violations(page)}
    page.screenshot(path=str(SHOTS / "h40-consent.png"), full_page=True)
    tab_to(page, "agree")
    with page.expect_navigation():
        page.keyboard.press("Enter")

    expect(page.locator("h1")).to_have_text("About you")
    problems["profile"] = serious_violations(page)
    tab_to(page, "profile-years")
    page.keyboard.type("12")
    page.keyboard.press("Tab")  # the country's first radio
    page.keyboard.press("ArrowDown")  # moves to and chooses the second: CN
    tab_to(page, "profile-next")
    with page.expect_navigation():
        page.keyboard.press("Enter")

    for number in range(1, 5):  # 3 items and the check: 4 pages
        expect(page.locator("#progress span")).to_have_text(f"{number} of 4")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scrolling
        problems[f"item {number}"] = serious_violations(page)
        if number == 1:
            page.screenshot(path=str(SHOTS / "h40-item-360.png"), full_page=True)
        if number == 3:  # save and resume: the same link in a fresh browser context
            fresh = page.context.browser.new_context(viewport={"width": 360, "height": 740})
            other = fresh.new_page()
            other.goto(f"{live_server.url}/p/{token}/")
            expect(other.locator("#progress span")).to_have_text("3 of 4")
            fresh.close()
        answer_page_by_keyboard(page, reason="Deterrence first." if number == 1 else "")

    expect(page.locator("h1")).to_have_text("Thank you")
    problems["closing"] = serious_violations(page)
    page.screenshot(path=str(SHOTS / "h40-closing.png"), full_page=True)
    assert {name: found for name, found in problems.items() if found} == {}

    respondent = Respondent.objects.get(token=token)
    assert respondent.profile == {"years": 12, "country": "CN"}
    assert respondent.finished_at is not None and respondent.failed_checks == 0
    answers = list(PanelAnswer.objects.filter(respondent=respondent).order_by("position"))
    assert [a.chosen_letter for a in answers if a.question_id] == ["A", "A", "A"]
    assert [a.reason for a in answers][0] == "Deterrence first."
    assert all(a.seconds is not None for a in answers)

    response = page.goto(f"{live_server.url}/p/{token}/")  # a used link is refused
    assert response.status == 410
    page.problems = [p for p in page.problems if f"/p/{token}/" not in p]  # that 410, on purpose
    assert page.problems == []


def test_a_respondent_failing_the_check_is_excluded_and_counted(page, live_server, analyst):
    panel = make_panel(make_benchmark()[0], per_respondent=2, checks=1, profile=False)
    token = services.create_invitations(panel, 1)[0].token
    page.goto(f"{live_server.url}/p/{token}/")
    with page.expect_navigation():
        page.click("#agree")
    for _ in range(3):
        answer_page_by_keyboard(page, check_choice="Space")  # chooses "First": not the expected one
    expect(page.locator("h1")).to_have_text("Thank you")
    found = results.panel_results(panel)
    assert (found.finished, found.excluded, found.kept_answers) == (1, 1, 0)

    # a second respondent passes; a model answered the same questions: the analysts' page
    kept = services.create_invitations(panel, 1)[0]
    services.consent(kept)
    while (item := services.current_page(kept)) is not None:
        services.answer_item(kept, item.position, "B")
    model = LLMModel.objects.create(name="hawk", litellm_model="openai/hawk")
    run = Run.objects.create(benchmark=panel.benchmark, status="done")
    for link in panel.panel_questions.all():
        for repeat, code in enumerate("AAB"):
            Response.objects.create(run=run, question_id=link.question_id, model=model, repeat=repeat,
                                    status="done", code=code)
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/panels/{panel.pk}/")
    expect(page.locator('[data-count="excluded"]')).to_have_text("1")
    expect(page.locator('[data-count="kept"]')).to_have_text("2")
    expect(page.locator("#panel-alignment tr[data-model=hawk] td").nth(3)).to_have_text("2")
    page.screenshot(path=str(SHOTS / "h40-panel-page.png"), full_page=True)
    assert page.problems == []
