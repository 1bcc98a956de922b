"""Panels of people in the models × questions grid (issue 40): a column each after the
models, labelled as people, their kept answers counted (failed attention checks left out),
shown or hidden by the People filter, in the page and the API."""

import pytest
from django.utils import timezone

from accounts.services import create_user_with_role
from panels_app.models import Panel, PanelAnswer, Respondent
from tests.conftest import PASSWORD
from tests.explorer_app.test_answer_grid import two_runs  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def _respond(panel, choices, failed_checks=0):
    respondent = Respondent.objects.create(panel=panel, token=f"t{Respondent.objects.count()}",
                                           failed_checks=failed_checks)
    for position, (question, letter) in enumerate(choices.items()):
        PanelAnswer.objects.create(respondent=respondent, position=position, question=question, code=letter,
                                   chosen_letter=letter, answered_at=timezone.now())


@pytest.fixture
def panel(two_runs):  # noqa: F811
    """Panel "IR scholars" on the grid's benchmark: q0 A, A, B from three people; q1 B from two;
    a fourth respondent failed an attention check (A everywhere: left out)."""
    run1, _, questions = two_runs
    found = Panel.objects.create(name="IR scholars", stands_for="IR scholars, US", benchmark=run1.benchmark,
                                 consent_text="You agree.")
    _respond(found, {questions[0]: "A", questions[1]: "B"})
    _respond(found, {questions[0]: "A", questions[1]: "B"})
    _respond(found, {questions[0]: "B"})
    _respond(found, {questions[0]: "A", questions[1]: "A"}, failed_checks=1)
    return found


def _login(client):
    client.force_login(create_user_with_role("ana", PASSWORD, role="analysts")[0])


def test_the_grid_shows_each_panel_as_a_column_of_people(client, two_runs, panel):  # noqa: F811
    run1, _, _ = two_runs
    _login(client)
    response = client.get("/answers/grid/", {"run": run1.pk})
    built = response.context["grid"]
    label = "People: IR scholars (3 respondents)"
    assert [g.label for g in built.people] == [label]
    assert [m.name for m in built.models] == ["m1", "m2"]  # no panel among the models
    cells = {row.key: cell for row in built.rows for group, cell in row.people_cells}
    # q0: A, A, B (the fourth respondent's A left out) -> A 2/3; q1: B, B -> B 2/2; q2: nobody
    assert (cells["hand-q0"].shown, cells["hand-q1"].shown, cells["hand-q2"]) == ("A 2/3", "B 2/2", None)
    html = response.content.decode()
    assert f'<th class="model-head people-head"' in html and f"<span>{label}</span>" in html
    assert 'data-people="People: IR scholars (3 respondents)" data-code="A" data-n="3"' in html
    assert 'id="grid-people-note"' in html


def test_the_people_filter_hides_them_and_a_bad_value_is_a_400(client, two_runs, panel):  # noqa: F811
    run1, _, _ = two_runs
    _login(client)
    hidden = client.get("/answers/grid/", {"run": run1.pk, "people": "hide"})
    assert hidden.context["grid"].people == [] and "People: IR scholars" not in hidden.content.decode()
    bad = client.get("/answers/grid/", {"run": run1.pk, "people": "maybe"})
    assert bad.status_code == 400 and "people" in bad.content.decode()
    # a code filter narrows people's answers as it narrows the models' (rows stay the models' questions:
    # in run 1 only q1 has a B, from m1 and m2)
    coded_b = client.get("/answers/grid/", {"run": run1.pk, "code": "A"}).context["grid"]
    cells = {row.key: cell for row in coded_b.rows for group, cell in row.people_cells}
    # code A: rows q0 (m1, m2) and q2 (m2); people's A on q0: 2 (the B left out), none on q2
    assert cells == {"hand-q0": cells["hand-q0"], "hand-q2": None} and cells["hand-q0"].shown == "A 2/2"


def test_the_grid_api_gives_people_apart_from_the_models(client, two_runs, panel):  # noqa: F811
    run1, _, _ = two_runs
    _login(client)
    data = client.get("/api/answers/grid/", {"run": run1.pk}).json()
    assert data["models"] == ["m1", "m2"] and data["people"] == ["People: IR scholars (3 respondents)"]
    first = data["rows"][0]
    assert first["question"] == "hand-q0"
    assert first["people_cells"] == [{"people": "People: IR scholars (3 respondents)", "n": 3, "top": "A",
                                      "share": pytest.approx(2 / 3), "counts": {"A": 2, "B": 1}}]
    assert all(cell["model"] in ("m1", "m2") for row in data["rows"] for cell in row["cells"])
    assert client.get("/api/answers/grid/", {"run": run1.pk, "people": "hide"}).json()["people"] == []


def test_the_answers_list_shows_people_apart_and_hides_them_on_request(client, two_runs, panel):  # noqa: F811
    run1, _, questions = two_runs
    _login(client)
    response = client.get("/answers/", {"run": run1.pk})
    html = response.content.decode()
    rows = {(p.question, p.label): p.cell for p in response.context["people_rows"]}
    # q0: A, A, B -> 3 answers, A 2 (the failed respondent's A left out); q1: B, B
    assert rows[("hand-q0", "People: IR scholars (3 respondents)")].sorted_counts() == [("A", 2), ("B", 1)]
    assert rows[("hand-q1", "People: IR scholars (3 respondents)")].n == 2 and len(rows) == 2
    assert 'id="people-answers"' in html and "People's answers to these questions" in html
    assert all(not r["model"].startswith("People") for r in response.context["rows"])  # not among the models'
    hidden = client.get("/answers/", {"run": run1.pk, "people": "hide"})
    assert hidden.context["people_rows"] == [] and 'id="people-answers"' not in hidden.content.decode()
    assert client.get("/answers/", {"people": "everyone"}).status_code == 400


def test_the_answers_csv_includes_people_with_a_source_column_on_request(client, two_runs, panel):  # noqa: F811
    import csv
    import io

    run1, _, _ = two_runs
    _login(client)

    def read(**query):
        response = client.get("/answers/", {"run": run1.pk, "format": "csv", **query})
        return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))

    plain = read()
    assert "source" not in plain[0] and len(plain) == 7  # run 1's seven answers, as before
    rows = read(with_people="1")
    assert [r["source"] for r in rows] == ["model"] * 7 + ["people"] * 5
    theirs = rows[7:]
    # q0: three people (A, A, B), q1: two (B, B); the failed respondent's answers left out
    assert [(r["question"], r["code"]) for r in theirs] == [("hand-q0", "A"), ("hand-q0", "A"), ("hand-q0", "B"),
                                                            ("hand-q1", "B"), ("hand-q1", "B")]
    assert {r["model"] for r in theirs} == {"People: IR scholars (3 respondents)"}
    assert all(r["respondent"] and not r["run"] for r in theirs) and all(not r["respondent"] for r in rows[:7])
    # a code filter narrows people's rows too, to the questions of the models' answers exported: code B in
    # run 1 is q1 only (m1, m2) -> people's B to q1: two (q0's B is to a question no exported answer is to)
    assert [(r["question"], r["code"]) for r in read(with_people="1", code="B") if r["source"] == "people"] == \
        [("hand-q1", "B"), ("hand-q1", "B")]
