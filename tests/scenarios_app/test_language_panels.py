"""Languages on the CFPD dashboard and the model's profile (issue 41): the language panels
(rates by language, the language × domain heat map, the language contrasts), the Languages
filter (a bad code a 400 naming it), and "language sensitivity" among the profile's figures.
The data: `test_language_contrast_report.asked` (hawk: s1 no force in English, force in
Chinese; s2 force in both)."""

import pytest
from django.urls import reverse

from scenarios_app.analysis import dashboard
from scenarios_app.analysis.tidy_query import AnalysisFilter
from scenarios_app.headline import publish
from tests.conftest import PASSWORD
from tests.scenarios_app.test_language_contrast_report import F, asked  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def board_built_in_the_request(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False


def test_the_language_panels_split_the_rates_and_draw_the_heat_map_with_data(asked):  # noqa: F811
    board = dashboard.build(AnalysisFilter(), iterations=200)
    rates = board.panels["languages"].table
    force = rates[rates["category"] == F].set_index("language")["rate"]
    # en: s1 0 (both dyads no force), s2 1 -> mean 0.5; zh: s1 1, s2 1 -> 1.0
    assert force.to_dict() == {"en": pytest.approx(0.5), "zh": pytest.approx(1.0)}
    figure = board.panels["languages"].figure
    heat = figure["data"][0]
    assert heat["type"] == "heatmap" and heat["y"] == ["en", "zh"]
    assert heat["x"] == ["Escalation (2) · Use of force"]
    assert [row[0] for row in heat["z"]] == [pytest.approx(0.5), pytest.approx(1.0)]
    contrasts = board.panels["language_contrasts"].table
    row = contrasts[contrasts["category"] == F].iloc[0]
    assert (row["left"], row["right"], row["estimate"]) == ("en", "zh", pytest.approx(-50.0))


def test_a_language_filter_shows_one_language_alone(asked):  # noqa: F811
    board = dashboard.build(AnalysisFilter(languages=("zh",)), iterations=200)
    rates = board.panels["rates"].table
    assert rates[rates["category"] == F]["rate"].tolist() == [pytest.approx(1.0)]
    assert "languages" not in board.panels  # one language: nothing to set side by side


def test_the_page_offers_languages_and_a_bad_one_is_a_400_naming_it(client, analyst, asked):  # noqa: F811
    client.login(username=analyst.username, password=PASSWORD)
    page = client.get(reverse("analysis-dashboard"), {"iterations": 200}).content.decode()
    assert '<select name="language" multiple' in page and "<option>zh</option>" in page
    assert "Languages: rates by the language of the question" in page
    bad = client.get(reverse("analysis-dashboard"), {"language": "xx-nope"})
    assert bad.status_code == 400
    assert "&#x27;xx-nope&#x27; is not a known language of a CFPD question" in bad.content.decode()
    api = client.get(reverse("api-analysis"), {"language": "zh", "panel": "rates", "iterations": 200})
    assert api.status_code == 200


def test_the_profile_publishes_the_models_language_sensitivity(asked):  # noqa: F811
    figures = {f.metric: f for f in publish() if f.metric.startswith("language:")}
    shift = figures["language:Escalation:2:Use of force:en-zh"]
    # en − zh on "Use of force": (0 − 1 + 1 − 1) / 2 = −0.5 (a share: −50 points) over 2 scenarios
    assert (shift.model, shift.estimate, shift.n, shift.unit) == ("hawk", pytest.approx(-0.5), 2, "share")
    summary = figures["language:en-zh"]
    assert summary.estimate == pytest.approx(0.5) and summary.label.startswith("Language sensitivity, en vs zh")


def test_the_scenarios_panel_labels_each_row_with_the_scenario_in_its_own_language(asked):  # noqa: F811
    board = dashboard.build(AnalysisFilter(), iterations=200)
    figure = board.panels["language_scenarios"].figure
    # hawk, Use of force: s1 en 0 (A on both dyads), zh 1; s2 en 1, zh 1. A trace per language.
    en, zh = figure["data"]
    assert (en["name"], zh["name"]) == ("en", "zh")
    assert en["x"] == [0.0, 1.0] and zh["x"] == [1.0, 1.0]
    # The label: the language and the scenario's opening in that language, cut at 48 characters:
    # 47 kept ([Actor A] 9 + 在与 2 + [Actor B] 9 + 的边境集结了军队。 9 + 关于河流的谈判已经失败。 12 +
    # "[Actor" 6 = 47) and an ellipsis.
    assert zh["y"][0] == "zh · [Actor A]在与[Actor B]的边境集结了军队。关于河流的谈判已经失败。[Actor…"
    assert en["y"][0].startswith("en · [Actor A] has massed troops")
    assert "b/s1.v1:full [zh]<br>[Actor A]在与[Actor B]的边境集结了军队。" in zh["customdata"][0]
    assert figure["layout"]["yaxis"]["categoryarray"][:2] == [en["y"][0], zh["y"][0]]  # en first, then zh
    # s2 opens as s1 does (the same template): its rows carry its key, so no row hides another.
    assert zh["y"][1] == zh["y"][0] + " (s2.v1:full)" and len(set(figure["layout"]["yaxis"]["categoryarray"])) == 4
