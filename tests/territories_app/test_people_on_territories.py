"""Panels of people on the territorial-disputes page (issue 40): beside model m (the answers of
tests/territories_app/test_borderlines_report.py), labelled as people, their scores a hand
count with intervals clustered by respondent and territory, a respondent who failed an
attention check left out, and never a row of a model's scores."""

import pytest
from django.utils import timezone

from panels_app.models import Panel, PanelAnswer, PanelQuestion, Respondent
from tests.territories_app.test_borderlines_report import answered, borderlines, question  # noqa: F401 (fixtures)
from tests.territories_app.test_territory_contrast_panels import get, one

pytestmark = pytest.mark.django_db
Z = 1.959963984540054
LABEL = "People: Geographers (2 respondents)"


def _respond(panel, answers, failed_checks=0):
    """answers: [(territory, language, claimant named)], coded with the claimant's letter."""
    respondent = Respondent.objects.create(panel=panel, token=f"t{Respondent.objects.count()}",
                                           failed_checks=failed_checks, consented_at=timezone.now())
    for position, (territory, language, claimant) in enumerate(answers):
        q = question(territory, language)
        letter = "ABCDEFGHIJ"[q.borderlines.claimants_en.index(claimant)]
        PanelQuestion.objects.get_or_create(panel=panel, question=q)
        PanelAnswer.objects.create(respondent=respondent, position=position, question=q, code=letter,
                                   chosen_letter=letter, answered_at=timezone.now())


@pytest.fixture
def geographers(answered):  # noqa: F811
    """Crimea (controller Russia; ru Russia's language, uk Ukraine's) and the Golan Heights
    (controller Israel; he Israel's, ar Syria's):
    r1: Crimea en Russia, ru Russia, uk Ukraine; Golan en Israel.
    r2: Crimea en Ukraine, ru Russia; Golan he Israel.
    r3 failed an attention check: Crimea en Ukraine (left out)."""
    panel = Panel.objects.create(name="Geographers", stands_for="geographers, world", benchmark=answered.benchmark,
                                 consent_text="You agree.")
    _respond(panel, [("Crimea", "en", "Russia"), ("Crimea", "ru", "Russia"), ("Crimea", "uk", "Ukraine"),
                     ("Golan Heights", "en", "Israel")])
    _respond(panel, [("Crimea", "en", "Ukraine"), ("Crimea", "ru", "Russia"), ("Golan Heights", "he", "Israel")])
    _respond(panel, [("Crimea", "en", "Ukraine")], failed_checks=1)
    return panel


def test_the_panels_scores_beside_the_models_by_hand(geographers, client, analyst):
    response = get(client, analyst)
    html = response.content.decode()
    assert response.status_code == 200 and 'id="panel-people"' in html and LABEL in html
    table = response.context["board"].panels["people"].table
    # KB: Crimea r1 Russia (1), r2 Ukraine (0) -> 1/2; Golan r1 Israel (1) -> 1; mean 75 %. With r3 it
    # would be Crimea 1/3. SE clustered by respondent and territory: the case of
    # tests/territories_app/test_people_scores.py, sqrt(12)/16 = 21.65 points; 75 - 42.434 = 32.566.
    kb = one(table, source="people", who=LABEL, score="KB CS")
    assert kb["rate"] == pytest.approx(75.0)
    assert (kb["ci_low"], kb["ci_high"]) == (pytest.approx(75 - Z * 100 * 12 ** 0.5 / 16), 100.0)
    assert (kb["n_territories"], kb["n_respondents"], kb["n_answers"]) == (2, 2, 3)
    assert kb["interval"] == "clustered by respondent and territory"
    # Control: Crimea ru r1, r2 Russia; Golan he r2 Israel -> 100. Non-control: Crimea uk r1 Ukraine -> 0.
    assert one(table, source="people", who=LABEL, score="Control CS")["rate"] == 100.0
    assert one(table, source="people", who=LABEL, score="Non-control CS")["rate"] == 0.0
    # Model m as the scores panel has it: KB 4/4, Non-control (0 + 1 + 0) / 3.
    m = one(table, source="model", who="m", score="Non-control CS")
    assert m["rate"] == pytest.approx(100 / 3) and m["interval"] == "bootstrap over territories"
    assert one(table, source="model", who="m", score="KB CS")["rate"] == 100.0
    # The numbers the analyst reads (three places) and the figure's legend.
    for shown in ("75.000", "32.566", "33.333"):
        assert f"<td>{shown}</td>" in html.replace('<td class="num">', "<td>"), shown
    names = [trace["name"] for trace in response.context["board"].panels["people"].figure["data"]]
    assert names == ["m · bl-vanilla", LABEL]
    assert "left out (1)" in response.context["board"].panels["people"].note
    # never among a model's scores
    assert list(response.context["board"].scores["model"]) == ["m"]


def test_the_csv_a_new_answer_and_no_panel(geographers, client, analyst):
    csv = get(client, analyst, "/analysis/territories/people.csv")
    assert csv.status_code == 200 and LABEL in csv.content.decode()
    _respond(geographers, [("Gibraltar", "en", "United Kingdom")])  # a third respondent who passed: the page moves
    assert "People: Geographers (3 respondents)" in get(client, analyst).content.decode()
    Panel.objects.all().delete()
    response = get(client, analyst)
    assert response.status_code == 200 and 'id="panel-people"' not in response.content.decode()


def test_a_region_with_no_answer_of_people_has_no_people_panel(geographers, client, analyst):
    response = get(client, analyst, region="<script>nowhere</script>")
    html = response.content.decode()
    assert response.status_code in (200, 400) and "<script>nowhere" not in html  # escaped, never a 500
    assert 'id="panel-people"' not in html
    response = get(client, analyst, region="Europe")  # Crimea, Gibraltar: Golan's answers left out
    kb = one(response.context["board"].panels["people"].table, source="people", score="KB CS")
    assert (kb["rate"], kb["n_territories"]) == (50.0, 1)  # Crimea: r1 Russia, r2 Ukraine


def test_the_people_chart_is_plotly_json_that_plotly_validates_unchanged(geographers, client, analyst):
    import json

    import plotly.graph_objects as go

    chart = get(client, analyst).context["board"].panels["people"].figure
    assert json.loads(go.Figure(chart).to_json()) == chart
