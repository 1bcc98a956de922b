"""Single sign-on with OpenID Connect (issue 43), through mozilla-django-oidc.

Configured by settings (README, *Configuration*; docs/operations.md, *Single sign-on*): the
provider's issuer (its endpoints are read from its discovery document, once per process),
the client's id and secret, the claim that carries the person's groups and a mapping from
the provider's groups to the product's roles. A person is made at their first sign-in with
the roles their groups map to, and their roles are put in step with their groups at every
sign-in (`services.set_roles_from_provider`). Signing out of the product signs out at the
provider too (its `end_session_endpoint`, RP-initiated logout).

A local account (one with a usable password) is never taken over by a sign-on of the same
name: that sign-in is refused and logged. People made by sign-on have no usable password.
With `CFPD_LOCAL_PASSWORDS=0` only superusers may still sign in with a password (the way
in when the provider is down).
"""

from __future__ import annotations

import functools
import logging
from urllib.parse import urlencode

import jwt
import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, SuspiciousOperation
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.views import View
from mozilla_django_oidc import views as oidc_views
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings

from .roles import ROLES

log = logging.getLogger(__name__)

# mozilla-django-oidc's settings read from the provider's discovery document.
_DISCOVERED = {"OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint", "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
               "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint", "OIDC_OP_JWKS_ENDPOINT": "jwks_uri"}


def enabled() -> bool:
    return bool(settings.CFPD_OIDC_ISSUER)


@functools.lru_cache(maxsize=4)
def discovery(issuer: str) -> dict:
    """The provider's `/.well-known/openid-configuration` (kept for the process's life)."""
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        answer = requests.get(url, timeout=10)
        answer.raise_for_status()
        document = answer.json()
    except (requests.RequestException, ValueError) as error:
        raise ImproperlyConfigured(f"the sign-on provider's discovery document could not be read from {url}: "
                                   f"{type(error).__name__}") from None
    if document.get("issuer", "").rstrip("/") != issuer.rstrip("/"):
        raise ImproperlyConfigured(f"{url} names another issuer: {document.get('issuer')!r}")
    return document


def sso_setting(attr, *default):
    """mozilla-django-oidc's `get_settings`: the endpoints from the discovery document."""
    if attr in _DISCOVERED and enabled() and not hasattr(settings, attr):
        return discovery(settings.CFPD_OIDC_ISSUER)[_DISCOVERED[attr]]
    return import_from_settings(attr, *default)


def roles_of(claims: dict) -> set[str]:
    """The product's roles that the groups in the person's claims map to."""
    groups = claims.get(settings.CFPD_OIDC_GROUPS_CLAIM) or []
    if isinstance(groups, str):
        groups = [groups]
    mapping = settings.CFPD_OIDC_ROLE_MAP
    return {mapping[group] for group in groups if isinstance(group, str) and group in mapping}


def username_of(claims: dict) -> str:
    name = claims.get("preferred_username") or claims.get("email") or claims.get("sub") or ""
    return str(name)[:150]


class SSOBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend: people found by user name, their roles from their groups."""

    get_settings = staticmethod(sso_setting)

    def __init__(self, *args, **kwargs):
        # Not mozilla-django-oidc's: it reads the endpoints when Django makes the backend, at
        # every sign-in, passwords included, which would then fail while the provider is down.
        self.UserModel = get_user_model()

    def _read_settings(self):
        for attr in ("OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_USER_ENDPOINT", "OIDC_OP_JWKS_ENDPOINT"):
            setattr(self, attr, sso_setting(attr))
        self.OIDC_RP_CLIENT_ID, self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_ID, settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO, self.OIDC_RP_IDP_SIGN_KEY = settings.OIDC_RP_SIGN_ALGO, None

    def _verify_jws(self, payload, key):
        """The ID token's signature, and what mozilla-django-oidc leaves unchecked: that it
        was made for this site (`aud`), by the configured provider (`iss`), and is not
        expired (`exp`, a minute's leeway for clocks). Any failure is a refused sign-in
        (SuspiciousOperation: the callback's failure page), never a 500."""
        try:
            algorithm = jwt.get_unverified_header(payload).get("alg")
            if algorithm != self.OIDC_RP_SIGN_ALGO:
                raise SuspiciousOperation(f"ID token signed with {algorithm!r}, not {self.OIDC_RP_SIGN_ALGO!r}")
            return jwt.decode(payload, key, algorithms=[algorithm], audience=self.OIDC_RP_CLIENT_ID,
                              issuer=settings.CFPD_OIDC_ISSUER, leeway=60,
                              options={"require": ["exp", "iat", "aud", "iss", "sub"]})
        except jwt.InvalidTokenError as error:
            raise SuspiciousOperation(f"ID token refused: {error}") from None

    def verify_claims(self, claims):
        return bool(username_of(claims))

    def filter_users_by_claims(self, claims):
        users = get_user_model().objects.filter(username=username_of(claims))
        local = next((user for user in users if user.has_usable_password()), None)
        if local is not None:
            log.warning("sign-on of %r refused: a local account of that name exists", local.username)
            raise PermissionDenied("a local account of that name exists")
        return users

    def create_user(self, claims):
        from .services import set_roles_from_provider

        user = get_user_model()(username=username_of(claims), email=claims.get("email", "") or "")
        user.set_unusable_password()
        user.save()
        set_roles_from_provider(user, roles_of(claims))
        return user

    def update_user(self, user, claims):
        from .services import set_roles_from_provider

        if claims.get("email") and claims["email"] != user.email:
            user.email = claims["email"]
            user.save(update_fields=["email"])
        set_roles_from_provider(user, roles_of(claims))
        return user

    def authenticate(self, request, **kwargs):
        """Only the provider's callback (a code and a state) is this backend's to answer."""
        if not enabled() or request is None or not request.GET.get("code") or not request.GET.get("state"):
            return None
        self._read_settings()
        try:
            return super().authenticate(request, **kwargs)
        except PermissionDenied:
            return None


class _OnlyWhenConfigured:
    def dispatch(self, request, *args, **kwargs):
        if not enabled():
            raise Http404("single sign-on is not configured")
        return super().dispatch(request, *args, **kwargs)


class SignOnStart(_OnlyWhenConfigured, oidc_views.OIDCAuthenticationRequestView):
    get_settings = staticmethod(sso_setting)

    def __init__(self, *args, **kwargs):
        # Not mozilla-django-oidc's, which reads the endpoint when the view is made: read at the request.
        View.__init__(self, *args, **kwargs)

    def get(self, request):
        try:
            self.OIDC_OP_AUTH_ENDPOINT = sso_setting("OIDC_OP_AUTHORIZATION_ENDPOINT")
        except ImproperlyConfigured as error:
            log.error("single sign-on: %s", error)
            return render(request, "registration/sso_unavailable.html", {"sso_name": settings.CFPD_OIDC_NAME},
                          status=503)
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        return super().get(request)


class SignOnCallback(_OnlyWhenConfigured, oidc_views.OIDCAuthenticationCallbackView):
    get_settings = staticmethod(sso_setting)

    def login_failure(self, reason: str | None = None):
        if reason and reason.startswith("ID token refused: "):
            # Why the provider's token was refused (PyJWT's words: "Invalid audience", "Signature
            # has expired", ...): what an admin needs to mend the provider's set-up or a clock.
            said = f"the provider's ID token was refused ({reason.removeprefix('ID token refused: ')})"
        else:
            said = "your account could not be matched (a local account of the same name, or the provider refused)"
        messages.error(self.request, f"Single sign-on did not sign you in: {said}. Ask an admin.")
        return super().login_failure()

    def get(self, request):
        try:
            return super().get(request)
        except SuspiciousOperation as error:  # a stale or forged state: a fresh start, not a 500
            log.warning("sign-on callback refused: %s", error)
            return self.login_failure(str(error))


def provider_logout_url(request) -> str | None:
    """The provider's end-session address, back to the sign-in page after; None when the
    provider has none or cannot be reached (the sign-out is then this site's alone)."""
    try:
        end = discovery(settings.CFPD_OIDC_ISSUER).get("end_session_endpoint")
    except ImproperlyConfigured as error:  # the provider down: signed out here, not there
        log.warning("sign-out at the provider skipped: %s", error)
        end = None
    if not end:
        return None
    params = {"client_id": settings.OIDC_RP_CLIENT_ID,
              "post_logout_redirect_uri": request.build_absolute_uri(reverse("login"))}
    token = request.session.get("oidc_id_token")
    if token:
        params["id_token_hint"] = token
    return f"{end}?{urlencode(params)}"


class SignIn(auth_views.LoginView):
    """The sign-in page: the provider's button when sign-on is configured; passwords
    refused (superusers excepted) when `CFPD_LOCAL_PASSWORDS` is off."""

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs) | {
            "sso": enabled(), "sso_name": settings.CFPD_OIDC_NAME, "local_passwords": settings.CFPD_LOCAL_PASSWORDS}

    def form_valid(self, form):
        user = form.get_user()
        if not settings.CFPD_LOCAL_PASSWORDS and not user.is_superuser:
            form.add_error(None, f"Passwords are turned off here: sign in with {settings.CFPD_OIDC_NAME}.")
            return self.form_invalid(form)
        return super().form_valid(form)


class SignOut(auth_views.LogoutView):
    """Sign out; a person who signed in through the provider is signed out there too."""

    def post(self, request, *args, **kwargs):
        through_provider = enabled() and "oidc_id_token" in request.session
        url = provider_logout_url(request) if through_provider else None
        response = super().post(request, *args, **kwargs)
        if url:
            response["Location"] = url
        return response
