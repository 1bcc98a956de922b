"""Alignment per model and panel, and per domain and choice count (results.alignment_rows),
and reference_report writing exactly its columns: hand-computed on a small case."""

import csv

import pytest
from django.core.management import CommandError, call_command

from benchmarks_app import families
from panels_app import references, results
from runs_app.models import LLMModel, Response, Run
from tests.panels_app.support import make_benchmark

pytestmark = pytest.mark.django_db

DOMAINS = {"people-q0": "escalation", "people-q1": "escalation", "people-q2": "trade", "people-q3": "trade"}

# q0 and q2 have options A, B; q1 and q3 A, B, C
PUBLIC = """panel,respondent,question_key,answer
Public,r1,people-q0,A
Public,r2,people-q0,A
Public,r1,people-q1,A
Public,r2,people-q1,B
Public,r1,people-q2,B
Public,r2,people-q2,B
Public,r1,people-q3,C
Public,r2,people-q3,C
"""
SCHOLARS = """panel,question_key,option,share,n
Scholars,people-q0,A,0.5,10
Scholars,people-q0,B,0.5,10
"""
HAWK = {"people-q0": "AA", "people-q1": "AA", "people-q2": "A", "people-q3": "C"}

EVEN_VS_UNANIMOUS = 0.442077  # 1 − √0.311278: (½, ½) against (1, 0) (tests/analysis_app/test_alignment.py)


@pytest.fixture
def case(monkeypatch):
    benchmark, questions = make_benchmark()
    monkeypatch.setattr(families, "sample_metadata", lambda question, family: {"domain": DOMAINS[question.key]})
    references.import_reference(PUBLIC)
    references.import_reference(SCHOLARS)
    model = LLMModel.objects.create(name="hawk", litellm_model="openai/hawk")
    run = Run.objects.create(benchmark=benchmark, status="done")
    for question in questions:
        for repeat, code in enumerate(HAWK[question.key]):
            Response.objects.create(run=run, question=question, model=model, repeat=repeat, status="done", code=code,
                                    option_order=list(range(question.choice_count)))
    return benchmark


def test_each_model_panel_domain_and_choice_count_by_hand(case):
    rows = {(r.panel, r.domain, r.choice_count): r for r in results.alignment_rows(case)}
    # Public: q0 (1, 0) both → 1; q1 hawk (1, 0, 0), people (½, ½, 0) → 0.442077;
    # q2 hawk (1, 0), people (0, 1) → 0; q3 (0, 0, 1) both → 1.
    # The ceiling: two respondents split one way, r1 against r2: q0 1, q1 (1,0,0) v (0,1,0) 0, q2 1, q3 1.
    expected = {
        ("Public", "", None): ((1 + EVEN_VS_UNANIMOUS + 0 + 1) / 4, 4, (1 + 0 + 1 + 1) / 4),  # 0.610519, ceiling 0.75
        ("Public", "escalation", None): ((1 + EVEN_VS_UNANIMOUS) / 2, 2, (1 + 0) / 2),  # 0.721039
        ("Public", "trade", None): ((0 + 1) / 2, 2, 1.0),
        ("Public", "", 2): ((1 + 0) / 2, 2, 1.0),  # q0, q2
        ("Public", "", 3): ((EVEN_VS_UNANIMOUS + 1) / 2, 2, (0 + 1) / 2),  # q1, q3
        # Scholars, shares of q0 only: hawk (1, 0) against (½, ½); no respondents, no ceiling
        ("Scholars", "", None): (EVEN_VS_UNANIMOUS, 1, None),
        ("Scholars", "escalation", None): (EVEN_VS_UNANIMOUS, 1, None),
        ("Scholars", "", 2): (EVEN_VS_UNANIMOUS, 1, None),
    }
    assert set(rows) == set(expected)
    for key, (similarity, n, ceiling) in expected.items():
        row = rows[key]
        assert row.model == "hawk" and row.n_questions == n
        assert row.similarity == pytest.approx(similarity, abs=1e-6)
        assert row.ceiling == (None if ceiling is None else pytest.approx(ceiling, abs=1e-9))
    overall = rows[("Public", "", None)]
    assert overall.ci_low <= overall.similarity <= overall.ci_high  # four questions, each its own scenario
    assert rows[("Scholars", "", None)].ci_low is None  # one question: no interval


