"""Security keys and passkeys as the second factor (issue 43, django-otp-webauthn): with
CFPD_WEBAUTHN_ORIGIN set, the enrol page offers to register a key; a person whose only
device is a key is asked for it at sign-in (never sent to enrol an app), and a recovery code
still opens. The browser test registers and uses a key on Chromium's virtual authenticator."""

import re

import pytest
from django.test import Client, override_settings
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_otp_webauthn.models import WebAuthnCredential

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

ORIGIN = "http://localhost:8000"
KEYS = override_settings(CFPD_REQUIRE_2FA_ROLES=frozenset({"authors", "operators", "admin"}),
                         CFPD_WEBAUTHN_ORIGIN=ORIGIN, OTP_WEBAUTHN_RP_ID="localhost",
                         OTP_WEBAUTHN_ALLOWED_ORIGINS=[ORIGIN])


def signed_in(user):
    client = Client()
    assert client.post("/accounts/login/", {"username": user.username, "password": PASSWORD}).status_code == 302
    return client


def a_key(user):
    # The fields a registration stores; only its existence matters to the pages.
    return WebAuthnCredential.objects.create(user=user, name="security key", confirmed=True,
                                             credential_id=b"\x01" * 16, public_key=b"\x02" * 77,
                                             aaguid="00000000-0000-0000-0000-000000000000")


def recovery_codes(user, *codes):
    device = StaticDevice.objects.create(user=user, name="recovery codes", confirmed=True)
    for code in codes:
        StaticToken.objects.create(device=device, token=code)


@KEYS
def test_the_enrol_page_offers_a_key_with_the_plugins_script_from_static_files(author):
    client = signed_in(author)
    response = client.get("/accounts/2fa/?next=/runs/")
    page = response.content.decode()
    assert "Set up a second factor" in page and 'id="passkey-register-button"' in page
    assert '<script type="module" src="/static/django_otp_webauthn/otp_webauthn_register.js">' in page
    assert 'src="/static/js/passkey_continue.js"' in page
    # No inline script: every <script> has a src, or is JSON data (the plugin's configuration).
    for tag in re.findall(r"<script[^>]*>", page):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert "script-src 'self'" in response["Content-Security-Policy"]
    options = client.post("/accounts/2fa/webauthn/registration/begin/")
    assert options.status_code == 200 and options.json()["rp"] == {"name": "CFPD Workbench", "id": "localhost"}


@KEYS
def test_a_person_with_only_a_key_is_asked_for_it_not_sent_to_enrol(author):
    a_key(author)
    client = signed_in(author)
    assert client.get("/runs/")["Location"] == "/accounts/2fa/?next=/runs/"
    page = client.get("/accounts/2fa/?next=/runs/").content.decode()
    assert "Your second factor" in page and "Set up a second factor" not in page
    assert 'id="passkey-verification-button"' in page
    assert '<script type="module" src="/static/django_otp_webauthn/otp_webauthn_auth.js">' in page
    assert not TOTPDevice.objects.exists()  # no app enrolment begun
    # The ceremony's options name this person's key only.
    options = client.post("/accounts/2fa/webauthn/authentication/begin/").json()
    assert [c["id"] for c in options["allowCredentials"]] == ["AQEBAQEBAQEBAQEBAQEBAQ"]  # 16 × 0x01, base64url
    assert client.get("/runs/").status_code == 302  # asking is not giving


@KEYS
def test_a_recovery_code_opens_for_a_person_with_a_key_and_a_six_digit_guess_does_not_fail(author):
    a_key(author)
    recovery_codes(author, "abcd2345")
    client = signed_in(author)
    wrong = client.post("/accounts/2fa/", {"code": "123456"})  # no app: six digits match nothing
    assert wrong.status_code == 400 and "recovery code is not right" in wrong.content.decode()
    assert client.post("/accounts/2fa/", {"code": "abcd2345", "next": "/runs/"})["Location"] == "/runs/"
    assert client.get("/").status_code == 200


@KEYS
def test_recovery_codes_are_made_once_after_a_key_is_registered(author):
    key = a_key(author)
    client = signed_in(author)
    unverified = client.post("/accounts/2fa/", {"key-added": "1", "next": "/runs/"})
    assert "recovery-codes" not in unverified.content.decode() and not StaticToken.objects.exists()
    session = client.session
    session["otp_device_id"] = key.persistent_id  # as the plugin's registration view leaves it
    session.save()
    response = client.post("/accounts/2fa/", {"key-added": "1", "next": "/runs/"})
    codes = re.findall(r"<li><code>(\w+)</code></li>", response.content.decode())
    assert response.status_code == 200 and len(codes) == 10
    again = client.post("/accounts/2fa/", {"key-added": "1", "next": "/runs/"})
    assert again.status_code == 302 and StaticToken.objects.count() == 10  # never shown twice


@override_settings(CFPD_REQUIRE_2FA_ROLES=frozenset({"authors"}))
def test_keys_are_off_until_the_origin_is_set(author):
    client = signed_in(author)
    assert "passkey" not in client.get("/accounts/2fa/").content.decode()
    assert client.post("/accounts/2fa/webauthn/registration/begin/").status_code == 404
    a_key(author)  # a key left from when they were on is not asked for: the app is
    assert "Set up a second factor" in client.get("/accounts/2fa/").content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_register_a_key_then_sign_in_with_it_in_a_browser(page, live_server, author, settings, screenshots):
    assert live_server.url.startswith("http://localhost:")  # a key's relying party is a host name
    settings.CFPD_REQUIRE_2FA_ROLES = frozenset({"authors"})
    settings.CFPD_WEBAUTHN_ORIGIN = live_server.url
    settings.OTP_WEBAUTHN_RP_ID = "localhost"
    settings.OTP_WEBAUTHN_ALLOWED_ORIGINS = [live_server.url]
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True}})

    def sign_in():
        page.goto(f"{live_server.url}/accounts/login/?next=/benchmarks/")
        page.fill("input[name=username]", author.username)
        page.fill("input[name=password]", PASSWORD)
        page.click("form[action='/accounts/login/'] button[type=submit]")
        page.wait_for_url(f"{live_server.url}/accounts/2fa/**")

    sign_in()
    assert page.locator("h1").inner_text() == "Set up a second factor"
    page.screenshot(path=str(screenshots / "2fa-key-enrol.png"), full_page=True)
    page.click("#passkey-register-button")
    page.locator("#recovery-codes li").first.wait_for()
    assert page.locator("#recovery-codes li").count() == 10
    assert WebAuthnCredential.objects.filter(user=author, confirmed=True).count() == 1
    page.click("#continue")
    page.wait_for_url(f"{live_server.url}/benchmarks/")

    page.context.clear_cookies()
    sign_in()
    assert page.locator("h1").inner_text() == "Your second factor"
    page.screenshot(path=str(screenshots / "2fa-key-sign-in.png"), full_page=True)
    page.click("#passkey-verification-button")
    page.wait_for_url(f"{live_server.url}/benchmarks/")
    assert page.locator("h1").count() >= 1
    assert not TOTPDevice.objects.filter(user=author, confirmed=True).exists()
    assert page.problems == []
