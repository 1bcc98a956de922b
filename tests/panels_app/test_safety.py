"""Safety of the respondents' pages: rate limits per link and per address (in the cache, the
address never in the database), and an operator exporting or deleting one respondent's
answers, the panel's figures recomputing without them."""

import json

import pytest
from django.db import connection

from panels_app import limits, results, services
from panels_app.models import PanelAnswer, Respondent
from tests.panels_app.support import make_benchmark, make_panel

pytestmark = pytest.mark.django_db


@pytest.fixture
def panel():
    return make_panel(make_benchmark()[0], per_respondent=2, checks=0, profile=False)


def _answer_all(respondent, letter="A"):
    services.consent(respondent)
    while (page := services.current_page(respondent)) is not None:
        services.answer_item(respondent, page.position, "ABC"[page.option_order.index("ABC".index(letter))])


def test_a_link_over_its_limit_is_told_to_wait(client, panel, settings):
    settings.PANEL_RATE_PER_LINK, settings.PANEL_RATE_PER_ADDRESS = 3, 100
    token = services.create_invitations(panel, 1)[0].token
    assert [client.get(f"/p/{token}/").status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get(f"/p/{token}/")
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    assert "Too many requests" in refused.content.decode()
    assert client.post(f"/p/{token}/consent/").status_code == 429  # every step of the link counts
    other = services.create_invitations(panel, 1)[0].token
    assert client.get(f"/p/{other}/").status_code == 200  # another link is not held up


def test_one_address_over_its_limit_is_refused_on_every_link(client, panel, settings):
    settings.PANEL_RATE_PER_LINK, settings.PANEL_RATE_PER_ADDRESS = 100, 4
    tokens = [r.token for r in services.create_invitations(panel, 5)]
    seen = [client.get(f"/p/{t}/", REMOTE_ADDR="203.0.113.9").status_code for t in tokens]
    assert seen == [200, 200, 200, 200, 429]
    assert client.get(f"/p/{tokens[0]}/", REMOTE_ADDR="198.51.100.7").status_code == 200  # another address
    assert client.get("/p/open/" + "x" * 22 + "/", REMOTE_ADDR="203.0.113.9").status_code == 429  # the open link too


def test_the_window_ends_and_no_address_is_stored(panel, rf, settings):
    settings.PANEL_RATE_PER_LINK, settings.PANEL_RATE_PER_ADDRESS = 1, 100
    request = rf.get("/", REMOTE_ADDR="203.0.113.9")
    assert limits.over_limit(request, "t" * 22, now=600.0) is None
    assert limits.over_limit(request, "t" * 22, now=615.0) == 60 - 15  # the minute from 600 s ends at 660 s
    assert limits.over_limit(request, "t" * 22, now=660.0) is None  # the next minute
    with connection.cursor() as cursor:  # the address in no column of any table
        for table in connection.introspection.table_names():
            if table.startswith("panels_app_"):
                cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
                assert "203.0.113.9" not in repr(cursor.fetchall())


def test_an_operator_exports_and_deletes_one_respondents_answers(panel):
    kept, erased = services.create_invitations(panel, 2)
    _answer_all(kept, "A")
    _answer_all(erased, "B")
    assert results.panel_results(panel).kept_answers == 4
    exported = services.respondent_export(Respondent.objects.get(pk=erased.pk))
    assert [a["code"] for a in exported["answers"]] == ["B", "B"] and exported["panel"] == panel.name
    json.dumps(exported)  # plain JSON values
    assert services.erase_respondent(erased) == 2
    assert not PanelAnswer.objects.filter(respondent=erased).exists()
    found = results.panel_results(panel)
    assert found.kept_answers == 2 and found.withdrawn == 1  # recomputed without them
    assert {c for row in found.questions for _, _, c in row.counts} <= {0, 1}
    assert services.respondent_export(Respondent.objects.get(pk=erased.pk))["answers"] == []


def test_the_console_actions_export_and_delete(client, admin_user, panel):
    respondent = services.create_invitations(panel, 1)[0]
    _answer_all(respondent)
    client.force_login(admin_user)
    url = "/admin/panels_app/respondent/"
    exported = client.post(url, {"action": "export_answers", "_selected_action": [respondent.pk]})
    assert exported["Content-Type"] == "application/json"
    assert len(json.loads(exported.content)[0]["answers"]) == 2
    client.post(url, {"action": "erase_answers", "_selected_action": [respondent.pk]})
    assert not PanelAnswer.objects.filter(respondent=respondent).exists()
    assert Respondent.objects.get(pk=respondent.pk).withdrawn_at is not None


@pytest.mark.services
def test_the_counters_in_redis_take_one_round_trip_and_stay_readable(rf, settings):
    """With Redis (as deployed) both counters are counted in one pipeline (limits._counts);
    the counts are the same as through Django's cache API, and readable through it."""
    import os

    from django.core.cache import cache

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": os.environ["REDIS_URL"], "KEY_PREFIX": "cfpd-test-limits"}}
    settings.PANEL_RATE_PER_LINK, settings.PANEL_RATE_PER_ADDRESS = 2, 100
    assert limits._redis_client() is not None
    cache.clear()
    request = rf.get("/", REMOTE_ADDR="203.0.113.9")
    assert [limits.over_limit(request, "r" * 22, now=1200.0) for _ in range(2)] == [None, None]
    assert limits.over_limit(request, "r" * 22, now=1230.0) == 60 - 30  # the third this minute: over
    assert limits._counts(["link:" + limits._digest("link", "r" * 22)], 1230.0) == [4]
    assert cache.get("panels:rate:link:" + limits._digest("link", "r" * 22) + ":20") == 4  # 1230 // 60 = 20
    assert limits.over_limit(request, "r" * 22, now=1260.0) is None  # the next minute
    cache.clear()
