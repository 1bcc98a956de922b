"""The family registry is open: a fourth family, registered here by a test and installed
nowhere else, is launched through the ordinary services and the launch page, shown on the
run page, the benchmark pages, the reviewers' filters, the navigation and home page, at its own
address (mounted from its registration) and on the models' profiles and comparison (its
headline publisher), with no edit to the core or to cfpd_site. Also: the core names no family (its imports and lookups), and
CFPD's own selection and coding filter still reach the pages through its registration."""

import ast
import dataclasses
import re
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.services import create_user_with_role
from benchmarks_app import families
from benchmarks_app.models import Benchmark, Condition, Question
from benchmarks_app.services import default_condition, render_messages
from encoding_app.filters import Filters
from runs_app import services
from runs_app.models import LLMModel, Response, Run
from tests.conftest import PASSWORD
from tests.riddles_family import RIDDLES, TEMPLATES

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
CORE = ["benchmarks_app", "runs_app", "encoding_app"]
FAMILY_APPS = ("scenarios_app", "territories_app", "crisis_app")



def _mount_the_registered_families():
    """The site's URLconf made again, as at a start with the family's app installed (it
    reads the registry when it is imported)."""
    import importlib

    from django.urls import clear_url_caches

    import cfpd_site.urls

    importlib.reload(cfpd_site.urls)
    clear_url_caches()


@pytest.fixture
def riddles(db):
    families.register(RIDDLES)
    _mount_the_registered_families()
    benchmark = Benchmark.objects.create(name="riddles", title="Riddles", family="riddles")
    for level, n in [("easy", 1), ("easy", 2), ("hard", 1)]:
        Question.objects.create(benchmark=benchmark, key=f"riddles/{level}-{n}", text=f"What walks ({level} {n})?",
                                options=[{"text": "A man"}, {"text": "A cat"}], option_order=[0, 1], choice_count=2)
    yield benchmark
    families.unregister("riddles")
    _mount_the_registered_families()


@pytest.fixture
def model(db):
    return LLMModel.objects.get(name="local-smollm2")


@pytest.fixture
def operator(db):
    return create_user_with_role("olga", PASSWORD, role="operators")[0]


def signed_in(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


# --- the fourth family through the ordinary services and pages -----------------------------

def test_a_fourth_family_is_launched_through_the_services_with_its_own_selection_and_prompt(riddles, model):
    run = services.launch_run(riddles, [model], services.Selection(family_keys={"levels": ["easy"]}))
    assert run.selection == {"levels": ["easy"], "choice_counts": [], "sample": None, "seed": 0}
    asked = sorted(run.responses.values_list("question__key", flat=True))
    assert asked == ["riddles/easy-1", "riddles/easy-2"]  # its own filter: the hard riddle is left out
    question = Question.objects.get(key="riddles/easy-1")
    messages = render_messages(question, [0, 1], default_condition())
    assert messages[1]["content"] == "RIDDLE: What walks (easy 1)?\nA. A man\nB. A cat"


def test_a_fourth_familys_unknown_selection_value_is_named_by_the_family(riddles, model):
    with pytest.raises(services.LaunchInvalid) as raised:
        services.read_launch({"benchmark": riddles, "models": [model], "levels": "easy, MEDIUM"})
    assert raised.value.errors == {"levels": ["no riddle level medium"]}


def test_the_launch_page_offers_the_fourth_familys_field_and_launches_its_run(client, operator, riddles, model):
    client = signed_in(client, operator)
    page = client.get(reverse("run-launch")).content.decode()
    assert "Levels (riddles)" in page and 'name="levels" value="hard"' in page
    assert "Domains (CFPD)" in page  # CFPD's fields stay, from its own registration
    data = {"benchmark": riddles.pk, "models": [model.pk], "repeats": "1", "levels": ["hard"], "sample": "",
            "seed": "0", "system_prompt": "", "cache": "auto", "note": "", "qualified_actors": ""}
    response = client.post(reverse("run-launch"), data)
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("run-detail", args=[run.pk])
    assert run.selection["levels"] == ["hard"] and run.responses.count() == 1
    detail = client.get(response["Location"]).content.decode()
    assert "<dt>Levels</dt><dd>Hard</dd>" in detail
    assert "<dt>Domains</dt>" not in detail  # CFPD's rows belong to CFPD's runs


def test_the_launch_plan_shows_the_fourth_familys_own_figures_with_its_own_template(
        client, operator, riddles, model, settings):
    def power(benchmark, question_ids, repeats, models, difference=0.1):
        levels = sorted({key.split("/")[1].split("-")[0] for key in Question.objects.filter(
            pk__in=question_ids).values_list("key", flat=True)})
        return {"riddles": len(question_ids), "levels": levels}

    families.register(dataclasses.replace(RIDDLES, power=power, power_template="riddles/launch_power.html"))
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], TEMPLATES]}]
    data = {"benchmark": riddles.pk, "models": [model.pk], "repeats": "1", "levels": ["easy"], "sample": "", "seed": "0",
            "system_prompt": "", "cache": "auto", "note": "", "step": "plan"}
    page = signed_in(client, operator).post(reverse("run-launch"), data).content.decode()
    assert '<h3 id="riddles-power">Riddles to ask</h3><p>2 riddles, easy.</p>' in page
    assert "launch-power-table" not in page  # CFPD's section is CFPD's


