"""Each actor in its own language (issue 41): `run_benchmark --each-actor-language`, the
launch form's box and the API's `each_actor_language` ask a dyad in actor A's and actor B's
own languages (`Actor.languages`) where an approved translation exists, and say what they
left out and why."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from benchmarks_app.services import ActorLanguagesError, set_actor_languages
from runs_app.models import LLMModel, Run
from scenarios_app.models import Actor, Question
from tests.conftest import PASSWORD
from tests.runs_app.test_launch_languages import BUNDLED, zh_benchmark

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark(second_author):
    benchmark = zh_benchmark(second_author)
    # CN speaks zh (translated), RU ru (not translated), US en (the source), MX es (not translated).
    for code, languages in [("CN", ["zh"]), ("RU", ["ru"]), ("US", ["en"]), ("MX", ["es"])]:
        set_actor_languages(Actor.objects.get(code=code), languages)
    return benchmark


@pytest.fixture
def operator_user(db):
    from accounts.services import create_user_with_role

    return create_user_with_role("olga", PASSWORD, role="operators")[0]


def command(*args):
    out = io.StringIO()
    call_command("run_benchmark", "--benchmark", "t", "--models", ",".join(BUNDLED), "--no-wait", *args,
                 stdout=out, stderr=io.StringIO())
    return out.getvalue()


def asked(run):
    return sorted(Question.objects.filter(responses__run=run).distinct().values_list(
        "cfpd__actor_a__code", "cfpd__actor_b__code", "language"))


def test_the_command_asks_each_dyad_in_its_actors_languages(benchmark):
    # en: CN-RU and US-MX (2 questions); CN's zh adds CN-RU@zh; US's en is named already;
    # RU's ru and MX's es have no translation. 3 questions × 2 choice-mode models = 6 units.
    plan = command("--dry-run", "--each-actor-language")
    assert "plan: 6 units" in plan
    assert "left out: each actor's language: ru left out for 1 dyad (esc-test v1 CN–RU): no approved" in plan
    assert "left out: each actor's language: es left out for 1 dyad (esc-test v1 US–MX): no approved" in plan
    out = command("--each-actor-language")
    assert "left out: each actor's language: ru left out" in out
    run = Run.objects.get()
    assert run.selection["each_actor_language"] == ["yes"]
    assert asked(run) == [("CN", "RU", "en"), ("CN", "RU", "zh"), ("US", "MX", "en")]
    assert run.responses.count() == 6
    # US-MX@zh exists (both names translated) but neither actor speaks zh: not asked.
    assert Question.objects.filter(language="zh", cfpd__actor_a__code="US").exists()


def test_without_the_option_nothing_changes_and_bad_values_are_refused(benchmark):
    assert "plan: 4 units" in command("--dry-run")
    assert "left out" not in command("--dry-run")
    with pytest.raises(CommandError, match="--select each_actor_language: 'maybe' is not yes or no"):
        command("--select", "each_actor_language=maybe")
    assert Run.objects.count() == 0


def test_an_actors_languages_are_checked():
    with pytest.raises(ActorLanguagesError, match="'chinese' is not a BCP 47 language tag"):
        set_actor_languages(Actor.objects.get(code="CN"), ["chinese"])
    assert Actor.objects.get(code="CN").languages == []


def test_the_launch_form_has_the_box(benchmark, client, operator_user):
    assert client.login(username=operator_user.username, password=PASSWORD)
    assert 'name="each_actor_language"' in client.get(reverse("run-launch")).content.decode()
    models = list(LLMModel.objects.filter(name__in=BUNDLED).values_list("pk", flat=True))
    fields = {"benchmark": benchmark.pk, "models": models, "repeats": "1", "qualified_actors": "", "languages": "",
              "each_actor_language": ["yes"], "sample": "", "seed": "0", "system_prompt": "", "cache": "auto",
              "note": "", "budget_usd": "", "budget_units": ""}
    plan = client.post(reverse("run-launch"), {**fields, "step": "plan"}).content.decode()
    assert 'id="plan-notes"' in plan and "Left out: each actor&#x27;s language: ru left out" in plan
    bad = client.post(reverse("run-launch"), {**fields, "each_actor_language": ["maybe"]})
    assert bad.status_code == 200 and Run.objects.count() == 0
    page = client.post(reverse("run-launch"), fields, follow=True).content.decode()
    assert "Left out: each actor&#x27;s language: es left out" in page
    run = Run.objects.get()
    assert asked(run) == [("CN", "RU", "en"), ("CN", "RU", "zh"), ("US", "MX", "en")]
    # The run's page repeats the plan's lines, read from the run (kept at launch), not only
    # in the message shown once after the launch.
    assert run.left_out == plan_lines(plan)
    detail = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    shown = detail.split('id="left-out"', 1)[1].split("</ul>", 1)[0]
    assert shown.count("<li>Left out: ") == 2
    assert "ru left out for 1 dyad (esc-test v1 CN–RU)" in shown and "es left out for 1 dyad (esc-test v1 US–MX)" in shown


def plan_lines(page: str) -> list[str]:
    """The plan's *Left out* lines as the form shows them (unescaped)."""
    import html
    import re

    block = page.split('id="plan-notes"', 1)[1].split("</ul>", 1)[0]
    return [html.unescape(line) for line in re.findall(r"<li>Left out: (.*?)</li>", block)]


