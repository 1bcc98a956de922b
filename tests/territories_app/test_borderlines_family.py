"""The BorderLines family through the engine: strategies as conditions, rank
classification against a fake completions server, generated answers read as claimants,
and borderlines_report on hand-checked answers."""

import csv
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchmarks_app.models import Benchmark, Condition, Question
from benchmarks_app.services import render_messages
from encoding_app.models import CodingPolicy
from runs_app import execution, queueing, services
from runs_app.models import LLMModel, Response, Run
from tests.fakes.fake_openai import FakeOpenAI

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"


@pytest.fixture
def borderlines():
    call_command("import_borderlines", str(SAMPLE), stdout=io.StringIO(), stderr=io.StringIO())
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    return Benchmark.objects.get(name="borderlines")


@pytest.fixture
def fake():
    with FakeOpenAI(seed=1) as server:
        yield server


def question(key):
    return Question.objects.select_related("benchmark").get(key=f"borderlines/bl:{key}")


def launch(benchmark, models, monkeypatch, **kwargs):
    monkeypatch.setattr(queueing, "enqueue", lambda ids: None)
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    return services.launch_run(benchmark, models, **kwargs)


def test_a_strategy_fills_its_persona_and_is_not_asked_where_it_cannot_be(borderlines, monkeypatch):
    nationalist = Condition.objects.get(name="bl-nationalist")
    messages = render_messages(question("crimea:uk"), [0, 1], nationalist)
    assert messages[0]["role"] == "system" and "Ukraine" in messages[0]["content"]
    assert messages[1] == {"role": "user", "content": question("crimea:uk").text}
    vanilla = render_messages(question("crimea:uk"), [0, 1], Condition.objects.get(name="bl-vanilla"))
    assert [m["role"] for m in vanilla] == ["user"]  # vanilla: no system prompt
    # The English control of Crimea is spoken by no claimant: no persona, no unit.
    run = launch(borderlines, [LLMModel.objects.get(name="local-smollm2-rank")], monkeypatch,
                 conditions=["bl-vanilla", "bl-nationalist"])
    asked = set(run.responses.filter(condition__name="bl-nationalist").values_list("question__language", flat=True))
    assert "en" in set(run.responses.filter(condition__name="bl-vanilla").values_list("question__language", flat=True))
    english_speaking = {"Falkland Islands", "Gibraltar", "Abyei", "Essequibo"}  # English is a claimant's language
    nationalist_en = run.responses.filter(condition__name="bl-nationalist", question__language="en")
    assert set(nationalist_en.values_list("question__borderlines__territory__name", flat=True)) <= english_speaking
    assert asked and run.responses.filter(condition__name="bl-vanilla").count() == 52


def test_rank_mode_scores_the_claimant_names_and_codes_the_claimant(borderlines, fake, monkeypatch):
    # " Russia" -0.2 and " Ukraine" -3.0 (one word each): Russia, option A, wins.
    fake.configure(word_logprobs={"Russia": -0.2, "Ukraine": -3.0, "Росія": -0.2, "Україна": -3.0,
                                  "Россия": -0.2, "Украина": -3.0})
    ranker = LLMModel.objects.create(name="ranker", litellm_model="openai/ranker", api_base=fake.base_url,
                                     answer_mode="rank", timeout_seconds=5)
    run = launch(borderlines, [ranker], monkeypatch, conditions=["bl-vanilla"])
    crimea = run.responses.filter(question__borderlines__territory__name="Crimea").order_by("question__language")
    for unit in crimea:
        assert execution.execute(unit.pk).action == "done"
    rows = list(crimea.all())
    assert [(r.question.language, r.chosen_letter, r.code) for r in rows] == [("en", "A", "A"), ("ru", "A", "A"),
                                                                            ("uk", "A", "A")]
    assert rows[0].option_logprobs == {"A": -0.2, "B": -3.0}
    assert rows[0].params["continuations"] == [" Russia", " Ukraine"]


def test_a_generated_answer_naming_one_claimant_is_coded_and_two_claimants_go_to_reviewers(borderlines, fake,
                                                                                         monkeypatch):
    writer = LLMModel.objects.create(name="writer", litellm_model="openai/writer", api_base=fake.base_url,
                                     answer_mode="generate", timeout_seconds=5, temperature=0)
    run = launch(borderlines, [writer], monkeypatch, repeats=1, conditions=["bl-vanilla"])
    units = list(run.responses.filter(question__key__in=["borderlines/bl:crimea:en", "borderlines/bl:crimea:uk"])
                 .order_by("question__language"))
    for unit, text in zip(units, ["It belongs to Ukraine.", "Росія чи Україна — важко сказати."]):
        Response.objects.filter(pk=unit.pk).update(status="done", raw_output=text)
        from encoding_app import services as coding
        coding.encode_answers([unit.pk])
    first, second = (Response.objects.get(pk=u.pk) for u in units)
    assert (first.code, first.code_source) == ("B", "auto") and first.codes.get(is_current=True).rule == "claimant-name"
    assert (second.code, second.code_source) == ("", "unresolved")
    assert "Russia" in second.review_tasks.get().explanation and "Ukraine" in second.review_tasks.get().explanation


def answer(run, model, key, letter, condition="bl-vanilla", repeat=0):
    Response.objects.create(run=run, question=question(key), model=model, repeat=repeat, status="done",
                            code=letter, code_source="choice", condition=Condition.objects.get(name=condition),
                            option_order=[0, 1])


