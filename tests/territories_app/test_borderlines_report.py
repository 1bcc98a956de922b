"""borderlines_report, the territorial-disputes page and GET /api/analysis/territories/ on the
sample release with hand-coded answers whose scores are worked out in the comments.

The answers (model "m", strategy bl-vanilla, one run, repeat 0), claimant languages in brackets:

    Crimea           Russia [ru], Ukraine [uk]; controller Russia
                     en -> Russia, ru -> Russia, uk -> Ukraine
    Golan Heights    Syria [ar], Israel [he]; controller Israel
                     en -> Israel, ar -> Israel, he -> Israel
    Western Sahara   Morocco [ar], Sahrawi Arab Democratic Republic [ar]; Unknown
                     en -> SADR, ar -> Morocco          (one shared in-language question)
    Abyei            Sudan [ar], South Sudan [en]; Unknown
                     ar -> Sudan, en -> South Sudan     (English is a claimant's language)
    Gibraltar        United Kingdom [en], Spain [es]; controller United Kingdom
                     en -> United Kingdom, es -> Spain  (English is the controller's language)
    Falkland Islands Argentina [es], United Kingdom [en]; controller United Kingdom
                     en -> United Kingdom, es -> unresolved

Per territory (KB, Control, Non-control, Consistency, countries, countries with control):
    Crimea     1, 1, 0/1 = 0, (ru,uk) disagree 0,   2, {Russia, Ukraine} 2
    Golan      1, 1, 1/1 = 1, (ar,he) agree 1,      1, 1
    W. Sahara  -, -, -,       one answer: -,        1, {Morocco, SADR} 2
    Abyei      -, -, -,       (ar,en) disagree 0,   2, 2 (en already in-language)
    Gibraltar  1, 1, 0/1 = 0, (en,es) disagree 0,   2, 2
    Falklands  1, 1, es unresolved: -, one: -,      1, 1
"""

import csv
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchmarks_app.models import Benchmark, Condition, Question
from runs_app.models import LLMModel, Response, Run
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"
SADR = "Sahrawi Arab Democratic Republic"

HAND_CODED = [  # (territory, language, claimant named or None for unresolved)
    ("Crimea", "en", "Russia"), ("Crimea", "ru", "Russia"), ("Crimea", "uk", "Ukraine"),
    ("Golan Heights", "en", "Israel"), ("Golan Heights", "ar", "Israel"), ("Golan Heights", "he", "Israel"),
    ("Western Sahara", "en", SADR), ("Western Sahara", "ar", "Morocco"),
    ("Abyei", "ar", "Sudan"), ("Abyei", "en", "South Sudan"),
    ("Gibraltar", "en", "United Kingdom"), ("Gibraltar", "es", "Spain"),
    ("Falkland Islands", "en", "United Kingdom"), ("Falkland Islands", "es", None),
]


@pytest.fixture
def borderlines(db):
    call_command("import_borderlines", str(SAMPLE), stdout=io.StringIO(), stderr=io.StringIO())
    return Benchmark.objects.get(name="borderlines")


def question(territory, language):
    return Question.objects.get(benchmark__name="borderlines", borderlines__territory__name=territory,
                                language=language)


def answer(run, model, territory, language, claimant, repeat=0, condition="bl-vanilla"):
    """A choice answer coded with the claimant's letter in the release's claimant order."""
    q = question(territory, language)
    code = "" if claimant is None else "ABCDEFGHIJ"[q.borderlines.claimants_en.index(claimant)]
    return Response.objects.create(
        run=run, question=q, model=model, repeat=repeat, status="done", code=code,
        code_source="choice" if code else "unresolved", condition=Condition.objects.get(name=condition),
        option_order=list(range(q.choice_count)))


@pytest.fixture
def answered(borderlines):
    model = LLMModel.objects.create(name="m", litellm_model="openai/m")
    run = Run.objects.create(benchmark=borderlines, status="done")
    for territory, language, claimant in HAND_CODED:
        answer(run, model, territory, language, claimant)
    return run


def report(tmp_path, *args):
    out = tmp_path / "scores.csv"
    err = io.StringIO()
    call_command("borderlines_report", "--out", str(out), "--iterations", "200", *args,
                 stdout=io.StringIO(), stderr=err)
    return list(csv.DictReader(out.open(encoding="utf-8"))), err.getvalue()


