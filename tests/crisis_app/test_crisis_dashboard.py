"""inconsistency_report, the crisis page (/analysis/crisis/) and GET /api/analysis/crisis/ on
group scores made by hand for the sample simulation (no scoring: the numbers are ours).

Scorer bertscore-minilm, three samples per group (pairs (0, 1), (0, 2), (1, 2)):

    model-a explicit   m1 T=0.2 run A  pairs 0.1, 0.2, 0.3   mean 0.2
    model-a explicit   m1 T=0.2 run B  pairs 0.3, 0.4, 0.5   mean 0.4
    model-a anonymised m1 T=0.2 run A  pairs 0.2, 0.3, 0.4   mean 0.3
    model-a explicit   m2 status_quo T=0.2 run A  0.3, 0.35, 0.4  mean 0.35
    model-a explicit   m1 T=1.0 run C  pairs 0.5, 0.6, 0.7   mean 0.6   (a <script> answer in pair (1, 2))
    model-a paraphrase (level 1)       m1 T=0 run D  0.05, 0.1, 0.15  mean 0.1
    model-a changed-setting (level 2)  m1 T=0 run D  0.4, 0.5, 0.6    mean 0.5
    model-a paraphrase (level 1)       m1 T=0 run F  0.15, 0.2, 0.25  mean 0.2
    model-a changed-setting (level 2)  m1 T=0 run F  0.3, 0.4, 0.5    mean 0.4
    model-b explicit   m1 T=0.2 run A  pairs 0.5, 0.5, 0.5   mean 0.5
    model-b explicit   m1 T=0.2 run E (imported from the revisionist folder)  0.4, 0.45, 0.5  mean 0.45

Scorer kendall: model-a ranked m1 T=0.2 run A  pairs 0, 0.25, 0.5  mean 0.25
"""

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from benchmarks_app.models import Condition
from crisis_app.models import CrisisQuestion, GroupScore, Scorer
from crisis_app.services import load_sample
from runs_app.models import LLMModel, Response, Run

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert('x')</script>"


def answer_text(recommendation, reasoning="Because the alliance needs it."):
    return f"Mr President,\n\nRECOMMENDATIONS: {recommendation}\n\nREASONING: {reasoning}"


def scored_group(run, model, variant, temperature, pair_values, *, move=1, continuation=None, scorer,
                 texts=None):
    """Three answers and their group score."""
    question = CrisisQuestion.objects.get(variant__simulation__benchmark=run.benchmark, variant__name=variant,
                                          move=move, continuation__name=continuation).question
    condition = Condition.objects.get(name="t" + f"{temperature:.1f}".replace(".", "-"))
    run.llm_models.add(model)
    run.conditions.add(condition)
    texts = texts or [answer_text(f"{variant} advice {k} at {temperature}.") for k in range(3)]
    responses = []
    for repeat, text in enumerate(texts):
        response, _ = Response.objects.get_or_create(
            run=run, question=question, model=model, condition=condition, repeat=repeat,
            defaults={"status": "done", "raw_output": text, "params": {"temperature": temperature}})
        responses.append(response)
    return GroupScore.objects.create(
        run=run, model=model, question=question, condition=condition, scorer=scorer, n_samples=3, n_pairs=3,
        mean=sum(pair_values) / 3, pair_values=list(pair_values), response_ids=[r.pk for r in responses])


