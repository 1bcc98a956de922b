"""An analyst reads the crisis-inconsistency page in a real browser: the box plot and the
temperature curve are drawn with their points, the ablation bands beside the curve, and
the most and least divergent answers side by side with the scored section marked."""


import pytest
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.crisis_app.test_crisis_dashboard import SCRIPT, make_scores

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_an_analyst_reads_the_curve_against_the_bands_and_the_divergent_answers(page, live_server, analyst,
                                                                               screenshots):
    scores = make_scores()
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/crisis/?iterations=200")
    expect(page.locator("#coverage")).to_contain_text("11 scored groups from 6 runs of crisis-sample")

    boxes = page.locator("#panel-boxes .chart")
    expect(boxes).to_have_attribute("data-drawn", "1")
    # Two models' boxes, every level-0 group a point: model-a 5, model-b 2.
    assert boxes.locator(".boxlayer .trace").count() == 2
    assert boxes.locator(".boxlayer .point").count() == 7
    assert boxes.locator(".scatterlayer .point").count() == 3  # the means over runs: a at 0.2 and 1.0, b at 0.2

    curve = page.locator("#panel-curve .chart")
    expect(curve).to_have_attribute("data-drawn", "1")
    # model-a's curve (T = 0.2 and 1.0) and model-b's (0.2): three points; the CI bands and the
    # level-1 and level-2 rectangles are filled areas: two CI bands + two ablation bands.
    assert curve.locator(".scatterlayer .point").count() == 3
    assert curve.locator(".scatterlayer .js-fill").count() == 4
    expect(curve.locator(".legendtext", has_text="model-a: level 1 (paraphrase)")).to_be_visible()
    expect(curve.locator(".legendtext", has_text="model-a: level 2 (changed-setting)")).to_be_visible()

    hot = scores["groups"]["a-hot-C"]
    expect(page.locator("#divergent h2")).to_have_text(f"Answers of group {hot.pk}")
    most = page.locator("#pair-most")
    assert most.locator(".answer-text").count() == 2
    expect(most.locator("mark.scored").first).to_have_text(f"Board the ship now. {SCRIPT}")
    assert page.locator("#pair-least mark.scored").count() == 2
    assert page.evaluate("document.querySelectorAll('.answer-text script').length") == 0

    page.screenshot(path=str(screenshots / "crisis-dashboard.png"), full_page=True)
    page.locator("#panel-boxes").screenshot(path=str(screenshots / "crisis-boxes.png"))
    page.locator("#panel-curve").screenshot(path=str(screenshots / "crisis-curve.png"))
    page.locator("#divergent").screenshot(path=str(screenshots / "crisis-pairs.png"))

    # Another group, picked from the list.
    setting = scores["groups"]["a-setting-D"]
    page.select_option("#group", str(setting.pk))
    with page.expect_navigation():
        page.click("form.group-picker button[type=submit]")
    assert f"group={setting.pk}" in page.url
    expect(page.locator("#divergent h2")).to_have_text(f"Answers of group {setting.pk}")
    expect(page.locator("#divergent")).to_contain_text("changed-setting (level 2)")
    assert page.problems == []


def test_the_empty_page_says_what_to_do(page, live_server, analyst, screenshots):
    from crisis_app.services import load_sample

    load_sample("crisis-sample")
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/crisis/")
    expect(page.locator("#coverage")).to_contain_text("score_inconsistency")
    page.screenshot(path=str(screenshots / "crisis-empty.png"))
    assert page.problems == []
