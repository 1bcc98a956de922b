"""The reviewer's queue counts and the status a second tab polls (issue 38): each count
says whose the items are; a code that adds a second-coding item says so; a tab learns of
its twin's code or skip without a key pressed."""

import pytest
from django.urls import reverse

from accounts.services import create_user_with_role
from encoding_app import queue_state, services
from encoding_app.models import CodingPolicy, ReviewTask
from tests.conftest import PASSWORD
from tests.encoding_app.test_encoding_services import answer, questions  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


def sampling(second: int):
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": second, "audit_share": 0})


def test_a_first_code_picked_for_second_coding_says_so_and_the_counts_name_it(client, reviewer, questions):
    sampling(1)
    for question in questions:
        answer(question, output="A or B")
    login(client, reviewer)
    first = client.get(reverse("encoding-next")).json()
    assert first["counts"]["parts"][0]["text"] == "0 coded by you"
    assert [p["text"] for p in first["counts"]["parts"]] == ["0 coded by you", "3 left for you"]
    coded = client.post(reverse("encoding-code", args=[first["item"]["task"]]), {"code": "A"}).json()
    assert [a["purpose"] for a in coded["added"]] == ["second"]
    assert "blind second code" in coded["added"][0]["text"]
    # done 1, open 3: the two first codes still to do and the second code she may not take.
    assert coded["progress"] == {"done": 1, "left": 3, "total": 4}
    assert [p["text"] for p in coded["counts"]["parts"]] == [
        "1 coded by you", "2 left for you", "1 second code of an answer you coded waiting for another reviewer"]


def test_the_issues_queue_skipped_and_second_codes_explain_the_empty_card(client, reviewer, questions):
    sampling(1)
    for question in questions[:3]:
        answer(question, output="A or B")
    for _ in range(2):
        task = services.next_task(reviewer)
        services.submit_code(task.pk, reviewer, "B")
    services.skip_task(services.next_task(reviewer).pk, reviewer)
    login(client, reviewer)
    data = client.get(reverse("encoding-next")).json()
    assert data["item"] is None
    counts = data["counts"]
    assert (counts["mine"], counts["available"], counts["skipped"], counts["own"], counts["held"], counts["left"]) == \
        (2, 0, 1, {"second": 2}, 0, 3)
    assert [p["text"] for p in counts["parts"]] == [
        "2 coded by you", "0 left for you", "1 you skipped",
        "2 second codes of answers you coded waiting for another reviewer"]
    assert "nobody codes an answer twice" in counts["empty_reason"]
    # Another reviewer sees the same items as hers to take.
    ravi, _ = create_user_with_role("ravi", PASSWORD, role="reviewers")
    theirs = queue_state.reviewer_counts(ravi)
    assert (theirs["mine"], theirs["others"], theirs["available"], theirs["left"]) == (0, 2, 3, 3)


def test_an_item_another_reviewer_holds_is_counted_as_held(reviewer, questions):
    sampling(0)
    answer(questions[0], output="A or B")
    answer(questions[1], output="A or B")
    ravi, _ = create_user_with_role("ravi", PASSWORD, role="reviewers")
    services.next_task(ravi)
    counts = queue_state.reviewer_counts(reviewer)
    assert (counts["available"], counts["held"], counts["left"]) == (1, 1, 2)
    assert "1 held by another reviewer" in [p["text"] for p in queue_state.progress(reviewer)["parts"]]


def test_a_second_tab_learns_of_the_first_ones_code_from_the_status(client, reviewer, questions):
    sampling(0)
    answer(questions[0], output="A or B")
    answer(questions[1], output="A or B")
    login(client, reviewer)
    shown = client.get(reverse("encoding-next")).json()["item"]["task"]  # both tabs show this item
    status = client.get(reverse("encoding-status"), {"task": shown}).json()
    assert status["shown"]["state"] == "yours" and status["counts"]["mine"] == 0
    client.post(reverse("encoding-code", args=[shown]), {"code": "B"})  # the first tab codes it
    status = client.get(reverse("encoding-status"), {"task": shown}).json()
    assert status["shown"]["state"] == "coded-by-you"
    assert status["shown"]["message"].startswith(f"Item {shown} was coded B in your other tab")
    assert status["counts"]["mine"] == 1 and status["progress"]["done"] == 1


def test_a_skip_in_the_other_tab_and_a_withdrawn_item_are_told(client, reviewer, questions):
    sampling(0)
    answer(questions[0], output="A or B")
    login(client, reviewer)
    shown = client.get(reverse("encoding-next")).json()["item"]["task"]
    client.post(reverse("encoding-skip", args=[shown]))
    assert client.get(reverse("encoding-status"), {"task": shown}).json()["shown"]["state"] == "skipped-by-you"
    ReviewTask.objects.filter(pk=shown).update(status="withdrawn")
    assert client.get(reverse("encoding-status"), {"task": shown}).json()["shown"]["state"] == "withdrawn"
    assert client.get(reverse("encoding-status"), {"task": 999999}).json()["shown"]["state"] == "gone"


def test_the_status_polls_nothing_into_a_lease(client, reviewer, questions):
    sampling(0)
    answer(questions[0], output="A or B")
    login(client, reviewer)
    status = client.get(reverse("encoding-status")).json()
    assert status["shown"] is None and status["counts"]["available"] == 1
    assert not ReviewTask.objects.filter(leased_by__isnull=False).exists()


@pytest.mark.parametrize("persona", ["outsider", "analyst", "author"])
def test_only_reviewers_read_the_status(client, request, persona):
    login(client, request.getfixturevalue(persona))
    assert client.get(reverse("encoding-status")).status_code == 403


def test_a_bad_task_id_is_a_400_naming_it(client, reviewer):
    login(client, reviewer)
    response = client.get(reverse("encoding-status"), {"task": "x"})
    assert response.status_code == 400


def test_the_overview_counts_what_is_open_and_what_is_yours(client, reviewer, questions):
    sampling(1)
    answer(questions[0], output="A or B")
    answer(questions[1], output="A or B")
    services.submit_code(services.next_task(reviewer).pk, reviewer, "A")  # opens a second code, not hers
    login(client, reviewer)
    page = client.get(reverse("encoding-overview")).content.decode()
    assert "Code answers (1 for you)" in page
    assert "1 done · <strong>2 open</strong>, 1 of them for you" in page
