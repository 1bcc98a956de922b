"""An author drafts a Chinese translation with a model, reviews it beside its source and
approves it, in a real browser (issue 41). The model is the fake OpenAI-compatible server
(its replies set per prompt); the worker's part runs in the test between browser steps."""

import pytest
from playwright.sync_api import expect

from runs_app.models import LLMModel
from scenarios_app import services, translations
from scenarios_app.models import Actor, Benchmark, Question, ScenarioTranslation, TranslationDraft
from tests.fakes.fixtures import fake, server  # noqa: F401
from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_translation_drafts import BACK, ZH, quick_bertscore, replies, run_worker, sent  # noqa: F401
from tests.factories import escalation_spec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_an_author_drafts_reviews_and_approves_a_chinese_translation(page, live_server, author, fake, sent,
                                                                     screenshots):
    fake.configure(replies=replies())
    scenario = services.save_spec(Benchmark.objects.create(name="t"), escalation_spec(dyads=[("CN", "RU")])).scenario
    LLMModel.objects.create(name="drafter", litellm_model="openai/fake", api_base=fake.base_url,
                            answer_mode="generate", timeout_seconds=10)
    LLMModel.objects.create(name="back-translator", litellm_model="openai/fake", api_base=fake.base_url,
                            answer_mode="generate", timeout_seconds=10)
    translations.set_languages(author, ["en", "zh"])
    translations.set_actor_name(Actor.objects.get(code="CN"), "zh", "中国")
    translations.set_actor_name(Actor.objects.get(code="RU"), "zh", "俄罗斯")

    log_in(page, live_server, author.username)
    # From the scenario's own page: the form opens with the scenario chosen.
    page.goto(f"{live_server.url}/admin/scenarios_app/scenario/{scenario.pk}/change/")
    page.screenshot(path=str(screenshots / "translation-scenario-page.png"))
    page.click("text=Draft a translation with a model")
    expect(page.locator("#id_scenario")).to_have_value(str(scenario.pk))
    expect(page.locator("#id_language")).to_have_value("zh")  # the language the author's profile lists
    page.select_option("#id_model", label="drafter")
    page.select_option("#id_back_model", label="back-translator")
    page.screenshot(path=str(screenshots / "translation-draft-form.png"), full_page=True)
    with page.expect_navigation():
        page.click("input[type=submit][value='Draft with a model']")
    expect(page.locator("ul.messagelist")).to_contain_text("Asked drafter for a draft")
    expect(page.locator(".field-status")).to_contain_text("Waiting for a worker")
    assert fake.stats()["total_requests"] == 0  # nothing asked in the request

    run_worker(sent)  # the worker's part
    # The page follows the draft by itself (it reloads while the draft waits or runs).
    expect(page.locator(".field-status")).to_contain_text("Done", timeout=20_000)
    table = page.locator("table.translation-side-by-side")
    expect(table).to_contain_text(ZH["template"])
    expect(table).to_contain_text(BACK["option_b"])
    expect(page.locator("tr.drifted")).to_have_count(1)
    expect(page.locator("tr.drifted")).to_contain_text("option_b")
    expect(page.locator("tr.drifted .drift-flag")).to_have_text("⚠ drifted")
    page.screenshot(path=str(screenshots / "translation-draft-done.png"), full_page=True)
    assert not Question.objects.filter(language="zh").exists()  # a draft asks nothing

    with page.expect_navigation():
        page.click(".field-translation_link a")
    expect(page.locator(".field-side_by_side")).to_contain_text(ZH["option_a"])
    expect(page.locator(".field-model_name")).to_contain_text("drafter")
    expect(page.locator(".field-prompt_shown")).to_contain_text("into Chinese (zh)")
    page.screenshot(path=str(screenshots / "translation-review.png"), full_page=True)

    page.goto(f"{live_server.url}/admin/scenarios_app/scenariotranslation/")
    expect(page.locator("td.field-drift")).to_contain_text("⚠ option_b")
    page.check("input.action-select")
    page.select_option("select[name=action]", "approve_selected")
    with page.expect_navigation():
        page.click("button[name=index]")
    expect(page.locator("ul.messagelist")).to_contain_text("Approved 1 translation.")
    page.screenshot(path=str(screenshots / "translation-approved.png"), full_page=True)
    translation = ScenarioTranslation.objects.get()
    assert (translation.status, translation.approved_by) == ("approved", author)
    assert TranslationDraft.objects.get().translation == translation
    assert Question.objects.get(language="zh").text.startswith("中国在与俄罗斯的边境集结了军队")
    assert not page.problems, page.problems
