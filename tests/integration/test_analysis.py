"""Analysis from the database: the tidy table counted in SQL, the report command, the
dashboard, its CSVs and the API, with permissions per role."""

import csv
import io

import pandas as pd
import pytest
from django.core.management import call_command
from django.urls import reverse

from analysis_app.tidy_query import AnalysisFilter, coverage, tidy_counts
from encoding_app.models import CodingPolicy
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import response_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec, three_option_spec

pytestmark = pytest.mark.django_db

DYADS = [("US", "CN"), ("CN", "US"), ("RU", "GB"), ("GB", "RU"), ("IN", "CN")]


@pytest.fixture
def answered():
    """Two models on a two-option scenario asked for five dyads (qualified actor A).

    hawk: Use of force (B) for US, CN, RU, GB; No use of force (A) for IN  -> 4/5 = 0.8
    dove: No use of force everywhere but refuses once (GB) and fails once (IN):
          answers 3, all No use of force -> Use of force 0/3 = 0.0; refusal 1/(3+1) = 0.25
    """
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="a")
    authoring.save_spec(benchmark, escalation_spec(dyads=DYADS))
    run = Run.objects.create(benchmark=benchmark, status="done")
    hawk = LLMModel.objects.create(name="hawk", litellm_model="openai/x", answer_mode="choice")
    dove = LLMModel.objects.create(name="dove", litellm_model="openai/x")
    questions = {q.actor_a.code: q for q in benchmark.questions.select_related("actor_a")}
    answers = {
        hawk: {"US": ("B", ""), "CN": ("B", ""), "RU": ("B", ""), "GB": ("B", ""), "IN": ("A", "")},
        dove: {"US": ("", "A"), "CN": ("", "**A**"), "RU": ("", "A: withdraw"),
               "GB": ("", "I cannot recommend either option."), "IN": ("", None)},
    }
    for model, by_actor in answers.items():
        for actor, (letter, text) in by_actor.items():
            response = Response.objects.create(
                run=run, question=questions[actor], model=model, option_order=[0, 1],
                status="failed" if text is None else "done", chosen_letter=letter, raw_output=text or "")
            response_answered.send(sender=Response, response_id=response.pk)
    return run


def test_the_tidy_table_is_counted_in_the_database(answered):
    tidy = tidy_counts(AnalysisFilter(runs=(answered.pk,)))
    assert tidy["n"].sum() == 10
    hawk = tidy[tidy["model"] == "hawk"]
    assert hawk.groupby("category")["n"].sum().to_dict() == {"No use of force": 1, "Use of force": 4}
    dove = tidy[tidy["model"] == "dove"].groupby("outcome")["n"].sum().to_dict()
    assert dove == {"answer": 3, "refusal": 1, "missing": 1}
    assert set(tidy["scenario"]) == {"a/esc-test.v1:full"} and set(tidy["choice_count"]) == {2}


def test_coverage_counts_coded_unresolved_missing(answered):
    cover = coverage(AnalysisFilter(runs=(answered.pk,)))
    assert (cover["total"], cover["coded"], cover["refusals"], cover["unresolved"], cover["missing"]) == \
        (10, 9, 1, 0, 1)


def test_preference_report_writes_the_normalised_rates_and_agrees_with_itself(answered, tmp_path):
    first, second = tmp_path / "one.csv", tmp_path / "two.csv"
    for path in (first, second):
        call_command("preference_report", "--run", str(answered.pk), "--out", str(path), "--iterations", "500",
                     stderr=io.StringIO())
    assert first.read_text() == second.read_text()
    rows = list(csv.DictReader(first.open()))
    assert list(rows[0]) == ["model", "domain", "choice_count", "category", "rate", "ci_low", "ci_high",
                             "n_scenarios", "refusal_rate", "iterations"]
    got = {(r["model"], r["category"]): (float(r["rate"]), float(r["refusal_rate"])) for r in rows}
    assert got[("hawk", "Use of force")] == (pytest.approx(0.8), 0.0)  # 4 of 5, one scenario
    assert got[("dove", "Use of force")] == (0.0, pytest.approx(0.25))  # 0 of 3 answers; 1 refusal of 4
    assert got[("dove", "No use of force")][0] == pytest.approx(1.0)


def test_preference_report_names_unknown_runs_and_models(answered):
    with pytest.raises(Exception, match="no run 999; no model ghost"):
        call_command("preference_report", "--run", "999", "--model", "ghost", "--out", "-")


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


@pytest.mark.parametrize("persona", ["outsider", "reviewer", "author"])
def test_only_analysts_read_dashboards(client, request, persona, answered):
    login(client, request.getfixturevalue(persona))
    for url in [reverse("analysis-dashboard"), reverse("analysis-answers-csv"), reverse("analysis-answers-parquet"),
                reverse("analysis-panel-csv", args=["rates"]), reverse("api-analysis")]:
        assert client.get(url).status_code == 403, url


def test_the_dashboard_shows_every_panel_with_its_table(client, analyst, answered):
    login(client, analyst)
    page = client.get(reverse("analysis-dashboard"), {"run": answered.pk, "iterations": 200})
    html = page.content.decode()
    assert page.status_code == 200
    for key in ("rates", "countries", "heatmap", "entropy", "refusals", "differences", "robustness"):
        assert f'id="panel-{key}"' in html, key
    assert "9 of 10 answers coded" in html and "1 missing" in html
    for key in ("rates", "countries", "heatmap", "entropy", "refusals"):
        assert f'id="figure-data-{key}" type="application/json"' in html, key


