"""Krippendorff's α among a panel's respondents beside its ceiling: on the panel's page and on
Models and people (the case of test_reference_report.py, α computed by hand)."""

import re

import pytest

from panels_app.models import Panel
from tests.panels_app.test_reference_report import case  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db

# Public's two respondents: q0 A A, q1 A B, q2 B B, q3 C C. Each question two values (weight
# 1 / (2 − 1) = 1): ordered pairs AA 2, AB 1, BA 1, BB 2, CC 2; n_A = 3, n_B = 3, n_C = 2, n = 8.
# D_o = 2/8 = 0.25; D_e = 2·(3·3 + 3·2 + 3·2) / (8·7) = 42/56 = 0.75; α = 1 − 0.25/0.75 = 0.667
PUBLIC_ALPHA = "0.667"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_panels_page_shows_alpha_beside_the_ceiling(case, client, analyst):  # noqa: F811
    client.force_login(analyst)
    public = Panel.objects.get(name="Public")
    text = _text(client.get(f"/panels/{public.pk}/").content.decode())
    assert "The panel's own ceiling (halves of its respondents): 0.750" in text
    assert f"Krippendorff's α among its respondents (nominal; questions the units): {PUBLIC_ALPHA}" in text
    scholars = Panel.objects.get(name="Scholars")  # shares: nobody to agree or disagree
    assert re.search(r'id="panel-alpha">—<', client.get(f"/panels/{scholars.pk}/").content.decode())


def test_models_and_people_shows_alpha_beside_the_ceiling(case, client, analyst):  # noqa: F811
    client.force_login(analyst)
    text = _text(client.get("/panels/models-and-people/", {"benchmark": "people"}).content.decode())
    assert f"Public (published reference): ceiling 0.750 ; Krippendorff's α among its respondents {PUBLIC_ALPHA}" in text
    assert "names no respondents) ; Krippendorff's α among its respondents —" in text
