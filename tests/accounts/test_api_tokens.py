"""API tokens: 401 for a caller without credentials, tokens made by the command and in the
console, shown once and never again, revoked tokens refused."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts import api_tokens
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def make_token(username, name="nightly export"):
    out, err = io.StringIO(), io.StringIO()
    call_command("api_token", "create", username, "--name", name, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


def bearer(token):
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def test_a_caller_without_credentials_gets_401_with_www_authenticate(client):
    # Before: 403 (session authentication came first and names no scheme).
    response = client.get("/api/runs/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response.json() == {"detail": "Authentication credentials were not provided."}
    assert client.get("/api/analysis/cfpd/").status_code == 401


def test_a_token_made_by_the_command_opens_the_api(client, analyst):
    token, note = make_token("andy")
    assert token.startswith("cfpd_") and len(token) == 45
    assert "shown only now" in note and token not in note  # the token alone on stdout
    response = client.get("/api/runs/", **bearer(token))
    assert response.status_code == 200 and response.json()["count"] == 0
    # "Token" as DRF's TokenAuthentication has it works too.
    assert client.get("/api/runs/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 200
    assert ApiToken.objects.get().last_used_at is not None


def test_a_token_carries_its_users_role(client, analyst):
    token, _ = make_token("andy")
    # Analysts read runs but do not launch them.
    response = client.post("/api/runs/", {"benchmark": "t", "models": []}, content_type="application/json",
                           **bearer(token))
    assert response.status_code == 403


def test_a_token_is_not_retrievable_after_its_creation(client, analyst, admin_user):
    token, _ = make_token("andy")
    record = ApiToken.objects.get()
    stored = " ".join(str(value) for value in ApiToken.objects.values_list().get())
    assert token not in stored and token[len(record.prefix):] not in stored
    assert record.prefix == token[:13]
    listing = io.StringIO()
    call_command("api_token", "list", stdout=listing)
    assert record.prefix in listing.getvalue() and token not in listing.getvalue()
    client.force_login(admin_user)
    for url in ("/admin/accounts/apitoken/", f"/admin/accounts/apitoken/{record.pk}/change/"):
        page = client.get(url)
        assert page.status_code == 200 and record.prefix in page.content.decode()
        assert token not in page.content.decode()


def test_a_revoked_token_is_refused(client, analyst):
    token, _ = make_token("andy")
    assert client.get("/api/runs/", **bearer(token)).status_code == 200
    out = io.StringIO()
    call_command("api_token", "revoke", token[:13], stdout=out)
    assert "revoked" in out.getvalue()
    response = client.get("/api/runs/", **bearer(token))
    assert response.status_code == 401 and response.json() == {"detail": "Invalid or revoked token."}
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert ApiToken.objects.get().revoked_at is not None  # the row stays: who had which token


def test_wrong_and_malformed_tokens_are_401s_not_500s(client, analyst):
    token, _ = make_token("andy")
    # The last character changed (to "x", or to "y" when it is "x": a token ends with "x" once in 64).
    wrong = token[:-1] + ("y" if token.endswith("x") else "x")
    for header in (f"Bearer {wrong}", "Bearer cfpd_short", "Bearer", f"Bearer {token} extra",
                   "Bearer " + "é" * 40, f"Bearer {token[:-1]}\x00"):
        response = client.get("/api/runs/", HTTP_AUTHORIZATION=header)
        assert response.status_code == 401, header


def test_an_inactive_users_token_is_refused(client, analyst):
    token, _ = make_token("andy")
    analyst.is_active = False
    analyst.save()
    assert client.get("/api/runs/", **bearer(token)).status_code == 401


def test_a_token_needs_no_csrf_token_to_post(operator_with_token):
    # Browsers send cookies by themselves, tokens they do not: token calls need no CSRF token.
    token = operator_with_token
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/api/runs/", {"benchmark": "nope", "models": []}, content_type="application/json",
                           **bearer(token))
    assert response.status_code == 400 and "benchmark" in response.json()


@pytest.fixture
def operator_with_token(db):
    from accounts.services import create_user_with_role
    from tests.conftest import PASSWORD

    create_user_with_role("olga", PASSWORD, role="operators")
    return make_token("olga")[0]


def test_the_command_explains_its_refusals(analyst):
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        make_token("nobody")
    with pytest.raises(CommandError, match="needs a name"):
        make_token("andy", name="  ")
    with pytest.raises(CommandError, match="no token 'cfpd_nothere'"):
        call_command("api_token", "revoke", "cfpd_nothere")


def test_revoking_twice_keeps_the_first_date(analyst):
    made = api_tokens.create_token(analyst, "x")
    assert api_tokens.revoke_tokens(ApiToken.objects.all()) == 1
    first = ApiToken.objects.get().revoked_at
    assert api_tokens.revoke_tokens(ApiToken.objects.all()) == 0
    assert ApiToken.objects.get().revoked_at == first and api_tokens.user_for_token(made.token) is None


def test_the_console_shows_a_new_token_once_and_revokes_it(client, analyst, admin_user):
    client.force_login(admin_user)
    page = client.post("/admin/accounts/apitoken/add/", {"user": analyst.pk, "name": "notebook"})
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    text = page.content.decode()
    record = ApiToken.objects.get()
    start = text.index('id="api-token"')
    token = text[text.index(">", start) + 1:text.index("</code>", start)]
    assert token.startswith(record.prefix) and "will not be shown again" in text
    assert Client().get("/api/runs/", **bearer(token)).status_code == 200
    # Nothing carries the token to a later page (no message, no session).
    assert token not in client.get("/admin/accounts/apitoken/").content.decode()
    client.post("/admin/accounts/apitoken/", {"action": "revoke", "_selected_action": [record.pk]})
    assert Client().get("/api/runs/", **bearer(token)).status_code == 401


def test_only_superusers_manage_tokens_in_the_console(client, author):
    client.force_login(author)  # staff, but no token permission
    assert client.get("/admin/accounts/apitoken/").status_code == 403
