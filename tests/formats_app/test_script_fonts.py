"""Chinese and Arabic in exported figures (issue 41): the PNG that kaleido draws through
Chromium shows the glyphs, not empty boxes. Without a font for a script every character is
drawn as the same .notdef box, so a title in Chinese (or Arabic) comes out exactly as a
title of as many unassigned code points; with the fonts `scripts/services` installs
(Noto CJK, Arabeyes) the two differ. The SVG keeps the text as text (the reader's fonts
draw it)."""

import json
import os

import pytest

from formats_app.report_drawing import Drawing, chromium_path
from scenarios_app.analysis.language_figures import heatmap_figure

pytestmark = pytest.mark.browser

# Private-use code points: no font on the machine has glyphs for them (so, boxes).
UNASSIGNED = "\ue000\ue001\ue002\ue003\ue004\ue005"


@pytest.fixture(scope="module")
def draw():
    """One kaleido Chromium for the module's figures (a start is seconds on 2 cores; each
    figure is drawn afresh, so no test sees another's)."""
    if chromium_path() is None and os.environ.get("CI") != "true":  # in CI: Drawing's error, a failure
        pytest.skip("no Chromium to draw with")
    with Drawing() as drawing:
        yield drawing


def _titled(title: str) -> dict:
    return {"data": [{"type": "bar", "x": ["a"], "y": [1]}],
            "layout": {"title": {"text": title}, "width": 420, "height": 260, "showlegend": False}}


@pytest.mark.parametrize("text", ["中国与俄罗斯", "روسيا وكوبا"], ids=["chinese", "arabic"])
def test_chinese_and_arabic_are_drawn_not_boxed_in_png_figures(text, draw):
    written = draw(_titled(text[:6]), "png")
    boxes = draw(_titled(UNASSIGNED[:len(text[:6])]), "png")
    svg = draw(_titled(text), "svg").decode()
    assert written != boxes, f"{text!r} is drawn as empty boxes: install fonts-noto-cjk / fonts-arabeyes"
    assert text in svg


def test_a_language_heat_map_with_chinese_labels_draws_to_png(tmp_path, draw):
    import pandas as pd

    rates = pd.DataFrame({"model": ["hawk"] * 3, "domain": ["Escalation"] * 3, "choice_count": [2] * 3,
                          "language": ["en", "zh", "ar"], "category": ["Use of force"] * 3, "rate": [0.5, 1.0, 0.25],
                          "n_scenarios": [2] * 3, "n_answers": [4] * 3})
    figure = heatmap_figure(rates, {"Escalation": "Use of force"}, "hawk")
    figure["layout"]["title"]["text"] = "hawk：使用武力 · استخدام القوة"
    png = draw(figure, "png")
    assert png.startswith(b"\x89PNG")
    (tmp_path / "heatmap.png").write_bytes(png)


ZH_TEXT = "[Actor A]在与[Actor B]的边境集结了军队。[Actor A]应如何回应？"
AR_TEXT = "حشد [Actor A] قواته على الحدود مع [Actor B]. كيف ينبغي أن يرد [Actor A]؟"


def test_a_scenario_asked_in_chinese_and_arabic_is_labelled_in_its_own_words_in_the_exported_figure(draw):
    """The dashboard's *Languages by scenario* figure (exported with the report's figures):
    each row labelled with the scenario's opening in the row's language, drawn, not boxed."""
    import pandas as pd

    from scenarios_app.analysis.language_figures import scenario_language_figure

    per_scenario = pd.DataFrame({
        "model": ["hawk"] * 3, "domain": ["Escalation"] * 3, "choice_count": [2] * 3,
        "scenario": ["b/s1.v1:full"] * 3, "language": ["zh", "en", "ar"], "category": ["Use of force"] * 3,
        "count": [2, 0, 1], "answers": [2, 2, 2], "rate": [1.0, 0.0, 0.5]})
    texts = {("b/s1.v1", "en"): "[Actor A] has massed troops on the border with [Actor B].",
             ("b/s1.v1", "zh"): ZH_TEXT, ("b/s1.v1", "ar"): AR_TEXT}
    figure = scenario_language_figure(per_scenario, {"Escalation": "Use of force"}, "hawk", texts)
    # The source first, then the others in order: en, ar, zh; each label the language and the text's opening.
    assert [trace["name"] for trace in figure["data"]] == ["en", "ar", "zh"]
    labels = [trace["y"][0] for trace in figure["data"]]
    # 47 characters kept: "حشد " 4 + "[Actor A]" 9 + " قواته" 6 + " على" 4 + " الحدود" 7 + " مع" 3
    # + " [Actor B]." 11 + " كي" 3 = 47, then an ellipsis.
    # Right to left: isolated (RLI … PDI), so that it reads as one run after "ar · ".
    assert labels[1] == "ar · \u2067حشد [Actor A] قواته على الحدود مع [Actor B]. كي…\u2069"
    assert labels[2] == "zh · " + ZH_TEXT  # 44 characters: not cut
    svg = draw(figure, "svg").decode()
    png = draw(figure, "png")
    # The same figure with the Chinese and Arabic letters swapped for unassigned code
    # points (boxes wherever no font has them): a PNG differing from it drew the letters.
    boxed = json.loads(json.dumps(figure))
    for trace in boxed["data"]:
        trace["y"] = [_boxed(label) for label in trace["y"]]
    boxes = draw(boxed, "png")
    assert "在与" in svg and "قواته" in svg
    assert png != boxes, "Chinese or Arabic drawn as empty boxes: install fonts-noto-cjk / fonts-arabeyes"


def _boxed(text: str) -> str:
    """Every Chinese or Arabic letter replaced by a private-use code point (one box each)."""
    return "".join("\ue000" if ("\u4e00" <= ch <= "\u9fff" or "\u0600" <= ch <= "\u06ff") else ch for ch in text)
