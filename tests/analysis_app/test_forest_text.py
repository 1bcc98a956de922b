"""The forest plot's texts fit the figure (issue 38: its title was cut at the right edge,
"… ★ dark: significant after"): the title wrapped at spaces, the key under the plot."""

import json

import pandas as pd
import plotly.graph_objects as go

from analysis_app import forest
from analysis_app.chart_text import wrapped

CFPD_TITLE = "Contrasts (left − right, points), 95% cluster-bootstrap intervals, over 2+ scenarios"


def test_wrapped_breaks_at_spaces_and_keeps_the_breaks_it_has():
    assert wrapped("one two three", 7) == "one two<br>three"
    assert wrapped("short<br>a b c d", 3) == "short<br>a b<br>c d"  # "short" over 3 stays whole
    assert wrapped("left − right", 100) == "left − right"
    assert wrapped("", 10) == ""


def table(rows=3):
    return pd.DataFrame({
        "label": [f"US − CN · model-{i} · escalation" for i in range(rows)], "estimate": [4.0, -2.0, 1.0][:rows],
        "ci_low": [1.0, -6.0, -1.0][:rows], "ci_high": [7.0, 2.0, 3.0][:rows], "p_value": [0.01, 0.3, 0.5][:rows],
        "p_adjusted": [0.03, 0.45, 0.5][:rows], "significant": [True, False, False][:rows],
        "n_scenarios": [6, 6, 6][:rows]})


def figure():
    return forest.forest_figure(table(), CFPD_TITLE, "← right higher · left higher → (points)", "n_scenarios",
                                "scenarios", correction="Benjamini–Hochberg")


def test_the_title_is_wrapped_and_makes_its_own_room():
    title = figure()["layout"]["title"]
    assert all(len(line) <= forest.TITLE_CHARS for line in title["text"].split("<br>"))
    assert title["text"].replace("<br>", " ") == CFPD_TITLE
    assert title["automargin"] is True and (title["yref"], title["yanchor"]) == ("container", "top")


def test_the_key_is_a_subtitle_under_the_title():
    title = figure()["layout"]["title"]
    lines = title["subtitle"]["text"].split("<br>")
    assert " ".join(lines) == "★ dark: significant after Benjamini–Hochberg · all 3 with an interval drawn"
    assert all(len(line) <= forest.KEY_CHARS for line in lines)
    assert "significant" not in title["text"]
    assert figure()["layout"]["xaxis"]["title"]["text"] == "← right higher · left higher → (points)"


def test_plotly_validates_the_figure_unchanged():
    chart = figure()
    assert json.loads(go.Figure(chart).to_json()) == chart
