"""The invalid code X end to end: a reviewer stores it, the analysis counts it apart from
refusals and missing answers (its own rate, in no option rate), export_codes and the
preference report write it apart, the BorderLines report names it; and the same reviewer's
second tab is told the truth about an item it coded already; agreement figures warn
about small samples."""

import csv
import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.services import create_user_with_role
from scenarios_app.analysis.metrics.refusals import refusals_by_model
from scenarios_app.analysis.tidy_query import AnalysisFilter, tidy_with_categories
from encoding_app import services
from encoding_app.models import Code, CodingPolicy, ReviewTask
from runs_app.models import LLMModel, Response, Run
from tests.conftest import PASSWORD
from tests.territories_app.test_borderlines_report import answered, borderlines  # noqa: F401  (fixtures)
from tests.encoding_app.test_encoding_services import answer, questions  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

# Answers the automatic encoder leaves to a reviewer (two letters named).
REVIEWED = ["A or B, or rather a joint commission of my own.", "Either A or B; really a naval blockade.",
            "A or B. I'd rather not say."]


@pytest.fixture
def no_sampling():
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})


def login(client, name):
    create_user_with_role(name, PASSWORD, role="reviewers")
    assert client.login(username=name, password=PASSWORD)
    return client


def post_code(client, task_id, code):
    return client.post(reverse("encoding-code", args=[task_id]), {"code": code, "queue": "review"})


@pytest.fixture
def coded_run(client, questions, no_sampling):  # noqa: F811
    """Eight answers of one model: 3 choose an option (A, A, B), 2 invalid (X) and 1
    refusal (R) by a reviewer, 1 unresolved (with reviewers), 1 missing (failed)."""
    run = Run.objects.create(benchmark=questions[0].benchmark)
    for repeat, letter in enumerate("AAB"):
        answer(questions[0], letter=letter, repeat=repeat, run=run)
    for repeat, text in enumerate(REVIEWED):
        answer(questions[1], output=text, repeat=repeat, run=run)
    answer(questions[2], output="A or B", run=run)
    answer(questions[2], status="failed", repeat=1, run=run)
    login(client, "rita")
    for code in "XXR":
        item = client.get(reverse("encoding-next")).json()["item"]
        assert item["question_key"] == questions[1].key
        assert post_code(client, item["task"], code).status_code == 200
    return run


def test_a_reviewer_stores_the_invalid_code(coded_run):
    assert sorted(Code.objects.filter(source="reviewer").values_list("code", flat=True)) == ["R", "X", "X"]
    assert Response.objects.filter(run=coded_run, code="X", code_source="reviewer").count() == 2


def test_a_letter_that_is_no_option_and_no_code_is_still_refused(client, questions, no_sampling):  # noqa: F811
    answer(questions[0], output="A or B")
    login(client, "rita")
    item = client.get(reverse("encoding-next")).json()["item"]
    assert item["letters"] == "ABCRX"
    response = post_code(client, item["task"], "D")
    assert response.status_code == 409 and "D is not one of A, B, C, R, X" in response.json()["error"]


def test_the_analysis_counts_invalid_apart_from_refusals_and_missing(coded_run):
    tidy = tidy_with_categories(AnalysisFilter(runs=(coded_run.pk,)))
    by_outcome = tidy.table.groupby("outcome")["n"].sum().to_dict()
    assert by_outcome == {"answer": 3, "refusal": 1, "invalid": 2, "unresolved": 1, "missing": 1}
    assert (tidy.coverage["refusals"], tidy.coverage["invalid"], tidy.coverage["missing"]) == (1, 2, 1)
    summary = refusals_by_model(tidy.table).iloc[0]
    # read = 3 answers + 1 refusal + 2 invalid = 6
    assert summary["refusal_rate"] == pytest.approx(1 / 6) and summary["invalid_rate"] == pytest.approx(2 / 6)


def test_the_preference_report_gives_the_invalid_rate_and_leaves_invalid_out_of_the_rates(coded_run, tmp_path):
    path = tmp_path / "prefs.csv"
    err = io.StringIO()
    call_command("preference_report", "--run", str(coded_run.pk), "--out", str(path), "--iterations", "100",
                 stderr=err)
    rows = list(csv.DictReader(path.open()))
    assert {r["invalid_rate"] for r in rows} == {"0.333333"}  # 2 / 6, written to 6 places
    assert {r["refusal_rate"] for r in rows} == {"0.166667"}  # 1 / 6
    # The one scenario with answers: A, A, B of 3 answers (the invalid and refused ones are another scenario).
    rates = sorted(float(r["rate"]) for r in rows if float(r["rate"]) > 0)
    assert rates == [pytest.approx(1 / 3), pytest.approx(2 / 3)]
    assert "2 invalid, 1 with reviewers, 1 missing left out" in err.getvalue()