def test_the_launch_page_names_the_fourth_familys_bad_value_on_its_field(client, operator, riddles, model):
    data = {"benchmark": riddles.pk, "models": [model.pk], "repeats": "1", "levels": ["medium"], "sample": "",
            "seed": "0", "system_prompt": "", "cache": "auto", "note": ""}
    page = signed_in(client, operator).post(reverse("run-launch"), data).content.decode()
    assert "Select a valid choice. medium is not one of the available choices." in page  # the family's field
    assert Run.objects.count() == 0


def test_the_api_launches_the_fourth_family_with_its_own_key(client, operator, riddles, model):
    client = signed_in(client, operator)
    response = client.post(reverse("api-run-list"), {"benchmark": "riddles", "models": [model.name], "levels": ["Hard"]},
                           content_type="application/json")
    assert response.status_code == 201, response.content
    assert Run.objects.get(pk=response.json()["id"]).selection["levels"] == ["hard"]  # read by the family
    response = client.post(reverse("api-run-list"), {"benchmark": "riddles", "models": [model.name],
                                                     "levels": ["medium"]}, content_type="application/json")
    assert response.status_code == 400 and response.json() == {"levels": ["no riddle level medium"]}


def test_the_benchmark_pages_name_the_family_by_its_registered_label(client, analyst, riddles):
    client = signed_in(client, analyst)
    assert "Riddles (a test family)" in client.get(reverse("benchmark-list")).content.decode()
    assert "Riddles (a test family)" in client.get(reverse("benchmark-detail", args=["riddles"])).content.decode()
    assert riddles.get_family_display() == "Riddles (a test family)"


def test_the_reviewers_filters_offer_and_apply_the_fourth_familys_filter(client, reviewer, riddles, model):
    run = services.launch_run(riddles, [model])
    easy = Filters(family=(("level", "easy"),)).apply(Response.objects.filter(run=run), to_response="")
    assert sorted(easy.values_list("question__key", flat=True)) == ["riddles/easy-1", "riddles/easy-2"]
    page = signed_in(client, reviewer).get(reverse("encoding-overview"), {"level": "hard"}).content.decode()
    assert 'Riddle level <select name="level">' in page and '<option value="hard" selected>Hard</option>' in page


def test_the_fourth_familys_dashboard_is_linked_in_the_navigation_and_on_the_home_page(
        client, analyst, reviewer, riddles):
    from accounts.services import sync_roles

    assert reverse("riddles-dashboard") == "/analysis/riddles/"  # mounted where the family said
    assert "/riddles/" not in signed_in(client, analyst).get(reverse("home")).content.decode()  # not yet allowed
    sync_roles()  # as after a migrate: the family's permission reaches the analysts
    page = client.get(reverse("home")).content.decode()
    navigation = page[page.index("<nav"):page.index("</nav>")]
    # After the three installed families' dashboards, in the order the families registered.
    assert re.findall(r'<a href="(/[^"]*)">(Dashboard|Territories|Crisis|Riddles)</a>', navigation) == [
        ("/analysis/cfpd/", "Dashboard"), ("/analysis/territories/", "Territories"), ("/analysis/crisis/", "Crisis"),
        ("/analysis/riddles/", "Riddles")]
    assert '<a class="card" href="/analysis/riddles/"><h2>Riddles answered</h2><p>Which riddles each model solves, by level.' \
        in page
    assert client.get("/analysis/riddles/").content == b"Riddles answered, by level."
    assert "/riddles/" not in signed_in(client, reviewer).get(reverse("home")).content.decode()  # not theirs
    families.unregister("riddles")
    client = signed_in(client, analyst)
    assert "/riddles/" not in client.get(reverse("home")).content.decode()  # unregistered: linked nowhere


