"""The launch plan's power figures, given by the CFPD family through `Family.power`: the
assumed intra-scenario correlation without earlier answers, the estimated one with them,
in the plan, the API's dry run and the launch form."""

import pytest
from django.urls import reverse

from accounts.services import create_user_with_role
from encoding_app.models import CodingPolicy
from runs_app import services
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db
DYADS = [("CN", "RU"), ("US", "MX"), ("MX", "US")]


@pytest.fixture
def benchmark(db):
    benchmark = Benchmark.objects.create(name="t")
    for key in ("esc-a", "esc-b"):
        authoring.save_spec(benchmark, escalation_spec(key=key, dyads=DYADS))
    LLMModel.objects.create(name="gen", litellm_model="openai/gen", api_base="http://127.0.0.1:9/v1",
                            answer_mode="generate")
    LLMModel.objects.create(name="pick", litellm_model="openai/pick", api_base="http://127.0.0.1:9/v1",
                            answer_mode="choice")
    return benchmark


def _plan(benchmark):
    request = services.read_launch({"benchmark": benchmark, "models": ["gen", "pick"], "repeats": 2})
    return services.plan_launch(request).power


def test_without_earlier_answers_the_correlation_is_assumed(benchmark):
    power = _plan(benchmark)
    # 2 scenarios of 3 questions; pick (choice mode) answers once: m = 3 x 1. ICC 0.5 assumed: DE = 1 + 2 x 0.5 = 2
    # Var = 0.25 x 2 / (2 x 3) = 0.083333, half-width 1.959964 x 0.288675 = 0.565793
    # ±10 points: 1.959964^2 x 0.25 x 2 / (3 x 0.01) = 64.02 -> 65 scenarios
    assert (power["icc"], power["repeats"], power["models"], power["comparisons"]) == (0.5, 1, 2, 1)
    assert power["icc_source"].startswith("assumed")
    [form] = power["forms"]
    assert (form["domain"], form["choice_count"], form["scenarios"], form["questions_per_scenario"]) == \
        ("Escalation", 2, 2, 3.0)
    assert form["half_width"] == pytest.approx(0.565793, abs=1e-6) and form["scenarios_for_half_width"] == 65
    assert 0 < form["power"] < 0.1 and form["power_adjusted"] == form["power"]  # one pair: no adjustment


def test_earlier_answers_give_the_correlation(benchmark):
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    pick = LLMModel.objects.get(name="pick")
    run = Run.objects.create(benchmark=benchmark, status="done")
    for question in benchmark.questions.select_related("cfpd__scenario"):
        letter = "B" if question.cfpd.scenario.key == "esc-a" else "A"  # esc-a all force, esc-b none
        response = Response.objects.create(run=run, question=question, model=pick, option_order=[0, 1],
                                           status="done", chosen_letter=letter)
        responses_answered.send(sender=Response, response_ids=[response.pk])
    power = _plan(benchmark)
    # every answer of a scenario alike: ICC 1 (tests/analysis_app/test_stats_power.py); DE = 3,
    # Var = 0.25 x 3 / 6 = 0.125, half-width 1.959964 x 0.353553 = 0.692952 (0.6929519)
    assert power["icc"] == 1.0 and power["icc_source"] == "estimated from 6 earlier coded answers to this benchmark"
    assert power["forms"][0]["half_width"] == pytest.approx(0.692952, abs=1e-6)


def test_the_dry_run_and_the_form_show_them(client, benchmark):
    create_user_with_role("olga", PASSWORD, role="operators")
    assert client.login(username="olga", password=PASSWORD)
    response = client.post(reverse("api-run-list"), {"benchmark": "t", "models": ["gen", "pick"], "repeats": 2,
                                                     "dry_run": True}, content_type="application/json")
    assert response.status_code == 200, response.content
    power = response.json()["power"]
    assert power["forms"][0]["scenarios_for_half_width"] == 65 and "Kish" in power["method"]
    models = list(LLMModel.objects.filter(name__in=["gen", "pick"]).values_list("pk", flat=True))
    page = client.post(reverse("run-launch"), {
        "benchmark": benchmark.pk, "models": models, "repeats": "2", "qualified_actors": "", "sample": "",
        "seed": "0", "system_prompt": "", "cache": "auto", "note": "", "budget_usd": "", "budget_units": "",
        "step": "plan"})
    html = page.content.decode()
    assert 'id="launch-power-table"' in html and 'data-power-form="Escalation (2)"' in html
    assert "<td class=\"num\">57</td>" in html  # ± 56.58 points, rounded
    assert "0.50 (assumed: no earlier answers" in html


def test_run_benchmark_dry_run_prints_them(benchmark):
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("run_benchmark", "--benchmark", "t", "--models", "gen,pick", "--repeats", "2", "--dry-run",
                 stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    # Escalation (2): 2 scenarios, 3 answers each, ± 56.6 points, 65 scenarios for ±10
    assert "interval ± points" in text and "56.6" in text and "65" in text
    assert "intra-scenario correlation 0.50 (assumed: no earlier answers" in text


def test_the_operator_types_the_difference_and_a_bad_one_is_named(client, benchmark):
    # D = 20 points: ±20 needs 1.959964^2 x 0.25 x 2 / (3 x 0.04) = 16.006 -> 17 scenarios (10 points: 65).
    request = services.read_launch({"benchmark": benchmark, "models": ["gen", "pick"], "repeats": 2,
                                    "difference": "20"})
    power = services.plan_launch(request).power
    assert power["difference"] == pytest.approx(0.20) and power["forms"][0]["scenarios_for_half_width"] == 17
    create_user_with_role("olga", PASSWORD, role="operators")
    assert client.login(username="olga", password=PASSWORD)
    for bad in (0, -5, 101, "ten"):
        response = client.post(reverse("api-run-list"), {"benchmark": "t", "models": ["gen"], "difference": bad,
                                                         "dry_run": True}, content_type="application/json")
        assert response.status_code == 400 and "difference" in response.json(), bad
    models = list(LLMModel.objects.filter(name__in=["gen", "pick"]).values_list("pk", flat=True))
    form = {"benchmark": benchmark.pk, "models": models, "repeats": "2", "qualified_actors": "", "sample": "",
            "seed": "0", "system_prompt": "", "cache": "auto", "note": "", "budget_usd": "", "budget_units": "",
            "step": "plan"}
    html = client.post(reverse("run-launch"), {**form, "difference": "20"}).content.decode()
    assert "Scenarios for ±20" in html and "power to detect a difference of 20 points" in html
    html = client.post(reverse("run-launch"), {**form, "difference": "0"}).content.decode()
    assert 'id="launch-plan"' not in html and "Must be from 1 to 100; got 0." in html


def test_run_benchmark_takes_the_difference(benchmark):
    import io

    from django.core.management import CommandError, call_command

    out = io.StringIO()
    call_command("run_benchmark", "--benchmark", "t", "--models", "gen,pick", "--repeats", "2", "--dry-run",
                 "--difference", "20", stdout=out, stderr=io.StringIO())
    assert "scenarios for ±20" in out.getvalue()
    with pytest.raises(CommandError, match="--difference: "):
        call_command("run_benchmark", "--benchmark", "t", "--models", "gen", "--dry-run", "--difference", "0",
                     stdout=io.StringIO(), stderr=io.StringIO())
