"""Analysis from the database: the tidy table counted in SQL, the report command, the
dashboard, its CSVs and the API, with permissions per role."""

import csv
import io

import pandas as pd
import pytest
from django.core.management import call_command
from django.urls import reverse

from scenarios_app.analysis.tidy_query import AnalysisFilter, coverage, tidy_counts
from encoding_app.models import CodingPolicy
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from scenarios_app.validation import OptionSpec, ScenarioSpec
from tests.factories import escalation_spec, three_option_spec

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def board_built_in_the_request(settings):
    """These tests read the figures: the page builds its board itself, through the same
    row the worker fills (the worker's path: tests/analysis_app/test_dashboard_worker.py)."""
    settings.CFPD_DASHBOARD_IN_WORKER = False

DYADS = [("US", "CN"), ("CN", "US"), ("RU", "GB"), ("GB", "RU"), ("IN", "CN")]


def alliance_spec(key="ally-test", comparison="ally-bandwagon", dyads=(("US", "CN"),)):
    """An Alliance Dynamics scenario: its comparisons have no codified action."""
    second = {"ally-bandwagon": "bandwagoning", "ally-power-max": "power-maximisation",
              "ally-buck-pass": "buck-passing"}[comparison]
    return ScenarioSpec(
        key=key, domain="alliance", comparison=comparison,
        template="[Actor B] is arming fast and courting [Actor A]'s neighbours. How should [Actor A] respond?",
        options=[OptionSpec("Join a coalition against [Actor B]", "balancing"),
                 OptionSpec("Align with [Actor B]", second)],
        qualified_actor="A", dyads=list(dyads))


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
    questions = {q.cfpd.actor_a.code: q for q in benchmark.questions.select_related("cfpd__actor_a")}
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
            responses_answered.send(sender=Response, response_ids=[response.pk])
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
                             "n_scenarios", "refusal_rate", "invalid_rate", "iterations"]
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
    unanswered = Run.objects.create(benchmark=answered.benchmark, status="done")
    html = client.get(reverse("analysis-dashboard"), {"run": unanswered.pk}).content.decode()
    assert "No answers in this filter yet" in html and 'id="panel-rates"' not in html


def test_a_run_that_does_not_exist_is_named(client, analyst, answered):
    login(client, analyst)
    response = client.get(reverse("analysis-dashboard"), {"run": answered.pk + 100})
    assert response.status_code == 400
    assert f"run {answered.pk + 100} does not exist (the Runs box)" in response.content.decode()


def test_answers_with_reviewers_are_reported_as_a_share(client, analyst, answered):
    dove = LLMModel.objects.get(name="dove")
    response = Response.objects.filter(model=dove, code="A").first()
    Response.objects.filter(pk=response.pk).update(raw_output="A or B", code="", code_source="")
    from encoding_app.models import Code
    Code.objects.filter(response=response).delete()
    responses_answered.send(sender=Response, response_ids=[response.pk])
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
    from scenarios_app.analysis import dashboard
    filters = AnalysisFilter(runs=(answered.pk,))
    first = dashboard.build_cached(filters, iterations=200)
    again = dashboard.build_cached(filters, iterations=200)
    assert not first.cached and again.cached and again.computed_at == first.computed_at
    hawk = LLMModel.objects.get(name="hawk")
    response = Response.objects.create(run=answered, question=answered.responses.first().question, model=hawk,
                                       repeat=1, option_order=[0, 1], status="done", chosen_letter="A")
    responses_answered.send(sender=Response, response_ids=[response.pk])
    fresh = dashboard.build_cached(filters, iterations=200)
    assert not fresh.cached and fresh.coverage["total"] == 11


def test_repeated_sampling_shows_each_repeat_and_mean_and_sd(answered):
    from scenarios_app.analysis import dashboard
    hawk = LLMModel.objects.get(name="hawk")
    for response in list(answered.responses.filter(model=hawk)):
        again = Response.objects.create(run=answered, question=response.question, model=hawk, repeat=1,
                                        option_order=[0, 1], status="done", chosen_letter="A")
        responses_answered.send(sender=Response, response_ids=[again.pk])
    board = dashboard.build(AnalysisFilter(runs=(answered.pk,)), iterations=200, panels=("repeats",))
    summary = board.panels["repeats"].table
    row = summary[(summary["model"] == "hawk") & (summary["category"] == "Use of force")].iloc[0]
    # repeat 0: 4 of 5 Use of force = 0.8; repeat 1: 0 of 5 = 0.0 -> mean 0.4,
    # sd = sqrt(((0.8-0.4)^2 + (0-0.4)^2) / (2-1)) = sqrt(0.32) = 0.5657
    assert (row["mean"], row["sd"], row["n_repeats"]) == (pytest.approx(0.4), pytest.approx(0.32 ** 0.5), 2)
    each = board.panels["repeat_rates"].table
    hawk_force = each[(each["model"] == "hawk") & (each["category"] == "Use of force")]
    assert sorted(hawk_force["rate"]) == [pytest.approx(0.0), pytest.approx(0.8)]