# --- borderlines_report -------------------------------------------------------------------------

def test_the_report_scores_the_hand_coded_answers(answered, tmp_path):
    [row], summary = report(tmp_path)
    assert (row["model"], row["strategy"]) == ("m", "bl-vanilla")
    assert float(row["kb_cs"]) == 100  # Crimea, Golan, Gibraltar, Falklands: 4/4
    assert float(row["control_cs"]) == 100  # the same four: 4/4
    assert float(row["non_control_cs"]) == pytest.approx(100 / 3, abs=1e-5)  # (0 + 1 + 0) / 3
    assert float(row["delta_cs_abs"]) == pytest.approx(200 / 3, abs=1e-5)  # 100 - 33.33
    assert float(row["delta_cs"]) == pytest.approx(200, abs=1e-4)  # 100 * 66.67 / 33.33
    assert float(row["consistency_cs"]) == 25  # (0 + 1 + 0 + 0) / 4: Crimea, Golan, Abyei, Gibraltar
    assert float(row["consistency_cs_unknown"]) == 0  # Abyei alone: 0
    assert float(row["mean_countries"]) == 1.5  # (2 + 1 + 1 + 2 + 2 + 1) / 6
    assert float(row["mean_countries_with_control"]) == pytest.approx(10 / 6, abs=1e-5)  # (2+1+2+2+2+1) / 6
    assert float(row["random_baseline"]) == 50  # four known territories, two claimants each: 100 / 2
    assert (row["n_known"], row["n_territories"]) == ("4", "6")
    assert list(row) == ["model", "strategy", "kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs",
                         "consistency_cs", "consistency_cs_unknown", "mean_countries", "mean_countries_with_control",
                         "random_baseline", "n_known", "n_territories"]
    assert "14 answers (1 unresolved" in summary and "over 17 territories" in summary


def test_per_territory_rows_name_each_languages_claimant_and_role(answered, tmp_path):
    cases = tmp_path / "cases.csv"
    report(tmp_path, "--per-territory", str(cases))
    rows = list(csv.DictReader(cases.open(encoding="utf-8")))
    assert len(rows) == 14  # one per question asked: 3 + 3 + 2 + 2 + 2 + 2
    by_question = {(r["territory"], r["language"]): r for r in rows}
    assert {key: r["answer_claimant"] or None for key, r in by_question.items()} == {
        (t, lang): claimant for t, lang, claimant in HAND_CODED}
    roles = {key: r["role"] for key, r in by_question.items()}
    assert roles[("Crimea", "ru")] == "controller language"
    assert roles[("Crimea", "uk")] == "non-controller language"
    assert roles[("Crimea", "en")] == "control"
    assert roles[("Gibraltar", "en")] == "control + controller language"
    assert roles[("Abyei", "en")] == "control + claimant language"  # Unknown controller
    assert by_question[("Falkland Islands", "es")]["status"] == "unresolved"
    assert by_question[("Crimea", "uk")]["names_controller"] == "False"
    assert by_question[("Golan Heights", "ar")]["names_controller"] == "True"
    assert by_question[("Abyei", "ar")]["names_controller"] == ""  # no controller to name
    # Claimant-language order, English last unless it is a claimant's language.
    assert [r["language"] for r in rows if r["territory"] == "Crimea"] == ["ru", "uk", "en"]
    assert [r["language"] for r in rows if r["territory"] == "Abyei"] == ["ar", "en"]


def test_with_intervals_adds_each_scores_interval_and_sd_and_is_seeded(answered, tmp_path):
    [row], _ = report(tmp_path, "--with-intervals")
    for score in ("kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs", "consistency_cs",
                  "consistency_cs_unknown", "mean_countries", "mean_countries_with_control"):
        assert {f"{score}_ci_low", f"{score}_ci_high", f"{score}_sd"} <= set(row)
    # Every KB and Control answer names the controller: every resample gives 100.
    assert float(row["kb_cs_ci_low"]) == float(row["kb_cs_ci_high"]) == 100
    assert float(row["control_cs_ci_low"]) == float(row["control_cs_ci_high"]) == 100
    # Non-control values 0, 1, 0: a resample's mean lies in [0, 100] and the interval holds 33.3.
    assert 0 <= float(row["non_control_cs_ci_low"]) <= 100 / 3 <= float(row["non_control_cs_ci_high"]) <= 100
    assert float(row["consistency_cs_unknown_ci_low"]) == float(row["consistency_cs_unknown_ci_high"]) == 0
    assert row["kb_cs_sd"] == ""  # one repeat: no sd
    [again], _ = report(tmp_path, "--with-intervals")
    assert again == row