def make_scores():
    """The groups of the module docstring; returns a dict of the objects made."""
    simulation = load_sample("crisis-sample")
    benchmark = simulation.benchmark
    bert = Scorer.objects.create(name="bertscore-minilm", kind="bertscore", config={"encoder": "minilm"})
    kendall = Scorer.objects.create(name="kendall", kind="kendall")
    a = LLMModel.objects.create(name="model-a", litellm_model="external/a", is_external=True)
    b = LLMModel.objects.create(name="model-b", litellm_model="external/b", is_external=True)
    runs = {name: Run.objects.create(benchmark=benchmark, status="done", note=f"run {name}", repeats=3)
            for name in "ABCDF"}
    runs["E"] = Run.objects.create(benchmark=benchmark, status="done", repeats=3, selection={
        "imported": {"path": "release/revisionist", "continuation": "revisionist", "run": 1}})
    groups = {
        "a-explicit-A": scored_group(runs["A"], a, "explicit", 0.2, [0.1, 0.2, 0.3], scorer=bert),
        "a-explicit-B": scored_group(runs["B"], a, "explicit", 0.2, [0.3, 0.4, 0.5], scorer=bert),
        "a-anonymised-A": scored_group(runs["A"], a, "anonymised", 0.2, [0.2, 0.3, 0.4], scorer=bert),
        "a-move2-A": scored_group(runs["A"], a, "explicit", 0.2, [0.3, 0.35, 0.4], move=2,
                                  continuation="status_quo", scorer=bert),
        "a-hot-C": scored_group(runs["C"], a, "explicit", 1.0, [0.5, 0.6, 0.7], scorer=bert, texts=[
            answer_text("Protest through diplomatic channels."),
            answer_text(f"Board the ship now. {SCRIPT}", reasoning=f"{SCRIPT} speed matters."),
            "I would not advise anything: this is a fictional scenario."]),
        "a-paraphrase-D": scored_group(runs["D"], a, "paraphrase", 0.0, [0.05, 0.1, 0.15], scorer=bert),
        "a-setting-D": scored_group(runs["D"], a, "changed-setting", 0.0, [0.4, 0.5, 0.6], scorer=bert),
        "a-paraphrase-F": scored_group(runs["F"], a, "paraphrase", 0.0, [0.15, 0.2, 0.25], scorer=bert),
        "a-setting-F": scored_group(runs["F"], a, "changed-setting", 0.0, [0.3, 0.4, 0.5], scorer=bert),
        "b-explicit-A": scored_group(runs["A"], b, "explicit", 0.2, [0.5, 0.5, 0.5], scorer=bert),
        "b-imported-E": scored_group(runs["E"], b, "explicit", 0.2, [0.4, 0.45, 0.5], scorer=bert),
        "a-ranked-A": scored_group(runs["A"], a, "ranked", 0.2, [0.0, 0.25, 0.5], scorer=kendall),
    }
    return {"benchmark": benchmark, "runs": runs, "groups": groups, "models": (a, b)}


@pytest.fixture
def scores(db):
    return make_scores()


def report(tmp_path, *args):
    out = tmp_path / "inconsistency.csv"
    err = io.StringIO()
    call_command("inconsistency_report", "--out", str(out), "--iterations", "500", *args, stdout=io.StringIO(),
                 stderr=err)
    return list(csv.DictReader(out.open(encoding="utf-8"))), err.getvalue()


def keyed(rows):
    return {(r["model"], r["variant"], r["move"], r["continuation"], r["temperature"], r["scorer"]): r for r in rows}


# --- inconsistency_report ------------------------------------------------------------------------

COLUMNS = ["model", "simulation", "variant", "level", "continuation", "explicit", "temperature", "move", "scorer",
           "n_samples", "n_pairs", "runs", "mean", "sd", "ci_low", "ci_high"]


def test_the_report_writes_one_row_per_condition_and_scorer_with_exactly_the_columns(scores, tmp_path):
    rows, summary = report(tmp_path)
    assert list(rows[0]) == COLUMNS
    assert len(rows) == 9  # twelve groups; explicit m1 T=0.2, paraphrase and changed-setting hold two runs each
    by_key = keyed(rows)
    pooled = by_key[("model-a", "explicit", "1", "", "0.2", "bertscore-minilm")]
    assert float(pooled["mean"]) == pytest.approx(0.3)  # runs A and B: (0.2 + 0.4) / 2
    assert float(pooled["sd"]) == pytest.approx(0.141421, abs=1e-6)  # sqrt((0.1^2 + 0.1^2) / 1)
    assert (pooled["runs"], pooled["n_samples"], pooled["n_pairs"]) == ("2", "6", "6")
    assert 0.2 <= float(pooled["ci_low"]) <= 0.3 <= float(pooled["ci_high"]) <= 0.4
    assert (pooled["simulation"], pooled["level"], pooled["explicit"]) == ("northern-cable-crisis", "0", "True")
    assert by_key[("model-a", "anonymised", "1", "", "0.2", "bertscore-minilm")]["explicit"] == "False"
    single = by_key[("model-a", "explicit", "1", "", "1", "bertscore-minilm")]
    assert (single["mean"], single["sd"], single["runs"]) == ("0.600000", "", "1")  # one run: no sd
    assert by_key[("model-a", "explicit", "2", "status_quo", "0.2", "bertscore-minilm")]["mean"] == "0.350000"
    # The imported run's move-1 answers came from the revisionist folder.
    assert by_key[("model-b", "explicit", "1", "revisionist", "0.2", "bertscore-minilm")]["mean"] == "0.450000"
    assert by_key[("model-b", "explicit", "1", "", "0.2", "bertscore-minilm")]["mean"] == "0.500000"
    assert by_key[("model-a", "ranked", "1", "", "0.2", "kendall")]["mean"] == "0.250000"
    assert "9 rows from 12 groups in 6 runs" in summary


