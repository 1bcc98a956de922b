"""The respondent's pages through the test client (no account) and the analysts' panel page:
forged tokens, bad options, double submits, withdrawn and used links, the open link, the
closing page or completion link, and who may read a panel's results."""

import re

import pytest

from panels_app import services
from panels_app.models import PanelAnswer, Respondent
from tests.conftest import PASSWORD
from tests.panels_app.support import make_benchmark, make_panel

pytestmark = pytest.mark.django_db


@pytest.fixture
def panel():
    return make_panel(make_benchmark()[0], per_respondent=2, checks=1)


def _url(token, tail=""):
    return f"/p/{token}/{tail}"


def _walk(client, token, check_letter="B"):
    """Consent, profile, then every page answered (A on items)."""
    assert client.post(_url(token, "consent/")).status_code == 302
    assert client.post(_url(token, "profile/"), {"years": "7", "country": "DE"}).status_code == 302
    while True:
        html = client.get(_url(token)).content.decode()
        position = re.search(r'/answer/(\d+)/"', html).group(1)
        letter = check_letter if "Check 0" in html else "A"
        sent = client.post(_url(token, f"answer/{position}/"), {"choice": letter, "reason": ""})
        assert sent.status_code == 302
        if sent["Location"].endswith("/done/"):
            return sent


def test_a_forged_or_malformed_token_is_404(client, panel):
    services.create_invitations(panel, 1)
    for token in ("A" * 22, "short", "x" * 70):
        assert client.get(_url(token)).status_code == 404
        assert client.post(_url(token, "consent/")).status_code == 404
    assert client.get("/p/open/" + "B" * 22 + "/").status_code == 404


def test_a_respondent_goes_from_consent_to_the_closing_page(client, panel):
    token = services.create_invitations(panel, 1)[0].token
    page = client.get(_url(token))
    assert page.status_code == 200 and "You agree to answer." in page.content.decode()
    finished = _walk(client, token)
    assert finished["Location"] == _url(token, "done/")
    closing = client.get(finished["Location"])
    assert "Thank you: your answers are saved." in closing.content.decode()
    respondent = Respondent.objects.get(token=token)
    assert respondent.finished_at and respondent.profile == {"years": 7, "country": "DE"}
    used = client.get(_url(token))  # a used link is refused
    assert used.status_code == 410 and "This link has been used" in used.content.decode()
    assert client.post(_url(token, "answer/0/"), {"choice": "A"}).status_code == 410


def test_the_item_page_shows_the_scenario_options_and_progress(client, panel):
    token = services.create_invitations(panel, 1)[0].token
    client.post(_url(token, "consent/"))
    client.post(_url(token, "profile/"), {"years": "1", "country": "US"})
    html = client.get(_url(token)).content.decode()
    first = PanelAnswer.objects.filter(respondent__token=token).order_by("position").first()
    assert "1 of 3" in html
    assert first.question.text in html
    texts = first.question.option_texts()
    shown = re.findall(r'<span class="letter">([A-J]):</span> <span class="text">([^<]*)</span>', html)
    assert shown == [("ABCDEFGHIJ"[i], texts[o]) for i, o in enumerate(first.option_order)]
    assert re.findall(r'<label class="option" for="choice-([A-J])"><input type="radio" id="choice-\1"', html)
    assert '<label for="reason">' in html
    assert "href=" not in html.split("<main", 1)[1]  # nothing of the site is linked from a respondent's page


def test_a_bad_option_gets_a_clear_message_and_a_double_submit_no_second_answer(client, panel):
    token = services.create_invitations(panel, 1)[0].token
    client.post(_url(token, "consent/"))
    client.post(_url(token, "profile/"), {"years": "1", "country": "US"})
    bad = client.post(_url(token, "answer/0/"), {"choice": "Q"})
    assert bad.status_code == 400 and "Please choose one of the options (A to" in bad.content.decode()
    missing = client.post(_url(token, "answer/0/"), {"reason": "kept"})
    assert missing.status_code == 400 and "kept</textarea>" in missing.content.decode()
    assert client.post(_url(token, "answer/0/"), {"choice": "A"}).status_code == 302
    assert client.post(_url(token, "answer/0/"), {"choice": "B"}).status_code == 302
    answered = PanelAnswer.objects.filter(respondent__token=token, answered_at__isnull=False)
    assert [a.chosen_letter for a in answered] == ["A"]
    assert client.post(_url(token, "answer/99/"), {"choice": "A"}).status_code == 400


