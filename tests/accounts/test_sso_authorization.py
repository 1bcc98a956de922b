"""A user made by single sign-on is authorized exactly as a user of the same role made on the
console (issue 43's bar: the authorization sweep finds no hole with SSO users). Every decision
of the site reads the user's groups, permissions, staff and superuser flags (Django's model):
these are compared whole for every role; then every page without a parameter is asked by a
signed-on and a local user of the same two roles and must answer both the same (status and
redirect)."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from accounts import sso
from accounts.roles import ROLES
from accounts.services import create_user_with_role
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

MAP = {f"idp-{role}": role for role in ROLES}
SKIP = {"/accounts/logout/", "/accounts/sso/start/", "/accounts/sso/callback/"}


def plain_routes(patterns=None, prefix=""):
    """Every address of the site without a placeholder."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = str(pattern.pattern)
        if "<" in route or "(?P" in route or "^" in route.lstrip("^") or "$" in route.rstrip("$"):
            continue
        route = route.lstrip("^").rstrip("$")
        if isinstance(pattern, URLResolver):
            yield from plain_routes(pattern.url_patterns, prefix + route)
        elif isinstance(pattern, URLPattern) and "(" not in route and "\\" not in route:
            yield "/" + prefix + route


def answer(client, path):
    response = client.get(path)
    return response.status_code, response.get("Location", "")


@pytest.mark.parametrize("role", ROLES)
@override_settings(CFPD_OIDC_ISSUER="https://idp.example.org", CFPD_OIDC_ROLE_MAP=MAP, CFPD_OIDC_GROUPS_CLAIM="groups")
def test_a_signed_on_user_holds_exactly_what_a_local_user_of_the_role_holds(role):
    local, signed_on = users_of(role)
    assert set(signed_on.groups.values_list("name", flat=True)) == {role}
    assert signed_on.get_all_permissions() == local.get_all_permissions() and signed_on.get_all_permissions()
    assert (signed_on.is_staff, signed_on.is_superuser, signed_on.is_active) == (local.is_staff, False, True)
    assert not signed_on.user_permissions.exists() and not signed_on.has_usable_password()


@pytest.mark.services  # once, on the stack users deploy: ~300 requests
@override_settings(CFPD_OIDC_ISSUER="https://idp.example.org", CFPD_OIDC_ROLE_MAP=MAP, CFPD_OIDC_GROUPS_CLAIM="groups")
def test_every_page_answers_a_signed_on_user_as_it_answers_a_local_user_of_the_same_roles():
    # Reviewers and analysts: the two roles that may read much and change little, so that a
    # page letting a user through on anything but the permissions compared above shows here.
    routes = sorted(set(plain_routes()) - SKIP)
    assert len(routes) > 40, routes  # the walk reaches the site's pages, the console's and the API's
    local = create_user_with_role("local-two", PASSWORD, role="reviewers")[0]
    local.groups.add(*Group.objects.filter(name="analysts"))
    signed_on = sso.SSOBackend().create_user({"preferred_username": "sso-two", "email": "two@example.org",
                                              "groups": ["idp-reviewers", "idp-analysts", "admins"]})
    clients = {}
    for name, user in (("local", local), ("sso", signed_on)):
        clients[name] = Client(raise_request_exception=False)
        clients[name].force_login(user)
    differ = []
    for path in routes:
        seen = {name: answer(client, path) for name, client in clients.items()}
        if seen["local"] != seen["sso"]:
            differ.append(f"GET {path}: local {seen['local']}, signed on {seen['sso']}")
    assert not differ, "\n".join(differ)


def users_of(role):
    """A user of the role made on the console, and one made by single sign-on from the
    provider's groups (the role's group, one the map does not know, and one named like a
    powerful group that the map does not grant)."""
    local = create_user_with_role(f"local-{role}", PASSWORD, role=role)[0]
    signed_on = sso.SSOBackend().create_user({"preferred_username": f"sso-{role}", "email": f"{role}@example.org",
                                              "groups": [f"idp-{role}", "idp-unknown", "admins"]})
    for user in (local, signed_on):
        user.refresh_from_db()
    return local, signed_on
