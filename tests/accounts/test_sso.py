"""Single sign-on with OpenID Connect (issue 43, accounts/sso.py): the group mapping, roles kept
in step at each sign-in, no local account taken over, passwords turned off, and the whole
path in a real browser against a real provider (panva's oidc-provider from the npm registry,
started by the test): sign-in, roles from groups, roles changed at the next sign-in, sign-out
at the provider."""

import copy
import json
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import override_settings

from accounts import sso
from accounts.services import create_user_with_role, set_roles_from_provider
from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_VERSION = "8.8.1"  # as scripts/setup installs it
MAP = {"cfpd-authors": "authors", "cfpd-ops": "operators", "cfpd-review": "reviewers"}


def roles(user) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


@override_settings(CFPD_OIDC_ROLE_MAP=MAP, CFPD_OIDC_GROUPS_CLAIM="groups")
def test_the_provider_groups_map_to_roles_and_unknown_groups_to_none():
    assert sso.roles_of({"groups": ["cfpd-authors", "everyone", "cfpd-ops"]}) == {"authors", "operators"}
    assert sso.roles_of({"groups": "cfpd-review"}) == {"reviewers"}  # a single group as a string
    assert sso.roles_of({"groups": [None, 3, "x"]}) == set() and sso.roles_of({}) == set()
    assert sso.username_of({"preferred_username": "ana", "email": "a@x", "sub": "1"}) == "ana"
    assert sso.username_of({"sub": "1f3"}) == "1f3"


@pytest.mark.django_db
def test_roles_are_made_exactly_those_the_groups_map_to_other_groups_kept():
    user = get_user_model().objects.create(username="ana")
    user.groups.add(Group.objects.create(name="a-team-of-the-site"))
    set_roles_from_provider(user, {"authors", "operators"})
    assert roles(user) == {"authors", "operators", "a-team-of-the-site"}
    user.refresh_from_db()
    assert user.is_staff  # a role opens the console
    set_roles_from_provider(user, {"reviewers"})  # the next sign-in: groups changed at the provider
    assert roles(user) == {"reviewers", "a-team-of-the-site"}
    set_roles_from_provider(user, set())
    user.refresh_from_db()
    assert roles(user) == {"a-team-of-the-site"} and not user.is_staff


@pytest.mark.django_db
@override_settings(CFPD_OIDC_ISSUER="https://idp.example.org", CFPD_OIDC_ROLE_MAP=MAP)
def test_a_sign_on_never_takes_over_a_local_account_of_the_same_name():
    create_user_with_role("ana", PASSWORD, role="analysts")
    backend = sso.SSOBackend()
    with pytest.raises(sso.PermissionDenied):
        backend.filter_users_by_claims({"preferred_username": "ana"})
    made = backend.create_user({"preferred_username": "bo", "email": "bo@example.org", "groups": ["cfpd-ops"]})
    assert not made.has_usable_password() and roles(made) == {"operators"}
    assert list(backend.filter_users_by_claims({"preferred_username": "bo"})) == [made]


@pytest.mark.django_db
def test_password_sign_in_when_passwords_are_turned_off(client):
    create_user_with_role("ana", PASSWORD, role="analysts")
    get_user_model().objects.create_superuser("root", "r@example.org", PASSWORD)
    with override_settings(CFPD_LOCAL_PASSWORDS=False, CFPD_OIDC_ISSUER="https://idp.example.org"):
        page = client.post("/accounts/login/", {"username": "ana", "password": PASSWORD})
        assert page.status_code == 200 and "Passwords are turned off here" in page.content.decode()
        assert "_auth_user_id" not in client.session
        page = client.post("/accounts/login/", {"username": "root", "password": PASSWORD})
        assert page.status_code == 302  # the way in when the provider is down


@pytest.mark.django_db
def test_the_sign_on_addresses_are_not_found_unless_configured(client):
    assert client.get("/accounts/sso/start/").status_code == 404
    assert client.get("/accounts/sso/callback/?code=x&state=y").status_code == 404
    assert "Sign in with" not in client.get("/accounts/login/").content.decode()