def test_borderlines_report_scores_hand_checked_answers(borderlines, tmp_path):
    model = LLMModel.objects.create(name="m", litellm_model="openai/m")
    run = Run.objects.create(benchmark=borderlines, status="done")
    # Crimea (controller Russia; ru, uk, en): en -> Russia, ru -> Russia, uk -> Ukraine.
    # Golan Heights (controller Israel; he, ar, en): en -> Israel, he -> Israel, ar -> Syria.
    answer(run, model, "crimea:en", "A")
    answer(run, model, "crimea:ru", "A")
    answer(run, model, "crimea:uk", "B")
    golan = question("golan-heights:en")
    israel = golan.borderlines.claimants_en.index("Israel")
    syria = golan.borderlines.claimants_en.index("Syria")
    answer(run, model, "golan-heights:en", "AB"[israel])
    answer(run, model, "golan-heights:he", "AB"[israel])
    answer(run, model, "golan-heights:ar", "AB"[syria])
    out = tmp_path / "scores.csv"
    cases = tmp_path / "cases.csv"
    call_command("borderlines_report", "--out", str(out), "--per-territory", str(cases), "--iterations", "200",
                 stdout=io.StringIO(), stderr=io.StringIO())
    [row] = list(csv.DictReader(out.open(encoding="utf-8")))
    # KB: both English answers name the controller: 2/2 = 100. Control: ru -> Russia, he ->
    # Israel: 2/2 = 100. Non-control: uk -> Ukraine (0/1), ar -> Syria (0/1): mean 0.
    # Consistency: Crimea's in-language pair (ru, uk) disagrees: 0; Golan's (he, ar): 0 -> 0.
    assert (row["model"], row["strategy"]) == ("m", "bl-vanilla")
    assert float(row["kb_cs"]) == 100 and float(row["control_cs"]) == 100 and float(row["non_control_cs"]) == 0
    assert float(row["consistency_cs"]) == 0 and row["n_territories"] == "2"
    assert float(row["delta_cs_abs"]) == 100  # Control - Non-control, in points
    lines = list(csv.DictReader(cases.open(encoding="utf-8")))
    assert {(r["territory"], r["language"], r["answer_claimant"]) for r in lines} >= {
        ("Crimea", "uk", "Ukraine"), ("Golan Heights", "ar", "Syria")}


def test_borderlines_report_refuses_a_cfpd_benchmark_and_unknown_runs(borderlines, tmp_path):
    Benchmark.objects.create(name="demo")
    with pytest.raises(CommandError, match="no BorderLines benchmark named 'demo'"):
        call_command("borderlines_report", "--benchmark", "demo", "--out", str(tmp_path / "x.csv"))
    with pytest.raises(CommandError, match="no run 999"):
        call_command("borderlines_report", "--run", "999", "--out", str(tmp_path / "x.csv"))


def test_the_page_and_the_api_show_the_scores_and_refuse_bad_filters(borderlines, client, analyst, outsider):
    from tests.conftest import PASSWORD

    model = LLMModel.objects.create(name="m", litellm_model="openai/m")
    run = Run.objects.create(benchmark=borderlines, status="done")
    answer(run, model, "crimea:en", "A")
    answer(run, model, "crimea:ru", "A")
    answer(run, model, "crimea:uk", "B")
    client.login(username=outsider.username, password=PASSWORD)
    assert client.get("/analysis/territories/").status_code == 403
    assert client.get("/api/analysis/territories/").status_code == 403
    client.login(username=analyst.username, password=PASSWORD)
    page = client.get("/analysis/territories/", {"iterations": 200}).content.decode()
    assert "3 answers over 17 territories" in page and "Concurrence scores" in page and "Crimea" in page
    bad = client.get("/analysis/territories/", {"iterations": "5"})
    assert bad.status_code == 400 and "iterations must be between 100 and 10000" in bad.content.decode()
    data = client.get("/api/analysis/territories/", {"iterations": 200}).json()
    [row] = data["scores"]
    assert row["kb_cs"] == 100 and row["control_cs"] == 100 and row["non_control_cs"] == 0
    assert {(c["territory"], c["language"], c["answer_claimant"]) for c in data["cases"]} == {
        ("Crimea", "en", "Russia"), ("Crimea", "ru", "Russia"), ("Crimea", "uk", "Ukraine")}
    assert client.get("/api/analysis/territories/", {"run": "x"}).status_code == 400
    csv_text = client.get("/analysis/territories/cases.csv", {"iterations": 200}).content.decode()
    assert csv_text.startswith("model,strategy,repeat,territory,language,role,question")


def test_a_strategy_leads_the_rank_prompt(borderlines):
    from territories_app.family import BORDERLINES

    crimea = Question.objects.select_related("benchmark").get(key="borderlines/bl:crimea:uk")
    plain, continuations = BORDERLINES.rank_prompt(crimea, [0, 1], Condition.objects.get(name="bl-vanilla"), "")
    persona, same = BORDERLINES.rank_prompt(crimea, [0, 1], Condition.objects.get(name="bl-nationalist"), "")
    assert plain == f"{crimea.text} Answer:" and continuations == same == [" Росія", " Україна"]
    assert persona.endswith(plain) and "Ukraine" in persona[: -len(plain)]
