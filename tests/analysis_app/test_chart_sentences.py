"""The charts a person reads at a glance (issue 26, part 7): a chart with nothing to show
is no chart and a sentence; error bars stay within 0-100 %; the map marks territories
themselves. Pure figure functions, no database."""

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenarios_app.analysis import dashboard
from crisis_app import dashboard as crisis
from crisis_app.report import BAND_COLUMNS, CURVE_COLUMNS
from territories_app import dashboard as territories
from territories_app.locations import SAMPLE_LOCATIONS, location

COLOURS = {"a": "#000000", "b": "#111111"}


def refusals(rates, answers=(10, 10), refused=(0, 0)):
    return pd.DataFrame({"model": ["a", "b"], "domain": ["escalation", "escalation"], "answer": list(answers),
                         "refusal": list(refused), "refusal_rate": list(rates)})


def test_no_refusal_is_a_sentence_not_bars_at_zero():
    table = refusals([0.0, 0.0], answers=(12, 8))
    assert dashboard.refusal_figure(table, "domain", "t", COLOURS) is None
    # 12 + 8 answers, no refusal: 20 coded answers
    assert dashboard.no_refusals_note(table) == (" No chart: no model refused any of 20 coded answers in this filter "
                                                 "(every refusal rate is 0 %); the table has the counts.")


def test_one_refusal_draws_the_chart_and_no_sentence():
    table = refusals([0.0, 0.1], answers=(10, 9), refused=(0, 1))
    figure = dashboard.refusal_figure(table, "domain", "t", COLOURS)
    assert [trace["y"] for trace in figure["data"]] == [[0.0], [0.1]]
    assert dashboard.no_refusals_note(table) == ""


def test_the_sd_bar_stops_at_0_and_100_percent():
    table = pd.DataFrame({"model": ["a"] * 3, "domain": ["d"] * 3, "choice_count": [2] * 3,
                          "category": ["x", "y", "z"], "mean": [0.9, 0.1, 0.5], "sd": [0.3, 0.3, 0.2],
                          "n_repeats": [3] * 3})
    [trace] = dashboard.repeats_figure(table, COLOURS)["data"]
    # up: min(sd, 1 - mean) = 0.1, 0.3, 0.2; down: min(sd, mean) = 0.3, 0.1, 0.2
    assert trace["error_y"]["array"] == pytest.approx([0.1, 0.3, 0.2])
    assert trace["error_y"]["arrayminus"] == pytest.approx([0.3, 0.1, 0.2])


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 2)), min_size=1, max_size=8))
def test_mean_plus_or_minus_sd_never_leaves_0_to_1(rows):
    table = pd.DataFrame({"model": "a", "domain": "d", "choice_count": 2,
                          "category": [f"c{i}" for i in range(len(rows))], "mean": [m for m, _ in rows],
                          "sd": [s for _, s in rows], "n_repeats": 2})
    [trace] = dashboard.repeats_figure(table, COLOURS)["data"]
    for mean, up, down in zip(trace["y"], trace["error_y"]["array"], trace["error_y"]["arrayminus"]):
        assert -1e-12 <= mean - down and mean + up <= 1 + 1e-12 and up >= 0 and down >= 0


def test_differences_are_solid_dots_and_the_significant_ones_stand_out():
    table = pd.DataFrame({"model_a": "a", "model_b": "b", "domain": "escalation", "choice_count": 2,
                          "category": ["Use of force", "Restraint"], "diff": [0.2, -0.05],
                          "ci_low": [0.1, -0.15], "ci_high": [0.3, 0.05], "significant": [True, False],
                          "p_adjusted": [0.01, 0.6]})
    [trace] = dashboard.differences_figure(table)["data"]
    assert trace["marker"]["symbol"] == "circle"  # never open circles
    assert trace["marker"]["size"] == [13, 10] and trace["marker"]["opacity"] == [1.0, 0.6]
    assert trace["text"] == ["★", ""]
    assert trace["x"] == [0.2, -0.05] and trace["y"] == ["escalation (2) · Use of force", "escalation (2) · Restraint"]


