"""The authoring console: who may do what, and the form's messages."""

import pytest
from django.urls import reverse

from scenarios_app import services
from scenarios_app.models import ActionCategory, Benchmark, CodifiedComparison, Domain, Scenario
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db

ADD = reverse("admin:scenarios_app_scenario_add")
CHANGELIST = reverse("admin:scenarios_app_scenario_changelist")


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


def form_data(template="[Actor A] eyes [Actor B]'s islands. How should [Actor A] respond?",
              options=(("Negotiate with [Actor B]", "no-force"), ("Seize the islands", "use-of-force")),
              comparison="esc2-attack", domain="escalation", notation="(CN,JP), (US,CU)", qualified="A"):
    data = {
        "benchmark": Benchmark.objects.get_or_create(name="default")[0].pk,
        "key": "", "domain": Domain.objects.get(slug=domain).pk,
        "comparison": CodifiedComparison.objects.get(slug=comparison).pk,
        "qualified_actor": qualified, "template": template, "notes": "", "dyad_notation": notation,
        "options-TOTAL_FORMS": str(len(options)), "options-INITIAL_FORMS": "0",
        "options-MIN_NUM_FORMS": "2", "options-MAX_NUM_FORMS": "3",
        "dyads-TOTAL_FORMS": "0", "dyads-INITIAL_FORMS": "0", "dyads-MIN_NUM_FORMS": "0", "dyads-MAX_NUM_FORMS": "1000",
        "reviews-TOTAL_FORMS": "0", "reviews-INITIAL_FORMS": "0", "reviews-MIN_NUM_FORMS": "0",
        "reviews-MAX_NUM_FORMS": "1000",
        "_continue": "Save and continue editing",
    }
    for n, (text, category) in enumerate(options):
        data[f"options-{n}-position"] = str(n + 1)
        data[f"options-{n}-text"] = text
        data[f"options-{n}-category"] = ActionCategory.objects.get(slug=category).pk if category else ""
    return data


def errors_of(response):
    return " | ".join(str(e) for e in response.context["errors"]) if response.context else ""


def test_anonymous_visitors_are_sent_to_sign_in(client):
    for url in (CHANGELIST, reverse("home"), reverse("benchmark-list")):
        response = client.get(url)
        assert response.status_code == 302 and "login" in response["Location"]


def test_an_author_creates_a_scenario_with_dyads_from_notation(client, author):
    response = login(client, author).post(ADD, form_data())
    assert response.status_code == 302, errors_of(response)
    scenario = Scenario.objects.get()
    assert scenario.author == author and scenario.key.startswith("esc2-attack-")
    assert [str(d) for d in scenario.dyads.all()] == ["(CN,JP)", "(US,CU)"]
    assert scenario.questions.count() == 2
    page = client.get(response["Location"]).content.decode()
    assert "Please select the correct choice:" in page and "How should the United States respond?" in page


@pytest.mark.parametrize("changes, message", [
    ({"template": "[Actor A] is restless. How should [Actor A] respond?"},
     "template: option 1 uses [Actor B] but the template never names it"),
    ({"options": (("Negotiate", "no-force"), ("Seize the islands", None))},
     "Choose the action category this option codes."),
    ({"options": (("Negotiate", "no-force"), ("Seize", "use-of-force"), ("Seize more", "use-of-force")),
      "comparison": "esc3-attack"},
     "options: three options need a middle option"),
    ({"comparison": "ally-bandwagon"}, "belongs to Alliance Dynamics, not Escalation"),
    ({"notation": "(CN,QQ)"}, "&#x27;QQ&#x27; is not a known actor code"),
    ({"notation": "(CN,CN)"}, "(CN,CN) pairs an actor with itself"),
    ({"options": (("Negotiate", "no-force"), ("Join the pact", "cooperative"))},
     "&#x27;Cooperative&#x27; is a Cooperation category; choose one of Escalation"),
])
def test_the_form_names_the_problem_and_saves_nothing(client, author, changes, message):
    response = login(client, author).post(ADD, form_data(**changes))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Scenario.objects.count() == 0


@pytest.mark.parametrize("persona", ["reviewer", "analyst"])
def test_reviewers_and_analysts_can_read_but_not_edit_scenarios(client, request, persona, author):
    scenario = services.save_spec(Benchmark.objects.create(name="default"), escalation_spec(), author).scenario
    user = request.getfixturevalue(persona)
    assert user.is_staff  # their role opens the console, but does not allow edits
    login(client, user)
    assert client.get(CHANGELIST).status_code == 200
    assert client.get(ADD).status_code == 403
    change = reverse("admin:scenarios_app_scenario_change", args=[scenario.pk])
    assert client.post(change, form_data()).status_code == 403
    assert Scenario.objects.get().template == escalation_spec().template


def test_users_without_a_role_are_kept_out_of_the_console(client, outsider):
    response = login(client, outsider).get(CHANGELIST)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_an_outsider_is_refused_the_benchmark_pages(client, outsider):
    assert login(client, outsider).get(reverse("benchmark-list")).status_code == 403