def test_export_codes_writes_invalid_codes_apart_and_counts_them(coded_run, tmp_path):
    path = tmp_path / "codes.csv"
    err = io.StringIO()
    call_command("export_codes", str(path), stderr=err)
    rows = list(csv.DictReader(path.open()))
    assert [(r["code"], r["outcome"]) for r in rows if r["outcome"] == "invalid"] == [("X", "invalid")] * 2
    assert sum(r["outcome"] == "refusal" for r in rows) == 1 and sum(r["outcome"] == "missing" for r in rows) == 1
    assert "(3 answer, 1 refusal, 2 invalid, 1 unresolved, 1 missing)" in err.getvalue()
    history = tmp_path / "history.csv"
    call_command("export_codes", str(history), "--history", stderr=io.StringIO())
    assert sum(r["outcome"] == "invalid" for r in csv.DictReader(history.open())) == 2


def test_the_borderlines_report_names_invalid_answers_among_those_placed_on_no_claimant(answered):  # noqa: F811
    from territories_app.report import build
    from territories_app.report_frames import BorderlinesFilter
    unresolved = Response.objects.get(run=answered, code="")  # the Falklands in Spanish
    Response.objects.filter(pk=unresolved.pk).update(code="X", code_source="reviewer")
    report = build(BorderlinesFilter(), iterations=50)
    assert (report.answers, report.unresolved, report.invalid, report.refusals) == (14, 1, 1, 0)


# ------------------------------------------------------------------ two tabs of one reviewer

def test_the_same_reviewers_second_tab_is_told_it_coded_the_item(client, questions, no_sampling):  # noqa: F811
    answer(questions[0], output="A or B")
    answer(questions[1], output="B or C", repeat=1)
    login(client, "rita")
    item = client.get(reverse("encoding-next")).json()["item"]  # both tabs show this item
    assert post_code(client, item["task"], "B").status_code == 200  # first tab
    stale = post_code(client, item["task"], "A")  # second tab
    data = stale.json()
    assert stale.status_code == 409
    assert data["error"].startswith(f"you already coded item {item['task']} in another tab as B")
    assert "someone else" not in data["error"]
    assert data["item"]["task"] != item["task"]  # the tab moves on to the next item
    assert list(Code.objects.filter(task_id=item["task"]).values_list("code", flat=True)) == ["B"]


def test_another_reviewers_code_is_still_someone_elses(client, questions, no_sampling):  # noqa: F811
    answer(questions[0], output="A or B")
    rita = create_user_with_role("rita", PASSWORD, role="reviewers")[0]
    task = services.next_task(rita)
    services.submit_code(task.pk, rita, "B")
    sam = create_user_with_role("sam", PASSWORD, role="reviewers")[0]
    ReviewTask.objects.filter(pk=task.pk).update(leased_by=sam)
    with pytest.raises(services.CodingError, match="coded by someone else"):
        services.submit_code(task.pk, sam, "A")


def test_a_skip_in_one_tab_is_named_in_the_other(client, questions, no_sampling):  # noqa: F811
    answer(questions[0], output="A or B")
    login(client, "rita")
    item = client.get(reverse("encoding-next")).json()["item"]
    assert client.post(reverse("encoding-skip", args=[item["task"]]), {"queue": "review"}).status_code == 200
    stale = post_code(client, item["task"], "A")
    assert stale.status_code == 409 and "you skipped item" in stale.json()["error"]


# ------------------------------------------------------------------ small samples

def test_agreement_over_two_answers_carries_its_n_and_a_warning(client, questions):  # noqa: F811
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 1, "audit_share": 0})
    rita = create_user_with_role("rita", PASSWORD, role="reviewers")[0]
    sam = create_user_with_role("sam", PASSWORD, role="reviewers")[0]
    answer(questions[0], output="A or B")
    answer(questions[1], output="B or C")
    for user, codes in ((rita, "AB"), (sam, "BB")):
        for code in codes:
            services.submit_code(services.next_task(user).pk, user, code)
    assert client.login(username="rita", password=PASSWORD)
    html = client.get(reverse("encoding-agreement")).content.decode()
    assert "Only 2 answers: below 30" in html and "⚠ n = 2" in html
    assert html.count("⚠ n = 2") == 6  # percent and κ in each of the three tables (overall, pair, model)