def test_codified_actions_are_horizontal_bars_with_their_rates_printed():
    table = pd.DataFrame({"model": ["a", "a"], "domain": ["escalation"] * 2, "choice_count": [2, 2],
                          "action": ["Naval blockade", "Air strikes"], "category": ["Use of force"] * 2,
                          "rate": [0.0, 0.75]})
    [trace] = dashboard.actions_figure(table, "", COLOURS)["data"]
    assert trace["orientation"] == "h" and trace["x"] == [0.0, 0.75]
    assert trace["text"] == ["0%", "75%"] and trace["textposition"] == "outside"  # 0 % reads as 0 %


def test_the_curve_says_why_it_has_no_ablation_band():
    curve = pd.DataFrame([{"model": "m", "scorer": "s", "temperature": 0.7, "groups": 2, "runs": 1, "mean": 0.3,
                           "sd": None, "ci_low": 0.2, "ci_high": 0.4}], columns=CURVE_COLUMNS)
    panel = crisis.curve_panel(curve, pd.DataFrame(columns=BAND_COLUMNS))
    assert panel.figure["layout"]["title"]["text"] == "Temperature curve (level 0): no ablation band in this filter"
    assert "No level-1 or level-2 band here: no scored group of those variants is in this filter" in panel.note
    bands = pd.DataFrame([{"model": "m", "scorer": "s", "level": 1, "variants": "paraphrase", "temperatures": "0.7",
                           "groups": 1, "runs": 1, "mean": 0.2, "sd": None, "ci_low": 0.1, "ci_high": 0.3}],
                         columns=BAND_COLUMNS)
    panel = crisis.curve_panel(curve, bands)
    assert panel.figure["layout"]["title"]["text"] == "Temperature curve (level 0) against the level-1 ablations"
    assert "No level-2 band here" in panel.note and "levels 0 and 1" in panel.note


def scores(control, non_control):
    row = {"model": "m", "strategy": "bl-vanilla", "random_control_cs": 50.0}
    for name, value in (("control_cs", control), ("non_control_cs", non_control)):
        row.update({name: value, f"{name}_ci_low": value, f"{name}_ci_high": value})
    return pd.DataFrame([row])


def test_control_chart_under_unknown_is_a_sentence():
    panel = territories.control_panel(scores(math.nan, math.nan))
    assert panel.figure is None and "No chart: no territory in this filter has a known controller" in panel.note
    assert territories.control_panel(scores(80.0, 40.0)).figure is not None


def test_the_map_marks_each_territory_where_it_is():
    frame = pd.DataFrame([
        {"territory": "Scarborough Shoal", "controller": "People's Republic of China",
         "location": location("Scarborough Shoal", None, None)},
        {"territory": "Abyei", "controller": None, "location": location("Abyei", None, None)},
        {"territory": "Nowhere Atoll", "controller": "X", "location": None}])
    cases = pd.DataFrame([
        {"territory": "Scarborough Shoal", "controller": "People's Republic of China", "status": "answered",
         "role": "non-controller", "names_controller": flag} for flag in (True, True, False, True)])
    panel = territories.map_panel(cases, frame)
    unscored, scored = panel.figure["data"]
    # 3 of the 4 non-control answers name the controller: 75 %
    assert scored["text"] == ["Scarborough Shoal"] and scored["marker"]["color"] == [75.0]
    assert (scored["lat"], scored["lon"]) == ([15.15], [117.76])
    assert unscored["text"] == ["Abyei"]
    assert panel.note.endswith("Not on the map, no coordinates known (set them in the admin): Nowhere Atoll.")


def test_a_territorys_own_coordinates_win_and_every_sample_location_is_on_earth():
    assert location("Crimea", 45.0, 34.0) == (45.0, 34.0)
    assert location("Crimea", None, None) == SAMPLE_LOCATIONS["Crimea"]
    assert location("Atlantis", None, None) is None
    for latitude, longitude in SAMPLE_LOCATIONS.values():
        assert -90 <= latitude <= 90 and -180 <= longitude <= 180


def test_every_sample_territory_has_a_location():
    import csv
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines" / "disputed_territories.csv"
    with sample.open(newline="") as handle:
        names = {row["Territory"] for row in csv.DictReader(handle)}
    assert names == set(SAMPLE_LOCATIONS)