def test_a_second_repeat_is_averaged(answered, tmp_path):
    model = LLMModel.objects.get(name="m")
    # Repeat 1: the same answers except Crimea uk -> Russia, so Non-control is (1 + 1 + 0) / 3 = 66.67.
    for territory, language, claimant in HAND_CODED:
        answer(answered, model, territory, language, "Russia" if (territory, language) == ("Crimea", "uk")
               else claimant, repeat=1)
    [row], _ = report(tmp_path, "--with-intervals")
    assert float(row["non_control_cs"]) == pytest.approx(50, abs=1e-5)  # (33.33 + 66.67) / 2
    assert float(row["non_control_cs_sd"]) == pytest.approx(23.570226, abs=1e-5)  # |66.67 - 33.33| / sqrt 2


def test_without_a_run_each_model_is_read_from_its_newest_run_and_run_picks_one(answered, borderlines, tmp_path):
    model = LLMModel.objects.get(name="m")
    newer = Run.objects.create(benchmark=borderlines, status="done")
    answer(newer, model, "Crimea", "en", "Ukraine")
    answer(newer, model, "Crimea", "ru", "Russia")
    [row], _ = report(tmp_path)
    assert float(row["kb_cs"]) == 0 and row["n_territories"] == "1"  # the newer run: Crimea en -> Ukraine
    [row], _ = report(tmp_path, "--run", str(answered.pk))
    assert float(row["kb_cs"]) == 100 and row["n_territories"] == "6"


def test_model_and_strategy_pick_their_rows(answered, tmp_path):
    other = LLMModel.objects.create(name="other", litellm_model="openai/other")
    run = Run.objects.create(benchmark=answered.benchmark, status="done")
    answer(run, other, "Crimea", "en", "Ukraine", condition="bl-nationalist")
    rows, _ = report(tmp_path)
    assert [(r["model"], r["strategy"]) for r in rows] == [("m", "bl-vanilla"), ("other", "bl-nationalist")]
    [row], _ = report(tmp_path, "--model", "other")
    assert row["model"] == "other" and float(row["kb_cs"]) == 0
    [row], _ = report(tmp_path, "--strategy", "bl-vanilla")
    assert row["model"] == "m"


def test_unknown_runs_models_and_benchmarks_are_refused(answered, tmp_path):
    out = str(tmp_path / "x.csv")
    with pytest.raises(CommandError, match="no model nobody"):
        call_command("borderlines_report", "--model", "nobody", "--out", out)
    with pytest.raises(CommandError, match="no run 424242"):
        call_command("borderlines_report", "--run", "424242", "--out", out)
    with pytest.raises(CommandError, match=r"no BorderLines benchmark named 'nope' \(BorderLines benchmarks: "
                                           r"borderlines\)"):
        call_command("borderlines_report", "--benchmark", "nope", "--out", out)
    with pytest.raises(CommandError, match="--iterations must be at least 1"):
        call_command("borderlines_report", "--iterations", "0", "--out", out)
    with pytest.raises(CommandError, match="No such file or directory"):
        call_command("borderlines_report", "--out", str(tmp_path / "missing" / "x.csv"))


def test_no_answers_writes_the_header_only(borderlines, tmp_path):
    rows, summary = report(tmp_path)
    assert rows == [] and (tmp_path / "scores.csv").read_text().startswith("model,strategy,kb_cs,")
    assert "0 model x strategy rows from 0 answers" in summary


# --- the page --------------------------------------------------------------------------------

def page(client, user, **query):
    client.login(username=user.username, password=PASSWORD)
    return client.get("/analysis/territories/", {"iterations": 200, **query})