def test_two_calls_with_one_seed_agree(scores, tmp_path):
    first, _ = report(tmp_path, "--seed", "3")
    second, _ = report(tmp_path, "--seed", "3")
    assert first == second


def test_filters_pick_runs_scorers_and_models(scores, tmp_path):
    runs = scores["runs"]
    rows, _ = report(tmp_path, "--scorer", "kendall")
    assert [(r["variant"], r["scorer"]) for r in rows] == [("ranked", "kendall")]
    rows, _ = report(tmp_path, "--run", str(runs["D"].pk))
    assert [(r["variant"], r["level"], r["temperature"]) for r in rows] == [
        ("changed-setting", "2", "0"), ("paraphrase", "1", "0")]
    rows, _ = report(tmp_path, "--model", "model-b", "--benchmark", "crisis-sample")
    assert {r["model"] for r in rows} == {"model-b"} and len(rows) == 2


def test_per_run_writes_one_row_per_group(scores, tmp_path):
    per_run = tmp_path / "per-run.csv"
    report(tmp_path, "--per-run", str(per_run))
    rows = list(csv.DictReader(per_run.open(encoding="utf-8")))
    assert len(rows) == 12
    assert list(rows[0]) == COLUMNS[:9] + ["run", "n_samples", "n_pairs", "mean"]
    explicit = [r for r in rows if (r["model"], r["variant"], r["move"], r["temperature"]) == ("model-a", "explicit",
                                                                                                 "1", "0.2")]
    assert [(int(r["run"]), r["mean"]) for r in explicit] == [(scores["runs"]["A"].pk, "0.200000"),
                                                              (scores["runs"]["B"].pk, "0.400000")]


@pytest.mark.parametrize("args, named", [
    (["--run", "99999"], "--run is unknown: 99999"),
    (["--benchmark", "nope"], "--benchmark is no free-form benchmark: 'nope'"),
    (["--scorer", "bleu"], "--scorer is unknown: 'bleu' (scorers: bertscore-minilm, kendall)"),
    (["--model", "gpt-9"], "--model is unknown: 'gpt-9'"),
])
def test_unknown_names_are_errors_naming_them(scores, tmp_path, args, named):
    with pytest.raises(CommandError, match=named.replace("(", r"\(").replace(")", r"\)")):
        report(tmp_path, *args)
    assert not (tmp_path / "inconsistency.csv").exists()


def test_no_scores_is_an_error_that_says_what_to_do(db, tmp_path):
    load_sample("crisis-sample")
    with pytest.raises(CommandError, match="no inconsistency scores in this selection.*score_inconsistency"):
        report(tmp_path)
    assert not (tmp_path / "inconsistency.csv").exists()


# --- the page ------------------------------------------------------------------------------------

@pytest.fixture
def analyst_client(client, analyst):
    client.force_login(analyst)
    return client


def figure(response, key):
    import json
    import re

    found = re.search(rf'<script id="figure-data-{key}" type="application/json">(.*?)</script>',
                      response.content.decode(), re.S)
    assert found, f"no figure {key}"
    return json.loads(found.group(1))


def test_the_page_shows_every_chart_with_its_data_points_and_tables(scores, analyst_client):
    response = analyst_client.get("/analysis/crisis/?iterations=200")
    assert response.status_code == 200
    page = response.content.decode()
    for key in ("summary", "boxes", "curve", "groups", "pairs"):
        assert f'id="panel-{key}"' in page and f'href="{key}.csv?iterations=200"' in page
    assert "scorer <strong>bertscore-minilm</strong>" in page  # BERTScore picked before kendall
    boxes = figure(response, "boxes")
    box_a = next(t for t in boxes["data"] if t["type"] == "box" and t["name"] == "model-a")
    # model-a's level-0 groups: 0.2, 0.4, 0.3, 0.35 at T=0.2 and 0.6 at T=1.0
    assert sorted(box_a["y"]) == pytest.approx([0.2, 0.3, 0.35, 0.4, 0.6])
    curve = figure(response, "curve")
    line_a = next(t for t in curve["data"] if t["name"] == "model-a: level 0 by temperature")
    # T=0.2: run A (0.2 + 0.3 + 0.35) / 3 = 0.2833, run B 0.4 -> (0.2833 + 0.4) / 2 = 0.341667; T=1.0: 0.6
    assert line_a["x"] == [0.2, 1.0] and line_a["y"] == pytest.approx([0.341667, 0.6], abs=1e-6)
    bands = {t["name"]: t for t in curve["data"] if "level 1" in t["name"] or "level 2" in t["name"]}
    assert bands["model-a: level 1 (paraphrase)"]["y"] == pytest.approx([0.15, 0.15])  # runs D 0.1, F 0.2
    assert bands["model-a: level 2 (changed-setting)"]["y"] == pytest.approx([0.45, 0.45])  # runs D 0.5, F 0.4
    assert 'id="table-curve"' in page and "level 1 band" in page and "temperature curve (level 0)" in page


