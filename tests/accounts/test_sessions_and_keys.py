"""Issue 43, sessions and keys: idle sessions end, API tokens expire and note their last
use at most once a minute, and every sign-in, failed sign-in and token use is recorded
(never the password or the token) for the superusers to read."""

import io
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from accounts import api_tokens
from accounts.models import ApiToken, SignInRecord
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def bearer(token):
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def the_session():
    return Session.objects.get()


@override_settings(SESSION_COOKIE_AGE=30 * 60)
def test_a_session_ends_after_the_idle_time_and_each_request_moves_its_end(client, analyst):
    client.force_login(analyst)
    assert client.get("/").status_code == 200
    left = the_session().expire_date - timezone.now()
    assert timedelta(minutes=29) < left <= timedelta(minutes=30)
    # Ten minutes of the half hour left: a request gives the whole half hour back.
    Session.objects.update(expire_date=timezone.now() + timedelta(minutes=10))
    assert client.get("/").status_code == 200
    assert the_session().expire_date - timezone.now() > timedelta(minutes=29)
    # Idle past the end: the next request is sent to sign in.
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_idle_time_comes_from_its_setting():
    from django.conf import settings

    assert settings.SESSION_SAVE_EVERY_REQUEST is True
    assert settings.SESSION_COOKIE_AGE == settings.CFPD_SESSION_IDLE_MINUTES * 60


@override_settings(CFPD_API_TOKEN_DAYS=7)
def test_a_token_expires_after_the_settings_days(analyst):
    before = timezone.now()
    record = api_tokens.create_token(analyst, "export").record
    assert before + timedelta(days=7) <= record.expires_at <= timezone.now() + timedelta(days=7)


@override_settings(CFPD_API_TOKEN_DAYS=0)
def test_zero_days_makes_tokens_that_never_expire(analyst):
    assert api_tokens.create_token(analyst, "export").record.expires_at is None


def test_an_expiry_in_the_past_is_refused(analyst):
    with pytest.raises(api_tokens.TokenError, match="future"):
        api_tokens.create_token(analyst, "export", expires_at=timezone.now() - timedelta(minutes=1))


def test_an_expired_token_is_refused_with_a_clear_401(client, analyst):
    made = api_tokens.create_token(analyst, "export")
    assert client.get("/api/runs/", **bearer(made.token)).status_code == 200
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = client.get("/api/runs/", **bearer(made.token))
    assert response.status_code == 401 and response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response.json()["detail"].startswith("Token expired on ")
    assert "ask an administrator for a new one" in response.json()["detail"]
    # Refused twice within the minute: recorded once.
    client.get("/api/runs/", **bearer(made.token))
    refused = SignInRecord.objects.filter(kind=SignInRecord.TOKEN_REFUSED)
    assert refused.count() == 1
    assert refused.get().token_id == made.record.pk and refused.get().token_prefix == made.record.prefix


def test_last_use_is_written_at_most_once_a_minute_and_each_write_is_recorded(client, analyst):
    made = api_tokens.create_token(analyst, "export")
    for _ in range(3):
        assert client.get("/api/runs/", **bearer(made.token)).status_code == 200
    first = ApiToken.objects.get().last_used_at
    assert first is not None
    uses = SignInRecord.objects.filter(kind=SignInRecord.TOKEN_USED)
    assert uses.count() == 1 and uses.get().user == analyst and uses.get().detail == "/api/runs/"
    # 61 seconds later the next use moves last_used_at and is recorded again.
    ApiToken.objects.update(last_used_at=first - timedelta(seconds=61))
    client.get("/api/runs/", **bearer(made.token))
    assert ApiToken.objects.get().last_used_at > first
    assert uses.count() == 2


def test_no_record_holds_the_token_or_the_password(client, analyst):
    made = api_tokens.create_token(analyst, "export")
    client.get("/api/runs/", **bearer(made.token))
    client.post("/accounts/login/", {"username": "andy", "password": "wrong-secret-1"})
    client.post("/accounts/login/", {"username": "andy", "password": PASSWORD})
    rows = [str(list(row.values())) for row in SignInRecord.objects.values()]
    assert len(rows) == 3
    assert not [row for row in rows if made.token in row or "wrong-secret-1" in row or PASSWORD in row]


def test_sign_ins_and_failed_sign_ins_are_recorded(client, analyst):
    client.post("/accounts/login/", {"username": analyst.username, "password": "not it"},
                REMOTE_ADDR="10.1.2.3")
    client.post("/accounts/login/", {"username": analyst.username, "password": PASSWORD}, REMOTE_ADDR="10.1.2.3")
    failed, signed_in = SignInRecord.objects.order_by("at", "id")
    assert (failed.kind, failed.username, failed.user, failed.address) == (
        SignInRecord.FAILED, analyst.username, None, "10.1.2.3")
    assert (signed_in.kind, signed_in.user, signed_in.address) == (SignInRecord.SIGNED_IN, analyst, "10.1.2.3")


def test_the_record_and_everyones_tokens_are_for_superusers_and_read_only(client, analyst, author, admin_user):
    api_tokens.create_token(analyst, "analyst export")
    api_tokens.create_token(author, "author script")
    client.post("/accounts/login/", {"username": "nobody", "password": "x"})
    client.force_login(admin_user)
    page = client.get("/admin/accounts/signinrecord/").content.decode()
    assert "nobody" in page and "failed sign-in" in page
    record = SignInRecord.objects.get(kind=SignInRecord.FAILED)
    assert client.get(f"/admin/accounts/signinrecord/{record.pk}/delete/").status_code == 403
    assert client.get("/admin/accounts/signinrecord/add/").status_code == 403
    tokens = client.get("/admin/accounts/apitoken/").content.decode()
    assert "analyst export" in tokens and "author script" in tokens and "Expires at" in tokens
    client.force_login(author)
    assert client.get("/admin/accounts/signinrecord/").status_code == 403


def test_the_command_says_when_a_token_expires(analyst):
    out, err = io.StringIO(), io.StringIO()
    call_command("api_token", "create", analyst.username, "--name", "export", stdout=out, stderr=err)
    expires = ApiToken.objects.get().expires_at
    assert f"expires {expires:%Y-%m-%d %H:%M} UTC" in err.getvalue()
    listing = io.StringIO()
    call_command("api_token", "list", stdout=listing)
    assert f"active, expires {expires:%Y-%m-%d %H:%M}" in listing.getvalue()
