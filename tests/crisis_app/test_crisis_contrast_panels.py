"""The paired inconsistency contrasts on the crisis page (issue 29): the panel by hand, the
forest plot's rows, its CSV, the API's field, Holm on request, and "No chart".

On the groups of tests/crisis_app/test_crisis_dashboard.py (scorer bertscore-minilm), each
question's value the mean over runs of each run's mean:

    model-a T=0.2: explicit m1 (0.2 + 0.4) / 2 = 0.3, anonymised m1 0.3, explicit m2 0.35
    model-a T=1.0: explicit m1 0.6
    model-b T=0.2: explicit m1 0.5 (run E, imported from the revisionist folder, is another
                   question: its continuation is revisionist)

alone every contrast rests on one question (explicit m1): no interval, no chart. `more` adds
run G: model-a at T=1.0 anonymised m1 0.7 and explicit m2 0.5; model-b at T=0.2 anonymised
m1 0.2 and explicit m2 0.3.
"""

import csv
import io

import pytest

from crisis_app.models import Scorer
from runs_app.models import LLMModel, Run
from tests.crisis_app.test_crisis_dashboard import make_scores, scored_group

pytestmark = pytest.mark.django_db


@pytest.fixture
def analyst_client(client, analyst):
    client.force_login(analyst)
    return client


def add_run_g(made):
    """The groups of run G (module docstring) beside make_scores' groups."""
    bert = Scorer.objects.get(name="bertscore-minilm")
    a, b = LLMModel.objects.get(name="model-a"), LLMModel.objects.get(name="model-b")
    run = Run.objects.create(benchmark=made["benchmark"], status="done", note="run G", repeats=3)
    scored_group(run, a, "anonymised", 1.0, [0.6, 0.7, 0.8], scorer=bert)
    scored_group(run, a, "explicit", 1.0, [0.4, 0.5, 0.6], move=2, continuation="status_quo", scorer=bert)
    scored_group(run, b, "anonymised", 0.2, [0.2, 0.2, 0.2], scorer=bert)
    scored_group(run, b, "explicit", 0.2, [0.3, 0.3, 0.3], move=2, continuation="status_quo", scorer=bert)
    return made


@pytest.fixture
def more(db):
    return add_run_g(make_scores())


def one(table, **keys):
    for column, value in keys.items():
        table = table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


def test_the_contrasts_panel_by_hand(more, analyst_client):
    response = analyst_client.get("/analysis/crisis/?iterations=500")
    assert 'id="panel-contrasts"' in response.content.decode()
    panel = response.context["board"].panels["contrasts"]
    table = panel.table
    assert len(table) == 2
    hot = one(table, kind="temperature")
    # T=1 − T=0.2 on explicit m1 0.6 − 0.3, anonymised 0.7 − 0.3, m2 0.5 − 0.35 = 0.3, 0.4, 0.15: mean 0.2833
    assert (hot["model"], hot["left"], hot["right"], hot["cluster"], hot["n_clusters"]) == \
        ("model-a", "T=1", "T=0.2", "question", 3)
    assert hot["estimate"] == pytest.approx(0.2833, abs=1e-4)
    # all three positive: 2 of 8 sign patterns reach 0.85 -> p = 0.25
    assert hot["p_value"] == 0.25
    models = one(table, kind="model")
    # a − b at T=0.2: 0.3 − 0.5, 0.3 − 0.2, 0.35 − 0.3 = −0.2, 0.1, 0.05: mean −0.0167; all 8 patterns
    # (±0.2 ± 0.1 ± 0.05: 0.35, 0.25, 0.15, 0.05 and their negatives) reach |−0.05| -> p = 1
    assert (models["left"], models["right"], models["temperature"]) == ("model-a", "model-b", "0.2")
    assert (models["estimate"], models["p_value"]) == (pytest.approx(-0.05 / 3, abs=1e-4), 1.0)
    # BH over 0.25 and 1: 0.25 * 2 / 1 = 0.5, then 1
    assert table["p_adjusted"].tolist() == [0.5, 1.0] and not table["significant"].any()
    drawn = panel.figure["data"][0]
    assert sorted(drawn["y"]) == ["model-a · T=1 − T=0.2", "model-a − model-b · T=0.2"]
    assert panel.figure["layout"]["shapes"][0]["x0"] == 0
    for named in ("cluster bootstrap", "Miller 2024", "Benjamini–Hochberg", "sign-flip"):
        assert named in panel.note
    assert "No chart" not in panel.note