@pytest.mark.django_db
@override_settings(CFPD_OIDC_ISSUER="http://127.0.0.1:9", OIDC_RP_CLIENT_ID="c", OIDC_RP_CLIENT_SECRET="s")
def test_a_provider_that_cannot_be_reached_gives_a_page_that_says_so_and_passwords_still_work(client):
    sso.discovery.cache_clear()
    create_user_with_role("ana", PASSWORD, role="analysts")
    page = client.get("/accounts/sso/start/")
    assert page.status_code == 503 and "cannot be reached just now" in page.content.decode()
    assert client.post("/accounts/login/", {"username": "ana", "password": PASSWORD}).status_code == 302
    sso.discovery.cache_clear()


# -- a real provider ---------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _provider_folder() -> Path:
    """oidc-provider from the npm registry in var/oidc-provider (scripts/setup --test installs
    it; installed here when set-up could not)."""
    folder = ROOT / "var" / "oidc-provider"
    if not (folder / "node_modules" / "oidc-provider" / "package.json").exists():
        if not shutil.which("npm") or not shutil.which("node"):
            pytest.skip("node and npm are needed to start the OpenID Connect provider")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "cfpd-test-oidc", "private": true}')
        done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", f"oidc-provider@{PROVIDER_VERSION}"],
                              cwd=folder, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"npm could not install oidc-provider: {done.stderr[-2000:]}"
    shutil.copyfile(Path(__file__).with_name("oidc_provider.mjs"), folder / "oidc_provider.mjs")
    return folder


