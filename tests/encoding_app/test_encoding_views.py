"""Reviewers' pages and JSON: who may see and code, and what the pages show."""

import json

import pytest
from django.urls import reverse

from accounts.services import create_user_with_role
from encoding_app import services
from encoding_app.models import Code, CodingPolicy, ReviewTask
from tests.conftest import PASSWORD
from tests.encoding_app.test_encoding_services import answer, questions  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

PAGES = ["encoding-overview", "encoding-workspace", "encoding-adjudicate", "encoding-agreement", "encoding-audit"]


@pytest.fixture
def no_sampling():
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize("persona", ["outsider", "analyst", "author"])
def test_nobody_outside_the_reviewer_role_sees_or_codes(client, request, persona, questions, no_sampling):
    user = request.getfixturevalue(persona)
    answer(questions[0], output="A or B")
    task = ReviewTask.objects.get()
    login(client, user)
    for name in PAGES:
        assert client.get(reverse(name)).status_code == 403, name
    assert client.get(reverse("encoding-next")).status_code == 403
    assert client.post(reverse("encoding-code", args=[task.pk]), {"code": "A"}).status_code == 403
    assert client.post(reverse("encoding-skip", args=[task.pk])).status_code == 403
    assert client.post(reverse("encoding-undo")).status_code == 403
    assert not Code.objects.exists()
    task.refresh_from_db()
    assert task.leased_by is None


def test_signed_out_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("encoding-overview"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_reviewer_sees_every_page(client, reviewer, questions, no_sampling):
    answer(questions[0], output="A or B")
    login(client, reviewer)
    for name in PAGES:
        assert client.get(reverse(name)).status_code == 200, name
    home = client.get(reverse("home")).content.decode()
    assert reverse("encoding-overview") in home


def test_the_workspace_json_codes_and_moves_on(client, reviewer, questions, no_sampling):
    first = answer(questions[0], output="Answer: <b>A</b> or B?")
    answer(questions[1], output="A or B")
    login(client, reviewer)
    data = client.get(reverse("encoding-next")).json()
    item = data["item"]
    assert item["response"] == first.pk and item["letters"] == "ABCRX"
    assert [o["letter"] for o in item["options"]] == ["A", "B", "C"]
    assert "".join(s["text"] for s in item["answer"]) == "Answer: <b>A</b> or B?"  # text, never HTML
    assert data["progress"] == {"done": 0, "left": 2, "total": 2}
    assert item["suggestion"]["code"] is None
    bad = client.post(reverse("encoding-code", args=[item["task"]]), {"code": "Q"})
    assert bad.status_code == 409 and "Q is not one of" in bad.json()["error"]
    ok = client.post(reverse("encoding-code", args=[item["task"]]), {"code": "B", "note": "n"}).json()
    assert ok["progress"] == {"done": 1, "left": 1, "total": 2} and ok["mine"] == 1 and ok["can_undo"]
    assert ok["item"]["task"] != item["task"]
    undone = client.post(reverse("encoding-undo")).json()
    assert undone["item"]["task"] == item["task"]
    first.refresh_from_db()
    assert first.code == ""


def test_an_adjudication_item_shows_the_codes_in_dispute(client, reviewer, questions):
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 1})
    response = answer(questions[0], output="B")
    ravi, _ = create_user_with_role("ravi", PASSWORD, role="reviewers")
    services.submit_code(services.next_task(ravi).pk, ravi, "C")
    login(client, reviewer)
    item = client.get(reverse("encoding-next"), {"queue": "adjudication"}).json()["item"]
    assert item["purpose"] == "adjudication" and item["response"] == response.pk
    assert sorted((c["code"], c["source"]) for c in item["codes"]) == [("B", "Automatic rule"), ("C", "Reviewer")]