def riddles_solved(models):
    """The test family's headline figure (analysis_app.headlines): per model, the share of
    its coded riddle answers that chose the first option ("A man" is every riddle's answer)."""
    from analysis_app.results import Figure

    answers = Response.objects.filter(run__benchmark__family="riddles", status="done").exclude(code="")
    if models:
        answers = answers.filter(model__name__in=models)
    per_model: dict[str, list] = {}
    for name, code, run in answers.values_list("model__name", "code", "run_id"):
        per_model.setdefault(name, []).append((code == "A", run))
    return [Figure(benchmark="riddles", family="riddles", model=name, metric="solved", label="Riddles solved",
                   estimate=sum(ok for ok, _ in rows) / len(rows), n=len(rows), runs=tuple(r for _, r in rows))
            for name, rows in per_model.items()]


def test_the_fourth_familys_headline_figures_are_on_the_models_profile_and_comparison(
        client, analyst, riddles, model, settings):
    from analysis_app import headlines

    settings.CFPD_DASHBOARD_IN_WORKER = False  # the figures computed in the request, through the same row
    headlines.register("riddles", riddles_solved, label="Riddles (a test family)",
                       link=lambda name, benchmark: f"{reverse('riddles-dashboard')}?model={name}",
                       about="The share of riddles each model solved.")
    try:
        sphinx = LLMModel.objects.create(name="sphinx", litellm_model="openai/sphinx", answer_mode=model.answer_mode)
        run = Run.objects.create(benchmark=riddles, status="done")
        run.llm_models.set([model, sphinx])
        # local-smollm2 solves 2 of 3 (codes A, A, B: 2/3 = 0.667), sphinx 3 of 3 (1.0).
        for who, codes in ((model, "AAB"), (sphinx, "AAA")):
            for question, code in zip(riddles.questions.order_by("key"), codes):
                Response.objects.create(run=run, question=question, model=who, status="done", code=code,
                                        code_source="choice", option_order=[0, 1])
        html = signed_in(client, analyst).get(reverse("model-profile", args=[model.name])).content.decode()
        section = html[html.index("Riddles (a test family)"):]
        assert "The share of riddles each model solved." in section and "Riddles solved" in section
        assert 'href="/analysis/riddles/?model=local-smollm2"' in section  # into the family's own page
        assert "66.7 %" in section and "2 of 2" in section  # ranked among the two in its answer mode (sphinx first)
        compared = client.get(reverse("model-compare"), {"model": [model.name, "sphinx"]}).content.decode()
        assert "Riddles (a test family)" in compared and "Riddles solved" in compared
    finally:
        headlines.unregister("riddles")
    assert "Riddles (a test family)" not in client.get(reverse("model-profile", args=[model.name])).content.decode()


def test_the_fourth_familys_permissions_reach_its_roles_and_its_words_their_descriptions(riddles, analyst):
    from accounts.roles import role_descriptions
    from accounts.services import sync_roles

    sync_roles()
    assert analyst.groups.get().permissions.filter(codename="add_run").exists()
    assert role_descriptions()["authors"].endswith("CFPD scenarios, territorial-disputes tables, crisis simulations, "
                                                   "riddles")
    assert "(preferences, territories, crisis, riddles)" in role_descriptions()["analysts"]
    families.unregister("riddles")
    sync_roles()  # the groups kept exactly in step: gone with the family
    assert not analyst.groups.get().permissions.filter(codename="add_run").exists()