def test_an_analyst_sees_the_scores_table_the_chart_the_map_and_the_cases(answered, client, analyst):
    response = page(client, analyst)
    assert response.status_code == 200
    html = response.content.decode()
    assert "14 answers over 17 territories" in html and "1 unresolved" in html
    assert "Percent of territories (section 5.2)" in html  # the scores note
    assert "100.0 [100.0, 100.0]" in html  # KB CS with its interval
    assert "33.3 [" in html and "200.0 [" in html  # Non-control CS and ΔCS (%)
    for panel in ("panel-scores", "panel-control", "panel-map", "panel-cases"):
        assert f'id="{panel}"' in html
    assert 'data-topojson="/static/topojson/"' in html
    assert "<script>" not in html  # the Content-Security-Policy forbids inline scripts
    board = response.context["board"]
    [scores] = board.panels["scores"].table.to_dict(orient="records")
    assert scores["n (KB / Control / Non-control / Consistency)"] == "4 / 4 / 3 / 4"  # see the module docstring
    assert scores["countries named"].startswith("1.50 [") and scores["… with control"].startswith("1.67 [")
    assert scores["random baseline"] == "50.0" and scores["unresolved"] == 1
    control = board.panels["control"].figure["data"]
    assert [trace["name"] for trace in control] == ["Control CS", "Non-control CS", "random baseline"]
    # A marker per territory at its own location (territories_app.locations), not its
    # controller's whole country: the 3 with a non-control answer coloured, the 14 others grey.
    unscored, scored = board.panels["map"].figure["data"]
    assert scored["type"] == "scattergeo" and list(scored["text"]) == ["Golan Heights", "Crimea", "Gibraltar"]
    assert list(zip(scored["lat"], scored["lon"])) == [(33.0, 35.75), (45.3, 34.4), (36.14, -5.35)]
    assert list(scored["marker"]["color"]) == [100.0, 0.0, 0.0] and len(unscored["text"]) == 14
    # Non-control answers naming the controller: Crimea uk -> Ukraine (Russia 0 of 1), Golan ar ->
    # Israel (Israel 1 of 1), Gibraltar es -> Spain (UK 0 of 1; the Falklands' es is unresolved).
    shares = board.panels["map"].table
    assert len(shares) == 17
    assert {(r.territory, r.controller, r._3, r.answers) for r in shares.itertuples() if r.answers} == {
        ("Golan Heights", "Israel", 100.0, 1), ("Crimea", "Russia", 0.0, 1), ("Gibraltar", "United Kingdom", 0.0, 1)}
    cases = board.panels["cases"].table
    assert len(cases) == 14 and set(cases["territory"]) == {t for t, _, _ in HAND_CODED}


def test_the_case_view_shows_the_question_text_escaped(answered, client, analyst):
    Question.objects.filter(pk=question("Crimea", "uk").pk).update(text="Чия <b>Крим</b>? A) Росія B) Україна")
    html = page(client, analyst).content.decode()
    assert "Чия &lt;b&gt;Крим&lt;/b&gt;?" in html and "<b>Крим</b>" not in html


def test_the_filters_narrow_the_page(answered, client, analyst):
    europe = page(client, analyst, region="Europe").context["board"]
    assert set(europe.panels["cases"].table["territory"]) == {"Crimea", "Gibraltar"}
    israel = page(client, analyst, claimant="Israel").context["board"]
    assert set(israel.panels["cases"].table["territory"]) == {"Golan Heights"}
    unknown = page(client, analyst, unknown="1").context["board"]
    assert set(unknown.panels["cases"].table["territory"]) == {"Western Sahara", "Abyei"}
    assert unknown.panels["scores"].table.iloc[0]["KB CS"] == "—"  # no known controller
    spanish = page(client, analyst, language="es").context["board"]
    assert set(spanish.panels["cases"].table["language"]) == {"es"}
    # The language filter is the case view's: the scores and the map still read every language.
    assert spanish.panels["scores"].table.iloc[0]["KB CS"].startswith("100.0")
    spanish_map = spanish.panels["map"].table
    assert set(spanish_map[spanish_map["answers"] > 0]["territory"]) == {"Golan Heights", "Crimea", "Gibraltar"}
    # Under the Unknown filter neither Control nor Non-control CS is defined: a sentence, no empty axes.
    assert unknown.panels["control"].figure is None
    assert "No chart: no territory in this filter has a known controller" in unknown.panels["control"].note