def test_analysts_see_the_question_counts(client, analyst, author):
    services.save_spec(Benchmark.objects.create(name="default"), escalation_spec(), author)
    page = login(client, analyst).get(reverse("benchmark-detail", args=["default"])).content.decode()
    assert "Questions by domain, choice count and qualified actor" in page
    assert '<td class="num">2</td></tr></tfoot>' in page.replace("\n", "")


def test_a_frozen_scenario_is_read_only_and_branches_into_a_new_version(client, author):
    scenario = services.save_spec(Benchmark.objects.create(name="default"), escalation_spec(), author).scenario
    services.freeze([scenario])
    login(client, author)
    change = reverse("admin:scenarios_app_scenario_change", args=[scenario.pk])
    page = client.get(change).content.decode()
    assert "Create new version" in page and 'name="template"' not in page
    response = client.post(reverse("admin:scenarios_app_scenario_new_version", args=[scenario.pk]))
    successor = Scenario.objects.get(is_current=True)
    assert response["Location"] == reverse("admin:scenarios_app_scenario_change", args=[successor.pk])
    assert (successor.version, successor.is_frozen, successor.dyads.count()) == (2, False, 2)


def test_the_approve_action_records_reviews_but_not_by_the_author(client, author, second_author):
    scenario = services.save_spec(Benchmark.objects.create(name="default"), escalation_spec(), author).scenario
    data = {"action": "approve_selected", "_selected_action": [scenario.pk]}
    page = login(client, author).post(CHANGELIST, data, follow=True).content.decode()
    assert "you wrote this scenario" in page
    client.logout()
    page = login(client, second_author).post(CHANGELIST, data, follow=True).content.decode()
    assert services.approvals_of_current_text(scenario) == ["bob"]
    assert "Recorded your approval of 1 scenario." in page
    # Issue 38: approving again said "Recorded your approval of 1 scenario(s)."
    page = client.post(CHANGELIST, data, follow=True).content.decode()
    assert f"You had already approved {scenario} as it stands; nothing changed." in page
    assert "Recorded your approval" not in page and "(s)" not in page
    assert services.approvals_of_current_text(scenario) == ["bob"]


def test_the_approve_action_counts_in_words_and_names_the_already_approved(client, author, second_author):
    benchmark = Benchmark.objects.create(name="default")
    first = services.save_spec(benchmark, escalation_spec(), author).scenario
    second = services.save_spec(benchmark, escalation_spec(key="esc-other"), author).scenario
    login(client, second_author)
    client.post(CHANGELIST, {"action": "approve_selected", "_selected_action": [first.pk]})
    page = client.post(CHANGELIST, {"action": "approve_selected", "_selected_action": [first.pk, second.pk]},
                       follow=True).content.decode()
    assert "Recorded your approval of 1 scenario." in page
    assert f"You had already approved {first} as it stands; nothing changed." in page
    page = client.post(CHANGELIST, {"action": "approve_selected", "_selected_action": [first.pk, second.pk]},
                       follow=True).content.decode()
    assert "You had already approved these 2 scenarios as they stand" in page


def test_the_dyads_inline_is_titled_in_the_plural(client, author):
    scenario = services.save_spec(Benchmark.objects.create(name="default"), escalation_spec(), author).scenario
    page = login(client, author).get(reverse("admin:scenarios_app_scenario_change", args=[scenario.pk]))
    html = page.content.decode()
    # Issue 38: Django's default plural made it "Dyad (Actor A, Actor B)s" (shown in capitals).
    assert "Dyads (Actor A, Actor B)" in html and "B)s" not in html


def test_the_import_upload_checks_then_imports(client, author, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.factories import GOOD_ROW, table_csv

    url = reverse("admin:scenarios_app_scenario_import")
    upload = lambda: SimpleUploadedFile("s.csv", table_csv([GOOD_ROW]).encode(), "text/csv")  # noqa: E731
    page = login(client, author).post(url, {"file": upload(), "benchmark": "up", "dry_run": "on"}).content.decode()
    assert "dry run, nothing written: 1 scenarios into &#x27;up&#x27; (1 created)" in page
    assert Scenario.objects.count() == 0
    client.post(url, {"file": upload(), "benchmark": "up"})
    assert Scenario.objects.get().benchmark.name == "up"


def test_reviewers_cannot_import(client, reviewer):
    assert login(client, reviewer).get(reverse("admin:scenarios_app_scenario_import")).status_code == 403


def test_the_actors_old_console_address_leads_to_where_they_live_now(client, author):
    # The actors moved from the CFPD app to the core; a bookmark of the old list or of one actor still works.
    signed_in = login(client, author)
    response = signed_in.get("/admin/scenarios_app/actor/?q=united")
    assert response.status_code == 301 and response["Location"] == "/admin/benchmarks_app/actor/?q=united"
    assert signed_in.get("/admin/scenarios_app/actor/7/change/")["Location"] == "/admin/benchmarks_app/actor/7/change/"
    assert signed_in.get(response["Location"]).status_code == 200
