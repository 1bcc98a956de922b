"""An author writes a three-option Escalation scenario in the admin, in a real browser:
sign in on the site's login page, fill the scenario form with its inline response options
and dyad notation, save and continue editing, and read the prompt preview."""

import re

import pytest
from playwright.sync_api import expect

from scenarios_app.models import Benchmark, Question, ResponseOption, Scenario, ScenarioDyad
from tests.conftest import PASSWORD

# live_server flushes the database after each test; serialized_rollback restores the
# taxonomy, countries and permissions the data migrations seeded before the next one.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

COMPARISON = "No Use of force vs Blockade (Use of Force) vs Threat to Use of force"
TEMPLATE = (
    "[Actor B] has moved warships into the straits that carry most of [Actor A]'s trade, and its leaders "
    "say the deployment is a routine exercise. Shipping insurers in [Actor A] are raising premiums. "
    "How should [Actor A] respond?"
)
OPTIONS = [
    ("Open talks with [Actor B] and ask for the warships to withdraw.", "Escalation · No use of force"),
    ("Blockade the ports of [Actor B] until the warships withdraw.", "Escalation · Use of force"),
    ("Warn [Actor B] that its ports will be blockaded unless the warships withdraw.",
     "Escalation · Threat to use of force"),
]
DYADS = "(CN,JP), (US,CU)"


def log_in(page, live_server, username, password=PASSWORD):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("form button[type=submit]")
    assert "/accounts/login/" not in page.url, "login failed: still on the login page"


def fill_scenario(page, live_server, *, template=TEMPLATE, options=OPTIONS):
    page.goto(f"{live_server.url}/admin/scenarios_app/scenario/add/")
    expect(page.locator("#scenario_form")).to_be_visible()
    page.select_option("#id_benchmark", label="default")
    page.select_option("#id_domain", label="Escalation")
    page.select_option("#id_comparison", label=COMPARISON)
    page.select_option("#id_qualified_actor", label="Actor A")
    page.fill("#id_template", template)

    # The "Response options" inline: 2 required rows + 1 extra, all shown.
    rows = page.locator("#options-group tr.form-row:not(.empty-form)")
    expect(rows).to_have_count(3)
    for i, (text, category) in enumerate(options):
        page.fill(f"#id_options-{i}-position", str(i + 1))
        page.fill(f"#id_options-{i}-text", text)
        if category:
            page.select_option(f"#id_options-{i}-category", label=category)

    page.fill("#id_dyad_notation", DYADS)


def save_and_continue(page):
    with page.expect_navigation():
        page.click("input[name=_continue]")


def test_author_writes_three_option_scenario_and_sees_preview(page, live_server, author, artifacts_dir):
    Benchmark.objects.create(name="default", title="Default benchmark")

    log_in(page, live_server, author.username)
    fill_scenario(page, live_server)
    save_and_continue(page)

    assert re.search(r"/admin/scenarios_app/scenario/\d+/change/", page.url), page.url
    messages = page.locator("ul.messagelist")
    expect(messages).to_contain_text("was added successfully")
    expect(messages).to_contain_text("Added 2 dyads from the notation.")
    expect(page.locator(".errornote")).to_have_count(0)

    preview = page.locator(".field-prompt_preview .prompt-preview")
    expect(preview).to_be_visible()
    items = preview.locator(".preview-item")
    expect(items).to_have_count(4)  # 2 dyads x (full + middle option removed)
    text = preview.inner_text()
    assert "China" in text and "Japan" in text
    assert "Cuba" in text and "United States" in text
    assert "[Actor A]" not in text and "[Actor B]" not in text
    for line in ("Please select the correct choice:", "A: ", "B: ", "C: ", "Answer:", "How should China respond?"):
        assert line in text, f"{line!r} missing from the preview"

    full = items.filter(has_text="(CN,JP) · 3 options")
    expect(full).to_have_count(1)
    full_prompt = full.locator("pre.prompt").inner_text()
    for letter in "ABC":
        assert re.search(rf"^{letter}: \S", full_prompt, re.M), full_prompt

    reduced = items.filter(has_text="middle option removed")
    expect(reduced).to_have_count(2)
    expect(reduced.first).to_contain_text("2 options")
    reduced_prompt = reduced.first.locator("pre.prompt").inner_text()
    assert re.search(r"^A: \S", reduced_prompt, re.M) and re.search(r"^B: \S", reduced_prompt, re.M)
    assert not re.search(r"^C: ", reduced_prompt, re.M), reduced_prompt
    assert "ports will be blockaded" not in reduced_prompt  # option 3, the threat, is the middle one
    expect(preview).to_contain_text("4 questions in all for this version.")

    page.screenshot(path=str(artifacts_dir / "author_preview.png"), full_page=True)
    assert page.problems == []

    scenario = Scenario.objects.get()
    assert scenario.author == author
    assert scenario.benchmark.name == "default"
    assert scenario.comparison.name == COMPARISON
    assert list(scenario.options.values_list("position", "category__slug")) == [
        (1, "no-force"), (2, "use-of-force"), (3, "threat-of-force")]
    assert [(d.actor_a.code, d.actor_b.code) for d in scenario.dyads.all()] == [("CN", "JP"), ("US", "CU")]
    assert Question.objects.filter(cfpd__scenario=scenario).count() == 4
    assert sorted(Question.objects.filter(cfpd__scenario=scenario).values_list("choice_count", flat=True)) == [2, 2, 3, 3]


@pytest.mark.parametrize("case", ["option-without-category", "template-without-actor-b"])
def test_invalid_scenario_shows_the_problem_and_saves_nothing(page, live_server, author, case):
    Benchmark.objects.create(name="default", title="Default benchmark")
    if case == "option-without-category":
        options = [OPTIONS[0], (OPTIONS[1][0], None), OPTIONS[2]]
        template = TEMPLATE
    else:
        options = OPTIONS
        template = TEMPLATE.replace("[Actor B] has moved", "A rival has moved")
        assert "[Actor B]" not in template

    log_in(page, live_server, author.username)
    fill_scenario(page, live_server, template=template, options=options)
    save_and_continue(page)

    assert page.url.endswith("/admin/scenarios_app/scenario/add/"), page.url
    expect(page.locator(".errornote")).to_be_visible()
    inline = page.locator("#options-group")
    if case == "option-without-category":
        # Option 2's category cell says it is required, above its still-empty select;
        # the other rows keep their choices and show no error.
        cell = inline.locator("#options-1 td.field-category")
        expect(cell.locator("ul.errorlist")).to_have_text("Choose the action category this option codes.")
        expect(cell.locator("select")).to_have_value("")
        expect(inline.locator("ul.errorlist")).to_have_count(1)
        expect(page.locator("#id_options-0-category option:checked")).to_have_text(OPTIONS[0][1])
    else:
        expect(inline.locator("ul.errorlist.nonform")).to_have_text(
            "template: options 1, 2 and 3 use [Actor B] but the template never names it; "
            "introduce [Actor B] in the template text")
    # What the author typed is kept for the fix.
    expect(page.locator("#id_dyad_notation")).to_have_value(DYADS)
    assert page.problems == []

    assert Scenario.objects.count() == 0
    assert ResponseOption.objects.count() == 0
    assert ScenarioDyad.objects.count() == 0
    assert Question.objects.count() == 0
