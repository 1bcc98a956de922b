"""analysis_app.profile_charts: a family's figures from several rows of one model name
their row; the comparison's dots follow the compared models' order, whoever's row a
figure comes from."""

from types import SimpleNamespace

from analysis_app.profile_charts import comparison_chart, profile_chart
from analysis_app.results import Figure, difference


def figure(model, estimate, condition=""):
    return Figure(benchmark="b", family="f", model=model, metric="m", label="M", estimate=estimate,
                  ci_low=estimate - 0.1, ci_high=estimate + 0.1, condition=condition)


def test_a_profile_chart_names_each_figures_row_when_there_are_several():
    rows = [SimpleNamespace(figure=figure("smol", 0.5), others=[("gemma", 0.4)]),
            SimpleNamespace(figure=figure("smol-text", 0.3), others=[])]
    chart = profile_chart("smol", rows)
    own = chart["data"][-1]
    assert own["y"] == ["M (smol)", "M (smol-text)"] and own["name"] == "smol"
    assert chart["data"][0]["y"] == ["M (smol)"]  # gemma's dot beside smol's own row


def test_a_profile_chart_of_one_row_names_that_row():
    chart = profile_chart("smol", [SimpleNamespace(figure=figure("smol-text", 0.3), others=[])])
    assert chart["data"][-1]["name"] == "smol-text" and chart["data"][-1]["y"] == ["M"]
    assert chart["layout"]["title"]["text"].startswith("smol-text (blue")


def test_the_comparisons_differences_are_placed_by_the_models_order_and_labelled_by_mode():
    # smol's generate row against gemma's and owl's: 0.5 - 0.2 = 0.3 and 0.5 - 0.4 = 0.1.
    a, b, c = figure("smol-text", 0.5), figure("gemma-text", 0.2), figure("owl", 0.4)
    choice = SimpleNamespace(label="M", condition="", benchmark="b", unit="share", kind="choice",
                             differences=[None, None])
    generate = SimpleNamespace(label="M", condition="", benchmark="b", unit="share", kind="generate",
                               differences=[difference(a, b), difference(a, c)])
    chart = comparison_chart(["smol", "gemma", "owl"], [choice, generate])
    assert [t["name"] for t in chart["data"]] == ["smol − gemma", "smol − owl"]
    # Rates' differences are drawn in percentage points, as the comparison's table gives them.
    assert [round(t["x"][0], 6) for t in chart["data"]] == [30.0, 10.0]
    assert chart["data"][0]["y"] == ["M"]  # one mode with a difference drawn: no mode in the label
    assert chart["layout"]["xaxis"]["ticksuffix"] == " pts" and "tickformat" not in chart["layout"]["xaxis"]
    assert chart["layout"]["xaxis"]["title"]["text"].startswith("difference (percentage points")


def test_a_comparison_of_scores_keeps_their_scale():
    a, b = figure("smol", 0.5), figure("gemma", 0.2)
    row = SimpleNamespace(label="M", condition="", benchmark="b", unit="score", kind="generate",
                          differences=[difference(a, b)])
    chart = comparison_chart(["smol", "gemma"], [row])
    assert round(chart["data"][0]["x"][0], 6) == 0.3 and chart["layout"]["xaxis"]["ticksuffix"] == ""