def test_a_run_without_left_out_lines_shows_none(benchmark, client, operator_user):
    command()  # the source language alone: nothing left out
    run = Run.objects.get()
    assert run.left_out == []
    assert client.login(username=operator_user.username, password=PASSWORD)
    assert 'id="left-out"' not in client.get(reverse("run-detail", args=[run.pk])).content.decode()


def test_the_api_field(benchmark, client, operator_user):
    assert client.login(username=operator_user.username, password=PASSWORD)
    url = reverse("api-run-list")
    bad = client.post(url, {"benchmark": "t", "models": BUNDLED, "each_actor_language": ["maybe"]},
                      content_type="application/json")
    assert bad.status_code == 400 and bad.json()["each_actor_language"] == ["'maybe' is not yes or no"]
    bad = client.post(url, {"benchmark": "t", "models": BUNDLED, "each_actor_language": {"a": 1}},
                      content_type="application/json")
    assert bad.status_code == 400
    plan = client.post(url, {"benchmark": "t", "models": BUNDLED, "each_actor_language": ["yes"], "dry_run": True},
                       content_type="application/json")
    assert plan.status_code == 200 and plan.json()["units"] == 6
    assert [line.split(":")[1].strip() for line in plan.json()["notes"]] == [
        "ru left out for 1 dyad (esc-test v1 CN–RU)", "es left out for 1 dyad (esc-test v1 US–MX)"]
    made = client.post(url, {"benchmark": "t", "models": BUNDLED, "each_actor_language": ["yes"]},
                       content_type="application/json")
    assert made.status_code == 201, made.content
    assert asked(Run.objects.get()) == [("CN", "RU", "en"), ("CN", "RU", "zh"), ("US", "MX", "en")]
    # The 201 repeats the dry run's notes, line for line, and so does the run read again.
    assert made.json()["left_out"] == plan.json()["notes"]
    assert client.get(reverse("api-run-detail", args=[made.json()["id"]])).json()["left_out"] == plan.json()["notes"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_operator_ticks_the_box_sees_what_is_left_out_and_the_run_keeps_it(page, live_server, benchmark,
                                                                               operator_user, screenshots):
    # The operator's path in Chromium: the launch form's box, the plan's Left out lines, the
    # launch, and the run page repeating them.
    from playwright.sync_api import expect

    from tests.journeys.test_author_browser import log_in

    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, operator_user.username)
    page.goto(f"{live_server.url}{reverse('run-launch')}")
    page.select_option("select[name=benchmark]", value=str(benchmark.pk))
    for pk in LLMModel.objects.filter(name__in=BUNDLED).values_list("pk", flat=True):
        page.check(f"input[name=models][value='{pk}']")
    page.check("input[name=each_actor_language]")
    page.click("button[value=plan]")
    notes = page.locator("#plan-notes li")
    expect(notes).to_have_count(2)
    assert all(text.startswith("Left out: each actor's language: ") for text in notes.all_inner_texts())
    page.locator("#launch-plan").screenshot(path=str(screenshots / "each-actor-language-plan.png"))
    page.click("button[value=launch]")
    page.wait_for_url("**/runs/*/")
    run = Run.objects.get()
    assert asked(run) == [("CN", "RU", "en"), ("CN", "RU", "zh"), ("US", "MX", "en")]
    lines = page.locator("#left-out li")
    assert lines.all_inner_texts() == [f"Left out: {line}" for line in run.left_out] and len(run.left_out) == 2
    page.locator("#left-out").locator("xpath=ancestor::section[1]").screenshot(
        path=str(screenshots / "each-actor-language-run.png"))
    assert not page.problems, page.problems
