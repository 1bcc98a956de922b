"""The balanced option-order design as a launch choice (issue 29): the orders a launch
stores per scenario, the form, the API, run_benchmark --balanced and the run page."""

import io
from collections import Counter

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.services import create_user_with_role
from runs_app import queueing, services
from runs_app.models import LLMModel, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec, three_option_spec

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def nothing_sent(monkeypatch):
    monkeypatch.setattr(queueing, "enqueue", lambda ids: None)
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    monkeypatch.setattr(queueing, "send_launch", lambda run_id, units: None)


@pytest.fixture
def benchmark(db):
    benchmark = Benchmark.objects.create(name="t")
    # a three-option scenario asked for 2 dyads: 2 full questions (3 options) and 2 no-middle ones (2 options)
    authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP"), ("US", "CU")]))
    authoring.save_spec(benchmark, escalation_spec(key="esc-b", dyads=[("CN", "RU"), ("US", "MX"), ("MX", "US")]))
    LLMModel.objects.create(name="gen", litellm_model="openai/gen", api_base="http://127.0.0.1:9/v1",
                            answer_mode="generate")
    LLMModel.objects.create(name="pick", litellm_model="openai/pick", api_base="http://127.0.0.1:9/v1",
                            answer_mode="choice")
    return benchmark


def cells(run, scenario, variant, model=None):
    """{(option, position): times shown} over one scenario form's answers (of one model)."""
    rows = run.responses.filter(question__cfpd__scenario__key=scenario, question__cfpd__variant=variant)
    if model:
        rows = rows.filter(model__name=model)
    counted = Counter()
    for order in rows.values_list("option_order", flat=True):
        counted.update((option, position) for position, option in enumerate(order))
    return counted


def test_a_balanced_launch_shows_each_option_at_each_position_equally_often_per_scenario(benchmark):
    models = list(LLMModel.objects.filter(name__in=["gen", "pick"]).order_by("name"))
    run = services.launch_run(benchmark, models, repeats=3, balanced_options=True)
    assert run.balanced_options
    # gen asks each question 3 times: the full form 2 questions x 3 = 6 units = 2 x 3 options,
    # so each option sits at each position exactly twice; the no-middle form 6 = 3 x 2 options: 3 times
    assert set(cells(run, "esc3-test", "full", "gen").values()) == {2} and len(cells(run, "esc3-test", "full")) == 9
    assert set(cells(run, "esc3-test", "no-middle", "gen").values()) == {3}
    # esc-b: 3 dyads x 3 repeats = 9 units of 2 options: 4 or 5 (9 is not a multiple of 2)
    assert sorted(cells(run, "esc-b", "full", "gen").values()) == [4, 4, 5, 5]
    # pick answers once: the full form twice (2 of 3 rotations), then with gen's 6: 8 = 2 x 3 + 2, 2 or 3
    assert set(cells(run, "esc3-test", "full", "pick").values()) <= {0, 1}
    assert set(cells(run, "esc3-test", "full").values()) <= {2, 3}
    # esc-b for both: 9 + 3 = 12 units = 6 x 2: exactly 6 each
    assert set(cells(run, "esc-b", "full").values()) == {6}
    for order in run.responses.values_list("option_order", flat=True):
        assert sorted(order) in ([0, 1], [0, 1, 2])


def test_without_balance_a_shuffle_or_the_written_order(benchmark):
    written = services.launch_run(benchmark, list(LLMModel.objects.filter(name__in=["gen", "pick"])), repeats=3)
    assert not written.balanced_options
    assert {tuple(o) for o in written.responses.values_list("option_order", flat=True)} == {(0, 1), (0, 1, 2)}


def test_the_api_takes_it_and_refuses_a_bad_value(client, benchmark):
    create_user_with_role("olga", PASSWORD, role="operators")
    assert client.login(username="olga", password=PASSWORD)
    response = client.post(reverse("api-run-list"), {"benchmark": "t", "models": ["gen"], "repeats": 2,
                                                     "balanced_options": True}, content_type="application/json")
    assert response.status_code == 201, response.content
    run = Run.objects.get(pk=response.json()["id"])
    assert run.balanced_options and response.json()["balanced_options"] is True
    assert set(cells(run, "esc-b", "full").values()) == {3}  # 3 dyads x 2 repeats = 6 = 3 x 2
    bad = client.post(reverse("api-run-list"), {"benchmark": "t", "models": ["gen"], "balanced_options": "maybe"},
                      content_type="application/json")
    assert bad.status_code == 400 and "balanced_options" in bad.json()
    with pytest.raises(services.LaunchInvalid) as caught:
        services.read_launch({"benchmark": "t", "models": ["gen"], "balanced_options": "yes please"})
    assert caught.value.errors["balanced_options"] == ["must be true or false"]


def test_the_form_launches_it_and_the_run_page_says_so(client, benchmark):
    create_user_with_role("olga", PASSWORD, role="operators")
    assert client.login(username="olga", password=PASSWORD)
    html = client.get(reverse("run-launch")).content.decode()
    assert 'name="balanced_options"' in html and "Balance option order" in html
    form = {"benchmark": benchmark.pk, "models": [LLMModel.objects.get(name="gen").pk], "repeats": "2",
            "qualified_actors": "", "sample": "", "seed": "4", "system_prompt": "", "cache": "auto", "note": "",
            "budget_usd": "", "budget_units": "", "balanced_options": "on"}
    response = client.post(reverse("run-launch"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    run = Run.objects.get()
    assert run.balanced_options and run.permutation_seed == 4
    page = client.get(response["Location"]).content.decode()
    assert "Option order" in page and "balanced rotations" in page


def test_run_benchmark_balanced(benchmark):
    err = io.StringIO()
    call_command("run_benchmark", "--benchmark", "t", "--models", "gen", "--repeats", "2", "--balanced",
                 "--no-wait", "--worker", "no", stdout=io.StringIO(), stderr=err)
    run = Run.objects.get()
    assert run.balanced_options
    shown = cells(run, "esc3-test", "full")  # 2 dyads x 2 repeats = 4 = 3 + 1 units: 1 or 2 times each
    assert set(shown.values()) == {1, 2} and sum(shown.values()) == 4 * 3 and len(shown) == 9
    with pytest.raises(CommandError, match="--benchmark|no benchmark"):
        call_command("run_benchmark", "--benchmark", "nope", "--models", "gen", "--balanced", "--dry-run",
                     stdout=io.StringIO(), stderr=io.StringIO())