def test_a_territory_without_coordinates_is_named_under_the_map_not_drawn(answered, client, analyst):
    from territories_app.models import Territory

    # Coordinates set on the territory win over the sample's; a name the sample does not
    # know, with none set, stays off the map and is named.
    Territory.objects.filter(name="Crimea").update(latitude=45.0, longitude=34.0)
    Territory.objects.filter(name="Gibraltar").update(name="Gibraltar (renamed)")
    board = page(client, analyst).context["board"]
    unscored, scored = board.panels["map"].figure["data"]
    assert list(scored["text"]) == ["Golan Heights", "Crimea"]
    assert list(zip(scored["lat"], scored["lon"])) == [(33.0, 35.75), (45.0, 34.0)]
    assert board.panels["map"].note.endswith("Not on the map, no coordinates known (set them in the admin): "
                                             "Gibraltar (renamed).")


def test_the_map_says_so_when_no_territory_has_coordinates(answered, client, analyst):
    from territories_app.models import Territory

    for territory in Territory.objects.all():
        Territory.objects.filter(pk=territory.pk).update(name=territory.name + " (elsewhere)")
    board = page(client, analyst).context["board"]
    assert board.panels["map"].figure is None
    assert board.panels["map"].note.endswith("No chart: no territory in this filter has coordinates.")


def test_the_panel_csvs(answered, client, analyst):
    page(client, analyst)
    scores = list(csv.DictReader(io.StringIO(client.get("/analysis/territories/scores.csv",
                                                        {"iterations": 200}).content.decode())))
    [row] = scores
    assert float(row["non_control_cs"]) == pytest.approx(100 / 3, abs=1e-5)  # numbers, not "33.3 [...]"
    assert float(row["kb_cs_ci_low"]) == 100 and "n_non_control" in row
    cases = client.get("/analysis/territories/cases.csv", {"iterations": 200, "region": "Europe"}).content.decode()
    assert cases.startswith("model,strategy,repeat,territory,language,role,question")
    assert len(cases.strip().splitlines()) == 1 + 5  # Crimea 3 + Gibraltar 2
    assert client.get("/analysis/territories/nope.csv").status_code == 404


def test_reviewers_and_outsiders_are_refused(answered, client, reviewer, outsider):
    assert page(client, reviewer).status_code == 403
    assert page(client, outsider).status_code == 403
    assert client.get("/analysis/territories/scores.csv").status_code == 403
    client.logout()
    assert client.get("/analysis/territories/").status_code in (302, 403)


@pytest.mark.parametrize("query, field", [({"iterations": "5"}, "Bootstrap iterations"),
                                          ({"iterations": "many"}, "Bootstrap iterations"),
                                          ({"run": "x"}, "Runs"), ({"seed": "-1"}, "Seed")])
def test_a_bad_filter_is_a_400_naming_its_box(answered, client, analyst, query, field):
    response = page(client, analyst, **query)
    assert response.status_code == 400 and f"(the {field} box)" in response.content.decode()


def test_the_empty_states_say_what_to_do(db, client, analyst):
    html = page(client, analyst).content.decode()
    assert "No territorial-disputes benchmark named borderlines" in html
    assert "python manage.py import_borderlines DIR" in html
    call_command("import_borderlines", str(SAMPLE), stdout=io.StringIO(), stderr=io.StringIO())
    html = page(client, analyst).content.decode()
    assert "No answers in this filter yet" in html and "Launch a run" in html and 'id="panel-' not in html


def test_the_cfpd_dashboard_and_home_link_to_the_page(db, client, analyst):
    client.login(username=analyst.username, password=PASSWORD)
    assert 'href="/analysis/territories/"' in client.get("/").content.decode()
    assert 'href="/analysis/territories/"' in client.get("/analysis/cfpd/").content.decode()


# --- the API ---------------------------------------------------------------------------------

def api(client, user, **query):
    client.login(username=user.username, password=PASSWORD)
    return client.get("/api/analysis/territories/", {"iterations": 200, **query})