@pytest.fixture(scope="module")
def provider_process(live_server, tmp_path_factory):
    """The provider, started once for the module's browser tests (a start is about a second):
    each test signs on in a fresh browser, so no session of the provider's carries over, and
    `provider` puts its groups and its behaviour back before each test."""
    folder, files = _provider_folder(), tmp_path_factory.mktemp("oidc")
    port = _free_port()
    process = subprocess.Popen(
        ["node", "oidc_provider.mjs", str(port), f"{live_server.url}/accounts/sso/callback/",
         f"{live_server.url}/accounts/login/", str(files / "groups.json"), str(files / "tamper.json")], cwd=folder,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    issuer = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            requests.get(issuer + "/.well-known/openid-configuration", timeout=2).raise_for_status()
            break
        except requests.RequestException:
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "the provider did not start"
            time.sleep(0.2)
    yield issuer, files
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def provider(provider_process):
    issuer, files = provider_process
    groups = files / "groups.json"  # read at each sign-in
    groups.write_text(json.dumps({"ana": ["cfpd-authors", "cfpd-ops", "everyone"]}))
    (files / "tamper.json").unlink(missing_ok=True)  # the provider behaves
    sso.discovery.cache_clear()
    policy = copy.deepcopy(settings.CONTENT_SECURITY_POLICY)
    policy["DIRECTIVES"]["form-action"].append(issuer)  # as the settings add it when CFPD_OIDC_ISSUER is set
    with override_settings(CONTENT_SECURITY_POLICY=policy, CFPD_OIDC_ISSUER=issuer, CFPD_OIDC_NAME="Example University", OIDC_RP_CLIENT_ID="cfpd",
                           OIDC_RP_CLIENT_SECRET="cfpd-test-secret", CFPD_OIDC_ROLE_MAP=MAP,
                           AUTHENTICATION_BACKENDS=["accounts.signin.SignInThrottle",
                                                    "django.contrib.auth.backends.ModelBackend",
                                                    "accounts.sso.SSOBackend"]):
        yield groups
    sso.discovery.cache_clear()


def _sign_on(page, live_server, name, screenshots=None):
    """Through the provider's own pages; with `screenshots`, each step's picture (sso-1… sso-3)."""
    if not getattr(page, "fonts_refused", False):
        # The provider's stand-in pages link Roboto from fonts.googleapis.com, a stylesheet that
        # holds the page's drawing (and so the click on its button) until it comes or fails:
        # 0.1-5 s on a machine with no way out. Refused at once ("aborted": no problem of the page).
        page.route("https://fonts.googleapis.com/**", lambda route: route.abort("aborted"))
        page.fonts_refused = True
    page.goto(f"{live_server.url}/accounts/login/")
    page.click("#sso-sign-in")
    page.fill("input[name=login]", name)  # the provider's own sign-in page
    page.fill("input[name=password]", "anything")
    if screenshots:
        page.screenshot(path=str(screenshots / "sso-1-provider-sign-in.png"))
    page.click("button[type=submit]")
    if screenshots:
        page.wait_for_load_state()
        page.screenshot(path=str(screenshots / "sso-2-provider-consent.png"))
    page.click("button[type=submit]")  # its consent page: "Continue"
    page.wait_for_url(f"{live_server.url}/**")
    if screenshots:
        page.screenshot(path=str(screenshots / "sso-3-signed-in.png"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_sign_on_through_a_real_provider_roles_follow_its_groups_and_sign_out_reaches_it(
        page, live_server, provider, screenshots):
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.locator("#sso-sign-in").inner_text() == "Sign in with Example University"
    page.screenshot(path=str(screenshots / "sso-sign-in.png"))
    _sign_on(page, live_server, "ana", screenshots)
    assert "/accounts/login/" not in page.url
    ana = get_user_model().objects.get(username="ana")
    assert roles(ana) == {"authors", "operators"} and ana.is_staff and not ana.has_usable_password()
    assert "ana" in page.locator("header, nav").first.inner_text()

    # Her groups change at the provider: at her next sign-in her roles follow.
    page.context.clear_cookies()
    provider.write_text(json.dumps({"ana": ["cfpd-review"]}))
    _sign_on(page, live_server, "ana")
    assert roles(ana) == {"reviewers"}
    assert get_user_model().objects.filter(username="ana").count() == 1

    # Signing out here signs out at the provider too (its end-session page), then back here.
    page.locator("form[action='/accounts/logout/'] button").first.click()
    page.wait_for_url("http://127.0.0.1:*/**")  # the provider's "sign out?" page
    page.click("button[autofocus], button[type=submit]")
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    page.goto(f"{live_server.url}/runs/")
    assert "/accounts/login/" in page.url  # signed out here
    page.goto(f"{live_server.url}/accounts/sso/start/")
    assert page.locator("input[name=login]").count() == 1  # and there: the provider asks again


@pytest.mark.browser
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@pytest.mark.parametrize("tamper, said", [({"aud": "another-site"}, "audience"), ({"expired": True}, "expired")])
def test_a_real_providers_token_for_another_audience_or_expired_is_refused_in_the_browser(
        page, live_server, provider, screenshots, tamper, said):
    # The provider signs the token with its own published key, so only its claims are wrong.
    (provider.parent / "tamper.json").write_text(json.dumps(tamper))
    _sign_on(page, live_server, "ana")
    body = page.locator("main").inner_text()
    assert "did not sign you in" in body and said in body.lower()
    page.screenshot(path=str(screenshots / f"sso-refused-{'audience' if 'aud' in tamper else 'expired'}.png"))
    assert not get_user_model().objects.filter(username="ana").exists()
    page.goto(f"{live_server.url}/runs/")
    assert "/accounts/login/" in page.url  # not signed in

    (provider.parent / "tamper.json").unlink()  # the provider behaves again: the same person gets in
    page.context.clear_cookies()
    _sign_on(page, live_server, "ana")
    assert roles(get_user_model().objects.get(username="ana")) == {"authors", "operators"}


# -- the ID token's checks ---------------------------------------------------------------------

ISSUER = "https://idp.example.org"


@pytest.fixture(scope="module")
def signing_key():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = private.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


def _token(private, **changes):
    import jwt

    now = int(time.time())
    claims = {"iss": ISSUER, "aud": "cfpd", "sub": "ana", "iat": now, "exp": now + 300, "nonce": "n1"} | changes
    return jwt.encode({k: v for k, v in claims.items() if v is not None}, private, algorithm="RS256")


@override_settings(CFPD_OIDC_ISSUER=ISSUER, OIDC_RP_CLIENT_ID="cfpd", OIDC_RP_CLIENT_SECRET="s")
@pytest.mark.parametrize("changes, refused_for", [
    ({}, None),
    ({"aud": "another-site"}, "(?i)audience"),  # a token the provider made for another client
    ({"aud": ["another-site", "third"]}, "(?i)audience"),
    ({"exp": int(time.time()) - 120}, "expired"),  # past the minute's leeway
    ({"iss": "https://evil.example.org"}, "issuer"),
    ({"exp": None}, "exp"),  # no expiry at all
    ({"nonce": "another"}, "Nonce"),  # an answer to another sign-in
])
def test_an_id_token_for_another_audience_expired_or_from_another_issuer_is_refused(signing_key, changes, refused_for):
    private, public = signing_key
    backend = sso.SSOBackend()
    backend._read_settings = lambda: None
    backend.OIDC_RP_CLIENT_ID, backend.OIDC_RP_SIGN_ALGO, backend.OIDC_RP_IDP_SIGN_KEY = "cfpd", "RS256", public
    token = _token(private, **changes)
    if refused_for is None:
        assert backend.verify_token(token, nonce="n1")["sub"] == "ana"
        return
    with pytest.raises(sso.SuspiciousOperation, match=refused_for):
        backend.verify_token(token, nonce="n1")


@pytest.mark.django_db
@override_settings(CFPD_OIDC_ISSUER=ISSUER, OIDC_RP_CLIENT_ID="cfpd", OIDC_RP_CLIENT_SECRET="s")
def test_a_refused_token_at_the_callback_is_a_page_that_says_so_not_a_500(client, monkeypatch):
    def refused(self, payload):
        raise sso.SuspiciousOperation("ID token refused: Signature has expired")

    monkeypatch.setattr(sso.SSOBackend, "get_token", lambda self, payload: {"id_token": "x", "access_token": "y"})
    monkeypatch.setattr(sso.SSOBackend, "verify_token", lambda self, token, **kw: refused(self, token))
    endpoints = {"token_endpoint": f"{ISSUER}/token", "userinfo_endpoint": f"{ISSUER}/me",
                 "jwks_uri": f"{ISSUER}/jwks", "authorization_endpoint": f"{ISSUER}/auth"}
    monkeypatch.setattr(sso, "discovery", lambda issuer: endpoints)
    session = client.session
    session["oidc_states"] = {"st": {"code_verifier": "v", "nonce": "n1", "added_on": time.time()}}
    session.save()
    with override_settings(AUTHENTICATION_BACKENDS=["django.contrib.auth.backends.ModelBackend",
                                                    "accounts.sso.SSOBackend"]):
        page = client.get("/accounts/sso/callback/?code=abc&state=st", follow=True)
    assert page.status_code == 200 and "did not sign you in" in page.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
@override_settings(CFPD_OIDC_ISSUER="http://127.0.0.1:9", OIDC_RP_CLIENT_ID="c", OIDC_RP_CLIENT_SECRET="s")
def test_signing_out_while_the_provider_is_down_signs_out_here(client):
    sso.discovery.cache_clear()
    user, _ = create_user_with_role("ana", PASSWORD, role="analysts")
    client.force_login(user)
    session = client.session
    session["oidc_id_token"] = "a-token"
    session.save()
    page = client.post("/accounts/logout/")
    assert page.status_code == 302 and page["Location"].endswith("/accounts/login/")
    assert "_auth_user_id" not in client.session
    sso.discovery.cache_clear()