def test_an_empty_filter_is_explained(client, analyst, answered):
    login(client, analyst)
    html = client.get(reverse("analysis-dashboard"), {"run": answered.pk + 100}).content.decode()
    assert "No answers in this filter yet" in html and 'id="panel-rates"' not in html


def test_answers_with_reviewers_are_reported_as_a_share(client, analyst, answered):
    dove = LLMModel.objects.get(name="dove")
    response = Response.objects.filter(model=dove, code="A").first()
    Response.objects.filter(pk=response.pk).update(raw_output="A or B", code="", code_source="")
    from encoding_app.models import Code
    Code.objects.filter(response=response).delete()
    response_answered.send(sender=Response, response_id=response.pk)
    login(client, analyst)
    html = client.get(reverse("analysis-dashboard"), {"run": answered.pk, "iterations": 200}).content.decode()
    assert "10 % still with reviewers (1)" in html


def test_bad_parameters_are_explained(client, analyst, answered):
    login(client, analyst)
    page = client.get(reverse("analysis-dashboard"), {"iterations": "5"})
    assert page.status_code == 400 and "iterations must be between 100 and 10000" in page.content.decode()
    assert client.get(reverse("api-analysis"), {"run": "x"}).status_code == 400


def test_panel_csv_and_the_full_answer_table(client, analyst, answered):
    login(client, analyst)
    rates = client.get(reverse("analysis-panel-csv", args=["rates"]), {"run": answered.pk, "iterations": 200})
    table = pd.read_csv(io.StringIO(rates.content.decode()))
    assert rates["Content-Disposition"].startswith("attachment") and len(table) == 4  # 2 models x 2 categories
    answers = client.get(reverse("analysis-answers-csv"), {"run": answered.pk})
    rows = list(csv.DictReader(io.StringIO(b"".join(answers.streaming_content).decode())))
    assert len(rows) == 10 and {r["outcome"] for r in rows} == {"answer", "refusal", "missing"}
    assert {r["question_key"] for r in rows} == set(answered.responses.values_list("question__key", flat=True))
    parquet = client.get(reverse("analysis-answers-parquet"), {"run": answered.pk})
    frame = pd.read_parquet(io.BytesIO(b"".join(parquet.streaming_content)))
    assert len(frame) == 10 and frame["opposing_actor"].notna().all()


def test_the_api_gives_the_same_figures(client, analyst, answered):
    login(client, analyst)
    data = client.get(reverse("api-analysis"), {"run": answered.pk, "panel": "rates", "iterations": 200}).json()
    assert list(data["panels"]) == ["rates"]
    rows = {(r["model"], r["category"]): r["rate"] for r in data["panels"]["rates"]["rows"]}
    assert rows[("hawk", "Use of force")] == pytest.approx(0.8)
    assert data["coverage"]["coded"] == 9


def test_a_category_no_selected_model_chose_still_shows_as_zero(client, analyst, answered, tmp_path):
    path = tmp_path / "dove.csv"
    call_command("preference_report", "--model", "dove", "--out", str(path), "--iterations", "200",
                 stderr=io.StringIO())
    rows = {r["category"]: float(r["rate"]) for r in csv.DictReader(path.open())}
    assert rows == {"No use of force": 1.0, "Use of force": 0.0}  # offered, never chosen by dove


def test_the_api_answers_anonymous_callers_itself(client, answered):
    assert client.get(reverse("api-analysis")).status_code in (401, 403)  # not a redirect to sign-in


def test_a_dashboard_is_cached_until_a_new_code_arrives(client, analyst, answered):
    from analysis_app import dashboard
    filters = AnalysisFilter(runs=(answered.pk,))
    first = dashboard.build_cached(filters, iterations=200)
    again = dashboard.build_cached(filters, iterations=200)
    assert not first.cached and again.cached and again.computed_at == first.computed_at
    hawk = LLMModel.objects.get(name="hawk")
    response = Response.objects.create(run=answered, question=answered.responses.first().question, model=hawk,
                                       repeat=1, option_order=[0, 1], status="done", chosen_letter="A")
    response_answered.send(sender=Response, response_id=response.pk)
    fresh = dashboard.build_cached(filters, iterations=200)
    assert not fresh.cached and fresh.coverage["total"] == 11


def test_repeated_sampling_shows_each_repeat_and_mean_and_sd(answered):
    from analysis_app import dashboard
    hawk = LLMModel.objects.get(name="hawk")
    for response in list(answered.responses.filter(model=hawk)):
        again = Response.objects.create(run=answered, question=response.question, model=hawk, repeat=1,
                                        option_order=[0, 1], status="done", chosen_letter="A")
        response_answered.send(sender=Response, response_id=again.pk)
    board = dashboard.build(AnalysisFilter(runs=(answered.pk,)), iterations=200, panels=("repeats",))
    summary = board.panels["repeats"].table
    row = summary[(summary["model"] == "hawk") & (summary["category"] == "Use of force")].iloc[0]
    # repeat 0: 4 of 5 Use of force = 0.8; repeat 1: 0 of 5 = 0.0 -> mean 0.4,
    # sd = sqrt(((0.8-0.4)^2 + (0-0.4)^2) / (2-1)) = sqrt(0.32) = 0.5657
    assert (row["mean"], row["sd"], row["n_repeats"]) == (pytest.approx(0.4), pytest.approx(0.32 ** 0.5), 2)
    each = board.panels["repeat_rates"].table
    hawk_force = each[(each["model"] == "hawk") & (each["category"] == "Use of force")]
    assert sorted(hawk_force["rate"]) == [pytest.approx(0.0), pytest.approx(0.8)]