def test_csv_api_and_holm(more, analyst_client):
    rows = list(csv.DictReader(io.StringIO(analyst_client.get("/analysis/crisis/contrasts.csv?iterations=200")
                                           .content.decode())))
    assert [r["kind"] for r in rows] == ["temperature", "model"]
    assert float(rows[0]["estimate"]) == pytest.approx(0.85 / 3, abs=1e-6) and rows[0]["p_method"] == "exact sign-flip (8 patterns)"
    data = analyst_client.get("/api/analysis/crisis/?iterations=200&adjust=holm").json()
    # Holm: 0.25 * 2 = 0.5, max(1 * 1, 0.5) = 1
    assert [(c["kind"], c["p_adjusted"]) for c in data["contrasts"]] == [("temperature", 0.5), ("model", 1.0)]
    assert "Holm (family-wise error)" in data["contrasts_method"]
    assert analyst_client.get("/api/analysis/crisis/?adjust=none").status_code == 400
    bad = analyst_client.get("/analysis/crisis/?adjust=none")
    assert bad.status_code == 400 and "adjust must be bh" in bad.content.decode()


def test_no_chart_when_every_contrast_rests_on_one_question(analyst_client):
    make_scores()
    panel = analyst_client.get("/analysis/crisis/?iterations=200").context["board"].panels["contrasts"]
    # a: T=1 − T=0.2 on explicit m1 0.6 − 0.3 = 0.3; a − b at T=0.2 on explicit m1 0.3 − 0.5 = −0.2
    assert sorted(panel.table["estimate"].round(4)) == [-0.2, 0.3]
    assert panel.figure is None and "No chart: every contrast in this filter rests on one question" in panel.note


def test_no_chart_with_one_model_at_one_temperature(analyst_client):
    make_scores()
    panel = analyst_client.get("/analysis/crisis/?iterations=200&model=model-b").context["board"].panels["contrasts"]
    assert panel.table.empty and panel.figure is None
    assert "No chart: this filter holds 1 model and 1 temperature (0.2)" in panel.note


def test_inconsistency_report_writes_the_contrasts(more, tmp_path):
    from django.core.management import call_command

    out, paired = tmp_path / "summary.csv", tmp_path / "contrasts.csv"
    call_command("inconsistency_report", "--out", str(out), "--iterations", "300", "--scorer", "bertscore-minilm",
                 "--contrasts", str(paired), "--adjust", "holm", stdout=io.StringIO(), stderr=io.StringIO())
    rows = list(csv.DictReader(paired.open(encoding="utf-8")))
    # the panel's two contrasts; Holm over 0.25 and 1: 0.5, 1
    assert [(r["kind"], r["left"], r["right"], float(r["p_adjusted"])) for r in rows] == [
        ("temperature", "T=1", "T=0.2", 0.5), ("model", "model-a", "model-b", 1.0)]
    assert float(rows[0]["estimate"]) == pytest.approx(0.85 / 3, abs=1e-6)


def test_the_note_says_when_three_questions_cannot_be_significant(more, analyst_client):
    panel = analyst_client.get("/analysis/crisis/?iterations=200").context["board"].panels["contrasts"]
    # both contrasts rest on 3 questions: p >= 2 / 2^3 = 0.25
    assert "No contrast here can be significant: over 3 clusters the sign-flip p cannot fall below 2 / 2^3 = 0.25" \
        in panel.note