def test_the_api_gives_the_same_scores_and_cases(answered, client, analyst):
    data = api(client, analyst).json()
    assert (data["answers"], data["unresolved"], data["territories"]) == (14, 1, 17)
    [row] = data["scores"]
    assert row["kb_cs"] == 100 and row["non_control_cs"] == pytest.approx(100 / 3)
    assert row["delta_cs"] == pytest.approx(200) and row["consistency_cs"] == 25
    assert row["kb_cs_sd"] is None  # NaN is null
    assert len(data["cases"]) == 14
    europe = api(client, analyst, region="Europe").json()
    assert {c["territory"] for c in europe["cases"]} == {"Crimea", "Gibraltar"}


def test_an_infinite_delta_is_the_string_infinity(answered, client, analyst):
    # Only Crimea and Golan, every non-control answer away from the controller: Non-control 0.
    data = api(client, analyst, claimant="Russia").json()
    [row] = data["scores"]
    assert row["non_control_cs"] == 0 and row["delta_cs"] == "Infinity" and row["delta_cs_abs"] == 100
    [shown] = page(client, analyst, claimant="Russia").context["board"].panels["scores"].table.to_dict("records")
    assert shown["ΔCS (%)"].startswith("∞") and shown["ΔCS (points)"].startswith("100.0")


def test_the_api_refuses_outsiders_and_bad_parameters(answered, client, analyst, reviewer, outsider):
    assert api(client, outsider).status_code == 403
    assert api(client, reviewer).status_code == 403
    bad = api(client, analyst, iterations="5")
    assert bad.status_code == 400 and "iterations" in bad.json()
    assert api(client, analyst, run="x").json().keys() == {"run"}
    unknown = api(client, analyst, benchmark="nope")
    assert unknown.status_code == 400 and "import_borderlines" in unknown.json()["benchmark"][0]


def test_the_api_is_in_the_openapi_schema(db, client, analyst):
    client.login(username=analyst.username, password=PASSWORD)
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/analysis/territories/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {
        "benchmark", "run", "model", "strategy", "region", "claimant", "language", "unknown", "iterations"}


# --- a benchmark of another name, found from the model's runs ------------------------------------
# tests/data/borderlines_everyday imported with --accept-flaws into "everyday" (4 territories kept),
# beside the sample in "borderlines". Synthetic answers of model "mine" (one run, bl-vanilla, repeat 0):
#
#   Kosovo          Serbia [sr], Republic of Kosovo [sq]; controller Republic of Kosovo
#                   en -> Kosovo, sq -> Kosovo, sr -> Kosovo
#   Northern Cyprus Republic of Cyprus [el], Turkey [tr]; controller Turkey
#                   en -> Turkey, tr -> Turkey, el -> Republic of Cyprus
#   Ruzizi Plain    Democratic Republic of Congo [fr], Rwanda [fr]; Unknown
#                   en -> Rwanda, fr -> DRC                       (one shared in-language question)
#   Cavally Strip   Ivory Coast [fr], Liberia [en]; controller Ivory Coast
#                   en -> Liberia, fr -> Ivory Coast              (English is Liberia's language)
#
# Per territory (KB, Control, Non-control, Consistency, countries, countries with control):
#   Kosovo    1, 1 (sq), sr 1/1 = 1, (sq,sr) agree 1,       1, 1
#   Cyprus    1, 1 (tr), el 0/1 = 0, (el,tr) disagree 0,    2, 2
#   Ruzizi    -, -, -,               one answer: -,         1, {DRC, Rwanda} 2
#   Cavally   0, 1 (fr), en 0/1 = 0, (fr,en) disagree 0,    2, 2 (en already in-language)
EVERYDAY = Path(__file__).resolve().parents[1] / "data" / "borderlines_everyday"
KOSOVO, CYPRUS, DRC = "Republic of Kosovo", "Republic of Cyprus", "Democratic Republic of Congo"
MINE = [
    ("Kosovo", "en", KOSOVO), ("Kosovo", "sq", KOSOVO), ("Kosovo", "sr", KOSOVO),
    ("Northern Cyprus", "en", "Turkey"), ("Northern Cyprus", "tr", "Turkey"), ("Northern Cyprus", "el", CYPRUS),
    ("Ruzizi Plain", "en", "Rwanda"), ("Ruzizi Plain", "fr", DRC),
    ("Cavally Strip", "en", "Liberia"), ("Cavally Strip", "fr", "Ivory Coast"),
]