def test_the_divergent_pairs_of_the_most_inconsistent_group_are_shown_escaped(scores, analyst_client):
    response = analyst_client.get("/analysis/crisis/?iterations=200")
    page = response.content.decode()
    hot = scores["groups"]["a-hot-C"]  # the most inconsistent group: 0.6
    assert f"Answers of group {hot.pk}" in page
    # most divergent: pair 2 = samples (1, 2), 0.7; least: pair 0 = (0, 1), 0.5
    assert "Most divergent pair</h3>" not in page  # the heading names the samples
    assert "Most divergent pair: samples 1 and 2" in page and "inconsistency 0.700" in page
    assert "Least divergent pair: samples 0 and 1" in page and "inconsistency 0.500" in page
    assert SCRIPT not in page
    assert ('<mark class="scored">Board the ship now. &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;</mark>'
            in page)
    assert '<mark class="scored">Protest through diplomatic channels.</mark>' in page
    assert "No RECOMMENDATIONS section: the whole answer was scored." in page  # sample 2 ignored the format


def test_a_group_is_picked_by_its_parameter(scores, analyst_client):
    group = scores["groups"]["a-paraphrase-D"]
    page = analyst_client.get(f"/analysis/crisis/?group={group.pk}").content.decode()
    assert f"Answers of group {group.pk}" in page and "paraphrase (level 1) · move 1" in page
    # 0.05, 0.1, 0.15: most divergent (1, 2), least (0, 1)
    assert "Most divergent pair: samples 1 and 2" in page and "inconsistency 0.150" in page


def test_filters_narrow_the_page_and_the_csvs(scores, analyst_client):
    response = analyst_client.get("/analysis/crisis/summary.csv?model=model-b&continuation=revisionist")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["model"], r["continuation"], r["mean"]) for r in rows] == [("model-b", "revisionist", "0.450000")]
    assert list(rows[0]) == COLUMNS
    rows = list(csv.DictReader(io.StringIO(analyst_client.get("/analysis/crisis/groups.csv?move=2").content.decode())))
    assert [(r["variant"], r["move"], r["continuation"]) for r in rows] == [("explicit", "2", "status_quo")]
    rows = list(csv.DictReader(io.StringIO(analyst_client.get("/analysis/crisis/summary.csv?scorer=kendall")
                                           .content.decode())))
    assert [(r["variant"], r["scorer"]) for r in rows] == [("ranked", "kendall")]
    pairs = list(csv.DictReader(io.StringIO(analyst_client.get(
        f"/analysis/crisis/pairs.csv?group={scores['groups']['a-explicit-A'].pk}").content.decode())))
    assert [(p["i"], p["j"], p["inconsistency"]) for p in pairs] == [
        ("0", "1", "0.100000"), ("0", "2", "0.200000"), ("1", "2", "0.300000")]


@pytest.mark.parametrize("query, message", [
    ("move=3", "move must be between 1 and 2, got &#x27;3&#x27;"),
    ("move=one", "move must be a whole number"),
    ("scorer=bleu", "scorer is unknown: &#x27;bleu&#x27;"),
    ("model=gpt-9", "model is unknown: &#x27;gpt-9&#x27;"),
    ("continuation=escalation", "continuation is unknown: &#x27;escalation&#x27;"),
    ("benchmark=nope", "benchmark is no free-form benchmark"),
    ("group=999999", "group is no scored group of benchmark"),
    ("group=x", "group must be a whole number"),
    ("iterations=5", "iterations must be between 100 and 10000"),
])
def test_bad_parameters_are_400s_naming_them(scores, analyst_client, query, message):
    response = analyst_client.get(f"/analysis/crisis/?{query}")
    assert response.status_code == 400
    assert message in response.content.decode()
    csv_response = analyst_client.get(f"/analysis/crisis/summary.csv?{query}")
    assert csv_response.status_code == 400


def test_the_empty_page_says_what_to_do(db, analyst_client):
    load_sample("crisis-sample")
    page = analyst_client.get("/analysis/crisis/").content.decode()
    assert "No inconsistency scores in this filter yet." in page and "score_inconsistency" in page
    assert 'id="panel-' not in page
    assert analyst_client.get("/analysis/crisis/summary.csv").status_code == 404


