"""Chinese and Arabic in exported figures (issue 41): the PNG that kaleido draws through
Chromium shows the glyphs, not empty boxes. Without a font for a script every character is
drawn as the same .notdef box, so a title in Chinese (or Arabic) comes out exactly as a
title of as many unassigned code points; with the fonts `scripts/services` installs
(Noto CJK, Arabeyes) the two differ. The SVG keeps the text as text (the reader's fonts
draw it)."""

import pytest

from formats_app.report_drawing import Drawing, chromium_path
from scenarios_app.analysis.language_figures import heatmap_figure

pytestmark = pytest.mark.browser

# Private-use code points: no font on the machine has glyphs for them (so, boxes).
UNASSIGNED = "\ue000\ue001\ue002\ue003\ue004\ue005"


def _titled(title: str) -> dict:
    return {"data": [{"type": "bar", "x": ["a"], "y": [1]}],
            "layout": {"title": {"text": title}, "width": 420, "height": 260, "showlegend": False}}


@pytest.mark.parametrize("text", ["中国与俄罗斯", "روسيا وكوبا"], ids=["chinese", "arabic"])
def test_chinese_and_arabic_are_drawn_not_boxed_in_png_figures(text):
    if chromium_path() is None:
        pytest.skip("no Chromium to draw with")
    with Drawing() as draw:
        written = draw(_titled(text[:6]), "png")
        boxes = draw(_titled(UNASSIGNED[:len(text[:6])]), "png")
        svg = draw(_titled(text), "svg").decode()
    assert written != boxes, f"{text!r} is drawn as empty boxes: install fonts-noto-cjk / fonts-arabeyes"
    assert text in svg


def test_a_language_heat_map_with_chinese_labels_draws_to_png(tmp_path):
    import pandas as pd

    rates = pd.DataFrame({"model": ["hawk"] * 3, "domain": ["Escalation"] * 3, "choice_count": [2] * 3,
                          "language": ["en", "zh", "ar"], "category": ["Use of force"] * 3, "rate": [0.5, 1.0, 0.25],
                          "n_scenarios": [2] * 3, "n_answers": [4] * 3})
    figure = heatmap_figure(rates, {"Escalation": "Use of force"}, "hawk")
    figure["layout"]["title"]["text"] = "hawk：使用武力 · استخدام القوة"
    with Drawing() as draw:
        png = draw(figure, "png")
    assert png.startswith(b"\x89PNG")
    (tmp_path / "heatmap.png").write_bytes(png)