def test_pages_show_states_agreement_and_audit(client, reviewer, questions):
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 1, "audit_share": 1})
    ravi, _ = create_user_with_role("ravi", PASSWORD, role="reviewers")
    answer(questions[0], output="B")  # automatic, audited
    answer(questions[1], output="A or B")  # first and second coding
    answer(questions[2], status="failed")
    for user, code in [(ravi, "C"), (ravi, "A"), (reviewer, "A")]:
        task = services.next_task(user)
        services.submit_code(task.pk, user, code)
    login(client, reviewer)
    overview = client.get(reverse("encoding-overview")).content.decode()
    assert "bare-letter" in overview and "Missing" in overview
    agreement = client.get(reverse("encoding-agreement")).content.decode()
    assert "ravi &amp; rita" in agreement and "100 %" in agreement
    audit = client.get(reverse("encoding-audit")).content.decode()
    assert "bare-letter" in audit and "0 %" in audit  # automatic B, reviewer C


def test_a_five_option_item_offers_its_five_letters_and_the_encoders_sentence(client, reviewer, questions,
                                                                             no_sampling):
    from tests.encoding_app.test_encoding_services import FIVE, with_options
    question = with_options(questions[0], FIVE)
    answer(question, output="Either B or E would do.", order=[4, 3, 2, 1, 0])
    login(client, reviewer)
    item = client.get(reverse("encoding-next")).json()["item"]
    assert item["letters"] == "ABCDERX"
    assert [(o["letter"], o["canonical"]) for o in item["options"]] == [
        ("A", "E"), ("B", "D"), ("C", "C"), ("D", "B"), ("E", "A")]
    suggestion = item["suggestion"]
    assert suggestion["code"] is None and suggestion["rule"] == "hedge"
    assert "B" in suggestion["reason"] and "E" in suggestion["reason"] and suggestion["reason"] != "hedge"
    assert client.post(reverse("encoding-code", args=[item["task"]]), {"code": "F"}).status_code == 409
    assert client.post(reverse("encoding-code", args=[item["task"]]), {"code": "E"}).status_code == 200
    assert Code.objects.get().code == "A"  # shown E is the author's first option


def test_the_audit_page_shows_the_wilson_interval_a_suspended_rule_and_judges(client, reviewer, questions):
    from encoding_app.models import Judge, RuleStatus
    from runs_app.models import LLMModel
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 1})
    answer(questions[0], output="B")
    ravi, _ = create_user_with_role("ravi", PASSWORD, role="reviewers")
    services.submit_code(services.next_task(ravi).pk, ravi, "B")
    RuleStatus.objects.create(rule="option-text", suspended=True, audited=30, correct=27, lower=0.744, upper=0.965)
    Judge.objects.create(model=LLMModel.objects.create(name="judgy", litellm_model="openai/x"))
    login(client, reviewer)
    audit = client.get(reverse("encoding-audit")).content.decode()
    # 1 of 1: 1 + z^2 = 4.841459; centre = (1 + 1.920729) / 4.841459 = 0.603275;
    # half = 1.959964 * sqrt(3.841459 / 4) / 4.841459 = 1.920729 / 4.841459 = 0.396725 -> 0.207 – 1.000
    assert "0.207 – 1.000" in audit
    assert "suspended" in audit and "option-text" in audit and "until an admin re-enables it" in audit
    assert "judgy" in audit and "0 of 100 compared answers needed for promotion" in audit


def test_a_filter_id_beyond_64_bits_is_a_400_naming_the_field(client, django_user_model):
    from django.contrib.auth.models import Group
    user = django_user_model.objects.create_user("rev-big", password="x")
    user.groups.add(Group.objects.get(name="reviewers"))
    client.force_login(user)
    for path in ("/encoding/", "/encoding/agreement/", "/encoding/audit/", "/encoding/next.json"):
        response = client.get(path, {"run": str(2**70)})
        assert response.status_code == 400, path


def test_a_note_over_the_limit_is_refused_by_the_service():
    import pytest as _pytest
    from encoding_app import services
    with _pytest.raises(services.CodingError, match="at most 2000"):
        services.submit_code(0, None, "A", "x" * (services.MAX_NOTE_CHARS + 1))