def test_reference_report_writes_exactly_the_columns(case, tmp_path):
    out = tmp_path / "report.csv"
    call_command("reference_report", "--benchmark", "people", "--panel", "Public", "--model", "hawk",
                 "--out", str(out))
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["model", "panel", "domain", "choice_count", "similarity", "ci_low", "ci_high", "n_questions",
                       "ceiling"]
    assert [row[:5] + row[7:] for row in rows[1:]] == [
        ["hawk", "Public", "", "", "0.610519", "4", "0.75"],
        # (1 + 0.4420770) / 2 = 0.72103848, to six places 0.721038
        ["hawk", "Public", "escalation", "", "0.721038", "2", "0.5"],
        ["hawk", "Public", "trade", "", "0.5", "2", "1.0"],
        ["hawk", "Public", "", "2", "0.5", "2", "1.0"],
        ["hawk", "Public", "", "3", "0.721038", "2", "0.5"],
    ]
    call_command("reference_report", "--benchmark", "people", "--out", str(out))
    assert [row[1] for row in csv.reader(out.open())][1:] == ["Public"] * 5 + ["Scholars"] * 3
    assert [row[8] for row in csv.reader(out.open())][-1] == ""  # shares name nobody: no ceiling


def test_reference_report_names_bad_parameters(case, tmp_path):
    out = str(tmp_path / "r.csv")
    with pytest.raises(CommandError, match="--benchmark: no benchmark named 'nope'"):
        call_command("reference_report", "--benchmark", "nope", "--out", out)
    with pytest.raises(CommandError, match=r"--panel: no panel named 'Nobody' on benchmark 'people' \(its panels: "
                                           r"Public, Scholars\); --model: no model named 'dove'"):
        call_command("reference_report", "--benchmark", "people", "--panel", "Nobody", "--model", "dove", "--out", out)
    with pytest.raises(CommandError, match="--out: cannot write"):
        call_command("reference_report", "--benchmark", "people", "--out", str(tmp_path / "no" / "r.csv"))


def test_the_api_answers_the_same_rows_and_400_for_bad_parameters(case, client, analyst, outsider):
    url = "/api/panels/alignment/"
    client.force_login(analyst)
    body = client.get(url, {"benchmark": "people", "panel": "Scholars"}).json()
    assert body["benchmark"] == "people"
    assert [(r["model"], r["panel"], r["domain"], r["choice_count"], round(r["similarity"], 6), r["n_questions"],
             r["ceiling"]) for r in body["rows"]] == [
        ("hawk", "Scholars", "", None, 0.442077, 1, None),
        ("hawk", "Scholars", "escalation", None, 0.442077, 1, None),
        ("hawk", "Scholars", "", 2, 0.442077, 1, None)]
    assert list(body["rows"][0]) == list(results.REPORT_COLUMNS)
    for params, field, message in [
        ({}, "benchmark", "required: the benchmark whose panels to compare"),
        ({"benchmark": "nope"}, "benchmark", "no benchmark named 'nope'"),
        ({"benchmark": "people", "panel": "Nobody"}, "panel", "no panel named 'Nobody'"),
        ({"benchmark": "people", "model": "dove"}, "model", "no model named 'dove'"),
        ({"benchmark": "people", "model": "a\x00b"}, "model", "must be a name of 1 to 200 characters"),
        ({"benchmark": ["people", "other"]}, "benchmark", "give it once"),
    ]:
        answer = client.get(url, params)
        assert answer.status_code == 400, params
        assert message in answer.json()[field][0]
    client.force_login(outsider)
    assert client.get(url, {"benchmark": "people"}).status_code == 403
    client.logout()
    assert client.get(url, {"benchmark": "people"}).status_code == 401