def test_a_bad_profile_is_named_and_nothing_saved(client, panel):
    token = services.create_invitations(panel, 1)[0].token
    client.post(_url(token, "consent/"))
    bad = client.post(_url(token, "profile/"), {"years": "-3", "country": "<b>"})
    html = bad.content.decode()
    assert bad.status_code == 400 and "Years in the field: please give a whole number" in html
    assert "Country: please choose one of the choices." in html
    assert Respondent.objects.get(token=token).profiled_at is None


def test_save_and_resume_on_the_same_link(client, panel):
    token = services.create_invitations(panel, 1)[0].token
    client.post(_url(token, "consent/"))
    client.post(_url(token, "profile/"), {"years": "1", "country": "US"})
    client.post(_url(token, "answer/0/"), {"choice": "A"})
    client.logout()
    client.cookies.clear()  # another day, another browser: the link alone resumes
    html = client.get(_url(token)).content.decode()
    assert "2 of 3" in html


def test_a_withdrawn_link_is_refused(client, panel):
    respondent = services.create_invitations(panel, 1)[0]
    services.withdraw(respondent)
    page = client.get(_url(respondent.token))
    assert page.status_code == 410 and "withdrawn" in page.content.decode()
    assert client.post(_url(respondent.token, "consent/")).status_code == 410


def test_the_open_link_admits_on_post_only_up_to_its_cap(client, panel):
    token = services.open_link(panel, 1)
    assert client.get(f"/p/open/{token}/").status_code == 200
    assert not Respondent.objects.filter(via_open_link=True).exists()  # a preview takes no place
    joined = client.post(f"/p/open/{token}/")
    own = Respondent.objects.get(via_open_link=True)
    assert joined["Location"] == _url(own.token)
    full = client.post(f"/p/open/{token}/")
    assert full.status_code == 410 and "full" in full.content.decode()


def test_the_completion_link_carries_the_code(client, panel):
    panel.completion_url, panel.completion_code = "https://app.prolific.com/submissions/complete", "C0DE42"
    panel.save()
    token = services.create_invitations(panel, 1)[0].token
    closing = client.get(_walk(client, token)["Location"]).content.decode()
    assert 'href="https://app.prolific.com/submissions/complete?cc=C0DE42"' in closing
    assert "C0DE42" in closing


def test_a_respondent_reaches_nothing_else_of_the_site(client, panel):
    token = services.create_invitations(panel, 1)[0].token
    client.get(_url(token))
    client.post(_url(token, "consent/"))
    for address in ("/", "/runs/", "/answers/", f"/panels/{panel.pk}/", "/admin/", "/api/runs/"):
        answer = client.get(address)
        assert answer.status_code in (302, 401, 403), address
        if answer.status_code == 302:
            assert "/login/" in answer["Location"], address


def test_the_panel_page_is_for_analysts(client, panel, analyst, outsider):
    respondent = services.create_invitations(panel, 2)[0]
    _walk(client, respondent.token, check_letter="C")  # fails the check: excluded
    client.login(username=outsider.username, password=PASSWORD)
    assert client.get(f"/panels/{panel.pk}/").status_code == 403
    client.login(username=analyst.username, password=PASSWORD)
    html = client.get(f"/panels/{panel.pk}/").content.decode()
    assert re.search(r'data-count="links">2<', html) and re.search(r'data-count="excluded">1<', html)
    assert re.search(r'data-count="kept">0<', html)
    assert panel.name in client.get("/panels/").content.decode()
    assert 'href="/panels/"' in client.get("/").content.decode()  # in the bar


def test_an_item_is_shown_in_its_questions_language_and_direction(client):
    benchmark, questions = make_benchmark(questions=1)
    Question = type(questions[0])
    Question.objects.filter(pk=questions[0].pk).update(language="ar", text="هل تتدخل الصين؟")
    # A panel asked in Arabic names the language in its selection, as a launch does (issue 41:
    # without languages named, the source language alone).
    panel = make_panel(benchmark, per_respondent=1, checks=0, profile=False, selection={"languages": ["ar"]})
    token = services.create_invitations(panel, 1)[0].token
    client.post(_url(token, "consent/"))
    html = client.get(_url(token)).content.decode()
    assert '<fieldset class="item" lang="ar" dir="rtl">' in html and "هل تتدخل الصين؟" in html