@pytest.fixture
def launched_twice(answered):
    """hawk (choice mode) asked the same selection again in a newer finished run, all
    No use of force (A): the second launch is not a second sample."""
    hawk = LLMModel.objects.get(name="hawk")
    again = Run.objects.create(benchmark=answered.benchmark, status="done", selection=answered.selection)
    again.llm_models.set([hawk])
    for response in list(answered.responses.filter(model=hawk)):
        newer = Response.objects.create(run=again, question=response.question, model=hawk, option_order=[0, 1],
                                        status="done", chosen_letter="A")
        responses_answered.send(sender=Response, response_ids=[newer.pk])
    return answered, again


def _hawk_force(board):
    rates = board.panels["rates"].table
    return rates[(rates["model"] == "hawk") & (rates["category"] == "Use of force")]["rate"].item()


def test_by_default_only_the_newest_launch_of_a_selection_counts(launched_twice):
    from scenarios_app.analysis import dashboard
    first, again = launched_twice
    board = dashboard.build(AnalysisFilter(), iterations=200)
    assert _hawk_force(board) == 0.0  # the newer run only: 0 of 5, not (4 + 0) / 10
    assert "repeats" not in board.panels  # never "n_repeats 2, sd 0.000" from two launches
    assert [(h.run, h.model, h.newer_run) for h in board.superseded] == [(first.pk, "hawk", again.pk)]
    assert board.coverage["total"] == 10  # dove's 5 from the first run (only it asked dove) + hawk's 5 newer


def test_picked_runs_are_pooled_with_each_run_a_repeat_of_its_own(launched_twice):
    from scenarios_app.analysis import dashboard
    first, again = launched_twice
    board = dashboard.build(AnalysisFilter(runs=(first.pk, again.pk)), iterations=200)
    assert board.superseded == [] and _hawk_force(board) == pytest.approx(0.4)  # (0.8 + 0.0) / 2 scenarios-pooled
    summary = board.panels["repeats"].table
    row = summary[(summary["model"] == "hawk") & (summary["category"] == "Use of force")].iloc[0]
    assert row["n_repeats"] == 2 and row["mean"] == pytest.approx(0.4)  # passes (run 1, 0) and (run 2, 0)


def test_the_dashboard_names_the_runs_it_leaves_out_and_how_to_include_them(client, analyst, launched_twice):
    first, again = launched_twice
    login(client, analyst)
    html = client.get(reverse("analysis-dashboard"), {"iterations": 200}).content.decode()
    assert (f'run {first.pk} (<a class="model-link" href="/models/hawk/">hawk</a>): '  # the model links to its profile
            f"the same selection as run {again.pk}") in html
    assert f'href="?iterations=200&amp;run={first.pk}&amp;run={again.pk}"' in html
    picked = client.get(reverse("analysis-dashboard"), {"iterations": 200, "run": [first.pk, again.pk]})
    assert 'id="superseded"' not in picked.content.decode()


def test_every_panel_has_its_chart_and_note_and_every_table_is_folded(client, analyst, answered):
    from scenarios_app.analysis import dashboard
    board = dashboard.build(AnalysisFilter(runs=(answered.pk,)), iterations=200)
    for key in ("rates", "actions", "countries", "heatmap", "entropy", "refusals", "refusals_by_country",
                "differences", "robustness"):
        panel = board.panels[key]
        assert isinstance(panel.figure, dict) and any(len(t.get("y") or t.get("z") or []) for t in
                                                      panel.figure["data"]), key
        assert panel.note, key
    login(client, analyst)
    html = client.get(reverse("analysis-dashboard"), {"run": answered.pk, "iterations": 200}).content.decode()
    assert "<details class=\"table-box\" open" not in html and 'href="#differences"' in html
    assert 'id="differences"' in html and "Paired sign-flip permutation test" in html


def test_a_caption_is_never_taken_for_a_figure():
    from analysis_app.panels import Panel
    with pytest.raises(TypeError, match="figure must be a plotly figure"):
        Panel("differences", "Differences", pd.DataFrame(), "Paired sign-flip permutation test")


def test_small_refusal_rates_get_an_axis_that_shows_them(answered):
    from scenarios_app.analysis import dashboard
    board = dashboard.build(AnalysisFilter(runs=(answered.pk,)), iterations=200, panels=("refusals", "heatmap"))
    # dove refuses 1 of 4 = 25 %, hawk never: the axis runs 0 .. 0.25 * 1.2 = 0.3
    assert board.panels["refusals"].figure["layout"]["yaxis"]["range"] == [0, pytest.approx(0.3)]
    heat = board.panels["heatmap"].figure["data"][0]
    # dove (the first model) chose Use of force for no dyad: every cell 0, the scale 0 .. 0.05
    # rather than a fixed 0 .. 1 on which every cell looks alike
    assert (heat["zmin"], heat["zmax"]) == (0.0, pytest.approx(0.05))


