"""An author gives Russia's Russian name its cases in the console, and the Russian question
that waited for them is asked (issue 41), in a real browser."""

import pytest
from playwright.sync_api import expect

from scenarios_app import services, translations
from scenarios_app.models import Actor, Benchmark, Question
from tests.factories import escalation_spec
from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_translations import RU

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_an_author_types_the_forms_a_russian_translation_waits_for(page, live_server, author, second_author,
                                                                   screenshots):
    scenario = services.save_spec(Benchmark.objects.create(name="t"),
                                  escalation_spec(key="esc-ru", dyads=[("RU", "CN")])).scenario
    translations.set_languages(second_author, ["ru"])
    translations.set_actor_name(Actor.objects.get(code="CN"), "ru", "Китай",
                                forms={"genitive": "Китая", "instrumental": "Китаем"})
    russia = translations.set_actor_name(Actor.objects.get(code="RU"), "ru", "Россия")
    translations.approve_translation(translations.save_translation(scenario, "ru", RU), second_author)
    assert not Question.objects.filter(language="ru").exists()  # Россия has no genitive or dative yet

    log_in(page, live_server, author.username)
    page.goto(f"{live_server.url}/admin/scenarios_app/actornametranslation/{russia.pk}/change/")
    page.fill("#id_forms_text", "genitive=России; locative=России")
    with page.expect_navigation():
        page.click("input[name=_save]")
    expect(page.locator(".errorlist")).to_contain_text("ru has no form 'locative' of names")
    page.screenshot(path=str(screenshots / "actor-name-forms-refused.png"), full_page=True)
    page.fill("#id_forms_text", "genitive=России; dative=России")
    with page.expect_navigation():
        page.click("input[name=_save]")
    expect(page.locator("#result_list")).to_contain_text("genitive=России; dative=России")
    expect(page.locator("#result_list")).to_contain_text("genitive=Китая; instrumental=Китаем")
    page.screenshot(path=str(screenshots / "actor-name-forms-list.png"), full_page=True)
    assert Question.objects.get(language="ru").text.startswith("Армия России стоит у границы с Китаем.")
