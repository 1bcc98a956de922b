"""The paired contrasts on the territorial-disputes page (issue 29): the panel's figures by hand,
the forest plot's rows, its CSV and the API's field, the correction picked, and "No chart".

The answers of tests/territories_app/test_borderlines_report.py (model m) and a second model n on
the same strategy and run:

    territory   controller  m: control, non-control -> d    n: control, non-control -> d   KB m, n
    Crimea      Russia      ru Russia 1, uk Ukraine 0 -> 1   ru Russia 1, uk Russia 1 -> 0  1, 1
    Golan       Israel      he Israel 1, ar Israel 1 -> 0    he Israel 1, ar Syria 0 -> 1   1, 1
    Gibraltar   UK          en UK 1, es Spain 0 -> 1         en Spain 0, es Spain 0 -> 0    1, 0
    Falklands   UK          es unresolved: no pair           not asked                      1, -
"""

import csv
import io

import pytest

from runs_app.models import LLMModel, Run
from tests.conftest import PASSWORD
from tests.territories_app.test_borderlines_report import answer, answered, borderlines  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

N_ANSWERS = [("Crimea", "en", "Russia"), ("Crimea", "ru", "Russia"), ("Crimea", "uk", "Russia"),
             ("Golan Heights", "en", "Israel"), ("Golan Heights", "ar", "Syria"), ("Golan Heights", "he", "Israel"),
             ("Gibraltar", "en", "Spain"), ("Gibraltar", "es", "Spain")]


@pytest.fixture
def two_models(answered):  # noqa: F811
    model = LLMModel.objects.create(name="n", litellm_model="openai/n")
    run = Run.objects.get()
    for territory, language, claimant in N_ANSWERS:
        answer(run, model, territory, language, claimant)


def get(client, user, path="/analysis/territories/", **query):
    client.login(username=user.username, password=PASSWORD)
    return client.get(path, {"iterations": 200, **query})


def one(table, **keys):
    for column, value in keys.items():
        table = table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


def test_the_contrasts_panel_by_hand(two_models, client, analyst):
    response = get(client, analyst)
    assert response.status_code == 200 and 'id="panel-contrasts"' in response.content.decode()
    panel = response.context["board"].panels["contrasts"]
    table = panel.table
    m = one(table, kind="control", model="m")
    # d = 100, 0, 100 points: 66.67; non-zero 100, 100 -> exact p = 2 of 4 patterns = 0.5
    assert (m["estimate"], m["p_value"], m["n_territories"]) == (66.667, 0.5, 3)
    n = one(table, kind="control", model="n")
    # d = 0, 100, 0: 33.33; one non-zero -> p = 1
    assert (n["estimate"], n["p_value"]) == (33.333, 1.0)
    gap = one(table, kind="model", measure="gap")
    # m − n per territory: 100, −100, 100 -> 33.33; all 8 patterns reach |100| -> p = 1
    assert (gap["left"], gap["right"], gap["estimate"], gap["p_value"]) == ("m", "n", 33.333, 1.0)
    kb = one(table, kind="model", measure="kb")
    # KB m − n on the territories both asked in English: 0, 0, 100 -> 33.33 (the Falklands n did not answer)
    assert (kb["estimate"], kb["n_territories"]) == (33.333, 3)
    # BH over p = 0.5, 1, 1, 1: 0.5 * 4 / 1 = 2 -> 1; none significant
    assert table["p_adjusted"].tolist() == [1.0] * 4 and not table["significant"].any()
    drawn = panel.figure["data"][0]
    assert sorted(drawn["y"]) == sorted(["m · bl-vanilla · Control − Non-control",
                                         "n · bl-vanilla · Control − Non-control",
                                         "m − n · bl-vanilla · Control − Non-control", "m − n · bl-vanilla · KB CS"])
    assert panel.figure["layout"]["shapes"][0]["x0"] == 0  # zero marked
    for named in ("cluster bootstrap over territories", "Miller 2024", "Benjamini–Hochberg", "sign-flip"):
        assert named in panel.note
    assert "No chart" not in panel.note


def test_holm_is_an_option_and_a_bad_correction_is_a_400(two_models, client, analyst):
    response = get(client, analyst, adjust="holm")
    panel = response.context["board"].panels["contrasts"]
    assert "Holm (family-wise error)" in panel.note and "Benjamini" not in panel.note
    bad = get(client, analyst, adjust="bonferroni")
    assert bad.status_code == 400 and "adjust must be bh (Benjamini–Hochberg) or holm, not &#x27;bonferroni&#x27; " \
        "(the Correction box)" in bad.content.decode()
    assert get(client, analyst, "/api/analysis/territories/", adjust="x").status_code == 400


def test_the_csv_and_the_api_field(two_models, client, analyst):
    rows = list(csv.DictReader(io.StringIO(get(client, analyst, "/analysis/territories/contrasts.csv")
                                           .content.decode())))
    assert len(rows) == 4 and {"kind", "measure", "model", "strategy", "left", "right", "estimate", "ci_low", "ci_high",
                                "se_clustered", "p_value", "p_method", "p_adjusted", "significant",
                                "n_territories"} <= set(rows[0])
    m = next(r for r in rows if r["kind"] == "control" and r["model"] == "m")
    assert float(m["estimate"]) == pytest.approx(200 / 3) and m["p_method"] == "exact sign-flip (4 patterns)"
    data = get(client, analyst, "/api/analysis/territories/").json()
    assert {round(r["estimate"], 3) for r in data["contrasts"]} == {66.667, 33.333}
    assert "cluster bootstrap over territories" in data["contrasts_method"]


def test_no_chart_when_no_territory_has_a_controller(two_models, client, analyst):
    # The Unknown filter keeps Western Sahara and Abyei: no Control answer; m and n share no territory there.
    panel = get(client, analyst, unknown="1").context["board"].panels["contrasts"]
    assert panel.figure is None and panel.table.empty
    assert "No chart: no territory in this filter has a known controller with both a Control answer" in panel.note


def test_no_chart_when_every_contrast_rests_on_one_territory(two_models, client, analyst):
    # Crimea alone (the claimant filter): one territory per contrast, no interval to draw.
    panel = get(client, analyst, claimant="Ukraine").context["board"].panels["contrasts"]
    assert not panel.table.empty and panel.figure is None
    assert "No chart: every contrast in this filter rests on one territory" in panel.note
    assert "can be significant" not in panel.note  # no interval: nothing said of one


def test_borderlines_report_writes_the_contrasts(two_models, tmp_path):
    from django.core.management import call_command

    out, paired = tmp_path / "scores.csv", tmp_path / "contrasts.csv"
    call_command("borderlines_report", "--out", str(out), "--iterations", "200", "--contrasts", str(paired),
                 stdout=io.StringIO(), stderr=io.StringIO())
    rows = list(csv.DictReader(paired.open(encoding="utf-8")))
    assert [(r["kind"], r["measure"], r["model"], r["left"], r["right"]) for r in rows] == [
        ("control", "gap", "m", "Control", "Non-control"), ("control", "gap", "n", "Control", "Non-control"),
        ("model", "gap", "", "m", "n"), ("model", "kb", "", "m", "n")]
    # m: 66.67 points, exact p 0.5 (the panel's figures)
    assert (float(rows[0]["estimate"]), float(rows[0]["p_value"])) == (pytest.approx(200 / 3, abs=1e-6), 0.5)