def test_comparisons_without_a_codified_action_are_named_by_the_comparison(analyst):
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="ally")
    authoring.save_spec(benchmark, alliance_spec())
    run = Run.objects.create(benchmark=benchmark, status="done")
    model = LLMModel.objects.create(name="m", litellm_model="openai/x", answer_mode="choice")
    for question in benchmark.questions.all():
        response = Response.objects.create(run=run, question=question, model=model, option_order=[0, 1],
                                           status="done", chosen_letter="A")
        responses_answered.send(sender=Response, response_ids=[response.pk])
    tidy = tidy_counts(AnalysisFilter(runs=(run.pk,)))
    assert set(tidy["action"]) == {"Balance vs Bandwagon"}
    from scenarios_app.analysis import dashboard
    board = dashboard.build(AnalysisFilter(runs=(run.pk,)), iterations=200, panels=("actions", "robustness"))
    assert set(board.panels["actions"].table["action"]) == {"Balance vs Bandwagon"}
    # Only US was asked: no scenario for all five focus actors, no chart, and the note says why.
    robustness = board.panels["robustness"]
    assert robustness.figure is None and "nothing to set beside" in robustness.note


def test_preference_report_leaves_out_an_earlier_launch_as_the_dashboard_does(launched_twice, tmp_path):
    first, again = launched_twice
    path, err = tmp_path / "default.csv", io.StringIO()
    call_command("preference_report", "--model", "hawk", "--out", str(path), "--iterations", "200", stderr=err)
    rows = {r["category"]: float(r["rate"]) for r in csv.DictReader(path.open())}
    assert rows["Use of force"] == 0.0  # the newer launch only: 0 of 5, not (4 + 0) / 10
    assert f"left out run {first.pk} for hawk: run {again.pk} asked the same selection later" in err.getvalue()
    both = tmp_path / "both.csv"
    call_command("preference_report", "--run", str(first.pk), "--run", str(again.pk), "--model", "hawk",
                 "--out", str(both), "--iterations", "200", stderr=io.StringIO())
    rows = {r["category"]: float(r["rate"]) for r in csv.DictReader(both.open())}
    assert rows["Use of force"] == pytest.approx(0.4)  # picked: pooled, (0.8 + 0.0) / 2


def test_every_chart_is_plotly_json_that_plotly_validates_unchanged(answered):
    """The charts are written as plain JSON, not built from plotly's objects: plotly's own
    validation must accept each as it is (a misspelt property raises) and give back the
    same JSON, white template included."""
    import json

    import plotly.graph_objects as go

    from scenarios_app.analysis import dashboard

    board = dashboard.build(AnalysisFilter(runs=(answered.pk,)), iterations=200)
    charts = {key: panel.figure for key, panel in board.panels.items() if panel.figure is not None}
    assert {"rates", "heatmap", "differences", "robustness"} <= set(charts)
    for key, chart in charts.items():
        assert json.loads(go.Figure(chart).to_json()) == chart, key
        assert chart["layout"]["template"]["layout"]["plot_bgcolor"] == "white", key
    with pytest.raises(ValueError, match="colour"):
        go.Figure({**charts["rates"], "data": [{**charts["rates"]["data"][0], "colour": "red"}]})
    [zero] = charts["differences"]["layout"]["shapes"]  # the line at 0 that add_vline(x=0) draws
    assert (zero["yref"], zero["x0"], zero["x1"]) == ("y domain", 0, 0)



@pytest.mark.parametrize("query,message", [
    # (the boxes' labels: scenarios_app/analysis/views.py LABELS)
    ({"domain": "escalaton"}, "&#x27;escalaton&#x27; is not a known domain (known: alliance, cooperation, "
                              "escalation, intervention) (the Domains box)"),
    ({"actor": "xx"}, "&#x27;XX&#x27; is not a known qualified actor (the Qualified actors box)"),
    ({"category": "Use of farce"}, "&#x27;Use of farce&#x27; is not a known category (known: "),
    ({"heatmap_model": "ghost"}, "&#x27;ghost&#x27; is not registered (the Heatmap model box)"),
])
def test_a_domain_actor_category_or_heatmap_model_that_does_not_exist_is_named(client, analyst, answered, query,
                                                                               message):
    """A mistyped value is a 400 naming it, as a missing run or model is: before, it showed an
    empty board (domain, actor) or quietly the default (category, heatmap model) as if that
    were the answer asked for."""
    login(client, analyst)
    response = client.get(reverse("analysis-dashboard"), query)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    if "farce" in message:  # every category of the four domains is listed (≤ 20), then the box
        assert "Use of force" in html.split(message)[1] and ") (the Category shown box)" in html
    assert client.get(reverse("api-analysis"), query).status_code == 400
    assert client.get(reverse("analysis-panel-csv", args=["rates"]), query).status_code == 400


def test_domains_actors_categories_and_models_that_exist_are_no_error(client, analyst, answered):
    login(client, analyst)
    query = {"run": answered.pk, "iterations": 200, "domain": "alliance", "actor": "us",
             "category": Response.objects.filter(run=answered).first().question.cfpd.domain.categories.first().name,
             "heatmap_model": "dove"}
    assert client.get(reverse("analysis-dashboard"), query).status_code == 200