def test_with_no_benchmark_the_page_says_to_load_one(db, analyst_client):
    page = analyst_client.get("/analysis/crisis/").content.decode()
    assert "load_crisis_sample" in page


def test_outsiders_are_refused_and_analysts_see_the_link(scores, client, outsider, analyst):
    client.force_login(outsider)
    assert client.get("/analysis/crisis/").status_code == 403
    assert client.get("/analysis/crisis/summary.csv").status_code == 403
    assert client.get("/api/analysis/crisis/").status_code == 403
    client.force_login(analyst)
    assert 'href="/analysis/crisis/">Crisis</a>' in client.get("/analysis/territories/").content.decode()


def test_an_unknown_panel_is_404(scores, analyst_client):
    assert analyst_client.get("/analysis/crisis/nothing.csv").status_code == 404


# --- the API -------------------------------------------------------------------------------------

def test_the_api_returns_the_figures(scores, analyst_client):
    data = analyst_client.get("/api/analysis/crisis/?iterations=200").json()
    assert (data["benchmark"], data["scorer"], data["scorers"]) == ("crisis-sample", "bertscore-minilm",
                                                                    ["bertscore-minilm", "kendall"])
    assert (data["groups"], data["runs"]) == (11, 6)
    assert len(data["summary"]) == 8 and set(data["summary"][0]) >= set(COLUMNS)
    curve = [(p["model"], p["temperature"], round(p["mean"], 6)) for p in data["curve"]]
    assert curve == [("model-a", 0.2, 0.341667), ("model-a", 1.0, 0.6), ("model-b", 0.2, 0.475)]  # (0.5 + 0.45) / 2
    bands = [(b["model"], b["level"], b["variants"], b["temperatures"], b["mean"]) for b in data["bands"]]
    assert bands == [("model-a", 1, "paraphrase", "0", pytest.approx(0.15)),  # (0.1 + 0.2) / 2
                     ("model-a", 2, "changed-setting", "0", pytest.approx(0.45))]  # (0.5 + 0.4) / 2
    assert data["bands"][0]["sd"] == pytest.approx(0.070711, abs=1e-6)  # sqrt((0.05^2 + 0.05^2) / 1)
    assert [c["sd"] for c in data["curve"]][1] is None  # T=1.0: one run, no sd
    divergent = data["divergent"]
    assert divergent["group"] == scores["groups"]["a-hot-C"].pk
    most = divergent["pairs"][0]
    assert (most["kind"], most["i"], most["j"], most["inconsistency"]) == ("most", 1, 2, 0.7)
    assert most["answers"][0]["scored"] == f"Board the ship now. {SCRIPT}"  # JSON: the text as written
    assert most["answers"][1]["scored"] is None  # no section: scored whole


@pytest.mark.parametrize("query, field", [("move=3", "move"), ("scorer=bleu", "scorer"), ("run=abc", "run"),
                                          ("benchmark=nope", "benchmark"), ("group=0", "group")])
def test_the_api_answers_bad_parameters_with_400(scores, analyst_client, query, field):
    response = analyst_client.get(f"/api/analysis/crisis/?{query}")
    assert response.status_code == 400
    assert field in response.json()


def test_the_endpoint_is_in_the_openapi_schema(analyst_client):
    schema = analyst_client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/analysis/crisis/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"benchmark", "scorer", "model", "move", "continuation",
                                                            "group"}


def test_a_server_that_ignores_the_temperature_is_named_above_the_scores(scores, analyst_client):
    # Run G: model-b's three samples at temperature 1 are word for word alike for three questions, so
    # their inconsistency is 0 because the server decoded greedily, not because the model is consistent.
    run = Run.objects.create(benchmark=scores["benchmark"], status="done", repeats=3, note="run G")
    bert = Scorer.objects.get(name="bertscore-minilm")
    same = [answer_text("Hold.")] * 3
    for variant in ("explicit", "anonymised", "paraphrase"):
        scored_group(run, scores["models"][1], variant, 1.0, [0.0, 0.0, 0.0], scorer=bert, texts=same)
    page = analyst_client.get("/analysis/crisis/").content.decode()
    assert page.count("data-temperature-warning") == 1
    assert "model-b: at temperature 1, each of the 3 questions checked got 3 identical answers" in page
    Response.objects.filter(run=run, repeat=2).update(raw_output="Strike.")  # samples that differ: no warning
    assert "data-temperature-warning" not in analyst_client.get("/analysis/crisis/?fresh=1").content.decode()
