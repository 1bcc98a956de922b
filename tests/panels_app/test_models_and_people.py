"""The Models and people page: what an analyst must see, equal to the hand-computed figures
(the case of test_reference_report.py), the charts as the dashboards draw them, and why the
page is empty when it is."""

import json
import re

import pytest
from django.urls import reverse

from panels_app.models import Panel
from tests.panels_app.test_reference_report import case  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db

URL = "/panels/models-and-people/"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_page_shows_the_hand_computed_figures(case, client, analyst):  # noqa: F811
    client.force_login(analyst)
    assert reverse("panels_app:models-and-people") == URL
    assert URL in client.get("/panels/").content.decode()  # linked from the Panels list
    answer = client.get(URL, {"benchmark": "people"})
    assert answer.status_code == 200
    html = answer.content.decode()
    text = _text(html)
    # Public: (1 + 0.442077 + 0 + 1) / 4 = 0.610519 → 0.611; ceiling (1 + 0 + 1 + 1) / 4 = 0.750
    assert "Public (published reference): ceiling 0.750" in text
    public = re.search(r'<tr data-model="hawk">(.*?)</tr>', html.split('data-panel="Public"')[1], re.S).group(1)
    assert "0.611" in _text(public) and "4" in _text(public)
    # Scholars, shares: 0.442 over one question; no ceiling, no interval
    scholars = html.split('data-panel="Scholars"')[1]
    assert "0.442" in _text(scholars.split("</table>")[0]) and "names no respondents" in scholars
    assert "— (one scenario)" in _text(scholars.split("</table>")[0])
    # the heat map's table: escalation (1 + 0.442077) / 2 = 0.721, trade (0 + 1) / 2 = 0.500 for Public;
    # Scholars answered q0 (escalation) only: 0.442, trade —
    heat = html.split('id="heat-table-1"')[1].split("</table>")[0]
    assert re.search(r'data-domain="escalation">\s*<td>escalation</td><td class="num">0.721</td><td class="num">0.442',
                     heat)
    assert re.search(r'data-domain="trade">\s*<td>trade</td><td class="num">0.500</td><td class="num">—', heat)
    # the most disagreeing question of hawk and Public is q2: hawk A 100 %, the people B 100 %
    rows = re.findall(r'<tr data-question="people-q2" data-pair="hawk\|Public">(.*?)</tr>', html, re.S)
    assert "0.000" in _text(rows[0])
    assert [(m, p) for m, p in re.findall(r'data-side="model">(\d+)%</td><td class="num" data-side="panel">(\d+)%',
                                          "".join(rows))] == [("100", "0"), ("0", "100")]
    # the charts are plotly JSON drawn by dashboard.js, the ceiling a dashed line at 0.75
    figure = json.loads(re.search(r'<script id="ranking-1" type="application/json">(.*?)</script>', html, re.S)
                        .group(1))
    assert figure["layout"]["shapes"][0]["x0"] == pytest.approx(0.75)
    assert figure["data"][0]["x"] == [pytest.approx(0.610519, abs=1e-6)]
    heat_figure = json.loads(re.search(r'<script id="heat-1" type="application/json">(.*?)</script>', html, re.S)
                             .group(1))
    assert heat_figure["data"][0]["type"] == "heatmap" and heat_figure["data"][0]["y"] == ["escalation", "trade"]
    assert "js/dashboard.js" in html and "plotly/plotly.min.js" in html


def test_an_empty_page_says_why_and_a_bad_benchmark_is_400(client, analyst, outsider):
    client.force_login(analyst)
    assert "No panel yet" in _text(client.get(URL).content.decode())
    answer = client.get(URL, {"benchmark": "nope"})
    assert answer.status_code == 400 and "no benchmark named &#x27;nope&#x27;" in answer.content.decode()
    from tests.panels_app.support import make_benchmark, make_panel
    make_panel(make_benchmark()[0])
    assert "No model has coded answers to the questions of people" in _text(client.get(URL).content.decode())
    assert Panel.objects.count() == 1
    client.force_login(outsider)
    assert client.get(URL).status_code == 403