def test_a_family_must_be_installed_where_benchmarks_and_conditions_are_edited(riddles):
    Benchmark(name="more-riddles", family="riddles").full_clean()
    with pytest.raises(ValidationError) as raised:
        Benchmark(name="ghosts", family="ghosts").full_clean()
    assert "no benchmark family 'ghosts' is installed" in str(raised.value.message_dict["family"])
    Condition(name="any-family", label="Any").full_clean(exclude=["kind"])  # empty: any family
    with pytest.raises(ValidationError):
        Condition(name="ghostly", label="Ghostly", family="ghosts").full_clean(exclude=["kind"])


def test_a_benchmark_named_without_a_family_is_of_the_default_family(db):
    assert Benchmark.objects.create(name="plain").family == families.default_name() == "cfpd"


# --- the core names no family --------------------------------------------------------------

def test_the_core_apps_import_no_family_app_and_look_up_no_family_table():
    found = []
    for app in CORE:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            source = path.read_text(encoding="utf-8")
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(FAMILY_APPS):
                    found.append(f"{path.relative_to(ROOT)}: imports {node.module}")
                if isinstance(node, ast.Import):
                    found += [f"{path.relative_to(ROOT)}: imports {a.name}" for a in node.names
                              if a.name.startswith(FAMILY_APPS)]
            found += [f"{path.relative_to(ROOT)}: names {word}" for word in ("__cfpd__", "__borderlines__",
                                                                          "__crisis__") if word in source]
    assert found == []


def test_the_sites_urlconf_names_no_family_and_mounts_each_where_it_registered():
    """A family's pages and API are mounted from its registration (`Family.urls`), not listed
    in cfpd_site/urls.py: a fourth family adds its app and nothing there."""
    from django.urls import reverse

    source = (ROOT / "cfpd_site" / "urls.py").read_text(encoding="utf-8")
    assert [app for app in FAMILY_APPS if app in source] == []
    mounted = {"analysis-dashboard": "/analysis/cfpd/", "territories-dashboard": "/analysis/territories/",
               "crisis-dashboard": "/analysis/crisis/", "crisis-validation": "/analysis/crisis/validation/",
               "api-analysis": "/api/analysis/cfpd/", "analysis-figures-status": "/analysis/figures/status.json"}
    assert {name: reverse(name) for name in mounted} == mounted
    # The deeper prefix first, so that "analysis/crisis/validation/" is not read as a crisis page.
    prefixes = [prefix for prefix, _ in families.url_mounts()]
    assert prefixes.index("analysis/crisis/validation/") < prefixes.index("analysis/crisis/") < \
        prefixes.index("analysis/")


# --- CFPD's own keys still reach the pages, now through its registration -------------------

def test_cfpd_domains_and_actors_are_the_run_pages_rows(client, analyst, model):
    from scenarios_app.services import save_spec
    from tests.factories import escalation_spec

    benchmark = Benchmark.objects.create(name="t")
    save_spec(benchmark, escalation_spec())  # (CN,RU) and (US,MX), escalation
    run = services.launch_run(benchmark, [model], services.Selection(
        family_keys={"domains": ["escalation"], "qualified_actors": ["us"]}))
    assert run.selection == {"domains": ["escalation"], "qualified_actors": ["US"], "choice_counts": [],
                             "sample": None, "seed": 0}  # the stored shape of CFPD runs, as before
    detail = signed_in(client, analyst).get(reverse("run-detail", args=[run.pk])).content.decode()
    assert "<dt>Domains</dt><dd>Escalation</dd>" in detail and "<dt>Qualified actors</dt><dd>US</dd>" in detail


def test_the_cfpd_domain_filter_narrows_the_reviewers_responses(client, reviewer, model):
    from scenarios_app.services import save_spec
    from tests.factories import escalation_spec

    benchmark = Benchmark.objects.create(name="t")
    save_spec(benchmark, escalation_spec())
    run = services.launch_run(benchmark, [model])
    responses = Response.objects.filter(run=run)
    assert Filters(family=(("domain", "escalation"),)).apply(responses, to_response="").count() == 2
    assert Filters(family=(("domain", "alliance"),)).apply(responses, to_response="").count() == 0
    page = signed_in(client, reviewer).get(reverse("encoding-overview"), {"domain": "escalation"}).content.decode()
    assert 'Domain <select name="domain">' in page and '<option value="escalation" selected>' in page
