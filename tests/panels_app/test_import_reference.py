"""import_reference FILE: a population's published answers in either shape become a panel
without links; every bad row is named by line and column and nothing is written."""

import pytest
from django.core.management import CommandError, call_command

from panels_app import references, results, services
from panels_app.models import Panel, PanelAnswer, ReferenceShare, Respondent
from tests.panels_app.support import make_benchmark, make_panel

pytestmark = pytest.mark.django_db

# people-q0 and people-q2 have two options (A, B); people-q1 and people-q3 three (A, B, C)
RESPONDENTS = """panel,respondent,question_key,answer
Public DE,r1,people-q0,A
Public DE,r1,people-q1,c
Public DE,r2,people-q0,B
Public DE,r2,people-q1,C

Public DE,r3,people-q0,A
"""

SHARES = """panel,question_key,option,share,n
Scholars US,people-q0,A,0.75,40
Scholars US,people-q0,B,0.25,40
Scholars US,people-q1,A,0.5,12
Scholars US,people-q1,C,0.5,12
"""


@pytest.fixture
def benchmark():
    return make_benchmark()[0]


def write(tmp_path, text, name="ref.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_one_row_per_respondent_and_question_becomes_respondents_and_their_answers(tmp_path, benchmark, capsys):
    call_command("import_reference", write(tmp_path, RESPONDENTS))
    panel = Panel.objects.get(name="Public DE")
    assert panel.kind == Panel.Kind.REFERENCE and panel.benchmark == benchmark
    assert sorted(panel.panel_questions.values_list("question__key", flat=True)) == ["people-q0", "people-q1"]
    assert list(Respondent.objects.filter(panel=panel).values_list("external_id", flat=True)) == ["r1", "r2", "r3"]
    assert sorted(PanelAnswer.objects.filter(respondent__panel=panel).values_list(
        "respondent__external_id", "question__key", "code")) == [
        ("r1", "people-q0", "A"), ("r1", "people-q1", "C"), ("r2", "people-q0", "B"), ("r2", "people-q1", "C"),
        ("r3", "people-q0", "A")]
    # the answers count as the panel's: q0 A, B, A; q1 C, C
    people = results.people_by_question(panel)
    assert sorted(sorted(by.values()) for by in people.values()) == [["A", "A", "B"], ["C", "C"]]
    assert "Public DE: 2 question(s), 3 respondents, 5 row(s) (respondents)" in capsys.readouterr().out


def test_one_row_per_question_and_option_becomes_shares(tmp_path, benchmark):
    call_command("import_reference", write(tmp_path, SHARES), "--benchmark", "people", "--stands-for", "IR, US")
    panel = Panel.objects.get(name="Scholars US")
    assert panel.kind == Panel.Kind.REFERENCE and panel.stands_for == "IR, US"
    assert not panel.respondents.exists()
    assert list(ReferenceShare.objects.filter(panel=panel).values_list("question__key", "code", "share", "n")) == [
        ("people-q0", "A", 0.75, 40), ("people-q0", "B", 0.25, 40),
        ("people-q1", "A", 0.5, 12), ("people-q1", "C", 0.5, 12)]


def test_a_reference_has_no_links_and_its_respondents_no_pages(tmp_path, benchmark, client):
    call_command("import_reference", write(tmp_path, RESPONDENTS))
    panel = Panel.objects.get(name="Public DE")
    with pytest.raises(services.PanelError, match="published reference"):
        services.create_invitations(panel, 1)
    with pytest.raises(services.PanelError, match="published reference"):
        services.open_link(panel, 5)
    token = Respondent.objects.filter(panel=panel).first().token
    assert services.respondent_for(token) is None
    assert client.get(f"/p/{token}/").status_code == 404


BAD_RESPONDENTS = """panel,respondent,question_key,answer
Public DE,r1,people-q0,A
Public DE,r1,people-q0,B
Public DE,r2,people-q0,C
Public DE,r2,nowhere,A
Public DE,,people-q1,A
Public DE,r3,people-q1
"""


def test_bad_respondent_rows_are_each_named_and_nothing_is_written(tmp_path, benchmark):
    with pytest.raises(CommandError) as raised:
        call_command("import_reference", write(tmp_path, BAD_RESPONDENTS))
    assert str(raised.value).splitlines() == [
        "1 problem(s), nothing imported:",
        "line 7: 3 value(s), the header has 4",
    ]
    fixed = BAD_RESPONDENTS.replace("Public DE,r3,people-q1\n", "Public DE,r3,people-q1,A\n")
    with pytest.raises(CommandError) as raised:
        call_command("import_reference", write(tmp_path, fixed))
    assert str(raised.value).splitlines() == [
        "4 problem(s), nothing imported:",
        "line 5, column question_key: no question with key 'nowhere'",
        "line 3, column question_key: respondent 'r1' answered people-q0 already on line 2",
        "line 4, column answer: 'C' is not an option of people-q0 (A, B)",
        "line 6, column respondent: must be an identifier of 1 to 120 characters",
    ]
    assert not Panel.objects.exists() and not PanelAnswer.objects.exists()


BAD_SHARES = """panel,question_key,option,share,n
Scholars US,people-q0,A,0.7,40
Scholars US,people-q0,B,0.2,40
Scholars US,people-q1,A,1.5,12
Scholars US,people-q1,B,half,12
Scholars US,people-q1,C,0.5,11
Scholars US,people-q2,D,1,3
Scholars US,people-q3,A,1,0
"""


def test_bad_share_rows_are_each_named_and_nothing_is_written(tmp_path, benchmark):
    with pytest.raises(references.ReferenceInvalid) as raised:
        references.import_reference(BAD_SHARES)
    assert raised.value.problems == [
        "line 4, column share: must be from 0 to 1; got '1.5'",
        "line 5, column share: must be a number; got 'half'",
        "line 7, column option: 'D' is not an option of people-q2 (A, B)",
        "line 8, column n: must be at least 1; got '0'",
        "line 2, column share: the shares of people-q0 in panel 'Scholars US' sum to 0.9, not 1 (±0.01)",
        "line 6, column share: the shares of people-q1 in panel 'Scholars US' sum to 0.5, not 1 (±0.01)",
    ]
    mixed_n = SHARES.replace("people-q1,C,0.5,12", "people-q1,C,0.5,13")
    with pytest.raises(references.ReferenceInvalid, match=r"line 5, column n: 13 differs from the n of people-q1's "):
        references.import_reference(mixed_n)
    assert not Panel.objects.exists() and not ReferenceShare.objects.exists()


def test_headers_names_and_benchmarks_are_checked(tmp_path, benchmark):
    with pytest.raises(references.ReferenceInvalid, match="line 1: the columns must be either panel, respondent"):
        references.import_reference("panel,question,answer\nA,b,c\n")
    with pytest.raises(references.ReferenceInvalid, match="line 1: the file is empty"):
        references.import_reference("")
    with pytest.raises(references.ReferenceInvalid, match="line 2: the file has a header and no rows"):
        references.import_reference("panel,respondent,question_key,answer\n")
    with pytest.raises(references.ReferenceInvalid, match="--benchmark: no benchmark named 'other'"):
        references.import_reference(RESPONDENTS, benchmark="other")
    make_benchmark("elsewhere")
    with pytest.raises(references.ReferenceInvalid, match="line 2, column question_key: no question of benchmark "
                                                        "'elsewhere' with key 'people-q0'"):
        references.import_reference(RESPONDENTS, benchmark="elsewhere")
    spanning = RESPONDENTS + "Public DE,r4,elsewhere-q0,A\n"
    with pytest.raises(references.ReferenceInvalid, match="line 8, column question_key: 'elsewhere-q0' is of benchmark "
                                                        "'elsewhere'"):
        references.import_reference(spanning)
    make_panel(benchmark, name="Public DE")
    with pytest.raises(references.ReferenceInvalid, match="line 2, column panel: 'Public DE' is a panel with links"):
        references.import_reference(RESPONDENTS)
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_reference", str(tmp_path / "missing.csv"))


def test_a_reference_is_replaced_only_when_asked(benchmark):
    references.import_reference(RESPONDENTS)
    with pytest.raises(references.ReferenceInvalid, match="a reference named 'Public DE' exists; import with --replace"):
        references.import_reference(RESPONDENTS)
    references.import_reference(RESPONDENTS.replace("Public DE,r3,people-q0,A\n", ""), replace=True)
    assert Panel.objects.filter(name="Public DE").count() == 1
    assert PanelAnswer.objects.filter(respondent__panel__name="Public DE").count() == 4