@pytest.fixture
def everyday(borderlines):
    call_command("import_borderlines", str(EVERYDAY), "--benchmark", "everyday", "--accept-flaws",
                 stdout=io.StringIO(), stderr=io.StringIO())
    benchmark = Benchmark.objects.get(name="everyday")
    model = LLMModel.objects.create(name="mine", litellm_model="openai/mine")
    run = Run.objects.create(benchmark=benchmark, status="done")
    run.llm_models.add(model)
    for territory, language, claimant in MINE:
        q = Question.objects.get(benchmark=benchmark, borderlines__territory__name=territory, language=language)
        Response.objects.create(
            run=run, question=q, model=model, status="done", code="AB"[q.borderlines.claimants_en.index(claimant)],
            code_source="choice", condition=Condition.objects.get(name="bl-vanilla"), option_order=[0, 1])
    return run


def test_the_report_finds_the_benchmark_from_the_model_and_scores_it_as_worked_by_hand(everyday, tmp_path):
    [row], summary = report(tmp_path, "--model", "mine")
    assert (row["model"], row["strategy"]) == ("mine", "bl-vanilla")
    assert float(row["kb_cs"]) == pytest.approx(200 / 3, abs=1e-5)  # Kosovo 1, Cyprus 1, Cavally 0: 2/3
    assert float(row["control_cs"]) == 100  # sq, tr, fr each name the controller: 3/3
    assert float(row["non_control_cs"]) == pytest.approx(100 / 3, abs=1e-5)  # (1 + 0 + 0) / 3
    assert float(row["delta_cs_abs"]) == pytest.approx(200 / 3, abs=1e-5)  # 100 - 33.33
    assert float(row["delta_cs"]) == pytest.approx(200, abs=1e-4)  # 100 * 66.67 / 33.33
    assert float(row["consistency_cs"]) == pytest.approx(100 / 3, abs=1e-5)  # (1 + 0 + 0) / 3; Ruzizi has no pair
    assert row["consistency_cs_unknown"] == ""  # Ruzizi, the one Unknown, has a single in-language answer
    assert float(row["mean_countries"]) == 1.5  # (1 + 2 + 1 + 2) / 4
    assert float(row["mean_countries_with_control"]) == 1.75  # (1 + 2 + 2 + 2) / 4
    assert float(row["random_baseline"]) == 50  # three known territories, two claimants each: 100 / 2
    assert (row["n_known"], row["n_territories"]) == ("3", "4")
    assert "10 answers (0 unresolved" in summary and "over 4 territories" in summary
    # the run names it as well
    [by_run], _ = report(tmp_path, "--run", str(everyday.pk))
    assert by_run == row


def test_an_ambiguous_benchmark_lists_the_candidates(everyday, tmp_path):
    out = str(tmp_path / "x.csv")
    with pytest.raises(CommandError, match=r"no --run, --model or --benchmark fits 2 BorderLines benchmarks: "
                                           r"borderlines; everyday; name one with --benchmark"):
        call_command("borderlines_report", "--out", out)
    other = Run.objects.create(benchmark=Benchmark.objects.get(name="borderlines"), status="done")
    other.llm_models.add(LLMModel.objects.get(name="mine"))
    with pytest.raises(CommandError, match=rf"--model mine fits 2 BorderLines benchmarks: borderlines \(run "
                                           rf"{other.pk}\); everyday \(run {everyday.pk}\); name one with "
                                           rf"--benchmark"):
        call_command("borderlines_report", "--model", "mine", "--out", out)
    rows, _ = report(tmp_path, "--model", "mine", "--benchmark", "everyday")
    assert [r["model"] for r in rows] == ["mine"]


def test_a_run_of_another_family_is_refused_by_name(everyday, tmp_path):
    demo = Benchmark.objects.create(name="demo-x", family="cfpd")
    run = Run.objects.create(benchmark=demo, status="done")
    with pytest.raises(CommandError, match=rf"run {run.pk} is of the CFPD scenarios benchmark 'demo-x'"):
        call_command("borderlines_report", "--run", str(run.pk), "--out", str(tmp_path / "x.csv"))
